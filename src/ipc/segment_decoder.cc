#include "sluice/ipc/segment_decoder.h"

#include <array>
#include <chrono>
#include <cstring>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "arrow_message_generated.h"
#include "block_buffers_internal.h"
#include "column_assembler_internal.h"
#include "decode_plan_internal.h"
#include "dictionary_memo_internal.h"
#include "known_schemas_internal.h"
#include "message_metadata_internal.h"
#include "schema_message_internal.h"
#include "segment_message_internal.h"
#include "sluice/base/aligned_buffer.h"
#include "sluice/base/failure_guard.h"
#include "sluice/base/saturating_arithmetic.h"
#include "sluice/codec/compression.h"
#include "sluice/ipc/compact_segment.h"
#include "sluice/ipc/ipc_format.h"
#include "sluice/ipc/message_reader.h"
#include "verified_layout_internal.h"

namespace sluice {

namespace {

using ipc::DecodePlan;
using ipc::SegmentMessage;

// Returns true when the structs of a flatbuffer vector (or a missing vector) sit at their
// alignment.
template <typename Struct>
bool StructsAligned(const flatbuffers::Vector<const Struct*>* vector) {
  return vector == nullptr || vector->size() == 0 ||
         reinterpret_cast<uintptr_t>(vector->Data()) % alignof(Struct) == 0;
}

}  // namespace

// The walk over a segment's messages (framing, the Schema message, dictionaries, the
// end-of-stream marker) and the decoding of each RecordBatch; its pieces live apart: the plans
// of the schemas met (KnownSchemas), the resolution of a block's buffers (BlockBuffers) and the
// assembly of its columns (ColumnAssembler).
class SegmentDecoder::Impl {
 public:
  explicit Impl(const SegmentDecoderOptions& options) : options_(options) {}

  Status Begin(const uint8_t* data, int64_t size, MemoryOwner owner, std::string source,
               int64_t base_offset) {
    data_ = data;
    size_ = size;
    owner_ = std::move(owner);
    source_ = std::move(source);
    base_offset_ = base_offset;
    position_ = 0;
    file_format_ = false;
    finished_ = false;
    schema_ = nullptr;
    current_ = nullptr;
    memo_.reset();
    compact_extent_ = -1;
    if (size < 0 || (size > 0 && data == nullptr)) {
      return Status::Invalid(source_, ": bad segment span of ", size, " bytes");
    }
    if (IsCompactSegment(data, size)) {
      metrics_.segments += 1;
      return BeginCompact();
    }
    if (ipc::StartsWithFileMagic(data, size)) {
      file_format_ = true;
      position_ = ipc::kFileMagicPaddedSize;
    }
    metrics_.segments += 1;
    return Status::OK();
  }

  // A compact segment (sluice/ipc/compact_segment.h): its frame is decompressed whole into an
  // arena from the pool, which the stream inside is then decoded from, in place.
  Status BeginCompact() {
    Result<CompactSegmentExtent> extent = MeasureCompactSegment(data_, size_);
    if (!extent.ok()) {
      return Status::Corrupt(source_, ": byte ", base_offset_,
                             ": compact segment: ", extent.status().message());
    }
    const CompressedFrame& frame = extent->frame;
    if (frame.content_size < 0) {
      return CorruptAt(0, "the frame of a compact segment must declare its content size");
    }
    if (frame.content_size > options_.max_block_bytes) {
      return CorruptAt(0, "a compact segment of ", frame.content_size,
                       " bytes is larger than the limit of ", options_.max_block_bytes, " bytes");
    }
    if (!options_.allow_trailing_bytes && extent->size != size_) {
      return CorruptAt(extent->size, size_ - extent->size,
                       " bytes follow the compact segment; the segment bounds are wrong");
    }
    Decompressor* decompressor = nullptr;
    if (extent->dictionary.has_value()) {
      SLUICE_ASSIGN_OR_RAISE(decompressor, DecompressorFor(frame.codec, *extent->dictionary));
    } else {
      SLUICE_ASSIGN_OR_RAISE(decompressor, buffers_.DecompressorFor(frame.codec));
    }
    std::shared_ptr<AlignedBuffer> stream = buffers_.AcquireBuffer(frame.content_size);
    const auto start = std::chrono::steady_clock::now();
    Status status = decompressor->Decompress(data_ + extent->frame_offset, frame.compressed_size,
                                             stream->data(), frame.content_size);
    buffers_.AddDecompressNanos(start);
    if (!status.ok()) return CorruptAt(0, "compact segment: ", status.message());
    buffers_.counters().decompressed_bytes += frame.content_size;
    source_ +=
        " (the stream inside the compact segment at byte " + std::to_string(base_offset_) + ")";
    base_offset_ = 0;
    compact_extent_ = extent->size;
    data_ = stream->data();
    size_ = frame.content_size;
    owner_ = std::move(stream);
    return Status::OK();
  }

