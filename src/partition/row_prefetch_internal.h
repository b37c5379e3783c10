// Asks the CPU to start loading the key bytes of rows a partitioner will reach next.
//
// Partitioners work through a batch in chunks of kPartitionChunkRows rows; within a chunk each
// key column is a short sequential pass. The hardware prefetcher ramps up again at the start of
// every such pass, so a batch larger than the cache spends most of its time waiting on memory
// (several times the in-cache cost per row; DEVELOPING.md, "Figures behind the constants"). Issuing
// the loads of rows further on while the current chunk is hashed hides that wait.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sluice/format/array_data.h"
#include "sluice/format/record_batch.h"

namespace sluice::internal {

/// Prefetches the cache lines of [begin, end).
inline void PrefetchBytes(const uint8_t* begin, const uint8_t* end) {
  constexpr int64_t kCacheLine = 64;
  for (const uint8_t* line = begin; line < end; line += kCacheLine) __builtin_prefetch(line);
}

/// Prefetches what hashing rows [first, first + count) of `array` reads at the top level: the
/// validity bits, and the values of a fixed-width array or the offsets and bytes of a
/// binary-like one. Nested arrays are left to the hardware.
inline void PrefetchRows(const ArrayData& array, int64_t first, int64_t count) {
  if (count <= 0) return;
  const int64_t begin = array.offset + first;
  const int64_t end = begin + count;
  if (array.null_count != 0 && array.buffers[0].data != nullptr) {
    PrefetchBytes(array.buffers[0].data + begin / 8, array.buffers[0].data + (end + 7) / 8);
  }
  const TypeId id = array.type->id();
  if (IsBinaryLike(id)) {
    const int64_t offset_width = HasLargeOffsets(id) ? 8 : 4;
    const uint8_t* offsets = array.buffers[1].data;
    PrefetchBytes(offsets + begin * offset_width, offsets + (end + 1) * offset_width);
    // Reading the two bounding offsets costs at most two misses per chunk.
    const int64_t first_byte = offset_width == 8 ? reinterpret_cast<const int64_t*>(offsets)[begin]
                                                 : reinterpret_cast<const int32_t*>(offsets)[begin];
    const int64_t end_byte = offset_width == 8 ? reinterpret_cast<const int64_t*>(offsets)[end]
                                               : reinterpret_cast<const int32_t*>(offsets)[end];
    PrefetchBytes(array.value_bytes() + first_byte, array.value_bytes() + end_byte);
  } else if (IsFixedWidth(id) && id != TypeId::kBoolean) {
    const int64_t width = BitWidth(*array.type) / 8;
    PrefetchBytes(array.buffers[1].data + begin * width, array.buffers[1].data + end * width);
  }
}

/// How far ahead of the rows being partitioned their keys are prefetched. A chunk ahead was too
/// close; 1024-row chunks with keys 8192 rows ahead were the fastest on keys in DRAM
/// (DEVELOPING.md, "Figures behind the constants").
inline constexpr int64_t kPrefetchAheadRows = 8192;

/// Prefetches the key columns of rows [first, first + count) + kPrefetchAheadRows, as far as the
/// batch goes.
inline void PrefetchAhead(const RecordBatch& batch, const std::vector<int>& key_columns,
                          int64_t first, int64_t count) {
  const int64_t ahead = first + kPrefetchAheadRows;
  count = std::min(count, batch.num_rows() - ahead);
  for (const int key : key_columns)
    PrefetchRows(batch.column(static_cast<size_t>(key)), ahead, count);
}

}  // namespace sluice::internal
