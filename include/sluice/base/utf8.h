// UTF-8 validation: Unicode's well-formed sequences only (no overlong forms, no surrogates,
// nothing beyond U+10FFFF), eight ASCII bytes at a time where it can.
#pragma once

#include <cstdint>

namespace sluice {

/// Returns the position of the first byte of `data[0..size)` that does not start a valid UTF-8
/// sequence, or `size` when all of it is valid.
int64_t FindInvalidUtf8(const uint8_t* data, int64_t size);

}  // namespace sluice