  Status Continue(const uint8_t* data, int64_t size, MemoryOwner owner, std::string source,
                  int64_t base_offset) {
    if (schema_ == nullptr || current_ == nullptr) {
      return Status::Invalid(source, ": a stream continues only after its Schema message");
    }
    if (size < 0 || (size > 0 && data == nullptr)) {
      return Status::Invalid(source, ": bad span of ", size, " bytes");
    }
    data_ = data;
    size_ = size;
    owner_ = std::move(owner);
    source_ = std::move(source);
    base_offset_ = base_offset;
    position_ = 0;
    compact_extent_ = -1;
    finished_ = false;
    return Status::OK();
  }

  const SchemaPtr& schema() const { return schema_; }
  int64_t position() const {
    if (compact_extent_ >= 0) return finished_ ? compact_extent_ : 0;
    return position_;
  }

  void RecycleStorage(RecordBatch::Storage&& storage) {
    if (storage.columns.capacity() > spare_.columns.capacity()) {
      spare_.columns = std::move(storage.columns);
    }
    if (storage.owners.capacity() > spare_.owners.capacity()) {
      spare_.owners = std::move(storage.owners);
    }
  }
  const SegmentDecoderMetrics& metrics() const {
    const ipc::BlockBuffers::Counters& counters = buffers_.counters();
    metrics_.decompressed_bytes = counters.decompressed_bytes;
    metrics_.decompress_nanos = counters.decompress_nanos;
    metrics_.arenas_made = counters.arenas_made;
    return metrics_;
  }
  int64_t pooled_arena_bytes() const { return buffers_.pooled_bytes(); }

  Status ReadSchema() {
    if (schema_ != nullptr) return Status::OK();
    SLUICE_ASSIGN_OR_RAISE(Message message, ReadMessage());
    if (message.end_of_stream) {
      return CorruptAt(message.start, "the stream ends before its Schema message");
    }
    return HandleSchema(message);
  }

  Status ReadDictionaryBatch() {
    if (!memo_.has_value()) {
      return Status::Invalid(source_, ": the stream's schema has no dictionary-encoded fields");
    }
    SLUICE_ASSIGN_OR_RAISE(Message message, ReadMessage());
    if (message.end_of_stream || message.flatbuffer == nullptr ||
        message.flatbuffer->header_type() != fb::MessageHeader::DictionaryBatch) {
      return CorruptAt(message.start, "expected a DictionaryBatch message");
    }
    return HandleDictionaryBatch(message);
  }

