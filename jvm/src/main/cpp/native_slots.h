// The slots of the long[] results that cross JNI, by name. SluiceNative.java defines them; the
// build runs `javac -h` on it, and the header it writes (with every native method's C
// signature, which the compiler then checks against the definitions) is included here.
#pragma once

#include "org_apache_spark_shuffle_sluice_SluiceNative.h"

namespace sluice::jni {

#define SLUICE_NATIVE_SLOT(name) \
  static_cast<int>(org_apache_spark_shuffle_sluice_SluiceNative_##name)

/// writerNewPage's pageOut.
inline constexpr int kPageNumber = SLUICE_NATIVE_SLOT(PAGE_NUMBER);
inline constexpr int kPageAddress = SLUICE_NATIVE_SLOT(PAGE_ADDRESS);
inline constexpr int kPageCapacity = SLUICE_NATIVE_SLOT(PAGE_CAPACITY);
inline constexpr int kPageSlots = SLUICE_NATIVE_SLOT(PAGE_SLOTS);

/// writerFinish's metrics.
inline constexpr int kWriteOutputBytes = SLUICE_NATIVE_SLOT(WRITE_OUTPUT_BYTES);
inline constexpr int kWriteSpills = SLUICE_NATIVE_SLOT(WRITE_SPILLS);
inline constexpr int kWriteSpillBytes = SLUICE_NATIVE_SLOT(WRITE_SPILL_BYTES);
inline constexpr int kWriteBlocks = SLUICE_NATIVE_SLOT(WRITE_BLOCKS);
inline constexpr int kWriteRows = SLUICE_NATIVE_SLOT(WRITE_ROWS);
inline constexpr int kWriteWriteNanos = SLUICE_NATIVE_SLOT(WRITE_WRITE_NANOS);
inline constexpr int kWriteTotalNanos = SLUICE_NATIVE_SLOT(WRITE_TOTAL_NANOS);
inline constexpr int kWriteMetricSlots = SLUICE_NATIVE_SLOT(WRITE_METRIC_SLOTS);

/// readerNextRows's out.
inline constexpr int kRowsBase = SLUICE_NATIVE_SLOT(ROWS_BASE);
inline constexpr int kRowsOffsets = SLUICE_NATIVE_SLOT(ROWS_OFFSETS);
inline constexpr int kRowsSizes = SLUICE_NATIVE_SLOT(ROWS_SIZES);
inline constexpr int kRowsHeldBytes = SLUICE_NATIVE_SLOT(ROWS_HELD_BYTES);
inline constexpr int kRowsSlots = SLUICE_NATIVE_SLOT(ROWS_SLOTS);
/// readerNextBatch's out.
inline constexpr int kBatchArray = SLUICE_NATIVE_SLOT(BATCH_ARRAY);
inline constexpr int kBatchHeldBytes = SLUICE_NATIVE_SLOT(BATCH_HELD_BYTES);
inline constexpr int kBatchSlots = SLUICE_NATIVE_SLOT(BATCH_SLOTS);

inline constexpr int kReaderNeedsBlock = SLUICE_NATIVE_SLOT(READER_NEEDS_BLOCK);
inline constexpr int kReaderEnd = SLUICE_NATIVE_SLOT(READER_END);

/// readerMetrics's metrics.
inline constexpr int kReadSegments = SLUICE_NATIVE_SLOT(READ_SEGMENTS);
inline constexpr int kReadBlocks = SLUICE_NATIVE_SLOT(READ_BLOCKS);
inline constexpr int kReadRows = SLUICE_NATIVE_SLOT(READ_ROWS);
inline constexpr int kReadDecompressedBytes = SLUICE_NATIVE_SLOT(READ_DECOMPRESSED_BYTES);
inline constexpr int kReadDecompressNanos = SLUICE_NATIVE_SLOT(READ_DECOMPRESS_NANOS);
inline constexpr int kReadMetricSlots = SLUICE_NATIVE_SLOT(READ_METRIC_SLOTS);

#undef SLUICE_NATIVE_SLOT

}  // namespace sluice::jni
