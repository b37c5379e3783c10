#include "sluice/ipc/compact_segment.h"

#include "sluice/base/bit_ops.h"

namespace sluice {

namespace {

constexpr uint32_t kSkippableFrameMagicMask = 0xFFFFFFF0;

}  // namespace

Result<CompactSegmentExtent> MeasureCompactSegment(const uint8_t* data, int64_t size) {
  CompactSegmentExtent extent;
  SLUICE_ASSIGN_OR_RAISE(extent.frame, MeasureCompressedFrame(data, size));
  int64_t end = extent.frame.compressed_size;
  if (size - end >= kSkippableFrameHeaderSize &&
      (bits::LoadUnaligned<uint32_t>(data + end) & kSkippableFrameMagicMask) ==
          kSkippableFrameMagic) {
    const int64_t skipped = bits::LoadUnaligned<uint32_t>(data + end + 4);
    if (skipped > size - end - kSkippableFrameHeaderSize) {
      return Status::Corrupt("compressed frame: byte ", end,
                             ": a skippable frame runs past the end of the input");
    }
    end += kSkippableFrameHeaderSize + skipped;
  }
  extent.size = end;
  return extent;
}

}  // namespace sluice
