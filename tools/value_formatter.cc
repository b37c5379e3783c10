#include "value_formatter.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "sluice/base/bit_ops.h"

namespace sluice::cli {

namespace {

// Lists and binary values longer than this are cut: a table cell is for a glance.
constexpr int64_t kMaxListItems = 8;
constexpr int64_t kMaxBinaryBytes = 16;

std::string FormatDate(int64_t days) {
  const std::chrono::year_month_day date{std::chrono::sys_days{std::chrono::days{days}}};
  char text[32];
  std::snprintf(text, sizeof(text), "%04d-%02u-%02u", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()));
  return text;
}

std::string FormatTimestamp(int64_t value, TimeUnit unit) {
  int64_t per_second = 1;
  int digits = 0;
  switch (unit) {
    case TimeUnit::kSecond:
      break;
    case TimeUnit::kMilli:
      per_second = 1000;
      digits = 3;
      break;
    case TimeUnit::kMicro:
      per_second = 1000000;
      digits = 6;
      break;
    case TimeUnit::kNano:
      per_second = 1000000000;
      digits = 9;
      break;
  }
  int64_t seconds = value / per_second;
  int64_t fraction = value % per_second;
  if (fraction < 0) {
    fraction += per_second;
    seconds -= 1;
  }
  int64_t days = seconds / 86400;
  int64_t second_of_day = seconds % 86400;
  if (second_of_day < 0) {
    second_of_day += 86400;
    days -= 1;
  }
  char text[64];
  std::snprintf(text, sizeof(text), "%s %02d:%02d:%02d", FormatDate(days).c_str(),
                static_cast<int>(second_of_day / 3600), static_cast<int>(second_of_day / 60 % 60),
                static_cast<int>(second_of_day % 60));
  std::string out = text;
  if (digits > 0) {
    std::snprintf(text, sizeof(text), ".%0*" PRId64, digits, fraction);
    out += text;
  }
  return out;
}

std::string FormatDecimal(const uint8_t* bytes, int32_t scale) {
  __int128 value;
  std::memcpy(&value, bytes, sizeof(value));
  const bool negative = value < 0;
  unsigned __int128 magnitude =
      negative ? -static_cast<unsigned __int128>(value) : static_cast<unsigned __int128>(value);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude != 0);
  if (scale > 0) {
    if (static_cast<int32_t>(digits.size()) <= scale) {
      digits.insert(0, static_cast<size_t>(scale) - digits.size() + 1, '0');
    }
    digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  } else if (scale < 0) {
    digits.append(static_cast<size_t>(-scale), '0');
  }
  return negative ? "-" + digits : digits;
}

std::string FormatHex(const uint8_t* bytes, int64_t length) {
  std::string out = "0x";
  char pair[4];
  for (int64_t i = 0; i < std::min(length, kMaxBinaryBytes); ++i) {
    std::snprintf(pair, sizeof(pair), "%02x", bytes[i]);
    out += pair;
  }
  if (length > kMaxBinaryBytes) out += "...";
  return out;
}

std::string FormatDouble(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", value);
  return text;
}

template <typename Offset>
std::string FormatItems(const ArrayData& child, const Offset* offsets, int64_t row) {
  const int64_t begin = offsets[row];
  const int64_t end = offsets[row + 1];
  std::string out = "[";
  for (int64_t i = begin; i < end && i - begin < kMaxListItems; ++i) {
    if (i > begin) out += ", ";
    out += FormatValue(child, i);
  }
  if (end - begin > kMaxListItems) out += ", ...";
  return out + "]";
}

}  // namespace

std::string FormatValue(const ArrayData& array, int64_t row) {
  if (array.IsNull(row)) return "null";
  const DataType& type = *array.type;
  switch (type.id()) {
    case TypeId::kNull:
      return "null";
    case TypeId::kBoolean:
      return bits::GetBit(array.buffers[1].data, array.offset + row) ? "true" : "false";
    case TypeId::kInt8:
      return std::to_string(array.values<int8_t>()[row]);
    case TypeId::kInt16:
      return std::to_string(array.values<int16_t>()[row]);
    case TypeId::kInt32:
      return std::to_string(array.values<int32_t>()[row]);
    case TypeId::kInt64:
      return std::to_string(array.values<int64_t>()[row]);
    case TypeId::kUInt8:
      return std::to_string(array.values<uint8_t>()[row]);
    case TypeId::kUInt16:
      return std::to_string(array.values<uint16_t>()[row]);
    case TypeId::kUInt32:
      return std::to_string(array.values<uint32_t>()[row]);
    case TypeId::kUInt64:
      return std::to_string(array.values<uint64_t>()[row]);
    case TypeId::kFloat32:
      return FormatDouble(array.values<float>()[row]);
    case TypeId::kFloat64:
      return FormatDouble(array.values<double>()[row]);
    case TypeId::kDate32:
      return FormatDate(array.values<int32_t>()[row]);
    case TypeId::kTimestamp:
      return FormatTimestamp(array.values<int64_t>()[row], type.time_unit());
    case TypeId::kDecimal128:
      return FormatDecimal(array.buffers[1].data + (array.offset + row) * 16, type.scale());
    case TypeId::kUtf8:
    case TypeId::kBinary: {
      const int32_t* offsets = array.value_offsets<int32_t>();
      const char* bytes = reinterpret_cast<const char*>(array.value_bytes()) + offsets[row];
      const int64_t length = offsets[row + 1] - offsets[row];
      if (type.id() == TypeId::kBinary) {
        return FormatHex(reinterpret_cast<const uint8_t*>(bytes), length);
      }
      return std::string(bytes, static_cast<size_t>(length));
    }
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary: {
      const int64_t* offsets = array.value_offsets<int64_t>();
      const char* bytes = reinterpret_cast<const char*>(array.value_bytes()) + offsets[row];
      const int64_t length = offsets[row + 1] - offsets[row];
      if (type.id() == TypeId::kLargeBinary) {
        return FormatHex(reinterpret_cast<const uint8_t*>(bytes), length);
      }
      return std::string(bytes, static_cast<size_t>(length));
    }
    case TypeId::kFixedSizeBinary:
      return FormatHex(array.buffers[1].data + (array.offset + row) * type.byte_width(),
                       type.byte_width());
    case TypeId::kList:
      return FormatItems(array.children[0], array.value_offsets<int32_t>(), row);
    case TypeId::kLargeList:
      return FormatItems(array.children[0], array.value_offsets<int64_t>(), row);
    case TypeId::kStruct: {
      std::string out = "{";
      for (size_t i = 0; i < array.children.size(); ++i) {
        if (i > 0) out += ", ";
        out += type.children()[i].name + ": " + FormatValue(array.children[i], row);
      }
      return out + "}";
    }
    case TypeId::kMap: {
      const int32_t* offsets = array.value_offsets<int32_t>();
      const ArrayData& entries = array.children[0];
      std::string out = "{";
      for (int64_t i = offsets[row]; i < offsets[row + 1]; ++i) {
        if (i > offsets[row]) out += ", ";
        if (i - offsets[row] >= kMaxListItems) {
          out += "...";
          break;
        }
        out += FormatValue(entries.children[0], i) + ": " + FormatValue(entries.children[1], i);
      }
      return out + "}";
    }
  }
  return "?";
}

}  // namespace sluice::cli
