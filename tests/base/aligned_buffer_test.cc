// AlignedBuffer: storage from the heap below 1 MiB, mapped from the kernel at and above it, and
// bytes kept whichever way it grows.
#include "sluice/base/aligned_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace sluice {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

void Fill(AlignedBuffer* buffer, int64_t size) {
  buffer->Resize(size);
  for (int64_t i = 0; i < size; ++i) buffer->data()[i] = static_cast<uint8_t>(i * 7 + 3);
}

void ExpectFilled(const AlignedBuffer& buffer, int64_t size) {
  for (int64_t i = 0; i < size; ++i) {
    ASSERT_EQ(buffer.data()[i], static_cast<uint8_t>(i * 7 + 3)) << "byte " << i;
  }
}

// Sizes just below the threshold round up to it. The buffer then lived on the heap with a
// capacity that said "mapped", so growing it asked mremap to move heap memory (bad_alloc) and
// releasing it asked munmap to free it (a leak; segment_decoder_fuzz found it under ASan).
TEST(AlignedBufferTest, GrowsAndReleasesAtEverySizeAroundTheMappedThreshold) {
  for (const int64_t size : {kMiB - 200, kMiB - 64, kMiB - 63, kMiB - 1, kMiB, kMiB + 1}) {
    SCOPED_TRACE(size);
    AlignedBuffer buffer;
    Fill(&buffer, size);
    EXPECT_GE(buffer.capacity(), size);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % AlignedBuffer::kAlignment, 0u);
    buffer.Reserve(3 * kMiB + 5);
    ExpectFilled(buffer, size);
    AlignedBuffer moved = std::move(buffer);
    ExpectFilled(moved, size);
  }
}

TEST(AlignedBufferTest, KeepsItsBytesFromTheHeapIntoAMapping) {
  AlignedBuffer buffer;
  Fill(&buffer, 1000);
  buffer.Reserve(5 * kMiB);
  ExpectFilled(buffer, 1000);
  Fill(&buffer, 5 * kMiB);
  buffer.Reserve(40 * kMiB);
  ExpectFilled(buffer, 5 * kMiB);
}

}  // namespace
}  // namespace sluice
