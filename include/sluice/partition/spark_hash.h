// Spark's two row hash functions, bit for bit, as scalar building blocks.
//
// Spark partitions a shuffle by Murmur3Hash(keys, seed 42) and offers xxhash64(keys, seed 42) as
// a SQL function; both fold a row's values left to right, the hash of one value being the seed of
// the next. Each value is hashed with one of three primitives, chosen by its SQL type:
//   - HashInt:   boolean (1/0), byte, short, int, date, float bits;
//   - HashLong:  long, timestamp, double bits, decimal of precision <= 18 (unscaled value);
//   - HashBytes: string, binary, decimal of precision > 18 (BigInteger.toByteArray bytes).
// Sluice's column kernels (column_hash.h) apply these to whole columns; the primitives are here so
// that tests, tools and row-based code can compute the same values for one value at a time.
//
// MurmurHash3Spark::HashBytes is not standard murmur3: Spark's Murmur3_x86_32.hashUnsafeBytes mixes
// each tail byte (after the 4-byte words) on its own, sign-extended, like a full word. Spark keeps
// that for compatibility with data bucketed before 2.3, and so do we.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace sluice {

/// Spark's Murmur3_x86_32 (org.apache.spark.unsafe.hash.Murmur3_x86_32), 32-bit state.
struct MurmurHash3Spark {
  using State = uint32_t;
  /// The seed of Spark's Murmur3Hash expression and of HashPartitioning.
  static constexpr uint32_t kSeed = 42;

  /// Hashes a 32-bit value (Spark's hashInt).
  static uint32_t HashInt(int32_t value, uint32_t seed) {
    return Finalize(MixH1(seed, MixK1(static_cast<uint32_t>(value))), 4);
  }

  /// Hashes a 64-bit value, low word first (Spark's hashLong).
  static uint32_t HashLong(int64_t value, uint32_t seed) {
    const auto bits = static_cast<uint64_t>(value);
    uint32_t h1 = MixH1(seed, MixK1(static_cast<uint32_t>(bits)));
    h1 = MixH1(h1, MixK1(static_cast<uint32_t>(bits >> 32)));
    return Finalize(h1, 8);
  }

  /// Hashes bytes as Spark's hashUnsafeBytes does: little-endian 4-byte words, then each remaining
  /// byte alone as a sign-extended int.
  static uint32_t HashBytes(const uint8_t* data, int64_t length, uint32_t seed) {
    uint32_t h1 = seed;
    const int64_t aligned = length & ~int64_t{3};
    for (int64_t i = 0; i < aligned; i += 4) {
      uint32_t word;
      std::memcpy(&word, data + i, sizeof(word));
      h1 = MixH1(h1, MixK1(word));
    }
    for (int64_t i = aligned; i < length; ++i) {
      // Spark reads each tail byte as a Java byte: sign-extended on purpose.
      const auto signed_byte = static_cast<int32_t>(
          static_cast<int8_t>(data[i]));  // NOLINT(bugprone-signed-char-misuse)
      h1 = MixH1(h1, MixK1(static_cast<uint32_t>(signed_byte)));
    }
    // Spark passes the length as a Java int.
    return Finalize(h1, static_cast<uint32_t>(length));
  }

  static uint32_t MixK1(uint32_t k1) {
    k1 *= 0xcc9e2d51u;
    k1 = std::rotl(k1, 15);
    return k1 * 0x1b873593u;
  }
  static uint32_t MixH1(uint32_t h1, uint32_t k1) {
    h1 ^= k1;
    h1 = std::rotl(h1, 13);
    return h1 * 5 + 0xe6546b64u;
  }
  static uint32_t Finalize(uint32_t h1, uint32_t length) {
    h1 ^= length;
    h1 ^= h1 >> 16;
    h1 *= 0x85ebca6bu;
    h1 ^= h1 >> 13;
    h1 *= 0xc2b2ae35u;
    h1 ^= h1 >> 16;
    return h1;
  }
};

