// CDataFactory: hand-built Arrow C Data structs for tests, the malformed and unusual inputs a
// producer can send, with release callbacks that count how often they run.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/status.h"
#include "sluice/format/c_data_interface.h"

namespace sluice::testing {

/// Builds ArrowSchema and ArrowArray trees node by node. Everything a struct points to (strings,
/// pointer arrays, buffers) lives as long as the factory. Each node's release callback releases
/// its children and dictionary (as a producer must), counts the call and marks the struct
/// released, wherever the struct was moved to.
class CDataFactory {
 public:
  struct SchemaNode {
    ArrowSchema schema{};
    std::string format;
    std::string name;
    std::string metadata;
    std::vector<ArrowSchema*> children;
    int releases = 0;
  };

  struct ArrayNode {
    ArrowArray array{};
    std::vector<const void*> buffers;
    std::vector<ArrowArray*> children;
    int releases = 0;
  };

  /// Makes a schema node. `children` and `dictionary` are nodes made earlier.
  SchemaNode* Schema(std::string format, std::string name = "", int64_t flags = ARROW_FLAG_NULLABLE,
                     std::vector<SchemaNode*> children = {}, SchemaNode* dictionary = nullptr) {
    auto node = std::make_unique<SchemaNode>();
    node->format = std::move(format);
    node->name = std::move(name);
    for (SchemaNode* child : children) node->children.push_back(&child->schema);
    ArrowSchema& schema = node->schema;
    schema.format = node->format.c_str();
    schema.name = node->name.c_str();
    schema.metadata = nullptr;
    schema.flags = flags;
    schema.n_children = static_cast<int64_t>(node->children.size());
    schema.children = node->children.empty() ? nullptr : node->children.data();
    schema.dictionary = dictionary != nullptr ? &dictionary->schema : nullptr;
    schema.release = ReleaseSchema;
    schema.private_data = node.get();
    schemas_.push_back(std::move(node));
    return schemas_.back().get();
  }

  /// Sets a schema node's metadata from key-value pairs, encoded as the C interface wants.
  static void SetMetadata(SchemaNode* node,
                          const std::vector<std::pair<std::string, std::string>>& pairs) {
    auto append_int32 = [node](int32_t value) {
      node->metadata.append(reinterpret_cast<const char*>(&value), sizeof(value));
    };
    node->metadata.clear();
    append_int32(static_cast<int32_t>(pairs.size()));
    for (const auto& [key, value] : pairs) {
      append_int32(static_cast<int32_t>(key.size()));
      node->metadata.append(key);
      append_int32(static_cast<int32_t>(value.size()));
      node->metadata.append(value);
    }
    node->schema.metadata = node->metadata.data();
  }

  /// Makes an array node. `children` and `dictionary` are nodes made earlier.
  ArrayNode* Array(int64_t length, std::vector<const void*> buffers,
                   std::vector<ArrayNode*> children = {}, int64_t null_count = 0,
                   int64_t offset = 0, ArrayNode* dictionary = nullptr) {
    auto node = std::make_unique<ArrayNode>();
    node->buffers = std::move(buffers);
    for (ArrayNode* child : children) node->children.push_back(&child->array);
    ArrowArray& array = node->array;
    array.length = length;
    array.null_count = null_count;
    array.offset = offset;
    array.n_buffers = static_cast<int64_t>(node->buffers.size());
    array.n_children = static_cast<int64_t>(node->children.size());
    array.buffers = node->buffers.empty() ? nullptr : node->buffers.data();
    array.children = node->children.empty() ? nullptr : node->children.data();
    array.dictionary = dictionary != nullptr ? &dictionary->array : nullptr;
    array.release = ReleaseArray;
    array.private_data = node.get();
    arrays_.push_back(std::move(node));
    return arrays_.back().get();
  }

  /// Copies `values` into storage owned by the factory and returns its address.
  template <typename T>
  const void* Buffer(const std::vector<T>& values) {
    const size_t size = values.size() * sizeof(T);
    auto storage = std::make_unique<uint64_t[]>(size / 8 + 1);  // 8-byte aligned
    if (size > 0) std::memcpy(storage.get(), values.data(), size);
    buffers_.push_back(std::move(storage));
    return buffers_.back().get();
  }

  /// Returns an LSB-first bitmap with bit i set when `bits[i]` is true.
  const void* Bitmap(const std::vector<bool>& bits) {
    std::vector<uint8_t> bytes((bits.size() + 7) / 8, 0);
    for (size_t i = 0; i < bits.size(); ++i) {
      if (bits[i]) bytes[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    }
    return Buffer(bytes);
  }

  /// Returns the concatenation of `strings` and fills `offsets` with their int32 offsets.
  const void* Strings(const std::vector<std::string>& strings, const void** offsets) {
    std::vector<int32_t> positions{0};
    std::string bytes;
    for (const auto& text : strings) {
      bytes += text;
      positions.push_back(static_cast<int32_t>(bytes.size()));
    }
    *offsets = Buffer(positions);
    return Buffer(std::vector<char>(bytes.begin(), bytes.end()));
  }

 private:
  static void ReleaseSchema(ArrowSchema* schema) {
    auto* node = static_cast<SchemaNode*>(schema->private_data);
    for (ArrowSchema* child : node->children) {
      if (child->release != nullptr) child->release(child);
    }
    if (schema->dictionary != nullptr && schema->dictionary->release != nullptr) {
      schema->dictionary->release(schema->dictionary);
    }
    ++node->releases;
    schema->release = nullptr;
  }

  static void ReleaseArray(ArrowArray* array) {
    auto* node = static_cast<ArrayNode*>(array->private_data);
    for (ArrowArray* child : node->children) {
      if (child->release != nullptr) child->release(child);
    }
    if (array->dictionary != nullptr && array->dictionary->release != nullptr) {
      array->dictionary->release(array->dictionary);
    }
    ++node->releases;
    array->release = nullptr;
  }

  std::deque<std::unique_ptr<SchemaNode>> schemas_;
  std::deque<std::unique_ptr<ArrayNode>> arrays_;
  std::deque<std::unique_ptr<uint64_t[]>> buffers_;
};

/// Succeeds when `status` failed and its message contains every one of `parts`.
inline ::testing::AssertionResult FailsWith(const Status& status,
                                            std::initializer_list<std::string_view> parts) {
  if (status.ok()) return ::testing::AssertionFailure() << "the status is OK";
  for (std::string_view part : parts) {
    if (status.message().find(part) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "the message \"" << status.message() << "\" does not contain \"" << part << "\"";
    }
  }
  return ::testing::AssertionSuccess() << status.ToString();
}

}  // namespace sluice::testing
