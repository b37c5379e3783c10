#include "sluice/row/row_to_columnar_converter.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "row/unsafe_row_layout_internal.h"
#include "sluice/base/aligned_buffer.h"
#include "sluice/base/bit_ops.h"
#include "sluice/base/utf8.h"
#include "sluice/row/spark_type.h"

namespace sluice {
namespace row_internal {

namespace {

// A chunk is as many rows as fit in about 64 KiB (at least one, at most 1024): each appender walks
// the whole chunk for its column, so the chunk's rows must stay in L2 while every column reads
// them; 1024 rows bound the per-chunk scratch.
constexpr int64_t kChunkBytes = 64 * 1024;
constexpr int64_t kMaxChunkRows = 1024;

// Arrow utf8, binary and list offsets are int32.
constexpr int64_t kMaxOffset = std::numeric_limits<int32_t>::max();

template <typename T>
T Load(const uint8_t* source) {
  return bits::LoadUnaligned<T>(source);
}

// Keeps the buffers of a finished batch alive.
struct BufferSet {
  std::vector<AlignedBuffer> buffers;
};

}  // namespace

// The chunk being converted: for error messages and for the bound on the bytes its values claim.
struct ChunkContext {
  const uint8_t* const* rows;  // the chunk's rows
  int64_t first_row;           // index of rows[0] in the Append call
  int64_t byte_budget;         // bytes of the chunk's rows
};

// Where the nulls of a set of structs are: every struct's null bitset words side by side (to test
// one field of one struct without touching the struct's first cache line), and for every field
// the structs in which it is null (to build a field's validity in time proportional to its nulls).
class NullIndex {
 public:
  void Build(const uint8_t* const* bases, int64_t count, int64_t bitset_bytes);

  bool IsNull(int64_t index, int64_t field) const {
    return (words_[index * words_per_struct_ + (field >> 6)] >> (field & 63)) & 1;
  }
  bool FieldHasNulls(int64_t field) const {
    return field_starts_[field + 1] > field_starts_[field];
  }
  /// The structs in which `field` is null, in order.
  const int32_t* null_begin(int64_t field) const { return rows_.data() + field_starts_[field]; }
  const int32_t* null_end(int64_t field) const { return rows_.data() + field_starts_[field + 1]; }

 private:
  int64_t words_per_struct_ = 0;
  std::vector<uint64_t> words_;
  std::vector<int32_t> field_starts_;
  std::vector<int32_t> cursors_;
  std::vector<int32_t> rows_;
};

void NullIndex::Build(const uint8_t* const* bases, int64_t count, int64_t bitset_bytes) {
  words_per_struct_ = bitset_bytes / 8;
  const int64_t fields = words_per_struct_ * 64;
  words_.resize(static_cast<size_t>(count * words_per_struct_));
  field_starts_.assign(static_cast<size_t>(fields + 1), 0);
  // Copy the words and count the nulls of each field.
  uint64_t* out = words_.data();
  for (int64_t i = 0; i < count; ++i) {
    for (int64_t w = 0; w < words_per_struct_; ++w) {
      uint64_t word = bits::LoadUnaligned<uint64_t>(bases[i] + w * 8);
      *out++ = word;
      for (; word != 0; word &= word - 1) ++field_starts_[w * 64 + std::countr_zero(word) + 1];
    }
  }
  for (int64_t f = 0; f < fields; ++f) field_starts_[f + 1] += field_starts_[f];
  // List each field's null structs (a counting sort by field).
  rows_.resize(static_cast<size_t>(field_starts_[fields]));
  if (rows_.empty()) return;
  cursors_.assign(field_starts_.begin(), field_starts_.end() - 1);
  out = words_.data();
  for (int64_t i = 0; i < count; ++i) {
    for (int64_t w = 0; w < words_per_struct_; ++w) {
      for (uint64_t word = *out++; word != 0; word &= word - 1) {
        rows_[cursors_[w * 64 + std::countr_zero(word)]++] = static_cast<int32_t>(i);
      }
    }
  }
}

// UnsafeRow-format structs to read one field from: the rows of a chunk, or structs nested in them.
struct StructSet {
  const uint8_t* const* bases;  // first byte of each struct (its null bitset)
  const int32_t* sizes;         // bytes of each struct, fixed region and variable region
  const int32_t* row_ids;       // the chunk row each struct belongs to
  int64_t count;
  int64_t bitset_bytes;  // bytes of each struct's null bitset
  const NullIndex* nulls;
};

// UnsafeArrayData arrays whose headers have been checked: the element count fits, and the header
// and elements lie within `sizes`.
struct ArraySet {
  const uint8_t* const* bases;  // first byte of each array (its element count)
  const int32_t* sizes;
  const int32_t* lengths;  // element count of each array
  const int32_t* row_ids;
  int64_t count;
  int64_t total_elements;
};

namespace {

// A bitmap that grows by appending bits anywhere inside a word.
class BitmapBuilder {
 public:
  int64_t length() const { return length_; }
  const uint8_t* data() const { return bytes_.data(); }
  int64_t byte_size() const { return bits::BytesForBits(length_); }

  // Appends `count` bits given by bit_at(i); returns how many were set.
  template <typename BitAt>
  int64_t Append(int64_t count, BitAt bit_at) {
    Reserve(length_ + count);
    int64_t set = 0;
    for (int64_t i = 0; i < count; i += 64) {
      const int chunk = static_cast<int>(std::min<int64_t>(64, count - i));
      uint64_t word = 0;
      for (int j = 0; j < chunk; ++j) word |= static_cast<uint64_t>(bit_at(i + j)) << j;
      set += std::popcount(word);
      AppendWordUnchecked(word, chunk);
    }
    return set;
  }

  // Appends `count` set bits.
  void AppendSet(int64_t count) {
    Reserve(length_ + count);
    for (int64_t i = 0; i < count; i += 64) {
      AppendWordUnchecked(~uint64_t{0}, static_cast<int>(std::min<int64_t>(64, count - i)));
    }
  }

  // Appends the complement of `count` bits of an UnsafeRow-style bitset (64-bit little-endian
  // words, LSB first); returns how many bits were appended set.
  int64_t AppendInverted(const uint8_t* bitset, int64_t count) {
    Reserve(length_ + count);
    int64_t set = 0;
    for (int64_t i = 0; i < count; i += 64) {
      const int chunk = static_cast<int>(std::min<int64_t>(64, count - i));
      uint64_t word = ~Load<uint64_t>(bitset + i / 8);
      if (chunk < 64) word &= (uint64_t{1} << chunk) - 1;
      set += std::popcount(word);
      AppendWordUnchecked(word, chunk);
    }
    return set;
  }

  void ClearBit(int64_t index) { bits::ClearBit(bytes_.data(), index); }
  void Truncate(int64_t length) { length_ = length; }
  void Reset() { length_ = 0; }
  AlignedBuffer Release() {
    length_ = 0;
    return std::move(bytes_);
  }

 private:
  void Reserve(int64_t bit_count) {
    // Whole words, plus one so that a word straddling the end can always be stored.
    const int64_t needed = (bit_count / 64 + 2) * 8;
    if (bytes_.size() < needed) bytes_.Resize(std::max(needed, bytes_.size() * 2));
  }

  // Appends the low `count` bits of `bits` (1 <= count <= 64); the capacity is reserved.
  void AppendWordUnchecked(uint64_t bits, int count) {
    if (count < 64) bits &= (uint64_t{1} << count) - 1;
    uint8_t* word = bytes_.data() + (length_ >> 6) * 8;
    const int shift = static_cast<int>(length_ & 63);
    const uint64_t kept = shift == 0 ? 0 : Load<uint64_t>(word) & ((uint64_t{1} << shift) - 1);
    bits::StoreUnaligned<uint64_t>(word, kept | (bits << shift));
    if (shift + count > 64) bits::StoreUnaligned<uint64_t>(word + 8, bits >> (64 - shift));
    length_ += count;
  }

