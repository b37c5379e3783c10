#include "sluice/base/utf8.h"

#include "sluice/base/bit_ops.h"

namespace sluice {

int64_t FindInvalidUtf8(const uint8_t* data, int64_t size) {
  constexpr uint64_t kHighBits = 0x8080808080808080ull;
  int64_t i = 0;
  while (i < size) {
    if (size - i >= 8 && (bits::LoadUnaligned<uint64_t>(data + i) & kHighBits) == 0) {
      i += 8;
      continue;
    }
    const uint8_t lead = data[i];
    if (lead < 0x80) {
      ++i;
      continue;
    }
    int continuation = 0;
    uint32_t code_point = 0;
    if (lead >= 0xc2 && lead <= 0xdf) {
      continuation = 1;
      code_point = lead & 0x1f;
    } else if ((lead & 0xf0) == 0xe0) {
      continuation = 2;
      code_point = lead & 0x0f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      continuation = 3;
      code_point = lead & 0x07;
    } else {
      return i;  // a continuation byte, an overlong 2-byte lead, or beyond U+10FFFF
    }
    if (size - i <= continuation) return i;
    for (int k = 1; k <= continuation; ++k) {
      if ((data[i + k] & 0xc0) != 0x80) return i;
      code_point = (code_point << 6) | (data[i + k] & 0x3f);
    }
    const bool surrogate = code_point >= 0xd800 && code_point <= 0xdfff;
    if (continuation == 2 && (code_point < 0x800 || surrogate)) return i;  // overlong or surrogate
    if (continuation == 3 && (code_point < 0x10000 || code_point > 0x10ffff)) return i;
    i += continuation + 1;
  }
  return size;
}

}  // namespace sluice
