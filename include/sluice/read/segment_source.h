// Where a reduce task's bytes come from: the sources a PartitionReader reads, in order.
//
// A reduce task reads partitions [start, end) of every map output of a shuffle. The bytes of one
// map output for such a range are contiguous in its data file (partitions are laid back to back),
// and each partition inside them is a complete Arrow IPC stream (an empty partition is zero
// bytes). They reach the reader in one of three ways:
// - MapOutputFile: a data file on a local disk, with Spark's .index file or the offsets the
//   writer returned in memory (MapOutput::offsets) to find the range;
// - SegmentBlock: the bytes already in memory, kept alive by an owner;
// - PushedBlockQueue (pushed_block_queue.h): blocks the host hands over as they arrive, as
//   Spark's ShuffleBlockFetcherIterator does for remote map outputs.
// A map output is the unit of failure: when PartitionReaderOptions::skip_failed_sources is set,
// a map output whose bytes are bad contributes no rows, and the others are read unaffected.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/codec/checksum.h"
#include "sluice/format/record_batch.h"

namespace sluice {

struct MapOutputLayout;
class PushedBlockQueue;

/// One map output's data file on disk, and the partitions to read from it.
struct MapOutputFile {
  /// The data file.
  std::string data_path;
  /// Spark's .index file (P + 1 big-endian offsets). Empty: `offsets` locates the partitions.
  std::string index_path;
  /// P + 1 offsets of the partitions in the data file (MapOutput::offsets); used when
  /// `index_path` is empty.
  std::vector<int64_t> offsets;
  /// The partitions to read, [start_partition, end_partition). One partition by default.
  int32_t start_partition = 0;
  int32_t end_partition = 1;
  /// The algorithm of the checksums to verify each partition's bytes against. kNone (the
  /// default) verifies nothing.
  ChecksumAlgorithm checksum_algorithm = ChecksumAlgorithm::kNone;
  /// Spark's .checksum.<ALGO> file (P big-endian int64). Empty: `checksums` holds them.
  std::string checksum_path;
  /// P checksums (MapOutput::checksums); used when `checksum_path` is empty.
  std::vector<uint32_t> checksums;
  /// Names the map output in errors. Empty: "map output <index in the source list> (<path>)".
  std::string name;

  /// Describes a map output in Spark's layout: `data_path` ending in ".data" and its ".index"
  /// beside it; with `checksum` other than kNone, also its ".checksum.<ALGO>" file.
  static MapOutputFile Spark(std::string data_path, int32_t start_partition, int32_t end_partition,
                             ChecksumAlgorithm checksum = ChecksumAlgorithm::kNone);
  /// Describes a map output by what its writer returned: offsets and checksums in memory, no
  /// index file read. Checksums are verified when the output has them.
  static MapOutputFile FromMapOutput(const MapOutputLayout& output, int32_t start_partition,
                                     int32_t end_partition);
};

/// One map output's bytes for partitions [start_partition, end_partition), in memory: the
/// partitions' IPC streams back to back, as they lie in the data file.
struct SegmentBlock {
  /// The bytes. Batches read from them may point into them (zero-copy), so they must stay
  /// valid while `owner` lives, or, without an owner, until the reader and its batches are gone.
  const uint8_t* data = nullptr;
  int64_t size = 0;
  MemoryOwner owner;
  /// The partitions the bytes hold.
  int32_t start_partition = 0;
  int32_t end_partition = 1;
  /// The byte length of each partition (end - start entries), when known. Empty: the streams
  /// are decoded one after another, each ending at its end-of-stream marker; errors then name
  /// the stream's position in the block instead of its partition.
  std::vector<int64_t> partition_lengths;
  /// Checksums of each partition's bytes (end - start entries) to verify, with their algorithm;
  /// they need `partition_lengths`. Default: nothing to verify.
  ChecksumAlgorithm checksum_algorithm = ChecksumAlgorithm::kNone;
  std::vector<uint32_t> checksums;
  /// Where data[0] lies in the map output's data file: added to byte offsets in errors.
  int64_t base_offset = 0;
  /// Names the map output in errors. Empty: "map output <index in the source list>" (or
  /// "pushed block <n>").
  std::string name;

  /// Describes partitions [start, end) of a whole data file held in memory (`data[0..size)`
  /// is the file, `offsets` its P + 1 partition offsets): the block covers just their bytes,
  /// with lengths from the offsets. Fails when the offsets do not fit the bytes or the range.
  static Result<SegmentBlock> FromDataFile(const uint8_t* data, int64_t size, MemoryOwner owner,
                                           const std::vector<int64_t>& offsets,
                                           int32_t start_partition, int32_t end_partition);
};

/// A source of a PartitionReader: a file, a block in memory, or a queue the host pushes
/// blocks into.
using SegmentSource = std::variant<MapOutputFile, SegmentBlock, std::shared_ptr<PushedBlockQueue>>;

}  // namespace sluice