  AlignedBuffer bytes_;
  int64_t length_ = 0;
};

bool FieldMayBeNull(const StructSet& structs, int64_t field) {
  return structs.nulls->FieldHasNulls(field);
}

bool FieldIsNull(const StructSet& structs, int64_t index, int64_t field) {
  return structs.nulls->IsNull(index, field);
}

bool ElementIsNull(const uint8_t* array, int64_t element) {
  return (Load<uint64_t>(array + kWordBytes + (element >> 6) * 8) >> (element & 63)) & 1;
}

bool ArrayHasNulls(const uint8_t* array, int64_t elements) {
  uint64_t any = 0;
  for (int64_t word = 0; word < BitsetBytes(elements); word += 8) {
    any |= Load<uint64_t>(array + kWordBytes + word);
  }
  return any != 0;
}

// Reads a big-endian two's-complement integer of 1 to 16 bytes (Java's BigInteger.toByteArray).
__int128 FromBigEndianBytes(const uint8_t* bytes, int64_t size) {
  unsigned __int128 value = 0;
  for (int64_t i = 0; i < size; ++i) value = (value << 8) | bytes[i];
  if (size < 16 && (bytes[0] & 0x80) != 0) {
    value |= ~static_cast<unsigned __int128>(0) << (8 * size);  // sign extension
  }
  return static_cast<__int128>(value);
}

}  // namespace

// Converts one column, or one field nested in a column, into an Arrow array it owns.
class ColumnAppender {
 public:
  ColumnAppender(const DataType* type, std::string path) : type_(type), path_(std::move(path)) {}
  virtual ~ColumnAppender() = default;

  const std::string& path() const { return path_; }
  int64_t length() const { return length_; }
  ColumnAppender* parent() const { return parent_; }
  void set_parent(ColumnAppender* parent) { parent_ = parent; }

  /// Appends field `field` of every struct of `structs`.
  virtual Status AppendFields(const StructSet& structs, int64_t field,
                              const ChunkContext& context) = 0;
  /// Appends every element of every array of `arrays`, array after array.
  virtual Status AppendElements(const ArraySet& arrays, const ChunkContext& context) = 0;
  /// Returns a view of the values appended so far.
  virtual ArrayData View() const = 0;
  /// Moves the buffers, children's included, to `buffers`; the appender is empty afterwards.
  virtual void ReleaseBuffers(std::vector<AlignedBuffer>* buffers) = 0;
  /// Drops the values after the first `length` (the rows of a failed Append).
  virtual void Truncate(int64_t length) = 0;
  /// Empties the appender, keeping its capacity.
  virtual void Reset() = 0;
  /// Returns the index of the value of this (list or map) appender holding child value `index`.
  virtual int64_t ParentIndexOf(int64_t index) const { return index; }
  /// Returns the first value at or after `from` that is not valid UTF-8, or -1 (strings only).
  virtual int64_t FindInvalidUtf8Value(int64_t /*from*/) const { return -1; }

 protected:
  // Builds a Corrupt status for the value read at `at`, inside row `row_id` of the chunk.
  // (Cold and out of line: the checks on the hot path stay small.)
  template <typename... Parts>
  [[gnu::cold, gnu::noinline]] Status Corrupt(const ChunkContext& context, int32_t row_id,
                                              const uint8_t* at, Parts&&... parts) const {
    return Status::Corrupt("UnsafeRow ", context.first_row + row_id, ", column ", path_,
                           ", byte offset ", at - context.rows[row_id], ": ",
                           std::forward<Parts>(parts)...);
  }

  // Checks the (offset, size) slot at `slot` of a struct or array of `bound` bytes at `base`
  // (offsets count from `base`) and returns the value's first byte in `value`.
  Status ReadVariableSlot(const ChunkContext& context, int32_t row_id, const uint8_t* base,
                          int64_t bound, const uint8_t* slot, int64_t min_size,
                          const uint8_t** value, int32_t* size) const {
    const uint64_t packed = Load<uint64_t>(slot);
    const int32_t offset = SlotOffset(packed);
    *size = SlotSize(packed);
    if (offset < 0 || *size < min_size || int64_t{offset} + *size > bound) {
      return Corrupt(context, row_id, slot, "a value of offset ", offset, " and size ", *size,
                     " does not fit in its ", bound, "-byte row or array (at least ", min_size,
                     " bytes expected)");
    }
    *value = base + offset;
    return Status::OK();
  }

  // Fails when the values of one call claim more bytes than the chunk's rows hold: honest rows
  // never share bytes between values, so this only stops crafted rows from multiplying work.
  Status CheckBudget(const ChunkContext& context, int64_t claimed, int32_t row_id,
                     const uint8_t* at) const {
    if (claimed <= context.byte_budget) return Status::OK();
    return Corrupt(context, row_id, at, "values claim ", claimed, " bytes but the rows hold only ",
                   context.byte_budget, " (overlapping offsets)");
  }

  void AppendFieldValidity(const StructSet& structs, int64_t field) {
    const int64_t start = validity_.length();
    validity_.AppendSet(structs.count);
    const int32_t* end = structs.nulls->null_end(field);
    for (const int32_t* null = structs.nulls->null_begin(field); null != end; ++null) {
      validity_.ClearBit(start + *null);
    }
    null_count_ += end - structs.nulls->null_begin(field);
  }

  // Appends the validity of the elements of every array; arrays without nulls in a row cost
  // one append together.
  void AppendElementValidity(const ArraySet& arrays) {
    int64_t valid_run = 0;
    for (int64_t k = 0; k < arrays.count; ++k) {
      const int64_t elements = arrays.lengths[k];
      if (!ArrayHasNulls(arrays.bases[k], elements)) {
        valid_run += elements;
        continue;
      }
      validity_.AppendSet(valid_run);
      valid_run = 0;
      null_count_ += elements - validity_.AppendInverted(arrays.bases[k] + kWordBytes, elements);
    }
    validity_.AppendSet(valid_run);
  }

  ArrayData BaseView() const {
    ArrayData array;
    array.type = type_;
    array.length = length_;
    array.null_count = null_count_;
    if (null_count_ > 0) array.buffers[0] = BufferView{validity_.data(), validity_.byte_size()};
    return array;
  }

  void TruncateValidity(int64_t length) {
    validity_.Truncate(length);
    length_ = length;
    null_count_ = length - bits::CountSetBits(validity_.data(), 0, length);
  }

  void ResetValidity() {
    validity_.Reset();
    length_ = 0;
    null_count_ = 0;
  }

  const DataType* type_;
  std::string path_;
  ColumnAppender* parent_ = nullptr;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  BitmapBuilder validity_;
};

namespace {

// A column of fixed-width `Value`s (and its validity): the values buffer, and what every
// appender does with it.
template <typename Value>
class ValuesAppender : public ColumnAppender {
 public:
  using ColumnAppender::ColumnAppender;

  ArrayData View() const override {
    ArrayData array = BaseView();
    array.buffers[1] = BufferView{values_.data(), length_ * static_cast<int64_t>(sizeof(Value))};
    return array;
  }

  void ReleaseBuffers(std::vector<AlignedBuffer>* buffers) override {
    buffers->push_back(validity_.Release());
    buffers->push_back(std::move(values_));
    values_ = AlignedBuffer();
    Reset();
  }

  void Truncate(int64_t length) override { TruncateValidity(length); }
  void Reset() override { ResetValidity(); }

 protected:
  // Room for `count` more values after the length_ appended; returns where they go.
  Value* AppendValues(int64_t count) {
    values_.Resize((length_ + count) * static_cast<int64_t>(sizeof(Value)));
    return reinterpret_cast<Value*>(values_.data()) + length_;
  }

