#include "sluice/base/aligned_buffer.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "sluice/base/check.h"

namespace sluice {

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

AlignedBuffer::~AlignedBuffer() { Release(); }

void AlignedBuffer::Release() {
  std::free(data_);
  data_ = nullptr;
  size_ = 0;
  capacity_ = 0;
}

void AlignedBuffer::Grow(int64_t capacity) {
  SLUICE_CHECK(capacity >= 0, "negative buffer capacity");
  const int64_t target = std::max<int64_t>({capacity, capacity_ * 2, kAlignment});
  const int64_t rounded = (target + kAlignment - 1) & ~(kAlignment - 1);
  auto* grown = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, static_cast<size_t>(rounded)));
  SLUICE_CHECK(grown != nullptr, "out of memory growing a buffer");
  if (size_ > 0) std::memcpy(grown, data_, static_cast<size_t>(size_));
  std::free(data_);
  data_ = grown;
  capacity_ = rounded;
}

}  // namespace sluice
