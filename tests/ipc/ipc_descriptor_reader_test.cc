// IpcDescriptorReader: an Arrow IPC stream read a message at a time from a descriptor (a pipe
// or a file), as `sluice write -` reads standard input. It read the whole input into memory
// first (2.1 GB for 8M rows under a 64 MiB budget); now it holds one message.
#include "sluice/ipc/ipc_descriptor_reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "sluice/format/array_compare.h"
#include "support/encoded_segment.h"
#include "support/random_batch.h"
#include "support/temporary_directory.h"

namespace sluice {
namespace {

std::vector<RecordBatch> Batches(const SchemaPtr& schema) {
  std::vector<RecordBatch> batches;
  for (int i = 0; i < 5; ++i) batches.push_back(testing::RandomBatch(schema, 200 + i * 37, i));
  return batches;
}

// Writes `bytes` into a pipe from another thread; returns the read end.
int PipeOf(std::string bytes, std::thread* writer) {
  int ends[2];
  EXPECT_EQ(::pipe(ends), 0);
  *writer = std::thread([bytes = std::move(bytes), fd = ends[1]] {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t count = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (count <= 0) break;
      done += static_cast<size_t>(count);
    }
    ::close(fd);
  });
  return ends[0];
}

std::string Bytes(const AlignedBuffer& buffer) {
  return std::string(reinterpret_cast<const char*>(buffer.data()),
                     static_cast<size_t>(buffer.size()));
}

Result<std::vector<RecordBatch>> ReadAllFrom(int fd) {
  SLUICE_ASSIGN_OR_RAISE(auto reader, IpcDescriptorReader::Open(fd, "the input"));
  std::vector<RecordBatch> batches;
  while (true) {
    SLUICE_ASSIGN_OR_RAISE(std::optional<RecordBatch> batch, reader->Next());
    if (!batch.has_value()) break;
    batches.push_back(std::move(*batch));
  }
  return batches;
}

TEST(IpcDescriptorReaderTest, ReadsEveryCodecFromAPipe) {
  const auto schema = testing::AllTypesSchema(2);
  const auto batches = Batches(schema);
  for (CompressionCodec codec :
       {CompressionCodec::kNone, CompressionCodec::kLz4Frame, CompressionCodec::kZstd}) {
    std::thread writer;
    const int fd = PipeOf(Bytes(testing::EncodedSegment(schema, batches, codec)), &writer);
    auto read = ReadAllFrom(fd);
    writer.join();
    ::close(fd);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ASSERT_EQ(read->size(), batches.size());
    for (size_t i = 0; i < batches.size(); ++i) {
      EXPECT_TRUE(BatchesEqual((*read)[i], batches[i])) << CompressionCodecName(codec) << " " << i;
    }
  }
}

TEST(IpcDescriptorReaderTest, AFileIsCheckedAgainstItsSize) {
  testing::TemporaryDirectory directory;
  const auto schema = testing::KeyTextValueSchema();
  std::string bytes =
      Bytes(testing::EncodedSegment(schema, Batches(schema), CompressionCodec::kNone));
  // Truncated in the last block's body: the error names the byte where the stream ends.
  testing::WriteFileBytes(directory.Join("short.arrow"), bytes.substr(0, bytes.size() - 40));
  const int fd = ::open(directory.Join("short.arrow").c_str(), O_RDONLY);
  auto read = ReadAllFrom(fd);
  ::close(fd);
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(read.status().IsCorrupt()) << read.status().ToString();
  EXPECT_NE(read.status().message().find("exceeds the"), std::string::npos)
      << read.status().ToString();
}

TEST(IpcDescriptorReaderTest, AnAbsurdBodyLengthIsRefusedBeforeAnyAllocation) {
  const auto schema = testing::KeyTextValueSchema();
  std::string bytes =
      Bytes(testing::EncodedSegment(schema, Batches(schema), CompressionCodec::kNone));
  // A pipe cannot be measured: the decoder's block limit bounds the body.
  IpcDescriptorReaderOptions options;
  options.decoder.max_block_bytes = 1024;
  std::thread writer;
  const int fd = PipeOf(bytes, &writer);
  auto reader = IpcDescriptorReader::Open(fd, "the input", options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto batch = (*reader)->Next();
  // Drain before joining: the writer blocks on a full pipe.
  char sink[4096];
  while (::read(fd, sink, sizeof(sink)) > 0) {
  }
  writer.join();
  ::close(fd);
  ASSERT_FALSE(batch.ok());
  EXPECT_NE(batch.status().message().find("bytes a block may have"), std::string::npos)
      << batch.status().ToString();
}

TEST(IpcDescriptorReaderTest, GarbageAndEmptyInputAreNamed) {
  for (const std::string& bytes : {std::string(), std::string("not arrow at all, really")}) {
    std::thread writer;
    const int fd = PipeOf(bytes, &writer);
    auto read = ReadAllFrom(fd);
    writer.join();
    ::close(fd);
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.status().message().find("the input"), std::string::npos)
        << read.status().ToString();
  }
}

}  // namespace
}  // namespace sluice