 private:
  AlignedBuffer values_;
};

// Fixed-width values read as `Read` and stored as `Stored`: integers, floats (as their bits),
// date, timestamp, and decimals of precision <= 18 (a long widened to 16 bytes).
template <typename Stored, typename Read>
class FixedAppender final : public ValuesAppender<Stored> {
 public:
  using ValuesAppender<Stored>::ValuesAppender;

  Status AppendFields(const StructSet& structs, int64_t field, const ChunkContext&) override {
    const int64_t slot = structs.bitset_bytes + kWordBytes * field;
    Stored* out = this->AppendValues(structs.count);
    for (int64_t i = 0; i < structs.count; ++i) {
      out[i] = static_cast<Stored>(Load<Read>(structs.bases[i] + slot));
    }
    this->AppendFieldValidity(structs, field);
    this->length_ += structs.count;
    return Status::OK();
  }

  Status AppendElements(const ArraySet& arrays, const ChunkContext&) override {
    Stored* out = this->AppendValues(arrays.total_elements);
    for (int64_t k = 0; k < arrays.count; ++k) {
      const int64_t elements = arrays.lengths[k];
      const uint8_t* data = arrays.bases[k] + ArrayHeaderBytes(elements);
      if constexpr (std::is_same_v<Stored, Read>) {
        if (elements > 0) std::memcpy(out, data, static_cast<size_t>(elements) * sizeof(Stored));
      } else {
        for (int64_t e = 0; e < elements; ++e) {
          out[e] = static_cast<Stored>(Load<Read>(data + e * sizeof(Read)));
        }
      }
      out += elements;
    }
    this->AppendElementValidity(arrays);
    this->length_ += arrays.total_elements;
    return Status::OK();
  }
};

// Booleans: one byte in the slot or element, bit-packed in Arrow.
class BooleanAppender final : public ColumnAppender {
 public:
  using ColumnAppender::ColumnAppender;

  Status AppendFields(const StructSet& structs, int64_t field, const ChunkContext&) override {
    const int64_t slot = structs.bitset_bytes + kWordBytes * field;
    values_.Append(structs.count, [&](int64_t i) { return structs.bases[i][slot] != 0; });
    AppendFieldValidity(structs, field);
    length_ += structs.count;
    return Status::OK();
  }

  Status AppendElements(const ArraySet& arrays, const ChunkContext&) override {
    for (int64_t k = 0; k < arrays.count; ++k) {
      const int64_t elements = arrays.lengths[k];
      const uint8_t* data = arrays.bases[k] + ArrayHeaderBytes(elements);
      values_.Append(elements, [&](int64_t e) { return data[e] != 0; });
    }
    AppendElementValidity(arrays);
    length_ += arrays.total_elements;
    return Status::OK();
  }

  ArrayData View() const override {
    ArrayData array = BaseView();
    array.buffers[1] = BufferView{values_.data(), values_.byte_size()};
    return array;
  }

  void ReleaseBuffers(std::vector<AlignedBuffer>* buffers) override {
    buffers->push_back(validity_.Release());
    buffers->push_back(values_.Release());
    Reset();
  }

  void Truncate(int64_t length) override {
    TruncateValidity(length);
    values_.Truncate(length);
  }

  void Reset() override {
    ResetValidity();
    values_.Reset();
  }

 private:
  BitmapBuilder values_;
};

// Spark's NullType: every value is null, nothing is read.
class NullAppender final : public ColumnAppender {
 public:
  using ColumnAppender::ColumnAppender;

  Status AppendFields(const StructSet& structs, int64_t, const ChunkContext&) override {
    length_ += structs.count;
    return Status::OK();
  }
  Status AppendElements(const ArraySet& arrays, const ChunkContext&) override {
    length_ += arrays.total_elements;
    return Status::OK();
  }
  ArrayData View() const override {
    ArrayData array;
    array.type = type_;
    array.length = length_;
    array.null_count = length_;
    return array;
  }
  void ReleaseBuffers(std::vector<AlignedBuffer>*) override { Reset(); }
  void Truncate(int64_t length) override { length_ = length; }
  void Reset() override { length_ = 0; }
};

// Decimals of precision > 18: big-endian two's-complement bytes in the variable region.
class LargeDecimalAppender final : public ValuesAppender<__int128> {
 public:
  using ValuesAppender::ValuesAppender;

  Status AppendFields(const StructSet& structs, int64_t field,
                      const ChunkContext& context) override {
    const int64_t slot = structs.bitset_bytes + kWordBytes * field;
    const bool may_be_null = FieldMayBeNull(structs, field);
    __int128* out = AppendValues(structs.count);
    for (int64_t i = 0; i < structs.count; ++i) {
      out[i] = 0;
      if (may_be_null && FieldIsNull(structs, i, field)) continue;
      SLUICE_RETURN_NOT_OK(Read(context, structs.row_ids[i], structs.bases[i], structs.sizes[i],
                                structs.bases[i] + slot, &out[i]));
    }
    AppendFieldValidity(structs, field);
    length_ += structs.count;
    return Status::OK();
  }

  Status AppendElements(const ArraySet& arrays, const ChunkContext& context) override {
    __int128* out = AppendValues(arrays.total_elements);
    for (int64_t k = 0; k < arrays.count; ++k) {
      const int64_t elements = arrays.lengths[k];
      const uint8_t* slots = arrays.bases[k] + ArrayHeaderBytes(elements);
      for (int64_t e = 0; e < elements; ++e) {
        out[e] = 0;
        if (ElementIsNull(arrays.bases[k], e)) continue;
        SLUICE_RETURN_NOT_OK(Read(context, arrays.row_ids[k], arrays.bases[k], arrays.sizes[k],
                                  slots + e * kWordBytes, &out[e]));
      }
      out += elements;
    }
    AppendElementValidity(arrays);
    length_ += arrays.total_elements;
    return Status::OK();
  }

 private:
  Status Read(const ChunkContext& context, int32_t row_id, const uint8_t* base, int64_t bound,
              const uint8_t* slot, __int128* value) const {
    const uint8_t* bytes = nullptr;
    int32_t size = 0;
    SLUICE_RETURN_NOT_OK(ReadVariableSlot(context, row_id, base, bound, slot, 1, &bytes, &size));
    if (size > 16) {
      return Corrupt(context, row_id, slot, "a decimal of ", size,
                     " bytes does not fit in 16 bytes (precision 38 at most)");
    }
    *value = FromBigEndianBytes(bytes, size);
    return Status::OK();
  }
};

// Calendar intervals: months, days and microseconds in 16 bytes of the variable region, stored
// as Arrow's month_day_nano (int32 months, int32 days, int64 nanoseconds), nanoseconds being
// microseconds * 1000 as in Spark's ArrowWriter. An interval of more than 2^63 nanoseconds
// (about 292 years of microseconds) has no month_day_nano form and is refused.
struct MonthDayNano {
  int32_t months;
  int32_t days;
  int64_t nanoseconds;
};
static_assert(sizeof(MonthDayNano) == kCalendarIntervalBytes);

class CalendarIntervalAppender final : public ValuesAppender<MonthDayNano> {
 public:
  using ValuesAppender::ValuesAppender;

  Status AppendFields(const StructSet& structs, int64_t field,
                      const ChunkContext& context) override {
    const int64_t slot = structs.bitset_bytes + kWordBytes * field;
    const bool may_be_null = FieldMayBeNull(structs, field);
    MonthDayNano* out = AppendValues(structs.count);
    for (int64_t i = 0; i < structs.count; ++i) {
      out[i] = MonthDayNano{};
      if (may_be_null && FieldIsNull(structs, i, field)) continue;
      SLUICE_RETURN_NOT_OK(Read(context, structs.row_ids[i], structs.bases[i], structs.sizes[i],
                                structs.bases[i] + slot, &out[i]));
    }
    AppendFieldValidity(structs, field);
    length_ += structs.count;
    return Status::OK();
  }

