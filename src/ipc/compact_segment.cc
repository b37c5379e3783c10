#include "sluice/ipc/compact_segment.h"

#include "sluice/base/bit_ops.h"

namespace sluice {

namespace {

constexpr uint32_t kSkippableFrameMagicMask = 0xFFFFFFF0;

}  // namespace

Result<CompactSegmentExtent> MeasureCompactSegment(const uint8_t* data, int64_t size,
                                                   int64_t max_content_bytes) {
  CompactSegmentExtent extent;
  SLUICE_ASSIGN_OR_RAISE(extent.frame, MeasureCompressedFrame(data, size));
  if (extent.frame.content_size < 0) {
    return Status::Corrupt("the frame of a compact segment must declare its content size");
  }
  if (extent.frame.content_size > max_content_bytes) {
    return Status::Corrupt("a compact segment of ", extent.frame.content_size,
                           " bytes is larger than the limit of ", max_content_bytes, " bytes");
  }
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
