// PushedBlockQueue: blocks in push order, waits that end on a push, a close or the reader
// going away, and pushes refused once nobody will read them.
#include "sluice/read/pushed_block_queue.h"

#include <gtest/gtest.h>

#include <thread>

namespace sluice {
namespace {

SegmentBlock BlockOf(std::shared_ptr<std::string> bytes, std::string name) {
  SegmentBlock block;
  block.data = reinterpret_cast<const uint8_t*>(bytes->data());
  block.size = static_cast<int64_t>(bytes->size());
  block.owner = std::move(bytes);
  block.name = std::move(name);
  return block;
}

TEST(PushedBlockQueueTest, ItemsComeOutInPushOrder) {
  auto queue = PushedBlockQueue::Make();
  auto bytes = std::make_shared<std::string>(24, 'x');
  ASSERT_TRUE(queue->Push(BlockOf(bytes, "a")).ok());
  ASSERT_TRUE(queue->PushFailure("b", Status::IOError("fetch failed")).ok());
  ASSERT_TRUE(queue->Push(BlockOf(bytes, "c")).ok());
  EXPECT_EQ(queue->queued_blocks(), 3);
  EXPECT_EQ(queue->queued_bytes(), 48);
  PushedBlockQueue::Item item;
  ASSERT_EQ(queue->Pop(false, &item), PushedBlockQueue::PopOutcome::kItem);
  EXPECT_EQ(item.block.name, "a");
  ASSERT_EQ(queue->Pop(false, &item), PushedBlockQueue::PopOutcome::kItem);
  EXPECT_EQ(item.block.name, "b");
  EXPECT_TRUE(item.failure.IsIOError());
  ASSERT_EQ(queue->Pop(false, &item), PushedBlockQueue::PopOutcome::kItem);
  EXPECT_EQ(item.block.name, "c");
  EXPECT_EQ(queue->queued_bytes(), 0);
  EXPECT_EQ(queue->Pop(false, &item), PushedBlockQueue::PopOutcome::kNotReady);
  queue->Close();
  EXPECT_EQ(queue->Pop(true, &item), PushedBlockQueue::PopOutcome::kClosed);
  EXPECT_TRUE(queue->Push(BlockOf(bytes, "late")).IsInvalid());
  EXPECT_TRUE(queue->PushFailure("late", Status::IOError("x")).IsInvalid());
  EXPECT_TRUE(queue->PushFailure("ok", Status::OK()).IsInvalid());
}

TEST(PushedBlockQueueTest, AWaitingPopWakesOnPushCloseAndDetach) {
  auto queue = PushedBlockQueue::Make();
  std::thread pusher([&] {
    EXPECT_TRUE(queue->Push(BlockOf(std::make_shared<std::string>(8, 'y'), "late")).ok());
  });
  PushedBlockQueue::Item item;
  EXPECT_EQ(queue->Pop(true, &item), PushedBlockQueue::PopOutcome::kItem);
  pusher.join();
  std::thread closer([&] { queue->Close(); });
  EXPECT_EQ(queue->Pop(true, &item), PushedBlockQueue::PopOutcome::kClosed);
  closer.join();

  auto detached = PushedBlockQueue::Make();
  std::thread reader_gone([&] { detached->Detach(); });
  EXPECT_EQ(detached->Pop(true, &item), PushedBlockQueue::PopOutcome::kDetached);
  reader_gone.join();
}

TEST(PushedBlockQueueTest, DetachReleasesQueuedBlocksAndRefusesMore) {
  auto queue = PushedBlockQueue::Make();
  auto bytes = std::make_shared<std::string>(16, 'z');
  ASSERT_TRUE(queue->Push(BlockOf(bytes, "queued")).ok());
  EXPECT_EQ(bytes.use_count(), 2);
  queue->Detach();
  EXPECT_EQ(bytes.use_count(), 1);  // the owner was released
  EXPECT_EQ(queue->queued_blocks(), 0);
  EXPECT_TRUE(queue->Push(BlockOf(bytes, "refused")).IsCancelled());
  EXPECT_EQ(bytes.use_count(), 1);
}

}  // namespace
}  // namespace sluice