  Status AppendElements(const ArraySet& arrays, const ChunkContext& context) override {
    MonthDayNano* out = AppendValues(arrays.total_elements);
    for (int64_t k = 0; k < arrays.count; ++k) {
      const int64_t elements = arrays.lengths[k];
      const uint8_t* slots = arrays.bases[k] + ArrayHeaderBytes(elements);
      for (int64_t e = 0; e < elements; ++e) {
        out[e] = MonthDayNano{};
        if (ElementIsNull(arrays.bases[k], e)) continue;
        SLUICE_RETURN_NOT_OK(Read(context, arrays.row_ids[k], arrays.bases[k], arrays.sizes[k],
                                  slots + e * kWordBytes, &out[e]));
      }
      out += elements;
    }
    AppendElementValidity(arrays);
    length_ += arrays.total_elements;
    return Status::OK();
  }

 private:
  Status Read(const ChunkContext& context, int32_t row_id, const uint8_t* base, int64_t bound,
              const uint8_t* slot, MonthDayNano* value) const {
    const uint8_t* bytes = nullptr;
    int32_t size = 0;
    SLUICE_RETURN_NOT_OK(ReadVariableSlot(context, row_id, base, bound, slot,
                                          kCalendarIntervalBytes, &bytes, &size));
    if (size != kCalendarIntervalBytes) {
      return Corrupt(context, row_id, slot, "a calendar interval of ", size,
                     " bytes (Spark writes 16)");
    }
    value->months = Load<int32_t>(bytes);
    value->days = Load<int32_t>(bytes + 4);
    const int64_t microseconds = Load<int64_t>(bytes + 8);
    if (__builtin_mul_overflow(microseconds, int64_t{1000}, &value->nanoseconds)) {
      return Status::Invalid("UnsafeRow ", context.first_row + row_id, ", column ", path_,
                             ": the calendar interval's ", microseconds,
                             " microseconds do not fit month_day_nano_interval's 64-bit "
                             "nanoseconds");
    }
    return Status::OK();
  }
};

// Bytes a short value is copied as: a fixed-size copy is a couple of vector moves, a memcpy of a
// variable size is a call. The byte buffer keeps this much slack past its end for it.
constexpr int64_t kShortCopyBytes = 32;

// Copies a value of `size` bytes whose source has `room` readable bytes (up to the end of its
// row or array) to `dest`, which has kShortCopyBytes of slack past the value.
inline void CopyValue(uint8_t* dest, const uint8_t* source, int64_t size, int64_t room) {
  if (size <= kShortCopyBytes && room >= kShortCopyBytes) {
    std::memcpy(dest, source, kShortCopyBytes);
  } else {
    std::memcpy(dest, source, static_cast<size_t>(size));
  }
}

// Strings and binaries: int32 offsets and one byte buffer, each value copied once.
class BinaryAppender final : public ColumnAppender {
 public:
  BinaryAppender(const DataType* type, std::string path) : ColumnAppender(type, std::move(path)) {
    Reset();
  }

  Status AppendFields(const StructSet& structs, int64_t field,
                      const ChunkContext& context) override {
    const int64_t slot = structs.bitset_bytes + kWordBytes * field;
    const bool may_be_null = FieldMayBeNull(structs, field);
    int32_t* ends = AppendOffsets(structs.count);
    const int64_t start = ends[-1];
    int64_t end = start;
    // First pass: check every slot and compute the offsets.
    for (int64_t i = 0; i < structs.count; ++i) {
      if (!(may_be_null && FieldIsNull(structs, i, field))) {
        const uint8_t* bytes = nullptr;
        int32_t size = 0;
        SLUICE_RETURN_NOT_OK(ReadVariableSlot(context, structs.row_ids[i], structs.bases[i],
                                              structs.sizes[i], structs.bases[i] + slot, 0, &bytes,
                                              &size));
        end += size;
        SLUICE_RETURN_NOT_OK(
            CheckBudget(context, end - start, structs.row_ids[i], structs.bases[i] + slot));
      }
      ends[i] = static_cast<int32_t>(std::min(end, kMaxOffset));
    }
    SLUICE_RETURN_NOT_OK(CheckOffsets(end));
    // Second pass: copy the bytes (a null or empty value has nothing to copy). Values are
    // copied in order, so what a short copy writes past a value the next one overwrites.
    bytes_.Resize(end + kShortCopyBytes);
    int64_t position = start;
    for (int64_t i = 0; i < structs.count; ++i) {
      const int64_t size = ends[i] - position;
      if (size > 0) {
        const int32_t offset = SlotOffset(Load<uint64_t>(structs.bases[i] + slot));
        CopyValue(bytes_.data() + position, structs.bases[i] + offset, size,
                  structs.sizes[i] - offset);
      }
      position = ends[i];
    }
    bytes_.Resize(end);
    AppendFieldValidity(structs, field);
    length_ += structs.count;
    return Status::OK();
  }

  Status AppendElements(const ArraySet& arrays, const ChunkContext& context) override {
    int32_t* ends = AppendOffsets(arrays.total_elements);
    const int64_t start = ends[-1];
    int64_t end = start;
    int64_t index = 0;
    for (int64_t k = 0; k < arrays.count; ++k) {
      const int64_t elements = arrays.lengths[k];
      const uint8_t* slots = arrays.bases[k] + ArrayHeaderBytes(elements);
      for (int64_t e = 0; e < elements; ++e, ++index) {
        if (!ElementIsNull(arrays.bases[k], e)) {
          const uint8_t* bytes = nullptr;
          int32_t size = 0;
          SLUICE_RETURN_NOT_OK(ReadVariableSlot(context, arrays.row_ids[k], arrays.bases[k],
                                                arrays.sizes[k], slots + e * kWordBytes, 0, &bytes,
                                                &size));
          end += size;
          SLUICE_RETURN_NOT_OK(
              CheckBudget(context, end - start, arrays.row_ids[k], slots + e * kWordBytes));
        }
        ends[index] = static_cast<int32_t>(std::min(end, kMaxOffset));
      }
    }
    SLUICE_RETURN_NOT_OK(CheckOffsets(end));
    bytes_.Resize(end + kShortCopyBytes);
    int64_t position = start;
    index = 0;
    for (int64_t k = 0; k < arrays.count; ++k) {
      const int64_t elements = arrays.lengths[k];
      const uint8_t* slots = arrays.bases[k] + ArrayHeaderBytes(elements);
      for (int64_t e = 0; e < elements; ++e, ++index) {
        const int64_t size = ends[index] - position;
        if (size > 0) {
          const int32_t offset = SlotOffset(Load<uint64_t>(slots + e * kWordBytes));
          CopyValue(bytes_.data() + position, arrays.bases[k] + offset, size,
                    arrays.sizes[k] - offset);
        }
        position = ends[index];
      }
    }
    AppendElementValidity(arrays);
    bytes_.Resize(end);
    length_ += arrays.total_elements;
    return Status::OK();
  }

  ArrayData View() const override {
    ArrayData array = BaseView();
    array.buffers[1] = BufferView{offsets_.data(), (length_ + 1) * 4};
    array.buffers[2] = BufferView{bytes_.data(), offsets()[length_]};
    return array;
  }

  void ReleaseBuffers(std::vector<AlignedBuffer>* buffers) override {
    buffers->push_back(validity_.Release());
    buffers->push_back(std::move(offsets_));
    buffers->push_back(std::move(bytes_));
    offsets_ = AlignedBuffer();
    bytes_ = AlignedBuffer();
    Reset();
  }

  void Truncate(int64_t length) override {
    TruncateValidity(length);
    offsets_.Resize((length + 1) * 4);
    bytes_.Resize(offsets()[length]);
  }

