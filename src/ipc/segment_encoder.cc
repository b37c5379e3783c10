#include "sluice/ipc/segment_encoder.h"

#include <cstring>
#include <vector>

#include "arrow_message_generated.h"
#include "column_gather_internal.h"
#include "schema_message_internal.h"
#include "sluice/base/bit_ops.h"
#include "sluice/base/check.h"
#include "sluice/base/stopwatch.h"
#include "sluice/ipc/ipc_format.h"

namespace sluice {

namespace {

using ipc::kBufferAlignment;
using ipc::PlannedBuffer;
using ipc::PlannedNode;

// Returns where a scalar field of a flatbuffer table is stored. The template is built with
// ForceDefaults, so every field is present.
const uint8_t* ScalarFieldAddress(const void* table, flatbuffers::voffset_t field) {
  const auto* table_bytes = static_cast<const uint8_t*>(table);
  const uint8_t* vtable =
      table_bytes - flatbuffers::ReadScalar<flatbuffers::soffset_t>(table_bytes);
  const auto vtable_size = flatbuffers::ReadScalar<flatbuffers::voffset_t>(vtable);
  SLUICE_CHECK(field < vtable_size, "flatbuffer template lacks a field");
  const auto field_offset = flatbuffers::ReadScalar<flatbuffers::voffset_t>(vtable + field);
  SLUICE_CHECK(field_offset != 0, "flatbuffer template lacks a field");
  return table_bytes + field_offset;
}

fb::CompressionType ArrowCodec(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kZstd:
      return fb::CompressionType::ZSTD;
    default:
      return fb::CompressionType::LZ4_FRAME;
  }
}

}  // namespace

class SegmentEncoder::Impl {
 public:
  Impl(const Schema& schema, const SegmentEncoderOptions& options) {
    for (const Field& field : schema.fields()) {
      columns_.push_back(ipc::ColumnGather::Make(*field.type));
      node_count_ += columns_.back()->node_count();
      buffer_count_ += columns_.back()->buffer_count();
      view_count_ += static_cast<size_t>(CountBinaryViews(*field.type));
      columns_.back()->CollectDictionaries(&dictionaries_);
    }
    column_sources_.resize(columns_.size());
    codec_ = options.codec;
    min_compress_bytes_ = options.min_compress_bytes;
  }

  Status Init(const Schema& schema, const SegmentEncoderOptions& options) {
    if (codec_ != CompressionCodec::kNone) {
      SLUICE_ASSIGN_OR_RAISE(compressor_, Compressor::Make(codec_, options.compression_level));
    }
    SLUICE_RETURN_NOT_OK(ipc::AppendSchemaMessage(schema, &schema_message_));
    BuildRecordBatchTemplate();
    return Status::OK();
  }

  std::span<const uint8_t> schema_message() const {
    return {schema_message_.data(), static_cast<size_t>(schema_message_.size())};
  }

  // True when the last block failed only because a dictionary column's block dictionary would
  // hold more values than its index type numbers.
  bool dictionary_overflow() const { return plan_.dictionary_overflow; }

  void Bind(std::span<const RecordBatch* const> batches) {
    for (size_t c = 0; c < columns_.size(); ++c) {
      std::vector<const ArrayData*>& sources = column_sources_[c];
      sources.resize(batches.size());
      for (size_t b = 0; b < batches.size(); ++b) sources[b] = &batches[b]->column(c);
      columns_[c]->Bind(sources);
    }
  }

  // The selection of rows `rows[i]` of bound batch `sources[i]`, split by source (valid until
  // the next call).
  ipc::RowSelection SelectRows(const uint32_t* sources, const uint32_t* rows, int64_t count,
                               int64_t readable_ahead) {
    return ipc::SplitBySource(sources, rows, count, count + readable_ahead, &stretches_);
  }

