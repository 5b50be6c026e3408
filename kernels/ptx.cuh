// PTX wrappers shared by the tensor-core rungs (a05..a11, g04): mma.sync m16n8k16, ldmatrix,
// cp.async, ex2.approx and the packing helpers. Device-only, header-only, no Abseil.
//
// Fragment layouts of mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16} (PTX ISA, "Matrix
// fragments for mma.m16n8k16"); g = lane / 4, t = lane % 4, each 32-bit register holds two
// consecutive 16-bit elements along the row:
//   A (16x16, row-major)  a0: (row g,   cols 2t..2t+1)   a1: (row g+8, cols 2t..2t+1)
//                         a2: (row g,   cols 2t+8..+9)   a3: (row g+8, cols 2t+8..+9)
//   B (16x8,  "col": stored n-major, i.e. as an 8x16 matrix Bᵀ[n][k])
//                         b0: (k 2t..2t+1, col g)        b1: (k 2t+8..+9, col g)
//   C/D (16x8, fp32)      c0,c1: (row g, cols 2t, 2t+1)  c2,c3: (row g+8, cols 2t, 2t+1)
// ldmatrix.m8n8.x4: lanes 8i..8i+7 give the row addresses (16 bytes each) of matrix i; register
// ri receives matrix i with lane holding (row lane/4, cols 2(lane%4)..+1) — the A/C layout of one
// 8x8 block. With .trans, lane holds (rows 2(lane%4)..+1, col lane/4) of the stored matrix, which
// is the B layout when the stored matrix is k-major (V in P·V, B in a row-major GEMM).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace flashscope::kernels::ptx {

// D = A·B + D, fp32 accumulate; T is __half or __nv_bfloat16.
template <typename T>
__device__ __forceinline__ void MmaM16N8K16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                            uint32_t b1) {
  static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>,
                "mma.sync m16n8k16 takes fp16 or bf16 inputs");
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// D = A·B + D with mma.sync's fp16 accumulator (fp16 operands: bf16 mma.sync accumulates in fp32
// only). D stays in the fp32 registers and C/D layout of MmaM16N8K16, so a kernel switches
// accumulators without changing its code: D is rounded to fp16 on the way in (exact when it came
// from this instruction) and the fp16 result widened on the way out, so that between instructions
// it holds exactly what a half2 accumulator register would. The rounding to fp16 after every k16
// step is the bug demo.bug_fp16_accumulate plants in attention's P·V (kernels/demo/).
__device__ __forceinline__ void MmaM16N8K16F16Acc(float (&d)[4], const uint32_t (&a)[4],
                                                  uint32_t b0, uint32_t b1) {
  __half2 c[2] = {__floats2half2_rn(d[0], d[1]), __floats2half2_rn(d[2], d[3])};
  uint32_t(&ci)[2] = reinterpret_cast<uint32_t(&)[2]>(c);
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, "
      "{%0,%1};\n"
      : "+r"(ci[0]), "+r"(ci[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  d[0] = __low2float(c[0]);
  d[1] = __high2float(c[0]);
  d[2] = __low2float(c[1]);
  d[3] = __high2float(c[1]);
}

__device__ __forceinline__ uint32_t SmemAddr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Four 8x8 b16 matrices; `row_addr` is this lane's row (see the header comment).
__device__ __forceinline__ void LdMatrixX4(uint32_t (&r)[4], uint32_t row_addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(row_addr));
}

__device__ __forceinline__ void LdMatrixX4Trans(uint32_t (&r)[4], uint32_t row_addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(row_addr));
}

// Two matrices; lanes 0..15 give the addresses (lanes 16..31 are ignored but must be valid).
__device__ __forceinline__ void LdMatrixX2(uint32_t& r0, uint32_t& r1, uint32_t row_addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r0), "=r"(r1)
               : "r"(row_addr));
}

__device__ __forceinline__ void LdMatrixX2Trans(uint32_t& r0, uint32_t& r1, uint32_t row_addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r0), "=r"(r1)
               : "r"(row_addr));
}

// 16-byte global->shared copy bypassing L1 (.cg). When `valid` is false the source size is 0 and
// the 16 destination bytes are zero-filled: this is how out-of-bounds rows become zeros without a
// branch around the copy. `src` must still be a mapped address.
__device__ __forceinline__ void CpAsync16(uint32_t smem_dst, const void* src, bool valid) {
  const int src_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_dst), "l"(src),
               "r"(src_bytes));
}

__device__ __forceinline__ void CpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::); }

// Waits until at most N of this thread's committed groups are still in flight. Other threads'
// copies are visible only after a barrier.
template <int N>
__device__ __forceinline__ void CpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// 2^x on the MUFU pipe; ex2.approx(-inf) = +0, which the softmax relies on for masked keys.
__device__ __forceinline__ float Exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// 2^x on the FMA/ALU pipes only (FlashAttention-4's software exponential): split x = j + f with
// j = floor(x) by the round-down magic-number add, 2^f on [0,1) by a degree-3 minimax polynomial
// (max relative error ~9e-5, far below fp16/bf16 rounding of P), then add j to the exponent
// bits. Inputs below -126 (masked keys are -inf) return exactly 0 so a fully masked row sums to 0.
__device__ __forceinline__ float Exp2Poly(float x) {
  const float xc = fmaxf(x, -126.f);
  const float shifted = __fadd_rd(xc, 12582912.f);  // 1.5·2^23: low mantissa bits = floor(xc)
  const float j = shifted - 12582912.f;
  const float f = xc - j;  // in [0, 1)
  float p = fmaf(0.0771190897f, f, 0.2275643945f);
  p = fmaf(p, f, 0.6951461434f);
  p = fmaf(p, f, 1.0f);
  const uint32_t bits = static_cast<uint32_t>(__float_as_int(p)) +
                        (static_cast<uint32_t>(__float_as_int(shifted)) << 23);
  return x < -126.f ? 0.f : __int_as_float(static_cast<int>(bits));
}

// Two fp32 values to one register of two 16-bit values (low half = `lo`), round to nearest.
template <typename T>
__device__ __forceinline__ uint32_t PackFloat2(float lo, float hi) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
  } else {
    __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
  }
}

}  // namespace flashscope::kernels::ptx
