// attn.a10_fa2's compile-time configuration: its feature bits and per-head-dim tiles. One place,
// shared by the rung (a10_fa2.cu, which says why these tiles) and by the test-only variants of
// kernels/testing/cheat_kernels.cu, which must run exactly a10's code plus their one cheat.
#pragma once

#include "kernels/attention/attn_mma_entry.cuh"

namespace flashscope::kernels::a10 {

inline constexpr unsigned kFeatures = attn_mma::kSInRegs | attn_mma::kDirectRescale |
                                      attn_mma::kCpAsync | attn_mma::kSwizzle |
                                      attn_mma::kCausalSkip;
using TileD64 = attn_mma::Tile<128, 64, 2, 2>;  // 4 warps × two m16 tiles, BN 64
using TileD128 = attn_mma::Tile<64, 64, 2>;     // 4 warps × one m16 tile, BN 64

}  // namespace flashscope::kernels::a10
