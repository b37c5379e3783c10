#include "sluice/codec/checksum.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "support/test_vectors.h"

namespace sluice {
namespace {

constexpr ChecksumAlgorithm kAlgorithms[] = {ChecksumAlgorithm::kAdler32, ChecksumAlgorithm::kCrc32,
                                             ChecksumAlgorithm::kCrc32c};

// ---- References written from the definitions, one bit or one byte at a time ---------------

constexpr uint32_t kCrc32Reflected = 0xEDB88320;
constexpr uint32_t kCrc32cReflected = 0x82F63B78;
constexpr uint32_t kAdlerModulus = 65521;

uint32_t ReflectedPolynomial(ChecksumAlgorithm algorithm) {
  return algorithm == ChecksumAlgorithm::kCrc32 ? kCrc32Reflected : kCrc32cReflected;
}

// A reflected CRC register starting at all ones, shifted one bit at a time, inverted at the end.
uint32_t BitwiseCrc(uint32_t polynomial, const uint8_t* data, size_t size) {
  uint32_t state = 0xFFFFFFFF;
  for (size_t i = 0; i < size; ++i) {
    state ^= data[i];
    for (int bit = 0; bit < 8; ++bit) {
      state = (state & 1) != 0 ? (state >> 1) ^ polynomial : state >> 1;
    }
  }
  return ~state;
}

uint32_t BytewiseAdler32(const uint8_t* data, size_t size) {
  uint32_t a = 1;
  uint32_t b = 0;
  for (size_t i = 0; i < size; ++i) {
    a = (a + data[i]) % kAdlerModulus;
    b = (b + a) % kAdlerModulus;
  }
  return (b << 16) | a;
}

uint32_t ReferenceChecksum(ChecksumAlgorithm algorithm, const uint8_t* data, size_t size) {
  if (algorithm == ChecksumAlgorithm::kAdler32) return BytewiseAdler32(data, size);
  return BitwiseCrc(ReflectedPolynomial(algorithm), data, size);
}

uint32_t ReferenceChecksum(ChecksumAlgorithm algorithm, const std::vector<uint8_t>& bytes) {
  return ReferenceChecksum(algorithm, bytes.data(), bytes.size());
}

// Polynomials over GF(2) in the plain layout (bit i holds x^i), with a full 64-bit carry-less
// product and reduction from the top bit down: a different route to x^(8n) mod P than the
// library's reflected tables, used to check combining over lengths no test can afford to read.
uint32_t Reflect(uint32_t value) {
  uint32_t reflected = 0;
  for (int bit = 0; bit < 32; ++bit) {
    if ((value >> bit) & 1) reflected |= uint32_t{1} << (31 - bit);
  }
  return reflected;
}

uint32_t PlainMultiplyModulo(uint32_t a, uint32_t b, uint32_t plain_polynomial) {
  uint64_t product = 0;
  for (int bit = 0; bit < 32; ++bit) {
    if ((b >> bit) & 1) product ^= uint64_t{a} << bit;
  }
  const uint64_t full_polynomial = (uint64_t{1} << 32) | plain_polynomial;
  for (int bit = 63; bit >= 32; --bit) {
    if ((product >> bit) & 1) product ^= full_polynomial << (bit - 32);
  }
  return static_cast<uint32_t>(product);
}

// Returns base^exponent mod P by square-and-multiply over the exponent's bits, highest first.
uint32_t PlainPower(uint32_t base, uint64_t exponent, uint32_t plain_polynomial) {
  uint32_t result = 1;
  for (int bit = 63; bit >= 0; --bit) {
    result = PlainMultiplyModulo(result, result, plain_polynomial);
    if ((exponent >> bit) & 1) result = PlainMultiplyModulo(result, base, plain_polynomial);
  }
  return result;
}

// Returns x^(8 * bytes) mod P, as (x^8)^bytes so that no length overflows.
uint32_t PlainShiftByBytes(uint64_t bytes, uint32_t plain_polynomial) {
  return PlainPower(uint32_t{1} << 8, bytes, plain_polynomial);
}

// crc(A + B) = crc(A) * x^(8|B|) + crc(B), computed in the plain layout.
uint32_t ReferenceCrcCombine(ChecksumAlgorithm algorithm, uint32_t first, uint32_t second,
                             uint64_t second_size) {
  const uint32_t plain_polynomial = Reflect(ReflectedPolynomial(algorithm));
  const uint32_t shift = PlainShiftByBytes(second_size, plain_polynomial);
  return Reflect(PlainMultiplyModulo(Reflect(first), shift, plain_polynomial)) ^ second;
}

// The checksum of `size` zero bytes: for the CRCs the all-ones register times x^(8 size),
// inverted; for Adler-32, a stays 1 and b grows by 1 per byte.
uint32_t ReferenceChecksumOfZeros(ChecksumAlgorithm algorithm, uint64_t size) {
  if (algorithm == ChecksumAlgorithm::kAdler32) {
    return static_cast<uint32_t>((size % kAdlerModulus) << 16) | 1;
  }
  const uint32_t plain_polynomial = Reflect(ReflectedPolynomial(algorithm));
  return ~Reflect(
      PlainMultiplyModulo(0xFFFFFFFF, PlainShiftByBytes(size, plain_polynomial), plain_polynomial));
}

std::vector<uint8_t> RandomBytes(size_t size, uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::vector<uint8_t> bytes(size);
  for (auto& byte : bytes) byte = static_cast<uint8_t>(generator());
  return bytes;
}

uint32_t Compute(ChecksumAlgorithm algorithm, const uint8_t* data, size_t size) {
  return UpdateChecksum(algorithm, EmptyChecksum(algorithm), data, static_cast<int64_t>(size));
}

uint32_t Compute(ChecksumAlgorithm algorithm, const std::vector<uint8_t>& bytes) {
  return Compute(algorithm, bytes.data(), bytes.size());
}

// ---- Values ----------------------------------------------------------------------------------

TEST(ChecksumTest, MatchesSharedVectors) {
  const auto rows = testing::ReadVectorRows("checksums.tsv");
  ASSERT_FALSE(rows.empty());
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 3u) << "malformed line in checksums.tsv";
    const auto algorithm = ParseChecksumAlgorithm(row[0]);
    ASSERT_TRUE(algorithm.ok()) << algorithm.status().ToString();
    const auto* data = reinterpret_cast<const uint8_t*>(row[1].data());
    const auto expected = static_cast<uint32_t>(testing::ParseVectorInteger(row[2]));
    EXPECT_EQ(Compute(*algorithm, data, row[1].size()), expected) << row[0] << " " << row[1];
    EXPECT_EQ(ReferenceChecksum(*algorithm, data, row[1].size()), expected)
        << "the test's own reference disagrees with " << row[0] << " " << row[1];
  }
}

