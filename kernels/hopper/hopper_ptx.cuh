// PTX wrappers for the Hopper (sm_90a) kernels, the GEMM rungs g05+ and the attention rungs a12+
// alike: mbarriers, cluster barriers, TMA bulk-tensor loads (2-D, 2-D multicast, 3-D), proxy and
// mbarrier-init fences, named barriers, setmaxnreg, wgmma's shared-memory matrix descriptors and
// wgmma itself in both operand forms. Device-only, header-only, no Abseil; the general mma.sync /
// ldmatrix / cp.async wrappers stay in kernels/ptx.cuh. Names follow PTX's (PTX ISA 8.x,
// "mbarrier", "cp.async.bulk.tensor", "Asynchronous warpgroup level matrix multiply").
//
// Shared-memory operands (barriers, TMA destinations, descriptor bases) are SmemAddress: a kernel
// passes either a generic pointer into shared memory or the 32-bit shared-window address it
// already computed (the attention rungs keep their barriers as addresses, the GEMM rungs as
// pointers); both inline to the same cvta + instruction.
//
// Ordering rules these wrappers rely on (PTX ISA, "Memory consistency model", async proxy):
// - TMA writes and wgmma reads of shared memory go through the async proxy. Ordinary stores that
//   wgmma or TMA touches next need FenceProxyAsyncShared() in each writing thread before the
//   barrier or mbarrier arrive that publishes them.
// - A TMA load completes on an mbarrier: the issuing thread announces the bytes with
//   MbarArriveExpectTx, the copy engine counts them down, and the phase flips when both the
//   arrivals and the bytes are in. Waiting threads then see the data (acquire semantics).
// - wgmma reads its shared operands asynchronously: a stage may be overwritten only after
//   WgmmaWait<N> has retired the wgmmas that read it; its registers likewise (FenceOperands).
//
// Every file that includes this must be compiled for sm_90a alone
// (-gencode=arch=compute_90a,code=sm_90a): wgmma and setmaxnreg exist on no other target, and a
// silent fallback would only trap at run time.
#pragma once

#include <cuda.h>  // CUtensorMap (a plain 128-byte struct; nothing is linked from the driver here)
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "kernels/ptx.cuh"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "hopper_ptx.cuh: compile with -gencode=arch=compute_90a,code=sm_90a (wgmma, setmaxnreg)"
#endif

namespace flashscope::kernels::hopper {

using ptx::SmemAddr;  // kernels/ptx.cuh: a generic pointer's 32-bit shared-window address

// A shared-memory operand: from a generic pointer into shared memory or from the shared-window
// address itself. Implicit on purpose, so that every wrapper takes either form.
struct SmemAddress {
  uint32_t value;
  __device__ __forceinline__ SmemAddress(uint32_t addr) : value(addr) {}         // NOLINT
  __device__ __forceinline__ SmemAddress(const void* p) : value(SmemAddr(p)) {}  // NOLINT
};

// ---------------------------------------------------------------- mbarrier (shared::cta, b64)
// A phase completes when `count` arrivals have happened and every byte announced with expect_tx
// has landed. Waiters ask for the completion of the phase of a given parity: the k-th use of a
// barrier (k = 0, 1, ...) completes parity k & 1.

__device__ __forceinline__ void MbarInit(SmemAddress bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar.value), "r"(count) : "memory");
}

// Makes the initialised barriers visible to the other threads and to the copy engine (async
// proxy); a barrier of the threads that use them (or a cluster barrier) must follow.
__device__ __forceinline__ void FenceMbarInit() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// One arrival that also announces `bytes` more transaction bytes for the current phase.
__device__ __forceinline__ void MbarArriveExpectTx(SmemAddress bar, uint32_t bytes) {
  asm volatile(
      "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar.value),
      "r"(bytes)
      : "memory");
}

__device__ __forceinline__ void MbarArrive(SmemAddress bar) {
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];\n" ::"r"(bar.value)
               : "memory");
}

// True once the phase with parity `parity` has completed (the barrier's current phase is the
// other parity). A fresh barrier is in phase 0, so waiting for parity 1 passes at once: that is
// how a producer finds every stage free before any consumer released it.
__device__ __forceinline__ bool MbarTryWait(SmemAddress bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n.reg .pred p;\n"
      "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(bar.value), "r"(parity)
      : "memory");
  return done != 0;
}