  Result<std::optional<RecordBatch>> Next() {
    SLUICE_RETURN_NOT_OK(ReadSchema());
    while (true) {
      if (finished_) return std::optional<RecordBatch>();
      SLUICE_ASSIGN_OR_RAISE(Message message, ReadMessage());
      if (message.end_of_stream) {
        finished_ = true;
        // The batches hold the input bytes they view; the decoder needs them no longer, so a
        // reader's buffer (or a host's block) goes back as soon as its last batch does (the
        // stream's dictionaries, which may view them too, included).
        owner_ = nullptr;
        memo_.reset();
        // A compact segment's stream ends where its frame's content does, trailing bytes
        // allowed or not (those after the frame were checked by BeginCompact).
        const bool exact = compact_extent_ >= 0 || !options_.allow_trailing_bytes;
        if (!file_format_ && exact && position_ != size_) {
          return CorruptAt(position_, size_ - position_,
                           " bytes follow the end-of-stream marker; the segment bounds are wrong");
        }
        return std::optional<RecordBatch>();
      }
      if (message.flatbuffer == nullptr) {
        return CorruptAt(message.start, "a second Schema message in one stream");
      }
      switch (message.flatbuffer->header_type()) {
        case fb::MessageHeader::RecordBatch: {
          if (!memo_.has_value()) {
            return DecodeRecordBatch(message, message.flatbuffer->header_as_RecordBatch());
          }
          SLUICE_ASSIGN_OR_RAISE(
              std::optional<RecordBatch> indices,
              DecodeRecordBatch(message, message.flatbuffer->header_as_RecordBatch()));
          SLUICE_ASSIGN_OR_RAISE(
              RecordBatch encoded,
              memo_->Attach(*indices,
                            source_ + ": byte " + std::to_string(base_offset_ + message.start)));
          return std::optional<RecordBatch>(std::move(encoded));
        }
        case fb::MessageHeader::Schema:
          return CorruptAt(message.start, "a second Schema message in one stream");
        case fb::MessageHeader::DictionaryBatch:
          if (!memo_.has_value()) {
            return CorruptAt(message.start,
                             "a DictionaryBatch message in a stream without dictionary-encoded "
                             "fields");
          }
          SLUICE_RETURN_NOT_OK(HandleDictionaryBatch(message));
          continue;
        default:
          return CorruptAt(message.start, "unexpected message type ",
                           static_cast<int>(message.flatbuffer->header_type()));
      }
    }
  }

 private:
  using Message = SegmentMessage;

  template <typename... Parts>
  Status CorruptAt(int64_t offset, Parts&&... parts) const {
    return Status::Corrupt(source_, ": byte ", base_offset_ + offset, ": ",
                           std::forward<Parts>(parts)...);
  }

  // Reads the message at position_ and advances past it (body included).
  Result<Message> ReadMessage() {
    Message message;
    message.start = position_;
    message.source = &source_;
    message.base_offset = base_offset_;
    SLUICE_ASSIGN_OR_RAISE(const ipc::MessagePrefix prefix,
                           ipc::ReadMessagePrefix(data_ + position_, size_ - position_, source_,
                                                  base_offset_ + position_));
    if (prefix.end_of_stream()) {
      message.end_of_stream = true;
      position_ += prefix.size;
      return message;
    }
    const int64_t metadata_size = prefix.metadata_size;
    message.metadata = data_ + position_ + prefix.size;
    message.metadata_size = metadata_size;
    const int64_t metadata_end = position_ + prefix.size + metadata_size;

    // A Schema message seen before skips verification: its bytes are the cache key.
    if (const DecodePlan* known = known_.FindPlan(message.metadata, metadata_size)) {
      pending_known_ = known;
      position_ = metadata_end;
      return message;
    }
    pending_known_ = nullptr;
    // Flatbuffers are read in place, which needs 8-byte aligned memory: the verifier checks
    // alignment only relative to the buffer's start. Bytes handed over at any address, a
    // pre-0.15 4-byte prefix or a metadata length off the 8-byte grid misalign it; such
    // metadata is read from an aligned copy (valid until the next message).
    const uint8_t* metadata = message.metadata;
    if (!ipc::IsBufferAligned(metadata)) {
      metadata_copy_.Resize(0);
      metadata_copy_.Append(metadata, metadata_size);
      metadata = metadata_copy_.data();
    }
    // A RecordBatch message laid out as the last one verified differs from it only in values
    // the verifier does not read (see VerifiedLayout).
    const auto metadata_bytes = static_cast<size_t>(metadata_size);
    if (!verified_layout_.Matches(metadata, metadata_bytes)) {
      if (!ipc::VerifyMessageMetadata(metadata, metadata_bytes)) {
        return CorruptAt(position_ + prefix.size, "message metadata (", metadata_size,
                         " bytes) is not a valid Arrow IPC Message flatbuffer");
      }
      metrics_.messages_verified += 1;
      verified_layout_.Learn(metadata, metadata_bytes, *fb::GetMessage(metadata));
    }
    message.flatbuffer = fb::GetMessage(metadata);
    SLUICE_RETURN_NOT_OK(ipc::CheckMetadataVersion(*message.flatbuffer, source_,
                                                   base_offset_ + position_ + prefix.size));
    const int64_t body_length = message.flatbuffer->body_length();
    if (body_length < 0 || body_length > size_ - metadata_end) {
      return CorruptAt(position_, "message body length ", body_length, " exceeds the ",
                       size_ - metadata_end, " bytes left");
    }
    message.body = data_ + metadata_end;
    message.body_offset = metadata_end;
    message.body_length = body_length;
    position_ = metadata_end + body_length;
    return message;
  }

  Status HandleSchema(const Message& message) {
    const DecodePlan* cached = pending_known_;
    if (cached != nullptr) {
      metrics_.schemas_cached += 1;
    } else {
      if (message.flatbuffer->header_type() != fb::MessageHeader::Schema) {
        return CorruptAt(message.start, "the stream starts with a ",
                         fb::EnumNameMessageHeader(message.flatbuffer->header_type()),
                         " message, expected Schema");
      }
      const fb::Schema* schema = message.flatbuffer->header_as_Schema();
      if (schema == nullptr) return CorruptAt(message.start, "Schema message without a schema");
      if (message.body_length != 0) {
        return CorruptAt(message.start, "Schema message with a body of ", message.body_length,
                         " bytes");
      }
      std::vector<ipc::DictionaryField> dictionary_fields;
      auto converted = ipc::SchemaFromFlatbuffer(
          *schema, source_ + ": byte " + std::to_string(base_offset_ + message.start),
          &dictionary_fields);
      if (!converted.ok()) return converted.status();
      metrics_.schemas_parsed += 1;
      known_.AddDictionary(std::span<const uint8_t>(
          data_ + message.start, static_cast<size_t>(message.body_offset - message.start)));
      SchemaPtr values_schema = std::move(converted).ValueUnsafe();
      const std::string bytes(reinterpret_cast<const char*>(message.metadata),
                              static_cast<size_t>(message.metadata_size));
      if (dictionary_fields.empty()) {
        cached = known_.AddPlan(bytes, std::move(values_schema));
      } else {
        cached = known_.AddDictionaryStreamPlan(bytes, values_schema, std::move(dictionary_fields));
      }
    }
    current_ = cached;
    if (cached->encoded_schema != nullptr) {
      schema_ = cached->encoded_schema;
      memo_.emplace(cached->dictionary_fields, cached->encoded_schema);
    } else {
      schema_ = cached->schema;
      memo_.reset();
    }
    return Status::OK();
  }

  // Decodes a DictionaryBatch message into the stream's dictionaries.
  Status HandleDictionaryBatch(const Message& message) {
    const fb::DictionaryBatch* dictionary = message.flatbuffer->header_as_DictionaryBatch();
    const std::string where = source_ + ": byte " + std::to_string(base_offset_ + message.start);
    if (dictionary == nullptr || dictionary->data() == nullptr) {
      return Status::Corrupt(where, ": DictionaryBatch message without its data");
    }
    const DecodePlan* stream = current_;
    const DecodePlan* plan = stream->DictionaryPlan(dictionary->id());
    if (plan == nullptr) {
      return Status::Corrupt(where, ": a DictionaryBatch of id ", dictionary->id(),
                             ", which no field of the schema uses");
    }
    current_ = plan;
    auto batch = DecodeRecordBatch(message, dictionary->data());
    current_ = stream;
    if (!batch.ok()) return batch.status();
    // Decoded as a block would be, counted apart.
    metrics_.blocks -= 1;
    metrics_.rows -= (*batch)->num_rows();
    metrics_.dictionary_batches += 1;
    return memo_->Add(dictionary->id(), **batch, dictionary->is_delta(), where);
  }

 public:
  Status AddSchema(SchemaPtr schema) {
    if (schema == nullptr) return Status::Invalid("SegmentDecoder::AddSchema: no schema");
    known_.AddGivenSchema(std::move(schema));
    return Status::OK();
  }

  bool KnowsDictionary(const CompactSegmentDictionary& id) {
    return known_.FindOrLearnDictionary(id) != nullptr;
  }

 private:
  Result<Decompressor*> DecompressorFor(CompressionCodec codec,
                                        const CompactSegmentDictionary& id) {
    ipc::KnownSchemas::CompressionDictionary* known = known_.FindOrLearnDictionary(id);
    if (known == nullptr) {
      return MissingDictionary(id, source_, base_offset_,
                               "which this reader has not read: read the map output's first "
                               "segment (byte 0 of its data file) first, or give the reader the "
                               "schema");
    }
    return known->DecompressorFor(codec);
  }

