// Runtime choice between portable loops and AVX2 builds of the same loops.
//
// Sluice is built for baseline x86-64 (SSE2), but some hot loops are much faster with AVX2 (the
// partitioning loops, with 8-lane 32-bit multiplies) and faster again with AVX-512 (the hash
// loops, 16 lanes; bench/partition_benchmark.cc). Those loops are compiled more than once, with
// SLUICE_TARGET_AVX2 or SLUICE_TARGET_AVX512, and the CPU is asked once which one to run. The
// choice is made per column and chunk of rows, never per row.
#pragma once

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SLUICE_HAVE_AVX2_DISPATCH 1
/// Compiles a function (and what is inlined into it) for AVX2.
#define SLUICE_TARGET_AVX2 __attribute__((target("avx2")))
/// Compiles a function for AVX-512 (foundation, with 256-bit forms), 512-bit vectors preferred.
#if defined(__clang__)
#define SLUICE_TARGET_AVX512 \
  __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq"), min_vector_width(512)))
#else
#define SLUICE_TARGET_AVX512 \
  __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,prefer-vector-width=512")))
#endif
#else
#define SLUICE_HAVE_AVX2_DISPATCH 0
#define SLUICE_TARGET_AVX2
#define SLUICE_TARGET_AVX512
#endif

namespace sluice::internal {

/// The widest paths the environment allows: SLUICE_SIMD=avx2 leaves out AVX-512, =none every
/// vector path, so that tests run the paths of older CPUs too (read once).
enum class SimdCap { kNone, kAvx2, kAvx512 };
inline SimdCap SimdCapFromEnvironment() {
  static const SimdCap cap = [] {
    const char* value = std::getenv("SLUICE_SIMD");
    if (value == nullptr) return SimdCap::kAvx512;
    if (std::strcmp(value, "avx2") == 0) return SimdCap::kAvx2;
    if (std::strcmp(value, "none") == 0) return SimdCap::kNone;
    return SimdCap::kAvx512;
  }();
  return cap;
}

/// Returns true when the CPU runs AVX2 code (checked once).
inline bool CpuHasAvx2() {
#if SLUICE_HAVE_AVX2_DISPATCH
  static const bool has_avx2 =
      SimdCapFromEnvironment() >= SimdCap::kAvx2 && __builtin_cpu_supports("avx2");
  return has_avx2;
#else
  return false;
#endif
}

/// Returns true when the CPU runs the AVX-512 code SLUICE_TARGET_AVX512 compiles (checked once).
inline bool CpuHasAvx512() {
#if SLUICE_HAVE_AVX2_DISPATCH
  static const bool has_avx512 =
      SimdCapFromEnvironment() >= SimdCap::kAvx512 && __builtin_cpu_supports("avx512f") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq");
  return has_avx512;
#else
  return false;
#endif
}

}  // namespace sluice::internal