// try_wait suspends the thread for a hardware-chosen time before it returns false, so this loop
// does not spin the issue slots the way a test_wait loop would.
__device__ __forceinline__ void MbarWait(SmemAddress bar, uint32_t parity) {
  while (!MbarTryWait(bar, parity)) {
  }
}

// One arrival on the barrier at the same shared-memory offset in CTA `cta` of this cluster (mapa
// translates the address): how a consumer releases a stage its peer's multicast also writes.
// Default semantics (release at CTA scope): what the arrival publishes is that this thread's
// wgmma reads are over (wait_group already retired them), which needs no memory fence, whereas
// .release.cluster would put a GPU-wide MEMBAR in front of every arrival.
__device__ __forceinline__ void MbarArriveCluster(SmemAddress bar, uint32_t cta) {
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar.value),
      "r"(cta)
      : "memory");
}

// ---------------------------------------------------------------- clusters, named barriers

__device__ __forceinline__ uint32_t ClusterCtaRank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}

// Every thread of every CTA in the cluster, exited threads excepted, meets here; release/acquire
// orders shared-memory writes (barrier initialisation) before the other CTAs' later accesses.
__device__ __forceinline__ void ClusterSync() {
  asm volatile(
      "barrier.cluster.arrive.release;\n"
      "barrier.cluster.wait.acquire;\n" ::
          : "memory");
}

// A global int read with acquire / written with release semantics at GPU scope: a flag that
// orders one CTA's global writes before another CTA's reads (g07's split order).
__device__ __forceinline__ int LoadAcquireGpu(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void StoreReleaseGpu(int* p, int v) {
  asm volatile("st.release.gpu.global.b32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
}

// Named barriers 1..15 (0 is __syncthreads): `count` threads (a multiple of 32) take part; sync
// waits for all, arrive counts itself and goes on.
__device__ __forceinline__ void NamedBarrierSync(uint32_t id, uint32_t count) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void NamedBarrierArrive(uint32_t id, uint32_t count) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

// ---------------------------------------------------------------- TMA

// Fetches the tensor map (a __grid_constant__ kernel parameter) into the TMA unit's cache, which
// hides the first load's descriptor fetch.
__device__ __forceinline__ void PrefetchTensorMap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// The box of `map` at element coordinates (c0 innermost, c1[, c2]) into shared memory at `dst`,
// completing on `bar` with its byte count. Elements outside the tensor (coordinates past its
// extent) arrive as zeros and still count towards the box's bytes.
__device__ __forceinline__ void TmaLoad2D(SmemAddress dst, const CUtensorMap* map, SmemAddress bar,
                                          int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
      "[%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst.value),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar.value), "r"(c0), "r"(c1)
      : "memory");
}

__device__ __forceinline__ void TmaLoad3D(SmemAddress dst, const CUtensorMap* map, SmemAddress bar,
                                          int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
      "[%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(dst.value),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar.value)
      : "memory");
}

// As TmaLoad2D, but the box lands at the same offset in every CTA of `cta_mask` (bit i: cluster
// rank i) and counts on each one's barrier at `bar`'s offset.
__device__ __forceinline__ void TmaLoad2DMulticast(SmemAddress dst, const CUtensorMap* map,
                                                   SmemAddress bar, int c0, int c1,
                                                   uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst.value),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar.value), "r"(c0), "r"(c1), "h"(cta_mask)
      : "memory");
}

// The box of `map` at element coordinates (c0 innermost, c1) from shared memory at `src` to global
// memory, in the layout the map's swizzle names (g12's staged C). Elements past the tensor's
// extent are not written. Tracked in the issuing thread's bulk async-group (BulkCommitGroup).
// The writes that made `src` must be ordered before it by FenceProxyAsyncShared.
__device__ __forceinline__ void TmaStore2D(const CUtensorMap* map, SmemAddress src, int c0,
                                           int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
          reinterpret_cast<uint64_t>(map)),
      "r"(src.value), "r"(c0), "r"(c1)
      : "memory");
}

// Closes this thread's bulk async-group of the stores issued since the last commit.
__device__ __forceinline__ void BulkCommitGroup() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