/// Spark's XXH64 (org.apache.spark.sql.catalyst.expressions.XXH64), 64-bit state. HashInt and
/// HashLong equal standard XXH64 over the value's 4 or 8 little-endian bytes; HashBytes is
/// standard XXH64.
struct XxHash64Spark {
  using State = uint64_t;
  /// The seed of Spark's xxhash64 SQL function.
  static constexpr uint64_t kSeed = 42;

  static constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
  static constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
  static constexpr uint64_t kPrime3 = 0x165667B19E3779F9ull;
  static constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ull;
  static constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ull;

  /// Hashes a 32-bit value (Spark's hashInt).
  static uint64_t HashInt(int32_t value, uint64_t seed) {
    uint64_t hash = seed + kPrime5 + 4;
    hash ^= static_cast<uint64_t>(static_cast<uint32_t>(value)) * kPrime1;
    hash = std::rotl(hash, 23) * kPrime2 + kPrime3;
    return Finalize(hash);
  }

  /// Hashes a 64-bit value (Spark's hashLong).
  static uint64_t HashLong(int64_t value, uint64_t seed) {
    uint64_t hash = seed + kPrime5 + 8;
    hash ^= Round(static_cast<uint64_t>(value));
    hash = std::rotl(hash, 27) * kPrime1 + kPrime4;
    return Finalize(hash);
  }

  /// Hashes bytes (Spark's hashUnsafeBytes, standard XXH64).
  static uint64_t HashBytes(const uint8_t* data, int64_t length, uint64_t seed) {
    const uint8_t* end = data + length;
    uint64_t hash;
    if (length >= 32) {
      uint64_t v1 = seed + kPrime1 + kPrime2;
      uint64_t v2 = seed + kPrime2;
      uint64_t v3 = seed;
      uint64_t v4 = seed - kPrime1;
      const uint8_t* limit = end - 32;
      do {
        v1 = Accumulate(v1, Load64(data));
        v2 = Accumulate(v2, Load64(data + 8));
        v3 = Accumulate(v3, Load64(data + 16));
        v4 = Accumulate(v4, Load64(data + 24));
        data += 32;
      } while (data <= limit);
      hash = std::rotl(v1, 1) + std::rotl(v2, 7) + std::rotl(v3, 12) + std::rotl(v4, 18);
      hash = MergeRound(hash, v1);
      hash = MergeRound(hash, v2);
      hash = MergeRound(hash, v3);
      hash = MergeRound(hash, v4);
    } else {
      hash = seed + kPrime5;
    }
    hash += static_cast<uint64_t>(length);
    while (end - data >= 8) {
      hash ^= Round(Load64(data));
      hash = std::rotl(hash, 27) * kPrime1 + kPrime4;
      data += 8;
    }
    if (end - data >= 4) {
      uint32_t word;
      std::memcpy(&word, data, sizeof(word));
      hash ^= static_cast<uint64_t>(word) * kPrime1;
      hash = std::rotl(hash, 23) * kPrime2 + kPrime3;
      data += 4;
    }
    while (data < end) {
      hash ^= static_cast<uint64_t>(*data) * kPrime5;
      hash = std::rotl(hash, 11) * kPrime1;
      ++data;
    }
    return Finalize(hash);
  }

  static uint64_t Finalize(uint64_t hash) {
    hash ^= hash >> 33;
    hash *= kPrime2;
    hash ^= hash >> 29;
    hash *= kPrime3;
    hash ^= hash >> 32;
    return hash;
  }

 private:
  static uint64_t Load64(const uint8_t* data) {
    uint64_t word;
    std::memcpy(&word, data, sizeof(word));
    return word;
  }
  static uint64_t Round(uint64_t input) { return std::rotl(input * kPrime2, 31) * kPrime1; }
  static uint64_t Accumulate(uint64_t accumulator, uint64_t input) {
    return std::rotl(accumulator + input * kPrime2, 31) * kPrime1;
  }
  static uint64_t MergeRound(uint64_t hash, uint64_t accumulator) {
    hash ^= Round(accumulator);
    return hash * kPrime1 + kPrime4;
  }
};

}  // namespace sluice
