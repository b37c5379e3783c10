// Spark's Murmur3Hash and XxHash64 expressions over whole key columns of a batch.
//
// The hash of a row is the key columns folded left to right: the hash of column k seeds column
// k + 1, starting from seed 42. Each value is hashed as Spark hashes its SQL type (spark_hash.h):
//
//   boolean                      HashInt(1 or 0)
//   int8, int16, int32, date32   HashInt(value)
//   int64, timestamp (any unit)  HashLong(value)
//   float32                      HashInt(bits), -0.0 as 0.0 and every NaN as 0x7fc00000
//   float64                      HashLong(bits), -0.0 as 0.0 and every NaN as 0x7ff8000000000000
//   decimal128, precision <= 18  HashLong(unscaled value)
//   decimal128, precision > 18   HashBytes(minimal big-endian two's complement of the unscaled
//                                value: Java's BigInteger.toByteArray, 1 to 16 bytes)
//   utf8, binary (and large),
//   fixed_size_binary            HashBytes(value bytes)
//   list, large_list             the elements folded in order
//   struct                       the fields folded in order
//   map                          the entries folded in order, key then value
//   null                         nothing
//
// A null, at the top level or inside a list, struct or map, leaves the running hash unchanged.
//
// Unsigned integers have no Spark type; Sluice hashes them as Spark hashes the type its Parquet
// reader maps them to (Spark 3.2 and later), so a table read by Spark and by a native engine
// partitions the same way: uint8 as ShortType and uint16 as IntegerType, both HashInt of the
// zero-extended value; uint32 as LongType, HashLong of the zero-extended value; uint64 as
// DecimalType(20, 0), HashBytes of BigInteger.toByteArray of the unsigned value (1 to 9 bytes).
//
// The kernels work a column at a time: the per-row state is an array across the batch, and each
// key column updates it in one typed pass (nested columns recurse per child column, visiting
// list elements position by position across all rows).
#pragma once

#include <cstdint>
#include <span>

#include "sluice/base/status.h"
#include "sluice/format/record_batch.h"

namespace sluice {

/// Computes Spark's Murmur3Hash(key columns, seed 42) of every row into `hashes`
/// (batch.num_rows() entries, the int32 hash stored as its bits). Fails when a key column index
/// is out of range or no key is given.
Status Murmur3HashColumns(const RecordBatch& batch, std::span<const int> key_columns,
                          uint32_t* hashes);

/// Computes Spark's xxhash64(key columns) (seed 42) of every row into `hashes`
/// (batch.num_rows() entries). Fails when a key column index is out of range or no key is given.
Status XxHash64Columns(const RecordBatch& batch, std::span<const int> key_columns, int64_t* hashes);

}  // namespace sluice
