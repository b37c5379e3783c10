#include <algorithm>
#include <cstring>
#include <utility>

#include "block_buffers_internal.h"
#include "body_views_internal.h"
#include "sluice/base/bit_ops.h"
#include "sluice/ipc/ipc_format.h"

namespace sluice::ipc {

namespace {

// Prefetches what assembling a block reads of an uncompressed buffer of `length` > 0 bytes.
inline void PrefetchForAssembly(const uint8_t* bytes, int64_t length, BufferReads reads) {
  // A long buffer is read sequentially, which the hardware prefetcher follows once started.
  constexpr int64_t kMaxWholeBytes = 1024;
  switch (reads) {
    case BufferReads::kNothing:
      return;
    case BufferReads::kWhole:
      for (int64_t at = 0; at < std::min(length, kMaxWholeBytes); at += 64) {
        __builtin_prefetch(bytes + at);
      }
      __builtin_prefetch(bytes + length - 1);
      return;
    case BufferReads::kHeadAndTail:
      __builtin_prefetch(bytes);
      __builtin_prefetch(bytes + length - 1);
      return;
  }
}

}  // namespace

Result<Decompressor*> BlockBuffers::DecompressorFor(CompressionCodec codec) {
  auto& slot = decompressors_[static_cast<size_t>(codec)];
  if (slot == nullptr) {
    SLUICE_ASSIGN_OR_RAISE(slot, Decompressor::Make(codec));
  }
  return slot.get();
}

// Turns the Buffer entries into views: in place when uncompressed and aligned, otherwise
// decompressed (or copied) once into the block's arena.
Status BlockBuffers::Resolve(const SegmentMessage& message,
                             const flatbuffers::Vector<const fb::Buffer*>* buffers,
                             CompressionCodec codec, std::span<const PlannedRead> reads) {
  if (codec == CompressionCodec::kNone && ResolveInPlace(message, buffers, reads)) {
    return Status::OK();
  }
  const int64_t count = buffers != nullptr ? buffers->size() : 0;
  views_.resize(static_cast<size_t>(count));
  arena_ = nullptr;
  uses_input_bytes_ = false;
  Decompressor* decompressor = nullptr;
  if (codec != CompressionCodec::kNone) {
    SLUICE_ASSIGN_OR_RAISE(decompressor, DecompressorFor(codec));
    const auto* entries =
        reinterpret_cast<const fb::Buffer*>(count > 0 ? buffers->Data() : nullptr);
    // The first block (no size to start from) takes the general pass, which sizes the arena.
    if (arena_hint_ > 0 && DecompressInOnePass(message, entries, count, decompressor)) {
      return Status::OK();
    }
    uses_input_bytes_ = false;  // the general pass below starts over
  }
  arena_sizes_.resize(static_cast<size_t>(count));

  // First pass: bounds, and how much arena each buffer needs.
  int64_t arena_size = 0;
  for (int64_t i = 0; i < count; ++i) {
    const fb::Buffer* buffer = buffers->Get(static_cast<flatbuffers::uoffset_t>(i));
    const int64_t offset = buffer->offset();
    const int64_t length = buffer->length();
    if (offset < 0 || length < 0 || offset > message.body_length ||
        length > message.body_length - offset) {
      return message.CorruptAt(message.body_offset, "buffer ", i, " at offset ", offset,
                               " with length ", length, " lies outside the body of ",
                               message.body_length, " bytes");
    }
    const uint8_t* bytes = message.body + offset;
    int64_t needed = 0;
    if (codec == CompressionCodec::kNone || length == 0) {
      views_[i] = BufferView{length == 0 ? nullptr : bytes, length};
      if (length > 0 && !IsBufferAligned(bytes)) needed = length;
    } else {
      if (length < kCompressedLengthPrefixSize) {
        return message.CorruptAt(message.body_offset + offset, "compressed buffer ", i, " has ",
                                 length, " bytes, less than its 8-byte length prefix");
      }
      const int64_t declared = bits::LoadUnaligned<int64_t>(bytes);
      const int64_t payload = length - kCompressedLengthPrefixSize;
      if (declared == kUncompressedBufferMarker) {
        views_[i] = BufferView{bytes + kCompressedLengthPrefixSize, payload};
        if (payload > 0 && !IsBufferAligned(views_[i].data)) needed = payload;
      } else if (declared < 0 || declared > max_block_bytes_) {
        return message.CorruptAt(message.body_offset + offset, "compressed buffer ", i,
                                 " declares an uncompressed length of ", declared);
      } else {
        views_[i] = BufferView{nullptr, declared};
        needed = declared;
      }
    }
    arena_sizes_[i] = needed;
    // A buffer viewed in place keeps the input alive (the second pass only fills the others).
    uses_input_bytes_ |= needed == 0 && views_[i].data != nullptr;
    arena_size += bits::RoundUp(needed, kBufferAlignment);
    if (arena_size > max_block_bytes_) {
      return message.CorruptAt(message.body_offset + offset, "the block decodes to more than ",
                               max_block_bytes_, " bytes");
    }
  }

  // Second pass: decompress or copy into the arena.
  arena_hint_ = NextArenaHint(arena_size);
  if (arena_size > 0) {
    std::shared_ptr<AlignedBuffer> arena = AcquireArena(arena_size);
    int64_t position = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < count; ++i) {
      const int64_t needed = arena_sizes_[i];
      if (needed == 0) continue;
      uint8_t* dest = arena->data() + position;
      const fb::Buffer* buffer = buffers->Get(static_cast<flatbuffers::uoffset_t>(i));
      if (views_[i].data != nullptr) {
        std::memcpy(dest, views_[i].data, static_cast<size_t>(needed));  // misaligned input
      } else {
        SLUICE_RETURN_NOT_OK(DecompressBuffer(decompressor, message, i, *buffer, dest, needed,
                                              arena_size + kArenaRoom - position));
      }
      views_[i] = BufferView{dest, needed};
      position += bits::RoundUp(needed, kBufferAlignment);
    }
    AddDecompressNanos(start);
    arena_ = std::move(arena);
  }
  return Status::OK();
}

