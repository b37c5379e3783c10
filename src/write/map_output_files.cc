#include "sluice/write/map_output_files.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>

#include "sluice/base/stopwatch.h"
#include "sluice/io/input_file.h"
#include "sluice/io/output_target.h"
#include "sluice/io/spark_shuffle_files.h"
#include "sluice/ipc/compact_segment.h"
#include "sluice/ipc/ipc_format.h"

namespace sluice {

namespace {

// Spill pieces at least this large go through copy_file_range; smaller ones through one
// sequential read buffer per spill file, so a merge of many small partitions costs a syscall per
// megabyte, not per partition.
constexpr int64_t kKernelCopyMinBytes = int64_t{1} << 20;
constexpr int64_t kSpillReadBufferBytes = int64_t{1} << 20;

bool FileExists(const std::string& path) {
  struct stat info;
  return ::lstat(path.c_str(), &info) == 0;
}

// Renames without replacing an existing file (renameat2 RENAME_NOREPLACE), or replacing it when
// it is a regular file (never a device, FIFO or socket; `to` has its links followed already).
Status CommitRename(const std::string& from, const std::string& to, bool overwrite) {
  if (overwrite) {
    SLUICE_RETURN_NOT_OK(CheckReplaceable(to));
    return RenameFile(from, to);
  }
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) != 0) {
    const int error = errno;
    if (error == EEXIST) {
      return Status::IOError("'", to,
                             "' appeared while this task ran; a committed map output "
                             "is never overwritten");
    }
    return Status::IOError("cannot rename '", from, "' to '", to, "': ", ErrnoMessage(error));
  }
  return Status::OK();
}

}  // namespace

// Where one partition's piece of a spill lies, and how it was written.
struct MapOutputFiles::SpillPiece {
  int32_t partition = 0;
  bool plain = false;  // one plain RecordBatch message (compaction), else compressed blocks
  uint32_t checksum = 0;
  int64_t offset = 0;
  int64_t length = 0;
};

// One spill event: a file with every partition that had rows, in order, and where each lies.
struct MapOutputFiles::SpillRecord {
  std::unique_ptr<OutputFile> file;  // closed after writing; removes the file when destroyed
  std::unique_ptr<InputFile> reader;
  std::vector<SpillPiece> pieces;  // partitions ascending
  int64_t bytes = 0;
};

// A partition's piece of one spill, while the data file is assembled.
struct MapOutputFiles::PartitionPiece {
  const SpillPiece* piece = nullptr;
  size_t spill = 0;
};

MapOutputFiles::MapOutputFiles(MapOutputFilesOptions options, int32_t partition_count,
                               std::span<const uint8_t> schema_message)
    : options_(std::move(options)),
      partition_count_(partition_count),
      schema_message_(schema_message.begin(), schema_message.end()) {}

MapOutputFiles::~MapOutputFiles() {
  Abort();
}

Result<std::unique_ptr<MapOutputFiles>> MapOutputFiles::Create(
    MapOutputFilesOptions options, int32_t partition_count,
    std::span<const uint8_t> schema_message) {
  if (options.data_path.empty()) return Status::Invalid("a data file path is required");
  if (options.spill_directories.empty()) return Status::Invalid("a spill directory is required");
  if (options.write_in_place &&
      (options.overwrite || !options.index_path.empty() || !options.checksum_path.empty())) {
    return Status::Invalid(
        "write-in-place is for a host that commits the data file itself: not with overwrite or "
        "Spark's index and checksum files");
  }
  // A symbolic link is followed: its target is replaced, never the link.
  for (std::string* path : {&options.data_path, &options.index_path, &options.checksum_path}) {
    if (path->empty()) continue;
    SLUICE_ASSIGN_OR_RAISE(*path, FollowSymbolicLinks(*path));
    if (options.overwrite) {
      SLUICE_RETURN_NOT_OK(CheckReplaceable(*path));
    } else if (FileExists(*path)) {
      return Status::IOError("'", *path,
                             "' already exists; a committed map output is never "
                             "overwritten (set overwrite to replace it)");
    }
  }
  std::unique_ptr<MapOutputFiles> files(
      new MapOutputFiles(std::move(options), partition_count, schema_message));
  const std::string& data_path = files->options_.data_path;
  SLUICE_ASSIGN_OR_RAISE(
      files->data_file_,
      OutputFile::Create(files->options_.write_in_place ? data_path : TemporaryPathFor(data_path),
                         files->options_.file));
  // The pieces every non-empty partition starts and ends with, checksummed once.
  const ChecksumAlgorithm algorithm = files->options_.checksum;
  files->schema_checksum_ =
      UpdateChecksum(algorithm, EmptyChecksum(algorithm), files->schema_message_.data(),
                     static_cast<int64_t>(files->schema_message_.size()));
  files->end_of_stream_checksum_ =
      UpdateChecksum(algorithm, EmptyChecksum(algorithm), ipc::kEndOfStream.data(),
                     static_cast<int64_t>(ipc::kEndOfStream.size()));
  return files;
}

