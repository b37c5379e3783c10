// Lz4FrameReader: decodes an LZ4 frame straight into the caller's output with liblz4's block
// decoder, for the frames every Arrow writer makes.
//
// LZ4F (liblz4's frame API) decodes a block into the caller's memory only while a whole maximum
// block (64 KiB to 4 MiB) of room remains there; anything smaller goes through a buffer inside
// the context and is copied out. A shuffle's buffers are mostly far smaller than 64 KiB, so
// through LZ4F nearly every byte would be decoded twice over: into LZ4F's buffer, then copied.
// The frame format is simple enough to walk directly (the LZ4 Frame Format Description, v1.6.x):
//
//   magic 0x184D2204 | FLG | BD | [content size, 8] | [dictionary id, 4] | HC
//   { block size (4, bit 31 = stored raw) | block | [block checksum, 4] } ... | 0 (end mark)
//   | [content checksum, 4]
//
// HC is the second byte of the XXH32 (seed 0) of the descriptor from FLG up to it. Blocks are
// decoded one after another into the output; a block of a linked frame may refer back to the
// blocks decoded before it, which sit right before it in the output.
//
// Given room past the end of the output (Decompressor::DecompressWithRoom), LZ4's block decoder
// stays on its fast path, which copies in wide strides and stops 64 bytes before the end of its
// room, up to the last byte of a block; given none, it decodes a block's last 64 bytes on its
// careful path.
//
// Given a dictionary, every block of a frame of independent blocks starts from it (LZ4F's rule);
// linked frames with a dictionary, and frames with block or content checksums or a dictionary
// id, are left to LZ4F, which verifies them: ReadLz4Frame says so (kUnsupported) without
// writing anything.
#pragma once

#include <cstdint>
#include <span>

#include "sluice/base/result.h"

namespace sluice::internal {

/// The result of ReadLz4Frame when it returns OK.
enum class Lz4FrameRead : uint8_t {
  kDecoded,      // the frame decoded to exactly `output_size` bytes and ends the input
  kUnsupported,  // a frame with checksums or a dictionary id; nothing was written
};

/// Decodes the single LZ4 frame in `input` into `output`, which must be exactly the frame's
/// content; the `writable_size` >= `output_size` bytes at `output` may all be written (see
/// Decompressor::DecompressWithRoom). Returns Corrupt, naming the input byte, for a frame that
/// is malformed or truncated, decodes to another size, or is followed by other bytes.
/// `dictionary` (possibly empty) is what the frame was compressed against.
Result<Lz4FrameRead> ReadLz4Frame(const uint8_t* input, int64_t input_size, uint8_t* output,
                                  int64_t output_size, int64_t writable_size,
                                  std::span<const uint8_t> dictionary = {});

}  // namespace sluice::internal