  template <typename Selection>
  Status Append(const Selection& selection, AlignedBuffer* out, SegmentEncoderMetrics* metrics) {
    if (codec_ != CompressionCodec::kNone) {
      SLUICE_RETURN_NOT_OK(Gather(selection));
      return Frame(selection.count, out, metrics);
    }
    SLUICE_DCHECK(out->size() % kBufferAlignment == 0);
    const int64_t length = selection.count;
    SLUICE_RETURN_NOT_OK(PlanBlock(selection, &plan_));
    SLUICE_RETURN_NOT_OK(AppendDictionaryBatches(out, metrics));
    const int64_t message_start = out->size();
    // Each buffer at the next 8-byte boundary. (Two passes over the buffers in all: at many
    // partitions a block is a few rows, and its fixed work is most of its cost.)
    int64_t body_length = 0;
    int64_t buffer_bytes = 0;
    for (const PlannedBuffer& buffer : plan_.buffers) {
      body_length += bits::RoundUp(buffer.size, kBufferAlignment);
      buffer_bytes += buffer.size;
    }
    // Eight spare bytes: each buffer's padding is zeroed with one 8-byte store that may run into
    // the next buffer's first bytes (written after it) or past the body's end.
    out->Reserve(message_start + template_.size() + body_length + 8);
    out->Append(template_.data(), template_.size());
    uint8_t* body = out->AppendUninitialized(body_length);
    uint8_t* message = out->data() + message_start;
    uint8_t* entry = message + buffers_position_;
    int64_t position = 0;
    for (PlannedBuffer& buffer : plan_.buffers) {
      uint8_t* dest = body + position;
      if (buffer.direct != nullptr) {
        std::memcpy(dest, buffer.direct, static_cast<size_t>(buffer.size));
      } else {
        buffer.destination = dest;
      }
      bits::StoreUnaligned<uint64_t>(dest + buffer.size, 0);
      bits::StoreUnaligned<int64_t>(entry, position);
      bits::StoreUnaligned<int64_t>(entry + 8, buffer.size);
      entry += sizeof(fb::Buffer);
      position += bits::RoundUp(buffer.size, kBufferAlignment);
    }
    WriteColumns(selection, &plan_);
    PatchHeader(message, length, body_length, plan_);
    metrics->blocks += 1;
    metrics->rows += length;
    metrics->uncompressed_body_bytes += buffer_bytes;
    metrics->encoded_bytes += out->size() - message_start;
    return Status::OK();
  }

  // Compressing encoders: plans a block into plan_ and gathers every buffer that is not used
  // in place into scratch_, the codec's input.
  template <typename Selection>
  Status Gather(const Selection& selection) {
    SLUICE_DCHECK(codec_ != CompressionCodec::kNone);
    SLUICE_RETURN_NOT_OK(PlanBlock(selection, &plan_));
    int64_t scratch_bytes = 0;
    for (const PlannedBuffer& buffer : plan_.buffers) {
      if (buffer.direct == nullptr) scratch_bytes += bits::RoundUp(buffer.size, kBufferAlignment);
    }
    scratch_.Resize(scratch_bytes);
    int64_t position = 0;
    for (PlannedBuffer& buffer : plan_.buffers) {
      if (buffer.direct != nullptr) continue;
      buffer.destination = scratch_.data() + position;
      position += bits::RoundUp(buffer.size, kBufferAlignment);
    }
    WriteColumns(selection, &plan_);
    return Status::OK();
  }

  // Compressing encoders: compresses the block Gather left in plan_ and scratch_ and appends
  // its RecordBatch message of `rows` rows to `out`.
  Status Frame(int64_t rows, AlignedBuffer* out, SegmentEncoderMetrics* metrics) {
    SLUICE_DCHECK(out->size() % kBufferAlignment == 0);
    SLUICE_RETURN_NOT_OK(AppendDictionaryBatches(out, metrics));
    // Only compression is timed here (its calls cost microseconds); gathering is the rest of
    // the caller's encode time, measured by the caller, not twice per block.
    const auto compress_start = SteadyClock::now();
    const int64_t message_start = out->size();
    out->Append(template_.data(), template_.size());
    SLUICE_ASSIGN_OR_RAISE(const int64_t body_length, CompressBody(plan_, out));
    metrics->compress_nanos += NanosSince(compress_start);
    PatchMetadata(out->data() + message_start, rows, body_length, plan_);
    metrics->blocks += 1;
    metrics->rows += rows;
    metrics->uncompressed_body_bytes += UncompressedBytes(plan_);
    metrics->encoded_bytes += out->size() - message_start;
    return Status::OK();
  }

