#include "sluice/format/dictionary_values.h"

#include <cstring>

#include "sluice/base/bit_ops.h"
#include "sluice/format/type_visitor.h"

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
    case TypeId::kDictionary:
      AppendArrayValue(builder.child(0), source.children[0], DictionaryIndexAt(source, row));
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
  SLUICE_RETURN_NOT_OK(VisitIntegerType(
      indices.type->id(),
      [&](auto index) {
        return GatherValues<typename decltype(index)::type>(indices, dictionary, path, &builder);
      },
      [&] {
        return Status::Invalid("column '", path,
                               "': dictionary indices must be of an integer type, not ",
                               indices.type->ToString());
      }));
  return builder.Finish(owners);
}

}  // namespace sluice

namespace sluice {

TypePtr UnpackedType(const TypePtr& type) {
  if (type->id() == TypeId::kDictionary) return UnpackedType(type->value_type());
  if (!HasDictionary(*type)) return type;
  std::vector<Field> children = type->children();
  for (Field& child : children) child.type = UnpackedType(child.type);
  return WithChildren(*type, std::move(children));
}

SchemaPtr UnpackedSchema(const SchemaPtr& schema) {
  std::vector<Field> fields = schema->fields();
  for (Field& field : fields) field.type = UnpackedType(field.type);
  return std::make_shared<const Schema>(std::move(fields), schema->metadata());
}

namespace {

// `array` (of a type holding dictionaries) as `unpacked`, its dictionaries' values gathered into
// buffers whose owners go to `owners`.
Result<ArrayData> UnpackArray(const ArrayData& array, const DataType* unpacked,
                              const std::string& path, std::vector<MemoryOwner>* owners) {
  if (array.type->id() == TypeId::kDictionary) {
    ArrayData indices = array;
    indices.type = array.type->index_type().get();
    indices.children.clear();
    SLUICE_ASSIGN_OR_RAISE(ArrayData values,
                           UnpackDictionary(indices, array.children[0], path, owners));
    if (HasDictionary(*values.type)) return UnpackArray(values, unpacked, path, owners);
    values.type = unpacked;
    return values;
  }
  ArrayData copy = array;
  copy.type = unpacked;
  if (!HasDictionary(*array.type)) return copy;
  for (size_t i = 0; i < copy.children.size(); ++i) {
    const Field& field = unpacked->children()[i];
    SLUICE_ASSIGN_OR_RAISE(copy.children[i], UnpackArray(array.children[i], field.type.get(),
                                                         path + "." + field.name, owners));
  }
  return copy;
}

}  // namespace

Result<RecordBatch> UnpackDictionaries(const RecordBatch& batch, const SchemaPtr& unpacked) {
  std::vector<ArrayData> columns;
  columns.reserve(batch.num_columns());
  std::vector<MemoryOwner> owners = batch.owners();
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    const Field& field = unpacked->field(c);
    SLUICE_ASSIGN_OR_RAISE(ArrayData column,
                           UnpackArray(batch.column(c), field.type.get(), field.name, &owners));
    columns.push_back(std::move(column));
  }
  return RecordBatch(unpacked, batch.num_rows(), std::move(columns), std::move(owners));
}

}  // namespace sluice
