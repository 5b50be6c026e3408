// Splits [0, n) into chunks that depend on n alone (never on the machine's cores), so that a
// result combined in chunk order is the same on every machine, and runs them on threads: the
// host-side verification of a large output (verify/error_stats.cc) walks tens of millions of
// elements per case, ~0.5 s single-threaded at the ladder's sizes (results/device/
// 20261128-h200x2-scaling, the `verify` phase).
#pragma once

#include <cstdint>
#include <functional>

namespace flashscope::verify {

// Chunks hold at least `min_chunk` elements and there are at most kMaxChunks of them; below
// 2 × min_chunk there is one chunk, run on the calling thread.
inline constexpr int kMaxChunks = 16;
int ChunkCount(int64_t n, int64_t min_chunk);
// Where chunk `c` of `chunks` over [0, n) begins; chunk c ends where c + 1 begins, the last at n.
inline int64_t ChunkBegin(int64_t n, int chunks, int c) { return n * c / chunks; }

// Calls fn(chunk, begin, end) for every chunk of ChunkCount(n, min_chunk), concurrently on up
// to that many threads (fewer when the machine has fewer cores), and returns when all are done.
void ForEachChunk(int64_t n, int64_t min_chunk,
                  const std::function<void(int chunk, int64_t begin, int64_t end)>& fn);

}  // namespace flashscope::verify