 private:
  template <typename Selection>
  Status PlanBlock(const Selection& selection, ipc::BlockPlan* plan) {
    plan->Clear();
    for (auto& column : columns_) column->Plan(selection, plan);
    if (plan->dictionary_overflow) {
      return Status::Invalid("a block of ", selection.count,
                             " rows needs a dictionary of more values than a dictionary column's "
                             "index type can number (its batches have different dictionaries); "
                             "use wider indices, or unpack dictionaries when writing");
    }
    if (plan->offsets_overflow) {
      return Status::Invalid("a block of ", selection.count,
                             " rows holds more values or bytes than a column's offsets or run "
                             "ends can index (2^31 for 32-bit offsets, 32,767 rows for int16 run "
                             "ends); lower the target block size");
    }
    SLUICE_DCHECK(static_cast<int>(plan->nodes.size()) == node_count_);
    SLUICE_DCHECK(static_cast<int>(plan->buffers.size()) == buffer_count_);
    return Status::OK();
  }

  // Appends a DictionaryBatch message for each dictionary-encoded column of the block just
  // planned: the values its rows use, uncompressed, under the column's id (its place in
  // pre-order), replacing the dictionary of the block before, as Arrow's stream format allows.
  Status AppendDictionaryBatches(AlignedBuffer* out, SegmentEncoderMetrics* metrics) {
    for (size_t id = 0; id < dictionaries_.size(); ++id) {
      ipc::DictionaryColumn& dictionary = *dictionaries_[id];
      const ipc::RowSelection& used = dictionary.used_values();
      dictionary_plan_.Clear();
      dictionary.values().Plan(used, &dictionary_plan_);
      if (dictionary_plan_.offsets_overflow) {
        return Status::Invalid("a block's dictionary of ", used.count,
                               " values holds more values or bytes than its offsets can index");
      }
      int64_t scratch_bytes = 0;
      for (const PlannedBuffer& buffer : dictionary_plan_.buffers) {
        if (buffer.direct == nullptr) scratch_bytes += bits::RoundUp(buffer.size, kBufferAlignment);
      }
      dictionary_scratch_.Resize(scratch_bytes);
      int64_t position = 0;
      for (PlannedBuffer& buffer : dictionary_plan_.buffers) {
        if (buffer.direct != nullptr) continue;
        buffer.destination = dictionary_scratch_.data() + position;
        position += bits::RoundUp(buffer.size, kBufferAlignment);
      }
      size_t buffer_index = 0;
      dictionary.values().Write(used, &dictionary_plan_, &buffer_index);
      // The body first (its buffer entries go into the header), then header and body. Never
      // compressed: nanoarrow 0.9 reads a DictionaryBatch's buffers as raw bytes whatever its
      // compression says (pyarrow's compressed dictionaries too), and would misread them.
      dictionary_body_.Clear();
      AppendRawBody(dictionary_plan_, &dictionary_body_);
      const int64_t message_start = out->size();
      AppendDictionaryHeader(static_cast<int64_t>(id), used.count, dictionary_plan_,
                             dictionary_body_.size(), out);
      out->Append(dictionary_body_.data(), dictionary_body_.size());
      metrics->uncompressed_body_bytes += UncompressedBytes(dictionary_plan_);
      metrics->encoded_bytes += out->size() - message_start;
    }
    return Status::OK();
  }

  // Appends every buffer of `plan` as it is, each at the next 8-byte boundary, recording where
  // (buffer_offsets_, buffer_lengths_).
  void AppendRawBody(const ipc::BlockPlan& plan, AlignedBuffer* out) {
    buffer_offsets_.resize(plan.buffers.size());
    buffer_lengths_.resize(plan.buffers.size());
    const int64_t body_start = out->size();
    for (size_t i = 0; i < plan.buffers.size(); ++i) {
      const PlannedBuffer& buffer = plan.buffers[i];
      buffer_offsets_[i] = out->size() - body_start;
      buffer_lengths_[i] = buffer.size;
      if (buffer.size == 0) continue;
      out->Append(buffer.direct != nullptr ? buffer.direct : buffer.destination, buffer.size);
      out->PadTo(kBufferAlignment);
    }
  }

