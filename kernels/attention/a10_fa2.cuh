// attn.a10_fa2's configuration (a10_fa2.cu says what the rung is and why): its feature bits and
// its tile per head dim, in one place for the rung and the test-only variants built on its code
// path (kernels/testing/bug_kernels.cu).
#pragma once

#include "kernels/attention/attn_mma_entry.cuh"

namespace flashscope::kernels::a10 {

constexpr unsigned kFeatures = attn_mma::kSInRegs | attn_mma::kDirectRescale | attn_mma::kCpAsync |
                               attn_mma::kSwizzle | attn_mma::kCausalSkip;
using TileD64 = attn_mma::Tile<128, 64, 2, 2>;  // 4 warps x 32 rows (two m16 tiles each), BN 64
using TileD128 = attn_mma::Tile<64, 64, 2>;     // 4 warps x 16 rows, BN 64

}  // namespace flashscope::kernels::a10
