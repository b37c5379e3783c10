// CombineChecksums: the checksum of A followed by B from checksum(A), checksum(B) and |B|, so
// the final merge of spill files appends partitions without reading their bytes again.
//
// CRC-32 and Adler-32 are combined by zlib (crc32_combine, adler32_combine). zlib has no CRC-32C,
// nor does any library Debian ships a combine for it, so that one is done here, as zlib does
// CRC-32's: a CRC register is a polynomial over GF(2) of degree < 32, kept reflected (bit 31
// holds the coefficient of x^0 and bit 0 that of x^31). Feeding one byte multiplies the register
// by x^8 modulo the CRC polynomial P and adds the byte's term, which is linear. So running B
// through a register that holds r gives r * x^(8|B|) + L(B) (mod P), where L(B) depends on B
// alone. The CRC starts the register at all ones and inverts the result, so with c = 0xFFFFFFFF:
//   crc(A)  = s_A + c                              (s_A: the register after A)
//   crc(B)  = c * x^(8|B|) + L(B) + c
//   crc(AB) = s_A * x^(8|B|) + L(B) + c = crc(A) * x^(8|B|) + crc(B)
// since the two c * x^(8|B|) terms cancel. x^(8n) comes from a table of x^(8 * 2^k) mod P, one
// multiplication per set bit of n: O(log n) multiplications of 32 steps each.
#include <zlib.h>

#include <array>
#include <cstdint>

#include "sluice/base/check.h"
#include "sluice/codec/checksum.h"

namespace sluice {

namespace {

// zlib takes the second part's length as a z_off_t: 64 bits here, as Sluice's sizes are.
static_assert(sizeof(z_off_t) == sizeof(int64_t));

// The reflected Castagnoli polynomial (iSCSI, java.util.zip.CRC32C), without its x^32 term.
constexpr uint32_t kCrc32cPolynomial = 0x82F63B78;

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

constexpr PowerTable kCrc32cPowers = MakePowerTable(kCrc32cPolynomial);

// 1 is the identity; x^16 needs no reduction; x^32 reduces to P's lower terms.
static_assert(MultiplyModulo(kOne, 0x12345678, kCrc32cPolynomial) == 0x12345678);
static_assert(kCrc32cPowers[1] == kOne >> 16);
static_assert(kCrc32cPowers[2] == kCrc32cPolynomial);

uint32_t CombineCrc32c(uint32_t first, uint32_t second, int64_t second_size) {
  uint64_t bytes = static_cast<uint64_t>(second_size);
  for (int k = 0; bytes != 0; ++k, bytes >>= 1) {
    if ((bytes & 1) != 0) first = MultiplyModulo(kCrc32cPowers[k], first, kCrc32cPolynomial);
  }
  return first ^ second;
}

}  // namespace

uint32_t CombineChecksums(ChecksumAlgorithm algorithm, uint32_t first, uint32_t second,
                          int64_t second_size) {
  SLUICE_DCHECK(second_size >= 0);
  if (second_size < 0) second_size = 0;
  switch (algorithm) {
    case ChecksumAlgorithm::kAdler32:
      return static_cast<uint32_t>(
          adler32_combine(first, second, static_cast<z_off_t>(second_size)));
    case ChecksumAlgorithm::kCrc32:
      return static_cast<uint32_t>(crc32_combine(first, second, static_cast<z_off_t>(second_size)));
    case ChecksumAlgorithm::kCrc32c:
      return CombineCrc32c(first, second, second_size);
    case ChecksumAlgorithm::kNone:
      break;
  }
  return 0;
}

}  // namespace sluice
