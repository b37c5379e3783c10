// XorShiftRandom: Spark's org.apache.spark.util.random.XORShiftRandom, which picks where a map
// task's round-robin repartition starts.
//
// Spark seeds it with the map partition id, hashed into 64 bits with Scala's MurmurHash3.bytesHash
// over the id's 8 big-endian bytes (low half with seed 0x3c074a61, high half seeded with the low
// half), and draws with Marsaglia's xorshift (21, 35, 4). NextInt(bound) is java.util.Random's
// algorithm on top of next(31): a multiply for powers of two, rejection sampling otherwise.
#pragma once

#include <cstdint>

namespace sluice {

class XorShiftRandom {
 public:
  /// Seeds the generator as `new XORShiftRandom(seed)` does.
  explicit XorShiftRandom(int64_t seed);

  /// Returns the next `bits` (1..32) random bits, as Random.next(bits).
  int32_t Next(int bits);

  /// Returns a uniform value in [0, bound) for bound >= 1, as Random.nextInt(bound).
  int32_t NextInt(int32_t bound);

  /// Returns Spark's 64-bit hash of a seed (XORShiftRandom.hashSeed).
  static uint64_t HashSeed(int64_t seed);

 private:
  uint64_t state_;
};

/// Returns the position Spark's round-robin partitioning starts at for a map task:
/// XORShiftRandom(map_partition_id).nextInt(partition_count). The task's first row goes to
/// pmod(start + 1, partition_count).
int32_t RoundRobinStartPosition(int32_t map_partition_id, int32_t partition_count);

}  // namespace sluice
