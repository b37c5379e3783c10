#include <lz4.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "lz4_frame_reader_internal.h"
#include "sluice/base/bit_ops.h"

namespace sluice::internal {

namespace {

constexpr uint32_t kFrameMagic = 0x184D2204;
constexpr int64_t kMagicSize = 4;
constexpr int64_t kBlockSizeFieldSize = 4;
constexpr uint32_t kStoredRawBit = 0x80000000u;

// FLG bits.
constexpr uint8_t kVersionMask = 0xC0;
constexpr uint8_t kVersion01 = 0x40;
constexpr uint8_t kBlockIndependence = 0x20;
constexpr uint8_t kBlockChecksum = 0x10;
constexpr uint8_t kContentSize = 0x08;
constexpr uint8_t kContentChecksum = 0x04;
constexpr uint8_t kReservedFlagBit = 0x02;
constexpr uint8_t kDictionaryId = 0x01;

// BD: bits 6-4 give the maximum block size; the others are reserved (zero).
constexpr uint8_t kBlockMaxSizeMask = 0x70;

// What LZ4's block decoder needs past the end of a block to decode all of it on its fast path.
constexpr int64_t kFastPathRoom = 64;

// A linked block may copy from up to 64 KiB of the output before it.
constexpr int64_t kLinkedHistory = 64 * 1024;

template <typename... Parts>
Status Corrupt(int64_t byte, Parts&&... parts) {
  return Status::Corrupt("lz4 frame decompression: input byte ", byte, ": ",
                         std::forward<Parts>(parts)...);
}

}  // namespace

Result<Lz4FrameRead> ReadLz4Frame(const uint8_t* input, int64_t input_size, uint8_t* output,
                                  int64_t output_size, int64_t writable_size,
                                  std::span<const uint8_t> dictionary) {
  // The descriptor: magic, FLG and BD, then the optional fields FLG announces, then HC.
  if (input_size < kMagicSize + 3) {
    return Corrupt(0, "the ", input_size, " input bytes are too few for a frame header");
  }
  if (bits::LoadUnaligned<uint32_t>(input) != kFrameMagic) {
    return Corrupt(0, "not an LZ4 frame (wrong magic number)");
  }
  const uint8_t flags = input[kMagicSize];
  const uint8_t block_descriptor = input[kMagicSize + 1];
  if ((flags & kVersionMask) != kVersion01 || (flags & kReservedFlagBit) != 0 ||
      (block_descriptor & ~kBlockMaxSizeMask) != 0) {
    return Corrupt(kMagicSize, "unsupported frame version or reserved bits set (FLG ",
                   static_cast<int>(flags), ", BD ", static_cast<int>(block_descriptor), ")");
  }
  if ((flags & (kBlockChecksum | kContentChecksum | kDictionaryId)) != 0) {
    return Lz4FrameRead::kUnsupported;
  }
  const int size_id = block_descriptor >> 4;
  if (size_id < 4) {
    return Corrupt(kMagicSize + 1, "invalid maximum block size id ", size_id);
  }
  const int64_t max_block_size = int64_t{1} << (8 + 2 * size_id);  // 64 KiB to 4 MiB
  int64_t position = kMagicSize + 2;
  const bool has_content_size = (flags & kContentSize) != 0;
  if (has_content_size) {
    if (input_size < position + 8 + 1) {
      return Corrupt(0, "the ", input_size, " input bytes are too few for a frame header");
    }
    position += 8;
  }
  // The checksum covers the content size, so it is checked first.
  const uint8_t header_checksum = static_cast<uint8_t>(
      XXH32(input + kMagicSize, static_cast<size_t>(position - kMagicSize), 0) >> 8);
  if (input[position] != header_checksum) {
    return Corrupt(position, "the frame header checksum does not match");
  }
  if (has_content_size) {
    const uint64_t content_size = bits::LoadUnaligned<uint64_t>(input + kMagicSize + 2);
    if (content_size != static_cast<uint64_t>(output_size)) {
      return Corrupt(kMagicSize + 2, "the frame header declares ", content_size,
                     " bytes, expected ", output_size);
    }
  }
  position += 1;

  const bool linked = (flags & kBlockIndependence) == 0;
  if (linked && !dictionary.empty()) return Lz4FrameRead::kUnsupported;
  // Blocks refer back at most 64 KiB: the end of the dictionary is all of it they can reach.
  const int64_t dictionary_size = std::min(static_cast<int64_t>(dictionary.size()), kLinkedHistory);
  const char* dictionary_end =
      dictionary.empty() ? nullptr
                         : reinterpret_cast<const char*>(dictionary.data()) + dictionary.size();
  int64_t decoded = 0;
  while (true) {
    if (input_size - position < kBlockSizeFieldSize) {
      return Corrupt(input_size, "the input ends inside the frame after decoding ", decoded,
                     " of the expected ", output_size, " bytes (truncated)");
    }
    const uint32_t field = bits::LoadUnaligned<uint32_t>(input + position);
    if (field == 0) {  // end mark
      position += kBlockSizeFieldSize;
      break;
    }
    const int64_t block_size = field & ~kStoredRawBit;
    if (block_size > max_block_size) {
      return Corrupt(position, "block of ", block_size, " bytes exceeds the frame's maximum of ",
                     max_block_size);
    }
    const int64_t block_start = position + kBlockSizeFieldSize;
    if (input_size - block_start < block_size) {
      return Corrupt(input_size, "the input ends inside a block of ", block_size,
                     " bytes that starts at byte ", block_start, " (truncated)");
    }
    const char* source = reinterpret_cast<const char*>(input + block_start);
    char* destination = reinterpret_cast<char*>(output + decoded);
    // A block may fill what is left of the output, up to the frame's maximum; the decoder may
    // write past that into the room beyond, and the size it returns is checked.
    const int64_t room = std::min(output_size - decoded, max_block_size);
    int64_t block_decoded = 0;
    if ((field & kStoredRawBit) != 0) {
      if (block_size > room) {
        return Corrupt(position, "a stored block of ", block_size, " bytes overflows the ",
                       output_size, " bytes expected");
      }
      if (block_size > 0) std::memcpy(destination, source, static_cast<size_t>(block_size));
      block_decoded = block_size;
    } else {
      const int64_t capacity = std::min(writable_size - decoded, max_block_size + kFastPathRoom);
      const char* history_end =
          linked ? reinterpret_cast<const char*>(output + decoded) : dictionary_end;
      const int history =
          static_cast<int>(linked ? std::min(decoded, kLinkedHistory) : dictionary_size);
      auto decode_block = [&](char* into, int64_t into_capacity) {
        return history == 0 ? LZ4_decompress_safe(source, into, static_cast<int>(block_size),
                                                  static_cast<int>(into_capacity))
                            : LZ4_decompress_safe_usingDict(
                                  source, into, static_cast<int>(block_size),
                                  static_cast<int>(into_capacity), history_end - history, history);
      };
      int result = decode_block(destination, capacity);
      if (result < 0) {
        // LZ4 applies its end-of-block rules (the last 5 bytes are literals, the last match
        // starts 12 bytes before the end) to the room it is given, and with no room at all it
        // takes only 0x00 as an empty block. LZ4F gives every block a whole block of room, and
        // so accepts blocks that end closer to the content's end than liblz4 writes them: such
        // a block, or a corrupt one, is decoded once more that way, aside.
        std::vector<char> aside(static_cast<size_t>(max_block_size));
        result = decode_block(aside.data(), max_block_size);
        if (result >= 0 && result <= room) {
          std::memcpy(destination, aside.data(), static_cast<size_t>(result));
        }
      }
      if (result < 0 || result > room) {
        return Corrupt(block_start, "the block of ", block_size,
                       " bytes is malformed or decodes to more than the ", room,
                       " bytes left for it");
      }
      block_decoded = result;
    }
    decoded += block_decoded;
    position = block_start + block_size;
  }
  if (decoded != output_size) {
    return Corrupt(position, "the frame decodes to ", decoded, " bytes, expected ", output_size);
  }
  if (position != input_size) {
    return Corrupt(position, input_size - position, " bytes follow the end of the frame");
  }
  return Lz4FrameRead::kDecoded;
}

}  // namespace sluice::internal
