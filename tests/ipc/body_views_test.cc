// ViewBuffersInBody: every entry becomes the view of its bytes in the body, and what is not
// inside the body (negative, past the end, or too large to add) is reported, whichever of an
// entry's lanes or of the loop's tail it falls on. The module's tests also run with
// SLUICE_SIMD=avx2 and =none, so this checks the portable, AVX2 and AVX-512 loops alike.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "arrow_message_generated.h"
#include "ipc/body_views_internal.h"

namespace sluice::ipc {
namespace {

constexpr int64_t kBodyLength = 4096;

struct Resolved {
  BodyViewsSummary summary;
  std::vector<BufferView> views;
};

Resolved Resolve(const std::vector<fb::Buffer>& entries, const uint8_t* body) {
  Resolved resolved;
  resolved.views.resize(entries.size());
  resolved.summary = ViewBuffersInBody(entries.data(), static_cast<uint32_t>(entries.size()), body,
                                       kBodyLength, resolved.views.data());
  return resolved;
}

TEST(BodyViewsTest, EveryEntryBecomesTheViewOfItsBytes) {
  alignas(64) static uint8_t body[kBodyLength];
  std::mt19937_64 random(7);
  for (uint32_t count = 0; count < 12; ++count) {
    std::vector<fb::Buffer> entries;
    uintptr_t any_address = 0;
    bool any_bytes = false;
    for (uint32_t i = 0; i < count; ++i) {
      const int64_t offset = static_cast<int64_t>(random() % 64) * 64;
      const int64_t length = i % 3 == 1 ? 0 : static_cast<int64_t>(random() % 64);
      entries.emplace_back(offset, length);
      if (length != 0) any_address |= reinterpret_cast<uintptr_t>(body + offset);
      any_bytes |= length != 0;
    }
    const Resolved resolved = Resolve(entries, body);
    EXPECT_TRUE(resolved.summary.inside) << count << " entries";
    EXPECT_EQ(resolved.summary.any_address, any_address) << count << " entries";
    EXPECT_EQ(resolved.summary.any_bytes, any_bytes) << count << " entries";
    for (uint32_t i = 0; i < count; ++i) {
      const int64_t length = entries[i].length();
      // An empty buffer is viewed at no address.
      EXPECT_EQ(resolved.views[i].data, length == 0 ? nullptr : body + entries[i].offset())
          << "entry " << i << " of " << count;
      EXPECT_EQ(resolved.views[i].size, length) << "entry " << i << " of " << count;
    }
  }
}

TEST(BodyViewsTest, ABufferOutsideTheBodyIsReportedAtAnyPlace) {
  alignas(64) static uint8_t body[kBodyLength];
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const fb::Buffer outside[] = {
      fb::Buffer(kBodyLength, 1),
      fb::Buffer(kBodyLength - 8, 9),
      fb::Buffer(0, kBodyLength + 1),
      fb::Buffer(-64, 8),
      fb::Buffer(0, -1),
      fb::Buffer(kMax, 0),
      fb::Buffer(int64_t{1} << 62, 0),
      fb::Buffer(kMax, kMax),
      fb::Buffer(kMin, 64),
      fb::Buffer(64, kMin),
      fb::Buffer(kMax - 7, 8),
      fb::Buffer(8, kMax - 7),
  };
  const fb::Buffer inside[] = {fb::Buffer(0, kBodyLength), fb::Buffer(kBodyLength, 0),
                               fb::Buffer(kBodyLength - 8, 8)};
  for (const fb::Buffer& bad : outside) {
    // The bad entry first, second, or last of an odd or even count: on either lane of a
    // vector step, or in the tail.
    for (uint32_t count = 1; count < 7; ++count) {
      for (uint32_t place = 0; place < count; ++place) {
        std::vector<fb::Buffer> entries;
        for (uint32_t i = 0; i < count; ++i) entries.push_back(i == place ? bad : inside[i % 3]);
        EXPECT_FALSE(Resolve(entries, body).summary.inside)
            << "offset " << bad.offset() << " length " << bad.length() << " at " << place << " of "
            << count;
      }
    }
  }
  std::vector<fb::Buffer> healthy(std::begin(inside), std::end(inside));
  EXPECT_TRUE(Resolve(healthy, body).summary.inside);
}

TEST(BodyViewsTest, AMisalignedAddressShowsInTheSummary) {
  alignas(64) static uint8_t body[kBodyLength];
  for (uint32_t place = 0; place < 5; ++place) {
    std::vector<fb::Buffer> entries(5, fb::Buffer(64, 8));
    entries[place] = fb::Buffer(68, 4);
    EXPECT_EQ(Resolve(entries, body).summary.any_address & 7, 4u) << "at " << place;
    // An empty buffer's offset is not an address: it may be anything inside the body.
    entries[place] = fb::Buffer(68, 0);
    EXPECT_EQ(Resolve(entries, body).summary.any_address & 7, 0u) << "at " << place;
  }
}

}  // namespace
}  // namespace sluice::ipc