  void Reset() override {
    ResetValidity();
    offsets_.Resize(4);
    bits::StoreUnaligned<int32_t>(offsets_.data(), 0);
    bytes_.Clear();
  }

  int64_t FindInvalidUtf8Value(int64_t from) const override {
    const int32_t* ends = offsets();
    const int64_t start = ends[from];
    const int64_t end = ends[length_];
    // The concatenation is valid and every value starts on a character boundary exactly when
    // every value is valid, so one pass over the bytes decides for the whole range.
    bool valid = FindInvalidUtf8(bytes_.data() + start, end - start) == end - start;
    for (int64_t i = from; valid && i < length_; ++i) {
      if (ends[i] < end && (bytes_.data()[ends[i]] & 0xc0) == 0x80) valid = false;
    }
    if (valid) return -1;
    for (int64_t i = from; i < length_; ++i) {
      const int64_t size = ends[i + 1] - ends[i];
      if (FindInvalidUtf8(bytes_.data() + ends[i], size) != size) return i;
    }
    return -1;
  }

 private:
  const int32_t* offsets() const { return reinterpret_cast<const int32_t*>(offsets_.data()); }

  // Grows the offsets for `count` more values; returns where the first new end goes (the
  // current end is at index -1).
  int32_t* AppendOffsets(int64_t count) {
    offsets_.Resize((length_ + 1 + count) * 4);
    return reinterpret_cast<int32_t*>(offsets_.data()) + length_ + 1;
  }

  Status CheckOffsets(int64_t end) const {
    if (end <= kMaxOffset) return Status::OK();
    return Status::Invalid("column ", path_, ": more than 2 GiB of string bytes in one batch; ",
                           "call Finish or View more often");
  }

  AlignedBuffer offsets_;
  AlignedBuffer bytes_;
};

// Checks the header of the UnsafeArrayData of `size` bytes at `array`: a non-negative element
// count within int32, and room for the header and `width`-byte elements.
[[gnu::cold, gnu::noinline]] Status BadArrayHeader(const ChunkContext& context,
                                                   const std::string& path, int32_t row_id,
                                                   const uint8_t* array, int64_t size,
                                                   int64_t width) {
  const auto fail = [&](auto&&... parts) {
    return Status::Corrupt("UnsafeRow ", context.first_row + row_id, ", column ", path,
                           ", byte offset ", array - context.rows[row_id], ": ", parts...);
  };
  if (size < kWordBytes) {
    return fail("an array of ", size, " bytes has no room for its 8-byte element count");
  }
  const int64_t count = Load<int64_t>(array);
  if (count < 0 || count > std::numeric_limits<int32_t>::max()) {
    return fail("an array claims ", count, " elements");
  }
  return fail("an array of ", count, " elements needs at least ",
              ArrayHeaderBytes(count) + count * width, " bytes, it has ", size);
}

inline Status CheckArrayHeader(const ChunkContext& context, const std::string& path, int32_t row_id,
                               const uint8_t* array, int64_t size, int64_t width,
                               int64_t* elements) {
  if (size >= kWordBytes) {
    const int64_t count = Load<int64_t>(array);
    if (count >= 0 && count <= std::numeric_limits<int32_t>::max() &&
        ArrayHeaderBytes(count) + count * width <= size) {
      *elements = count;
      return Status::OK();
    }
  }
  return BadArrayHeader(context, path, row_id, array, size, width);
}

// Arrays (and the key and value arrays of maps) found by a list or map appender, kept as the
// ArraySet handed to the child appender.
class ArraySetBuilder {
 public:
  /// Empties the set and makes room for up to `capacity` arrays.
  void Clear(int64_t capacity) {
    if (static_cast<int64_t>(bases_.size()) < capacity) {
      const auto size = static_cast<size_t>(capacity);
      bases_.resize(size);
      sizes_.resize(size);
      lengths_.resize(size);
      row_ids_.resize(size);
    }
    count_ = 0;
    total_ = 0;
  }
  void Add(const uint8_t* base, int32_t size, int64_t length, int32_t row_id) {
    bases_[count_] = base;
    sizes_[count_] = size;
    lengths_[count_] = static_cast<int32_t>(length);
    row_ids_[count_] = row_id;
    ++count_;
    total_ += length;
  }
  int64_t total() const { return total_; }
  ArraySet Set() const {
    return ArraySet{bases_.data(), sizes_.data(), lengths_.data(), row_ids_.data(), count_, total_};
  }

 private:
  std::vector<const uint8_t*> bases_;
  std::vector<int32_t> sizes_;
  std::vector<int32_t> lengths_;
  std::vector<int32_t> row_ids_;
  int64_t count_ = 0;
  int64_t total_ = 0;
};

// A shared base for list and map: int32 offsets over the child values.
class OffsetsAppender : public ColumnAppender {
 public:
  OffsetsAppender(const DataType* type, std::string path) : ColumnAppender(type, std::move(path)) {
    ResetOffsets();
  }

  int64_t ParentIndexOf(int64_t index) const override {
    const int32_t* begin = offsets();
    const int32_t* found = std::upper_bound(begin, begin + length_ + 1, index);
    return (found - begin) - 1;
  }

 protected:
  const int32_t* offsets() const { return reinterpret_cast<const int32_t*>(offsets_.data()); }

  int32_t* AppendOffsets(int64_t count) {
    offsets_.Resize((length_ + 1 + count) * 4);
    return reinterpret_cast<int32_t*>(offsets_.data()) + length_ + 1;
  }

  Status CheckOffsets(int64_t end) const {
    if (end <= kMaxOffset) return Status::OK();
    return Status::Invalid("column ", path_, ": more than 2^31 nested values in one batch; ",
                           "call Finish or View more often");
  }

  void ResetOffsets() {
    offsets_.Resize(4);
    bits::StoreUnaligned<int32_t>(offsets_.data(), 0);
  }

  ArrayData OffsetsView() const {
    ArrayData array = BaseView();
    array.buffers[1] = BufferView{offsets_.data(), (length_ + 1) * 4};
    return array;
  }

  AlignedBuffer offsets_;
};

class ListAppender final : public OffsetsAppender {
 public:
  ListAppender(const DataType* type, std::string path, std::unique_ptr<ColumnAppender> element)
      : OffsetsAppender(type, std::move(path)),
        element_(std::move(element)),
        element_width_(ArrayElementWidth(type->child_type(0))) {
    element_->set_parent(this);
  }

  Status AppendFields(const StructSet& structs, int64_t field,
                      const ChunkContext& context) override {
    const int64_t slot = structs.bitset_bytes + kWordBytes * field;
    const bool may_be_null = FieldMayBeNull(structs, field);
    int32_t* ends = AppendOffsets(structs.count);
    const int64_t start = ends[-1];
    arrays_.Clear(structs.count);
    int64_t claimed = 0;
    for (int64_t i = 0; i < structs.count; ++i) {
      if (!(may_be_null && FieldIsNull(structs, i, field))) {
        SLUICE_RETURN_NOT_OK(AddArray(context, structs.row_ids[i], structs.bases[i],
                                      structs.sizes[i], structs.bases[i] + slot, &claimed));
      }
      ends[i] = static_cast<int32_t>(std::min(start + arrays_.total(), kMaxOffset));
    }
    SLUICE_RETURN_NOT_OK(CheckOffsets(start + arrays_.total()));
    AppendFieldValidity(structs, field);
    SLUICE_RETURN_NOT_OK(element_->AppendElements(arrays_.Set(), context));
    length_ += structs.count;
    return Status::OK();
  }

