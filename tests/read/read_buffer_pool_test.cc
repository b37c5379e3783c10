// ReadBufferPool: a buffer comes back when its last owner is dropped, up to the byte budget.
#include <gtest/gtest.h>

#include "read/read_buffer_pool_internal.h"

namespace sluice::internal {
namespace {

TEST(ReadBufferPoolTest, BuffersReturnWhenTheLastOwnerIsDropped) {
  auto pool = ReadBufferPool::Make(1 << 20);
  std::shared_ptr<AlignedBuffer> first = pool->Acquire(1000);
  EXPECT_EQ(first->size(), 1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first->data()) % AlignedBuffer::kAlignment, 0u);
  const uint8_t* memory = first->data();
  MemoryOwner batch_owner = first;  // a batch viewing the bytes
  first.reset();
  EXPECT_EQ(pool->free_buffers(), 0);  // still pinned by the batch
  batch_owner.reset();
  EXPECT_EQ(pool->free_buffers(), 1);
  auto again = pool->Acquire(800);
  EXPECT_EQ(again->data(), memory);  // reused
  EXPECT_EQ(pool->buffers_made(), 1);
}

TEST(ReadBufferPoolTest, KeepsNoMoreThanItsBudget) {
  auto pool = ReadBufferPool::Make(4096);
  {
    auto a = pool->Acquire(3000);
    auto b = pool->Acquire(3000);
  }
  EXPECT_EQ(pool->free_buffers(), 1);
  EXPECT_EQ(pool->buffers_made(), 2);
}

TEST(ReadBufferPoolTest, ABufferOutlivingItsPoolIsFreed) {
  std::shared_ptr<AlignedBuffer> buffer;
  {
    auto pool = ReadBufferPool::Make(1 << 20);
    buffer = pool->Acquire(64);
  }
  buffer.reset();  // ASan reports a leak or a use after free if this goes wrong
}

}  // namespace
}  // namespace sluice::internal
