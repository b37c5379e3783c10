// Fuzzes the reduce-side reader: a map output's data file and Spark index built from the input,
// read through every kind of source. Every outcome must be batches that pass validation or an
// error, never a crash, a hang, a leak or an out-of-bounds read.
//
// Input layout (make_partition_reader_corpus.py writes seeds of it):
//   byte 0   flags: bit 0 coalesce, bit 1 skip failed sources, bit 2 read-ahead thread,
//            bit 3 verify CRC32C checksums (computed over the data, so they match), bit 4 make
//            one of them wrong, bit 5 hand each batch back to the reader (TryNext)
//   byte 1   first partition to read
//   byte 2   end of the partition range (exclusive)
//   byte 3   number of index entries n
//   then     n big-endian int64 offsets (the .index file), then the data file.
// The same bytes are read three ways: from files (index and data written to a temporary
// directory), as a memory block with partition lengths and checksums from the index (when the
// index fits the data), and as a pushed block without lengths (streams decoded back to back).
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sluice/base/bit_ops.h"
#include "sluice/codec/checksum.h"
#include "sluice/format/array_validate.h"
#include "sluice/read/partition_reader.h"
#include "sluice/read/pushed_block_queue.h"

namespace {

constexpr size_t kHeaderBytes = 4;
// Bounds the work of one input: real blocks are far below both.
constexpr int kMaxBatches = 256;
constexpr int64_t kMaxBlockBytes = int64_t{64} << 20;

// A temporary directory per process, removed at exit (never destroyed before that: the exit
// handler uses it).
const std::string& Directory() {
  static const std::string* directory = [] {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "partition-reader-fuzz-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    return new std::string(pattern);
  }();
  static const int registered = std::atexit([] {
    std::error_code ignored;
    std::filesystem::remove_all(*directory, ignored);
  });
  (void)registered;
  return *directory;
}

void WriteFile(const std::string& path, const uint8_t* data, size_t size) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

void ExpectValid(const sluice::RecordBatch& batch) {
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    if (!sluice::ValidateArray(batch.column(c), "fuzz").ok()) __builtin_trap();
  }
}

// Reads to the end (or the batch bound); every batch must be valid. With `hand_back`, each
// batch goes back to the reader (TryNext with the same batch), which builds later batches in
// its storage.
void ReadAll(std::vector<sluice::SegmentSource> sources,
             const sluice::PartitionReaderOptions& options, bool hand_back) {
  auto reader = sluice::PartitionReader::Open(std::move(sources), options);
  if (!reader.ok()) return;
  if (!hand_back) {
    for (int i = 0; i < kMaxBatches; ++i) {
      auto next = (*reader)->Next();
      if (!next.ok() || !next->has_value()) return;
      ExpectValid(**next);
    }
    return;
  }
  sluice::RecordBatch batch;
  for (int i = 0; i < kMaxBatches;) {
    auto poll = (*reader)->TryNext(&batch);
    if (!poll.ok() || *poll == sluice::PartitionReader::Poll::kEnd) return;
    if (*poll == sluice::PartitionReader::Poll::kNotReady) {
      std::this_thread::yield();  // the read-ahead thread is decoding; every block is pushed
      continue;
    }
    ExpectValid(batch);
    ++i;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* input, size_t size) {
  if (size < kHeaderBytes) return 0;
  const uint8_t flags = input[0];
  const int32_t start = input[1];
  const int32_t end = input[2];
  const size_t entries = input[3];
  if (size < kHeaderBytes + entries * 8) return 0;
  const uint8_t* index_bytes = input + kHeaderBytes;
  const uint8_t* data = index_bytes + entries * 8;
  const size_t data_size = size - kHeaderBytes - entries * 8;

  sluice::PartitionReaderOptions options;
  options.coalesce = (flags & 1) != 0;
  options.skip_failed_sources = (flags & 2) != 0;
  options.read_ahead_batches = (flags & 4) != 0 ? 1 : 0;
  options.target_batch_rows = 64;
  options.decoder.max_block_bytes = kMaxBlockBytes;
  const bool hand_back = (flags & 32) != 0;

  // From files: the index file as given, the data file as given.
  const std::string data_path = Directory() + "/map.data";
  const std::string index_path = Directory() + "/map.index";
  WriteFile(data_path, data, data_size);
  WriteFile(index_path, index_bytes, entries * 8);
  sluice::MapOutputFile file;
  file.data_path = data_path;
  file.index_path = index_path;
  file.start_partition = start;
  file.end_partition = end;
  ReadAll({file}, options, hand_back);

  // From memory: an exact-size copy, so reads past the end are caught.
  auto bytes = std::make_shared<std::vector<uint8_t>>(data, data + data_size);
  std::vector<int64_t> offsets(entries);
  for (size_t i = 0; i < entries; ++i) {
    offsets[i] = static_cast<int64_t>(
        sluice::bits::FromBigEndian64(sluice::bits::LoadUnaligned<uint64_t>(index_bytes + i * 8)));
  }
  std::vector<sluice::SegmentSource> sources;
  auto block = sluice::SegmentBlock::FromDataFile(
      bytes->data(), static_cast<int64_t>(bytes->size()), bytes, offsets, start, end);
  if (block.ok()) {
    if ((flags & 8) != 0) {
      block->checksum_algorithm = sluice::ChecksumAlgorithm::kCrc32c;
      int64_t position = 0;
      for (int64_t length : block->partition_lengths) {
        block->checksums.push_back(length == 0
                                       ? 0u
                                       : sluice::UpdateChecksum(sluice::ChecksumAlgorithm::kCrc32c,
                                                                0, block->data + position, length));
        position += length;
      }
      if ((flags & 16) != 0 && !block->checksums.empty()) block->checksums.back() += 1;
    }
    sources.push_back(std::move(block).ValueUnsafe());
  }
  sluice::SegmentBlock pushed;
  pushed.data = bytes->data();
  pushed.size = static_cast<int64_t>(bytes->size());
  pushed.owner = bytes;
  pushed.start_partition = start;
  pushed.end_partition = end > start ? end : start + 1;
  auto queue = sluice::PushedBlockQueue::Make();
  if (!queue->Push(std::move(pushed)).ok()) __builtin_trap();
  queue->Close();
  sources.push_back(queue);
  ReadAll(std::move(sources), options, hand_back);
  return 0;
}