Status MapOutputFiles::FlushIfFull(OutputFile* file) {
  if (file->pending()->size() < options_.file.flush_bytes) return Status::OK();
  return TimedFlush(file);
}

Status MapOutputFiles::TimedFlush(OutputFile* file) {
  const auto start = SteadyClock::now();
  Status status = file->Flush();
  metrics_.write_nanos += NanosSince(start);
  return status;
}

Status MapOutputFiles::Spill(const HasRows& has_rows, const EncodePartition& encode) {
  const auto flush_start = SteadyClock::now();
  Status status = WriteSpill(has_rows, encode);
  metrics_.flush_nanos += NanosSince(flush_start);
  return status;
}

void MapOutputFiles::EnableCompaction(CompactSegmentEncoder* encoder, int64_t max_bytes,
                                      SchemaReferences schema_references, PlainRows plain_rows) {
  compact_encoder_ = encoder;
  schema_references_ = schema_references;
  compact_max_bytes_ = max_bytes;
  plain_rows_ = std::move(plain_rows);
}

const MapOutputFiles::SpillPiece* MapOutputFiles::FindPiece(const SpillRecord& spill,
                                                            int32_t partition) const {
  auto found = std::lower_bound(
      spill.pieces.begin(), spill.pieces.end(), partition,
      [](const SpillPiece& piece, int32_t wanted) { return piece.partition < wanted; });
  return found != spill.pieces.end() && found->partition == partition ? &*found : nullptr;
}

bool MapOutputFiles::WritesHeldRowsPlain(int32_t partition) const {
  if (compact_encoder_ == nullptr) return false;
  int64_t bytes = plain_rows_.estimated_bytes(partition);
  if (bytes > compact_max_bytes_) return false;
  if (!assembling_) return true;
  for (const SpillRecord& spill : spills_) {
    const SpillPiece* piece = FindPiece(spill, partition);
    if (piece == nullptr) continue;
    if (!piece->plain) return false;
    bytes += piece->length;
    if (bytes > compact_max_bytes_) return false;
  }
  return true;
}

Status MapOutputFiles::WriteSpill(const HasRows& has_rows, const EncodePartition& encode) {
  static std::atomic<uint64_t> spill_counter{0};
  const std::string& directory =
      options_.spill_directories[spills_.size() % options_.spill_directories.size()];
  const std::string path = directory + "/sluice-spill-" + std::to_string(::getpid()) + "-" +
                           std::to_string(spill_counter++) + ".tmp";
  SpillRecord spill;
  SLUICE_ASSIGN_OR_RAISE(spill.file, OutputFile::Create(path, options_.file));
  OutputFile* file = spill.file.get();
  for (int32_t p = 0; p < partition_count_; ++p) {
    if (!has_rows(p)) continue;
    SpillPiece piece;
    piece.partition = p;
    piece.offset = file->position();
    Checksum checksum(options_.checksum);
    if (WritesHeldRowsPlain(p)) {
      SLUICE_RETURN_NOT_OK(plain_rows_.encode(p, file->pending()));
      piece.plain = true;
      SLUICE_RETURN_NOT_OK(FlushIfFull(file));
    } else {
      SLUICE_RETURN_NOT_OK(encode(p, file, &checksum));
      piece.checksum = checksum.value();
    }
    piece.length = file->position() - piece.offset;
    spill.pieces.push_back(piece);
  }
  spill.bytes = file->position();
  SLUICE_RETURN_NOT_OK(TimedFlush(file));
  SLUICE_RETURN_NOT_OK(file->Close());
  SLUICE_ASSIGN_OR_RAISE(spill.reader, InputFile::Open(path));
  metrics_.spills += 1;
  metrics_.spill_bytes += spill.bytes;
  spills_.push_back(std::move(spill));
  return Status::OK();
}

