// CombineChecksums: the checksum of A followed by B from checksum(A), checksum(B) and |B|, so
// the final merge of spill files appends partitions without reading their bytes again.
//
// CRC32 and CRC32C. A CRC register is a polynomial over GF(2) of degree < 32, kept reflected:
// bit 31 holds the coefficient of x^0 and bit 0 that of x^31. Feeding one byte multiplies the
// register by x^8 modulo the CRC polynomial P and adds the byte's term, which is linear. So
// running B through a register that holds r gives r * x^(8|B|) + L(B) (mod P), where L(B)
// depends on B alone. Both CRCs start the register at all ones and invert the result, so with
// c = 0xFFFFFFFF:
//   crc(A)  = s_A + c                              (s_A: the register after A)
//   crc(B)  = c * x^(8|B|) + L(B) + c
//   crc(AB) = s_A * x^(8|B|) + L(B) + c = crc(A) * x^(8|B|) + crc(B)
// since the two c * x^(8|B|) terms cancel. x^(8n) comes from a table of x^(8 * 2^k) mod P, one
// multiplication per set bit of n: O(log n) multiplications of 32 steps each.
//
// Adler-32. With a = 1 + (sum of the bytes) and b = (sum of a after each byte), both modulo
// 65521, every a counted by b over B is B's own running a plus a_A - 1, so
//   a_AB = a_A + a_B - 1,   b_AB = b_A + b_B + |B| * (a_A - 1)   (mod 65521).
#include <array>
#include <cstdint>

#include "sluice/base/check.h"
#include "sluice/codec/checksum.h"

namespace sluice {

namespace {

// Reflected generator polynomials, without their x^32 term.
constexpr uint32_t kCrc32Polynomial = 0xEDB88320;   // IEEE 802.3: zlib, java.util.zip.CRC32
constexpr uint32_t kCrc32cPolynomial = 0x82F63B78;  // Castagnoli: iSCSI, java.util.zip.CRC32C

// The polynomial 1 (x^0) in the reflected layout.
constexpr uint32_t kOne = uint32_t{1} << 31;

// Returns a * b modulo the polynomial.
constexpr uint32_t MultiplyModulo(uint32_t a, uint32_t b, uint32_t polynomial) {
  uint32_t product = 0;
  // Walk a's coefficients from x^0 up, keeping b * x^i in `b` for coefficient i.
  for (uint32_t term = kOne; term != 0; term >>= 1) {
    if ((a & term) != 0) {
      product ^= b;
      if ((a & (term - 1)) == 0) break;  // no higher coefficients left
    }
    b = (b & 1) != 0 ? (b >> 1) ^ polynomial : b >> 1;
  }
  return product;
}

// Lengths are int64, so 63 bits of a byte count matter.
constexpr int kLengthBits = 63;
using PowerTable = std::array<uint32_t, kLengthBits>;

// Returns powers[k] = x^(8 * 2^k) mod P: shifting by 2^k bytes.
constexpr PowerTable MakePowerTable(uint32_t polynomial) {
  PowerTable powers = {};
  powers[0] = kOne >> 8;  // x^8, one byte
  for (int k = 1; k < kLengthBits; ++k) {
    powers[k] = MultiplyModulo(powers[k - 1], powers[k - 1], polynomial);
  }
  return powers;
}

constexpr PowerTable kCrc32Powers = MakePowerTable(kCrc32Polynomial);
constexpr PowerTable kCrc32cPowers = MakePowerTable(kCrc32cPolynomial);

// 1 is the identity; x^16 needs no reduction; x^32 reduces to P's lower terms.
static_assert(MultiplyModulo(kOne, 0x12345678, kCrc32Polynomial) == 0x12345678);
static_assert(kCrc32Powers[1] == kOne >> 16);
static_assert(kCrc32Powers[2] == kCrc32Polynomial && kCrc32cPowers[2] == kCrc32cPolynomial);

uint32_t CombineCrc(uint32_t first, uint32_t second, int64_t second_size, uint32_t polynomial,
                    const PowerTable& powers) {
  uint64_t bytes = static_cast<uint64_t>(second_size);
  for (int k = 0; bytes != 0; ++k, bytes >>= 1) {
    if ((bytes & 1) != 0) first = MultiplyModulo(powers[k], first, polynomial);
  }
  return first ^ second;
}

// The largest prime below 2^16: Adler-32's modulus.
constexpr uint64_t kAdlerModulus = 65521;

uint32_t CombineAdler32(uint32_t first, uint32_t second, int64_t second_size) {
  const uint64_t first_a = (first & 0xFFFF) % kAdlerModulus;
  const uint64_t first_b = (first >> 16) % kAdlerModulus;
  const uint64_t second_a = (second & 0xFFFF) % kAdlerModulus;
  const uint64_t second_b = (second >> 16) % kAdlerModulus;
  const uint64_t length = static_cast<uint64_t>(second_size) % kAdlerModulus;
  // Every term stays below 2^32, so no sum or product below overflows 64 bits.
  const uint64_t first_a_minus_one = (first_a + kAdlerModulus - 1) % kAdlerModulus;
  const uint64_t a = (first_a_minus_one + second_a) % kAdlerModulus;
  const uint64_t b = (first_b + second_b + length * first_a_minus_one) % kAdlerModulus;
  return static_cast<uint32_t>((b << 16) | a);
}

}  // namespace

uint32_t CombineChecksums(ChecksumAlgorithm algorithm, uint32_t first, uint32_t second,
                          int64_t second_size) {
  SLUICE_DCHECK(second_size >= 0);
  if (second_size < 0) second_size = 0;
  switch (algorithm) {
    case ChecksumAlgorithm::kAdler32:
      return CombineAdler32(first, second, second_size);
    case ChecksumAlgorithm::kCrc32:
      return CombineCrc(first, second, second_size, kCrc32Polynomial, kCrc32Powers);
    case ChecksumAlgorithm::kCrc32c:
      return CombineCrc(first, second, second_size, kCrc32cPolynomial, kCrc32cPowers);
    case ChecksumAlgorithm::kNone:
      break;
  }
  return 0;
}

}  // namespace sluice
