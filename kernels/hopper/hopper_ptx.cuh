// PTX wrappers for the Hopper (sm_90a) rungs: mbarriers, TMA bulk-tensor loads, wgmma and its
// shared-memory matrix descriptors, proxy fences and setmaxnreg. Device-only, header-only, no
// Abseil; the general mma.sync / ldmatrix / cp.async wrappers stay in kernels/ptx.cuh.
//
// Every instruction here is Hopper's own: the wrappers compile to their PTX only in the sm_90a pass
// (__CUDA_ARCH_FEAT_SM90_ALL) and to a trap elsewhere, so a file that includes this header still
// compiles for other targets, and a kernel built without sm_90a fails loudly if it is ever launched
// (the registry's exact_sm keeps it from being launched).
//
// Ordering rules these wrappers rely on (PTX ISA, "Memory consistency model", async proxy):
// - TMA writes and wgmma reads of shared memory go through the async proxy. Ordinary stores that
//   wgmma reads next need FenceProxyAsyncShared() in each writing thread before the barrier or
//   mbarrier arrive that publishes them.
// - A TMA load completes on an mbarrier: the issuing thread announces the bytes with
//   MbarArriveExpectTx, the copy engine counts them down, and the phase flips when both the
//   arrivals and the bytes are in. Waiting threads then see the data (acquire semantics).
// - wgmma reads its shared operands asynchronously: a stage may be overwritten only after
//   WgmmaWait<N> has retired the wgmmas that read it.
#pragma once

#include <cuda.h>  // CUtensorMap (a plain 128-byte struct; nothing is linked from the driver here)
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "kernels/ptx.cuh"

namespace flashscope::kernels::hopper {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define FLASHSCOPE_SM90A_ONLY(...) __VA_ARGS__
#else
#define FLASHSCOPE_SM90A_ONLY(...) __trap();
#endif

using ptx::SmemAddr;  // kernels/ptx.cuh: a generic pointer's 32-bit shared-window address

// ---------------------------------------------------------------- mbarrier

// `count` arrivals complete a phase (plus any announced transaction bytes).
__device__ __forceinline__ void MbarInit(uint64_t* bar, uint32_t count) {
  FLASHSCOPE_SM90A_ONLY(
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(SmemAddr(bar)), "r"(count)
                   : "memory");)
}

// Makes the initialised barriers visible to the other threads and to the copy engine (async
// proxy); a __syncthreads() must follow before anyone uses them.
__device__ __forceinline__ void FenceMbarInit() {
  FLASHSCOPE_SM90A_ONLY(asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");)
}

// One arrival that also announces `bytes` more transaction bytes for the current phase.
__device__ __forceinline__ void MbarArriveExpectTx(uint64_t* bar, uint32_t bytes) {
  FLASHSCOPE_SM90A_ONLY(
      asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;\n" ::"r"(
                       SmemAddr(bar)),
                   "r"(bytes)
                   : "memory");)
}

__device__ __forceinline__ void MbarArrive(uint64_t* bar) {
  FLASHSCOPE_SM90A_ONLY(
      asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];\n" ::"r"(SmemAddr(bar))
                   : "memory");)
}

// True once the phase with parity `parity` has completed (the barrier's current phase is the
// other parity). A fresh barrier is in phase 0, so waiting for parity 1 passes at once: that is
// how a producer finds every stage free before any consumer released it.
__device__ __forceinline__ bool MbarTryWait(uint64_t* bar, uint32_t parity) {
  uint32_t done = 1;
  FLASHSCOPE_SM90A_ONLY(
      asm volatile("{\n.reg .pred p;\n"
                   "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n"
                   "selp.u32 %0, 1, 0, p;\n}\n"
                   : "=r"(done)
                   : "r"(SmemAddr(bar)), "r"(parity)
                   : "memory");)
  return done != 0;
}

// try_wait suspends the thread for a hardware-chosen time before it returns false, so this loop
// does not spin the issue slots the way a test_wait loop would.
__device__ __forceinline__ void MbarWait(uint64_t* bar, uint32_t parity) {
  while (!MbarTryWait(bar, parity)) {
  }
}

