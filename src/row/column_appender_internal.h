// The appenders of RowToColumnarConverter: one per column or nested field, each turning the
// values of UnsafeRow structs (or of UnsafeArrayData elements) into one Arrow array it owns.
// Scalar appenders live in scalar_column_appenders.cc, list, map and struct appenders (which
// hand their children the structs or arrays they find) in nested_column_appenders.cc; the
// converter (row_to_columnar_converter.cc) cuts rows into chunks and drives the top level.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "row/unsafe_row_layout_internal.h"
#include "sluice/base/aligned_buffer.h"
#include "sluice/base/bit_ops.h"
#include "sluice/base/status.h"
#include "sluice/format/array_data.h"
#include "sluice/format/data_type.h"

namespace sluice::row_internal {

// Arrow utf8, binary and list offsets are int32.
constexpr int64_t kMaxOffset = std::numeric_limits<int32_t>::max();

template <typename T>
inline T Load(const uint8_t* source) {
  return bits::LoadUnaligned<T>(source);
}

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

inline bool FieldMayBeNull(const StructSet& structs, int64_t field) {
  return structs.nulls->FieldHasNulls(field);
}

inline bool FieldIsNull(const StructSet& structs, int64_t index, int64_t field) {
  return structs.nulls->IsNull(index, field);
}

inline bool ElementIsNull(const uint8_t* array, int64_t element) {
  return (Load<uint64_t>(array + kWordBytes + (element >> 6) * 8) >> (element & 63)) & 1;
}

inline bool ArrayHasNulls(const uint8_t* array, int64_t elements) {
  uint64_t any = 0;
  for (int64_t word = 0; word < BitsetBytes(elements); word += 8) {
    any |= Load<uint64_t>(array + kWordBytes + word);
  }
  return any != 0;
}

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

/// Makes the appender of scalar `type` (every Spark type but list, map and struct, which
/// MakeAppender makes); nullptr for those. String appenders are also listed in `strings`.
std::unique_ptr<ColumnAppender> MakeScalarAppender(const DataType& type, const std::string& path,
                                                   std::vector<ColumnAppender*>* strings);

/// Builds the appender tree of one type; string appenders are also listed in `strings`.
/// `null_row` is an all-zero row a struct appender reads for null structs.
std::unique_ptr<ColumnAppender> MakeAppender(const DataType& type, const std::string& path,
                                             const uint8_t* null_row,
                                             std::vector<ColumnAppender*>* strings);

/// Returns the largest fixed region of a struct in `type`, nested ones included.
int64_t LargestStructFixedBytes(const DataType& type);

}  // namespace sluice::row_internal
