// OffsetsIncrease: a decrease between any two neighbours of any column is found, whichever
// vector step, lane or tail it falls on, and nothing past a column's last offset is read. The
// module's tests also run with SLUICE_SIMD=avx2 and =none, so this checks the portable, AVX2
// and AVX-512 loops alike (each where the CPU has it).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "ipc/offsets_order_internal.h"

namespace sluice::ipc {
namespace {

// Counts around every step of the vector loops (8, 16 and 32 lanes of 32-bit offsets; 4, 8 and
// 16 of 64-bit ones).
constexpr int64_t kMaxCount = 70;

template <typename Offset>
class OffsetsOrderTest : public ::testing::Test {};
using OffsetTypes = ::testing::Types<int32_t, int64_t>;
TYPED_TEST_SUITE(OffsetsOrderTest, OffsetTypes);

// Three columns of `count` values; offsets rise by 0-2 at each step.
template <typename Offset>
struct Columns {
  explicit Columns(int64_t count) : count(count) {
    for (auto& column : offsets) {
      Offset value = 5;
      for (int64_t i = 0; i <= count; ++i) {
        column.push_back(value);
        value += static_cast<Offset>(i % 3);
      }
    }
  }

  std::vector<PendingOffsets<Offset>> Pending() const {
    std::vector<PendingOffsets<Offset>> pending;
    for (size_t c = 0; c < 3; ++c) pending.push_back({offsets[c].data(), count, c});
    return pending;
  }

  int64_t count;
  std::vector<Offset> offsets[3];
};

TYPED_TEST(OffsetsOrderTest, RisingAndEqualOffsetsPass) {
  using Offset = TypeParam;
  for (int64_t count = 0; count <= kMaxCount; ++count) {
    const Columns<Offset> columns(count);
    const auto pending = columns.Pending();
    EXPECT_TRUE(OffsetsIncrease(pending.data(), pending.size())) << count << " values";
    EXPECT_TRUE(OffsetsIncrease(pending.data(), pending.size(), count)) << count << " values";
  }
  EXPECT_TRUE(OffsetsIncrease<Offset>(nullptr, 0));
  EXPECT_TRUE(OffsetsIncrease<Offset>(nullptr, 0, 64));
}

TYPED_TEST(OffsetsOrderTest, ADecreaseIsFoundAtEveryPlace) {
  using Offset = TypeParam;
  constexpr Offset kMax = std::numeric_limits<Offset>::max();
  constexpr Offset kMin = std::numeric_limits<Offset>::min();
  for (int64_t count = 1; count <= kMaxCount; ++count) {
    for (size_t column = 0; column < 3; ++column) {
      for (int64_t row = 0; row < count; ++row) {
        // By one, and across the sign (a subtraction would wrap there).
        for (const auto& [before, after] :
             {std::pair<Offset, Offset>{7, 6}, {kMax, kMin}, {0, -1}}) {
          Columns<Offset> columns(count);
          columns.offsets[column][static_cast<size_t>(row)] = before;
          columns.offsets[column][static_cast<size_t>(row + 1)] = after;
          const auto pending = columns.Pending();
          EXPECT_FALSE(OffsetsIncrease(pending.data(), pending.size()))
              << "column " << column << " row " << row << " of " << count;
          EXPECT_FALSE(OffsetsIncrease(pending.data(), pending.size(), count))
              << "column " << column << " row " << row << " of " << count;
        }
      }
    }
  }
}

TYPED_TEST(OffsetsOrderTest, EachColumnsOwnCountIsUsed) {
  using Offset = TypeParam;
  // A decrease just past a short column's values is not one of its offsets.
  Columns<Offset> columns(40);
  auto pending = columns.Pending();
  pending[1].count = 17;
  columns.offsets[1][18] = -1;
  EXPECT_TRUE(OffsetsIncrease(pending.data(), pending.size()));
  // With one count for all, the columns' own counts are not read.
  EXPECT_TRUE(OffsetsIncrease(pending.data(), pending.size(), 17));
  EXPECT_FALSE(OffsetsIncrease(pending.data(), pending.size(), 18));
  columns.offsets[1][17] = -1;
  EXPECT_FALSE(OffsetsIncrease(pending.data(), pending.size()));
}

TYPED_TEST(OffsetsOrderTest, NothingPastTheLastOffsetIsRead) {
  using Offset = TypeParam;
  // Each column's last offset is the last value of a page whose next page is not readable.
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  void* mapping =
      ::mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapping, MAP_FAILED);
  auto* bytes = static_cast<uint8_t*>(mapping);
  ASSERT_EQ(::mprotect(bytes + page, page, PROT_NONE), 0);
  auto* page_end = reinterpret_cast<Offset*>(bytes + page);
  for (int64_t count = 0; count <= kMaxCount; ++count) {
    Offset* offsets = page_end - (count + 1);
    for (int64_t i = 0; i <= count; ++i) offsets[i] = static_cast<Offset>(i);
    const PendingOffsets<Offset> pending{offsets, count, 0};
    EXPECT_TRUE(OffsetsIncrease(&pending, 1)) << count << " values";
    EXPECT_TRUE(OffsetsIncrease(&pending, 1, count)) << count << " values";
  }
  ::munmap(mapping, 2 * page);
}

}  // namespace
}  // namespace sluice::ipc