TEST(ChecksumTest, EmptyInputHasSparksEmptyPartitionValue) {
  EXPECT_EQ(EmptyChecksum(ChecksumAlgorithm::kAdler32), 1u);
  EXPECT_EQ(EmptyChecksum(ChecksumAlgorithm::kCrc32), 0u);
  EXPECT_EQ(EmptyChecksum(ChecksumAlgorithm::kCrc32c), 0u);
  EXPECT_EQ(EmptyChecksum(ChecksumAlgorithm::kNone), 0u);
  for (ChecksumAlgorithm algorithm : kAlgorithms) {
    EXPECT_EQ(Compute(algorithm, nullptr, 0), EmptyChecksum(algorithm));
    EXPECT_EQ(Checksum(algorithm).value(), EmptyChecksum(algorithm));
  }
}

TEST(ChecksumTest, MatchesBitwiseReferenceForEveryLengthAndAlignment) {
  const std::vector<uint8_t> bytes = RandomBytes(4096 + 64, 1);
  for (ChecksumAlgorithm algorithm : kAlgorithms) {
    for (size_t offset = 0; offset < 16; ++offset) {
      for (size_t size = 0; size <= 300; ++size) {
        ASSERT_EQ(Compute(algorithm, bytes.data() + offset, size),
                  ReferenceChecksum(algorithm, bytes.data() + offset, size))
            << ChecksumAlgorithmName(algorithm) << " offset " << offset << " size " << size;
      }
    }
    for (size_t size : {1000u, 1023u, 1024u, 1025u, 4095u, 4096u}) {
      EXPECT_EQ(Compute(algorithm, bytes.data() + 3, size),
                ReferenceChecksum(algorithm, bytes.data() + 3, size))
          << ChecksumAlgorithmName(algorithm) << " size " << size;
    }
  }
}

