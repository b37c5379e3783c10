// Checksums of partition bytes, as Spark writes them in `.checksum.<ALGO>` files.
//
// Spark checksums each partition's bytes in the data file with java.util.zip's Adler32 or
// CRC32, or CRC32C. Sluice computes them with ISA-L's vectorised kernels, and combines them:
// the checksum of A followed by B comes from the checksums of A and B and the length of B, so
// the final merge of spill files never re-reads bytes.
#pragma once

#include <cstdint>
#include <string_view>

#include "sluice/base/result.h"

namespace sluice {

enum class ChecksumAlgorithm : uint8_t { kNone, kAdler32, kCrc32, kCrc32c };

/// Every algorithm that has a checksum file (all but kNone).
inline constexpr ChecksumAlgorithm kChecksumAlgorithms[] = {
    ChecksumAlgorithm::kAdler32, ChecksumAlgorithm::kCrc32, ChecksumAlgorithm::kCrc32c};

/// Returns Spark's name: "ADLER32", "CRC32", "CRC32C", or "NONE".
std::string_view ChecksumAlgorithmName(ChecksumAlgorithm algorithm);

/// Parses a name in any case ("adler32", "CRC32", "crc32c", "none").
Result<ChecksumAlgorithm> ParseChecksumAlgorithm(std::string_view text);

/// Returns the checksum of no bytes: 1 for Adler-32, 0 for CRC32 and CRC32C (and none).
uint32_t EmptyChecksum(ChecksumAlgorithm algorithm);

/// Returns the checksum of `data` continued from `previous` (the checksum of the bytes before
/// it; EmptyChecksum() at the start).
uint32_t UpdateChecksum(ChecksumAlgorithm algorithm, uint32_t previous, const uint8_t* data,
                        int64_t size);

/// Returns the checksum of A followed by B, given checksum(A), checksum(B) and B's length.
uint32_t CombineChecksums(ChecksumAlgorithm algorithm, uint32_t first, uint32_t second,
                          int64_t second_size);

/// Accumulates a checksum over bytes that arrive in pieces.
class Checksum {
 public:
  explicit Checksum(ChecksumAlgorithm algorithm)
      : algorithm_(algorithm), value_(EmptyChecksum(algorithm)) {}

  ChecksumAlgorithm algorithm() const { return algorithm_; }
  uint32_t value() const { return value_; }
  void Update(const uint8_t* data, int64_t size) {
    if (algorithm_ != ChecksumAlgorithm::kNone) {
      value_ = UpdateChecksum(algorithm_, value_, data, size);
    }
  }
  /// Appends bytes whose checksum (alone) is `checksum`, without reading them.
  void Combine(uint32_t checksum, int64_t size) {
    if (algorithm_ != ChecksumAlgorithm::kNone) {
      value_ = CombineChecksums(algorithm_, value_, checksum, size);
    }
  }
  void Reset() { value_ = EmptyChecksum(algorithm_); }

 private:
  ChecksumAlgorithm algorithm_;
  uint32_t value_;
};

}  // namespace sluice
