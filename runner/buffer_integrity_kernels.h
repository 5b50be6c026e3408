// The GPU side of the integrity checks (runner/buffer_integrity.h): per-chunk hashes of the
// buffers whose content a launch must leave alone, and the guard bytes around every buffer.
// Plain CUDA types (no Abseil): shared with nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace flashscope::runner {

// Content is hashed in chunks of this many bytes, so that a change is located to one chunk.
inline constexpr unsigned long long kIntegrityChunkBytes = 4096;
// A result slot that saw no change.
inline constexpr unsigned long long kIntegrityClean = ~0ull;
// A result packs (launch label << kIntegrityLabelShift) | offset: atomicMin keeps the earliest
// launch that changed the region, and the lowest offset it changed.
inline constexpr int kIntegrityLabelShift = 40;

// One watched region. kContent: its hashes must not change (first_chunk indexes the hash
// arrays); kGuard: every byte must still be `pattern`.
struct IntegrityRegion {
  const unsigned char* ptr;
  unsigned long long bytes;
  unsigned long long first_chunk;
  int kind;  // kIntegrityContent or kIntegrityGuard
  unsigned char pattern;
};
inline constexpr int kIntegrityContent = 0;
inline constexpr int kIntegrityGuard = 1;

// Chunks of a content region of `bytes` bytes.
inline unsigned long long IntegrityChunks(unsigned long long bytes) {
  return (bytes + kIntegrityChunkBytes - 1) / kIntegrityChunkBytes;
}

// Hashes every chunk of every content region into `hashes` (total_chunks entries).
cudaError_t LaunchIntegrityHash(const IntegrityRegion* regions, int n, unsigned long long* hashes,
                                unsigned long long total_chunks, cudaStream_t stream);

// Compares every chunk of every content region with `hashes` (and writes the new hash there, so
// that a change is reported once per region, by the launch that made it), and checks every guard
// region's bytes; for each region that changed, atomicMin(results[r], label << shift | offset)
// with the offset of the changed chunk (content) or byte (guard). `compare_content` false:
// guards only.
cudaError_t LaunchIntegrityCheck(const IntegrityRegion* regions, int n, int n_guard_bytes_max,
                                 unsigned long long* hashes, unsigned long long total_chunks,
                                 unsigned long long* results, unsigned long long label,
                                 bool compare_content, cudaStream_t stream);

}  // namespace flashscope::runner
