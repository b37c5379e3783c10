// AlignedBufferPool: a buffer comes back when its last owner is dropped, up to the byte budget.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

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

TEST(AlignedBufferPoolTest, TheLastLentIsReusedFirst) {
  auto pool = AlignedBufferPool::Make(1 << 20);
  std::shared_ptr<AlignedBuffer> older = pool->Acquire(1000);
  std::shared_ptr<AlignedBuffer> last = pool->Acquire(1000);
  const uint8_t* last_memory = last->data();
  older.reset();
  last.reset();
  // Both are free; the one lent last (the one still in the cache) comes back, every time.
  for (int round = 0; round < 3; ++round) {
    auto again = pool->Acquire(1000);
    EXPECT_EQ(again->data(), last_memory) << "round " << round;
  }
  EXPECT_EQ(pool->buffers_made(), 2);
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

TEST(AlignedBufferPoolTest, ABufferGrownPastTheBudgetLeavesThePool) {
  auto pool = AlignedBufferPool::Make(4096);
  pool->Acquire(1000);
  bool made = true;
  {
    auto grown = pool->Acquire(100000, &made);
    EXPECT_FALSE(made);
    EXPECT_EQ(grown->size(), 100000);
  }
  EXPECT_EQ(pool->free_buffers(), 0);  // freed when dropped, not kept
  pool->Acquire(10, &made);
  EXPECT_TRUE(made);
}

TEST(AlignedBufferPoolTest, BuffersLentTogetherAreReusedTogether) {
  auto pool = AlignedBufferPool::Make(1 << 20);
  for (int round = 0; round < 3; ++round) {
    std::vector<std::shared_ptr<AlignedBuffer>> held;
    for (int i = 0; i < 10; ++i) held.push_back(pool->Acquire(1000));
    // Ten distinct buffers while all are held.
    for (int i = 1; i < 10; ++i) EXPECT_NE(held[i]->data(), held[i - 1]->data());
  }
  EXPECT_EQ(pool->buffers_made(), 10);
  EXPECT_EQ(pool->free_buffers(), 10);
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