// The common case of a compressed body, in one pass over the buffer entries: every buffer
// inside the body, each one empty, stored raw at an aligned address, or compressed to a size
// within the limits and decompressing without error. Each compressed buffer is decompressed
// into the block's arena, which starts at the size recent blocks needed and grows (moving
// what it holds) when this one needs more. Returns false, with nothing the caller may use,
// for any other body: Resolve' general pass then copies what is misaligned or names
// what is wrong, in its own order.
bool BlockBuffers::DecompressInOnePass(const SegmentMessage& message, const fb::Buffer* entries,
                                       int64_t count, Decompressor* decompressor) {
  // Locals rather than members in the loop: the codec call would make the compiler reload
  // (or spill) each member it touched.
  const uint8_t* body = message.body;
  const uint64_t body_length = static_cast<uint64_t>(message.body_length);
  const int64_t max_block_bytes = max_block_bytes_;
  BufferView* views = views_.data();
  int64_t capacity = arena_hint_;
  std::shared_ptr<AlignedBuffer> arena = capacity > 0 ? AcquireArena(capacity) : nullptr;
  uint8_t* arena_data = arena != nullptr ? arena->data() : nullptr;
  int64_t position = 0;
  int64_t stored_raw_bytes = 0;  // nonzero once a view points into the input
  int64_t decompressed_bytes = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < count; ++i) {
    // Unsigned, so a negative offset or length is out of bounds too.
    const uint64_t offset = static_cast<uint64_t>(entries[i].offset());
    const uint64_t length = static_cast<uint64_t>(entries[i].length());
    if (offset > body_length || length > body_length - offset) return false;
    if (length == 0) {
      views[i] = BufferView{};
      continue;
    }
    if (length < static_cast<uint64_t>(kCompressedLengthPrefixSize)) return false;
    const uint8_t* bytes = body + offset;
    const int64_t declared = bits::LoadUnaligned<int64_t>(bytes);
    const uint8_t* payload = bytes + kCompressedLengthPrefixSize;
    const auto payload_size = static_cast<int64_t>(length) - kCompressedLengthPrefixSize;
    if (declared == kUncompressedBufferMarker) {
      if (!IsBufferAligned(payload)) return false;
      views[i] = BufferView{payload, payload_size};
      stored_raw_bytes |= payload_size;
      continue;
    }
    if (declared < 0 || declared > max_block_bytes) return false;
    if (declared == 0) {
      views[i] = BufferView{};
      continue;
    }
    const int64_t end = position + bits::RoundUp(declared, kBufferAlignment);
    if (end > capacity) {
      if (end > max_block_bytes) return false;
      capacity = std::min(std::max(end, 2 * capacity), max_block_bytes);
      GrowArena(&arena, position, capacity, i);
      arena_data = arena->data();
    }
    uint8_t* dest = arena_data + position;
    if (!decompressor
             ->DecompressWithRoom(payload, payload_size, dest, declared,
                                  capacity + kArenaRoom - position)
             .ok()) {
      return false;
    }
    views[i] = BufferView{dest, declared};
    decompressed_bytes += declared;
    position = end;
  }
  AddDecompressNanos(start);
  counters_.decompressed_bytes += decompressed_bytes;
  uses_input_bytes_ = stored_raw_bytes != 0;
  arena_hint_ = NextArenaHint(position);
  arena_ = position > 0 ? std::move(arena) : nullptr;
  return true;
}

