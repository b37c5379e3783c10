// Spark's partition checksums computed with ISA-L's vectorised kernels.
//
// ISA-L's conventions differ per function; each is mapped onto the java.util.zip one (the value
// of no bytes is EmptyChecksum(), and a value continues by being passed back in):
// - isal_adler32(value, ...) takes and returns the Adler-32 value itself (java's starts at 1).
// - crc32_gzip_refl(value, ...) inverts on entry and exit, as zlib and java.util.zip.CRC32 do,
//   so it takes and returns the CRC value itself (0 for no bytes).
// - crc32_iscsi(..., register) neither inverts on entry nor on exit: it works on the raw shift
//   register, which java.util.zip.CRC32C starts at 0xFFFFFFFF and inverts at the end. The value
//   is therefore inverted on the way in and on the way out.
#include "sluice/codec/checksum.h"

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "sluice/base/check.h"

namespace sluice {

namespace {

bool EqualsIgnoringCase(std::string_view text, std::string_view upper_case_name) {
  if (text.size() != upper_case_name.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (c != upper_case_name[i]) return false;
  }
  return true;
}

// crc32_iscsi takes an int length; larger inputs go through in pieces of this many bytes.
constexpr int64_t kIscsiMaxPiece = int64_t{1} << 30;

uint32_t UpdateCrc32c(uint32_t previous, const uint8_t* data, int64_t size) {
  uint32_t shift_register = ~previous;
  while (size > 0) {
    const int64_t piece = std::min(size, kIscsiMaxPiece);
    // ISA-L only reads the buffer; its prototype lacks the const.
    shift_register =
        crc32_iscsi(const_cast<uint8_t*>(data), static_cast<int>(piece), shift_register);
    data += piece;
    size -= piece;
  }
  return ~shift_register;
}

}  // namespace

std::string_view ChecksumAlgorithmName(ChecksumAlgorithm algorithm) {
  switch (algorithm) {
    case ChecksumAlgorithm::kNone:
      return "NONE";
    case ChecksumAlgorithm::kAdler32:
      return "ADLER32";
    case ChecksumAlgorithm::kCrc32:
      return "CRC32";
    case ChecksumAlgorithm::kCrc32c:
      return "CRC32C";
  }
  return "UNKNOWN";
}

Result<ChecksumAlgorithm> ParseChecksumAlgorithm(std::string_view text) {
  for (ChecksumAlgorithm algorithm : {ChecksumAlgorithm::kNone, ChecksumAlgorithm::kAdler32,
                                      ChecksumAlgorithm::kCrc32, ChecksumAlgorithm::kCrc32c}) {
    if (EqualsIgnoringCase(text, ChecksumAlgorithmName(algorithm))) return algorithm;
  }
  return Status::Invalid("unknown checksum algorithm '", text,
                         "': expected ADLER32, CRC32, CRC32C or NONE (in any case)");
}

uint32_t EmptyChecksum(ChecksumAlgorithm algorithm) {
  return algorithm == ChecksumAlgorithm::kAdler32 ? 1 : 0;
}

uint32_t UpdateChecksum(ChecksumAlgorithm algorithm, uint32_t previous, const uint8_t* data,
                        int64_t size) {
  SLUICE_DCHECK(size >= 0);
  SLUICE_DCHECK(data != nullptr || size == 0);
  if (algorithm == ChecksumAlgorithm::kNone) return 0;
  if (size <= 0) return previous;
  switch (algorithm) {
    case ChecksumAlgorithm::kAdler32:
      return isal_adler32(previous, data, static_cast<uint64_t>(size));
    case ChecksumAlgorithm::kCrc32:
      return crc32_gzip_refl(previous, data, static_cast<uint64_t>(size));
    case ChecksumAlgorithm::kCrc32c:
      return UpdateCrc32c(previous, data, size);
    case ChecksumAlgorithm::kNone:
      break;
  }
  return 0;
}

}  // namespace sluice
