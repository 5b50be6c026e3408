// g04_mma — intent: the GEMM ladder's tensor-core rung, built from the same PTX pieces as the
// attention rungs (kernels/ptx.cuh): mma.sync m16n8k16 (fp16 in, fp32 accumulate), ldmatrix for A,
// ldmatrix.trans for the row-major B, and a 3-stage cp.async pipeline.
// Changed vs g03 (register-tiled FFMA): the inner product runs on the tensor cores. A block owns a
// 128x128 tile of C with 8 warps (2 along M × 4 along N, 64x32 each = 4x4 mma tiles); K advances
// in steps of 32 through three shared-memory stages, so two tiles are in flight while one is
// multiplied. Rows are padded (A: 40, B: 136 elements) so each ldmatrix phase is conflict-free.
// Any M, N, K: when K and N are multiples of 8 (and the pointers 16-byte aligned) every 16-byte
// chunk is wholly in or out of bounds and cp.async zero-fills the outside ones; otherwise the
// tiles are loaded element by element with zero fill (correct for any shape, slower).
// fp32 inputs: not supported (no fp32 tensor-core path with mma.sync f16/bf16); supports() says so.
// Prediction: 5-10x g03 on large fp16 shapes (~250-400 TFLOPS at 8192^3 on an H100/H200, i.e.
// 35-50% of cuBLAS, which uses wgmma); far less on tiny or unaligned shapes.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/gemm/gemm_common.cuh"
#include "kernels/ptx.cuh"
#include "kernels/registry.h"

namespace flashscope::kernels {
namespace {

constexpr int kBM = 128, kBN = 128, kBK = 32, kStages = 3, kThreads = 256;
constexpr int kAStride = kBK + 8;  // halves per A row in smem (80 bytes: conflict-free ldmatrix)
constexpr int kBStride = kBN + 8;  // halves per B row in smem (272 bytes)
constexpr int kAStage = kBM * kAStride, kBStage = kBK * kBStride;
constexpr size_t kSmemBytes = size_t(kStages) * (kAStage + kBStage) * sizeof(__half);

// Loads the tile of row-major `src` (rows x cols, leading dimension cols) at (row0, col0) into
// shared memory rows of `stride` halves, 16-byte chunks of kChunksPerRow per row, two per thread;
// elements past the matrix are zeros.
template <bool kAligned, int kChunksPerRow, int kStride>
__device__ __forceinline__ void LoadTile(__half* smem, const __half* src, int rows, int cols,
                                         int row0, int col0, int tid) {
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int c = tid + i * kThreads;
    const int r = c / kChunksPerRow, ch = c % kChunksPerRow;
    const int gr = row0 + r, gc = col0 + ch * 8;
    __half* dst = smem + r * kStride + ch * 8;
    if constexpr (kAligned) {
      const bool ok = gr < rows && gc < cols;
      ptx::CpAsync16(ptx::SmemAddr(dst), ok ? src + int64_t(gr) * cols + gc : src, ok);
    } else {
      __align__(16) __half v[8];
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        v[e] = (gr < rows && gc + e < cols) ? src[int64_t(gr) * cols + gc + e] : __float2half(0.f);
      }
      *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(v);
    }
  }
}

// Loads the A tile [kBM x kBK] at (m0, k0) and the B tile [kBK x kBN] at (k0, n0) into one stage.
template <bool kAligned>
__device__ __forceinline__ void LoadStage(__half* sA, __half* sB, const __half* A, const __half* B,
                                          int M, int N, int K, int m0, int n0, int k0, int tid) {
  // A: 128 rows × 4 chunks = 512 chunks, 2 per thread. B: 32 rows × 16 chunks, 2 per thread.
  static_assert(kBM * kBK / 8 == 2 * kThreads && kBK * kBN / 8 == 2 * kThreads, "2 per thread");
  LoadTile<kAligned, kBK / 8, kAStride>(sA, A, M, K, m0, k0, tid);
  LoadTile<kAligned, kBN / 8, kBStride>(sB, B, K, N, k0, n0, tid);
}

template <bool kAligned>
__global__ void __launch_bounds__(kThreads, 1)
    G04MmaKernel(const __half* A, const __half* B, float* C, int M, int N, int K) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __half* sA = reinterpret_cast<__half*>(smem_raw);
  __half* sB = sA + kStages * kAStage;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = warp / 4, wn = warp % 4;  // warp tile: rows wm*64.., cols wn*32..
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  const int k_tiles = (K + kBK - 1) / kBK;

  float acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.f;

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_tiles) {
      LoadStage<kAligned>(sA + s * kAStage, sB + s * kBStage, A, B, M, N, K, m0, n0, s * kBK, tid);
    }
    ptx::CpAsyncCommit();  // one group per stage, empty or not, keeps wait_group counts uniform
  }

  for (int kt = 0; kt < k_tiles; ++kt) {
    ptx::CpAsyncWait<kStages - 2>();
    __syncthreads();  // tile kt visible; everyone is done with the stage refilled below
    const int next = kt + kStages - 1;
    if (next < k_tiles) {
      const int ns = next % kStages;
      LoadStage<kAligned>(sA + ns * kAStage, sB + ns * kBStage, A, B, M, N, K, m0, n0, next * kBK,
                          tid);
    }
    ptx::CpAsyncCommit();
    const __half* a_s = sA + (kt % kStages) * kAStage;
    const __half* b_s = sB + (kt % kStages) * kBStage;
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk) {
      uint32_t af[4][4], bf[4][2];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi) {
        const int row = wm * 64 + mi * 16 + lane % 16;
        ptx::LdMatrixX4(af[mi], ptx::SmemAddr(a_s + row * kAStride + kk * 16 + (lane / 16) * 8));
      }
