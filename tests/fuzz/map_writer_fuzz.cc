// Fuzzes the write side as `sluice write` runs it: arbitrary bytes are an Arrow IPC input read a
// message at a time from a descriptor (IpcDescriptorReader, the CLI's input path), and every
// batch it accepts goes through a MapWriter with a tiny budget (so it spills) into a map output
// that is then read back. Every outcome must be a committed output holding every row written, or
// an error, never a crash, a hang, a leak or a read out of bounds; a failed write leaves no file.
//
// Input layout (make_map_writer_corpus.py writes seeds of it):
//   byte 0   partition count - 1 (1..256)
//   byte 1   bits 0-1 codec (none, lz4, zstd, none), bit 2 round-robin instead of hashing
//            column 0, bit 3 CRC32C instead of ADLER32, bit 4 a compression thread
//   then     the Arrow IPC stream or file.
// Batches declaring more than kMaxRows rows are skipped (valid, but slow to shuffle here; the
// CLI tests shuffle 2^31 of them).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "sluice/format/array_validate.h"
#include "sluice/ipc/ipc_descriptor_reader.h"
#include "sluice/read/partition_reader.h"
#include "sluice/write/map_writer.h"

namespace {

constexpr size_t kHeaderBytes = 2;
constexpr int64_t kMaxRows = int64_t{1} << 16;
constexpr int kMaxBatches = 64;

const std::string& Directory() {
  static const std::string* directory = [] {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "map-writer-fuzz-XXXXXX").string();
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

bool DirectoryIsEmpty() {
  return std::filesystem::is_empty(Directory());
}

void RemoveOutputs() {
  for (const auto& entry : std::filesystem::directory_iterator(Directory())) {
    std::filesystem::remove(entry.path());
  }
}

// An in-memory file holding `data`, positioned at its start.
int MemoryFile(const uint8_t* data, size_t size) {
  const int fd = ::memfd_create("map-writer-fuzz", MFD_CLOEXEC);
  if (fd < 0) std::abort();
  size_t done = 0;
  while (done < size) {
    const ssize_t count = ::write(fd, data + done, size - done);
    if (count <= 0) std::abort();
    done += static_cast<size_t>(count);
  }
  ::lseek(fd, 0, SEEK_SET);
  return fd;
}

bool Hashable(const sluice::DataType& type) {
  using sluice::TypeId;
  switch (type.id()) {
    case TypeId::kNull:
      return false;
    default:
      return true;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kHeaderBytes) return 0;
  const int fd = MemoryFile(data + kHeaderBytes, size - kHeaderBytes);
  auto reader = sluice::IpcDescriptorReader::Open(fd, "input");
  if (!reader.ok()) {
    ::close(fd);
    return 0;
  }
  const sluice::SchemaPtr schema = (*reader)->schema();

  sluice::MapWriterOptions options;
  options.schema = schema;
  options.partitioning.partition_count = 1 + data[0];
  const bool round_robin =
      (data[1] & 4) != 0 || schema->num_fields() == 0 || !Hashable(*schema->field(0).type);
  options.partitioning.kind =
      round_robin ? sluice::PartitionKind::kRoundRobin : sluice::PartitionKind::kHash;
  if (!round_robin) options.partitioning.key_columns = {0};
  const sluice::CompressionCodec codecs[] = {
      sluice::CompressionCodec::kNone, sluice::CompressionCodec::kLz4Frame,
      sluice::CompressionCodec::kZstd, sluice::CompressionCodec::kNone};
  options.encoding.codec = codecs[data[1] & 3];
  options.checksum =
      (data[1] & 8) != 0 ? sluice::ChecksumAlgorithm::kCrc32c : sluice::ChecksumAlgorithm::kAdler32;
  options.compression_threads = (data[1] & 16) != 0 ? 1 : 0;
  options.memory_limit = 4096;  // spills nearly every batch
  options.data_path = Directory() + "/shuffle_0_0_0.data";
  options.write_spark_files = true;
  auto writer = sluice::MapWriter::Make(options);
  if (!writer.ok()) {
    ::close(fd);
    if (!DirectoryIsEmpty()) __builtin_trap();  // a failed writer leaves no file
    return 0;
  }

  int64_t rows_written = 0;
  bool failed = false;
  for (int i = 0; i < kMaxBatches; ++i) {
    auto batch = (*reader)->Next();
    if (!batch.ok() || !batch->has_value()) break;
    if ((*batch)->num_rows() > kMaxRows) continue;
    for (size_t c = 0; c < (*batch)->num_columns(); ++c) {
      if (!sluice::ValidateArray((*batch)->column(c), "fuzz").ok()) __builtin_trap();
    }
    if (!(*writer)->Write(**batch).ok()) {
      failed = true;
      break;
    }
    rows_written += (*batch)->num_rows();
  }
  ::close(fd);
  if (failed) {
    writer->reset();
    if (!DirectoryIsEmpty()) __builtin_trap();
    return 0;
  }
  auto output = (*writer)->Finish();
  if (!output.ok()) {
    writer->reset();
    if (!DirectoryIsEmpty()) __builtin_trap();
    return 0;
  }
  // What was committed reads back: every row, valid batches.
  auto read = sluice::PartitionReader::Open({sluice::MapOutputFile::Spark(
      output->data_path, 0, options.partitioning.partition_count, options.checksum)});
  if (!read.ok()) __builtin_trap();
  int64_t rows_read = 0;
  while (true) {
    auto next = (*read)->Next();
    if (!next.ok()) __builtin_trap();
    if (!next->has_value()) break;
    rows_read += (*next)->num_rows();
  }
  if (rows_read != rows_written) __builtin_trap();
  read->reset();
  writer->reset();
  RemoveOutputs();
  return 0;
}
