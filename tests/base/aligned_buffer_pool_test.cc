// AlignedBufferPool: a buffer comes back when its last owner is dropped, up to the byte budget.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "base/aligned_buffer_pool_internal.h"

namespace sluice::internal {
namespace {

TEST(AlignedBufferPoolTest, BuffersReturnWhenTheLastOwnerIsDropped) {
  auto pool = AlignedBufferPool::Make(1 << 20);
  std::shared_ptr<AlignedBuffer> first = pool->Acquire(1000);
  EXPECT_EQ(first->size(), 1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first->data()) % AlignedBuffer::kAlignment, 0u);
  const uint8_t* memory = first->data();
  std::shared_ptr<const void> batch_owner = first;  // a batch viewing the bytes (its owner)
  first.reset();
  EXPECT_EQ(pool->free_buffers(), 0);  // still pinned by the batch
  batch_owner.reset();
  EXPECT_EQ(pool->free_buffers(), 1);
  auto again = pool->Acquire(800);
  EXPECT_EQ(again->data(), memory);  // reused
  EXPECT_EQ(pool->buffers_made(), 1);
}

TEST(AlignedBufferPoolTest, AReusedBufferGrowsToTheSizeAsked) {
  auto pool = AlignedBufferPool::Make(1 << 20);
  pool->Acquire(100);
  auto grown = pool->Acquire(100000);
  EXPECT_EQ(grown->size(), 100000);
  EXPECT_GE(grown->capacity(), 100000);
  EXPECT_EQ(pool->buffers_made(), 1);
}

TEST(AlignedBufferPoolTest, BuffersReturnFromTheThreadThatDropsThem) {
  auto pool = AlignedBufferPool::Make(1 << 20);
  for (int round = 0; round < 100; ++round) {
    std::shared_ptr<AlignedBuffer> buffer = pool->Acquire(4096);
    std::memset(buffer->data(), round, 4096);
    std::thread consumer([owner = std::move(buffer)]() mutable { owner.reset(); });
    consumer.join();
  }
  EXPECT_EQ(pool->buffers_made(), 1);
  EXPECT_EQ(pool->free_buffers(), 1);
}

TEST(AlignedBufferPoolTest, KeepsNoMoreThanItsBudget) {
  auto pool = AlignedBufferPool::Make(4096);
  {
    auto a = pool->Acquire(3000);
    auto b = pool->Acquire(3000);
  }
  EXPECT_EQ(pool->free_buffers(), 1);
  EXPECT_EQ(pool->buffers_made(), 2);
}

TEST(AlignedBufferPoolTest, ABufferOutlivingItsPoolIsFreed) {
  std::shared_ptr<AlignedBuffer> buffer;
  {
    auto pool = AlignedBufferPool::Make(1 << 20);
    buffer = pool->Acquire(64);
  }
  buffer.reset();  // ASan reports a leak or a use after free if this goes wrong
}

}  // namespace
}  // namespace sluice::internal
