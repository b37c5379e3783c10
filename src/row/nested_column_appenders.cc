// The appenders of nested Spark types (column_appender_internal.h): arrays and maps (offsets over
// the values of their child appenders) and structs (nested UnsafeRows, a child appender per
// field); and the factory of the appender tree.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "row/column_appender_internal.h"
#include "sluice/row/spark_type.h"

namespace sluice::row_internal {

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

namespace {

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

// What list and map share: int32 offsets over child values read from (offset, size) slots, one
// slot per struct field or array element. `Nested` (ListAppender, MapAppender) reads the value a
// slot points to (AddValue), says how many child values it has gathered (child_total), hands
// them to its children (AppendChildren) and tends its children's buffers.
template <typename Nested>
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

  Status AppendFields(const StructSet& structs, int64_t field, const ChunkContext& context) final {
    const int64_t slot = structs.bitset_bytes + kWordBytes * field;
    const bool may_be_null = FieldMayBeNull(structs, field);
    int32_t* ends = AppendOffsets(structs.count);
    const int64_t start = ends[-1];
    nested().ClearChildSets(structs.count);
    int64_t claimed = 0;
    for (int64_t i = 0; i < structs.count; ++i) {
      if (!(may_be_null && FieldIsNull(structs, i, field))) {
        SLUICE_RETURN_NOT_OK(nested().AddValue(context, structs.row_ids[i], structs.bases[i],
                                               structs.sizes[i], structs.bases[i] + slot,
                                               &claimed));
      }
      ends[i] = static_cast<int32_t>(std::min(start + nested().child_total(), kMaxOffset));
    }
    SLUICE_RETURN_NOT_OK(CheckOffsets(start + nested().child_total()));
    AppendFieldValidity(structs, field);
    SLUICE_RETURN_NOT_OK(nested().AppendChildren(context));
    length_ += structs.count;
    return Status::OK();
  }

  Status AppendElements(const ArraySet& arrays, const ChunkContext& context) final {
    int32_t* ends = AppendOffsets(arrays.total_elements);
    const int64_t start = ends[-1];
    nested().ClearChildSets(arrays.total_elements);
    int64_t claimed = 0;
    int64_t index = 0;
    for (int64_t k = 0; k < arrays.count; ++k) {
      const int64_t elements = arrays.lengths[k];
      const uint8_t* slots = arrays.bases[k] + ArrayHeaderBytes(elements);
      for (int64_t e = 0; e < elements; ++e, ++index) {
        if (!ElementIsNull(arrays.bases[k], e)) {
          SLUICE_RETURN_NOT_OK(nested().AddValue(context, arrays.row_ids[k], arrays.bases[k],
                                                 arrays.sizes[k], slots + e * kWordBytes,
                                                 &claimed));
        }
        ends[index] = static_cast<int32_t>(std::min(start + nested().child_total(), kMaxOffset));
      }
    }
    AppendElementValidity(arrays);
    SLUICE_RETURN_NOT_OK(CheckOffsets(start + nested().child_total()));
    SLUICE_RETURN_NOT_OK(nested().AppendChildren(context));
    length_ += arrays.total_elements;
    return Status::OK();
  }

  void ReleaseBuffers(std::vector<AlignedBuffer>* buffers) final {
    buffers->push_back(validity_.Release());
    buffers->push_back(std::move(offsets_));
    offsets_ = AlignedBuffer();
    nested().ForEachChild([&](ColumnAppender& child) { child.ReleaseBuffers(buffers); });
    Reset();
  }

  void Truncate(int64_t length) final {
    TruncateValidity(length);
    offsets_.Resize((length + 1) * 4);
    nested().ForEachChild([&](ColumnAppender& child) { child.Truncate(offsets()[length]); });
  }

  void Reset() final {
    ResetValidity();
    ResetOffsets();
    nested().ForEachChild([](ColumnAppender& child) { child.Reset(); });
  }

 protected:
  const int32_t* offsets() const { return reinterpret_cast<const int32_t*>(offsets_.data()); }

