// PartitionReaderSettings: PartitionReaderOptions from key-value text, the one mapping the C API,
// the CLI and the Spark plugin share, so a setting means the same thing everywhere.
//
//   key                 value                                  option
//   coalesce            true | false                           options.coalesce
//   batch-rows          integer >= 1                           options.target_batch_rows
//   batch-bytes         byte size (e.g. 4MiB)                  options.target_batch_bytes
//   read-ahead          integer >= 0 (batches; 0 = off)        options.read_ahead_batches
//   max-read-bytes      byte size                              options.max_read_bytes
//   pooled-read-bytes   byte size                              options.pooled_read_bytes
//   partitions          integer >= 1                           options.partition_count
//   skip-failed         true | false                           options.skip_failed_sources
//   validate-utf8       true | false                           options.validate_utf8
//   max-block-bytes     byte size                              options.decoder.max_block_bytes
//   checksum            none | adler32 | crc32 | crc32c        verify_checksum
#pragma once

#include <string_view>

#include "sluice/base/status.h"
#include "sluice/codec/checksum.h"
#include "sluice/read/partition_reader.h"

namespace sluice {

/// What the settings configure: the reader's options, and how map outputs given by path are
/// checked.
struct PartitionReaderSettings {
  PartitionReaderOptions options;
  /// Verify each partition against the ".checksum.<ALGO>" file beside its data file (Spark's
  /// layout). Default none: Spark itself does not verify on read, and a checksum costs a pass
  /// over the bytes.
  ChecksumAlgorithm verify_checksum = ChecksumAlgorithm::kNone;
};

/// Applies one setting. Errors name the key and the value.
Status ApplyPartitionReaderSetting(PartitionReaderSettings* settings, std::string_view key,
                                   std::string_view value);

}  // namespace sluice
