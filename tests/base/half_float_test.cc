#include "sluice/base/half_float.h"

#include <gtest/gtest.h>

#include <cmath>

#include "support/half_float_reference.h"

namespace sluice {
namespace {

// Every one of the 65,536 halves widens to the float the format's definition gives: zeros keep
// their sign, subnormals and normals their value, infinities stay infinite, NaNs stay NaN.
TEST(HalfFloatTest, EveryHalfWidensExactly) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const auto half = static_cast<uint16_t>(bits);
    const float widened = HalfToFloat(half);
    const double expected = testing::ReferenceHalfToDouble(half);
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(widened)) << bits;
      continue;
    }
    EXPECT_EQ(static_cast<double>(widened), expected) << bits;
    EXPECT_EQ(std::signbit(widened), std::signbit(expected)) << bits;
  }
}

}  // namespace
}  // namespace sluice