TEST(ChecksumTest, IncrementalUpdatesEqualOneShot) {
  const std::vector<uint8_t> bytes = RandomBytes(100000, 2);
  std::mt19937_64 generator(3);
  for (ChecksumAlgorithm algorithm : kAlgorithms) {
    const uint32_t one_shot = Compute(algorithm, bytes);
    for (int trial = 0; trial < 20; ++trial) {
      Checksum checksum(algorithm);
      size_t position = 0;
      while (position < bytes.size()) {
        // Pieces of 0 to ~5000 bytes, empty ones included.
        const size_t piece = std::min<size_t>(generator() % 5000, bytes.size() - position);
        checksum.Update(bytes.data() + position, static_cast<int64_t>(piece));
        position += piece;
      }
      ASSERT_EQ(checksum.value(), one_shot) << ChecksumAlgorithmName(algorithm);
    }
  }
}

TEST(ChecksumTest, ResetStartsOver) {
  const std::vector<uint8_t> bytes = RandomBytes(1000, 4);
  for (ChecksumAlgorithm algorithm : kAlgorithms) {
    Checksum checksum(algorithm);
    checksum.Update(bytes.data(), 10);
    checksum.Reset();
    checksum.Update(bytes.data(), static_cast<int64_t>(bytes.size()));
    EXPECT_EQ(checksum.value(), Compute(algorithm, bytes));
  }
}

// ---- Combining -------------------------------------------------------------------------------

TEST(ChecksumTest, CombineEqualsDirectComputationForListedLengths) {
  const int64_t lengths[] = {0, 1, 7, 64, 1000, 1 << 20};
  const std::vector<uint8_t> bytes = RandomBytes((2 << 20) + 4096, 10);
  for (ChecksumAlgorithm algorithm : kAlgorithms) {
    for (int64_t first_size : lengths) {
      for (int64_t second_size : lengths) {
        // A different stretch of the random bytes for each pair of lengths.
        const uint8_t* start = bytes.data() + (first_size * 7 + second_size * 3) % 4096;
        const uint32_t first = Compute(algorithm, start, first_size);
        const uint32_t second = Compute(algorithm, start + first_size, second_size);
        EXPECT_EQ(CombineChecksums(algorithm, first, second, second_size),
                  Compute(algorithm, start, first_size + second_size))
            << ChecksumAlgorithmName(algorithm) << " |A| " << first_size << " |B| " << second_size;
      }
    }
  }
}

TEST(ChecksumTest, CombineEqualsDirectComputationOverRandomSplits) {
  const std::vector<uint8_t> bytes = RandomBytes(200000, 20);
  std::mt19937_64 generator(21);
  for (ChecksumAlgorithm algorithm : kAlgorithms) {
    const uint32_t whole = Compute(algorithm, bytes);
    for (int trial = 0; trial < 200; ++trial) {
      const size_t split = generator() % (bytes.size() + 1);
      const uint32_t first = Compute(algorithm, bytes.data(), split);
      const uint32_t second = Compute(algorithm, bytes.data() + split, bytes.size() - split);
      ASSERT_EQ(
          CombineChecksums(algorithm, first, second, static_cast<int64_t>(bytes.size() - split)),
          whole)
          << ChecksumAlgorithmName(algorithm) << " split at " << split;
    }
    // Many pieces folded left to right, as the spill merge does.
    Checksum merged(algorithm);
    size_t position = 0;
    while (position < bytes.size()) {
      const size_t piece = std::min<size_t>(generator() % 3000, bytes.size() - position);
      merged.Combine(Compute(algorithm, bytes.data() + position, piece),
                     static_cast<int64_t>(piece));
      position += piece;
    }
    EXPECT_EQ(merged.value(), whole) << ChecksumAlgorithmName(algorithm);
  }
}