  // Reads the (offset, size) slot at `slot` of a struct or array of `bound` bytes at `base`,
  // counting the value's bytes in `claimed`; returns the value and its size.
  Status ReadNestedValue(const ChunkContext& context, int32_t row_id, const uint8_t* base,
                         int64_t bound, const uint8_t* slot, int64_t* claimed,
                         const uint8_t** value, int32_t* size) const {
    SLUICE_RETURN_NOT_OK(
        ReadVariableSlot(context, row_id, base, bound, slot, kWordBytes, value, size));
    *claimed += *size;
    return CheckBudget(context, *claimed, row_id, slot);
  }

  ArrayData OffsetsView() const {
    ArrayData array = BaseView();
    array.buffers[1] = BufferView{offsets_.data(), (length_ + 1) * 4};
    return array;
  }

 private:
  Nested& nested() { return static_cast<Nested&>(*this); }

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

  AlignedBuffer offsets_;
};

// Arrays: UnsafeArrayData in, a list of the element appender's values out.
class ListAppender final : public OffsetsAppender<ListAppender> {
 public:
  ListAppender(const DataType* type, std::string path, std::unique_ptr<ColumnAppender> element)
      : OffsetsAppender(type, std::move(path)),
        element_(std::move(element)),
        element_width_(ArrayElementWidth(type->child_type(0))) {
    element_->set_parent(this);
  }

  ArrayData View() const override {
    ArrayData array = OffsetsView();
    array.children.push_back(element_->View());
    return array;
  }

 private:
  friend class OffsetsAppender<ListAppender>;

  void ClearChildSets(int64_t capacity) { arrays_.Clear(capacity); }
  int64_t child_total() const { return arrays_.total(); }
  Status AppendChildren(const ChunkContext& context) {
    return element_->AppendElements(arrays_.Set(), context);
  }
  template <typename Visit>
  void ForEachChild(Visit&& visit) {
    visit(*element_);
  }

  // Checks the UnsafeArrayData a slot points to.
  Status AddValue(const ChunkContext& context, int32_t row_id, const uint8_t* base, int64_t bound,
                  const uint8_t* slot, int64_t* claimed) {
    const uint8_t* array = nullptr;
    int32_t size = 0;
    SLUICE_RETURN_NOT_OK(
        ReadNestedValue(context, row_id, base, bound, slot, claimed, &array, &size));
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

// Maps: UnsafeMapData in, a map of the key and value appenders' entries out.
class MapAppender final : public OffsetsAppender<MapAppender> {
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

 private:
  friend class OffsetsAppender<MapAppender>;

  void ClearChildSets(int64_t capacity) {
    keys_.Clear(capacity);
    values_.Clear(capacity);
  }
  int64_t child_total() const { return keys_.total(); }
  Status AppendChildren(const ChunkContext& context) {
    SLUICE_RETURN_NOT_OK(key_->AppendElements(keys_.Set(), context));
    return value_->AppendElements(values_.Set(), context);
  }
  template <typename Visit>
  void ForEachChild(Visit&& visit) {
    visit(*key_);
    visit(*value_);
  }

  // Checks the UnsafeMapData a slot points to: an 8-byte key array size, then a key array and a
  // value array of the same element count, with no null key.
  Status AddValue(const ChunkContext& context, int32_t row_id, const uint8_t* base, int64_t bound,
                  const uint8_t* slot, int64_t* claimed) {
    const uint8_t* map = nullptr;
    int32_t size = 0;
    SLUICE_RETURN_NOT_OK(ReadNestedValue(context, row_id, base, bound, slot, claimed, &map, &size));
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

}  // namespace

std::unique_ptr<ColumnAppender> MakeAppender(const DataType& type, const std::string& path,
                                             const uint8_t* null_row,
                                             std::vector<ColumnAppender*>* strings) {
  switch (type.id()) {
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
      return MakeScalarAppender(type, path, strings);
  }
}

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

}  // namespace sluice::row_internal
