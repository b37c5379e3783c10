#include "value_formatter.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "sluice/base/bit_ops.h"
#include "sluice/base/half_float.h"

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

// A count of `unit` split into whole days, the second of the day and the fraction of a second;
// `digits` is the fraction's width (0 for seconds).
struct TimeOfDay {
  int64_t days = 0;
  int64_t second_of_day = 0;
  int64_t fraction = 0;
  int digits = 0;
};

TimeOfDay SplitTime(int64_t value, TimeUnit unit) {
  static constexpr int kDigits[] = {0, 3, 6, 9};
  const int64_t per_second = TicksPerSecond(unit);
  TimeOfDay time;
  time.digits = kDigits[static_cast<int>(unit)];
  int64_t seconds = value / per_second;
  time.fraction = value % per_second;
  if (time.fraction < 0) {
    time.fraction += per_second;
    seconds -= 1;
  }
  time.days = seconds / 86400;
  time.second_of_day = seconds % 86400;
  if (time.second_of_day < 0) {
    time.second_of_day += 86400;
    time.days -= 1;
  }
  return time;
}

// "HH:MM:SS" with the fraction of the unit ("12:00:01.500").
std::string FormatClock(const TimeOfDay& time) {
  char text[64];
  std::snprintf(text, sizeof(text), "%02d:%02d:%02d", static_cast<int>(time.second_of_day / 3600),
                static_cast<int>(time.second_of_day / 60 % 60),
                static_cast<int>(time.second_of_day % 60));
  std::string out = text;
  if (time.digits > 0) {
    std::snprintf(text, sizeof(text), ".%0*" PRId64, time.digits, time.fraction);
    out += text;
  }
  return out;
}

std::string FormatTimestamp(int64_t value, TimeUnit unit) {
  const TimeOfDay time = SplitTime(value, unit);
  return FormatDate(time.days) + " " + FormatClock(time);
}

// A time of day; a value outside one day (Arrow leaves that undefined) is shown as the count.
std::string FormatTime(int64_t value, TimeUnit unit) {
  const TimeOfDay time = SplitTime(value, unit);
  if (time.days != 0) return std::to_string(value) + std::string(TimeUnitName(unit));
  return FormatClock(time);
}

// date64: the date, and the time when the value is not a whole day.
std::string FormatDate64(int64_t millis) {
  const TimeOfDay time = SplitTime(millis, TimeUnit::kMilli);
  if (time.second_of_day == 0 && time.fraction == 0) return FormatDate(time.days);
  return FormatTimestamp(millis, TimeUnit::kMilli);
}

// A decimal of `byte_width` (4, 8, 16 or 32) little-endian two's-complement bytes.
std::string FormatDecimal(const uint8_t* bytes, int64_t byte_width, int32_t scale) {
  // The magnitude as 32-bit limbs, least significant first, divided by 10 digit by digit.
  uint32_t limbs[8] = {};
  const auto limb_count = static_cast<size_t>(byte_width / 4);
  std::memcpy(limbs, bytes, static_cast<size_t>(byte_width));
  const bool negative = (limbs[limb_count - 1] >> 31) != 0;
  if (negative) {  // two's complement negation: invert, add one
    uint64_t carry = 1;
    for (size_t i = 0; i < limb_count; ++i) {
      const uint64_t sum = static_cast<uint64_t>(~limbs[i]) + carry;
      limbs[i] = static_cast<uint32_t>(sum);
      carry = sum >> 32;
    }
  }
  std::string digits;
  bool nonzero = true;
  while (nonzero || digits.empty()) {
    uint64_t remainder = 0;
    nonzero = false;
    for (size_t i = limb_count; i-- > 0;) {
      const uint64_t current = (remainder << 32) | limbs[i];
      limbs[i] = static_cast<uint32_t>(current / 10);
      remainder = current % 10;
      nonzero |= limbs[i] != 0;
    }
    digits.insert(digits.begin(), static_cast<char>('0' + remainder));
  }
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
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256: {
      const int64_t width = BitWidth(type) / 8;
      return FormatDecimal(array.buffers[1].data + (array.offset + row) * width, width,
                           type.scale());
    }
    case TypeId::kFloat16:
      return FormatDouble(HalfToFloat(array.values<uint16_t>()[row]));
    case TypeId::kDate64:
      return FormatDate64(array.values<int64_t>()[row]);
    case TypeId::kTime32:
      return FormatTime(array.values<int32_t>()[row], type.time_unit());
    case TypeId::kTime64:
      return FormatTime(array.values<int64_t>()[row], type.time_unit());
    case TypeId::kDuration:
      return std::to_string(array.values<int64_t>()[row]) +
             std::string(TimeUnitName(type.time_unit()));
    case TypeId::kIntervalYearMonth:
      return std::to_string(array.values<int32_t>()[row]) + "M";
    case TypeId::kIntervalDayTime: {
      const uint8_t* slot = array.buffers[1].data + (array.offset + row) * 8;
      return std::to_string(bits::LoadUnaligned<int32_t>(slot)) + "d" +
             std::to_string(bits::LoadUnaligned<int32_t>(slot + 4)) + "ms";
    }
    case TypeId::kIntervalMonthDayNano: {
      const uint8_t* slot = array.buffers[1].data + (array.offset + row) * 16;
      return std::to_string(bits::LoadUnaligned<int32_t>(slot)) + "M" +
             std::to_string(bits::LoadUnaligned<int32_t>(slot + 4)) + "d" +
             std::to_string(bits::LoadUnaligned<int64_t>(slot + 8)) + "ns";
    }
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
    case TypeId::kBinaryView:
    case TypeId::kUtf8View: {
      const std::string_view value = array.view_value(row);
      if (type.id() == TypeId::kBinaryView) {
        return FormatHex(reinterpret_cast<const uint8_t*>(value.data()),
                         static_cast<int64_t>(value.size()));
      }
      return std::string(value);
    }
    case TypeId::kList:
      return FormatItems(array.children[0], array.value_offsets<int32_t>(), row);
    case TypeId::kLargeList:
      return FormatItems(array.children[0], array.value_offsets<int64_t>(), row);
    case TypeId::kListView:
    case TypeId::kLargeListView: {
      const auto [offset, size] = ListViewRange(array, row);
      const int64_t bounds[2] = {offset, offset + size};
      return FormatItems(array.children[0], bounds, 0);
    }
    case TypeId::kFixedSizeList: {
      const int64_t size = type.list_size();
      const int64_t bounds[2] = {(array.offset + row) * size, (array.offset + row + 1) * size};
      return FormatItems(array.children[0], bounds, 0);
    }
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
    case TypeId::kRunEndEncoded:
      return FormatValue(array.children[1], RunEndPhysicalIndex(array, row));
    case TypeId::kDictionary:
      return FormatValue(array.children[0], DictionaryIndexAt(array, row));
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion: {
      const auto [child, child_row] = UnionChildRow(array, row);
      return FormatValue(array.children[static_cast<size_t>(child)], child_row);
    }
  }
  return "?";
}

}  // namespace sluice::cli
