// MapWriterSettings: MapWriterOptions from key-value text, the one mapping the CLI, the C API and
// the Spark plugin's spark.sluice.* settings share, so a setting means the same thing everywhere.
//
//   key                 value                                  option
//   partitioning        hash | range | round-robin | single | given   partitioning.kind
//   partitions          integer >= 1                           partitioning.partition_count
//   keys                comma-separated column names or indexes (c3 or 3)  partitioning.key_columns
//   map-id              integer (seeds round-robin)            partitioning.map_partition_id
//   round-robin-mode    spark | row-hash | spark-sorted        partitioning.round_robin_mode
//   sort-orders         comma-separated, each "asc"|"desc" [nulls first|nulls last]
//                                                              partitioning.sort_orders
//   codec               none | lz4 | zstd | zstd:LEVEL             encoding.codec/level
//   compression-threads 0 | 1                                  compression_threads
//   block-rows          integer >= 1                           target_block_rows
//   block-bytes         byte size (e.g. 4MiB)                  target_block_bytes
//   memory-budget       byte size or "unlimited"               memory_limit
//   max-held-bytes      auto | 0 (budget only) | byte size     max_held_bytes
//   spill-dirs          comma-separated directories            spill_directories
//   checksum            none | adler32 | crc32 | crc32c        checksum
//   data-path           path                                   data_path
//   spark-files         true | false                           write_spark_files
//   index-path, checksum-path   paths                          index_path, checksum_path
//   overwrite, sync     true | false                           overwrite, sync
//   validate-utf8       true | false                           validate_utf8
//   flush-bytes         byte size                              file.flush_bytes
#pragma once

#include <string_view>

#include "sluice/base/boolean_text.h"
#include "sluice/base/status.h"
#include "sluice/write/map_writer.h"

namespace sluice {

/// Applies one setting to `options`. Column names in "keys" are resolved against
/// options->schema, which must be set first when names are used. Errors name the key and value.
Status ApplyMapWriterSetting(MapWriterOptions* options, std::string_view key,
                             std::string_view value);

/// Resolves a column given by name or as c<index> / <index> against `schema`.
Result<int> ResolveColumn(const Schema& schema, std::string_view text);

}  // namespace sluice
