// RowMapWriter: the map side for Spark UnsafeRows, sort-based like Spark's unsafe shuffle, and
// writing the same files as MapWriter.
//
// Rows arrive with their partition id (Spark computes it). Each row is copied once into a page
// (an 8-byte size, then the row, 8-byte aligned), and one PackedRecordPointer (partition, page,
// offset) per row goes into a pointer array that grows by its own size. On a spill or at the end,
// an LSD radix sort over the partition-id bytes only (skipping constant bytes) orders the
// pointers, and one pass over them converts each partition's rows straight into Arrow columns and
// encodes blocks. Spills, checksums, the final merge and the commit are MapWriter's
// (MapOutputFiles): same files, same metrics.
//
// Two ways to hand rows over: AppendRow() copies one row; a host with direct memory access (the
// JVM through sun.misc.Unsafe) instead takes pages with NewPage(), copies rows into them itself,
// and reports them with AddPointers() once per page, so no per-row call crosses the boundary.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/write/map_writer.h"

namespace sluice {

/// How the row writer groups rows by partition.
enum class RowWriterStrategy : uint8_t {
  /// Choose by partition count and row width (see kAuto's rule in row_map_writer.cc, measured
  /// by bench/row_map_writer_benchmark.cc).
  kAuto,
  /// Sort packed pointers by partition and convert each partition's rows straight into blocks.
  kSort,
  /// Convert rows in arrival order into column batches and let the columnar MapWriter scatter
  /// them by partition: conversion reads memory in order, at the price of a second copy.
  kScatter,
};

struct RowMapWriterOptions {
  /// Schema, partition count (partitioning.partition_count; the kind is ignored: rows come with
  /// their ids), codec, block size, budget, checksum and files, as for MapWriter.
  MapWriterOptions writer;
  /// Bytes per page, at most. 16 MiB: large enough that a page is a rare event, small enough for
  /// a task's share of memory. At most 128 MiB (PackedRecordPointer's 27-bit offset). Pages
  /// start at 64 KiB and double up to it (see NextPageBytes), so a task of a few rows takes a
  /// few KiB, not 16 MiB: in Spark, thousands of small reduce tasks each write to the next
  /// exchange.
  int64_t page_bytes = int64_t{16} << 20;
  /// Sort or scatter; kAuto picks by partition count and row width.
  RowWriterStrategy strategy = RowWriterStrategy::kAuto;
};

/// Returns the strategy kAuto picks for `partition_count` partitions of rows of about
/// `row_bytes` bytes.
RowWriterStrategy ChooseRowWriterStrategy(int32_t partition_count, int64_t row_bytes);

/// Applies one setting: the row writer's own keys "page-bytes" (byte size), "strategy"
/// (auto | sort | scatter), or any MapWriter setting (validate-utf8 among them)
/// (map_writer_settings.h) to options->writer.
Status ApplyRowMapWriterSetting(RowMapWriterOptions* options, std::string_view key,
                                std::string_view value);

class RowMapWriter {
 public:
  /// A page the host may copy rows into: `capacity` bytes at `data`, page number `number`.
  struct Page {
    uint32_t number = 0;
    uint8_t* data = nullptr;
    int64_t capacity = 0;
  };

  /// Bytes before each row in a page: its size as a little-endian int64 (keeps rows 8-aligned).
  static constexpr int64_t kRowPrefixBytes = 8;

  static Result<std::unique_ptr<RowMapWriter>> Make(RowMapWriterOptions options);
  ~RowMapWriter();
  RowMapWriter(const RowMapWriter&) = delete;
  RowMapWriter& operator=(const RowMapWriter&) = delete;

  /// Copies one UnsafeRow of `size` bytes (a multiple of 8) for `partition`.
  Status AppendRow(uint32_t partition, const uint8_t* row, int32_t size);

  /// Returns the size of the page NewPage(min_bytes) would make: the first page of a writer is
  /// 64 KiB, each later one twice the one before, up to page_bytes; a larger row gets a page of
  /// its own size.
  int64_t NextPageBytes(int64_t min_bytes) const;

  /// Returns an empty page of NextPageBytes(min_bytes). Spills the rows held first when the
  /// budget cannot take another page. Every page handed out before is then freed: report the rows
  /// of the current page with AddPointers() before asking for the next one.
  Result<Page> NewPage(int64_t min_bytes);

  /// Records rows the host copied into pages, as PackedRecordPointers whose offset is that of the
  /// row's size prefix. Checks partition, page and bounds of every pointer.
  Status AddPointers(const uint64_t* pointers, int64_t count);

  /// Writes every row held to a spill file and frees the pages. Returns the bytes released.
  Result<int64_t> Spill();

  /// Writes the data file (and Spark files when asked) and commits.
  Result<MapOutput> Finish();

  /// Removes every file and frees every page. Idempotent.
  void Abort();

  int32_t partition_count() const;
  /// The strategy in use (kSort or kScatter; kAuto is resolved when the writer is made).
  RowWriterStrategy strategy() const;
  /// Bytes charged to the budget now (pages and pointer array).
  int64_t held_bytes() const;
  const MapWriterMetrics& metrics() const;

 private:
  class Impl;
  explicit RowMapWriter(std::unique_ptr<Impl> impl);
  template <typename Body>
  auto Guarded(std::string_view where, Body&& body) -> decltype(body());
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice
