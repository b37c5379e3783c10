// CompressionWorker: jobs come back oldest first, each block's message is the one an encoder on
// its own writes for the same rows, whichever thread encoded it; Cancel drops what no thread has
// started and leaves nothing in flight; after StopWhenIdle every job is still encoded.
#include <gtest/gtest.h>

#include <numeric>

#include "support/random_batch.h"
#include "write/compression_worker_internal.h"

namespace sluice::internal {
namespace {

class CompressionWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = testing::AllTypesSchema(2);
    for (int b = 0; b < 3; ++b) batches_.push_back(testing::RandomBatch(schema_, 500, 70 + b));
    for (const RecordBatch& batch : batches_) bound_.push_back(&batch);
    // Rows interleaved over the three batches, as a partition's rows come.
    for (uint32_t row = 0; row < 500; ++row) {
      for (uint32_t batch = 0; batch < 3; ++batch) {
        sources_.push_back(batch);
        rows_.push_back(row);
      }
    }
    SegmentEncoderOptions options;
    options.codec = CompressionCodec::kLz4Frame;
    encoder_ = SegmentEncoder::Make(schema_, options).ValueOrDie();
    reference_ = SegmentEncoder::Make(schema_, options).ValueOrDie();
    encoder_->BindBatches(bound_);
    reference_->BindBatches(bound_);
  }

  // Fills slot `slot` with `count` blocks of `rows` rows each, starting at row entry `first`.
  void Plan(CompressionWorker* worker, int slot, int64_t first, int count, int64_t rows) {
    auto& blocks = worker->job(slot)->blocks;
    blocks.clear();
    for (int i = 0; i < count; ++i) {
      const int64_t from = first + i * rows;
      const int64_t ahead = static_cast<int64_t>(rows_.size()) - from - rows;
      blocks.push_back({sources_.data() + from, rows_.data() + from, rows, ahead});
    }
  }

  // A worker with two jobs of many blocks in flight, so that most are unstarted.
  std::unique_ptr<CompressionWorker> StartTwoLongJobs() {
    auto worker = CompressionWorker::Make(encoder_.get()).ValueOrDie();
    worker->BindBatches(bound_);
    Plan(worker.get(), 0, 0, 30, 40);
    Plan(worker.get(), 1, 1200, 10, 30);
    worker->Submit(0);
    worker->Submit(1);
    return worker;
  }

  // The message an encoder alone writes for the block.
  std::vector<uint8_t> Expected(const CompressionWorker::BlockRows& block) {
    AlignedBuffer out;
    EXPECT_TRUE(
        reference_->AppendRows(block.sources, block.rows, block.count, &out, block.readable_ahead)
            .ok());
    return {out.data(), out.data() + out.size()};
  }

  void ExpectMessages(CompressionWorker* worker, int slot) {
    const CompressionWorker::Job& job = *worker->job(slot);
    ASSERT_EQ(job.framed(), job.blocks.size());
    EXPECT_TRUE(job.status().ok());
    for (size_t i = 0; i < job.blocks.size(); ++i) {
      const auto message = job.message(i);
      EXPECT_EQ(std::vector<uint8_t>(message.begin(), message.end()), Expected(job.blocks[i]))
          << "slot " << slot << " block " << i;
    }
  }

  SchemaPtr schema_;
  std::vector<RecordBatch> batches_;
  std::vector<const RecordBatch*> bound_;
  std::vector<uint32_t> sources_;
  std::vector<uint32_t> rows_;
  std::unique_ptr<SegmentEncoder> encoder_;
  std::unique_ptr<SegmentEncoder> reference_;
};

TEST_F(CompressionWorkerTest, TwoJobsInFlightComeBackOldestFirstWithTheEncodersBytes) {
  auto worker = CompressionWorker::Make(encoder_.get()).ValueOrDie();
  worker->BindBatches(bound_);
  // Six rounds: a job is waited for while the next is in flight, as the writer does.
  int64_t first = 0;
  Plan(worker.get(), 0, first, 5, 37);
  first += 5 * 37;
  worker->Submit(0);
  for (int round = 0; round < 6; ++round) {
    const int free = 1 - worker->oldest();
    Plan(worker.get(), free, first, 4 + round, 23);
    first += (4 + round) * 23;
    worker->Submit(free);
    EXPECT_EQ(worker->in_flight(), 2);
    const int done = worker->Wait();
    EXPECT_EQ(done, 1 - free);
    ExpectMessages(worker.get(), done);
  }
  const int last = worker->Wait();
  EXPECT_FALSE(worker->busy());
  ExpectMessages(worker.get(), last);
  EXPECT_GT(worker->encode_nanos(), 0);
}

TEST_F(CompressionWorkerTest, CancelDropsUnstartedBlocksAndLeavesNothingInFlight) {
  auto worker = StartTwoLongJobs();
  worker->Cancel();
  EXPECT_FALSE(worker->busy());
  // The slots are reusable.
  Plan(worker.get(), 1, 0, 3, 50);
  worker->Submit(1);
  EXPECT_EQ(worker->Wait(), 1);
  ExpectMessages(worker.get(), 1);
  worker->Stop();
  worker->Stop();  // idempotent
}

TEST_F(CompressionWorkerTest, JobsInFlightAndJobsAfterStopWhenIdleAreAllEncoded) {
  auto worker = StartTwoLongJobs();
  worker->StopWhenIdle();  // the thread takes its share of what is in flight first
  EXPECT_EQ(worker->Wait(), 0);
  ExpectMessages(worker.get(), 0);
  EXPECT_EQ(worker->Wait(), 1);
  ExpectMessages(worker.get(), 1);
  // A job submitted once the thread may have ended is encoded by the caller.
  Plan(worker.get(), 0, 100, 4, 25);
  worker->Submit(0);
  EXPECT_EQ(worker->Wait(), 0);
  ExpectMessages(worker.get(), 0);
  worker->Stop();
  EXPECT_FALSE(worker->busy());
}

TEST_F(CompressionWorkerTest, StopWithJobsInFlightJoins) {
  auto worker = StartTwoLongJobs();
  worker->Stop();
  EXPECT_FALSE(worker->busy());
}

}  // namespace
}  // namespace sluice::internal
