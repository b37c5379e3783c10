#include "sluice/partition/spark_hash.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/test_vectors.h"

namespace sluice {
namespace {

using testing::ParseVectorInteger;
using testing::ReadVectorRows;

// Hashes one murmur3.tsv input with the scalar primitive its type names.
uint32_t HashVectorInput(const std::string& type, const std::string& input, uint32_t seed) {
  if (input == "null") return seed;  // a SQL null leaves the seed unchanged
  if (type == "int" || type == "byte") {
    return MurmurHash3Spark::HashInt(static_cast<int32_t>(ParseVectorInteger(input)), seed);
  }
  if (type == "long") return MurmurHash3Spark::HashLong(ParseVectorInteger(input), seed);
  if (type == "float") {
    const float value = std::strtof(input.c_str(), nullptr);
    // Spark: -0.0 hashes as 0; floatToIntBits otherwise.
    return MurmurHash3Spark::HashInt(value == 0.0f ? 0 : std::bit_cast<int32_t>(value), seed);
  }
  if (type == "double") {
    const double value = std::strtod(input.c_str(), nullptr);
    return MurmurHash3Spark::HashLong(value == 0.0 ? 0 : std::bit_cast<int64_t>(value), seed);
  }
  EXPECT_EQ(type, "string");
  return MurmurHash3Spark::HashBytes(reinterpret_cast<const uint8_t*>(input.data()),
                                     std::ssize(input), seed);
}

TEST(MurmurHash3SparkTest, MatchesEverySharedVector) {
  const auto rows = ReadVectorRows("murmur3.tsv");
  ASSERT_GT(rows.size(), 40u);
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 4u);
    const auto seed = static_cast<uint32_t>(ParseVectorInteger(row[2]));
    const auto expected = static_cast<uint32_t>(ParseVectorInteger(row[3]));
    EXPECT_EQ(HashVectorInput(row[0], row[1], seed), expected)
        << row[0] << " '" << row[1] << "' seed " << row[2];
  }
}

TEST(MurmurHash3SparkTest, HashBytesMixesEachTailByteAloneAndSignExtended) {
  // Spark's tail: each byte after the last full word is mixed as a sign-extended int, like a
  // word, and the length is mixed in at the end.
  const uint8_t bytes[] = {0x61, 0x62, 0x63, 0x64, 0xe2, 0x82};
  uint32_t expected = 42;
  uint32_t word;
  std::memcpy(&word, bytes, 4);
  expected = MurmurHash3Spark::MixH1(expected, MurmurHash3Spark::MixK1(word));
  expected = MurmurHash3Spark::MixH1(expected, MurmurHash3Spark::MixK1(0xffffffe2u));
  expected = MurmurHash3Spark::MixH1(expected, MurmurHash3Spark::MixK1(0xffffff82u));
  expected = MurmurHash3Spark::Finalize(expected, 6);
  EXPECT_EQ(MurmurHash3Spark::HashBytes(bytes, 6, 42), expected);
}

TEST(MurmurHash3SparkTest, HashLongIsTwoWordsLowFirst) {
  const int64_t value = 0x0123456789abcdefLL;
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(&value);
  // Eight bytes have no tail, so hashUnsafeBytes over the little-endian value is hashLong.
  EXPECT_EQ(MurmurHash3Spark::HashLong(value, 42), MurmurHash3Spark::HashBytes(bytes, 8, 42));
}

// Spark's XXH64Suite: a 101-byte buffer made from PRIME by repeated squaring.
class XxHash64SparkTest : public ::testing::Test {
 protected:
  static constexpr uint64_t kPrime = 2654435761ull;

  void SetUp() override {
    uint64_t seed = kPrime;
    buffer_.resize(101);
    for (auto& byte : buffer_) {
      byte = static_cast<uint8_t>(seed >> 24);
      seed *= seed;
    }
  }

  std::vector<uint8_t> buffer_;
};

TEST_F(XxHash64SparkTest, MatchesSparkSuiteIntegerInputs) {
  int32_t test_int;
  std::memcpy(&test_int, buffer_.data(), 4);
  EXPECT_EQ(test_int, 0x4B1FFF9E);
  EXPECT_EQ(XxHash64Spark::HashInt(test_int, 0), 0x9256E58AA397AEF1ull);
  EXPECT_EQ(XxHash64Spark::HashInt(test_int, kPrime), 0x9D5FFDFB928AB4Bull);
}

TEST_F(XxHash64SparkTest, MatchesSparkSuiteLongInputs) {
  int64_t test_long;
  std::memcpy(&test_long, buffer_.data(), 8);
  EXPECT_EQ(static_cast<uint64_t>(test_long), 0xDD2F535E4B1FFF9Eull);
  EXPECT_EQ(XxHash64Spark::HashLong(test_long, 0), 0xF74CB1451B32B8CFull);
  EXPECT_EQ(XxHash64Spark::HashLong(test_long, kPrime), 0x9C44B77FBCC302C5ull);
}

TEST_F(XxHash64SparkTest, MatchesSparkSuiteByteArrayInputs) {
  struct Case {
    int64_t length;
    uint64_t seed_zero;
    uint64_t seed_prime;
  };
  const Case cases[] = {
      {0, 0xEF46DB3751D8E999ull, 0xAC75FDA2929B17EFull},
      {1, 0x4FCE394CC88952D8ull, 0x739840CB819FA723ull},
      {4, 0x9256E58AA397AEF1ull, 0x9D5FFDFB928AB4Bull},
      {8, 0xF74CB1451B32B8CFull, 0x9C44B77FBCC302C5ull},
      {14, 0xCFFA8DB881BC3A3Dull, 0x5B9611585EFCC9CBull},
      {101, 0x0EAB543384F878ADull, 0xCAA65939306F1E21ull},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(XxHash64Spark::HashBytes(buffer_.data(), c.length, 0), c.seed_zero) << c.length;
    EXPECT_EQ(XxHash64Spark::HashBytes(buffer_.data(), c.length, kPrime), c.seed_prime) << c.length;
  }
}

TEST_F(XxHash64SparkTest, HashIntAndLongEqualHashBytesOfTheirLittleEndianBytes) {
  for (int64_t value : {0LL, 1LL, -1LL, 42LL, -9223372036854775807LL - 1, 0x7fffffffLL}) {
    const auto as_int = static_cast<int32_t>(value);
    EXPECT_EQ(XxHash64Spark::HashInt(as_int, 42),
              XxHash64Spark::HashBytes(reinterpret_cast<const uint8_t*>(&as_int), 4, 42));
    EXPECT_EQ(XxHash64Spark::HashLong(value, 42),
              XxHash64Spark::HashBytes(reinterpret_cast<const uint8_t*>(&value), 8, 42));
  }
}

}  // namespace
}  // namespace sluice