  // Built straight into the optional Next returns: every move of a batch costs its empty
  // vectors' destructors after it.
  Result<std::optional<RecordBatch>> DecodeRecordBatch(const Message& message,
                                                       const fb::RecordBatch* batch) {
    if (batch == nullptr) return CorruptAt(message.start, "RecordBatch message without a header");
    const int64_t length = batch->length();
    if (length < 0) return CorruptAt(message.start, "negative batch length ", length);
    const auto* nodes = batch->nodes();
    const auto* buffers = batch->buffers();
    // The verifier checks where a vector starts, not that its 8-byte structs are aligned; a
    // crafted message can place them at 4 mod 8, and reading them there is undefined.
    if (!StructsAligned(nodes) || !StructsAligned(buffers)) {
      return CorruptAt(message.start,
                       "the RecordBatch's field nodes or buffers are misaligned in its metadata");
    }
    const int64_t node_count = nodes != nullptr ? nodes->size() : 0;
    const int64_t buffer_count = buffers != nullptr ? buffers->size() : 0;
    // Each view field's variadic buffers come after its views, as many as the batch says.
    int64_t expected_buffers = current_->buffer_count;
    const flatbuffers::Vector<int64_t>* variadic_counts = batch->variadic_buffer_counts();
    const int64_t variadic_entries = variadic_counts != nullptr ? variadic_counts->size() : 0;
    if (variadic_entries != current_->view_count) {
      return CorruptAt(message.start, "the batch has ", variadic_entries,
                       " variadic buffer counts; its schema has ", current_->view_count,
                       " view fields");
    }
    for (int64_t v = 0; v < variadic_entries; ++v) {
      const int64_t count = variadic_counts->Get(static_cast<flatbuffers::uoffset_t>(v));
      if (count < 0 || count > buffer_count) {
        return CorruptAt(message.start, "view field ", v, " has ", count, " variadic buffers");
      }
      expected_buffers += count;
    }
    if (node_count != current_->node_count || buffer_count != expected_buffers) {
      return CorruptAt(message.start, "the batch has ", node_count, " field nodes and ",
                       buffer_count, " buffers; its schema needs ", current_->node_count, " and ",
                       expected_buffers);
    }

    CompressionCodec codec = CompressionCodec::kNone;
    if (const fb::BodyCompression* compression = batch->compression()) {
      if (compression->method() != fb::BodyCompressionMethod::BUFFER) {
        return CorruptAt(message.start, "unsupported body compression method ",
                         static_cast<int>(compression->method()));
      }
      switch (compression->codec()) {
        case fb::CompressionType::LZ4_FRAME:
          codec = CompressionCodec::kLz4Frame;
          break;
        case fb::CompressionType::ZSTD:
          codec = CompressionCodec::kZstd;
          break;
        default:
          return CorruptAt(message.start, "unknown body compression codec ",
                           static_cast<int>(compression->codec()));
      }
    }
    // Built in the recycled vectors (see RecycleStorage), or in new ones; the batch takes them.
    std::vector<ArrayData>& columns = spare_.columns;
    std::vector<MemoryOwner>& owners = spare_.owners;
    bool resolved = false;
    bool assembled = false;
    if (current_->all_flat) {
      // A recycled vector of this schema's batch keeps its elements, to be overwritten.
      // (Checked first: resize is a call even when the size is right.)
      if (columns.size() != current_->columns.size()) columns.resize(current_->columns.size());
      SLUICE_RETURN_NOT_OK(buffers_.Resolve(message, buffers, codec, current_->reads));
      resolved = true;
      assembled = assembler_.AssembleFlatBlock(*current_, buffers_.views(),
                                               ipc::ColumnAssembler::FieldNodes(nodes), length,
                                               columns.data());
    }
    if (!assembled) {
      // Nested columns, misaligned buffers, or a check that failed: the general path, which
      // copies what must be copied and names what is wrong.
      if (!resolved)
        SLUICE_RETURN_NOT_OK(buffers_.Resolve(message, buffers, codec, current_->reads));
      // Each column starts empty with its type (built whole, which costs less than
      // value-initialising it: a `rep stos` per column).
      columns.clear();
      for (const ipc::ColumnPlan& plan : current_->columns) {
        columns.emplace_back(plan.type, 0, 0, std::array<BufferView, 3>{});
      }
      SLUICE_RETURN_NOT_OK(assembler_.AssembleColumns(*current_, message, buffers_.views(), nodes,
                                                      variadic_counts, length, &columns));
    }
    if (std::shared_ptr<AlignedBuffer> arena = buffers_.TakeArena())
      owners.push_back(std::move(arena));
    if (buffers_.uses_input_bytes() && owner_ != nullptr) owners.push_back(owner_);
    metrics_.blocks += 1;
    metrics_.rows = SaturatingAdd(metrics_.rows, length);
    return Result<std::optional<RecordBatch>>(std::in_place, std::in_place, current_->schema,
                                              length, std::move(spare_));
  }

