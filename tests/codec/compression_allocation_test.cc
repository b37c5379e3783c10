// Checks that warm compression and decompression contexts allocate nothing: a shuffle compresses
// partitions x buffers per block, so one allocation per call would be one per buffer.
//
// This program's malloc family counts calls and forwards to glibc's allocator (glibc supports
// replacing malloc this way). liblz4 and libzstd allocate with malloc and calloc, and C++ code
// (snappy) with operator new, which calls malloc, so every allocation the codecs make is seen.
// Sanitizer builds replace malloc themselves, so there the counting is left out and the tests
// skip.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "sluice/codec/compression.h"
#include "support/codec_cases.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SLUICE_TEST_COUNTS_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || \
    __has_feature(thread_sanitizer)
#define SLUICE_TEST_COUNTS_ALLOCATIONS 0
#endif
#endif
#if !defined(SLUICE_TEST_COUNTS_ALLOCATIONS) && defined(__GLIBC__)
#define SLUICE_TEST_COUNTS_ALLOCATIONS 1
#endif
#ifndef SLUICE_TEST_COUNTS_ALLOCATIONS
#define SLUICE_TEST_COUNTS_ALLOCATIONS 0
#endif

#if SLUICE_TEST_COUNTS_ALLOCATIONS
// Calls to the malloc family since the program started (external linkage, so the compiler
// cannot assume a library call leaves it alone).
std::atomic<int64_t> sluice_test_allocation_count{0};

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* pointer, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* pointer);

void* malloc(size_t size) noexcept {
  sluice_test_allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) noexcept {
  sluice_test_allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, size_t size) noexcept {
  sluice_test_allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(pointer, size);
}
void* aligned_alloc(size_t alignment, size_t size) noexcept {
  sluice_test_allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** pointer, size_t alignment, size_t size) noexcept {
  sluice_test_allocation_count.fetch_add(1, std::memory_order_relaxed);
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* allocated = __libc_memalign(alignment, size);
  if (allocated == nullptr) return ENOMEM;
  *pointer = allocated;
  return 0;
}
void free(void* pointer) noexcept {
  __libc_free(pointer);
}
}
#endif

namespace sluice {
namespace {

constexpr bool kCountsAllocations = SLUICE_TEST_COUNTS_ALLOCATIONS != 0;

int64_t AllocationCount() {
#if SLUICE_TEST_COUNTS_ALLOCATIONS
  return sluice_test_allocation_count.load(std::memory_order_relaxed);
#else
  return 0;
#endif
}

using testing::CodecCase;
using testing::kCodecCases;

// Buffers of a few shuffle blocks: validity bitmaps, offsets, values, one large column.
std::vector<std::vector<uint8_t>> ShuffleLikeBuffers() {
  std::mt19937_64 generator(1);
  std::vector<std::vector<uint8_t>> buffers;
  for (size_t size : {size_t{0}, size_t{3}, size_t{1024}, size_t{32768}, size_t{200000},
                      size_t{1} << 20, size_t{17}, size_t{70000}}) {
    std::vector<uint8_t> buffer(size);
    for (size_t i = 0; i < size; ++i) {
      buffer[i] = i % 3 == 0 ? static_cast<uint8_t>(generator()) : static_cast<uint8_t>(i / 7);
    }
    buffers.push_back(std::move(buffer));
  }
  return buffers;
}

class CompressionAllocationTest : public ::testing::TestWithParam<CodecCase> {};

TEST_P(CompressionAllocationTest, CountingSeesAllocations) {
  if (!kCountsAllocations) GTEST_SKIP() << "allocations are not counted in sanitizer builds";
  // Through a volatile pointer, so the compiler cannot drop the pair.
  void* (*volatile allocate)(size_t) = &malloc;
  const int64_t before = AllocationCount();
  void* pointer = allocate(100);
  const int64_t after = AllocationCount();
  free(pointer);
  EXPECT_EQ(after - before, 1);
}

// This caught liblz4 1.9.4 calloc-ing 64 KiB in every LZ4F_compressBegin when frames use linked
// blocks (see the frame preferences in src/codec/lz4_frame_codec.cc).
TEST_P(CompressionAllocationTest, WarmCompressorAllocatesNothing) {
  if (!kCountsAllocations) GTEST_SKIP() << "allocations are not counted in sanitizer builds";
  auto compressor = Compressor::Make(GetParam().codec, GetParam().level).ValueOrDie();
  const auto inputs = ShuffleLikeBuffers();
  std::vector<std::vector<uint8_t>> outputs;
  for (const auto& input : inputs) {
    outputs.emplace_back(compressor->MaxCompressedSize(static_cast<int64_t>(input.size())));
  }
  std::vector<int64_t> sizes(inputs.size() * 4, -1);
  // Round 0 warms the context; rounds 1 to 3 must not allocate.
  int64_t allocations = 0;
  for (int round = 0; round < 4; ++round) {
    const int64_t before = AllocationCount();
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto size = compressor->Compress(inputs[i].data(), static_cast<int64_t>(inputs[i].size()),
                                       outputs[i].data(), static_cast<int64_t>(outputs[i].size()));
      sizes[round * inputs.size() + i] = size.ok() ? *size : -1;
    }
    if (round > 0) allocations += AllocationCount() - before;
  }
  EXPECT_EQ(allocations, 0);
  for (int64_t size : sizes) EXPECT_GT(size, 0);
}

TEST_P(CompressionAllocationTest, WarmDecompressorAllocatesNothing) {
  if (!kCountsAllocations) GTEST_SKIP() << "allocations are not counted in sanitizer builds";
  auto compressor = Compressor::Make(GetParam().codec, GetParam().level).ValueOrDie();
  auto decompressor = Decompressor::Make(GetParam().codec).ValueOrDie();
  const auto inputs = ShuffleLikeBuffers();
  std::vector<std::vector<uint8_t>> compressed;
  for (const auto& input : inputs) {
    std::vector<uint8_t> output(compressor->MaxCompressedSize(static_cast<int64_t>(input.size())));
    const int64_t size = compressor
                             ->Compress(input.data(), static_cast<int64_t>(input.size()),
                                        output.data(), static_cast<int64_t>(output.size()))
                             .ValueOrDie();
    output.resize(static_cast<size_t>(size));
    compressed.push_back(std::move(output));
  }
  std::vector<std::vector<uint8_t>> decoded;
  for (const auto& input : inputs) decoded.emplace_back(input.size());
  std::vector<bool> decoded_ok(inputs.size() * 4, false);
  int64_t allocations = 0;
  for (int round = 0; round < 4; ++round) {
    const int64_t before = AllocationCount();
    for (size_t i = 0; i < inputs.size(); ++i) {
      decoded_ok[round * inputs.size() + i] =
          decompressor
              ->Decompress(compressed[i].data(), static_cast<int64_t>(compressed[i].size()),
                           decoded[i].data(), static_cast<int64_t>(decoded[i].size()))
              .ok();
    }
    if (round > 0) allocations += AllocationCount() - before;
  }
  EXPECT_EQ(allocations, 0);
  for (bool ok : decoded_ok) EXPECT_TRUE(ok);
  for (size_t i = 0; i < inputs.size(); ++i) EXPECT_TRUE(decoded[i] == inputs[i]);
}

INSTANTIATE_TEST_SUITE_P(Codecs, CompressionAllocationTest, ::testing::ValuesIn(kCodecCases),
                         [](const ::testing::TestParamInfo<CodecCase>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace sluice
