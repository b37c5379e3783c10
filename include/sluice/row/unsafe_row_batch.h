// UnsafeRowBatch: Spark UnsafeRows written back to back, and where each one starts.
//
// ColumnarToRowConverter fills one; the JVM side reads its bytes in place (one buffer, one
// offset and one size per row). With RowFraming::kSizePrefixed each row is preceded by its size
// as a big-endian int32, exactly as Spark's UnsafeRowSerializer writes a shuffle stream, so the
// bytes can go straight into a Spark shuffle block. SplitFramedRows reads such a stream back
// into (pointer, size) pairs for RowToColumnarConverter without copying.
#pragma once

#include <cstdint>
#include <vector>

#include "sluice/base/aligned_buffer.h"
#include "sluice/base/status.h"

namespace sluice {

/// How rows are laid out one after another in an UnsafeRowBatch.
enum class RowFraming : uint8_t {
  /// Row bytes only, back to back; each row's size is a multiple of 8, so rows stay aligned.
  kNone,
  /// A big-endian int32 size before each row (Spark's UnsafeRowSerializer stream format).
  kSizePrefixed,
};

/// Rows in Spark's UnsafeRow format in one buffer.
struct UnsafeRowBatch {
  /// The rows (and their size prefixes, when framed), back to back.
  AlignedBuffer bytes;
  /// The position in `bytes` of each row's first byte (after its size prefix, when framed).
  std::vector<int64_t> offsets;
  /// The size of each row in bytes, its prefix not included.
  std::vector<int32_t> sizes;

  int64_t num_rows() const { return static_cast<int64_t>(sizes.size()); }
  /// Returns the first byte of row `index`.
  const uint8_t* row(int64_t index) const { return bytes.data() + offsets[index]; }
  /// Fills `rows` with a pointer to every row, the form RowToColumnarConverter::Append takes.
  void RowPointers(std::vector<const uint8_t*>* rows) const;
  /// Forgets every row, keeping the capacity.
  void Clear();
};

/// Splits a size-prefixed stream (big-endian int32 size, then that many bytes, repeated) into a
/// pointer and a size per row, appended to `rows` and `sizes`. Returns Corrupt naming the byte
/// offset when a size is negative or runs past the end of the data.
Status SplitFramedRows(const uint8_t* data, int64_t size, std::vector<const uint8_t*>* rows,
                       std::vector<int32_t>* sizes);

}  // namespace sluice
