// SplitMix64's finaliser (Steele, Lea and Flood, 2014): a cheap 64-bit mix in which every input bit
// moves every output bit. The counter-based input generators, the sampled rows' draw, the output
// and buffer hashes and the profiler's workloads all mix with it, on the host and the device. A
// plain header without CUDA headers, so that CPU code (tests) computes the same values.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FS_SPLIT_MIX_INLINE __host__ __device__ __forceinline__
#else
#define FS_SPLIT_MIX_INLINE inline
#endif

namespace flashscope {

FS_SPLIT_MIX_INLINE uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace flashscope

#undef FS_SPLIT_MIX_INLINE
