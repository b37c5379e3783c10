#include <algorithm>
#include <initializer_list>

#include "arrow_message_generated.h"
#include "sluice/base/bit_ops.h"
#include "verified_layout_internal.h"

namespace sluice::ipc {

namespace {

using flatbuffers::voffset_t;

// The unit Matches compares in.
constexpr size_t kWord = sizeof(uint64_t);

// Generated tables derive from flatbuffers::Table privately; they are one in memory.
template <typename Generated>
const flatbuffers::Table& AsTable(const Generated& table) {
  return *reinterpret_cast<const flatbuffers::Table*>(&table);
}

// A table's field and the bytes its slot takes.
struct FieldSlot {
  voffset_t field = 0;
  size_t size = 0;
};

// Collects, for one verified message, the ranges the verifier reads (structural) and the
// ranges of the values that change from block to block (masked).
class LayoutRanges {
 public:
  explicit LayoutRanges(const uint8_t* base) : base_(base) {}

  // The table's offset to its vtable, its whole vtable, and the slots of the `fields` present.
  void AddTable(const flatbuffers::Table& table, std::initializer_list<FieldSlot> fields) {
    const size_t start = PositionOf(&table);
    structural.push_back({start, start + sizeof(flatbuffers::soffset_t)});
    const uint8_t* vtable = table.GetVTable();
    const size_t vtable_start = PositionOf(vtable);
    structural.push_back({vtable_start, vtable_start + flatbuffers::ReadScalar<voffset_t>(vtable)});
    for (const FieldSlot& slot : fields) {
      if (const voffset_t offset = table.GetOptionalFieldOffset(slot.field)) {
        structural.push_back({start + offset, start + offset + slot.size});
      }
    }
  }

  // The slot of a scalar field whose value changes from block to block, when present.
  void MaskField(const flatbuffers::Table& table, voffset_t field, size_t size) {
    if (const voffset_t offset = table.GetOptionalFieldOffset(field)) {
      const size_t start = PositionOf(&table) + offset;
      masked.push_back({start, start + size});
    }
  }

  // A vector of structs: its length is structural, its elements are values.
  template <typename Struct>
  void AddStructVector(const flatbuffers::Vector<const Struct*>* vector) {
    if (vector == nullptr) return;
    const size_t start = PositionOf(vector);
    structural.push_back({start, start + sizeof(flatbuffers::uoffset_t)});
    const size_t data = PositionOf(vector->Data());
    masked.push_back({data, data + vector->size() * sizeof(Struct)});
  }

  // A vector whose elements stay as they are: all of it is compared.
  template <typename T>
  void AddFixedVector(const flatbuffers::Vector<T>* vector) {
    if (vector == nullptr) return;
    const size_t start = PositionOf(vector);
    structural.push_back(
        {start, start + sizeof(flatbuffers::uoffset_t) + vector->size() * sizeof(T)});
  }

  std::vector<ByteRange> structural;
  std::vector<ByteRange> masked;

 private:
  size_t PositionOf(const void* pointer) const {
    return static_cast<size_t>(static_cast<const uint8_t*>(pointer) - base_);
  }

  const uint8_t* base_;
};

}  // namespace

std::optional<std::vector<ByteRange>> RangesOutside(const std::vector<ByteRange>& structural,
                                                    std::vector<ByteRange> masked, size_t size) {
  for (const ByteRange& range : masked) {
    if (range.begin > range.end || range.end > size) return std::nullopt;
  }
  std::erase_if(masked, [](const ByteRange& range) { return range.begin == range.end; });
  std::sort(masked.begin(), masked.end(),
            [](const ByteRange& a, const ByteRange& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < masked.size(); ++i) {
    if (masked[i].begin < masked[i - 1].end) return std::nullopt;
  }
  for (const ByteRange& held : structural) {
    for (const ByteRange& range : masked) {
      if (held.begin < range.end && range.begin < held.end) return std::nullopt;
    }
  }
  std::vector<ByteRange> outside;
  size_t position = 0;
  for (const ByteRange& range : masked) {
    if (range.begin > position) outside.push_back({position, range.begin});
    position = range.end;
  }
  if (position < size) outside.push_back({position, size});
  return outside;
}

void VerifiedLayout::Learn(const uint8_t* metadata, size_t size, const fb::Message& message) {
  const fb::RecordBatch* batch = message.header_as_RecordBatch();
  // Custom metadata is a vector of tables of strings: rare on a RecordBatch, and not worth
  // following here. Such a message is verified every time.
  if (batch == nullptr || message.custom_metadata() != nullptr) return;
  LayoutRanges ranges(metadata);
  ranges.structural.push_back({0, sizeof(flatbuffers::uoffset_t)});  // the root offset
  ranges.AddTable(AsTable(message),
                  {{fb::Message::VT_VERSION, sizeof(int16_t)},
                   {fb::Message::VT_HEADER_TYPE, sizeof(uint8_t)},
                   {fb::Message::VT_HEADER, sizeof(flatbuffers::uoffset_t)},
                   {fb::Message::VT_CUSTOM_METADATA, sizeof(flatbuffers::uoffset_t)}});
  ranges.MaskField(AsTable(message), fb::Message::VT_BODY_LENGTH, sizeof(int64_t));
  ranges.AddTable(AsTable(*batch),
                  {{fb::RecordBatch::VT_NODES, sizeof(flatbuffers::uoffset_t)},
                   {fb::RecordBatch::VT_BUFFERS, sizeof(flatbuffers::uoffset_t)},
                   {fb::RecordBatch::VT_COMPRESSION, sizeof(flatbuffers::uoffset_t)},
                   {fb::RecordBatch::VT_VARIADIC_BUFFER_COUNTS, sizeof(flatbuffers::uoffset_t)}});
  ranges.MaskField(AsTable(*batch), fb::RecordBatch::VT_LENGTH, sizeof(int64_t));
  ranges.AddStructVector(batch->nodes());
  ranges.AddStructVector(batch->buffers());
  if (const fb::BodyCompression* compression = batch->compression()) {
    ranges.AddTable(AsTable(*compression), {{fb::BodyCompression::VT_CODEC, sizeof(int8_t)},
                                            {fb::BodyCompression::VT_METHOD, sizeof(int8_t)}});
  }
  ranges.AddFixedVector(batch->variadic_buffer_counts());

  std::optional<std::vector<ByteRange>> compared =
      RangesOutside(ranges.structural, std::move(ranges.masked), size);
  if (!compared.has_value()) return;
  // Matches compares 8 bytes at a time. Real metadata is padded to 8 bytes and its values
  // (int64 scalars, structs of int64s) are aligned; any other layout is verified every time.
  std::vector<uint32_t> words;
  for (const ByteRange& range : *compared) {
    if (range.begin % kWord != 0 || range.end % kWord != 0) return;
    for (size_t at = range.begin; at < range.end; at += kWord) {
      words.push_back(static_cast<uint32_t>(at));
    }
  }
  bytes_.assign(metadata, metadata + size);
  compared_words_ = std::move(words);
}

bool VerifiedLayout::Matches(const uint8_t* metadata, size_t size) const {
  if (size != bytes_.size() || size == 0) return false;
  // A few words in all (the values are most of a RecordBatch message): no early exit, and no
  // call to memcmp.
  uint64_t difference = 0;
  for (const uint32_t at : compared_words_) {
    difference |= bits::LoadUnaligned<uint64_t>(metadata + at) ^
                  bits::LoadUnaligned<uint64_t>(bytes_.data() + at);
  }
  return difference == 0;
}

}  // namespace sluice::ipc
