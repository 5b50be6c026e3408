// a27_fp8's key permutation of V (host and device): which key of a 32-key group the pre-pass puts
// at k position `slot` of the transposed V (V^T, keys contiguous), so that P·V's A fragment can be
// built from S's fp32 accumulators without moving a value between threads.
//
// Derivation (PTX ISA 8.x, "Matrix fragments for wgmma .m64nNk32" and ".m64nNk16"; warp w of the
// warpgroup, lane = 4g + t):
//   S's accumulator (m64nBNk32, fp32 D): for each n8 block j, d[4j..4j+3] hold (row 16w+g, key
//   8j+2t), (16w+g, 8j+2t+1), (16w+g+8, 8j+2t), (16w+g+8, 8j+2t+1). Within a 32-key slice (blocks
//   j = 4c..4c+3) a thread therefore holds, for each of its two rows, the keys
//   {2t, 2t+1, 2t+8, 2t+9, 2t+16, 2t+17, 2t+24, 2t+25}.
//   P·V's A operand from registers (m64nDk32, .e4m3): four 32-bit registers of four bytes each,
//   a0..a15; a0-a3 and a8-a11 belong to row 16w+g, a4-a7 and a12-a15 to row 16w+g+8; byte i of
//   a0-a7 is k position 4t + (i % 4), of a8-a15 k position 16 + 4t + (i % 4).
//   The thread packs (cvt.rn.satfinite.e4m3x2.f32, first value in the low byte), per row:
//     register 0 (k 4t..4t+3)       <- keys 2t, 2t+1, 2t+8, 2t+9    (n8 blocks 4c, 4c+1)
//     register 2 (k 16+4t..16+4t+3) <- keys 2t+16, 2t+17, 2t+24, 2t+25 (blocks 4c+2, 4c+3)
//   (registers 1 and 3 the same for row g+8). So k position 16h + 4t + i holds key
//   16h + 2t + (i & 1) + 8 (i >> 1): P·V sums over k, and it stays Σ_key P[key]·V[key] when V's
//   row at k position `slot` is the key P holds there, which is what the pre-pass writes.
// The map is a bijection of 0..31 (kernels/tests/cpu_reference_test.cc checks it, and simulates
// both fragment layouts to check that Σ_k A[k]·B[k] = Σ_key P[key]·V[key]).
#pragma once

#if defined(__CUDACC__)
#define FLASHSCOPE_FP8_HD __host__ __device__
#else
#define FLASHSCOPE_FP8_HD
#endif

namespace flashscope::kernels::fp8_layout {

// The key (0..31, within its 32-key group) that k position `slot` (0..31) of V^T holds.
FLASHSCOPE_FP8_HD constexpr int KeyOfSlot(int slot) {
  const int h = slot / 16, t = (slot % 16) / 4, i = slot % 4;
  return 16 * h + 2 * t + (i & 1) + 8 * (i >> 1);
}

// S's accumulator: the key (0..31 within a 32-key slice) of a thread's fp32 value `e` (0..3) of
// the slice's n8 block `jb` (0..3), for lane % 4 == t (rows aside).
FLASHSCOPE_FP8_HD constexpr int AccumulatorKey(int t, int jb, int e) {
  return 8 * jb + 2 * t + (e & 1);
}

// The A fragment of an m64nNk32 .e4m3 wgmma: the k position (0..31) of byte `byte` (0..3) of
// register `reg` (0..3) for lane % 4 == t, and whether it is the thread's second row (g + 8).
FLASHSCOPE_FP8_HD constexpr int FragmentK(int t, int reg, int byte) {
  return (reg >= 2 ? 16 : 0) + 4 * t + byte;
}
FLASHSCOPE_FP8_HD constexpr bool FragmentSecondRow(int reg) { return (reg & 1) != 0; }

// What the kernel packs (Consumer::PackP in attn_sm90_fp8.cuh): byte `byte` of register `reg` is
// the accumulator value of n8 block PackBlock(reg, byte) (within the slice), element
// PackElement(reg, byte) (0..3: row g's two keys, then row g+8's).
FLASHSCOPE_FP8_HD constexpr int PackBlock(int reg, int byte) {
  return (reg >= 2 ? 2 : 0) + (byte >> 1);
}
FLASHSCOPE_FP8_HD constexpr int PackElement(int reg, int byte) {
  return ((reg & 1) ? 2 : 0) + (byte & 1);
}

}  // namespace flashscope::kernels::fp8_layout
