// attn.a10_fa2's configuration (a10_fa2.cu says what the rung is and why): its feature bits and
// its tile per head dim, in one place for the rung and the test-only variants built on its code
// path (the cheats of kernels/testing/cheat_kernels.cu and the bugs of bug_kernels.cu), which must
// run exactly a10's code plus their one change.
#pragma once

#include "kernels/attention/attn_mma_entry.cuh"

namespace flashscope::kernels::a10 {

inline constexpr unsigned kFeatures = attn_mma::kSInRegs | attn_mma::kDirectRescale |
                                      attn_mma::kCpAsync | attn_mma::kSwizzle |
                                      attn_mma::kCausalSkip;
using TileD64 = attn_mma::Tile<128, 64, 2, 2>;  // 4 warps × two m16 tiles, BN 64
using TileD128 = attn_mma::Tile<64, 64, 2>;     // 4 warps × one m16 tile, BN 64

}  // namespace flashscope::kernels::a10
