#include "sluice/ipc/segment_decoder.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "arrow_message_generated.h"
#include "base/aligned_buffer_pool_internal.h"
#include "body_views_internal.h"
#include "dictionary_memo_internal.h"
#include "offsets_order_internal.h"
#include "schema_message_internal.h"
#include "sluice/base/aligned_buffer.h"
#include "sluice/base/bit_ops.h"
#include "sluice/base/failure_guard.h"
#include "sluice/base/saturating_arithmetic.h"
#include "sluice/codec/compression.h"
#include "sluice/format/array_validate.h"
#include "sluice/format/dictionary_values.h"
#include "sluice/ipc/compact_segment.h"
#include "sluice/ipc/ipc_format.h"
#include "sluice/ipc/message_reader.h"
#include "verified_layout_internal.h"

namespace sluice {

namespace {

// Flatbuffer verification limits: real metadata is far below both; they bound the work a
// corrupt message can cause.
constexpr flatbuffers::uoffset_t kMaxFlatbufferDepth = 128;
constexpr flatbuffers::uoffset_t kMaxFlatbufferTables = 1u << 20;

constexpr std::array<uint8_t, 6> kFileMagic = {'A', 'R', 'R', 'O', 'W', '1'};
// The file format's leading magic is padded to 8 bytes.
constexpr int64_t kFileMagicPaddedSize = 8;

// How a top-level column is assembled and checked. Flat columns (every layout without
// children) take a short path, planned once per schema, that checks what ValidateArray would
// given what the decoder already guarantees (views inside the body, 8-byte aligned, offset 0,
// lengths and null counts in range); nested columns go through Assemble and ValidateArray.
enum class ColumnKind : uint8_t { kNull, kFixedWidth, kBinary, kLargeBinary, kNested };

struct ColumnPlan {
  const DataType* type = nullptr;  // owned by the cached schema
  ColumnKind kind = ColumnKind::kNested;
  int64_t bit_width = 0;  // kFixedWidth
  int buffer_count = 0;   // buffers the column takes from the message
};

ColumnPlan PlanColumn(const DataType& type) {
  ColumnPlan plan;
  plan.type = &type;
  const TypeId id = type.id();
  plan.buffer_count = BufferCount(id);
  if (!type.children().empty() || IsBinaryView(id)) {
    // (A view column's buffer count varies by block: its variadic buffers.)
    plan.kind = ColumnKind::kNested;
  } else if (id == TypeId::kNull) {
    plan.kind = ColumnKind::kNull;
  } else if (IsFixedWidth(id)) {
    plan.kind = ColumnKind::kFixedWidth;
    plan.bit_width = BitWidth(type);  // 64-bit: a fixed-size binary may be of any width
  } else if (IsBinaryLike(id)) {
    plan.kind = HasLargeOffsets(id) ? ColumnKind::kLargeBinary : ColumnKind::kBinary;
  }
  return plan;
}

// What the decoder reads of a buffer of an uncompressed block while it assembles and checks the
// columns: nothing (fixed-width values and string bytes are only bounds-checked), the whole
// buffer (validity bitmaps are counted, offsets checked), or its head and tail (nested columns,
// which ValidateArray walks in ways not planned here).
enum class BufferReads : uint8_t { kNothing, kWhole, kHeadAndTail };

// A buffer, by its index in the message, that assembling and checking a block reads.
struct PlannedRead {
  uint32_t buffer = 0;
  BufferReads reads = BufferReads::kNothing;
};

// Appends kHeadAndTail for every buffer of a column of `type`, children included; `next` is the
// index of the column's first buffer and is advanced past its last.
void AppendHeadAndTailReads(const DataType& type, uint32_t* next, std::vector<PlannedRead>* out) {
  for (int b = 0; b < BufferCount(type.id()); ++b) {
    out->push_back(PlannedRead{(*next)++, BufferReads::kHeadAndTail});
  }
  for (const Field& child : type.children()) AppendHeadAndTailReads(*child.type, next, out);
}

// Appends the buffers of a top-level column of `type` (children included, pre-order) that
// assembling and checking it reads; `next` as above.
void AppendBufferReads(const DataType& type, uint32_t* next, std::vector<PlannedRead>* out) {
  if (!type.children().empty()) return AppendHeadAndTailReads(type, next, out);
  for (int b = 0; b < BufferCount(type.id()); ++b) {
    const uint32_t buffer = (*next)++;
    const bool read = b == 0 || (b == 1 && IsBinaryLike(type.id()));  // validity, offsets
    if (read) out->push_back(PlannedRead{buffer, BufferReads::kWhole});
  }
}

// A flat column of a schema as AssembleFlatBlock assembles it: its place among the columns,
// the index of its first buffer in a block's message, and (fixed-width) its bit width.
struct FlatColumn {
  const DataType* type = nullptr;  // owned by the cached schema
  uint32_t column = 0;
  uint32_t first_buffer = 0;
  int64_t bit_width = 0;
};

// The flat columns of a schema grouped by kind, so that AssembleFlatBlock runs one loop per
// kind with no dispatch per column (filled only when every column is flat).
struct FlatColumns {
  std::vector<FlatColumn> nulls;
  std::vector<FlatColumn> fixed_width;
  std::vector<FlatColumn> binary;        // 32-bit offsets
  std::vector<FlatColumn> large_binary;  // 64-bit offsets