  Status AppendElements(const ArraySet& arrays, const ChunkContext& context) override {
    int32_t* ends = AppendOffsets(arrays.total_elements);
    const int64_t start = ends[-1];
    arrays_.Clear(arrays.total_elements);
    int64_t claimed = 0;
    int64_t index = 0;
    for (int64_t k = 0; k < arrays.count; ++k) {
      const int64_t elements = arrays.lengths[k];
      const uint8_t* slots = arrays.bases[k] + ArrayHeaderBytes(elements);
      for (int64_t e = 0; e < elements; ++e, ++index) {
        if (!ElementIsNull(arrays.bases[k], e)) {
          SLUICE_RETURN_NOT_OK(AddArray(context, arrays.row_ids[k], arrays.bases[k],
                                        arrays.sizes[k], slots + e * kWordBytes, &claimed));
        }
        ends[index] = static_cast<int32_t>(std::min(start + arrays_.total(), kMaxOffset));
      }
    }
    AppendElementValidity(arrays);
    SLUICE_RETURN_NOT_OK(CheckOffsets(start + arrays_.total()));
    SLUICE_RETURN_NOT_OK(element_->AppendElements(arrays_.Set(), context));
    length_ += arrays.total_elements;
    return Status::OK();
  }

  ArrayData View() const override {
    ArrayData array = OffsetsView();
    array.children.push_back(element_->View());
    return array;
  }

  void ReleaseBuffers(std::vector<AlignedBuffer>* buffers) override {
    buffers->push_back(validity_.Release());
    buffers->push_back(std::move(offsets_));
    offsets_ = AlignedBuffer();
    element_->ReleaseBuffers(buffers);
    Reset();
  }

  void Truncate(int64_t length) override {
    TruncateValidity(length);
    offsets_.Resize((length + 1) * 4);
    element_->Truncate(offsets()[length]);
  }

  void Reset() override {
    ResetValidity();
    ResetOffsets();
    element_->Reset();
  }

 private:
  Status AddArray(const ChunkContext& context, int32_t row_id, const uint8_t* base, int64_t bound,
                  const uint8_t* slot, int64_t* claimed) {
    const uint8_t* array = nullptr;
    int32_t size = 0;
    SLUICE_RETURN_NOT_OK(
        ReadVariableSlot(context, row_id, base, bound, slot, kWordBytes, &array, &size));
    *claimed += size;
    SLUICE_RETURN_NOT_OK(CheckBudget(context, *claimed, row_id, slot));
    int64_t elements = 0;
    SLUICE_RETURN_NOT_OK(
        CheckArrayHeader(context, path_, row_id, array, size, element_width_, &elements));
    arrays_.Add(array, size, elements, row_id);
    return Status::OK();
  }

  std::unique_ptr<ColumnAppender> element_;
  int64_t element_width_;
  ArraySetBuilder arrays_;
};

class MapAppender final : public OffsetsAppender {
 public:
  MapAppender(const DataType* type, std::string path, std::unique_ptr<ColumnAppender> key,
              std::unique_ptr<ColumnAppender> value)
      : OffsetsAppender(type, std::move(path)),
        key_(std::move(key)),
        value_(std::move(value)),
        key_width_(ArrayElementWidth(type->child_type(0).child_type(0))),
        value_width_(ArrayElementWidth(type->child_type(0).child_type(1))) {
    key_->set_parent(this);
    value_->set_parent(this);
  }

  Status AppendFields(const StructSet& structs, int64_t field,
                      const ChunkContext& context) override {
    const int64_t slot = structs.bitset_bytes + kWordBytes * field;
    const bool may_be_null = FieldMayBeNull(structs, field);
    int32_t* ends = AppendOffsets(structs.count);
    const int64_t start = ends[-1];
    keys_.Clear(structs.count);
    values_.Clear(structs.count);
    int64_t claimed = 0;
    for (int64_t i = 0; i < structs.count; ++i) {
      if (!(may_be_null && FieldIsNull(structs, i, field))) {
        SLUICE_RETURN_NOT_OK(AddMap(context, structs.row_ids[i], structs.bases[i], structs.sizes[i],
                                    structs.bases[i] + slot, &claimed));
      }
      ends[i] = static_cast<int32_t>(std::min(start + keys_.total(), kMaxOffset));
    }
    SLUICE_RETURN_NOT_OK(CheckOffsets(start + keys_.total()));
    AppendFieldValidity(structs, field);
    SLUICE_RETURN_NOT_OK(AppendEntries(context));
    length_ += structs.count;
    return Status::OK();
  }

  Status AppendElements(const ArraySet& arrays, const ChunkContext& context) override {
    int32_t* ends = AppendOffsets(arrays.total_elements);
    const int64_t start = ends[-1];
    keys_.Clear(arrays.total_elements);
    values_.Clear(arrays.total_elements);
    int64_t claimed = 0;
    int64_t index = 0;
    for (int64_t k = 0; k < arrays.count; ++k) {
      const int64_t elements = arrays.lengths[k];
      const uint8_t* slots = arrays.bases[k] + ArrayHeaderBytes(elements);
      for (int64_t e = 0; e < elements; ++e, ++index) {
        if (!ElementIsNull(arrays.bases[k], e)) {
          SLUICE_RETURN_NOT_OK(AddMap(context, arrays.row_ids[k], arrays.bases[k], arrays.sizes[k],
                                      slots + e * kWordBytes, &claimed));
        }
        ends[index] = static_cast<int32_t>(std::min(start + keys_.total(), kMaxOffset));
      }
    }
    AppendElementValidity(arrays);
    SLUICE_RETURN_NOT_OK(CheckOffsets(start + keys_.total()));
    SLUICE_RETURN_NOT_OK(AppendEntries(context));
    length_ += arrays.total_elements;
    return Status::OK();
  }

  ArrayData View() const override {
    ArrayData array = OffsetsView();
    ArrayData entries;
    entries.type = &type_->child_type(0);
    entries.length = key_->length();
    entries.children.push_back(key_->View());
    entries.children.push_back(value_->View());
    array.children.push_back(std::move(entries));
    return array;
  }

  void ReleaseBuffers(std::vector<AlignedBuffer>* buffers) override {
    buffers->push_back(validity_.Release());
    buffers->push_back(std::move(offsets_));
    offsets_ = AlignedBuffer();
    key_->ReleaseBuffers(buffers);
    value_->ReleaseBuffers(buffers);
    Reset();
  }

  void Truncate(int64_t length) override {
    TruncateValidity(length);
    offsets_.Resize((length + 1) * 4);
    key_->Truncate(offsets()[length]);
    value_->Truncate(offsets()[length]);
  }

  void Reset() override {
    ResetValidity();
    ResetOffsets();
    key_->Reset();
    value_->Reset();
  }

 private:
  // Checks the UnsafeMapData a slot points to: an 8-byte key array size, then a key array and a
  // value array of the same element count, with no null key.
  Status AddMap(const ChunkContext& context, int32_t row_id, const uint8_t* base, int64_t bound,
                const uint8_t* slot, int64_t* claimed) {
    const uint8_t* map = nullptr;
    int32_t size = 0;
    SLUICE_RETURN_NOT_OK(
        ReadVariableSlot(context, row_id, base, bound, slot, kWordBytes, &map, &size));
    *claimed += size;
    SLUICE_RETURN_NOT_OK(CheckBudget(context, *claimed, row_id, slot));
    const int64_t key_bytes = Load<int64_t>(map);
    if (key_bytes < 0 || key_bytes > size - kWordBytes) {
      return Corrupt(context, row_id, map, "a map of ", size, " bytes claims a key array of ",
                     key_bytes, " bytes");
    }
    const uint8_t* key_array = map + kWordBytes;
    const uint8_t* value_array = key_array + key_bytes;
    const int64_t value_bytes = size - kWordBytes - key_bytes;
    int64_t key_count = 0;
    int64_t value_count = 0;
    SLUICE_RETURN_NOT_OK(
        CheckArrayHeader(context, path_, row_id, key_array, key_bytes, key_width_, &key_count));
    SLUICE_RETURN_NOT_OK(CheckArrayHeader(context, path_, row_id, value_array, value_bytes,
                                          value_width_, &value_count));
    if (key_count != value_count) {
      return Corrupt(context, row_id, map, "a map has ", key_count, " keys but ", value_count,
                     " values");
    }
    if (ArrayHasNulls(key_array, key_count)) {
      return Corrupt(context, row_id, key_array, "a map key is null");
    }
    keys_.Add(key_array, static_cast<int32_t>(key_bytes), key_count, row_id);
    values_.Add(value_array, static_cast<int32_t>(value_bytes), value_count, row_id);
    return Status::OK();
  }