#pragma unroll
      for (int np = 0; np < 2; ++np) {
        uint32_t b[4];
        const int krow = kk * 16 + ((lane / 8) % 2) * 8 + lane % 8;
        const int col = wn * 32 + np * 16 + (lane / 16) * 8;
        ptx::LdMatrixX4Trans(b, ptx::SmemAddr(b_s + krow * kBStride + col));
        bf[2 * np][0] = b[0];
        bf[2 * np][1] = b[1];
        bf[2 * np + 1][0] = b[2];
        bf[2 * np + 1][1] = b[3];
      }
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni)
          ptx::MmaM16N8K16<__half>(acc[mi][ni], af[mi], bf[ni][0], bf[ni][1]);
    }
  }
  ptx::CpAsyncWait<0>();

  const int g = lane / 4, t = lane % 4;
  const bool pair_ok = (N % 2) == 0;  // float2 stores need 8-byte aligned rows
#pragma unroll
  for (int mi = 0; mi < 4; ++mi) {
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int row = m0 + wm * 64 + mi * 16 + g + 8 * r;
        const int col = n0 + wn * 32 + ni * 8 + 2 * t;
        if (row >= M) continue;
        float* dst = C + int64_t(row) * N + col;
        if (pair_ok && col + 1 < N) {
          *reinterpret_cast<float2*>(dst) = make_float2(acc[mi][ni][2 * r], acc[mi][ni][2 * r + 1]);
        } else {
          if (col < N) dst[0] = acc[mi][ni][2 * r];
          if (col + 1 < N) dst[1] = acc[mi][ni][2 * r + 1];
        }
      }
    }
  }
}

bool UseAligned(const GemmProblem& p, const GemmArgs& a) {
  return p.k % 8 == 0 && p.n % 8 == 0 && reinterpret_cast<uintptr_t>(a.a) % 16 == 0 &&
         reinterpret_cast<uintptr_t>(a.b) % 16 == 0;
}

template <bool kAligned>
cudaError_t LaunchG04(const GemmProblem& p, const GemmArgs& a, cudaStream_t stream) {
  static const cudaError_t attr =
      cudaFuncSetAttribute(G04MmaKernel<kAligned>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(kSmemBytes));
  if (attr != cudaSuccess) return attr;
  const dim3 grid(static_cast<unsigned>((p.n + kBN - 1) / kBN),
                  static_cast<unsigned>((p.m + kBM - 1) / kBM));
  G04MmaKernel<kAligned><<<grid, kThreads, kSmemBytes, stream>>>(
      static_cast<const __half*>(a.a), static_cast<const __half*>(a.b), a.c, static_cast<int>(p.m),
      static_cast<int>(p.n), static_cast<int>(p.k));
  return cudaGetLastError();
}

std::string G04Supports(const GemmProblem& p) {
  return TensorCoreGemmSupport(p, kBM,
                               "g04 runs mma.sync m16n8k16 with fp16 operands and there is no fp32 "
                               "tensor-core path here (use gemm.g01..g03 for fp32)");
}

}  // namespace

KernelEntry MakeG04Mma() {
  KernelEntry e;
  e.info.id = "gemm.g04_mma";
  e.info.family = Family::kGemm;
  e.info.revision = 4;
  e.info.title = "mma.sync + ldmatrix + 3-stage cp.async, 128x128x32 tiles";
  e.info.changed =
      "tensor cores (mma.sync m16n8k16, fp16 in, fp32 acc) fed by ldmatrix and cp.async";
  e.info.min_sm = 80;
  e.info.tile = TileShape{kBM, kBN, kBK, kThreads};
  e.gemm_supports = G04Supports;
  e.gemm_launch = [](const GemmProblem& p, const GemmArgs& a, cudaStream_t s) {
    return UseAligned(p, a) ? LaunchG04<true>(p, a, s) : LaunchG04<false>(p, a, s);
  };
  e.device_functions = [](const Problem& pr) {
    std::vector<DeviceFunction> out;
    if (const auto* p = std::get_if<GemmProblem>(&pr); p != nullptr && G04Supports(*p).empty()) {
      // The aligned (cp.async) variant is the one launched for K, N multiples of 8.
      const bool aligned = p->k % 8 == 0 && p->n % 8 == 0;
      out.push_back(DeviceFunction{aligned ? reinterpret_cast<const void*>(&G04MmaKernel<true>)
                                           : reinterpret_cast<const void*>(&G04MmaKernel<false>),
                                   aligned ? "G04MmaKernel<aligned>" : "G04MmaKernel<unaligned>",
                                   kThreads, kSmemBytes});
    }
    return out;
  };
  return e;
}

}  // namespace flashscope::kernels
