// Internals of the compression codecs: the factories that Compressor::Make and
// Decompressor::Make dispatch to (one pair per codec, each in its own .cc), and the argument
// checks every codec applies before touching a library.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/codec/compression.h"

namespace sluice::internal {

/// zstd's level range as Sluice accepts it: 1 is Spark's default and the fastest positive level;
/// 22 is ZSTD_maxCLevel() in every zstd release. Levels <= 0 (zstd's "fast" modes and "default")
/// are refused so that a level always means the same thing whatever zstd version is linked.
inline constexpr int kMinZstdLevel = 1;
inline constexpr int kMaxZstdLevel = 22;

/// Makes a compressor writing one LZ4 frame per buffer (lz4_frame_codec.cc), against
/// `dictionary` when it is not empty.
Result<std::unique_ptr<Compressor>> MakeLz4FrameCompressor(std::span<const uint8_t> dictionary);
/// Makes a decompressor reading one LZ4 frame per buffer (lz4_frame_codec.cc).
Result<std::unique_ptr<Decompressor>> MakeLz4FrameDecompressor(std::span<const uint8_t> dictionary);

/// Makes a compressor writing one zstd frame per buffer at `level` (zstd_codec.cc).
Result<std::unique_ptr<Compressor>> MakeZstdCompressor(int level,
                                                       std::span<const uint8_t> dictionary);
/// Makes a decompressor reading one zstd frame per buffer (zstd_codec.cc).
Result<std::unique_ptr<Decompressor>> MakeZstdDecompressor(std::span<const uint8_t> dictionary);

/// Returns Invalid unless the sizes are non-negative, pointers are set where bytes are,
/// and `output_capacity` reaches `bound` (the codec's MaxCompressedSize of the input).
Status CheckCompressArguments(std::string_view codec_name, const uint8_t* input, int64_t input_size,
                              const uint8_t* output, int64_t output_capacity, int64_t bound);

/// Returns Invalid for negative sizes or missing pointers, and Corrupt for an empty input
/// (no codec encodes anything, not even zero bytes, in zero bytes).
Status CheckDecompressArguments(std::string_view codec_name, const uint8_t* input,
                                int64_t input_size, const uint8_t* output, int64_t output_size);

}  // namespace sluice::internal