// Waits until at most kPending of this thread's committed bulk groups still read their shared
// memory (their sources may be written again), or, BulkWaitGroup, are still incomplete.
template <int kPending>
__device__ __forceinline__ void BulkWaitGroupRead() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
}
template <int kPending>
__device__ __forceinline__ void BulkWaitGroup() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// Byte offset of the 16-byte chunk (row, c) in a box of 128-byte rows, 128-byte swizzled: what
// TMA writes and wgmma reads, and what TMA stores read (chunk c of row r stored at c ^ (r % 8)).
__device__ __forceinline__ int SwizzledChunk(int row, int c) {
  return row * 128 + ((c ^ (row & 7)) << 4);
}

// Orders this thread's earlier ordinary (generic-proxy) shared-memory accesses before later
// async-proxy ones (wgmma operand reads, TMA writes) of the same memory.
__device__ __forceinline__ void FenceProxyAsyncShared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// ---------------------------------------------------------------- setmaxnreg

// Warpgroup-wide register re-allocation: every warp of the warpgroup executes the same one, and
// it takes effect only in a kernel with a register cap at entry (__launch_bounds__(threads, 1)).
template <int kRegs>
__device__ __forceinline__ void SetMaxNRegInc() {
  static_assert(kRegs % 8 == 0 && kRegs >= 24 && kRegs <= 256, "setmaxnreg: 24..256, step 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

template <int kRegs>
__device__ __forceinline__ void SetMaxNRegDec() {
  static_assert(kRegs % 8 == 0 && kRegs >= 24 && kRegs <= 256, "setmaxnreg: 24..256, step 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

// ---------------------------------------------------------------- wgmma

// A shared-memory matrix descriptor for the 128-byte swizzled layout (the layout TMA writes with
// CU_TENSOR_MAP_SWIZZLE_128B): 1024-byte atoms of 8 rows of 128 bytes, the 16-byte chunk c of
// atom row r stored at chunk c ^ r, atoms 1024-byte aligned. Bits 0-13: start address >> 4;
// 16-29: leading byte offset >> 4; 32-45: stride byte offset >> 4; 49-51: base offset (0 for
// aligned atoms); 62-63: swizzle mode (1 = 128 B).
// K-major operands: SBO = the step between 8-row atoms, LBO unused (16: one atom spans a 64-wide
// K). MN-major operands (the transpose bit): LBO = the step between atoms along M/N (64
// elements), SBO = the step between groups of 8 k-rows.
__device__ __forceinline__ uint64_t SmemDescriptorSw128(SmemAddress smem, uint32_t lbo_bytes,
                                                        uint32_t sbo_bytes) {
  return uint64_t((smem.value & 0x3FFFF) >> 4) | (uint64_t((lbo_bytes >> 4) & 0x3FFF) << 16) |
         (uint64_t((sbo_bytes >> 4) & 0x3FFF) << 32) | (uint64_t(1) << 62);
}

// Orders register accesses to the accumulators before the wgmmas that follow.
__device__ __forceinline__ void WgmmaFence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void WgmmaCommit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

// Waits until at most N committed wgmma groups of this warpgroup are still in flight (groups
// complete in order).
template <int N>
__device__ __forceinline__ void WgmmaWait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Keeps the compiler from moving reads or writes of a register across this point: wgmma reads
// and writes its registers asynchronously, which the compiler cannot see, so accumulators (and
// register A operands) that other code touches are fenced after every wait and before every issue.
__device__ __forceinline__ void FenceOperand(float& x) { asm volatile("" : "+f"(x)::"memory"); }
__device__ __forceinline__ void FenceOperand(uint32_t& x) { asm volatile("" : "+r"(x)::"memory"); }
template <int N>
__device__ __forceinline__ void FenceOperands(float (&x)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) FenceOperand(x[i]);
}

// The operand lists of wgmma's accumulator registers ("{%0, ..., %R-1}" and the matching
// "+f"(d[i]) constraints) for R = N / 2 fp32 registers per thread (m64nN), built from runs of 32
// operand names.
#define FLASHSCOPE_WGMMA_REGS_0                                            \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define FLASHSCOPE_WGMMA_REGS_32                                                     \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define FLASHSCOPE_WGMMA_REGS_64                                                     \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define FLASHSCOPE_WGMMA_REGS_96                                                                 \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define FLASHSCOPE_WGMMA_ACC_32 "{" FLASHSCOPE_WGMMA_REGS_0 "}"
#define FLASHSCOPE_WGMMA_ACC_64 "{" FLASHSCOPE_WGMMA_REGS_0 ", " FLASHSCOPE_WGMMA_REGS_32 "}"
#define FLASHSCOPE_WGMMA_ACC_96 \
  "{" FLASHSCOPE_WGMMA_REGS_0 ", " FLASHSCOPE_WGMMA_REGS_32 ", " FLASHSCOPE_WGMMA_REGS_64 "}"
#define FLASHSCOPE_WGMMA_ACC_128                                                          \
  "{" FLASHSCOPE_WGMMA_REGS_0 ", " FLASHSCOPE_WGMMA_REGS_32 ", " FLASHSCOPE_WGMMA_REGS_64 \
  ", " FLASHSCOPE_WGMMA_REGS_96 "}"
#define FLASHSCOPE_WGMMA_ACC_OUT_32(d)                                                          \
  "+f"((d)[0]), "+f"((d)[1]), "+f"((d)[2]), "+f"((d)[3]), "+f"((d)[4]), "+f"((d)[5]),           \
      "+f"((d)[6]), "+f"((d)[7]), "+f"((d)[8]), "+f"((d)[9]), "+f"((d)[10]), "+f"((d)[11]),     \
      "+f"((d)[12]), "+f"((d)[13]), "+f"((d)[14]), "+f"((d)[15]), "+f"((d)[16]), "+f"((d)[17]), \
      "+f"((d)[18]), "+f"((d)[19]), "+f"((d)[20]), "+f"((d)[21]), "+f"((d)[22]), "+f"((d)[23]), \
      "+f"((d)[24]), "+f"((d)[25]), "+f"((d)[26]), "+f"((d)[27]), "+f"((d)[28]), "+f"((d)[29]), \
      "+f"((d)[30]), "+f"((d)[31])
#define FLASHSCOPE_WGMMA_ACC_OUT_64(d) \
  FLASHSCOPE_WGMMA_ACC_OUT_32(d), FLASHSCOPE_WGMMA_ACC_OUT_32((d) + 32)
#define FLASHSCOPE_WGMMA_ACC_OUT_96(d) \
  FLASHSCOPE_WGMMA_ACC_OUT_64(d), FLASHSCOPE_WGMMA_ACC_OUT_32((d) + 64)
#define FLASHSCOPE_WGMMA_ACC_OUT_128(d) \
  FLASHSCOPE_WGMMA_ACC_OUT_64(d), FLASHSCOPE_WGMMA_ACC_OUT_64((d) + 64)

// One wgmma.mma_async: A from shared memory (SS: %R desc_a, %R+1 desc_b, %R+2 scale_d) or from
// four registers (RS: %R..%R+3 a, %R+4 desc_b, %R+5 scale_d); scale_d = 0 overwrites D, else adds.
// Operand scales are +1; TA/TB (0/1) are the transpose immediates (1 = MN-major operand).
#define FLASHSCOPE_WGMMA_SS_ASM(N, ACC, A, B, S, TY, TA, TB)                        \
  "{\n.reg .pred p;\nsetp.ne.b32 p, " S                                             \
  ", 0;\n"                                                                          \
  "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TY "." TY " " ACC ", " A ", " B \
  ", p, 1, 1, " #TA ", " #TB ";\n}\n"
#define FLASHSCOPE_WGMMA_RS_ASM(N, ACC, A, B, S, TY, TB)                            \
  "{\n.reg .pred p;\nsetp.ne.b32 p, " S                                             \
  ", 0;\n"                                                                          \
  "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TY "." TY " " ACC ", " A ", " B \
  ", p, 1, 1, " #TB ";\n}\n"

#define FLASHSCOPE_WGMMA_SS_CASE(N, R, A, B, S, TY, TA, TB)                              \
  asm volatile(FLASHSCOPE_WGMMA_SS_ASM(N, FLASHSCOPE_WGMMA_ACC_##R, A, B, S, TY, TA, TB) \
               : FLASHSCOPE_WGMMA_ACC_OUT_##R(d)                                         \
               : "l"(desc_a), "l"(desc_b), "r"(scale_d))
#define FLASHSCOPE_WGMMA_RS_CASE(N, R, A, B, S, TY, TB)                              \
  asm volatile(FLASHSCOPE_WGMMA_RS_ASM(N, FLASHSCOPE_WGMMA_ACC_##R, A, B, S, TY, TB) \
               : FLASHSCOPE_WGMMA_ACC_OUT_##R(d)                                     \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d))

// Picks the instruction for the element type and the transpose immediates at compile time.
#define FLASHSCOPE_WGMMA_SS_DISPATCH(N, R, A, B, S, TY) \
  if constexpr (!kTransA && !kTransB) {                 \
    FLASHSCOPE_WGMMA_SS_CASE(N, R, A, B, S, TY, 0, 0);  \
  } else if constexpr (!kTransA && kTransB) {           \
    FLASHSCOPE_WGMMA_SS_CASE(N, R, A, B, S, TY, 0, 1);  \
  } else if constexpr (kTransA && !kTransB) {           \
    FLASHSCOPE_WGMMA_SS_CASE(N, R, A, B, S, TY, 1, 0);  \
  } else {                                              \
    FLASHSCOPE_WGMMA_SS_CASE(N, R, A, B, S, TY, 1, 1);  \
  }
#define FLASHSCOPE_WGMMA_RS_DISPATCH(N, R, A, B, S, TY) \
  if constexpr (!kTransB) {                             \
    FLASHSCOPE_WGMMA_RS_CASE(N, R, A, B, S, TY, 0);     \
  } else {                                              \
    FLASHSCOPE_WGMMA_RS_CASE(N, R, A, B, S, TY, 1);     \
  }

// D[64 x N] (N / 2 fp32 per thread) += A[64 x 16] · B[16 x N], T = __half or __nv_bfloat16.
// Accumulator layout of m64nNk16: warp w of the warpgroup holds rows 16w..16w+15; for each n8
// block j, d[4j..4j+3] are (r, c), (r, c+1), (r+8, c), (r+8, c+1) with r = 16w + lane/4,
// c = 8j + 2(lane%4).
template <int N>
struct Wgmma;

#define FLASHSCOPE_DEFINE_WGMMA(N, R, SS_A, SS_B, SS_S, RS_A, RS_B, RS_S)                      \
  template <>                                                                                  \
  struct Wgmma<N> {                                                                            \
    /* A and B from shared memory through descriptors (kTransA/kTransB: MN-major operand). */  \
    template <typename T, bool kTransA, bool kTransB>                                          \
    __device__ __forceinline__ static void SS(float (&d)[R], uint64_t desc_a, uint64_t desc_b, \
                                              uint32_t scale_d) {                              \
      static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>,             \
                    "wgmma here takes fp16 or bf16 operands");                                 \
      if constexpr (std::is_same_v<T, __nv_bfloat16>) {                                        \
        FLASHSCOPE_WGMMA_SS_DISPATCH(N, R, SS_A, SS_B, SS_S, "bf16")                           \
      } else {                                                                                 \
        FLASHSCOPE_WGMMA_SS_DISPATCH(N, R, SS_A, SS_B, SS_S, "f16")                            \
      }                                                                                        \
    }                                                                                          \
    /* A from registers (the mma.m16n8k16 A fragment layout, one per warp's 16 rows), B        \
       from shared memory. The registers are read asynchronously: keep them unchanged until    \
       the wgmma's group has been waited for. */                                               \
    template <typename T, bool kTransB>                                                        \
    __device__ __forceinline__ static void RS(float (&d)[R], const uint32_t (&a)[4],           \
                                              uint64_t desc_b, uint32_t scale_d) {             \
      static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>,             \
                    "wgmma here takes fp16 or bf16 operands");                                 \
      if constexpr (std::is_same_v<T, __nv_bfloat16>) {                                        \
        FLASHSCOPE_WGMMA_RS_DISPATCH(N, R, RS_A, RS_B, RS_S, "bf16")                           \
      } else {                                                                                 \
        FLASHSCOPE_WGMMA_RS_DISPATCH(N, R, RS_A, RS_B, RS_S, "f16")                            \
      }                                                                                        \
    }                                                                                          \
  };

FLASHSCOPE_DEFINE_WGMMA(64, 32, "%32", "%33", "%34", "{%32, %33, %34, %35}", "%36", "%37")
FLASHSCOPE_DEFINE_WGMMA(128, 64, "%64", "%65", "%66", "{%64, %65, %66, %67}", "%68", "%69")
FLASHSCOPE_DEFINE_WGMMA(192, 96, "%96", "%97", "%98", "{%96, %97, %98, %99}", "%100", "%101")
FLASHSCOPE_DEFINE_WGMMA(256, 128, "%128", "%129", "%130", "{%128, %129, %130, %131}", "%132",
                        "%133")

// FP8 (E4M3) wgmma, m64nNk32 with fp32 accumulators (a27_fp8), in the same accumulator layout as
// Wgmma<N>. FP8 wgmma has no transpose immediates: both operands must be K-major in shared memory.
// SS: A and B from shared memory through descriptors; RS: A from four registers of four E4M3
// bytes each (a0..a15: a0-a3 and a8-a11 row 16w + lane/4, a4-a7 and a12-a15 that row + 8; byte i
// of a0-a7 at k = 4(lane%4) + i%4, of a8-a15 at k = 16 + 4(lane%4) + i%4), B from shared memory.
template <int N>
struct WgmmaE4M3;

#define FLASHSCOPE_WGMMA_E4M3_SS_ASM(N, ACC, A, B, S) \
  "{\n.reg .pred p;\nsetp.ne.b32 p, " S               \
  ", 0;\n"                                            \
  "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32.e4m3.e4m3 " ACC ", " A ", " B ", p, 1, 1;\n}\n"

#define FLASHSCOPE_DEFINE_WGMMA_E4M3(N, R, SS_A, SS_B, SS_S, RS_A, RS_B, RS_S)                 \
  template <>                                                                                  \
  struct WgmmaE4M3<N> {                                                                        \
    __device__ __forceinline__ static void SS(float (&d)[R], uint64_t desc_a, uint64_t desc_b, \
                                              uint32_t scale_d) {                              \
      asm volatile(FLASHSCOPE_WGMMA_E4M3_SS_ASM(N, FLASHSCOPE_WGMMA_ACC_##R, SS_A, SS_B, SS_S) \
                   : FLASHSCOPE_WGMMA_ACC_OUT_##R(d)                                           \
                   : "l"(desc_a), "l"(desc_b), "r"(scale_d));                                  \
    }                                                                                          \
    __device__ __forceinline__ static void RS(float (&d)[R], const uint32_t (&a)[4],           \
                                              uint64_t desc_b, uint32_t scale_d) {             \
      asm volatile(FLASHSCOPE_WGMMA_E4M3_SS_ASM(N, FLASHSCOPE_WGMMA_ACC_##R, RS_A, RS_B, RS_S) \
                   : FLASHSCOPE_WGMMA_ACC_OUT_##R(d)                                           \
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));   \
    }                                                                                          \
  };

FLASHSCOPE_DEFINE_WGMMA_E4M3(64, 32, "%32", "%33", "%34", "{%32, %33, %34, %35}", "%36", "%37")
FLASHSCOPE_DEFINE_WGMMA_E4M3(128, 64, "%64", "%65", "%66", "{%64, %65, %66, %67}", "%68", "%69")
FLASHSCOPE_DEFINE_WGMMA_E4M3(256, 128, "%128", "%129", "%130", "{%128, %129, %130, %131}", "%132",
                             "%133")

#undef FLASHSCOPE_DEFINE_WGMMA_E4M3
#undef FLASHSCOPE_WGMMA_E4M3_SS_ASM
#undef FLASHSCOPE_DEFINE_WGMMA
#undef FLASHSCOPE_WGMMA_RS_DISPATCH
#undef FLASHSCOPE_WGMMA_SS_DISPATCH
#undef FLASHSCOPE_WGMMA_RS_CASE
#undef FLASHSCOPE_WGMMA_SS_CASE
#undef FLASHSCOPE_WGMMA_RS_ASM
#undef FLASHSCOPE_WGMMA_SS_ASM
#undef FLASHSCOPE_WGMMA_ACC_OUT_128
#undef FLASHSCOPE_WGMMA_ACC_128
#undef FLASHSCOPE_WGMMA_ACC_OUT_96
#undef FLASHSCOPE_WGMMA_ACC_96
#undef FLASHSCOPE_WGMMA_ACC_OUT_64
#undef FLASHSCOPE_WGMMA_ACC_64
#undef FLASHSCOPE_WGMMA_ACC_OUT_32
#undef FLASHSCOPE_WGMMA_ACC_32

}  // namespace flashscope::kernels::hopper
