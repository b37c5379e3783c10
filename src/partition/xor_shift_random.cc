#include "sluice/partition/xor_shift_random.h"

#include <bit>

#include "sluice/base/check.h"
#include "sluice/partition/spark_hash.h"

namespace sluice {

namespace {

// Scala's MurmurHash3.arraySeed, the seed bytesHash(data) uses.
constexpr uint32_t kScalaArraySeed = 0x3c074a61u;

// Scala's MurmurHash3.bytesHash for exactly 8 bytes: two little-endian words, no tail, then
// finalizeHash(h, 8). Its mix/mixLast/avalanche steps are the same arithmetic as Spark's
// Murmur3_x86_32.
uint32_t ScalaBytesHash8(const uint8_t bytes[8], uint32_t seed) {
  return MurmurHash3Spark::HashBytes(bytes, 8, seed);
}

}  // namespace

uint64_t XorShiftRandom::HashSeed(int64_t seed) {
  // ByteBuffer.putLong writes big-endian.
  uint8_t bytes[8];
  const auto value = static_cast<uint64_t>(seed);
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(value >> (56 - 8 * i));
  const uint32_t low_bits = ScalaBytesHash8(bytes, kScalaArraySeed);
  const uint32_t high_bits = ScalaBytesHash8(bytes, low_bits);
  return (static_cast<uint64_t>(high_bits) << 32) | low_bits;
}

XorShiftRandom::XorShiftRandom(int64_t seed) : state_(HashSeed(seed)) {}

int32_t XorShiftRandom::Next(int bits) {
  uint64_t next = state_ ^ (state_ << 21);
  next ^= next >> 35;  // Scala's >>> on a Long: logical shift
  next ^= next << 4;
  state_ = next;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  return static_cast<int32_t>(static_cast<uint32_t>(next & mask));
}

int32_t XorShiftRandom::NextInt(int32_t bound) {
  SLUICE_DCHECK(bound >= 1);
  int32_t r = Next(31);
  const int32_t m = bound - 1;
  if ((bound & m) == 0) {
    // A power of two: the high bits of r, as (int)((bound * (long)r) >> 31).
    return static_cast<int32_t>((static_cast<int64_t>(bound) * r) >> 31);
  }
  // Rejection sampling: retry while u lands in the last, incomplete run of `bound` values, which
  // Java detects as int overflow of u - r + m.
  for (int32_t u = r;; u = Next(31)) {
    r = u % bound;
    const int64_t overflow_check = static_cast<int64_t>(u) - r + m;
    if (overflow_check <= INT32_MAX) break;
  }
  return r;
}

int32_t RoundRobinStartPosition(int32_t map_partition_id, int32_t partition_count) {
  XorShiftRandom random(map_partition_id);
  return random.NextInt(partition_count);
}

}  // namespace sluice
