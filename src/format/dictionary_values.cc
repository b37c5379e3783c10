#include "sluice/format/dictionary_values.h"

#include <cstring>

#include "sluice/base/bit_ops.h"

namespace sluice {

void AppendArrayValue(ArrayBuilder& builder, const ArrayData& source, int64_t row) {
  if (source.IsNull(row)) {
    builder.AppendNull();
    return;
  }
  const DataType& type = *source.type;
  const int64_t position = source.offset + row;
  const uint8_t* values = source.buffers[1].data;
  switch (type.id()) {
    case TypeId::kNull:
      builder.AppendNull();
      return;
    case TypeId::kBoolean:
      builder.Append<bool>(bits::GetBit(values, position));
      return;
    case TypeId::kUtf8:
    case TypeId::kBinary: {
      const auto start = bits::LoadUnaligned<int32_t>(values + position * 4);
      const auto end = bits::LoadUnaligned<int32_t>(values + (position + 1) * 4);
      builder.AppendBytes(source.value_bytes() + start, end - start);
      return;
    }
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary: {
      const auto start = bits::LoadUnaligned<int64_t>(values + position * 8);
      const auto end = bits::LoadUnaligned<int64_t>(values + (position + 1) * 8);
      builder.AppendBytes(source.value_bytes() + start, end - start);
      return;
    }
    case TypeId::kBinaryView:
    case TypeId::kUtf8View: {
      const std::string_view value = source.view_value(row);
      builder.AppendBytes(value.data(), static_cast<int64_t>(value.size()));
      return;
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      int64_t start = 0;
      int64_t end = 0;
      if (type.id() == TypeId::kLargeList) {
        start = bits::LoadUnaligned<int64_t>(values + position * 8);
        end = bits::LoadUnaligned<int64_t>(values + (position + 1) * 8);
      } else {
        start = bits::LoadUnaligned<int32_t>(values + position * 4);
        end = bits::LoadUnaligned<int32_t>(values + (position + 1) * 4);
      }
      for (int64_t element = start; element < end; ++element) {
        AppendArrayValue(builder.child(0), source.children[0], element);
      }
      builder.AppendValid();
      return;
    }
    case TypeId::kListView:
    case TypeId::kLargeListView: {
      const auto [start, size] = ListViewRange(source, row);
      for (int64_t element = start; element < start + size; ++element) {
        AppendArrayValue(builder.child(0), source.children[0], element);
      }
      builder.AppendValid();
      return;
    }
    case TypeId::kFixedSizeList: {
      const int64_t size = type.list_size();
      for (int64_t element = position * size; element < (position + 1) * size; ++element) {
        AppendArrayValue(builder.child(0), source.children[0], element);
      }
      builder.AppendValid();
      return;
    }
    case TypeId::kStruct:
      for (size_t i = 0; i < source.children.size(); ++i) {
        AppendArrayValue(builder.child(i), source.children[i], row);
      }
      builder.AppendValid();
      return;
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion: {
      const auto [child, child_row] = UnionChildRow(source, row);
      const auto c = static_cast<size_t>(child);
      AppendArrayValue(builder.child(c), source.children[c], child_row);
      builder.AppendUnion(c);
      return;
    }
    case TypeId::kRunEndEncoded:
      AppendArrayValue(builder.child(1), source.children[1], RunEndPhysicalIndex(source, row));
      builder.AppendValid();
      return;
    default:
      break;
  }
  // Every other type is fixed-width: its value's little-endian bytes, whatever the width
  // (fixed_size_binary, decimal256 and month_day_nano included).
  const int64_t width = BitWidth(type) / 8;
  builder.AppendBytes(values + position * width, width);
}

namespace {

template <typename Index>
Status GatherValues(const ArrayData& indices, const ArrayData& dictionary, std::string_view path,
                    ArrayBuilder* builder) {
  if (indices.length == 0) return Status::OK();
  const Index* index_values = indices.values<Index>();
  for (int64_t row = 0; row < indices.length; ++row) {
    if (indices.IsNull(row)) {
      builder->AppendNull();
      continue;
    }
    Index index;
    std::memcpy(&index, index_values + row, sizeof(Index));
    // Compared as unsigned so that negative indices (and uint64 ones past int64) fail too.
    if (static_cast<uint64_t>(index) >= static_cast<uint64_t>(dictionary.length)) {
      return Status::Invalid("column '", path, "': row ", row, ": dictionary index ", +index,
                             " is out of range for a dictionary of length ", dictionary.length);
    }
    AppendArrayValue(*builder, dictionary, static_cast<int64_t>(index));
  }
  return Status::OK();
}

}  // namespace

Result<ArrayData> UnpackDictionary(const ArrayData& indices, const ArrayData& dictionary,
                                   std::string_view path, std::vector<MemoryOwner>* owners) {
  ArrayBuilder builder(dictionary.type);
  Status status;
  switch (indices.type->id()) {
    case TypeId::kInt8:
      status = GatherValues<int8_t>(indices, dictionary, path, &builder);
      break;
    case TypeId::kUInt8:
      status = GatherValues<uint8_t>(indices, dictionary, path, &builder);
      break;
    case TypeId::kInt16:
      status = GatherValues<int16_t>(indices, dictionary, path, &builder);
      break;
    case TypeId::kUInt16:
      status = GatherValues<uint16_t>(indices, dictionary, path, &builder);
      break;
    case TypeId::kInt32:
      status = GatherValues<int32_t>(indices, dictionary, path, &builder);
      break;
    case TypeId::kUInt32:
      status = GatherValues<uint32_t>(indices, dictionary, path, &builder);
      break;
    case TypeId::kInt64:
      status = GatherValues<int64_t>(indices, dictionary, path, &builder);
      break;
    case TypeId::kUInt64:
      status = GatherValues<uint64_t>(indices, dictionary, path, &builder);
      break;
    default:
      return Status::Invalid("column '", path,
                             "': dictionary indices must be of an integer type, not ",
                             indices.type->ToString());
  }
  SLUICE_RETURN_NOT_OK(status);
  return builder.Finish(owners);
}

}  // namespace sluice
