// C streams: a reader exported as an ArrowArrayStream and imported back, error propagation both
// ways, and stream lifetimes.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "format/c_data_fixture.h"
#include "sluice/format/array_compare.h"
#include "sluice/format/c_data.h"
#include "support/random_batch.h"

namespace sluice {
namespace {

using testing::FailsWith;

// Yields the given batches, then fails with `error` if it is set, else ends.
class VectorReader : public RecordBatchReader {
 public:
  VectorReader(SchemaPtr schema, std::vector<RecordBatch> batches, Status error = Status::OK())
      : schema_(std::move(schema)), batches_(std::move(batches)), error_(std::move(error)) {}

  const SchemaPtr& schema() const override { return schema_; }

  Result<std::optional<RecordBatch>> Next() override {
    if (next_ < batches_.size()) return std::optional<RecordBatch>(batches_[next_++]);
    if (!error_.ok()) return error_;
    return std::optional<RecordBatch>();
  }

 private:
  SchemaPtr schema_;
  std::vector<RecordBatch> batches_;
  Status error_;
  size_t next_ = 0;
};

std::vector<RecordBatch> SomeBatches(const SchemaPtr& schema) {
  std::vector<RecordBatch> batches;
  batches.push_back(testing::RandomBatch(schema, 20, 1));
  batches.push_back(testing::RandomBatch(schema, 0, 2));
  batches.push_back(testing::RandomBatch(schema, 33, 3).Slice(7, 21));
  return batches;
}

TEST(CDataStreamTest, RoundTripsAReader) {
  const SchemaPtr schema = testing::AllTypesSchema(2);
  const std::vector<RecordBatch> batches = SomeBatches(schema);
  ArrowArrayStream stream{};
  ASSERT_TRUE(
      ExportRecordBatchReader(std::make_unique<VectorReader>(schema, batches), &stream).ok());
  Result<std::unique_ptr<RecordBatchReader>> reader = ImportArrayStream(&stream);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ(stream.release, nullptr);  // moved into the reader
  EXPECT_TRUE((*reader)->schema()->Equals(*schema));
  for (const RecordBatch& expected : batches) {
    Result<std::optional<RecordBatch>> next = (*reader)->Next();
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    ASSERT_TRUE(next->has_value());
    std::string difference;
    EXPECT_TRUE(BatchesEqual(expected, **next, &difference)) << difference;
  }
  for (int i = 0; i < 2; ++i) {  // the end repeats
    Result<std::optional<RecordBatch>> end = (*reader)->Next();
    ASSERT_TRUE(end.ok());
    EXPECT_FALSE(end->has_value());
  }
}

TEST(CDataStreamTest, ExportedStreamSignalsEndWithAReleasedArray) {
  const SchemaPtr schema = testing::AllTypesSchema(1);
  ArrowArrayStream stream{};
  ASSERT_TRUE(ExportRecordBatchReader(
                  std::make_unique<VectorReader>(
                      schema, std::vector<RecordBatch>{testing::RandomBatch(schema, 5, 1)}),
                  &stream)
                  .ok());
  ArrowSchema c_schema{};
  ASSERT_EQ(stream.get_schema(&stream, &c_schema), 0);
  EXPECT_STREQ(c_schema.format, "+s");
  c_schema.release(&c_schema);
  ArrowArray array{};
  ASSERT_EQ(stream.get_next(&stream, &array), 0);
  ASSERT_NE(array.release, nullptr);
  EXPECT_EQ(array.length, 5);
  array.release(&array);
  ASSERT_EQ(stream.get_next(&stream, &array), 0);
  EXPECT_EQ(array.release, nullptr);
  stream.release(&stream);
  EXPECT_EQ(stream.release, nullptr);
}

TEST(CDataStreamTest, ExportedStreamReportsReaderErrors) {
  const SchemaPtr schema = testing::AllTypesSchema(1);
  ArrowArrayStream stream{};
  ASSERT_TRUE(ExportRecordBatchReader(
                  std::make_unique<VectorReader>(
                      schema, std::vector<RecordBatch>{testing::RandomBatch(schema, 5, 1)},
                      Status::IOError("disk on fire in segment 3")),
                  &stream)
                  .ok());
  ArrowArray array{};
  ASSERT_EQ(stream.get_next(&stream, &array), 0);
  array.release(&array);
  EXPECT_EQ(stream.get_next(&stream, &array), EIO);
  ASSERT_NE(stream.get_last_error(&stream), nullptr);
  EXPECT_NE(std::string(stream.get_last_error(&stream)).find("disk on fire in segment 3"),
            std::string::npos);
  stream.release(&stream);
}

TEST(CDataStreamTest, ImportedReaderCarriesTheProducersErrorText) {
  const SchemaPtr schema = testing::AllTypesSchema(1);
  ArrowArrayStream stream{};
  ASSERT_TRUE(ExportRecordBatchReader(
                  std::make_unique<VectorReader>(
                      schema, std::vector<RecordBatch>{testing::RandomBatch(schema, 5, 1)},
                      Status::Invalid("bad partition 7")),
                  &stream)
                  .ok());
  Result<std::unique_ptr<RecordBatchReader>> reader = ImportArrayStream(&stream);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ASSERT_TRUE((*reader)->Next().ok());
  for (int i = 0; i < 2; ++i) {  // the error repeats
    Status status = (*reader)->Next().status();
    EXPECT_TRUE(status.IsInvalid()) << status.ToString();
    EXPECT_TRUE(FailsWith(status, {"ArrowArrayStream.get_next", "EINVAL", "bad partition 7"}));
  }
}

// A C stream written by hand: get_schema and get_next fail or succeed as configured.
struct HandStream {
  testing::CDataFactory factory;
  int schema_error = 0;
  int next_error = 0;
  int releases = 0;
  int next_calls = 0;