// One arrival on the barrier at the same shared-memory offset in CTA `cta` of this cluster (mapa
// translates the address): how a consumer releases a stage its peer's multicast also writes.
// Default semantics (release at CTA scope): what the arrival publishes is that this thread's
// wgmma reads are over (wait_group already retired them), which needs no memory fence, whereas
// .release.cluster would put a GPU-wide MEMBAR in front of every arrival.
__device__ __forceinline__ void MbarArriveCluster(uint64_t* bar, uint32_t cta) {
  FLASHSCOPE_SM90A_ONLY(
      asm volatile("{\n.reg .b32 remote;\n"
                   "mapa.shared::cluster.u32 remote, %0, %1;\n"
                   "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(SmemAddr(bar)),
                   "r"(cta)
                   : "memory");)
}

// ---------------------------------------------------------------- clusters

__device__ __forceinline__ uint32_t ClusterCtaRank() {
  uint32_t r = 0;
  FLASHSCOPE_SM90A_ONLY(asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));)
  return r;
}

// Every thread of every CTA in the cluster, exited threads excepted, meets here; release/acquire
// orders shared-memory writes (barrier initialisation) before the other CTAs' later accesses.
__device__ __forceinline__ void ClusterSync() {
  FLASHSCOPE_SM90A_ONLY(asm volatile("barrier.cluster.arrive.release;\n"
                                     "barrier.cluster.wait.acquire;\n" ::
                                         : "memory");)
}

// ---------------------------------------------------------------- TMA

// Fetches the tensor map (a __grid_constant__ kernel parameter) into the TMA unit's cache.
__device__ __forceinline__ void PrefetchTensorMap(const CUtensorMap* map) {
  FLASHSCOPE_SM90A_ONLY(
      asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map))
                   : "memory");)
}

// A 2-D box of `map` at element coordinates (c0 innermost, c1) into shared memory at `dst`,
// completing on `bar`. Elements outside the tensor (coordinates past its extent) arrive as zeros
// and still count towards the box's bytes.
__device__ __forceinline__ void TmaLoad2D(void* dst, const CUtensorMap* map, uint64_t* bar, int c0,
                                          int c1) {
  FLASHSCOPE_SM90A_ONLY(
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
                   "[%0], [%1, {%3, %4}], [%2];\n" ::"r"(SmemAddr(dst)),
                   "l"(reinterpret_cast<uint64_t>(map)), "r"(SmemAddr(bar)), "r"(c0), "r"(c1)
                   : "memory");)
}

// As TmaLoad2D, but the box lands at the same offset in every CTA of `cta_mask` (bit i: cluster
// rank i) and counts on each one's barrier at `bar`'s offset.
__device__ __forceinline__ void TmaLoad2DMulticast(void* dst, const CUtensorMap* map, uint64_t* bar,
                                                   int c0, int c1, uint16_t cta_mask) {
  FLASHSCOPE_SM90A_ONLY(
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                   ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(SmemAddr(dst)),
                   "l"(reinterpret_cast<uint64_t>(map)), "r"(SmemAddr(bar)), "r"(c0), "r"(c1),
                   "h"(cta_mask)
                   : "memory");)
}

// Orders this thread's earlier ordinary shared-memory accesses before later async-proxy ones
// (wgmma operand reads, TMA writes).
__device__ __forceinline__ void FenceProxyAsyncShared() {
  FLASHSCOPE_SM90A_ONLY(asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");)
}

// ---------------------------------------------------------------- setmaxnreg

// Warpgroup-wide register re-allocation: every thread of the warpgroup must execute it, and it
// takes effect only in a kernel with a register cap at entry (__launch_bounds__(threads, 1)).
template <int kRegs>
__device__ __forceinline__ void SetMaxNRegIncrease() {
  static_assert(kRegs % 8 == 0 && kRegs >= 24 && kRegs <= 256, "setmaxnreg: 24..256, step 8");
  FLASHSCOPE_SM90A_ONLY(asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));)
}

template <int kRegs>
__device__ __forceinline__ void SetMaxNRegDecrease() {
  static_assert(kRegs % 8 == 0 && kRegs >= 24 && kRegs <= 256, "setmaxnreg: 24..256, step 8");
  FLASHSCOPE_SM90A_ONLY(asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));)
}

// ---------------------------------------------------------------- wgmma