  Status AppendEntries(const ChunkContext& context) {
    SLUICE_RETURN_NOT_OK(key_->AppendElements(keys_.Set(), context));
    return value_->AppendElements(values_.Set(), context);
  }

  std::unique_ptr<ColumnAppender> key_;
  std::unique_ptr<ColumnAppender> value_;
  int64_t key_width_;
  int64_t value_width_;
  ArraySetBuilder keys_;
  ArraySetBuilder values_;
};

class StructAppender final : public ColumnAppender {
 public:
  StructAppender(const DataType* type, std::string path,
                 std::vector<std::unique_ptr<ColumnAppender>> children, const uint8_t* null_row)
      : ColumnAppender(type, std::move(path)),
        children_(std::move(children)),
        null_row_(null_row),
        bitset_bytes_(BitsetBytes(static_cast<int64_t>(children_.size()))),
        fixed_bytes_(RowFixedBytes(static_cast<int64_t>(children_.size()))) {
    for (auto& child : children_) child->set_parent(this);
  }

  Status AppendFields(const StructSet& structs, int64_t field,
                      const ChunkContext& context) override {
    const int64_t slot = structs.bitset_bytes + kWordBytes * field;
    const bool may_be_null = FieldMayBeNull(structs, field);
    Resize(structs.count);
    int64_t claimed = 0;
    for (int64_t i = 0; i < structs.count; ++i) {
      if (may_be_null && FieldIsNull(structs, i, field)) {
        bases_[i] = null_row_;
        sizes_[i] = static_cast<int32_t>(fixed_bytes_);
        continue;
      }
      SLUICE_RETURN_NOT_OK(ReadVariableSlot(context, structs.row_ids[i], structs.bases[i],
                                            structs.sizes[i], structs.bases[i] + slot, fixed_bytes_,
                                            &bases_[i], &sizes_[i]));
      claimed += sizes_[i];
      SLUICE_RETURN_NOT_OK(
          CheckBudget(context, claimed, structs.row_ids[i], structs.bases[i] + slot));
    }
    AppendFieldValidity(structs, field);
    return AppendNested(structs.count, structs.row_ids, context);
  }

  Status AppendElements(const ArraySet& arrays, const ChunkContext& context) override {
    Resize(arrays.total_elements);
    row_ids_.resize(static_cast<size_t>(arrays.total_elements));
    int64_t claimed = 0;
    int64_t index = 0;
    for (int64_t k = 0; k < arrays.count; ++k) {
      const int64_t elements = arrays.lengths[k];
      const uint8_t* slots = arrays.bases[k] + ArrayHeaderBytes(elements);
      for (int64_t e = 0; e < elements; ++e, ++index) {
        row_ids_[index] = arrays.row_ids[k];
        if (ElementIsNull(arrays.bases[k], e)) {
          bases_[index] = null_row_;
          sizes_[index] = static_cast<int32_t>(fixed_bytes_);
          continue;
        }
        SLUICE_RETURN_NOT_OK(ReadVariableSlot(context, arrays.row_ids[k], arrays.bases[k],
                                              arrays.sizes[k], slots + e * kWordBytes, fixed_bytes_,
                                              &bases_[index], &sizes_[index]));
        claimed += sizes_[index];
        SLUICE_RETURN_NOT_OK(
            CheckBudget(context, claimed, arrays.row_ids[k], slots + e * kWordBytes));
      }
    }
    AppendElementValidity(arrays);
    return AppendNested(arrays.total_elements, row_ids_.data(), context);
  }

  ArrayData View() const override {
    ArrayData array = BaseView();
    for (const auto& child : children_) array.children.push_back(child->View());
    return array;
  }

  void ReleaseBuffers(std::vector<AlignedBuffer>* buffers) override {
    buffers->push_back(validity_.Release());
    for (auto& child : children_) child->ReleaseBuffers(buffers);
    Reset();
  }

  void Truncate(int64_t length) override {
    TruncateValidity(length);
    for (auto& child : children_) child->Truncate(length);
  }

  void Reset() override {
    ResetValidity();
    for (auto& child : children_) child->Reset();
  }

 private:
  void Resize(int64_t count) {
    bases_.resize(static_cast<size_t>(count));
    sizes_.resize(static_cast<size_t>(count));
  }

  // Hands the nested structs in bases_ and sizes_ to the children, one field each.
  Status AppendNested(int64_t count, const int32_t* row_ids, const ChunkContext& context) {
    nulls_.Build(bases_.data(), count, bitset_bytes_);
    const StructSet nested{bases_.data(), sizes_.data(), row_ids, count, bitset_bytes_, &nulls_};
    for (size_t j = 0; j < children_.size(); ++j) {
      SLUICE_RETURN_NOT_OK(children_[j]->AppendFields(nested, static_cast<int64_t>(j), context));
    }
    length_ += count;
    return Status::OK();
  }