  static HandStream* Self(ArrowArrayStream* stream) {
    return static_cast<HandStream*>(stream->private_data);
  }
  static int GetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
    HandStream* self = Self(stream);
    if (self->schema_error != 0) return self->schema_error;
    auto* root = self->factory.Schema("+s", "", 0, {self->factory.Schema("i", "a")});
    *out = root->schema;
    root->schema.release = nullptr;  // moved to the consumer
    return 0;
  }
  static int GetNext(ArrowArrayStream* stream, ArrowArray* out) {
    HandStream* self = Self(stream);
    ++self->next_calls;
    if (self->next_error != 0) return self->next_error;
    testing::CDataFactory& factory = self->factory;
    auto* column = factory.Array(2, {nullptr, factory.Buffer<int32_t>({4, 5})});
    auto* root = factory.Array(2, {nullptr}, {column});
    *out = root->array;
    root->array.release = nullptr;  // moved to the consumer
    return 0;
  }
  static const char* GetLastError(ArrowArrayStream*) { return "the producer's own words"; }
  static void Release(ArrowArrayStream* stream) {
    ++Self(stream)->releases;
    stream->release = nullptr;
  }

  ArrowArrayStream Make() {
    return ArrowArrayStream{GetSchema, GetNext, GetLastError, Release, this};
  }
};

TEST(CDataStreamTest, ImportedStreamIsReleasedWithTheReader) {
  HandStream hand;
  ArrowArrayStream stream = hand.Make();
  std::optional<RecordBatch> batch;
  {
    Result<std::unique_ptr<RecordBatchReader>> reader = ImportArrayStream(&stream);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    Result<std::optional<RecordBatch>> next = (*reader)->Next();
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    batch = std::move(**next);
    EXPECT_EQ(hand.releases, 0);
  }
  EXPECT_EQ(hand.releases, 1);
  // Batches do not depend on the stream's lifetime.
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->column(0).values<int32_t>()[1], 5);
}

TEST(CDataStreamTest, GetNextErrorsCarryTheLastErrorText) {
  HandStream hand;
  hand.next_error = EIO;
  ArrowArrayStream stream = hand.Make();
  Result<std::unique_ptr<RecordBatchReader>> reader = ImportArrayStream(&stream);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  Status status = (*reader)->Next().status();
  EXPECT_TRUE(status.IsIOError()) << status.ToString();
  EXPECT_TRUE(FailsWith(status, {"get_next", "EIO", "the producer's own words"}));
  // The error is sticky: the producer is not asked again.
  EXPECT_FALSE((*reader)->Next().ok());
  EXPECT_EQ(hand.next_calls, 1);
}

TEST(CDataStreamTest, GetSchemaErrorsFailTheImportAndReleaseTheStream) {
  HandStream hand;
  hand.schema_error = ENOMEM;
  ArrowArrayStream stream = hand.Make();
  Result<std::unique_ptr<RecordBatchReader>> reader = ImportArrayStream(&stream);
  EXPECT_TRUE(reader.status().IsOutOfMemory());
  EXPECT_TRUE(FailsWith(reader.status(), {"get_schema", "ENOMEM", "the producer's own words"}));
  EXPECT_EQ(hand.releases, 1);
}

TEST(CDataStreamTest, RejectsReleasedStream) {
  ArrowArrayStream stream{};
  EXPECT_TRUE(FailsWith(ImportArrayStream(&stream).status(), {"ArrowArrayStream.release is NULL"}));
}

}  // namespace
}  // namespace sluice
