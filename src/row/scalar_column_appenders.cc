// The appenders of scalar Spark types (column_appender_internal.h): fixed-width values,
// booleans, nulls, wide decimals, calendar intervals, strings and binaries.
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "row/column_appender_internal.h"
#include "sluice/base/utf8.h"
#include "sluice/row/spark_type.h"

namespace sluice::row_internal {

namespace {

// Reads a big-endian two's-complement integer of 1 to 16 bytes (Java's BigInteger.toByteArray).
__int128 FromBigEndianBytes(const uint8_t* bytes, int64_t size) {
  unsigned __int128 value = 0;
  for (int64_t i = 0; i < size; ++i) value = (value << 8) | bytes[i];
  if (size < 16 && (bytes[0] & 0x80) != 0) {
    value |= ~static_cast<unsigned __int128>(0) << (8 * size);  // sign extension
  }
  return static_cast<__int128>(value);
}

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

}  // namespace

std::unique_ptr<ColumnAppender> MakeScalarAppender(const DataType& type, const std::string& path,
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
    default:
      // Nested types are MakeAppender's; CheckSparkSchema has refused every other type.
      return nullptr;
  }
}

}  // namespace sluice::row_internal