  void Add(const ColumnPlan& plan, uint32_t column, uint32_t first_buffer) {
    const FlatColumn flat{plan.type, column, first_buffer, plan.bit_width};
    switch (plan.kind) {
      case ColumnKind::kNull:
        nulls.push_back(flat);
        break;
      case ColumnKind::kFixedWidth:
        fixed_width.push_back(flat);
        break;
      case ColumnKind::kBinary:
        binary.push_back(flat);
        break;
      case ColumnKind::kLargeBinary:
        large_binary.push_back(flat);
        break;
      case ColumnKind::kNested:
        break;
    }
  }
};

struct CachedSchema {
  std::string bytes;  // the Schema flatbuffer, which is the cache key
  SchemaPtr schema;   // the layout of its RecordBatch messages (dictionary indices as such)
  // A stream with dictionary-encoded fields: the fields, and the schema its batches are
  // returned in (the fields' dictionary types). Empty and null otherwise.
  std::vector<ipc::DictionaryField> dictionary_fields;
  SchemaPtr encoded_schema;
  // How the DictionaryBatch messages of each dictionary id are assembled.
  std::vector<std::pair<int64_t, std::unique_ptr<CachedSchema>>> dictionary_plans;
  int node_count = 0;
  int buffer_count = 0;  // without the variadic buffers of view fields
  int view_count = 0;    // binary_view and utf8_view fields, nested ones included
  std::vector<ColumnPlan> columns;
  bool all_flat = true;  // no nested column: blocks take the short path (AssembleFlatBlock)
  FlatColumns flat;
  // The buffers assembling and checking a block reads, in message order, so that resolving an
  // uncompressed block starts exactly those loads.
  std::vector<PlannedRead> reads;
};

using ipc::OffsetsIncrease;
using ipc::PendingOffsets;

// Returns true when the structs of a flatbuffer vector (or a missing vector) sit at their
// alignment.
template <typename Struct>
bool StructsAligned(const flatbuffers::Vector<const Struct*>* vector) {
  return vector == nullptr || vector->size() == 0 ||
         reinterpret_cast<uintptr_t>(vector->Data()) % alignof(Struct) == 0;
}

int CountNodes(const DataType& type) {
  int count = 1;
  for (const Field& child : type.children()) count += CountNodes(*child.type);
  return count;
}

int CountBuffers(const DataType& type) {
  int count = BufferCount(type.id());
  for (const Field& child : type.children()) count += CountBuffers(*child.type);
  return count;
}

// Prefetches what assembling a block reads of an uncompressed buffer of `length` > 0 bytes.
inline void PrefetchForAssembly(const uint8_t* bytes, int64_t length, BufferReads reads) {
  // A long buffer is read sequentially, which the hardware prefetcher follows once started.
  constexpr int64_t kMaxWholeBytes = 1024;
  switch (reads) {
    case BufferReads::kNothing:
      return;
    case BufferReads::kWhole:
      for (int64_t at = 0; at < std::min(length, kMaxWholeBytes); at += 64) {
        __builtin_prefetch(bytes + at);
      }
      __builtin_prefetch(bytes + length - 1);
      return;
    case BufferReads::kHeadAndTail:
      __builtin_prefetch(bytes);
      __builtin_prefetch(bytes + length - 1);
      return;
  }
}

bool IsAligned(const uint8_t* pointer) {
  return (reinterpret_cast<uintptr_t>(pointer) & (ipc::kBufferAlignment - 1)) == 0;
}

// The bytes a validity bitmap of `length` >= 0 bits needs.
int64_t BitmapBytes(int64_t length) {
  return static_cast<int64_t>((static_cast<uint64_t>(length) + 7) >> 3);
}

// True when `values_size` bytes hold `length` >= 0 values of `bit_width` bits. Compared in
// bits, so the check divides nothing (GCC emitted an idiv for `/ 8` here).
bool FixedWidthValuesFit(int64_t values_size, int64_t length, int64_t bit_width) {
  int64_t needed_bits = 0;
  return !__builtin_mul_overflow(length, bit_width, &needed_bits) &&
         static_cast<uint64_t>(values_size) >= (static_cast<uint64_t>(needed_bits) + 7) >> 3;
}

}  // namespace

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
    if (size >= kFileMagicPaddedSize &&
        std::memcmp(data, kFileMagic.data(), kFileMagic.size()) == 0) {
      file_format_ = true;
      position_ = kFileMagicPaddedSize;
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
      SLUICE_ASSIGN_OR_RAISE(decompressor, DecompressorFor(frame.codec));
    }
    std::shared_ptr<AlignedBuffer> stream = arena_pool_->Acquire(frame.content_size);
    const auto start = std::chrono::steady_clock::now();
    Status status = decompressor->Decompress(data_ + extent->frame_offset, frame.compressed_size,
                                             stream->data(), frame.content_size);
    AddDecompressNanos(start);
    if (!status.ok()) return CorruptAt(0, "compact segment: ", status.message());
    metrics_.decompressed_bytes += frame.content_size;
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
  const SegmentDecoderMetrics& metrics() const { return metrics_; }
  int64_t pooled_arena_bytes() const { return arena_pool_->pooled_bytes(); }

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
  struct Message {
    int64_t start = 0;  // offset of the message prefix
    bool end_of_stream = false;
    const uint8_t* metadata = nullptr;
    int64_t metadata_size = 0;
    const fb::Message* flatbuffer = nullptr;  // null for a cached Schema message
    const uint8_t* body = nullptr;
    int64_t body_offset = 0;
    int64_t body_length = 0;
  };

  template <typename... Parts>
  Status CorruptAt(int64_t offset, Parts&&... parts) const {
    return Status::Corrupt(source_, ": byte ", base_offset_ + offset, ": ",
                           std::forward<Parts>(parts)...);
  }

  // Reads the message at position_ and advances past it (body included).
  Result<Message> ReadMessage() {
    Message message;
    message.start = position_;
    if (size_ - position_ < 4) {
      if (position_ == size_) {
        return CorruptAt(position_, "the stream ends without an end-of-stream marker");
      }
      return CorruptAt(position_, "truncated message prefix: ", size_ - position_,
                       " bytes left, expected at least 4");
    }
    const uint32_t marker = bits::LoadUnaligned<uint32_t>(data_ + position_);
    int64_t prefix = 4;
    int32_t metadata_size = static_cast<int32_t>(marker);  // the pre-0.15 framing
    if (marker == ipc::kContinuationMarker) {
      if (size_ - position_ < 8) {
        return CorruptAt(position_, "truncated message prefix: ", size_ - position_,
                         " bytes left, expected 8");
      }
      metadata_size = bits::LoadUnaligned<int32_t>(data_ + position_ + 4);
      prefix = 8;
    }
    if (metadata_size == 0) {
      message.end_of_stream = true;
      position_ += prefix;
      return message;
    }
    if (metadata_size < 0 || metadata_size > size_ - position_ - prefix) {
      return CorruptAt(position_, "message metadata length ", metadata_size, " exceeds the ",
                       size_ - position_ - prefix, " bytes left");
    }
    message.metadata = data_ + position_ + prefix;
    message.metadata_size = metadata_size;
    const int64_t metadata_end = position_ + prefix + metadata_size;

    // A Schema message seen before skips verification: its bytes are the cache key.
    if (const CachedSchema* cached = FindCachedSchema(message.metadata, metadata_size)) {
      pending_cached_ = cached;
      position_ = metadata_end;
      return message;
    }
    pending_cached_ = nullptr;
    // Flatbuffers are read in place, which needs 8-byte aligned memory: the verifier checks
    // alignment only relative to the buffer's start. Bytes handed over at any address, a
    // pre-0.15 4-byte prefix or a metadata length off the 8-byte grid misalign it; such
    // metadata is read from an aligned copy (valid until the next message).
    const uint8_t* metadata = message.metadata;
    if (!IsAligned(metadata)) {
      metadata_copy_.Resize(0);
      metadata_copy_.Append(metadata, metadata_size);
      metadata = metadata_copy_.data();
    }
    // A RecordBatch message laid out as the last one verified differs from it only in values
    // the verifier does not read (see VerifiedLayout).
    const auto metadata_bytes = static_cast<size_t>(metadata_size);
    if (!verified_layout_.Matches(metadata, metadata_bytes)) {
      flatbuffers::Verifier verifier(metadata, metadata_bytes, kMaxFlatbufferDepth,
                                     kMaxFlatbufferTables);
      if (!fb::VerifyMessageBuffer(verifier)) {
        return CorruptAt(position_ + prefix, "message metadata (", metadata_size,
                         " bytes) is not a valid Arrow IPC Message flatbuffer");
      }
      metrics_.messages_verified += 1;
      verified_layout_.Learn(metadata, metadata_bytes, *fb::GetMessage(metadata));
    }
    message.flatbuffer = fb::GetMessage(metadata);
    const auto version = message.flatbuffer->version();
    if (version < fb::MetadataVersion::V4 || version > fb::MetadataVersion::V5) {
      return CorruptAt(position_ + prefix, "unsupported metadata version ",
                       static_cast<int>(version) + 1, " (expected V4 or V5)");
    }
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

  const CachedSchema* FindCachedSchema(const uint8_t* bytes, int64_t size) const {
    for (const auto& entry : schema_cache_) {
      if (static_cast<int64_t>(entry->bytes.size()) == size &&
          std::memcmp(entry->bytes.data(), bytes, static_cast<size_t>(size)) == 0) {
        return entry.get();
      }
    }
    return nullptr;
  }

  // Plans how blocks of `schema` (whose Schema flatbuffer is `bytes`) are assembled and keeps
  // the plan for the next messages with the same bytes.
  CachedSchema* CacheSchema(std::string bytes, SchemaPtr schema) {
    std::unique_ptr<CachedSchema> entry = PlanSchema(std::move(bytes), std::move(schema));
    // A handful of distinct schemas per reader is the norm; keep the cache bounded anyway.
    if (schema_cache_.size() >= kMaxCachedSchemas) schema_cache_.erase(schema_cache_.begin());
    schema_cache_.push_back(std::move(entry));
    return schema_cache_.back().get();
  }

  // Plans how blocks of `schema` are assembled.
  static std::unique_ptr<CachedSchema> PlanSchema(std::string bytes, SchemaPtr schema) {
    auto entry = std::make_unique<CachedSchema>();
    entry->bytes = std::move(bytes);
    entry->schema = std::move(schema);
    uint32_t next_buffer = 0;
    for (const Field& field : entry->schema->fields()) {
      entry->node_count += CountNodes(*field.type);
      entry->buffer_count += CountBuffers(*field.type);
      entry->view_count += CountBinaryViews(*field.type);
      entry->columns.push_back(PlanColumn(*field.type));
      entry->all_flat &= entry->columns.back().kind != ColumnKind::kNested;
      entry->flat.Add(entry->columns.back(), static_cast<uint32_t>(entry->columns.size() - 1),
                      next_buffer);
      AppendBufferReads(*field.type, &next_buffer, &entry->reads);
    }
    if (!entry->all_flat) entry->flat = FlatColumns{};
    // Buffer indices after a view field depend on each block's variadic buffers.
    if (entry->view_count > 0) entry->reads.clear();
    return entry;
  }

  Status HandleSchema(const Message& message) {
    const CachedSchema* cached = pending_cached_;
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
      AddSchemaMessage(std::span<const uint8_t>(
          data_ + message.start, static_cast<size_t>(message.body_offset - message.start)));
      SchemaPtr values_schema = std::move(converted).ValueUnsafe();
      const std::string bytes(reinterpret_cast<const char*>(message.metadata),
                              static_cast<size_t>(message.metadata_size));
      if (dictionary_fields.empty()) {
        cached = CacheSchema(bytes, std::move(values_schema));
      } else {
        cached = CacheDictionarySchema(bytes, values_schema, std::move(dictionary_fields));
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

  // Plans a stream with dictionary-encoded fields: its batches are laid out with index types,
  // and each dictionary's batches with its values' type.
  // `encoded_schema`, when given, is the schema batches are returned in (else built).
  const CachedSchema* CacheDictionarySchema(const std::string& bytes,
                                            const SchemaPtr& values_schema,
                                            std::vector<ipc::DictionaryField> fields,
                                            SchemaPtr encoded_schema = nullptr) {
    CachedSchema* plan = CacheSchema(bytes, ipc::IndexSchema(*values_schema, fields));
    if (encoded_schema == nullptr) encoded_schema = ipc::EncodedSchema(*values_schema, fields);
    const ipc::DictionaryMemo memo(fields, encoded_schema);
    for (const ipc::DictionaryField& field : fields) {
      const bool planned = std::any_of(plan->dictionary_plans.begin(), plan->dictionary_plans.end(),
                                       [&](const auto& entry) { return entry.first == field.id; });
      if (!planned) {
        plan->dictionary_plans.emplace_back(
            field.id, PlanSchema(std::string(), memo.DictionarySchema(field.id)));
      }
    }
    plan->dictionary_fields = std::move(fields);
    plan->encoded_schema = std::move(encoded_schema);
    return plan;
  }

  // Decodes a DictionaryBatch message into the stream's dictionaries.
  Status HandleDictionaryBatch(const Message& message) {
    const fb::DictionaryBatch* dictionary = message.flatbuffer->header_as_DictionaryBatch();
    const std::string where = source_ + ": byte " + std::to_string(base_offset_ + message.start);
    if (dictionary == nullptr || dictionary->data() == nullptr) {
      return Status::Corrupt(where, ": DictionaryBatch message without its data");
    }
    const CachedSchema* stream = current_;
    const CachedSchema* plan = nullptr;
    for (const auto& [id, dictionary_plan] : stream->dictionary_plans) {
      if (id == dictionary->id()) plan = dictionary_plan.get();
    }
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
  // Makes `message` (a framed Schema message) known as the dictionary of compact segments.
  void AddSchemaMessage(std::span<const uint8_t> message) {
    const CompactSegmentDictionary id = CompactSegmentDictionary::Of(message);
    if (FindDictionary(id) != nullptr) return;
    if (dictionaries_.size() >= kMaxCachedSchemas) dictionaries_.erase(dictionaries_.begin());
    auto entry = std::make_unique<KnownDictionary>();
    entry->id = id;
    entry->bytes.assign(message.begin(), message.end());
    dictionaries_.push_back(std::move(entry));
  }

  Status AddSchema(SchemaPtr schema) {
    if (schema == nullptr) return Status::Invalid("SegmentDecoder::AddSchema: no schema");
    given_schemas_.push_back(std::move(schema));
    return Status::OK();
  }

  bool KnowsDictionary(const CompactSegmentDictionary& id) { return FindOrLearn(id) != nullptr; }

 private:
 private:
  Result<Decompressor*> DecompressorFor(CompressionCodec codec,
                                        const CompactSegmentDictionary& id) {
    KnownDictionary* known = FindOrLearn(id);
    if (known == nullptr) {
      return MissingDictionary(id, source_, base_offset_,
                               "which this reader has not read: read the map output's first "
                               "segment (byte 0 of its data file) first, or give the reader the "
                               "schema");
    }
    auto& slot = known->decompressors[static_cast<size_t>(codec)];
    if (slot == nullptr) {
      SLUICE_ASSIGN_OR_RAISE(slot, Decompressor::Make(codec, known->bytes));
    }
    return slot.get();
  }

  Result<Decompressor*> DecompressorFor(CompressionCodec codec) {
    auto& slot = decompressors_[static_cast<size_t>(codec)];
    if (slot == nullptr) {
      SLUICE_ASSIGN_OR_RAISE(slot, Decompressor::Make(codec));
    }
    return slot.get();
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
    variadic_counts_ = batch->variadic_buffer_counts();
    const int64_t variadic_entries = variadic_counts_ != nullptr ? variadic_counts_->size() : 0;
    if (variadic_entries != current_->view_count) {
      return CorruptAt(message.start, "the batch has ", variadic_entries,
                       " variadic buffer counts; its schema has ", current_->view_count,
                       " view fields");
    }
    for (int64_t v = 0; v < variadic_entries; ++v) {
      const int64_t count = variadic_counts_->Get(static_cast<flatbuffers::uoffset_t>(v));
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
      SLUICE_RETURN_NOT_OK(ResolveBuffers(message, buffers, codec));
      resolved = true;
      assembled = AssembleFlatBlock(views_.data(), FieldNodes(nodes), length, columns.data());
    }
    if (!assembled) {
      // Nested columns, misaligned buffers, or a check that failed: the general path, which
      // copies what must be copied and names what is wrong.
      if (!resolved) SLUICE_RETURN_NOT_OK(ResolveBuffers(message, buffers, codec));
      // Each column starts empty with its type (built whole, which costs less than
      // value-initialising it: a `rep stos` per column).
      columns.clear();
      for (const ColumnPlan& plan : current_->columns) {
        columns.emplace_back(plan.type, 0, 0, std::array<BufferView, 3>{});
      }
      SLUICE_RETURN_NOT_OK(AssembleColumns(message, nodes, length, &columns));
    }
    if (arena_ != nullptr) owners.push_back(std::move(arena_));
    if (uses_input_bytes_ && owner_ != nullptr) owners.push_back(owner_);
    metrics_.blocks += 1;
    metrics_.rows = SaturatingAdd(metrics_.rows, length);
    return Result<std::optional<RecordBatch>>(std::in_place, std::in_place, current_->schema,
                                              length, std::move(spare_));
  }

  // Assembles and checks every column of a block whose buffers are resolved (views_), column
  // by column, pre-order, as the nodes and buffers list them; each error names what is wrong.
  Status AssembleColumns(const Message& message,
                         const flatbuffers::Vector<const fb::FieldNode*>* nodes, int64_t length,
                         std::vector<ArrayData>* columns) {
    node_index_ = 0;
    buffer_index_ = 0;
    view_index_ = 0;
    nodes_ = nodes;
    offsets32_.clear();
    offsets64_.clear();
    for (size_t c = 0; c < columns->size(); ++c) {
      const Field& field = current_->schema->field(c);
      const ColumnPlan& plan = current_->columns[c];
      ArrayData& column = (*columns)[c];
      if (plan.kind != ColumnKind::kNested) {
        SLUICE_RETURN_NOT_OK(AssembleFlat(plan, c, message, &column));
      } else {
        path_.assign(field.name);
        SLUICE_RETURN_NOT_OK(Assemble(*field.type, message, &column));
        Status valid = ValidateArray(column, field.name);
        if (!valid.ok()) {
          return Status::Corrupt(source_, ": byte ", base_offset_ + message.start,
                                 ": invalid record batch: ", valid.message());
        }
      }
      if (column.length != length) {
        return CorruptAt(message.start, "column '", field.name, "' has ", column.length,
                         " rows, the batch ", length);
      }
    }
    SLUICE_RETURN_NOT_OK(CheckOffsetsIncrease(offsets32_, message));
    return CheckOffsetsIncrease(offsets64_, message);
  }

  // Turns the Buffer entries into views: in place when uncompressed and aligned, otherwise
  // decompressed (or copied) once into the block's arena.
  Status ResolveBuffers(const Message& message,
                        const flatbuffers::Vector<const fb::Buffer*>* buffers,
                        CompressionCodec codec) {
    if (codec == CompressionCodec::kNone && ResolveInPlace(message, buffers)) return Status::OK();
    const int64_t count = buffers != nullptr ? buffers->size() : 0;
    views_.resize(static_cast<size_t>(count));
    arena_ = nullptr;
    uses_input_bytes_ = false;
    Decompressor* decompressor = nullptr;
    if (codec != CompressionCodec::kNone) {
      SLUICE_ASSIGN_OR_RAISE(decompressor, DecompressorFor(codec));
      const auto* entries =
          reinterpret_cast<const fb::Buffer*>(count > 0 ? buffers->Data() : nullptr);
      // The first block (no size to start from) takes the general pass, which sizes the arena.
      if (arena_hint_ > 0 && DecompressInOnePass(message, entries, count, decompressor)) {
        return Status::OK();
      }
      uses_input_bytes_ = false;  // the general pass below starts over
    }
    arena_sizes_.resize(static_cast<size_t>(count));

    // First pass: bounds, and how much arena each buffer needs.
    int64_t arena_size = 0;
    for (int64_t i = 0; i < count; ++i) {
      const fb::Buffer* buffer = buffers->Get(static_cast<flatbuffers::uoffset_t>(i));
      const int64_t offset = buffer->offset();
      const int64_t length = buffer->length();
      if (offset < 0 || length < 0 || offset > message.body_length ||
          length > message.body_length - offset) {
        return CorruptAt(message.body_offset, "buffer ", i, " at offset ", offset, " with length ",
                         length, " lies outside the body of ", message.body_length, " bytes");
      }
      const uint8_t* bytes = message.body + offset;
      int64_t needed = 0;
      if (codec == CompressionCodec::kNone || length == 0) {
        views_[i] = BufferView{length == 0 ? nullptr : bytes, length};
        if (length > 0 && !IsAligned(bytes)) needed = length;
      } else {
        if (length < ipc::kCompressedLengthPrefixSize) {
          return CorruptAt(message.body_offset + offset, "compressed buffer ", i, " has ", length,
                           " bytes, less than its 8-byte length prefix");
        }
        const int64_t declared = bits::LoadUnaligned<int64_t>(bytes);
        const int64_t payload = length - ipc::kCompressedLengthPrefixSize;
        if (declared == ipc::kUncompressedBufferMarker) {
          views_[i] = BufferView{bytes + ipc::kCompressedLengthPrefixSize, payload};
          if (payload > 0 && !IsAligned(views_[i].data)) needed = payload;
        } else if (declared < 0 || declared > options_.max_block_bytes) {
          return CorruptAt(message.body_offset + offset, "compressed buffer ", i,
                           " declares an uncompressed length of ", declared);
        } else {
          views_[i] = BufferView{nullptr, declared};
          needed = declared;
        }
      }
      arena_sizes_[i] = needed;
      // A buffer viewed in place keeps the input alive (the second pass only fills the others).
      uses_input_bytes_ |= needed == 0 && views_[i].data != nullptr;
      arena_size += bits::RoundUp(needed, ipc::kBufferAlignment);
      if (arena_size > options_.max_block_bytes) {
        return CorruptAt(message.body_offset + offset, "the block decodes to more than ",
                         options_.max_block_bytes, " bytes");
      }
    }

    // Second pass: decompress or copy into the arena.
    arena_hint_ = NextArenaHint(arena_size);
    if (arena_size > 0) {
      std::shared_ptr<AlignedBuffer> arena = AcquireArena(arena_size);
      int64_t position = 0;
      const auto start = std::chrono::steady_clock::now();
      for (int64_t i = 0; i < count; ++i) {
        const int64_t needed = arena_sizes_[i];
        if (needed == 0) continue;
        uint8_t* dest = arena->data() + position;
        const fb::Buffer* buffer = buffers->Get(static_cast<flatbuffers::uoffset_t>(i));
        if (views_[i].data != nullptr) {
          std::memcpy(dest, views_[i].data, static_cast<size_t>(needed));  // misaligned input
        } else {
          SLUICE_RETURN_NOT_OK(DecompressBuffer(decompressor, message, i, *buffer, dest, needed,
                                                arena_size + kArenaRoom - position));
        }
        views_[i] = BufferView{dest, needed};
        position += bits::RoundUp(needed, ipc::kBufferAlignment);
      }
      AddDecompressNanos(start);
      arena_ = std::move(arena);
    }
    return Status::OK();
  }

  // The common case of a compressed body, in one pass over the buffer entries: every buffer
  // inside the body, each one empty, stored raw at an aligned address, or compressed to a size
  // within the limits and decompressing without error. Each compressed buffer is decompressed
  // into the block's arena, which starts at the size recent blocks needed and grows (moving
  // what it holds) when this one needs more. Returns false, with nothing the caller may use,
  // for any other body: ResolveBuffers' general pass then copies what is misaligned or names
  // what is wrong, in its own order.
  bool DecompressInOnePass(const Message& message, const fb::Buffer* entries, int64_t count,
                           Decompressor* decompressor) {
    // Locals rather than members in the loop: the codec call would make the compiler reload
    // (or spill) each member it touched.
    const uint8_t* body = message.body;
    const uint64_t body_length = static_cast<uint64_t>(message.body_length);
    const int64_t max_block_bytes = options_.max_block_bytes;
    BufferView* views = views_.data();
    int64_t capacity = arena_hint_;
    std::shared_ptr<AlignedBuffer> arena = capacity > 0 ? AcquireArena(capacity) : nullptr;
    uint8_t* arena_data = arena != nullptr ? arena->data() : nullptr;
    int64_t position = 0;
    int64_t stored_raw_bytes = 0;  // nonzero once a view points into the input
    int64_t decompressed_bytes = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < count; ++i) {
      // Unsigned, so a negative offset or length is out of bounds too.
      const uint64_t offset = static_cast<uint64_t>(entries[i].offset());
      const uint64_t length = static_cast<uint64_t>(entries[i].length());
      if (offset > body_length || length > body_length - offset) return false;
      if (length == 0) {
        views[i] = BufferView{};
        continue;
      }
      if (length < static_cast<uint64_t>(ipc::kCompressedLengthPrefixSize)) return false;
      const uint8_t* bytes = body + offset;
      const int64_t declared = bits::LoadUnaligned<int64_t>(bytes);
      const uint8_t* payload = bytes + ipc::kCompressedLengthPrefixSize;
      const auto payload_size = static_cast<int64_t>(length) - ipc::kCompressedLengthPrefixSize;
      if (declared == ipc::kUncompressedBufferMarker) {
        if (!IsAligned(payload)) return false;
        views[i] = BufferView{payload, payload_size};
        stored_raw_bytes |= payload_size;
        continue;
      }
      if (declared < 0 || declared > max_block_bytes) return false;
      if (declared == 0) {
        views[i] = BufferView{};
        continue;
      }
      const int64_t end = position + bits::RoundUp(declared, ipc::kBufferAlignment);
      if (end > capacity) {
        if (end > max_block_bytes) return false;
        capacity = std::min(std::max(end, 2 * capacity), max_block_bytes);
        GrowArena(&arena, position, capacity, i);
        arena_data = arena->data();
      }
      uint8_t* dest = arena_data + position;
      if (!decompressor
               ->DecompressWithRoom(payload, payload_size, dest, declared,
                                    capacity + kArenaRoom - position)
               .ok()) {
        return false;
      }
      views[i] = BufferView{dest, declared};
      decompressed_bytes += declared;
      position = end;
    }
    AddDecompressNanos(start);
    metrics_.decompressed_bytes += decompressed_bytes;
    uses_input_bytes_ = stored_raw_bytes != 0;
    arena_hint_ = NextArenaHint(position);
    arena_ = position > 0 ? std::move(arena) : nullptr;
    return true;
  }

  // The arena size the next block starts with, after one that needed `needed` bytes: the most
  // a recent block needed. A larger block grows it once; after one outsized block, the size
  // comes back down by a sixteenth a block.
  int64_t NextArenaHint(int64_t needed) const {
    return std::max(needed, arena_hint_ - arena_hint_ / 16);
  }

  // Moves the `used` bytes of `*arena` (null when there is none yet) into a new arena of
  // `capacity` bytes, and points the views of buffers [0, viewed) that were in it there.
  void GrowArena(std::shared_ptr<AlignedBuffer>* arena, int64_t used, int64_t capacity,
                 int64_t viewed) {
    std::shared_ptr<AlignedBuffer> grown = AcquireArena(capacity);
    if (*arena != nullptr && used > 0) {
      const uint8_t* old_start = (*arena)->data();
      std::memcpy(grown->data(), old_start, static_cast<size_t>(used));
      // As addresses: the views of buffers stored raw point into the input instead.
      const auto old_address = reinterpret_cast<uintptr_t>(old_start);
      for (int64_t j = 0; j < viewed; ++j) {
        BufferView& view = views_[j];
        const uintptr_t moved = reinterpret_cast<uintptr_t>(view.data) - old_address;
        if (moved < static_cast<uintptr_t>(used)) view.data = grown->data() + moved;
      }
    }
    *arena = std::move(grown);
  }

  // An arena for a block's `arena_size` bytes of buffers, with the room past them a codec may use.
  std::shared_ptr<AlignedBuffer> AcquireArena(int64_t arena_size) {
    bool made = false;
    std::shared_ptr<AlignedBuffer> arena = arena_pool_->Acquire(arena_size + kArenaRoom, &made);
    metrics_.arenas_made += made ? 1 : 0;
    return arena;
  }

  // Decompresses buffer `index` (its `entry`, holding the length prefix and the compressed
  // bytes) into the `declared` bytes at `dest`, with `room` bytes there the codec may write.
  Status DecompressBuffer(Decompressor* decompressor, const Message& message, int64_t index,
                          const fb::Buffer& entry, uint8_t* dest, int64_t declared, int64_t room) {
    Status status = decompressor->DecompressWithRoom(
        message.body + entry.offset() + ipc::kCompressedLengthPrefixSize,
        entry.length() - ipc::kCompressedLengthPrefixSize, dest, declared, room);
    if (!status.ok()) {
      return CorruptAt(message.body_offset + entry.offset(), "buffer ", index, ": ",
                       status.message());
    }
    metrics_.decompressed_bytes += declared;
    return Status::OK();
  }

  void AddDecompressNanos(std::chrono::steady_clock::time_point start) {
    metrics_.decompress_nanos += std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now() - start)
                                     .count();
  }

  // The common case of ResolveBuffers, kept to a few instructions per buffer: an uncompressed
  // body whose buffers all lie inside it at aligned addresses becomes views of the input, and
  // the loads assembly will make start now, so that the misses of many columns overlap
  // (ViewBuffersInBody makes no check per buffer: what is out of bounds or misaligned is
  // OR-ed up and checked once). Returns false, having kept nothing, for any other body;
  // ResolveBuffers then copies the misaligned buffers or reports the one out of bounds.
  bool ResolveInPlace(const Message& message,
                      const flatbuffers::Vector<const fb::Buffer*>* buffers) {
    const uint32_t count = buffers != nullptr ? buffers->size() : 0;
    if (views_.size() != count) views_.resize(count);
    const auto* entries =
        reinterpret_cast<const fb::Buffer*>(count > 0 ? buffers->Data() : nullptr);
    BufferView* views = views_.data();
    const ipc::BodyViewsSummary summary =
        ipc::ViewBuffersInBody(entries, count, message.body, message.body_length, views);
    // (An offsets buffer is also checked for alignment before its first typed load, in
    // OffsetsInRange.)
    if (!summary.inside || (summary.any_address & (ipc::kBufferAlignment - 1)) != 0) {
      return false;
    }
    for (const PlannedRead& read : current_->reads) {
      const BufferView& view = views[read.buffer];
      if (view.size != 0) PrefetchForAssembly(view.data, view.size, read.reads);
    }
    arena_ = nullptr;
    uses_input_bytes_ = summary.any_bytes;
    return true;
  }

  static const fb::FieldNode* FieldNodes(const flatbuffers::Vector<const fb::FieldNode*>* nodes) {
    return nodes != nullptr ? reinterpret_cast<const fb::FieldNode*>(nodes->Data()) : nullptr;
  }

  // Assembles every column of a block of flat columns, into `columns` (one element per column,
  // overwritten whatever it held), and checks what AssembleFlat and CheckOffsetsIncrease check,
  // with no call or dispatch per column: one loop per kind of column (FlatColumns), then one
  // order check of every column's offsets. Returns false at the first failed check; the general
  // path then names it. `views` holds the block's resolved buffers (ResolveBuffers).
  bool AssembleFlatBlock(const BufferView* views, const fb::FieldNode* nodes, int64_t length,
                         ArrayData* columns) {
    const FlatColumns& flat = current_->flat;
    for (const FlatColumn& column : flat.nulls) {
      if (!NodeFits(nodes[column.column], length)) return false;
      // A null array is all nulls, whatever its node says, and has no buffers.
      columns[column.column].AssignChildless(column.type, length, length, {});
    }
    for (const FlatColumn& column : flat.fixed_width) {
      const fb::FieldNode& node = nodes[column.column];
      // Through a pointer: indexing views with first_buffer + 1 makes a 32-bit sum per buffer.
      const BufferView* column_views = views + column.first_buffer;
      std::array<BufferView, 3> buffers{column_views[0], column_views[1], BufferView{}};
      if (!NodeFits(node, length) || !ValidityFits(&buffers[0], length, node.null_count()) ||
          !FixedWidthValuesFit(buffers[1].size, length, column.bit_width)) {
        return false;
      }
      columns[column.column].AssignChildless(column.type, length, node.null_count(), buffers);
    }
    if (!AssembleBinaryColumns<int32_t>(views, flat.binary, nodes, length, columns, &offsets32_) ||
        !AssembleBinaryColumns<int64_t>(views, flat.large_binary, nodes, length, columns,
                                        &offsets64_)) {
      return false;
    }
    if (length == 0) return true;
    return (flat.binary.empty() ||
            OffsetsIncrease(offsets32_.data(), flat.binary.size(), length)) &&
           (flat.large_binary.empty() ||
            OffsetsIncrease(offsets64_.data(), flat.large_binary.size(), length));
  }

  // The binary-like columns with `Offset` offsets of AssembleFlatBlock; notes each column's
  // offsets in `*pending` (by index: no push_back per column) for the block's order check.
  template <typename Offset>
  [[gnu::always_inline]] static bool AssembleBinaryColumns(
      const BufferView* views, const std::vector<FlatColumn>& binary, const fb::FieldNode* nodes,
      int64_t length, ArrayData* columns, std::vector<PendingOffsets<Offset>>* pending) {
    if (pending->size() != binary.size()) pending->resize(binary.size());
    PendingOffsets<Offset>* next = pending->data();
    for (const FlatColumn& column : binary) {
      const fb::FieldNode& node = nodes[column.column];
      const BufferView* column_views = views + column.first_buffer;
      std::array<BufferView, 3> buffers{column_views[0], column_views[1], column_views[2]};
      if (!NodeFits(node, length) || !ValidityFits(&buffers[0], length, node.null_count())) {
        return false;
      }
      columns[column.column].AssignChildless(column.type, length, node.null_count(), buffers);
      if (length == 0) continue;  // no offsets to check; an empty buffer may stand for them
      if (!OffsetsInRange<Offset>(buffers[1], length, buffers[2].size)) return false;
      *next++ = {reinterpret_cast<const Offset*>(buffers[1].data), length, column.column};
    }
    return true;
  }

  // True when a flat column's node has the block's `length` >= 0 and a null count in
  // [0, length].
  [[gnu::always_inline]] static bool NodeFits(const fb::FieldNode& node, int64_t length) {
    return node.length() == length &&
           static_cast<uint64_t>(node.null_count()) <= static_cast<uint64_t>(length);
  }

  // True when `*validity` fits a column of `length` values and `null_count` nulls: no bitmap
  // and no nulls (the view is then made null), or a bitmap that long with that many zeros.
  [[gnu::always_inline]] static bool ValidityFits(BufferView* validity, int64_t length,
                                                  int64_t null_count) {
    if (validity->size == 0) {
      validity->data = nullptr;
      return null_count == 0;
    }
    return validity->size >= BitmapBytes(length) &&
           length - bits::CountSetBits(validity->data, 0, length) == null_count;
  }

  // True when `offsets_buffer` holds length + 1 offsets, the first >= 0 and the last within
  // `data_size`.
  template <typename Offset>
  [[gnu::always_inline]] static bool OffsetsInRange(const BufferView& offsets_buffer,
                                                    int64_t length, int64_t data_size) {
    if (static_cast<uint64_t>(offsets_buffer.size) / sizeof(Offset) <=
        static_cast<uint64_t>(length)) {
      return false;
    }
    if (!IsAligned(offsets_buffer.data)) return false;  // before any typed load
    const Offset* offsets = reinterpret_cast<const Offset*>(offsets_buffer.data);
    return offsets[0] >= 0 && offsets[length] <= data_size;
  }

  // Fills a flat column (`column` holds its type, everything else empty) and checks it: the
  // part of ValidateArray's rules the decoder does not already guarantee by construction.
  Status AssembleFlat(const ColumnPlan& plan, size_t index, const Message& message,
                      ArrayData* column) {
    const std::string& name = current_->schema->field(index).name;
    const fb::FieldNode* node = nodes_->Get(static_cast<flatbuffers::uoffset_t>(node_index_++));
    const int64_t length = node->length();
    const int64_t null_count = node->null_count();
    if (length < 0 || null_count < 0 || null_count > length) {
      return CorruptAt(message.start, "field '", name, "': node length ", length,
                       " and null count ", null_count, " are inconsistent");
    }
    column->length = length;
    for (int b = 0; b < plan.buffer_count; ++b) column->buffers[b] = views_[buffer_index_++];
    if (plan.kind == ColumnKind::kNull) {
      column->null_count = length;  // some writers say 0; a null array is all nulls
      return Status::OK();
    }
    column->null_count = null_count;
    auto invalid = [&](auto&&... parts) { return InvalidColumn(message, index, parts...); };
    BufferView& validity = column->buffers[0];
    if (validity.size == 0) {
      if (null_count != 0) {
        return CorruptAt(message.start, "field '", name, "' has ", null_count,
                         " nulls but no validity bitmap");
      }
      validity.data = nullptr;
    } else {
      const int64_t bitmap_bytes = BitmapBytes(length);
      if (validity.size < bitmap_bytes) {
        return invalid("the validity bitmap has ", validity.size, " bytes, expected at least ",
                       bitmap_bytes, " for length ", length);
      }
      const int64_t nulls = length - bits::CountSetBits(validity.data, 0, length);
      if (nulls != null_count) {
        return invalid("null_count is ", null_count, " but the validity bitmap has ", nulls,
                       " nulls");
      }
    }
    if (length == 0) return Status::OK();
    const BufferView& values = column->buffers[1];
    if (plan.kind == ColumnKind::kFixedWidth) {
      if (!FixedWidthValuesFit(values.size, length, plan.bit_width)) {
        return invalid("the values buffer has ", values.size, " bytes, too few for ", length,
                       " values of ", plan.bit_width, " bits");
      }
      return Status::OK();
    }
    return plan.kind == ColumnKind::kBinary
               ? CheckOffsets(values, length, column->buffers[2].size, index, invalid, &offsets32_)
               : CheckOffsets(values, length, column->buffers[2].size, index, invalid, &offsets64_);
  }

  // Checks the offsets of flat binary-like column `index` of `length` > 0 values: length + 1
  // entries (aligned: the decoder's views are), the first >= 0, the last within the data; and
  // queues them for CheckOffsetsIncrease, which checks that they never decrease.
  template <typename Offset, typename Invalid>
  static Status CheckOffsets(const BufferView& offsets_buffer, int64_t length, int64_t data_size,
                             size_t index, const Invalid& invalid,
                             std::vector<PendingOffsets<Offset>>* pending) {
    if (static_cast<uint64_t>(offsets_buffer.size) / sizeof(Offset) <=
        static_cast<uint64_t>(length)) {
      return invalid("the offsets buffer has ", offsets_buffer.size, " bytes, too few for ",
                     length + 1, " offsets");
    }
    const Offset* offsets = reinterpret_cast<const Offset*>(offsets_buffer.data);
    if (offsets[0] < 0) return invalid("offset of row 0 is negative (", offsets[0], ")");
    if (offsets[length] > data_size) {
      return invalid("last offset ", offsets[length], " is past the end of the data buffer (",
                     data_size, ")");
    }
    pending->push_back(PendingOffsets<Offset>{offsets, length, index});
    return Status::OK();
  }

  // The error for flat column `index` of the block in `message` that breaks a rule of
  // ValidateArray's.
  template <typename... Parts>
  Status InvalidColumn(const Message& message, size_t index, Parts&&... parts) const {
    return Status::Corrupt(source_, ": byte ", base_offset_ + message.start,
                           ": invalid record batch: column '", current_->schema->field(index).name,
                           "': ", std::forward<Parts>(parts)...);
  }

  // Checks that the queued offsets of no binary-like column decrease; the error names the first
  // column and row where they do.
  template <typename Offset>
  Status CheckOffsetsIncrease(const std::vector<PendingOffsets<Offset>>& pending,
                              const Message& message) const {
    if (pending.empty() || OffsetsIncrease(pending.data(), pending.size())) return Status::OK();
    for (const PendingOffsets<Offset>& column : pending) {
      for (int64_t i = 0; i < column.count; ++i) {
        if (column.offsets[i + 1] < column.offsets[i]) {
          return InvalidColumn(message, column.column, "offsets decrease at row ", i, ": ",
                               column.offsets[i], " then ", column.offsets[i + 1]);
        }
      }
    }
    return Status::OK();
  }

  // Assembles a nested column. `path_` holds the field's path, for errors: it is extended and
  // cut back per child, so a warm decoder builds no strings per block.
  Status Assemble(const DataType& type, const Message& message, ArrayData* out) {
    const std::string& path = path_;
    const fb::FieldNode* node = nodes_->Get(static_cast<flatbuffers::uoffset_t>(node_index_++));
    const int64_t length = node->length();
    const int64_t null_count = node->null_count();
    if (length < 0 || null_count < 0 || null_count > length) {
      return CorruptAt(message.start, "field '", path, "': node length ", length,
                       " and null count ", null_count, " are inconsistent");
    }
    out->type = &type;
    out->length = length;
    out->offset = 0;
    out->null_count = null_count;
    const int buffer_count = BufferCount(type.id());
    for (int b = 0; b < buffer_count; ++b) out->buffers[b] = views_[buffer_index_++];
    out->variadic_buffers.clear();
    if (IsBinaryView(type.id())) {
      const int64_t variadic =
          variadic_counts_->Get(static_cast<flatbuffers::uoffset_t>(view_index_++));
      for (int64_t v = 0; v < variadic; ++v) {
        out->variadic_buffers.push_back(views_[buffer_index_++]);
      }
    }
    if (type.id() == TypeId::kNull) {
      out->null_count = length;  // some writers say 0; a null array is all nulls
    } else if (IsUnion(type.id())) {
      // buffers[0] holds the type ids; a union has no nulls of its own (ValidateArray checks).
      if (out->buffers[0].size == 0) out->buffers[0].data = nullptr;
    } else if (out->buffers[0].size == 0) {
      out->buffers[0].data = nullptr;
      if (null_count != 0) {
        return CorruptAt(message.start, "field '", path, "' has ", null_count,
                         " nulls but no validity bitmap");
      }
    }
    const auto& children = type.children();
    out->children.resize(children.size());
    const size_t path_length = path_.size();
    for (size_t c = 0; c < children.size(); ++c) {
      path_.append(".").append(children[c].name);
      Status assembled = Assemble(*children[c].type, message, &out->children[c]);
      path_.resize(path_length);
      SLUICE_RETURN_NOT_OK(assembled);
    }
    if (type.id() == TypeId::kStruct || type.id() == TypeId::kSparseUnion) {
      // Struct (and sparse union) children must cover it; keep them aligned with it.
      for (size_t c = 0; c < children.size(); ++c) {
        ArrayData& child = out->children[c];
        if (child.length < length) {
          return CorruptAt(message.start, "field '", path, ".", children[c].name, "' has ",
                           child.length, " rows, fewer than its struct's ", length);
        }
        if (child.length > length) {
          Status valid = ValidateArray(child, path + "." + children[c].name);
          if (!valid.ok()) return CorruptAt(message.start, valid.message());
          child = child.Slice(0, length);
        }
      }
    }
    return Status::OK();
  }

  static constexpr size_t kMaxCachedSchemas = 64;
  // Bytes past a block's buffers in its arena, which a codec may clobber while decoding the last
  // one (Decompressor::DecompressWithRoom): what LZ4's fast path needs.
  static constexpr int64_t kArenaRoom = 64;
  // The arena size a compressed block starts with (see DecompressInOnePass).
  int64_t arena_hint_ = 0;
  // Arenas kept for reuse, lent or free, in bytes: a few blocks' worth at the default block size.
  static constexpr int64_t kPooledArenaBytes = int64_t{8} << 20;

  SegmentDecoderOptions options_;
  SegmentDecoderMetrics metrics_;

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
  const CachedSchema* current_ = nullptr;
  const CachedSchema* pending_cached_ = nullptr;

  std::vector<std::unique_ptr<CachedSchema>> schema_cache_;
  ipc::VerifiedLayout verified_layout_;
  std::array<std::unique_ptr<Decompressor>, 4> decompressors_;
  // Schema messages read or given, which compact segments may be compressed against.
  struct KnownDictionary {
    CompactSegmentDictionary id;
    std::vector<uint8_t> bytes;
    std::array<std::unique_ptr<Decompressor>, 4> decompressors;
  };
  KnownDictionary* FindDictionary(const CompactSegmentDictionary& id) const {
    for (const auto& entry : dictionaries_) {
      if (entry->id == id) return entry.get();
    }
    return nullptr;
  }
  // The dictionary `id` names, among those read or, encoded now, the given schemas' (a given
  // schema costs nothing until a segment needs its Schema message).
  KnownDictionary* FindOrLearn(const CompactSegmentDictionary& id) {
    KnownDictionary* known = FindDictionary(id);
    if (known != nullptr || given_schemas_.empty()) return known;
    for (SchemaPtr& schema : given_schemas_) {
      AlignedBuffer message;
      if (!ipc::AppendSchemaMessage(*schema, &message).ok()) continue;  // cannot be the one
      AddSchemaMessage(
          std::span<const uint8_t>(message.data(), static_cast<size_t>(message.size())));
      // A segment whose Schema message is these bytes has this schema: it is not parsed again.
      const auto* metadata = message.data() + ipc::kMessagePrefixSize;
      const int64_t metadata_size = message.size() - ipc::kMessagePrefixSize;
      if (FindCachedSchema(metadata, metadata_size) == nullptr) {
        std::string bytes(reinterpret_cast<const char*>(metadata),
                          static_cast<size_t>(metadata_size));
        if (HasDictionary(*schema)) {
          CacheDictionarySchema(bytes, UnpackedSchema(schema), ipc::DictionaryFieldsOf(*schema),
                                schema);
        } else {
          CacheSchema(std::move(bytes), std::move(schema));
        }
      }
    }
    given_schemas_.clear();
    return FindDictionary(id);
  }
  std::vector<std::unique_ptr<KnownDictionary>> dictionaries_;
  std::vector<SchemaPtr> given_schemas_;  // AddSchema's, not yet encoded

  // Per-block state, reused.
  std::vector<BufferView> views_;
  std::vector<int64_t> arena_sizes_;
  // The offsets of the block's binary-like columns, checked once it is assembled (the general
  // path appends them; AssembleFlatBlock sizes them for the schema and fills them by index).
  std::vector<PendingOffsets<int32_t>> offsets32_;
  std::vector<PendingOffsets<int64_t>> offsets64_;
  RecordBatch::Storage spare_;  // from RecycleStorage, for the next block
  // The arena of the block being decoded: its decompressed buffers, which the block's batch
  // keeps alive. Arenas come from a pool and return to it when their batch is dropped, so a warm
  // decoder allocates no block memory.
  std::shared_ptr<AlignedBuffer> arena_;
  std::shared_ptr<internal::AlignedBufferPool> arena_pool_ =
      internal::AlignedBufferPool::Make(kPooledArenaBytes);
  bool uses_input_bytes_ = false;
  const flatbuffers::Vector<const fb::FieldNode*>* nodes_ = nullptr;
  std::string path_;             // the field Assemble is at, for errors
  AlignedBuffer metadata_copy_;  // metadata that arrived misaligned
  int64_t node_index_ = 0;
  int64_t buffer_index_ = 0;
  int64_t view_index_ = 0;  // the next view field's entry in variadic_counts_
  const flatbuffers::Vector<int64_t>* variadic_counts_ = nullptr;  // of the block being assembled
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
