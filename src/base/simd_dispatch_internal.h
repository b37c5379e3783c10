// Runtime choice between portable loops and AVX2 builds of the same loops.
//
// Sluice is built for baseline x86-64 (SSE2), but some hot loops are much faster with AVX2 (the
// partitioning loops 2-4x, with 8-lane 32-bit multiplies). Those loops are compiled twice, once
// with SLUICE_TARGET_AVX2, and the CPU is asked once which one to run. The choice is made per
// column and chunk of rows, never per row.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SLUICE_HAVE_AVX2_DISPATCH 1
/// Compiles a function (and what is inlined into it) for AVX2.
#define SLUICE_TARGET_AVX2 __attribute__((target("avx2")))
#else
#define SLUICE_HAVE_AVX2_DISPATCH 0
#define SLUICE_TARGET_AVX2
#endif

namespace sluice::internal {

/// Returns true when the CPU runs AVX2 code (checked once).
inline bool CpuHasAvx2() {
#if SLUICE_HAVE_AVX2_DISPATCH
  static const bool has_avx2 = __builtin_cpu_supports("avx2");
  return has_avx2;
#else
  return false;
#endif
}

}  // namespace sluice::internal