// The arena size the next block starts with, after one that needed `needed` bytes: the most
// a recent block needed. A larger block grows it once; after one outsized block, the size
// comes back down by a sixteenth a block.
int64_t BlockBuffers::NextArenaHint(int64_t needed) const {
  return std::max(needed, arena_hint_ - arena_hint_ / 16);
}

// Moves the `used` bytes of `*arena` (null when there is none yet) into a new arena of
// `capacity` bytes, and points the views of buffers [0, viewed) that were in it there.
void BlockBuffers::GrowArena(std::shared_ptr<AlignedBuffer>* arena, int64_t used, int64_t capacity,
                             int64_t viewed) {
  std::shared_ptr<AlignedBuffer> grown = AcquireArena(capacity);
  if (*arena != nullptr && used > 0) {
    const uint8_t* old_start = (*arena)->data();
    std::memcpy(grown->data(), old_start, static_cast<size_t>(used));
    // As addresses: the views of buffers stored raw point into the input instead.
    const auto old_address = reinterpret_cast<uintptr_t>(old_start);
    for (int64_t j = 0; j < viewed; ++j) {
      BufferView& view = views_[j];
      const uintptr_t moved = reinterpret_cast<uintptr_t>(view.data) - old_address;
      if (moved < static_cast<uintptr_t>(used)) view.data = grown->data() + moved;
    }
  }
  *arena = std::move(grown);
}

// An arena for a block's `arena_size` bytes of buffers, with the room past them a codec may use.
std::shared_ptr<AlignedBuffer> BlockBuffers::AcquireArena(int64_t arena_size) {
  bool made = false;
  std::shared_ptr<AlignedBuffer> arena = pool_->Acquire(arena_size + kArenaRoom, &made);
  counters_.arenas_made += made ? 1 : 0;
  return arena;
}

// Decompresses buffer `index` (its `entry`, holding the length prefix and the compressed
// bytes) into the `declared` bytes at `dest`, with `room` bytes there the codec may write.
Status BlockBuffers::DecompressBuffer(Decompressor* decompressor, const SegmentMessage& message,
                                      int64_t index, const fb::Buffer& entry, uint8_t* dest,
                                      int64_t declared, int64_t room) {
  Status status = decompressor->DecompressWithRoom(
      message.body + entry.offset() + kCompressedLengthPrefixSize,
      entry.length() - kCompressedLengthPrefixSize, dest, declared, room);
  if (!status.ok()) {
    return message.CorruptAt(message.body_offset + entry.offset(), "buffer ", index, ": ",
                             status.message());
  }
  counters_.decompressed_bytes += declared;
  return Status::OK();
}

void BlockBuffers::AddDecompressNanos(std::chrono::steady_clock::time_point start) {
  counters_.decompress_nanos +=
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
}

// The common case of Resolve, kept to a few instructions per buffer: an uncompressed
// body whose buffers all lie inside it at aligned addresses becomes views of the input, and
// the loads assembly will make start now, so that the misses of many columns overlap
// (ViewBuffersInBody makes no check per buffer: what is out of bounds or misaligned is
// OR-ed up and checked once). Returns false, having kept nothing, for any other body;
// Resolve then copies the misaligned buffers or reports the one out of bounds.
bool BlockBuffers::ResolveInPlace(const SegmentMessage& message,
                                  const flatbuffers::Vector<const fb::Buffer*>* buffers,
                                  std::span<const PlannedRead> reads) {
  const uint32_t count = buffers != nullptr ? buffers->size() : 0;
  if (views_.size() != count) views_.resize(count);
  const auto* entries = reinterpret_cast<const fb::Buffer*>(count > 0 ? buffers->Data() : nullptr);
  BufferView* views = views_.data();
  const BodyViewsSummary summary =
      ViewBuffersInBody(entries, count, message.body, message.body_length, views);
  // (An offsets buffer is also checked for alignment before its first typed load, in
  // OffsetsInRange.)
  if (!summary.inside || (summary.any_address & (kBufferAlignment - 1)) != 0) {
    return false;
  }
  for (const PlannedRead& read : reads) {
    const BufferView& view = views[read.buffer];
    if (view.size != 0) PrefetchForAssembly(view.data, view.size, read.reads);
  }
  arena_ = nullptr;
  uses_input_bytes_ = summary.any_bytes;
  return true;
}

}  // namespace sluice::ipc