  std::vector<std::unique_ptr<ColumnAppender>> children_;
  const uint8_t* null_row_;
  int64_t bitset_bytes_;
  int64_t fixed_bytes_;
  std::vector<const uint8_t*> bases_;
  std::vector<int32_t> sizes_;
  std::vector<int32_t> row_ids_;
  NullIndex nulls_;
};

// Builds the appender tree of one type; string appenders are also listed in `strings`.
std::unique_ptr<ColumnAppender> MakeAppender(const DataType& type, const std::string& path,
                                             const uint8_t* null_row,
                                             std::vector<ColumnAppender*>* strings) {
  switch (type.id()) {
    case TypeId::kNull:
      return std::make_unique<NullAppender>(&type, path);
    case TypeId::kBoolean:
      return std::make_unique<BooleanAppender>(&type, path);
    case TypeId::kInt8:
      return std::make_unique<FixedAppender<int8_t, int8_t>>(&type, path);
    case TypeId::kInt16:
      return std::make_unique<FixedAppender<int16_t, int16_t>>(&type, path);
    case TypeId::kInt32:
    case TypeId::kFloat32:  // copied as bits
    case TypeId::kDate32:
    case TypeId::kIntervalYearMonth:
      return std::make_unique<FixedAppender<int32_t, int32_t>>(&type, path);
    case TypeId::kInt64:
    case TypeId::kFloat64:  // copied as bits
    case TypeId::kTimestamp:
    case TypeId::kDuration:  // microseconds (CheckSparkSchema)
    case TypeId::kTime64:    // nanoseconds
      return std::make_unique<FixedAppender<int64_t, int64_t>>(&type, path);
    case TypeId::kDecimal128:
      if (IsLargeDecimal(type.precision())) {
        return std::make_unique<LargeDecimalAppender>(&type, path);
      }
      return std::make_unique<FixedAppender<__int128, int64_t>>(&type, path);
    case TypeId::kIntervalMonthDayNano:
      return std::make_unique<CalendarIntervalAppender>(&type, path);
    case TypeId::kUtf8: {
      auto appender = std::make_unique<BinaryAppender>(&type, path);
      strings->push_back(appender.get());
      return appender;
    }
    case TypeId::kBinary:
      return std::make_unique<BinaryAppender>(&type, path);
    case TypeId::kList: {
      auto element =
          MakeAppender(type.child_type(0), path + "." + type.children()[0].name, null_row, strings);
      return std::make_unique<ListAppender>(&type, path, std::move(element));
    }
    case TypeId::kMap: {
      const DataType& entries = type.child_type(0);
      auto key = MakeAppender(entries.child_type(0), path + "." + entries.children()[0].name,
                              null_row, strings);
      auto value = MakeAppender(entries.child_type(1), path + "." + entries.children()[1].name,
                                null_row, strings);
      return std::make_unique<MapAppender>(&type, path, std::move(key), std::move(value));
    }
    case TypeId::kStruct: {
      std::vector<std::unique_ptr<ColumnAppender>> children;
      for (const Field& child : type.children()) {
        children.push_back(MakeAppender(*child.type, path + "." + child.name, null_row, strings));
      }
      return std::make_unique<StructAppender>(&type, path, std::move(children), null_row);
    }
    default:
      // CheckSparkSchema has refused every other type.
      return nullptr;
  }
}

// Returns the largest fixed region of a struct in `type`, nested ones included.
int64_t LargestStructFixedBytes(const DataType& type) {
  int64_t largest = 0;
  if (type.id() == TypeId::kStruct) {
    largest = RowFixedBytes(static_cast<int64_t>(type.children().size()));
  }
  for (const Field& child : type.children()) {
    largest = std::max(largest, LargestStructFixedBytes(*child.type));
  }
  return largest;
}

}  // namespace

// Scratch for the top-level rows of one chunk.
struct ChunkScratch {
  std::vector<int32_t> row_ids;  // 0, 1, 2, ...: the rows' indices in the chunk
  NullIndex nulls;
};

}  // namespace row_internal

using row_internal::ColumnAppender;

RowToColumnarConverter::RowToColumnarConverter(SchemaPtr schema, RowToColumnarOptions options)
    : schema_(std::move(schema)), options_(options) {}

RowToColumnarConverter::~RowToColumnarConverter() = default;

Result<std::unique_ptr<RowToColumnarConverter>> RowToColumnarConverter::Make(
    SchemaPtr schema, RowToColumnarOptions options) {
  if (schema == nullptr) return Status::Invalid("RowToColumnarConverter needs a schema");
  SLUICE_RETURN_NOT_OK(CheckSparkSchema(*schema));
  std::unique_ptr<RowToColumnarConverter> converter(
      new RowToColumnarConverter(std::move(schema), options));
  const Schema& fields = *converter->schema_;
  const auto field_count = static_cast<int64_t>(fields.num_fields());
  converter->fixed_bytes_ = row_internal::RowFixedBytes(field_count);

  // A null struct's fields are read from a row whose null bits are all set, so every field
  // below it comes out null without a check per value.
  int64_t null_row_bytes = 0;
  for (const Field& field : fields.fields()) {
    null_row_bytes = std::max(null_row_bytes, row_internal::LargestStructFixedBytes(*field.type));
  }
  converter->null_row_.assign(static_cast<size_t>(null_row_bytes / 8) + 1, ~uint64_t{0});
  const auto* null_row = reinterpret_cast<const uint8_t*>(converter->null_row_.data());

  for (const Field& field : fields.fields()) {
    converter->columns_.push_back(row_internal::MakeAppender(*field.type, field.name, null_row,
                                                             &converter->string_appenders_));
  }
  converter->chunk_ = std::make_unique<row_internal::ChunkScratch>();
  converter->chunk_->row_ids.resize(row_internal::kMaxChunkRows);
  for (int32_t i = 0; i < row_internal::kMaxChunkRows; ++i) converter->chunk_->row_ids[i] = i;
  return converter;
}

Status RowToColumnarConverter::Append(const uint8_t* const* rows, const int32_t* sizes,
                                      int64_t count) {
  if (count < 0) return Status::Invalid("RowToColumnarConverter: negative row count ", count);
  for (int64_t i = 0; i < count; ++i) {
    if (sizes[i] < fixed_bytes_) {
      return Status::Corrupt(
          "UnsafeRow ", i, ", byte offset 0: a row of ", sizes[i], " bytes is shorter than the ",
          fixed_bytes_, " bytes of its null bitset and ", schema_->num_fields(), " field slots");
    }
    if (rows[i] == nullptr && sizes[i] > 0) {
      return Status::Invalid("UnsafeRow ", i, ": null pointer for a row of ", sizes[i], " bytes");
    }
  }
  std::vector<int64_t> string_lengths_before;
  if (options_.validate_utf8) {
    for (const ColumnAppender* strings : string_appenders_) {
      string_lengths_before.push_back(strings->length());
    }
  }

  Status status;
  int64_t start = 0;
  while (start < count && status.ok()) {
    int64_t end = start;
    int64_t bytes = 0;
    while (end < count && end - start < row_internal::kMaxChunkRows &&
           (end == start || bytes + sizes[end] <= row_internal::kChunkBytes)) {
      bytes += sizes[end];
      ++end;
    }
    status = AppendChunk(rows + start, sizes + start, end - start, start);
    start = end;
  }
  if (status.ok() && options_.validate_utf8) {
    status = ValidateUtf8(num_rows_, string_lengths_before);
  }
  if (!status.ok()) {
    for (auto& column : columns_) column->Truncate(num_rows_);
    return status;
  }
  num_rows_ += count;
  return Status::OK();
}

Status RowToColumnarConverter::AppendChunk(const uint8_t* const* rows, const int32_t* sizes,
                                           int64_t count, int64_t first_row) {
  int64_t bytes = 0;
  for (int64_t i = 0; i < count; ++i) bytes += sizes[i];
  const row_internal::ChunkContext context{rows, first_row, bytes};
  const auto field_count = static_cast<int64_t>(columns_.size());
  const int64_t bitset_bytes = row_internal::BitsetBytes(field_count);
  chunk_->nulls.Build(rows, count, bitset_bytes);
  const row_internal::StructSet set{rows,  sizes,        chunk_->row_ids.data(),
                                    count, bitset_bytes, &chunk_->nulls};
  for (int64_t c = 0; c < field_count; ++c) {
    SLUICE_RETURN_NOT_OK(columns_[c]->AppendFields(set, c, context));
  }
  return Status::OK();
}

Status RowToColumnarConverter::ValidateUtf8(int64_t rows_before,
                                            const std::vector<int64_t>& string_lengths_before) {
  for (size_t s = 0; s < string_appenders_.size(); ++s) {
    const ColumnAppender* strings = string_appenders_[s];
    const int64_t invalid = strings->FindInvalidUtf8Value(string_lengths_before[s]);
    if (invalid < 0) continue;
    // Walk up to the top-level row holding the value.
    int64_t index = invalid;
    for (const ColumnAppender* level = strings; level->parent() != nullptr;
         level = level->parent()) {
      index = level->parent()->ParentIndexOf(index);
    }
    return Status::Corrupt("UnsafeRow ", index - rows_before, ", column ", strings->path(),
                           ": a string is not valid UTF-8");
  }
  return Status::OK();
}

RecordBatch RowToColumnarConverter::View() const {
  std::vector<ArrayData> columns;
  columns.reserve(columns_.size());
  for (const auto& column : columns_) columns.push_back(column->View());
  return RecordBatch(schema_, num_rows_, std::move(columns), {});
}

RecordBatch RowToColumnarConverter::Finish() {
  std::vector<ArrayData> columns;
  columns.reserve(columns_.size());
  for (const auto& column : columns_) columns.push_back(column->View());
  // Moving an AlignedBuffer keeps its storage, so the views taken above stay valid.
  auto buffers = std::make_shared<row_internal::BufferSet>();
  for (auto& column : columns_) column->ReleaseBuffers(&buffers->buffers);
  RecordBatch batch(schema_, num_rows_, std::move(columns), {std::move(buffers)});
  num_rows_ = 0;
  return batch;
}

void RowToColumnarConverter::Reset() {
  for (auto& column : columns_) column->Reset();
  num_rows_ = 0;
}

}  // namespace sluice
