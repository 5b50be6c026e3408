// PTX wrappers for Hopper (sm_90a) kernels: mbarriers, TMA bulk-tensor loads, shared-memory matrix
// descriptors, warpgroup MMA (wgmma) in both operand forms, fences, named barriers and
// setmaxnreg. Device-only, header-only, no Abseil; general on purpose (tile shapes, element types
// and transposes are parameters) so that any Hopper rung can use them. The attention rungs a12+
// use it; the names follow PTX's (PTX ISA 8.x, "Asynchronous warpgroup level matrix multiply",
// "mbarrier", "cp.async.bulk.tensor").
//
// Every file that includes this must be compiled for sm_90a alone
// (-gencode=arch=compute_90a,code=sm_90a): wgmma and setmaxnreg exist on no other target, and a
// silent fallback would only trap at run time.
#pragma once

#include <cuda.h>  // CUtensorMap (a 128-byte opaque struct; no driver call is made here)
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "kernels/hopper/sm90_ptx.cuh needs -gencode=arch=compute_90a,code=sm_90a (wgmma, setmaxnreg)"
#endif

namespace flashscope::kernels::sm90 {

__device__ __forceinline__ uint32_t SmemAddr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// ---- mbarriers (shared::cta, 64-bit) ----
// A phase completes when `count` arrivals have happened and every byte announced with expect_tx
// has landed. Waiters ask for the completion of the phase of a given parity: the k-th use of a
// barrier (k = 0, 1, ...) completes parity k & 1.

__device__ __forceinline__ void MbarInit(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

// Makes the initialisations visible to the other threads and to the async proxy (TMA engine);
// follow it with a barrier of the threads that use them.
__device__ __forceinline__ void FenceMbarInit() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// One arrival that also announces `bytes` still to land from asynchronous copies.
__device__ __forceinline__ void MbarArriveExpectTx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void MbarArrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

__device__ __forceinline__ bool MbarTryWait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n.reg .pred p;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

// Blocks until the phase of parity `parity` has completed (try_wait suspends the thread for a
// while in hardware before it returns false, so this loop does not spin hot).
__device__ __forceinline__ void MbarWait(uint32_t bar, uint32_t parity) {
  while (!MbarTryWait(bar, parity)) {
  }
}

// ---- TMA (bulk tensor copies through a CUtensorMap) ----

// The tensor map lives in kernel parameter space (a __grid_constant__ parameter); prefetching its
// 128 bytes hides the first load's descriptor fetch.
__device__ __forceinline__ void PrefetchTensorMap(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// Copies the box at coordinates (c0 innermost, c1, c2) of a 3-D tensor map into shared memory at
// `dst` and signals `bar` with its byte count (elements outside the tensor arrive as zeros and
// still count).
__device__ __forceinline__ void TmaLoad3D(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                          int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
      "[%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
      : "memory");
}

// ---- fences and barriers ----

// Orders this thread's generic-proxy shared-memory writes before later async-proxy accesses
// (TMA, wgmma operand reads) of the same memory.
__device__ __forceinline__ void FenceProxyAsync() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Named barriers 1..15 (0 is __syncthreads): `count` threads (a multiple of 32) take part; sync
// waits for all, arrive counts itself and goes on.
__device__ __forceinline__ void NamedBarrierSync(uint32_t id, uint32_t count) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void NamedBarrierArrive(uint32_t id, uint32_t count) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

// Register reallocation between warpgroups: every warp of a warpgroup executes the same one;
// takes effect only in a kernel with a register cap at entry (__launch_bounds__(threads, 1)).
template <int kRegs>
__device__ __forceinline__ void SetMaxNRegDec() {
  static_assert(kRegs >= 24 && kRegs <= 256 && kRegs % 8 == 0, "setmaxnreg takes 24..256 by 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}
template <int kRegs>
__device__ __forceinline__ void SetMaxNRegInc() {
  static_assert(kRegs >= 24 && kRegs <= 256 && kRegs % 8 == 0, "setmaxnreg takes 24..256 by 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

// ---- wgmma ----

// Shared-memory matrix descriptor for the 128-byte swizzled layout (the layout TMA writes with
// CU_TENSOR_MAP_SWIZZLE_128B): 1024-byte atoms of 8 rows x 128 bytes, the 16-byte chunk c of atom
// row r stored at chunk c ^ r. Bits 0-13 start address >> 4, 16-29 leading byte offset >> 4,
// 32-45 stride byte offset >> 4, 49-51 base offset (0: atoms 1024-byte aligned), 62-63 swizzle
// mode (1 = 128 B). K-major operand: SBO = bytes between 8-row groups, LBO unused (16). MN-major
// operand (transposed): LBO = bytes between 64-element blocks along M/N, SBO = bytes between
// 8-row groups along K.
__device__ __forceinline__ uint64_t DescSw128(uint32_t smem_addr, uint32_t lbo_bytes,
                                              uint32_t sbo_bytes) {
  return uint64_t((smem_addr & 0x3FFFF) >> 4) | (uint64_t((lbo_bytes >> 4) & 0x3FFF) << 16) |
         (uint64_t((sbo_bytes >> 4) & 0x3FFF) << 32) | (uint64_t(1) << 62);
}

__device__ __forceinline__ void WgmmaFence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void WgmmaCommit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
// Waits until at most kPending of this warpgroup's committed groups are still in flight (groups
// complete in order).
template <int kPending>
__device__ __forceinline__ void WgmmaWait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

// Keeps the compiler from moving reads or writes of a register across this point: wgmma reads
// and writes its registers asynchronously, which the compiler cannot see, so accumulators (and
// register A operands) are fenced after every wait and before every issue.
__device__ __forceinline__ void FenceOperand(float& x) { asm volatile("" : "+f"(x)::"memory"); }
__device__ __forceinline__ void FenceOperand(uint32_t& x) { asm volatile("" : "+r"(x)::"memory"); }
template <int N>
__device__ __forceinline__ void FenceOperands(float (&x)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) FenceOperand(x[i]);
}

// The operand lists of wgmma's accumulator registers ("{%0, ..., %R-1}" and the matching
// "+f"(d[i]) constraints) for R = N / 2 fp32 registers per thread (m64nN).
#define FS_SM90_ACC_32                                                             \
  "{"                                                                              \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "         \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
  "}"
#define FS_SM90_ACC_OUT_32(d)                                                                   \
  "+f"((d)[0]), "+f"((d)[1]), "+f"((d)[2]), "+f"((d)[3]), "+f"((d)[4]), "+f"((d)[5]),           \
      "+f"((d)[6]), "+f"((d)[7]), "+f"((d)[8]), "+f"((d)[9]), "+f"((d)[10]), "+f"((d)[11]),     \
      "+f"((d)[12]), "+f"((d)[13]), "+f"((d)[14]), "+f"((d)[15]), "+f"((d)[16]), "+f"((d)[17]), \
      "+f"((d)[18]), "+f"((d)[19]), "+f"((d)[20]), "+f"((d)[21]), "+f"((d)[22]), "+f"((d)[23]), \
      "+f"((d)[24]), "+f"((d)[25]), "+f"((d)[26]), "+f"((d)[27]), "+f"((d)[28]), "+f"((d)[29]), \
      "+f"((d)[30]), "+f"((d)[31])
#define FS_SM90_ACC_64                                                               \
  "{"                                                                                \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "           \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"   \
  "}"
#define FS_SM90_ACC_OUT_64(d) FS_SM90_ACC_OUT_32(d), FS_SM90_ACC_OUT_32((d) + 32)
#define FS_SM90_ACC_128                                                                            \
  "{"                                                                                              \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                         \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "               \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "               \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "               \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "               \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "               \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "   \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
  "}"
#define FS_SM90_ACC_OUT_128(d) FS_SM90_ACC_OUT_64(d), FS_SM90_ACC_OUT_64((d) + 64)

// One wgmma.mma_async: A from shared memory (SS: %R desc_a, %R+1 desc_b, %R+2 scale_d) or from
// four registers (RS: %R..%R+3 a, %R+4 desc_b, %R+5 scale_d); scale_d = 0 overwrites D, 1 adds.
// Operand scales are +1; TA/TB (0/1) are the transpose immediates (1 = MN-major operand).
#define FS_SM90_WGMMA_SS_ASM(N, ACC, A, B, S, TY, TA, TB)                           \
  "{\n.reg .pred p;\nsetp.ne.b32 p, " S                                             \
  ", 0;\n"                                                                          \
  "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TY "." TY " " ACC ", " A ", " B \
  ", p, 1, 1, " #TA ", " #TB ";\n}\n"
#define FS_SM90_WGMMA_RS_ASM(N, ACC, A, B, S, TY, TB)                               \
  "{\n.reg .pred p;\nsetp.ne.b32 p, " S                                             \
  ", 0;\n"                                                                          \
  "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TY "." TY " " ACC ", " A ", " B \
  ", p, 1, 1, " #TB ";\n}\n"

#define FS_SM90_SS_CASE(N, R, A, B, S, TY, TA, TB)                           \
  asm volatile(FS_SM90_WGMMA_SS_ASM(N, FS_SM90_ACC_##R, A, B, S, TY, TA, TB) \
               : FS_SM90_ACC_OUT_##R(d)                                      \
               : "l"(desc_a), "l"(desc_b), "r"(scale_d))
#define FS_SM90_RS_CASE(N, R, A, B, S, TY, TB)                           \
  asm volatile(FS_SM90_WGMMA_RS_ASM(N, FS_SM90_ACC_##R, A, B, S, TY, TB) \
               : FS_SM90_ACC_OUT_##R(d)                                  \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d))

// Picks the instruction for the element type and the transpose immediates at compile time.
#define FS_SM90_SS_DISPATCH(N, R, A, B, S, TY) \
  if constexpr (!kTransA && !kTransB) {        \
    FS_SM90_SS_CASE(N, R, A, B, S, TY, 0, 0);  \
  } else if constexpr (!kTransA && kTransB) {  \
    FS_SM90_SS_CASE(N, R, A, B, S, TY, 0, 1);  \
  } else if constexpr (kTransA && !kTransB) {  \
    FS_SM90_SS_CASE(N, R, A, B, S, TY, 1, 0);  \
  } else {                                     \
    FS_SM90_SS_CASE(N, R, A, B, S, TY, 1, 1);  \
  }
#define FS_SM90_RS_DISPATCH(N, R, A, B, S, TY) \
  if constexpr (!kTransB) {                    \
    FS_SM90_RS_CASE(N, R, A, B, S, TY, 0);     \
  } else {                                     \
    FS_SM90_RS_CASE(N, R, A, B, S, TY, 1);     \
  }

// D[64 x N] (N / 2 fp32 per thread, the accumulator layout of m64nNk16: warp w of the warpgroup
// holds rows 16w..16w+15, and for each n8 block j the registers 4j..4j+3 hold (row g, cols 8j+2t,
// +1) and (row g+8, the same cols), g = lane / 4, t = lane % 4) += A[64 x 16] · B[16 x N].
template <int N>
struct Wgmma;

#define FS_SM90_DEFINE_WGMMA(N, R, SS_A, SS_B, SS_S, RS_A, RS_B, RS_S)                         \
  template <>                                                                                  \
  struct Wgmma<N> {                                                                            \
    /* A and B from shared memory through descriptors. */                                      \
    template <typename T, bool kTransA, bool kTransB>                                          \
    __device__ __forceinline__ static void SS(float (&d)[R], uint64_t desc_a, uint64_t desc_b, \
                                              uint32_t scale_d) {                              \
      static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>,             \
                    "wgmma here takes fp16 or bf16 operands");                                 \
      if constexpr (std::is_same_v<T, __nv_bfloat16>) {                                        \
        FS_SM90_SS_DISPATCH(N, R, SS_A, SS_B, SS_S, "bf16")                                    \
      } else {                                                                                 \
        FS_SM90_SS_DISPATCH(N, R, SS_A, SS_B, SS_S, "f16")                                     \
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
        FS_SM90_RS_DISPATCH(N, R, RS_A, RS_B, RS_S, "bf16")                                    \
      } else {                                                                                 \
        FS_SM90_RS_DISPATCH(N, R, RS_A, RS_B, RS_S, "f16")                                     \
      }                                                                                        \
    }                                                                                          \
  };

FS_SM90_DEFINE_WGMMA(64, 32, "%32", "%33", "%34", "{%32, %33, %34, %35}", "%36", "%37")
FS_SM90_DEFINE_WGMMA(128, 64, "%64", "%65", "%66", "{%64, %65, %66, %67}", "%68", "%69")
FS_SM90_DEFINE_WGMMA(256, 128, "%128", "%129", "%130", "{%128, %129, %130, %131}", "%132", "%133")

}  // namespace flashscope::kernels::sm90