Status MapOutputFiles::Finish(const HasRows& has_rows, const EncodePartition& encode,
                              MapOutputLayout* output) {
  const auto flush_start = SteadyClock::now();
  Status status = WriteDataFile(has_rows, encode, output);
  metrics_.flush_nanos += NanosSince(flush_start);
  return status;
}

Status MapOutputFiles::WriteDataFile(const HasRows& has_rows, const EncodePartition& encode,
                                     MapOutputLayout* output) {
  output->checksum_algorithm = options_.checksum;
  output->offsets.assign(static_cast<size_t>(partition_count_) + 1, 0);
  output->lengths.assign(static_cast<size_t>(partition_count_), 0);
  output->checksums.clear();
  if (options_.checksum != ChecksumAlgorithm::kNone) {
    output->checksums.resize(static_cast<size_t>(partition_count_));
  }
  spill_readers_.clear();
  spill_readers_.reserve(spills_.size());
  for (const auto& spill : spills_) {
    spill_readers_.emplace_back(spill.reader.get(), kSpillReadBufferBytes);
  }
  assembling_ = true;
  std::vector<size_t> next_piece(spills_.size(), 0);  // each spill's first piece not yet written
  std::vector<PartitionPiece> pieces;
  OutputFile* data = data_file_.get();
  // The partition written last, whose checksum stays open: a compact segment ends anywhere, and
  // the padding that starts the next segment aligned is its partition's last bytes.
  int32_t last_written = -1;
  Checksum last_checksum(options_.checksum);
  for (int32_t p = 0; p < partition_count_; ++p) {
    pieces.clear();
    for (size_t s = 0; s < spills_.size(); ++s) {
      const std::vector<SpillPiece>& spilled = spills_[s].pieces;
      if (next_piece[s] < spilled.size() && spilled[next_piece[s]].partition == p) {
        pieces.push_back(PartitionPiece{&spilled[next_piece[s]], s});
        next_piece[s] += 1;
      }
    }
    const bool held = has_rows(p);
    if (!held && pieces.empty()) {
      if (!output->checksums.empty()) output->checksums[p] = EmptyChecksum(options_.checksum);
      continue;
    }
    if (last_written >= 0) {
      AlignedBuffer* pending = data->pending();
      const int64_t padding_start = pending->size();
      AppendAlignmentFrame(data->position(), pending);
      last_checksum.Update(pending->data() + padding_start, pending->size() - padding_start);
      EndPartition(last_written, p, last_checksum, output);
      // Flushed only here, where the file's length is a multiple of 8: the encoders align what
      // they append to pending() by its size.
      SLUICE_RETURN_NOT_OK(FlushIfFull(data));
    }
    last_checksum.Reset();
    SLUICE_RETURN_NOT_OK(WritePartition(p, held, pieces, encode, &last_checksum));
    last_written = p;
  }
  if (last_written >= 0) EndPartition(last_written, partition_count_, last_checksum, output);
  spill_readers_.clear();
  output->offsets[partition_count_] = data->position();
  SLUICE_RETURN_NOT_OK(TimedFlush(data));
  if (options_.sync) SLUICE_RETURN_NOT_OK(data->Sync());
  SLUICE_RETURN_NOT_OK(data->Close());
  spills_.clear();  // removes the spill files
  // Everything that allocates comes before the commit: once the files are in place, a failure
  // must not be reported for an output that exists.
  output->data_path = options_.data_path;
  output->index_path = options_.index_path;
  output->checksum_path = options_.checksum_path;
  metrics_.output_bytes = output->offsets[partition_count_];
  SLUICE_RETURN_NOT_OK(Commit(*output));
  return Status::OK();
}

void MapOutputFiles::EndPartition(int32_t partition, int32_t next, const Checksum& checksum,
                                  MapOutputLayout* output) const {
  const int64_t end = data_file_->position();
  output->lengths[partition] = end - output->offsets[partition];
  if (!output->checksums.empty()) output->checksums[partition] = checksum.value();
  // The empty partitions up to the next written one start (and end) where it starts.
  for (int32_t q = partition + 1; q <= next; ++q) output->offsets[q] = end;
}

