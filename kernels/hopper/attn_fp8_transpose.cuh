// The FP8 rungs' pre-pass (a27-a29): FP8 wgmma reads both operands K-major only, so P·V needs V
// with its keys contiguous; every launch first writes V^T on the launch's stream (inside the
// timing), its keys in the order that lets P's accumulators feed the A fragment with no shuffle
// (attn_fp8_layout.h).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/hopper/attn_fp8_layout.h"

namespace flashscope::kernels::attn_fp8 {

// The pre-pass: V [bh][seq_k][D] (E4M3) to V^T [bh][D][seq_k_pad] (seq_k_pad: seq_k rounded up
// to 128), keys permuted within each 32-key group (k position `slot` holds key KeyOfSlot(slot)),
// keys past seq_k zero (P is 0 there, and 0 · NaN would not be). A block of 256 threads moves 128
// keys x 64 columns of one head through shared memory: 16-byte loads of V's rows, 16-byte stores
// of V^T's. blockIdx.x = (bh · key_blocks + key_block) · D/64 + column block.
constexpr int kTransposeThreads = 256;

template <int D>
__global__ void __launch_bounds__(kTransposeThreads)
    TransposeVKernel(const uint8_t* __restrict__ v, uint8_t* __restrict__ vt, int seq_k,
                     int seq_k_pad) {
  __shared__ uint8_t tile[128][64 + 16];  // [key][column], rows 80 bytes apart (16-byte aligned)
  constexpr int kColBlocks = D / 64;
  const int key_blocks = seq_k_pad / 128;
  int64_t id = blockIdx.x;
  const int cb = static_cast<int>(id % kColBlocks);
  id /= kColBlocks;
  const int kb = static_cast<int>(id % key_blocks);
  const int64_t bh = id / key_blocks;
  const uint8_t* src = v + (bh * seq_k + int64_t(kb) * 128) * D + cb * 64;
  // 128 keys x 4 chunks of 16 bytes.
  for (int i = threadIdx.x; i < 128 * 4; i += kTransposeThreads) {
    const int key = i / 4, ch = i % 4;
    uint4 x = make_uint4(0, 0, 0, 0);
    if (kb * 128 + key < seq_k)
      x = *reinterpret_cast<const uint4*>(src + int64_t(key) * D + ch * 16);
    *reinterpret_cast<uint4*>(&tile[key][ch * 16]) = x;
  }
  __syncthreads();
  uint8_t* dst = vt + (bh * D + cb * 64) * int64_t(seq_k_pad) + int64_t(kb) * 128;
  // 64 columns x 8 chunks of 16 slots; slot s of a 32-key group holds key KeyOfSlot(s).
  for (int i = threadIdx.x; i < 64 * 8; i += kTransposeThreads) {
    const int col = i / 8, ch = i % 8;
    uint32_t w[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      uint32_t word = 0;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        const int slot = ch * 16 + q * 4 + b;
        const int key = (slot / 32) * 32 + fp8_layout::KeyOfSlot(slot % 32);
        word |= uint32_t(tile[key][col]) << (8 * b);
      }
      w[q] = word;
    }
    *reinterpret_cast<uint4*>(dst + int64_t(col) * seq_k_pad + ch * 16) =
        make_uint4(w[0], w[1], w[2], w[3]);
  }
}

}  // namespace flashscope::kernels::attn_fp8