TEST(ChecksumTest, CombineMatchesPolynomialReferenceForHugeLengths) {
  const int64_t lengths[] = {int64_t{1} << 31,  (int64_t{1} << 32) + 5,
                             int64_t{10} << 30, (int64_t{10} << 30) + 12345,
                             int64_t{1} << 40,  (int64_t{1} << 62) + 987654321,
                             INT64_MAX};
  std::mt19937 generator(30);
  for (ChecksumAlgorithm algorithm : {ChecksumAlgorithm::kCrc32, ChecksumAlgorithm::kCrc32c}) {
    for (int64_t length : lengths) {
      for (int trial = 0; trial < 4; ++trial) {
        const uint32_t first = generator();
        const uint32_t second = generator();
        ASSERT_EQ(CombineChecksums(algorithm, first, second, length),
                  ReferenceCrcCombine(algorithm, first, second, static_cast<uint64_t>(length)))
            << ChecksumAlgorithmName(algorithm) << " |B| " << length;
      }
    }
  }
  // Zeros appended to A: for every algorithm the reference knows checksum(A + zeros) directly.
  const std::vector<uint8_t> prefix = RandomBytes(1000, 31);
  for (ChecksumAlgorithm algorithm : kAlgorithms) {
    for (int64_t length : lengths) {
      const uint32_t zeros = ReferenceChecksumOfZeros(algorithm, static_cast<uint64_t>(length));
      uint32_t expected = 0;
      if (algorithm == ChecksumAlgorithm::kAdler32) {
        // Zero bytes leave a alone and add a to b once per byte.
        const uint32_t a = BytewiseAdler32(prefix.data(), prefix.size()) & 0xFFFF;
        const uint32_t b = BytewiseAdler32(prefix.data(), prefix.size()) >> 16;
        const uint64_t length_mod = static_cast<uint64_t>(length) % kAdlerModulus;
        expected = static_cast<uint32_t>(((b + length_mod * a) % kAdlerModulus) << 16) | a;
      } else {
        expected = ReferenceCrcCombine(algorithm, ReferenceChecksum(algorithm, prefix), zeros,
                                       static_cast<uint64_t>(length));
      }
      EXPECT_EQ(CombineChecksums(algorithm, Compute(algorithm, prefix), zeros, length), expected)
          << ChecksumAlgorithmName(algorithm) << " |zeros| " << length;
    }
  }
}

TEST(ChecksumTest, CombineOfZerosMatchesReadingThem) {
  // The zero-checksum reference itself, checked against bytes actually read.
  for (ChecksumAlgorithm algorithm : kAlgorithms) {
    for (size_t size : {0u, 1u, 5u, 64u, 1000u, 65536u, 1u << 20}) {
      const std::vector<uint8_t> zeros(size, 0);
      EXPECT_EQ(ReferenceChecksumOfZeros(algorithm, size), Compute(algorithm, zeros))
          << ChecksumAlgorithmName(algorithm) << " size " << size;
    }
  }
}

TEST(ChecksumTest, CombineIsAssociativeForHugeLengths) {
  std::mt19937 generator(40);
  for (ChecksumAlgorithm algorithm : kAlgorithms) {
    for (int trial = 0; trial < 50; ++trial) {
      const uint32_t a = generator();
      const uint32_t b = generator();
      const uint32_t c = generator();
      const int64_t b_size = static_cast<int64_t>(generator()) << (trial % 31);
      const int64_t c_size = static_cast<int64_t>(generator()) << (trial % 29);
      EXPECT_EQ(CombineChecksums(algorithm, CombineChecksums(algorithm, a, b, b_size), c, c_size),
                CombineChecksums(algorithm, a, CombineChecksums(algorithm, b, c, c_size),
                                 b_size + c_size))
          << ChecksumAlgorithmName(algorithm) << " trial " << trial;
    }
  }
}

