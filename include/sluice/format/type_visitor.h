// Dispatch on a type id to code templated on the C type that stores the type's values.
//
// Many kernels do the same thing for every integer (or every number) and differ only in the C
// type they read: dictionary indices, run ends, range keys. The switch from TypeId to that C type
// is written here once; each kernel passes a generic lambda that receives the type as
// std::type_identity<T> and says what it does with a T, and an `otherwise` for the ids it does
// not take. (Switches whose cases mean different things per type, such as Spark's hash of each
// type, stay where their meaning is.)
#pragma once

#include <cstdint>
#include <type_traits>

#include "sluice/format/data_type.h"

namespace sluice {

/// Returns `visit(std::type_identity<T>{})`, T the C type of integer type `id` (int8 to uint64),
/// or `otherwise()` for any other id.
template <typename Visit, typename Otherwise>
decltype(auto) VisitIntegerType(TypeId id, Visit&& visit, Otherwise&& otherwise) {
  switch (id) {
    case TypeId::kInt8:
      return visit(std::type_identity<int8_t>{});
    case TypeId::kInt16:
      return visit(std::type_identity<int16_t>{});
    case TypeId::kInt32:
      return visit(std::type_identity<int32_t>{});
    case TypeId::kInt64:
      return visit(std::type_identity<int64_t>{});
    case TypeId::kUInt8:
      return visit(std::type_identity<uint8_t>{});
    case TypeId::kUInt16:
      return visit(std::type_identity<uint16_t>{});
    case TypeId::kUInt32:
      return visit(std::type_identity<uint32_t>{});
    case TypeId::kUInt64:
      return visit(std::type_identity<uint64_t>{});
    default:
      return otherwise();
  }
}

/// As VisitIntegerType, for the types a run-end encoded array's run ends may have: int16, int32
/// and int64.
template <typename Visit, typename Otherwise>
decltype(auto) VisitRunEndType(TypeId id, Visit&& visit, Otherwise&& otherwise) {
  switch (id) {
    case TypeId::kInt16:
      return visit(std::type_identity<int16_t>{});
    case TypeId::kInt32:
      return visit(std::type_identity<int32_t>{});
    case TypeId::kInt64:
      return visit(std::type_identity<int64_t>{});
    default:
      return otherwise();
  }
}

/// As VisitIntegerType, for every type whose values are one C number each, ordered as that
/// number: the integers, float32 and float64, and the types stored as an int32 (date32, time32,
/// interval year-month, decimal32) or an int64 (date64, time64, timestamp, duration,
/// decimal64).
template <typename Visit, typename Otherwise>
decltype(auto) VisitNumberType(TypeId id, Visit&& visit, Otherwise&& otherwise) {
  switch (id) {
    case TypeId::kDate32:
    case TypeId::kTime32:
    case TypeId::kIntervalYearMonth:
    case TypeId::kDecimal32:
      return visit(std::type_identity<int32_t>{});
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kDecimal64:
      return visit(std::type_identity<int64_t>{});
    case TypeId::kFloat32:
      return visit(std::type_identity<float>{});
    case TypeId::kFloat64:
      return visit(std::type_identity<double>{});
    default:
      return VisitIntegerType(id, visit, otherwise);
  }
}

}  // namespace sluice
