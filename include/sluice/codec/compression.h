// Compression codecs with contexts that are created once and reused for every buffer.
//
// A shuffle compresses many small buffers: one per Arrow buffer per block, and a map task
// writes partitions x (spills + 1) blocks. Building a codec context per block (a zstd CCtx is
// hundreds of KiB, an LZ4 frame context zeroes its tables) was the reference implementation's
// largest fixed cost per block, so here a task makes one Compressor and one Decompressor and
// reuses them; once warm, compressing or decompressing a buffer allocates nothing.
//
// Formats: kLz4Frame writes one complete LZ4 frame per buffer (Arrow's LZ4_FRAME), kZstd one
// complete zstd frame (Arrow's ZSTD): the only codecs Arrow IPC names, so every segment is read
// right by any Arrow reader. (Snappy was offered under a codec id of Sluice's own; Arrow Java
// reads an unknown codec id as "uncompressed" and returned its bytes as values, so it is gone.)
// The uncompressed length is not stored by the codec: Arrow's 8-byte prefix carries it.
// kNone has no contexts: plain IPC stores buffers as they are, so Make(kNone) returns Invalid
// rather than a context that would copy bytes for nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "sluice/base/result.h"

namespace sluice {

enum class CompressionCodec : uint8_t { kNone, kLz4Frame, kZstd };

/// Returns "none", "lz4" or "zstd".
std::string_view CompressionCodecName(CompressionCodec codec);

/// Parses "none", "lz4", "lz4_frame", "zstd" or "zstd:LEVEL", in any case. Writes the
/// level (1..22) to `level` when one is given and `level` is not null (otherwise leaves it
/// alone). Returns Invalid, quoting `text`, for anything else.
Result<CompressionCodec> ParseCompressionCodec(std::string_view text, int* level);

/// Compresses buffers with one reusable context.
class Compressor {
 public:
  virtual ~Compressor() = default;

  /// Makes a compressor. `level` applies to zstd (1..22, default 1) and is ignored by others.
  /// Returns Invalid for kNone and for a zstd level out of range.
  ///
  /// A `dictionary` (bytes copied) is content that every frame may refer back to as if it came
  /// just before the frame's first byte (LZ4's and zstd's raw-content dictionaries: `lz4 -D`,
  /// `zstd -D`); the frames do not name it, so only a decompressor given the same bytes decodes
  /// them. LZ4 uses its last 64 KiB.
  static Result<std::unique_ptr<Compressor>> Make(CompressionCodec codec, int level = 1,
                                                  std::span<const uint8_t> dictionary = {});

  /// Returns the codec this compressor writes.
  virtual CompressionCodec codec() const = 0;
  /// Returns an upper bound of the compressed size of `input_size` bytes.
  virtual int64_t MaxCompressedSize(int64_t input_size) const = 0;
  /// Compresses `input` into `output` (capacity at least MaxCompressedSize) and returns the
  /// compressed size. Returns Invalid for a smaller capacity or negative sizes.
  virtual Result<int64_t> Compress(const uint8_t* input, int64_t input_size, uint8_t* output,
                                   int64_t output_capacity) = 0;
};

/// Decompresses buffers with one reusable context. Input is untrusted.
class Decompressor {
 public:
  virtual ~Decompressor() = default;

  /// Makes a decompressor. Returns Invalid for kNone. Frames made against a `dictionary` (see
  /// Compressor::Make; bytes copied) decode only with the same bytes given here.
  static Result<std::unique_ptr<Decompressor>> Make(CompressionCodec codec,
                                                    std::span<const uint8_t> dictionary = {});

  /// Returns the codec this decompressor reads.
  virtual CompressionCodec codec() const = 0;
  /// Decompresses `input` into exactly `output_size` bytes at `output`. Returns Corrupt when
  /// the input is malformed or empty, when it decodes to more or fewer bytes than
  /// `output_size`, or when bytes follow the end of the frame; Invalid for negative sizes. The
  /// decompressor works normally again after any failure.
  virtual Status Decompress(const uint8_t* input, int64_t input_size, uint8_t* output,
                            int64_t output_size) = 0;
  /// As Decompress, where all `writable_size` >= `output_size` bytes at `output` are the
  /// caller's to clobber: the bytes past `output_size` may be left holding anything. LZ4 uses
  /// the room to stay on its fast path, which copies in wide strides ahead of its position, up
  /// to the last byte; a decoder filling one arena buffer by buffer, in order, passes the rest
  /// of the arena. The other codecs ignore it.
  virtual Status DecompressWithRoom(const uint8_t* input, int64_t input_size, uint8_t* output,
                                    int64_t output_size, int64_t writable_size) {
    (void)writable_size;
    return Decompress(input, input_size, output, output_size);
  }
};

}  // namespace sluice