TEST(ChecksumTest, CombineWithEmptySecondPartKeepsTheFirst) {
  std::mt19937 generator(50);
  for (ChecksumAlgorithm algorithm : kAlgorithms) {
    const uint32_t first = Compute(algorithm, RandomBytes(77, generator()));
    EXPECT_EQ(CombineChecksums(algorithm, first, EmptyChecksum(algorithm), 0), first);
    EXPECT_EQ(CombineChecksums(algorithm, EmptyChecksum(algorithm), first, 77), first);
  }
}

TEST(ChecksumTest, NoneIsAlwaysZero) {
  const std::vector<uint8_t> bytes = RandomBytes(100, 60);
  EXPECT_EQ(CombineChecksums(ChecksumAlgorithm::kNone, 5, 7, 100), 0u);
  EXPECT_EQ(UpdateChecksum(ChecksumAlgorithm::kNone, 0, bytes.data(), 100), 0u);
  Checksum checksum(ChecksumAlgorithm::kNone);
  checksum.Update(bytes.data(), 100);
  checksum.Combine(1234, 5678);
  EXPECT_EQ(checksum.value(), 0u);
}

// ISA-L's CRC32C kernel takes an int length; buffers of 2 GiB and more go through in pieces.
// The bytes are a read-only anonymous mapping: untouched pages all map the kernel's zero page,
// so reading 2 GiB costs page-table entries, not memory.
TEST(ChecksumTest, UpdateHandlesBuffersOverTwoGiB) {
  const size_t size = (size_t{1} << 31) + 4099;
  void* mapping =
      mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping == MAP_FAILED) GTEST_SKIP() << "cannot map " << size << " bytes";
  const auto* zeros = static_cast<const uint8_t*>(mapping);
  for (ChecksumAlgorithm algorithm : kAlgorithms) {
    EXPECT_EQ(Compute(algorithm, zeros, size), ReferenceChecksumOfZeros(algorithm, size))
        << ChecksumAlgorithmName(algorithm);
  }
  munmap(mapping, size);
}

// ---- Names -----------------------------------------------------------------------------------

TEST(ChecksumTest, ParsesSparkNamesInAnyCase) {
  const std::pair<const char*, ChecksumAlgorithm> cases[] = {
      {"ADLER32", ChecksumAlgorithm::kAdler32}, {"adler32", ChecksumAlgorithm::kAdler32},
      {"CRC32", ChecksumAlgorithm::kCrc32},     {"crc32", ChecksumAlgorithm::kCrc32},
      {"CRC32C", ChecksumAlgorithm::kCrc32c},   {"Crc32C", ChecksumAlgorithm::kCrc32c},
      {"NONE", ChecksumAlgorithm::kNone},       {"none", ChecksumAlgorithm::kNone}};
  for (const auto& [text, expected] : cases) {
    const auto parsed = ParseChecksumAlgorithm(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status().ToString();
    EXPECT_EQ(*parsed, expected) << text;
  }
  for (ChecksumAlgorithm algorithm : kAlgorithms) {
    EXPECT_EQ(*ParseChecksumAlgorithm(ChecksumAlgorithmName(algorithm)), algorithm);
  }
  EXPECT_EQ(ChecksumAlgorithmName(ChecksumAlgorithm::kAdler32), "ADLER32");
  EXPECT_EQ(ChecksumAlgorithmName(ChecksumAlgorithm::kCrc32), "CRC32");
  EXPECT_EQ(ChecksumAlgorithmName(ChecksumAlgorithm::kCrc32c), "CRC32C");
  EXPECT_EQ(ChecksumAlgorithmName(ChecksumAlgorithm::kNone), "NONE");
}

TEST(ChecksumTest, RejectsUnknownNamesNamingTheText) {
  for (const char* text : {"", "crc", "CRC32CC", "adler-32", " CRC32", "CRC32 ", "md5"}) {
    const auto parsed = ParseChecksumAlgorithm(text);
    ASSERT_FALSE(parsed.ok()) << "'" << text << "'";
    EXPECT_TRUE(parsed.status().IsInvalid());
    EXPECT_NE(parsed.status().message().find(std::string("'") + text + "'"), std::string::npos)
        << parsed.status().message();
  }
}

}  // namespace
}  // namespace sluice
