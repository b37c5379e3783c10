// BlockBuffers: the buffers of the block the decoder is at, as views it can assemble columns
// from.
//
// An uncompressed body whose buffers lie inside it at aligned addresses is viewed in place (the
// common case, a few instructions per buffer, and the loads assembly will make are started
// now). Otherwise each buffer is decompressed, or copied when it is misaligned, into the block's
// arena, which comes from a pool and returns to it when the block's batch is dropped: a warm
// decoder allocates no block memory. Every entry is checked against the body and against the
// block size limit; errors name the buffer and its byte offset.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "arrow_message_generated.h"
#include "base/aligned_buffer_pool_internal.h"
#include "decode_plan_internal.h"
#include "segment_message_internal.h"
#include "sluice/codec/compression.h"
#include "sluice/format/array_data.h"

namespace sluice::ipc {

class BlockBuffers {
 public:
  /// What the resolution of blocks cost, since this was made.
  struct Counters {
    int64_t decompressed_bytes = 0;
    int64_t decompress_nanos = 0;  // in the loops that decompress or copy buffers into arenas
    int64_t arenas_made = 0;       // every other arena was reused from the pool
  };

  explicit BlockBuffers(int64_t max_block_bytes) : max_block_bytes_(max_block_bytes) {}

  /// Turns the Buffer entries of the block in `message` into views(): in place when the body is
  /// uncompressed and aligned (starting the loads `reads` lists), otherwise decompressed (or
  /// copied) once into the block's arena.
  Status Resolve(const SegmentMessage& message,
                 const flatbuffers::Vector<const fb::Buffer*>* buffers, CompressionCodec codec,
                 std::span<const PlannedRead> reads);

  /// The views of the block's buffers, one per Buffer entry.
  const BufferView* views() const { return views_.data(); }
  /// The block's arena (null when every buffer is viewed in place), for its batch to keep.
  std::shared_ptr<AlignedBuffer> TakeArena() { return std::move(arena_); }
  /// Whether some view points into the input bytes, which the block's batch must then keep.
  bool uses_input_bytes() const { return uses_input_bytes_; }

  /// The decompressor of `codec` (without a dictionary), made at its first use.
  Result<Decompressor*> DecompressorFor(CompressionCodec codec);
  /// A pooled buffer of `size` bytes, for a compact segment's stream.
  std::shared_ptr<AlignedBuffer> AcquireBuffer(int64_t size) { return pool_->Acquire(size); }
  /// Adds the time since `start` to the decompression time.
  void AddDecompressNanos(std::chrono::steady_clock::time_point start);
  Counters& counters() { return counters_; }
  const Counters& counters() const { return counters_; }
  /// The capacity of the pooled arenas, lent or free.
  int64_t pooled_bytes() const { return pool_->pooled_bytes(); }

 private:
  // Bytes past a block's buffers in its arena, which a codec may clobber while decoding the last
  // one (Decompressor::DecompressWithRoom): what LZ4's fast path needs.
  static constexpr int64_t kArenaRoom = 64;
  // Arenas kept for reuse, lent or free, in bytes: a few blocks' worth at the default block size.
  static constexpr int64_t kPooledArenaBytes = int64_t{8} << 20;

  bool ResolveInPlace(const SegmentMessage& message,
                      const flatbuffers::Vector<const fb::Buffer*>* buffers,
                      std::span<const PlannedRead> reads);
  bool DecompressInOnePass(const SegmentMessage& message, const fb::Buffer* entries, int64_t count,
                           Decompressor* decompressor);
  int64_t NextArenaHint(int64_t needed) const;
  void GrowArena(std::shared_ptr<AlignedBuffer>* arena, int64_t used, int64_t capacity,
                 int64_t viewed);
  std::shared_ptr<AlignedBuffer> AcquireArena(int64_t arena_size);
  Status DecompressBuffer(Decompressor* decompressor, const SegmentMessage& message, int64_t index,
                          const fb::Buffer& entry, uint8_t* dest, int64_t declared, int64_t room);

  const int64_t max_block_bytes_;
  Counters counters_;
  std::array<std::unique_ptr<Decompressor>, 4> decompressors_;
  std::vector<BufferView> views_;
  std::vector<int64_t> arena_sizes_;
  // The arena of the block being decoded: its decompressed buffers.
  std::shared_ptr<AlignedBuffer> arena_;
  std::shared_ptr<internal::AlignedBufferPool> pool_ =
      internal::AlignedBufferPool::Make(kPooledArenaBytes);
  // The arena size a compressed block starts with (see DecompressInOnePass).
  int64_t arena_hint_ = 0;
  bool uses_input_bytes_ = false;
};

}  // namespace sluice::ipc