  // Appends the framed DictionaryBatch message of a body laid out as buffer_offsets_ and
  // buffer_lengths_ say.
  void AppendDictionaryHeader(int64_t id, int64_t length, const ipc::BlockPlan& plan,
                              int64_t body_length, AlignedBuffer* out) {
    // The builder and the vectors are kept from block to block: a block allocates nothing.
    flatbuffers::FlatBufferBuilder& builder = dictionary_builder_;
    builder.Clear();
    std::vector<fb::FieldNode>& nodes = dictionary_nodes_;
    nodes.clear();
    for (const PlannedNode& node : plan.nodes) nodes.emplace_back(node.length, node.null_count);
    std::vector<fb::Buffer>& buffers = dictionary_buffers_;
    buffers.clear();
    for (size_t i = 0; i < plan.buffers.size(); ++i) {
      buffers.emplace_back(buffer_offsets_[i], buffer_lengths_[i]);
    }
    auto nodes_offset = builder.CreateVectorOfStructs(nodes);
    auto buffers_offset = builder.CreateVectorOfStructs(buffers);
    const int views = CountBinaryViews(dictionaries_[static_cast<size_t>(id)]->value_type());
    flatbuffers::Offset<flatbuffers::Vector<int64_t>> variadic_offset;
    if (views > 0) {
      dictionary_variadic_counts_.assign(static_cast<size_t>(views), 1);
      variadic_offset = builder.CreateVector(dictionary_variadic_counts_);
    }
    fb::RecordBatchBuilder batch(builder);
    batch.add_length(length);
    batch.add_nodes(nodes_offset);
    batch.add_buffers(buffers_offset);
    if (views > 0) batch.add_variadic_buffer_counts(variadic_offset);
    auto batch_offset = batch.Finish();
    auto dictionary = fb::CreateDictionaryBatch(builder, id, batch_offset, /*isDelta=*/false);
    auto message =
        fb::CreateMessage(builder, fb::MetadataVersion::V5, fb::MessageHeader::DictionaryBatch,
                          dictionary.Union(), body_length);
    builder.Finish(message);
    ipc::AppendFramedMessage(builder.GetBufferPointer(), builder.GetSize(), out);
  }

  static int64_t UncompressedBytes(const ipc::BlockPlan& plan) {
    int64_t bytes = 0;
    for (const auto& buffer : plan.buffers) bytes += buffer.size;
    return bytes;
  }

  // Builds the RecordBatch message once, with every field present, and records where the
  // per-block values live so that a block only patches them.
  void BuildRecordBatchTemplate() {
    flatbuffers::FlatBufferBuilder builder(1024);
    builder.ForceDefaults(true);
    std::vector<fb::FieldNode> nodes(static_cast<size_t>(node_count_), fb::FieldNode(0, 0));
    std::vector<fb::Buffer> buffers(static_cast<size_t>(buffer_count_), fb::Buffer(0, 0));
    auto nodes_offset = builder.CreateVectorOfStructs(nodes);
    auto buffers_offset = builder.CreateVectorOfStructs(buffers);
    // Every view column's values over 12 bytes are gathered into one data buffer.
    flatbuffers::Offset<flatbuffers::Vector<int64_t>> variadic_offset;
    if (view_count_ > 0) {
      variadic_offset = builder.CreateVector(std::vector<int64_t>(view_count_, 1));
    }
    flatbuffers::Offset<fb::BodyCompression> compression;
    if (codec_ != CompressionCodec::kNone) {
      compression =
          fb::CreateBodyCompression(builder, ArrowCodec(codec_), fb::BodyCompressionMethod::BUFFER);
    }
    fb::RecordBatchBuilder batch(builder);
    batch.add_length(0);
    batch.add_nodes(nodes_offset);
    batch.add_buffers(buffers_offset);
    if (codec_ != CompressionCodec::kNone) batch.add_compression(compression);
    if (view_count_ > 0) batch.add_variadic_buffer_counts(variadic_offset);
    auto batch_offset = batch.Finish();
    auto message = fb::CreateMessage(builder, fb::MetadataVersion::V5,
                                     fb::MessageHeader::RecordBatch, batch_offset.Union(), 0);
    builder.Finish(message);
    template_.Clear();
    ipc::AppendFramedMessage(builder.GetBufferPointer(), builder.GetSize(), &template_);

    const uint8_t* base = template_.data();
    const fb::Message* parsed = fb::GetMessage(base + ipc::kMessagePrefixSize);
    const fb::RecordBatch* parsed_batch = parsed->header_as_RecordBatch();
    body_length_position_ = ScalarFieldAddress(parsed, fb::Message::VT_BODY_LENGTH) - base;
    length_position_ = ScalarFieldAddress(parsed_batch, fb::RecordBatch::VT_LENGTH) - base;
    nodes_position_ = reinterpret_cast<const uint8_t*>(parsed_batch->nodes()->Data()) - base;
    buffers_position_ = reinterpret_cast<const uint8_t*>(parsed_batch->buffers()->Data()) - base;
  }

  // Patches the block's length, body length and field nodes into its copy of the template.
  void PatchHeader(uint8_t* message, int64_t length, int64_t body_length,
                   const ipc::BlockPlan& plan) {
    bits::StoreUnaligned<int64_t>(message + length_position_, length);
    bits::StoreUnaligned<int64_t>(message + body_length_position_, body_length);
    uint8_t* node = message + nodes_position_;
    for (const PlannedNode& planned : plan.nodes) {
      bits::StoreUnaligned<int64_t>(node, planned.length);
      bits::StoreUnaligned<int64_t>(node + 8, planned.null_count);
      node += sizeof(fb::FieldNode);
    }
  }

  // PatchHeader, and the buffer entries from buffer_offsets_ and buffer_lengths_.
  void PatchMetadata(uint8_t* message, int64_t length, int64_t body_length,
                     const ipc::BlockPlan& plan) {
    PatchHeader(message, length, body_length, plan);
    uint8_t* buffer = message + buffers_position_;
    for (size_t i = 0; i < plan.buffers.size(); ++i) {
      bits::StoreUnaligned<int64_t>(buffer, buffer_offsets_[i]);
      bits::StoreUnaligned<int64_t>(buffer + 8, buffer_lengths_[i]);
      buffer += sizeof(fb::Buffer);
    }
  }

  template <typename Selection>
  void WriteColumns(const Selection& selection, ipc::BlockPlan* plan) {
    size_t buffer_index = 0;
    for (auto& column : columns_) column->Write(selection, plan, &buffer_index);
  }

  // Appends every buffer, compressed or raw when compression does not shrink it, each with
  // Arrow's 8-byte uncompressed-length prefix. Returns the body length.
  Result<int64_t> CompressBody(const ipc::BlockPlan& plan, AlignedBuffer* out) {
    buffer_offsets_.resize(plan.buffers.size());
    buffer_lengths_.resize(plan.buffers.size());
    const int64_t body_start = out->size();
    for (size_t i = 0; i < plan.buffers.size(); ++i) {
      const PlannedBuffer& buffer = plan.buffers[i];
      buffer_offsets_[i] = out->size() - body_start;
      if (buffer.size == 0 && !buffer.variadic) {
        // Arrow writes empty buffers without a prefix.
        buffer_lengths_[i] = 0;
        continue;
      }
      const uint8_t* source = buffer.direct != nullptr ? buffer.direct : buffer.destination;
      const bool try_codec = buffer.size > 0 && buffer.size >= min_compress_bytes_;
      const int64_t capacity = try_codec ? compressor_->MaxCompressedSize(buffer.size) : 0;
      const int64_t start = out->size();
      out->Reserve(start + ipc::kCompressedLengthPrefixSize + std::max(capacity, buffer.size) +
                   kBufferAlignment);
      uint8_t* prefix = out->data() + start;
      uint8_t* payload = prefix + ipc::kCompressedLengthPrefixSize;
      int64_t compressed = buffer.size;
      if (try_codec) {
        SLUICE_ASSIGN_OR_RAISE(compressed,
                               compressor_->Compress(source, buffer.size, payload, capacity));
      }
      int64_t stored = compressed;
      if (compressed >= buffer.size) {
        // Compression does not pay: store the bytes as they are (Arrow's -1 length).
        bits::StoreUnaligned<int64_t>(prefix, ipc::kUncompressedBufferMarker);
        if (buffer.size > 0) std::memcpy(payload, source, static_cast<size_t>(buffer.size));
        stored = buffer.size;
      } else {
        bits::StoreUnaligned<int64_t>(prefix, buffer.size);
      }
      out->Resize(start + ipc::kCompressedLengthPrefixSize + stored);
      buffer_lengths_[i] = ipc::kCompressedLengthPrefixSize + stored;
      out->PadTo(kBufferAlignment);
    }
    return out->size() - body_start;
  }

