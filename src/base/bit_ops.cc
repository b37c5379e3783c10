#include "sluice/base/bit_ops.h"

namespace sluice::bits {

int64_t CountSetBits(const uint8_t* bitmap, int64_t offset, int64_t length) {
  int64_t count = 0;
  int64_t index = offset;
  const int64_t end = offset + length;
  // Leading bits up to a byte boundary.
  while (index < end && (index & 7) != 0) count += GetBit(bitmap, index++);
  // Whole 64-bit words.
  while (index + 64 <= end) {
    count += std::popcount(LoadUnaligned<uint64_t>(bitmap + (index >> 3)));
    index += 64;
  }
  // Whole bytes.
  while (index + 8 <= end) {
    count += std::popcount(static_cast<unsigned>(bitmap[index >> 3]));
    index += 8;
  }
  while (index < end) count += GetBit(bitmap, index++);
  return count;
}

void CopyBits(const uint8_t* source, int64_t source_offset, int64_t length, uint8_t* dest,
              int64_t dest_offset) {
  if (length <= 0) return;
  if ((source_offset & 7) == 0 && (dest_offset & 7) == 0) {
    const int64_t whole_bytes = length >> 3;
    std::memcpy(dest + (dest_offset >> 3), source + (source_offset >> 3),
                static_cast<size_t>(whole_bytes));
    for (int64_t i = whole_bytes << 3; i < length; ++i) {
      SetBitTo(dest, dest_offset + i, GetBit(source, source_offset + i));
    }
    return;
  }
  int64_t done = 0;
  // Align the destination to a byte so whole bytes can be stored.
  while (done < length && ((dest_offset + done) & 7) != 0) {
    SetBitTo(dest, dest_offset + done, GetBit(source, source_offset + done));
    ++done;
  }
  // Assemble 8 destination bits at a time from two source bytes.
  while (done + 8 <= length) {
    const int64_t bit = source_offset + done;
    const int shift = static_cast<int>(bit & 7);
    const uint8_t* byte = source + (bit >> 3);
    unsigned value = byte[0] >> shift;
    if (shift != 0) value |= static_cast<unsigned>(byte[1]) << (8 - shift);
    dest[(dest_offset + done) >> 3] = static_cast<uint8_t>(value);
    done += 8;
  }
  for (; done < length; ++done) {
    SetBitTo(dest, dest_offset + done, GetBit(source, source_offset + done));
  }
}

void FillBits(uint8_t* dest, int64_t dest_offset, int64_t length, bool value) {
  int64_t index = dest_offset;
  const int64_t end = dest_offset + length;
  while (index < end && (index & 7) != 0) SetBitTo(dest, index++, value);
  const int64_t whole_bytes = (end - index) >> 3;
  if (whole_bytes > 0) {
    std::memset(dest + (index >> 3), value ? 0xff : 0, static_cast<size_t>(whole_bytes));
    index += whole_bytes << 3;
  }
  while (index < end) SetBitTo(dest, index++, value);
}

}  // namespace sluice::bits