// A shared-memory matrix descriptor for the 128-byte swizzled layout (1024-byte atoms of 8 rows of
// 128 bytes, the 16-byte chunk c of atom row r stored at chunk c ^ r; atoms 1024-byte aligned).
// Bits 0-13: start address >> 4; 16-29: leading byte offset >> 4; 32-45: stride byte offset >> 4;
// 49-51: base offset (0 for aligned atoms); 62-63: swizzle mode (1 = 128-byte).
// K-major operands: SBO = the step between 8-row atoms, LBO unused (one atom spans the 64-wide K).
// MN-major operands: LBO = the step between atoms along M/N (64 elements), SBO = the step between
// groups of 8 k-rows.
__device__ __forceinline__ uint64_t SmemDescriptorSw128(const void* smem, uint32_t lbo_bytes,
                                                        uint32_t sbo_bytes) {
  const uint32_t addr = SmemAddr(smem);
  return uint64_t((addr & 0x3FFFF) >> 4) | (uint64_t((lbo_bytes >> 4) & 0x3FFF) << 16) |
         (uint64_t((sbo_bytes >> 4) & 0x3FFF) << 32) | (uint64_t(1) << 62);
}

// Orders register accesses to the accumulators before the wgmmas that follow.
__device__ __forceinline__ void WgmmaFence() {
  FLASHSCOPE_SM90A_ONLY(asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");)
}

__device__ __forceinline__ void WgmmaCommit() {
  FLASHSCOPE_SM90A_ONLY(asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");)
}

// Waits until at most N committed wgmma groups of this warpgroup are still in flight.
template <int N>
__device__ __forceinline__ void WgmmaWait() {
  FLASHSCOPE_SM90A_ONLY(asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");)
}

// The accumulator registers of wgmma as a "+f" operand list, 8 at a time.
#define FLASHSCOPE_WGMMA_D8(i)                                                                \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define FLASHSCOPE_WGMMA_D32(i)                                                    \
  FLASHSCOPE_WGMMA_D8(i), FLASHSCOPE_WGMMA_D8(i + 8), FLASHSCOPE_WGMMA_D8(i + 16), \
      FLASHSCOPE_WGMMA_D8(i + 24)
#define FLASHSCOPE_WGMMA_D64(i)                                                              \
  FLASHSCOPE_WGMMA_D8(i), FLASHSCOPE_WGMMA_D8(i + 8), FLASHSCOPE_WGMMA_D8(i + 16),           \
      FLASHSCOPE_WGMMA_D8(i + 24), FLASHSCOPE_WGMMA_D8(i + 32), FLASHSCOPE_WGMMA_D8(i + 40), \
      FLASHSCOPE_WGMMA_D8(i + 48), FLASHSCOPE_WGMMA_D8(i + 56)

// The register lists of the wgmma instructions below ("{%0, ..., %31}", to %63 and to %127).
#define FLASHSCOPE_R8(a, b, c, d, e, f, g, h) \
  "%" #a ", %" #b ", %" #c ", %" #d ", %" #e ", %" #f ", %" #g ", %" #h
#define FLASHSCOPE_WGMMA_REGS32                                        \
  FLASHSCOPE_R8(0, 1, 2, 3, 4, 5, 6, 7)                                \
  ", " FLASHSCOPE_R8(8, 9, 10, 11, 12, 13, 14, 15) ", " FLASHSCOPE_R8( \
      16, 17, 18, 19, 20, 21, 22, 23) ", " FLASHSCOPE_R8(24, 25, 26, 27, 28, 29, 30, 31)
#define FLASHSCOPE_WGMMA_REGS64                                                                  \
  FLASHSCOPE_WGMMA_REGS32 ", " FLASHSCOPE_R8(32, 33, 34, 35, 36, 37, 38, 39) ", " FLASHSCOPE_R8( \
      40, 41, 42, 43, 44, 45, 46, 47) ", " FLASHSCOPE_R8(48, 49, 50, 51, 52, 53, 54,             \
                                                         55) ", " FLASHSCOPE_R8(56, 57, 58, 59,  \
                                                                                60, 61, 62, 63)
#define FLASHSCOPE_WGMMA_REGS128 \
  FLASHSCOPE_WGMMA_REGS64 ", " FLASHSCOPE_R8(64, 65, 66, 67, 68, 69, 70, 71) ", "           \
  FLASHSCOPE_R8(72, 73, 74, 75, 76, 77, 78, 79) ", "                                         \
  FLASHSCOPE_R8(80, 81, 82, 83, 84, 85, 86, 87) ", "                                         \
  FLASHSCOPE_R8(88, 89, 90, 91, 92, 93, 94, 95) ", "                                         \
  FLASHSCOPE_R8(96, 97, 98, 99, 100, 101, 102, 103) ", "                                     \
  FLASHSCOPE_R8(104, 105, 106, 107, 108, 109, 110, 111) ", "                                 \
  FLASHSCOPE_R8(112, 113, 114, 115, 116, 117, 118, 119) ", "                                 \
  FLASHSCOPE_R8(120, 121, 122, 123, 124, 125, 126, 127)
// scale-d is a predicate operand; the immediates after it are scale-a = 1, scale-b = 1,
// trans-a = 0 (A K-major), trans-b = 1 (B MN-major).
#define FLASHSCOPE_WGMMA_ASM(shape, type, regs, da, db, sd)                                  \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %" #sd                                                   \
  ", 0;\n"                                                                                   \
  "wgmma.mma_async.sync.aligned." shape ".f32." type "." type " {" regs "}, %" #da ", %" #db \
  ", p, 1, 1, 0, 1;\n}\n"

// d (kN/2 fp32 per thread) = A (64x16, K-major, desc_a) · B (16xkN, MN-major, desc_b) + (scale_d ?
// d : 0), T = __half or __nv_bfloat16. Accumulator layout: warp w of the warpgroup holds rows
// 16w..16w+15; for each n8 block j, d[4j..4j+3] are (r, c), (r, c+1), (r+8, c), (r+8, c+1) with
// r = 16w + lane/4, c = 8j + 2(lane%4).
template <typename T, int kN>
__device__ __forceinline__ void WgmmaM64K16SsNMajorB(float (&d)[kN / 2], uint64_t desc_a,
                                                     uint64_t desc_b, int scale_d) {
  static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>,
                "wgmma here takes fp16 or bf16 operands");
  static_assert(kN == 64 || kN == 128 || kN == 256, "instantiated for n = 64, 128 and 256");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if constexpr (kN == 64 && std::is_same_v<T, __half>) {
    asm volatile(FLASHSCOPE_WGMMA_ASM("m64n64k16", "f16", FLASHSCOPE_WGMMA_REGS32, 32, 33, 34)
                 : FLASHSCOPE_WGMMA_D32(0)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  } else if constexpr (kN == 64) {
    asm volatile(FLASHSCOPE_WGMMA_ASM("m64n64k16", "bf16", FLASHSCOPE_WGMMA_REGS32, 32, 33, 34)
                 : FLASHSCOPE_WGMMA_D32(0)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  } else if constexpr (kN == 128 && std::is_same_v<T, __half>) {
    asm volatile(FLASHSCOPE_WGMMA_ASM("m64n128k16", "f16", FLASHSCOPE_WGMMA_REGS64, 64, 65, 66)
                 : FLASHSCOPE_WGMMA_D64(0)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  } else if constexpr (kN == 128) {
    asm volatile(FLASHSCOPE_WGMMA_ASM("m64n128k16", "bf16", FLASHSCOPE_WGMMA_REGS64, 64, 65, 66)
                 : FLASHSCOPE_WGMMA_D64(0)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  } else if constexpr (std::is_same_v<T, __half>) {
    asm volatile(FLASHSCOPE_WGMMA_ASM("m64n256k16", "f16", FLASHSCOPE_WGMMA_REGS128, 128, 129, 130)
                 : FLASHSCOPE_WGMMA_D64(0), FLASHSCOPE_WGMMA_D64(64)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  } else {
    asm volatile(FLASHSCOPE_WGMMA_ASM("m64n256k16", "bf16", FLASHSCOPE_WGMMA_REGS128, 128, 129, 130)
                 : FLASHSCOPE_WGMMA_D64(0), FLASHSCOPE_WGMMA_D64(64)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  }
#else
  (void)d;
  (void)desc_a;
  (void)desc_b;
  (void)scale_d;
  __trap();
#endif
}

#undef FLASHSCOPE_WGMMA_ASM
#undef FLASHSCOPE_WGMMA_REGS128
#undef FLASHSCOPE_WGMMA_REGS64
#undef FLASHSCOPE_WGMMA_REGS32
#undef FLASHSCOPE_R8
#undef FLASHSCOPE_WGMMA_D64
#undef FLASHSCOPE_WGMMA_D32
#undef FLASHSCOPE_WGMMA_D8

#undef FLASHSCOPE_SM90A_ONLY

}  // namespace flashscope::kernels::hopper
