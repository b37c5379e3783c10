#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "map_output_file_reader_internal.h"
#include "sluice/base/bit_ops.h"
#include "sluice/ipc/compact_segment.h"
#include "sluice/ipc/ipc_format.h"

namespace sluice::internal {

namespace {

using Clock = std::chrono::steady_clock;

int64_t NanosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

// Spark's index and checksum files hold big-endian int64 entries.
constexpr int64_t kEntryBytes = 8;

// An index tail of at most this many bytes is read in one pread with the range's entries; a
// longer one costs a second pread of the last entry instead (4 KiB: a page, as cheap to read
// as 8 bytes).
constexpr int64_t kIndexTailReadBytes = 4096;

// Reads `count` big-endian entries starting at entry `first` of `file`.
Status ReadEntries(const InputFile& file, int64_t first, int64_t count, int64_t* out,
                   FileReadCounters* counters) {
  uint8_t stack_bytes[kIndexTailReadBytes];
  std::vector<uint8_t> heap_bytes;
  uint8_t* bytes = stack_bytes;
  if (count * kEntryBytes > kIndexTailReadBytes) {
    heap_bytes.resize(static_cast<size_t>(count * kEntryBytes));
    bytes = heap_bytes.data();
  }
  const auto start = Clock::now();
  SLUICE_RETURN_NOT_OK(file.ReadAt(first * kEntryBytes, count * kEntryBytes, bytes));
  counters->read_nanos += NanosSince(start);
  counters->bytes_read += count * kEntryBytes;
  counters->file_reads += 1;
  for (int64_t i = 0; i < count; ++i) {
    out[i] = static_cast<int64_t>(
        bits::FromBigEndian64(bits::LoadUnaligned<uint64_t>(bytes + i * kEntryBytes)));
  }
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<MapOutputFileReader>> MapOutputFileReader::Open(const MapOutputFile& file,
                                                                       std::string name,
                                                                       int32_t partition_count,
                                                                       FileReadCounters* counters) {
  std::unique_ptr<MapOutputFileReader> reader(new MapOutputFileReader());
  reader->name_ = std::move(name);
  reader->data_path_ = file.data_path;
  reader->start_partition_ = file.start_partition;
  reader->end_partition_ = file.end_partition;
  reader->next_partition_ = file.start_partition;
  if (file.start_partition < 0 || file.end_partition <= file.start_partition) {
    return Status::Invalid(reader->name_, ": partition range [", file.start_partition, ", ",
                           file.end_partition, ") is empty or negative");
  }
  SLUICE_RETURN_NOT_OK(reader->LoadOffsets(file, partition_count, counters));
  SLUICE_RETURN_NOT_OK(reader->LoadChecksums(file, counters));
  return reader;
}

Status MapOutputFileReader::LoadOffsets(const MapOutputFile& file, int32_t partition_count,
                                        FileReadCounters* counters) {
  const int64_t window = end_partition_ - start_partition_ + 1;
  offsets_.resize(static_cast<size_t>(window));
  // Names an entry in errors: its byte in the index file, or its position in the offsets.
  std::string where;
  auto entry_location = [&](int64_t entry) {
    return file.index_path.empty() ? "offsets[" + std::to_string(entry) + "]"
                                   : where + " byte " + std::to_string(entry * kEntryBytes);
  };
  if (!file.index_path.empty()) {
    where = "index file '" + file.index_path + "'";
    auto opened = InputFile::Open(file.index_path);
    if (!opened.ok()) {
      struct stat info;
      if (::stat(file.index_path.c_str(), &info) != 0 && errno == ENOENT) {
        return Status::IOError(name_, ": there is no index file '", file.index_path,
                               "' to find the partitions in (a map output has one when written "
                               "with Spark's files: the writer setting spark-files=true, "
                               "spark_files=True in Python), nor offsets given instead");
      }
      return opened.status().WithContext(name_);
    }
    const InputFile& index = **opened;
    if (index.size() % kEntryBytes != 0 || index.size() == 0) {
      return Status::Corrupt(name_, ": ", where, " has ", index.size(),
                             " bytes, expected a whole number of 8-byte offsets, at least one");
    }
    const int64_t entries = index.size() / kEntryBytes;
    partition_count_ = entries - 1;
    if (end_partition_ > partition_count_) {
      return Status::Corrupt(name_, ": ", where, " holds offsets of ", partition_count_,
                             " partitions, too few for partitions [", start_partition_, ", ",
                             end_partition_, ")");
    }
    const int64_t tail = entries - start_partition_;
    if (tail * kEntryBytes <= kIndexTailReadBytes) {
      std::vector<int64_t> entries_read(static_cast<size_t>(tail));
      Status read = ReadEntries(index, start_partition_, tail, entries_read.data(), counters);
      if (!read.ok()) return read.WithContext(name_);
      std::copy_n(entries_read.begin(), window, offsets_.begin());
      last_offset_ = entries_read.back();
    } else {
      Status read = ReadEntries(index, start_partition_, window, offsets_.data(), counters);
      if (read.ok()) read = ReadEntries(index, entries - 1, 1, &last_offset_, counters);
      if (!read.ok()) return read.WithContext(name_);
    }
  } else {
    where = "the offsets";
    if (file.offsets.empty()) {
      return Status::Invalid(name_, ": neither an index file nor offsets are given");
    }
    partition_count_ = static_cast<int64_t>(file.offsets.size()) - 1;
    if (end_partition_ > partition_count_) {
      return Status::Invalid(name_, ": the offsets describe ", partition_count_,
                             " partitions, too few for partitions [", start_partition_, ", ",
                             end_partition_, ")");
    }
    std::copy_n(file.offsets.begin() + start_partition_, window, offsets_.begin());
    last_offset_ = file.offsets.back();
  }
  if (partition_count >= 0 && partition_count_ != partition_count) {
    return Status::Corrupt(name_, ": ", where, " describes ", partition_count_,
                           " partitions, expected ", partition_count);
  }
  if (start_partition_ == 0 && offsets_[0] != 0) {
    return Status::Corrupt(name_, ": ", entry_location(0), ": the first offset is ", offsets_[0],
                           ", expected 0");
  }
  if (offsets_[0] < 0) {
    return Status::Corrupt(name_, ": ", entry_location(start_partition_), ": partition ",
                           start_partition_, " starts at negative offset ", offsets_[0]);
  }
  for (int64_t i = 1; i < window; ++i) {
    const int64_t partition = start_partition_ + i;
    if (offsets_[i] < offsets_[i - 1]) {
      return Status::Corrupt(name_, ": ", entry_location(partition), ": offset of partition ",
                             partition, " (", offsets_[i], ") is below that of partition ",
                             partition - 1, " (", offsets_[i - 1], ")");
    }
  }
  if (offsets_.back() > last_offset_) {
    return Status::Corrupt(name_, ": ", entry_location(end_partition_), ": partition ",
                           end_partition_ - 1, " ends at byte ", offsets_.back(),
                           ", past the end of the data (", last_offset_, ", the last offset)");
  }
  return Status::OK();
}

Status MapOutputFileReader::LoadChecksums(const MapOutputFile& file, FileReadCounters* counters) {
  checksum_algorithm_ = file.checksum_algorithm;
  if (checksum_algorithm_ == ChecksumAlgorithm::kNone) return Status::OK();
  const int64_t count = end_partition_ - start_partition_;
  checksums_.resize(static_cast<size_t>(count));
  if (file.checksum_path.empty()) {
    if (static_cast<int64_t>(file.checksums.size()) != partition_count_) {
      return Status::Invalid(name_, ": ", file.checksums.size(), " ",
                             ChecksumAlgorithmName(checksum_algorithm_), " checksums given for ",
                             partition_count_, " partitions");
    }
    std::copy_n(file.checksums.begin() + start_partition_, count, checksums_.begin());
    return Status::OK();
  }
  const std::string where = "checksum file '" + file.checksum_path + "'";
  auto opened = InputFile::Open(file.checksum_path);
  if (!opened.ok()) return opened.status().WithContext(name_);
  const InputFile& checksum_file = **opened;
  if (checksum_file.size() != partition_count_ * kEntryBytes) {
    return Status::Corrupt(name_, ": ", where, " has ", checksum_file.size(),
                           " bytes, expected 8 for each of the ", partition_count_, " partitions");
  }
  std::vector<int64_t> values(static_cast<size_t>(count));
  Status read = ReadEntries(checksum_file, start_partition_, count, values.data(), counters);
  if (!read.ok()) return read.WithContext(name_);
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t value = static_cast<uint64_t>(values[i]);
    if (value > 0xffffffffu) {
      return Status::Corrupt(name_, ": ", where, " byte ", (start_partition_ + i) * kEntryBytes,
                             ": the checksum of partition ", start_partition_ + i, " (", value,
                             ") is not a 32-bit value");
    }
    checksums_[i] = static_cast<uint32_t>(value);
  }
  return Status::OK();
}

Status MapOutputFileReader::OpenDataFile() {
  auto opened = InputFile::Open(data_path_);
  if (!opened.ok()) return opened.status().WithContext(name_);
  data_ = std::move(opened).ValueUnsafe();
  const int64_t size = data_->size();
  if (offsets_.back() > size) {
    // Name the first partition of the range that does not fit.
    int32_t partition = start_partition_;
    while (offsets_[partition - start_partition_ + 1] <= size) ++partition;
    return Status::Corrupt(name_, " partition ", partition, ": byte ",
                           offsets_[partition - start_partition_], ": the partition spans [",
                           offsets_[partition - start_partition_], ", ",
                           offsets_[partition - start_partition_ + 1], ") but data file '",
                           data_path_, "' has only ", size, " bytes");
  }
  if (last_offset_ != size) {
    return Status::Corrupt(name_, ": byte ", std::min(last_offset_, size),
                           ": the partitions end at byte ", last_offset_, " but data file '",
                           data_path_, "' has ", size, " bytes");
  }
  return Status::OK();
}

Result<std::optional<SegmentBlock>> MapOutputFileReader::ReadNext(AlignedBufferPool* pool,
                                                                  int64_t max_read_bytes,
                                                                  FileReadCounters* counters) {
  if (next_partition_ >= end_partition_) return std::optional<SegmentBlock>();
  const int32_t first = next_partition_;
  auto offset_of = [&](int32_t partition) { return offsets_[partition - start_partition_]; };
  int32_t last = first;  // exclusive
  while (last < end_partition_ &&
         (last == first || offset_of(last + 1) - offset_of(first) <= max_read_bytes)) {
    ++last;
  }
  SegmentBlock block;
  block.name = name_;
  block.start_partition = first;
  block.end_partition = last;
  block.base_offset = offset_of(first);
  block.partition_lengths.resize(static_cast<size_t>(last - first));
  for (int32_t p = first; p < last; ++p) {
    block.partition_lengths[p - first] = offset_of(p + 1) - offset_of(p);
  }
  if (checksum_algorithm_ != ChecksumAlgorithm::kNone) {
    block.checksum_algorithm = checksum_algorithm_;
    block.checksums.assign(checksums_.begin() + (first - start_partition_),
                           checksums_.begin() + (last - start_partition_));
  }
  const int64_t size = offset_of(last) - offset_of(first);
  if (size > 0) {
    if (data_ == nullptr) SLUICE_RETURN_NOT_OK(OpenDataFile());
    std::shared_ptr<AlignedBuffer> buffer = pool->Acquire(size);
    const auto start = Clock::now();
    Status read = data_->ReadAt(block.base_offset, size, buffer->data());
    counters->read_nanos += NanosSince(start);
    if (!read.ok()) {
      return read.WithContext(name_ + " partitions [" + std::to_string(first) + ", " +
                              std::to_string(last) + ")");
    }
    counters->bytes_read += size;
    counters->file_reads += 1;
    block.data = buffer->data();
    block.size = size;
    block.owner = std::move(buffer);
  }
  next_partition_ = last;
  return std::optional<SegmentBlock>(std::move(block));
}

Result<std::optional<SegmentBlock>> MapOutputFileReader::ReadSchemaMessage(
    FileReadCounters* counters) {
  if (last_offset_ == 0) return std::optional<SegmentBlock>();
  if (data_ == nullptr) SLUICE_RETURN_NOT_OK(OpenDataFile());
  uint8_t prefix[ipc::kMessagePrefixSize];
  const int64_t prefix_size = std::min<int64_t>(ipc::kMessagePrefixSize, last_offset_);
  SLUICE_RETURN_NOT_OK(data_->ReadAt(0, prefix_size, prefix).WithContext(name_));
  if (IsCompactSegment(prefix, prefix_size)) return ReadCompactSegmentAtStart(counters);
  int64_t header = 4;
  int64_t metadata_size = bits::LoadUnaligned<int32_t>(prefix);
  if (static_cast<uint32_t>(metadata_size) == ipc::kContinuationMarker && prefix_size == 8) {
    metadata_size = bits::LoadUnaligned<int32_t>(prefix + 4);
    header = 8;
  }
  if (metadata_size <= 0 || metadata_size > last_offset_ - header) {
    return Status::Corrupt(name_, ": byte 0: the first message's metadata length ", metadata_size,
                           " does not fit the data file's ", last_offset_, " bytes");
  }
  auto buffer = std::make_shared<AlignedBuffer>();
  buffer->Resize(header + metadata_size);
  const auto start = Clock::now();
  SLUICE_RETURN_NOT_OK(data_->ReadAt(0, buffer->size(), buffer->data()).WithContext(name_));
  counters->read_nanos += NanosSince(start);
  counters->bytes_read += prefix_size + buffer->size();
  counters->file_reads += 2;
  SegmentBlock block;
  block.name = name_;
  block.data = buffer->data();
  block.size = buffer->size();
  block.owner = std::move(buffer);
  return std::optional<SegmentBlock>(std::move(block));
}

// The first segment is compact: its schema is inside its frame, so the whole segment is read
// (a chunk at a time until the frame's end is in it; compact segments are small).
Result<std::optional<SegmentBlock>> MapOutputFileReader::ReadCompactSegmentAtStart(
    FileReadCounters* counters) {
  int64_t chunk = std::min(kFirstCompactChunkBytes, last_offset_);
  while (true) {
    auto buffer = std::make_shared<AlignedBuffer>();
    buffer->Resize(chunk);
    const auto start = Clock::now();
    SLUICE_RETURN_NOT_OK(data_->ReadAt(0, chunk, buffer->data()).WithContext(name_));
    counters->read_nanos += NanosSince(start);
    counters->bytes_read += chunk;
    counters->file_reads += 1;
    Result<CompactSegmentExtent> extent = MeasureCompactSegment(buffer->data(), chunk);
    if (extent.ok()) {
      SegmentBlock block;
      block.name = name_;
      block.data = buffer->data();
      block.size = extent->size;
      block.owner = std::move(buffer);
      return std::optional<SegmentBlock>(std::move(block));
    }
    if (chunk == last_offset_) {
      return Status::Corrupt(name_, ": byte 0: the first segment: ", extent.status().message());
    }
    chunk = std::min(chunk * 2, last_offset_);
  }
}

}  // namespace sluice::internal