  CompressionCodec codec_ = CompressionCodec::kNone;
  int64_t min_compress_bytes_ = 0;
  std::unique_ptr<Compressor> compressor_;
  std::vector<std::unique_ptr<ipc::ColumnGather>> columns_;
  // The dictionary-encoded columns, in the order of their ids.
  std::vector<ipc::DictionaryColumn*> dictionaries_;
  ipc::BlockPlan dictionary_plan_;
  AlignedBuffer dictionary_scratch_;
  AlignedBuffer dictionary_body_;
  flatbuffers::FlatBufferBuilder dictionary_builder_{512};
  std::vector<fb::FieldNode> dictionary_nodes_;
  std::vector<fb::Buffer> dictionary_buffers_;
  std::vector<int64_t> dictionary_variadic_counts_;
  int node_count_ = 0;
  size_t view_count_ = 0;  // binary_view and utf8_view fields, nested ones included
  int buffer_count_ = 0;

  AlignedBuffer schema_message_;
  AlignedBuffer template_;
  int64_t length_position_ = 0;
  int64_t body_length_position_ = 0;
  int64_t nodes_position_ = 0;
  int64_t buffers_position_ = 0;

  std::vector<std::vector<const ArrayData*>> column_sources_;
  std::vector<ipc::SourceStretch> stretches_;  // of the block being gathered

  // Per-block state, reused: the block's plan; with a codec, the gathered bytes it compresses
  // and where each compressed buffer went (an uncompressed Append writes its buffer entries
  // straight into the message).
  ipc::BlockPlan plan_;
  AlignedBuffer scratch_;
  std::vector<int64_t> buffer_offsets_;
  std::vector<int64_t> buffer_lengths_;
};

SegmentEncoder::SegmentEncoder(SchemaPtr schema, const SegmentEncoderOptions& options)
    : schema_(std::move(schema)), options_(options) {}

SegmentEncoder::~SegmentEncoder() = default;

Result<std::unique_ptr<SegmentEncoder>> SegmentEncoder::Make(const SchemaPtr& schema,
                                                             const SegmentEncoderOptions& options) {
  if (schema == nullptr) return Status::Invalid("SegmentEncoder needs a schema");
  std::unique_ptr<SegmentEncoder> encoder(new SegmentEncoder(schema, options));
  encoder->impl_ = std::make_unique<Impl>(*schema, options);
  SLUICE_RETURN_NOT_OK(encoder->impl_->Init(*schema, options));
  return encoder;
}

std::span<const uint8_t> SegmentEncoder::schema_message() const {
  return impl_->schema_message();
}

void SegmentEncoder::BindBatches(std::span<const RecordBatch* const> batches) {
  impl_->Bind(batches);
}

Status SegmentEncoder::AppendRows(const uint32_t* sources, const uint32_t* rows, int64_t count,
                                  AlignedBuffer* out, int64_t readable_ahead) {
  Status status =
      impl_->Append(impl_->SelectRows(sources, rows, count, readable_ahead), out, &metrics_);
  if (status.ok() || !impl_->dictionary_overflow() || count < 2) return status;
  // Rows of batches whose dictionaries together hold more values than a dictionary column's
  // index type numbers: two blocks, each with a dictionary of its own (nothing was appended).
  const int64_t half = count / 2;
  SLUICE_RETURN_NOT_OK(AppendRows(sources, rows, half, out, count - half + readable_ahead));
  return AppendRows(sources + half, rows + half, count - half, out, readable_ahead);
}

Status SegmentEncoder::AppendRecordBatch(const RecordBatch& batch, AlignedBuffer* out) {
  if (batch.num_columns() != schema_->num_fields()) {
    return Status::Invalid("batch has ", batch.num_columns(), " columns, the segment schema has ",
                           schema_->num_fields());
  }
  const RecordBatch* source = &batch;
  impl_->Bind(std::span<const RecordBatch* const>(&source, 1));
  const ipc::Run whole{0, 0, batch.num_rows()};
  const ipc::RunSelection selection{&whole, batch.num_rows() > 0 ? 1u : 0u, batch.num_rows()};
  return impl_->Append(selection, out, &metrics_);
}

Status SegmentEncoder::AppendSegment(std::span<const RecordBatch> batches, AlignedBuffer* out) {
  const auto schema = schema_message();
  out->Append(schema.data(), static_cast<int64_t>(schema.size()));
  for (const RecordBatch& batch : batches) SLUICE_RETURN_NOT_OK(AppendRecordBatch(batch, out));
  out->Append(ipc::kEndOfStream.data(), static_cast<int64_t>(ipc::kEndOfStream.size()));
  return Status::OK();
}

}  // namespace sluice
