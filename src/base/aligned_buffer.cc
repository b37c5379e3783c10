#include "sluice/base/aligned_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <new>
#include <utility>

#include "sluice/base/allocation_faults.h"

namespace sluice {

namespace {

// Storage of at least this many bytes is mapped from the kernel and unmapped when released,
// and grows with mremap, without a copy. From the heap, glibc serves large aligned allocations
// from its arena once its dynamic mmap threshold has risen, and a writer that allocates and
// frees a few MiB of per-row state per spill then grew the process by about 2 bytes per input
// row (4.8 GB for a 2^31-row batch under a 64 MiB budget), though the heap in use stayed flat.
constexpr int64_t kMappedBytes = int64_t{1} << 20;

bool IsMapped(int64_t capacity) {
  return capacity >= kMappedBytes;
}

int64_t RoundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

constexpr int64_t kPageBytes = 4096;

}  // namespace

AlignedBuffer::AlignedBuffer(AlignedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

AlignedBuffer::~AlignedBuffer() {
  Release();
}

void AlignedBuffer::Release() {
  if (data_ != nullptr) {
    if (IsMapped(capacity_)) {
      ::munmap(data_, static_cast<size_t>(capacity_));
    } else {
      std::free(data_);
    }
  }
  data_ = nullptr;
  size_ = 0;
  capacity_ = 0;
}

void AlignedBuffer::Grow(int64_t capacity) {
  if (capacity < 0 || capacity > kMaxCapacity || allocation_faults::ShouldFail()) {
    throw std::bad_alloc();
  }
  const int64_t target =
      std::max<int64_t>({capacity, std::min(capacity_ * 2, kMaxCapacity), kAlignment});
  // Whether storage is mapped follows from its capacity alone (Release and the next Grow ask
  // IsMapped(capacity_)), so the heap serves only capacities that stay below the threshold once
  // rounded: a target just below it rounds up to it and is mapped.
  if (const int64_t rounded = RoundUp(target, kAlignment); !IsMapped(rounded)) {
    auto* grown =
        static_cast<uint8_t*>(std::aligned_alloc(kAlignment, static_cast<size_t>(rounded)));
    if (grown == nullptr) throw std::bad_alloc();
    if (size_ > 0) std::memcpy(grown, data_, static_cast<size_t>(size_));
    std::free(data_);
    data_ = grown;
    capacity_ = rounded;
    return;
  }
  const int64_t rounded = RoundUp(target, kPageBytes);
  void* grown = MAP_FAILED;
  if (data_ != nullptr && IsMapped(capacity_)) {
    grown = ::mremap(data_, static_cast<size_t>(capacity_), static_cast<size_t>(rounded),
                     MREMAP_MAYMOVE);
    if (grown == MAP_FAILED) throw std::bad_alloc();
  } else {
    grown = ::mmap(nullptr, static_cast<size_t>(rounded), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (grown == MAP_FAILED) throw std::bad_alloc();
    if (size_ > 0) std::memcpy(grown, data_, static_cast<size_t>(size_));
    std::free(data_);
  }
  data_ = static_cast<uint8_t*>(grown);
  capacity_ = rounded;
}

}  // namespace sluice
