#include "runner/buffer_integrity_kernels.h"

#include "common/split_mix.h"

namespace flashscope::runner {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

// The content region holding global chunk `c` (regions in order of first_chunk; guards skipped).
__device__ int RegionOfChunk(const IntegrityRegion* regions, int n, unsigned long long c) {
  int found = -1;
  for (int r = 0; r < n; ++r) {
    if (regions[r].kind != kIntegrityContent) continue;
    if (regions[r].first_chunk <= c) found = r;
  }
  return found;
}

// One warp hashes one chunk: position-keyed word hashes summed, so that moving bytes around
// changes the hash as surely as changing them.
__device__ unsigned long long WarpHashChunk(const IntegrityRegion& reg, unsigned long long chunk) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned long long begin = chunk * kIntegrityChunkBytes;
  unsigned long long end = begin + kIntegrityChunkBytes;
  if (end > reg.bytes) end = reg.bytes;
  const unsigned long long words_end = begin + (end - begin) / 8 * 8;
  unsigned long long h = 0;
  for (unsigned long long off = begin + lane * 8; off < words_end; off += 32 * 8) {
    const unsigned long long w = *reinterpret_cast<const unsigned long long*>(reg.ptr + off);
    h += SplitMix64(w ^ (off * 0xD6E8FEB86659FD93ull));
  }
  for (unsigned long long off = words_end + lane; off < end; off += 32) {
    h += SplitMix64((static_cast<unsigned long long>(reg.ptr[off]) << 56) ^ off);
  }
  for (int d = 16; d > 0; d /= 2) h += __shfl_xor_sync(0xffffffffu, h, d);
  return h;
}

// The chunks of the content regions dealt to this warp, grid-stride over the warps of the grid:
// fn(region, chunk within it, global chunk, the warp's hash of it) for each.
template <class Fn>
__device__ __forceinline__ void ForEachWarpChunk(const IntegrityRegion* regions, int n,
                                                 unsigned long long total_chunks, Fn fn) {
  const unsigned long long warp =
      (static_cast<unsigned long long>(blockIdx.x) * kThreads + threadIdx.x) / 32;
  const unsigned long long warps = static_cast<unsigned long long>(gridDim.x) * kWarps;
  for (unsigned long long c = warp; c < total_chunks; c += warps) {
    const int r = RegionOfChunk(regions, n, c);
    const unsigned long long local = c - regions[r].first_chunk;
    fn(r, local, c, WarpHashChunk(regions[r], local));
  }
}

__global__ void HashKernel(const IntegrityRegion* regions, int n, unsigned long long* hashes,
                           unsigned long long total_chunks) {
  ForEachWarpChunk(regions, n, total_chunks,
                   [&](int, unsigned long long, unsigned long long c, unsigned long long h) {
                     if (threadIdx.x % 32 == 0) hashes[c] = h;
                   });
}

__global__ void CompareKernel(const IntegrityRegion* regions, int n, unsigned long long* hashes,
                              unsigned long long total_chunks, unsigned long long* results,
                              unsigned long long label) {
  ForEachWarpChunk(
      regions, n, total_chunks,
      [&](int r, unsigned long long local, unsigned long long c, unsigned long long h) {
        if (threadIdx.x % 32 == 0 && h != hashes[c]) {
          hashes[c] = h;
          atomicMin(&results[r], (label << kIntegrityLabelShift) | (local * kIntegrityChunkBytes));
        }
      });
}

// blockIdx.y: the region; each thread checks bytes of guard regions.
__global__ void GuardKernel(const IntegrityRegion* regions, unsigned long long* results,
                            unsigned long long label) {
  const IntegrityRegion& reg = regions[blockIdx.y];
  if (reg.kind != kIntegrityGuard) return;
  for (unsigned long long off =
           static_cast<unsigned long long>(blockIdx.x) * kThreads + threadIdx.x;
       off < reg.bytes; off += static_cast<unsigned long long>(gridDim.x) * kThreads) {
    if (reg.ptr[off] != reg.pattern) {
      atomicMin(&results[blockIdx.y], (label << kIntegrityLabelShift) | off);
    }
  }
}

int GridFor(unsigned long long total_chunks) {
  const unsigned long long blocks = (total_chunks + kWarps - 1) / kWarps;
  return static_cast<int>(blocks < 1024 ? (blocks < 1 ? 1 : blocks) : 1024);
}

}  // namespace

cudaError_t LaunchIntegrityHash(const IntegrityRegion* regions, int n, unsigned long long* hashes,
                                unsigned long long total_chunks, cudaStream_t stream) {
  if (total_chunks == 0) return cudaSuccess;
  HashKernel<<<GridFor(total_chunks), kThreads, 0, stream>>>(regions, n, hashes, total_chunks);
  return cudaGetLastError();
}

cudaError_t LaunchIntegrityCheck(const IntegrityRegion* regions, int n, int n_guard_bytes_max,
                                 unsigned long long* hashes, unsigned long long total_chunks,
                                 unsigned long long* results, unsigned long long label,
                                 bool compare_content, cudaStream_t stream) {
  if (compare_content && total_chunks > 0) {
    CompareKernel<<<GridFor(total_chunks), kThreads, 0, stream>>>(regions, n, hashes, total_chunks,
                                                                  results, label);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  }
  if (n == 0 || n_guard_bytes_max <= 0) return cudaSuccess;
  const int blocks_x = (n_guard_bytes_max + kThreads - 1) / kThreads;
  GuardKernel<<<dim3(blocks_x < 64 ? blocks_x : 64, n), kThreads, 0, stream>>>(regions, results,
                                                                               label);
  return cudaGetLastError();
}

}  // namespace flashscope::runner