  SegmentDecoderOptions options_;
  // (Its decompression figures are the buffers' counters, copied in when asked for.)
  mutable SegmentDecoderMetrics metrics_;

  // The segment being decoded.
  const uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  MemoryOwner owner_;
  std::string source_;
  int64_t base_offset_ = 0;
  int64_t position_ = 0;
  // The bytes a compact segment spans in the input, or -1 for an IPC stream.
  int64_t compact_extent_ = -1;
  bool file_format_ = false;
  bool finished_ = false;
  SchemaPtr schema_;
  // The dictionaries of a stream with dictionary-encoded fields; empty otherwise.
  std::optional<ipc::DictionaryMemo> memo_;
  const DecodePlan* current_ = nullptr;
  const DecodePlan* pending_known_ = nullptr;  // the plan of the Schema message just read

  ipc::KnownSchemas known_;
  ipc::VerifiedLayout verified_layout_;
  ipc::BlockBuffers buffers_{options_.max_block_bytes};
  ipc::ColumnAssembler assembler_;
  RecordBatch::Storage spare_;   // from RecycleStorage, for the next block
  AlignedBuffer metadata_copy_;  // metadata that arrived misaligned
};

SegmentDecoder::SegmentDecoder(const SegmentDecoderOptions& options)
    : impl_(std::make_unique<Impl>(options)) {}

SegmentDecoder::~SegmentDecoder() = default;

Status SegmentDecoder::Begin(const uint8_t* data, int64_t size, MemoryOwner owner,
                             std::string source, int64_t base_offset) {
  return impl_->Begin(data, size, std::move(owner), std::move(source), base_offset);
}

Status SegmentDecoder::Continue(const uint8_t* data, int64_t size, MemoryOwner owner,
                                std::string source, int64_t base_offset) {
  return impl_->Continue(data, size, std::move(owner), std::move(source), base_offset);
}

const SchemaPtr& SegmentDecoder::schema() const {
  return impl_->schema();
}
Status SegmentDecoder::ReadSchema() {
  return GuardFailures("decoding a schema", [&] { return impl_->ReadSchema(); });
}
Status SegmentDecoder::ReadDictionaryBatch() {
  return GuardFailures("SegmentDecoder::ReadDictionaryBatch",
                       [&] { return impl_->ReadDictionaryBatch(); });
}

Result<std::optional<RecordBatch>> SegmentDecoder::Next() {
  return GuardFailures("decoding a block", [&] { return impl_->Next(); });
}
Status SegmentDecoder::AddSchema(SchemaPtr schema) {
  return impl_->AddSchema(std::move(schema));
}
bool SegmentDecoder::KnowsDictionary(const CompactSegmentDictionary& dictionary) {
  return impl_->KnowsDictionary(dictionary);
}
void SegmentDecoder::RecycleStorage(RecordBatch::Storage&& storage) {
  impl_->RecycleStorage(std::move(storage));
}

int64_t SegmentDecoder::position() const {
  return impl_->position();
}
const SegmentDecoderMetrics& SegmentDecoder::metrics() const {
  return impl_->metrics();
}

int64_t SegmentDecoder::pooled_arena_bytes() const {
  return impl_->pooled_arena_bytes();
}

}  // namespace sluice
