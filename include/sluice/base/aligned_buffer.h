// AlignedBuffer: growable, 64-byte aligned bytes that are not zeroed on growth.
//
// The scratch every encoder, decoder and builder reuses. Growth doubles the capacity, so a buffer
// reused across blocks stops allocating once it has seen the largest block. Storage of 1 MiB or
// more is mapped from the kernel (returned to it on release, grown by mremap without a copy).
//
// Memory failure: growth that cannot be had throws std::bad_alloc, as the standard containers
// do; every public entry point of the library (the C API, the JNI glue, MapWriter, the readers)
// turns it into a Status of code OutOfMemory. The library never aborts for want of memory.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>

namespace sluice {

class AlignedBuffer {
 public:
  /// Alignment of the storage: a cache line, and more than Arrow's 8-byte minimum.
  static constexpr int64_t kAlignment = 64;

  AlignedBuffer() = default;
  explicit AlignedBuffer(int64_t capacity) { Reserve(capacity); }
  AlignedBuffer(AlignedBuffer&& other) noexcept;
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer();

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  int64_t size() const { return size_; }
  int64_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }

  /// The largest capacity a buffer takes (2^46 bytes, 64 TiB): a larger request is a corrupt
  /// length, refused with std::bad_alloc before any arithmetic on it can overflow.
  static constexpr int64_t kMaxCapacity = int64_t{1} << 46;

  /// Ensures capacity for `capacity` bytes, keeping the contents. Throws std::bad_alloc when
  /// the memory cannot be had.
  void Reserve(int64_t capacity) {
    if (capacity > capacity_) Grow(capacity);
  }
  /// Sets the size, growing the capacity when needed; new bytes are uninitialised.
  void Resize(int64_t size) {
    Reserve(size);
    size_ = size;
  }
  /// Sets the size to zero, keeping the capacity.
  void Clear() { size_ = 0; }
  /// Appends `length` bytes.
  void Append(const void* source, int64_t length) {
    Reserve(size_ + length);
    if (length > 0) std::memcpy(data_ + size_, source, static_cast<size_t>(length));
    size_ += length;
  }
  /// Appends `length` uninitialised bytes and returns where they start.
  uint8_t* AppendUninitialized(int64_t length) {
    Reserve(size_ + length);
    uint8_t* start = data_ + size_;
    size_ += length;
    return start;
  }
  /// Appends zero bytes until the size is a multiple of `alignment` (a power of two).
  void PadTo(int64_t alignment) {
    const int64_t padded = (size_ + alignment - 1) & ~(alignment - 1);
    Reserve(padded);
    if (padded > size_) std::memset(data_ + size_, 0, static_cast<size_t>(padded - size_));
    size_ = padded;
  }
  /// Frees the storage.
  void Release();

 private:
  void Grow(int64_t capacity);

  uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  int64_t capacity_ = 0;
};

}  // namespace sluice
