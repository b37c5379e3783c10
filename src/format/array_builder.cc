#include "sluice/format/array_builder.h"

#include <cstring>

#include "sluice/base/check.h"

namespace sluice {

namespace {
// Grows a bitmap to hold `bit_count` bits, zeroing bytes it adds so outputs are deterministic.
void GrowBitmap(AlignedBuffer& bitmap, int64_t bit_count) {
  const int64_t old_size = bitmap.size();
  const int64_t new_size = bits::BytesForBits(bit_count);
  if (new_size > old_size) {
    bitmap.Resize(new_size);
    std::memset(bitmap.data() + old_size, 0, static_cast<size_t>(new_size - old_size));
  }
}

bool IsOffsetType(TypeId id) {
  return IsBinaryLike(id) || id == TypeId::kList || id == TypeId::kLargeList ||
         id == TypeId::kMap || IsListView(id);
}
}  // namespace

ArrayBuilder::ArrayBuilder(const DataType* type) : type_(type) {
  for (const auto& field : type->children()) {
    children_.push_back(std::make_unique<ArrayBuilder>(field.type.get()));
  }
  if (type->id() == TypeId::kDictionary) {
    children_.push_back(std::make_unique<ArrayBuilder>(type->value_type().get()));
  }
  Reset();
}

// Appends the index of the dictionary's last value (appended to child(0) just before).
void ArrayBuilder::AppendLastDictionaryIndex() {
  const int64_t index = children_[0]->length() - 1;
  values_.Append(&index, BitWidth(*type_->index_type()) / 8);  // little-endian: the low bytes
}

void ArrayBuilder::Reset() {
  length_ = 0;
  null_count_ = 0;
  bit_length_ = 0;
  validity_.Clear();
  values_.Clear();
  bytes_.Clear();
  list_view_start_ = 0;
  if (IsOffsetType(type_->id()) && !IsListView(type_->id())) {
    // Offsets start with a leading zero.
    const int64_t zero = 0;
    values_.Append(&zero, HasLargeOffsets(type_->id()) ? sizeof(int64_t) : sizeof(int32_t));
  }
  for (auto& child : children_) child->Reset();
}

void ArrayBuilder::MarkValid() {
  if (null_count_ > 0) {
    GrowBitmap(validity_, length_ + 1);
    bits::SetBit(validity_.data(), length_);
  }
}

void ArrayBuilder::MarkNull() {
  GrowBitmap(validity_, length_ + 1);
  // At the first null, every earlier slot becomes explicitly valid.
  if (null_count_ == 0) bits::FillBits(validity_.data(), 0, length_, true);
  bits::ClearBit(validity_.data(), length_);
  ++null_count_;
}

void ArrayBuilder::AppendBit(bool value) {
  GrowBitmap(values_, bit_length_ + 1);
  bits::SetBitTo(values_.data(), bit_length_, value);
  ++bit_length_;
}

void ArrayBuilder::AppendOffset() {
  int64_t end = 0;
  const TypeId id = type_->id();
  if (IsListView(id)) {
    // The row's elements are those appended to the child since the last row: its offset and
    // size (offsets in values_, sizes in bytes_).
    const int64_t start = list_view_start_;
    const int64_t size = children_[0]->length() - start;
    list_view_start_ = children_[0]->length();
    if (id == TypeId::kLargeListView) {
      values_.Append(&start, sizeof(int64_t));
      bytes_.Append(&size, sizeof(int64_t));
    } else {
      const auto start32 = static_cast<int32_t>(start);
      const auto size32 = static_cast<int32_t>(size);
      values_.Append(&start32, sizeof(int32_t));
      bytes_.Append(&size32, sizeof(int32_t));
    }
    return;
  }
  if (IsBinaryLike(id)) {
    end = bytes_.size();
  } else {
    end = children_[0]->length();
  }
  if (HasLargeOffsets(id)) {
    values_.Append(&end, sizeof(int64_t));
  } else {
    const auto end32 = static_cast<int32_t>(end);
    values_.Append(&end32, sizeof(int32_t));
  }
}

// Appends a view of `size` bytes: inline up to 12 bytes (zero-padded), else a prefix and the
// place of the bytes in the one data buffer this builder makes.
void ArrayBuilder::AppendView(const void* data, int64_t size) {
  uint8_t* view = values_.AppendUninitialized(16);
  std::memset(view, 0, 16);
  const auto size32 = static_cast<int32_t>(size);
  std::memcpy(view, &size32, 4);
  if (size <= 12) {
    if (size > 0) std::memcpy(view + 4, data, static_cast<size_t>(size));
    return;
  }
  std::memcpy(view + 4, data, 4);
  const auto start = static_cast<int32_t>(bytes_.size());
  std::memcpy(view + 12, &start, 4);
  bytes_.Append(data, size);
}

// Closes a run-end encoded row: a new run when a value was appended to the values since the
// last row, else one more row of the last run.
void ArrayBuilder::AppendRunEnd() {
  ArrayBuilder& run_ends = *children_[0];
  const int64_t end = length_ + 1;
  const int64_t width = BitWidth(*run_ends.type_) / 8;
  if (children_[1]->length() > run_ends.length()) {
    run_ends.AppendBytes(&end, width);  // little-endian: the low bytes of end
  } else {
    std::memcpy(run_ends.values_.data() + (run_ends.length() - 1) * width, &end,
                static_cast<size_t>(width));
  }
}

void ArrayBuilder::AppendUnion(size_t child) {
  SLUICE_DCHECK(IsUnion(type_->id()) && child < children_.size());
  const int8_t code = type_->type_codes()[child];
  values_.Append(&code, 1);
  if (type_->id() == TypeId::kDenseUnion) {
    const auto offset = static_cast<int32_t>(children_[child]->length() - 1);
    bytes_.Append(&offset, sizeof(offset));
  } else {
    for (size_t c = 0; c < children_.size(); ++c) {
      if (c != child) children_[c]->AppendEmptyValue();
    }
  }
  ++length_;
}

void ArrayBuilder::AppendEmptyValue() {
  const TypeId id = type_->id();
  if (id == TypeId::kNull) {
    AppendNull();
    return;
  }
  if (IsUnion(id)) {
    children_[0]->AppendEmptyValue();
    AppendUnion(0);
    return;
  }
  if (id == TypeId::kRunEndEncoded) {
    children_[1]->AppendEmptyValue();
    AppendRunEnd();
    ++length_;
    return;
  }
  if (id == TypeId::kDictionary) {
    children_[0]->AppendEmptyValue();
    MarkValid();
    AppendLastDictionaryIndex();
    ++length_;
    return;
  }
  MarkValid();
  if (IsBinaryView(id)) {
    AppendView(nullptr, 0);
  } else if (id == TypeId::kBoolean) {
    AppendBit(false);
  } else if (IsFixedWidth(id)) {
    const int64_t width = BitWidth(*type_) / 8;
    std::memset(values_.AppendUninitialized(width), 0, static_cast<size_t>(width));
  } else if (IsOffsetType(id)) {
    AppendOffset();
  } else if (id == TypeId::kStruct) {
    for (auto& child : children_) child->AppendEmptyValue();
  } else if (id == TypeId::kFixedSizeList) {
    for (int32_t i = 0; i < type_->list_size(); ++i) children_[0]->AppendEmptyValue();
  }
  ++length_;
}

void ArrayBuilder::AppendNull() {
  const TypeId id = type_->id();
  if (id == TypeId::kNull) {
    ++length_;
    ++null_count_;
    return;
  }
  if (IsUnion(id)) {  // no validity of its own: a null of the first child
    children_[0]->AppendNull();
    AppendUnion(0);
    return;
  }
  if (id == TypeId::kRunEndEncoded) {  // no validity of its own: a run of a null value
    children_[1]->AppendNull();
    AppendRunEnd();
    ++length_;
    return;
  }
  MarkNull();
  if (IsBinaryView(id)) {
    AppendView(nullptr, 0);
  } else if (id == TypeId::kDictionary) {
    const int64_t width = BitWidth(*type_->index_type()) / 8;
    std::memset(values_.AppendUninitialized(width), 0, static_cast<size_t>(width));
  } else if (id == TypeId::kBoolean) {
    AppendBit(false);
  } else if (IsFixedWidth(id)) {
    const int64_t width = BitWidth(*type_) / 8;
    std::memset(values_.AppendUninitialized(width), 0, static_cast<size_t>(width));
  } else if (IsOffsetType(id)) {
    AppendOffset();
  } else if (id == TypeId::kStruct) {
    for (auto& child : children_) child->AppendEmptyValue();
  } else if (id == TypeId::kFixedSizeList) {
    for (int32_t i = 0; i < type_->list_size(); ++i) children_[0]->AppendEmptyValue();
  }
  ++length_;
}

void ArrayBuilder::AppendValid() {
  const TypeId id = type_->id();
  SLUICE_DCHECK(id == TypeId::kList || id == TypeId::kLargeList || id == TypeId::kMap ||
                id == TypeId::kStruct || id == TypeId::kFixedSizeList || IsListView(id) ||
                id == TypeId::kRunEndEncoded || id == TypeId::kDictionary);
  if (id == TypeId::kDictionary) {
    SLUICE_DCHECK(children_[0]->length() > 0);
    MarkValid();
    AppendLastDictionaryIndex();
    ++length_;
    return;
  }
  if (id == TypeId::kRunEndEncoded) {
    SLUICE_DCHECK(children_[1]->length() > 0);
    AppendRunEnd();
    ++length_;
    return;
  }
  MarkValid();
  if (id != TypeId::kStruct && id != TypeId::kFixedSizeList) AppendOffset();
  ++length_;
}

void ArrayBuilder::AppendBytes(const void* data, int64_t size) {
  MarkValid();
  if (IsBinaryView(type_->id())) {
    AppendView(data, size);
  } else if (IsFixedWidth(type_->id())) {  // fixed-size binary, or any other type's value bytes
    SLUICE_DCHECK(type_->id() != TypeId::kBoolean && size == BitWidth(*type_) / 8);
    values_.Append(data, size);
  } else {
    bytes_.Append(data, size);
    AppendOffset();
  }
  ++length_;
}

ArrayData ArrayBuilder::View() const {
  ArrayData array;
  array.type = type_;
  array.length = length_;
  array.offset = 0;
  array.null_count = null_count_;
  const TypeId id = type_->id();
  if (IsUnion(id)) {
    array.buffers[0] = BufferView{values_.data(), values_.size()};
    if (id == TypeId::kDenseUnion) array.buffers[1] = BufferView{bytes_.data(), bytes_.size()};
    array.children.reserve(children_.size());
    for (const auto& child : children_) array.children.push_back(child->View());
    return array;
  }
  if (id != TypeId::kNull && null_count_ > 0) {
    array.buffers[0] = BufferView{validity_.data(), validity_.size()};
  }
  if (id != TypeId::kNull && id != TypeId::kStruct && id != TypeId::kFixedSizeList &&
      id != TypeId::kRunEndEncoded) {
    array.buffers[1] = BufferView{values_.data(), values_.size()};
  }
  if (IsBinaryLike(id) || IsListView(id)) {
    array.buffers[2] = BufferView{bytes_.data(), bytes_.size()};
  }
  if (IsBinaryView(id)) array.variadic_buffers = {BufferView{bytes_.data(), bytes_.size()}};
  array.children.reserve(children_.size());
  for (const auto& child : children_) array.children.push_back(child->View());
  return array;
}

namespace {
// Keeps a finished builder's buffers alive for the arrays that view them.
struct BuilderBuffers {
  std::vector<AlignedBuffer> buffers;
};
}  // namespace

ArrayData ArrayBuilder::Finish(std::vector<MemoryOwner>* owners) {
  ArrayData array = View();
  auto holder = std::make_shared<BuilderBuffers>();
  holder->buffers.push_back(std::move(validity_));
  holder->buffers.push_back(std::move(values_));
  holder->buffers.push_back(std::move(bytes_));
  // Moving an AlignedBuffer keeps its storage, so the views taken above stay valid.
  for (auto& child : children_) child->Finish(owners);
  owners->push_back(std::move(holder));
  validity_ = AlignedBuffer();
  values_ = AlignedBuffer();
  bytes_ = AlignedBuffer();
  Reset();
  return array;
}

std::vector<std::unique_ptr<ArrayBuilder>> MakeBuilders(const Schema& schema) {
  std::vector<std::unique_ptr<ArrayBuilder>> builders;
  builders.reserve(schema.num_fields());
  for (const auto& field : schema.fields()) {
    builders.push_back(std::make_unique<ArrayBuilder>(field.type.get()));
  }
  return builders;
}

RecordBatch FinishBatch(SchemaPtr schema, std::vector<std::unique_ptr<ArrayBuilder>>& builders) {
  std::vector<MemoryOwner> owners;
  std::vector<ArrayData> columns;
  columns.reserve(builders.size());
  const int64_t rows = builders.empty() ? 0 : builders[0]->length();
  for (auto& builder : builders) columns.push_back(builder->Finish(&owners));
  return RecordBatch(std::move(schema), rows, std::move(columns), std::move(owners));
}

}  // namespace sluice