void MapOutputFiles::ReleaseIfLast(const PartitionPiece& piece) {
  // The spill's last piece: its read buffer is done with (hundreds of spills each kept one).
  if (piece.piece == &spills_[piece.spill].pieces.back()) spill_readers_[piece.spill].Release();
}

Result<std::span<const uint8_t>> MapOutputFiles::ReadPiece(const PartitionPiece& piece) {
  SLUICE_ASSIGN_OR_RAISE(const uint8_t* bytes, spill_readers_[piece.spill].Read(
                                                   piece.piece->offset, piece.piece->length));
  return std::span<const uint8_t>(bytes, static_cast<size_t>(piece.piece->length));
}

Status MapOutputFiles::WritePartition(int32_t partition, bool held,
                                      std::span<const PartitionPiece> pieces,
                                      const EncodePartition& encode, Checksum* checksum) {
  if (WritesHeldRowsPlain(partition)) {
    return WriteCompactPartition(partition, held, pieces, checksum);
  }
  OutputFile* data = data_file_.get();
  const auto schema_size = static_cast<int64_t>(schema_message_.size());
  data->Append(schema_message_.data(), schema_size);
  checksum->Combine(schema_checksum_, schema_size);
  for (const PartitionPiece& piece : pieces) {
    const SpillRecord& spill = spills_[piece.spill];
    const int64_t offset = piece.piece->offset;
    const int64_t length = piece.piece->length;
    if (piece.piece->plain) {
      // A partition that turned out too large to be compact: its plain piece becomes blocks.
      SLUICE_ASSIGN_OR_RAISE(std::span<const uint8_t> message, ReadPiece(piece));
      AlignedBuffer* pending = data->pending();
      const int64_t start = pending->size();
      SLUICE_RETURN_NOT_OK(compact_encoder_->AppendCompressed({&message, 1}, pending));
      checksum->Update(pending->data() + start, pending->size() - start);
      ReleaseIfLast(piece);
      continue;
    }
    const auto copy_start = SteadyClock::now();
    if (length >= kKernelCopyMinBytes) {
      SLUICE_RETURN_NOT_OK(
          data->CopyFrom(spill.reader->fd(), spill.reader->path(), offset, length));
    } else {
      SLUICE_ASSIGN_OR_RAISE(std::span<const uint8_t> bytes, ReadPiece(piece));
      data->Append(bytes.data(), length);
      ReleaseIfLast(piece);
    }
    metrics_.write_nanos += NanosSince(copy_start);
    if (options_.checksum != ChecksumAlgorithm::kNone) {
      checksum->Combine(piece.piece->checksum, length);
    }
  }
  if (held) SLUICE_RETURN_NOT_OK(encode(partition, data, checksum));
  data->Append(ipc::kEndOfStream.data(), static_cast<int64_t>(ipc::kEndOfStream.size()));
  checksum->Combine(end_of_stream_checksum_, static_cast<int64_t>(ipc::kEndOfStream.size()));
  return Status::OK();
}

Status MapOutputFiles::WriteCompactPartition(int32_t partition, bool held,
                                             std::span<const PartitionPiece> pieces,
                                             Checksum* checksum) {
  // The pieces stay where the spills' read buffers hold them: one buffer per spill, one piece
  // of each per partition.
  compact_messages_.clear();
  for (const PartitionPiece& piece : pieces) {
    SLUICE_ASSIGN_OR_RAISE(std::span<const uint8_t> message, ReadPiece(piece));
    compact_messages_.push_back(message);
  }
  if (held) {
    held_plain_.Clear();
    SLUICE_RETURN_NOT_OK(plain_rows_.encode(partition, &held_plain_));
    compact_messages_.emplace_back(held_plain_.data(), static_cast<size_t>(held_plain_.size()));
  }
  // The data file's first segment holds the Schema message that the others refer to, unless
  // every reader is given the schema, and with it more of a dictionary.
  CompactSegmentSchema schema_form = CompactSegmentSchema::kInside;
  if (schema_references_ == SchemaReferences::kAll) {
    schema_form = CompactSegmentSchema::kGiven;
  } else if (schema_references_ == SchemaReferences::kAfterFirst && data_file_->position() > 0) {
    schema_form = CompactSegmentSchema::kReferred;
  }
  AlignedBuffer* pending = data_file_->pending();
  const int64_t start = pending->size();
  SLUICE_RETURN_NOT_OK(compact_encoder_->AppendSegment(compact_messages_, schema_form, pending));
  checksum->Update(pending->data() + start, pending->size() - start);
  for (const PartitionPiece& piece : pieces) ReleaseIfLast(piece);
  return Status::OK();
}

