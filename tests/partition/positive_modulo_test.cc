#include "sluice/partition/positive_modulo.h"

#include <gtest/gtest.h>

#include <climits>
#include <vector>

#include "support/test_vectors.h"

namespace sluice {
namespace {

// Spark's Pmod on Java ints: ((value % n) + n) % n.
uint32_t ReferencePmod(int32_t value, int32_t divisor) {
  const int64_t remainder = static_cast<int64_t>(value) % divisor;
  return static_cast<uint32_t>((remainder + divisor) % divisor);
}

TEST(PositiveModuloTest, MatchesEverySharedVector) {
  const auto rows = testing::ReadVectorRows("pmod.tsv");
  ASSERT_FALSE(rows.empty());
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 3u);
    const auto hash =
        static_cast<int32_t>(static_cast<uint32_t>(testing::ParseVectorInteger(row[0])));
    const auto partitions = static_cast<uint32_t>(testing::ParseVectorInteger(row[1]));
    const auto expected = static_cast<uint32_t>(testing::ParseVectorInteger(row[2]));
    EXPECT_EQ(PositiveModulo(partitions).Pmod(hash), expected) << row[0] << " mod " << row[1];
  }
}

// The divisors a task can have, with the shapes that stress a reciprocal: 1, powers of two and
// their neighbours, primes, Spark's common counts, and the largest int divisors.
std::vector<uint32_t> Divisors() {
  std::vector<uint32_t> divisors = {
      1,           2,           3,          5,      7,      10,       13,
      100,         200,         641,        1000,   1009,   4096,     8000,
      65535,       65536,       65537,      100000, 999983, 1u << 24, (1u << 24) + 1,
      2147483629u, 0x7ffffffeu, 0x7fffffffu};
  for (int shift = 1; shift < 31; shift += 3) {
    divisors.push_back((1u << shift) - 1);
    divisors.push_back(1u << shift);
    divisors.push_back((1u << shift) + 1);
  }
  return divisors;
}

// Inputs where a reciprocal error would show: the ends of the range, around zero, and around
// multiples of the divisor near both ends.
std::vector<uint32_t> EdgeInputs(uint32_t divisor) {
  std::vector<uint32_t> inputs = {0u,          1u,          2u,          0x7ffffffeu, 0x7fffffffu,
                                  0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu};
  const uint64_t top = uint64_t{0xffffffffu} / divisor * divisor;
  for (uint64_t multiple : {uint64_t{divisor}, top, uint64_t{0x80000000u} / divisor * divisor}) {
    for (int64_t delta = -2; delta <= 2; ++delta) {
      const int64_t value = static_cast<int64_t>(multiple) + delta;
      if (value >= 0 && value <= 0xffffffffLL) inputs.push_back(static_cast<uint32_t>(value));
    }
  }
  return inputs;
}

TEST(PositiveModuloTest, ModEqualsRemainderOnEdgesAndADenseSample) {
  std::vector<uint32_t> divisors = Divisors();
  for (uint32_t large : {0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu}) {
    divisors.push_back(large);
  }
  for (const uint32_t divisor : divisors) {
    const PositiveModulo modulo(divisor);
    for (const uint32_t value : EdgeInputs(divisor)) {
      ASSERT_EQ(modulo.Mod(value), value % divisor) << value << " mod " << divisor;
    }
    // A stride that is odd and not a multiple of small primes walks every residue class of
    // every divisor here; 2^32 / 4099 ~ one million inputs per divisor.
    for (uint64_t value = 7; value <= 0xffffffffu; value += 4099) {
      const auto input = static_cast<uint32_t>(value);
      if (modulo.Mod(input) != input % divisor) {
        FAIL() << input << " mod " << divisor << ": got " << modulo.Mod(input);
      }
    }
  }
}

TEST(PositiveModuloTest, PmodEqualsSparkPmodOnEdgesAndADenseSample) {
  for (const uint32_t divisor : Divisors()) {
    const PositiveModulo modulo(divisor);
    const auto signed_divisor = static_cast<int32_t>(divisor);
    std::vector<int32_t> inputs;
    for (const uint32_t bits : EdgeInputs(divisor)) {
      const auto value = static_cast<int32_t>(bits);
      inputs.push_back(value);
      inputs.push_back(value == INT_MIN ? INT_MIN : -value);
    }
    for (uint64_t bits = 3; bits <= 0xffffffffu; bits += 4099) {
      inputs.push_back(static_cast<int32_t>(static_cast<uint32_t>(bits)));
    }
    // Scalar, one value at a time.
    for (const int32_t value : inputs) {
      if (modulo.Pmod(value) != ReferencePmod(value, signed_divisor)) {
        FAIL() << value << " pmod " << divisor << ": got " << modulo.Pmod(value);
      }
    }
    // The array form (vectorized where the CPU allows), including a tail shorter than a vector.
    std::vector<uint32_t> values(inputs.begin(), inputs.end());
    values.resize(values.size() - values.size() % 8 + 5);
    modulo.PmodInPlace(values.data(), std::ssize(values));
    for (size_t k = 0; k < values.size(); ++k) {
      const int32_t input = k < inputs.size() ? inputs[k] : 0;
      if (values[k] != ReferencePmod(input, signed_divisor)) {
        FAIL() << input << " pmod " << divisor << " in an array: got " << values[k];
      }
    }
  }
}

TEST(PositiveModuloTest, PmodInPlaceEqualsPmodOfEachValue) {
  const PositiveModulo modulo(200);
  std::vector<uint32_t> values;
  for (int64_t v = INT_MIN; v <= INT_MAX; v += 9999991) values.push_back(static_cast<uint32_t>(v));
  std::vector<uint32_t> expected;
  for (const uint32_t v : values) expected.push_back(ReferencePmod(static_cast<int32_t>(v), 200));
  modulo.PmodInPlace(values.data(), std::ssize(values));
  EXPECT_EQ(values, expected);
}

}  // namespace
}  // namespace sluice
