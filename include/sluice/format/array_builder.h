// ArrayBuilder: builds one array of any type by appending values, for tests, tools, row
// conversion and anything else that makes arrays from scratch.
//
// A builder owns its buffers. View() returns an ArrayData over them that stays valid until the
// next append or Reset(), which is what a caller that encodes the array at once wants: the
// capacity is kept and reused. Finish() instead hands the buffers to a MemoryOwner so the
// array can outlive the builder.
//
// Nested types: a list or map entry is made by appending its elements to child(0) and then
// calling AppendValid() (or AppendNull()) on the list builder, which closes the entry. A struct
// row is made by appending one value to every child and then calling AppendValid(); AppendNull()
// on a struct appends an empty value to every child itself. A fixed-size list row is its
// list_size elements appended to child(0), then AppendValid(); AppendNull() appends list_size
// empty elements itself. A run-end encoded row is either a new run, its value appended to
// child(1) and then AppendValid(), or AppendValid() alone, which repeats the last run's value;
// AppendNull() and AppendEmptyValue() start a run of their own. Its run ends (child(0)) are
// kept by the builder. A union row is a value appended to one child, then AppendUnion(child):
// a sparse union appends an empty value to every other child itself; AppendNull() is a null
// of the first child (a union has no nulls of its own). A dictionary row is its value appended
// to child(0), the dictionary, then AppendValid() (every row a value of its own), or an index
// into the values appended so far with Append<I>() of the index type's width.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "sluice/base/aligned_buffer.h"
#include "sluice/format/array_data.h"
#include "sluice/format/record_batch.h"

namespace sluice {

class ArrayBuilder {
 public:
  /// Creates a builder for `type`, which must outlive the builder and its arrays.
  explicit ArrayBuilder(const DataType* type);

  const DataType* type() const { return type_; }
  int64_t length() const { return length_; }
  int64_t null_count() const { return null_count_; }
  ArrayBuilder& child(size_t index) { return *children_[index]; }
  size_t num_children() const { return children_.size(); }

  /// Appends a null slot. For fixed-width types the slot is zeroed; a struct appends an empty
  /// value to each child; a list or map appends an empty entry.
  void AppendNull();
  /// Appends a non-null slot whose value is zero, empty, or (struct) empty in every child.
  void AppendEmptyValue();
  /// Closes a union row whose value was just appended to child(`child`).
  void AppendUnion(size_t child);
  /// Closes a non-null list or map entry (elements already appended to child(0)), a struct
  /// row (one value already appended to every child), or a dictionary row (its value already
  /// appended to child(0)).
  void AppendValid();

  /// Appends a fixed-width value; T must match the type's width (bool for boolean).
  template <typename T>
  void Append(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    MarkValid();
    if constexpr (std::is_same_v<T, bool>) {
      AppendBit(value);
    } else {
      values_.Append(&value, sizeof(T));
    }
    ++length_;
  }
  /// Appends a binary-like value, or the little-endian bytes of a fixed-width value (not boolean).
  void AppendBytes(const void* data, int64_t size);
  void AppendString(std::string_view text) { AppendBytes(text.data(), std::ssize(text)); }

  /// Returns a view over the builder's buffers, valid until the next change.
  ArrayData View() const;
  /// Moves the buffers to a new owner, appends it to `owners`, and returns a view over them.
  /// The builder is empty afterwards.
  ArrayData Finish(std::vector<MemoryOwner>* owners);
  /// Empties the builder, keeping its capacity.
  void Reset();

 private:
  void AppendView(const void* data, int64_t size);
  void MarkValid();
  void MarkNull();
  void AppendBit(bool value);
  void AppendOffset();
  void AppendRunEnd();
  void AppendLastDictionaryIndex();

  const DataType* type_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  AlignedBuffer validity_;       // materialised lazily at the first null
  AlignedBuffer values_;         // values, bits, or offsets
  AlignedBuffer bytes_;          // binary-like data, or a list view's sizes
  int64_t list_view_start_ = 0;  // a list view's child length when its last row closed
  int64_t bit_length_ = 0;       // bits used in values_ (boolean)
  std::vector<std::unique_ptr<ArrayBuilder>> children_;
};

/// Builds a RecordBatch from one builder per schema field; the batch owns the buffers.
RecordBatch FinishBatch(SchemaPtr schema, std::vector<std::unique_ptr<ArrayBuilder>>& builders);

/// Makes one builder per field of `schema`.
std::vector<std::unique_ptr<ArrayBuilder>> MakeBuilders(const Schema& schema);

}  // namespace sluice