// Writes the Spark files under temporary names, then renames everything into place: data
// first, the index last, so an index never points at a missing data file.
Status MapOutputFiles::Commit(const MapOutputLayout& output) {
  std::string index_temporary;
  std::string checksum_temporary;
  // Room for every committed path now: a failed allocation after a rename would leave that
  // file unrecorded, and Abort could not remove it.
  committed_paths_.reserve(3);
  temporary_paths_.reserve(2);
  const std::vector<std::string> replaced =
      options_.overwrite ? ReplacedSiblings() : std::vector<std::string>();
  if (!options_.index_path.empty()) {
    index_temporary = TemporaryPathFor(options_.index_path);
    temporary_paths_.push_back(index_temporary);
    SLUICE_RETURN_NOT_OK(WriteIndexFile(index_temporary, output.offsets, options_.sync));
  }
  if (!options_.checksum_path.empty()) {
    checksum_temporary = TemporaryPathFor(options_.checksum_path);
    temporary_paths_.push_back(checksum_temporary);
    SLUICE_RETURN_NOT_OK(WriteChecksumFile(checksum_temporary, output.checksums, options_.sync));
  }
  if (!options_.write_in_place) {
    SLUICE_RETURN_NOT_OK(CommitRename(data_file_->path(), options_.data_path, options_.overwrite));
  }
  data_file_->Keep();
  committed_paths_.push_back(&options_.data_path);
  if (!checksum_temporary.empty()) {
    SLUICE_RETURN_NOT_OK(
        CommitRename(checksum_temporary, options_.checksum_path, options_.overwrite));
    committed_paths_.push_back(&options_.checksum_path);
  }
  if (!index_temporary.empty()) {
    SLUICE_RETURN_NOT_OK(CommitRename(index_temporary, options_.index_path, options_.overwrite));
    committed_paths_.push_back(&options_.index_path);
  }
  temporary_paths_.clear();
  committed_ = true;
  SLUICE_RETURN_NOT_OK(RemoveReplacedSiblings(replaced));
  if (options_.sync) SLUICE_RETURN_NOT_OK(SyncDirectoryOf(options_.data_path));
  return Status::OK();
}

// After an overwrite, the Spark files of the data file that this output did not write belong to
// the output it replaced (another checksum algorithm, or an index and checksum where this one
// has none): a reader would check the new bytes against them and call a valid output corrupt.
std::vector<std::string> MapOutputFiles::ReplacedSiblings() const {
  const SparkShuffleFileNames names = SparkShuffleFileNames::ForDataFile(options_.data_path);
  std::vector<std::string> siblings;
  if (options_.index_path.empty()) siblings.push_back(names.index);
  for (ChecksumAlgorithm algorithm : kChecksumAlgorithms) {
    std::string path = names.Checksum(algorithm);
    if (!path.empty() && path != options_.checksum_path) siblings.push_back(std::move(path));
  }
  return siblings;
}

Status MapOutputFiles::RemoveReplacedSiblings(const std::vector<std::string>& siblings) {
  for (const std::string& path : siblings) {
    struct stat info;
    if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      const int error = errno;
      return Status::IOError("cannot remove '", path,
                             "' of the replaced map output: ", ErrnoMessage(error));
    }
  }
  return Status::OK();
}

void MapOutputFiles::Abort() {
  if (aborted_) return;
  aborted_ = true;
  spills_.clear();
  if (data_file_ != nullptr && !committed_) data_file_->Remove();
  for (const auto& path : temporary_paths_) ::unlink(path.c_str());
  temporary_paths_.clear();
  if (!committed_) {
    for (const std::string* path : committed_paths_) ::unlink(path->c_str());
  }
  committed_paths_.clear();
}

}  // namespace sluice
