// Host side shared by the Hopper attention rungs (a12+): which problems they take, and the TMA
// tensor maps of a launch. Plain C++ (compiled once into fs_kernels, not per rung).
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/problem.h"
#include "kernels/registry.h"

namespace flashscope::kernels::attn_sm90 {

// "" when the Hopper rungs take the problem (query tiles of `bm` rows), else the reason.
std::string Supports(const AttentionProblem& p, int bm);

// Multiprocessors of the current device (the persistent rung's grid size), read once per device
// and thread; 0 when the runtime cannot say.
int MultiprocessorCount();

// Split-KV (a19): how many CTAs share each of `tiles` query tiles of `key_tiles` key tiles each
// (the longest), so that the grid fills `sms` multiprocessors (one CTA each) in whole waves: the
// fewest shares whose wave efficiency (CTAs / the slots of the waves they take) is within 15 %
// of the best reachable with >= 4 key tiles a share and at most 16 shares. 1 when the tiles
// alone come close enough (most 16k-token problems: many short tiles).
int SplitCount(int64_t tiles, int64_t key_tiles, int sms);

// Device scratch of at least `bytes` for split-KV's partial results, grown on demand and kept
// for the process (one per device; growing frees the old block, which synchronises the device,
// so it happens on the first, untimed launch of a larger shape). cudaSuccess and *out, or the
// error (also printed, with the size).
cudaError_t SplitWorkspace(size_t bytes, void** out);

// a21, head dim 64: whether 128-row query tiles (two consumer warpgroups) beat 192-row ones
// (three) for `seq_q` query rows: the padding of the last tile against the two-warpgroup
// schedule's lower rate per row (kShortTileCost: a13 / a17 at D = 64, S >= 2048, measured on an
// H200: 429.5 / 467.9 TFLOPS).
constexpr double kShortTileCost = 467.9 / 429.5;
bool PreferShortTiles(int64_t seq_q);

// a24, head dim 128: whether the persistent grid with two Q buffers beats one CTA per query tile
// for this problem. A round of 132 CTAs (H200, session 9 device call 3: the time per round against
// the key tiles each CTA walks, S = 256..2048 at 16k tokens) costs one CTA per tile (a21) 4.3 us
// fixed + 1.50 us a key tile of 128, the persistent grid (a24) 2.5 + 1.65: it pays while a query
// tile walks on average fewer than (4.3 - 2.5) / (1.65 - 1.50) = 12 key tiles (causal: the
// bottom-right mask's visible keys, averaged over the query rows).
constexpr double kPrefetchMaxKeyTiles = 12;  // (4.3 - 2.5) / (1.65 - 1.50)
bool PreferPrefetchGrid(int64_t seq_q, int64_t seq_k, bool causal);

// The dynamic schedule (a20): heads per scheduling group for `n_m` query tiles per head, so that
// a group holds at least two waves of tiles (the tail within a group is its lightest tiles) while
// the K/V of the heads in flight stay few enough to share L2.
int SchedGroup(int64_t n_m, int sms);

// The dynamic schedule's two device counters (next unit, CTAs done), zero between launches: set
// to zero when first allocated (one pair per device, kept for the process), then reset by the
// last CTA of each launch. Launches that use them must not overlap (the runner launches one
// case at a time on one stream).
cudaError_t UnitCounters(int** out);

struct TensorMaps {
  CUtensorMap q, k, v;
};

// 3-D tensor maps over Q [B·H, Sq, D] and K, V [B·H, Sk, D], 128-byte swizzled, boxes of 64
// columns x `bm` (Q) or `bn` (K, V) rows: a head's rows past its sequence length load as zeros.
// Encoded once per buffers and shape, then reused: a timing loop relaunches on the same buffers,
// and the driver call costs microseconds of host time before each launch. "" or the reason.
std::string MapsFor(const AttentionProblem& p, const AttentionArgs& a, int bm, int bn,
                    TensorMaps* out);

}  // namespace flashscope::kernels::attn_sm90
