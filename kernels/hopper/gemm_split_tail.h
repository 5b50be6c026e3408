// g07's split tail, host side (plain C++): which cluster tiles of a persistent GEMM grid run whole
// and how the last, partial wave is split along K, and the device counters that order the splits'
// partial sums.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace flashscope::kernels::g06 {

struct SplitTail {
  int64_t full_units = 0;  // cluster tiles that run whole (a multiple of the resident clusters)
  int splits = 1;          // units per later tile (1: no split)
};

// `tiles` cluster tiles over `resident` clusters (one per SM pair or SM), `k_tiles` k-steps each.
// When the tiles leave the last wave partial (tiles % resident = tail, or all of them when fewer
// than one wave), each tail tile is split into the most units that still fit that wave
// (resident / tail), at most kMaxSplits and with >= 4 k-steps each; 1 when none of that helps.
constexpr int64_t kMaxSplits = 6;
SplitTail SplitTailPlan(int64_t tiles, int64_t resident, int64_t k_tiles);

// Device counters (ints, zero between launches) for `count` chains, grown on demand and kept for
// the process (one block per device; new ones are zeroed synchronously, on the first, untimed
// launch of a larger shape). Launches that use them must not overlap.
cudaError_t SplitTailChain(size_t count, int** out);

}  // namespace flashscope::kernels::g06
