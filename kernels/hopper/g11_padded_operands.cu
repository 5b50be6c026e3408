// g11_padded_operands — intent: GEMMs whose K or N is off the 8-element grid run on the tensor-map
// path too. TMA needs 16-byte row pitches, so g06-g10 give such shapes (and operands at addresses
// TMA cannot take) to g06's element-copying producer: 4500^3 measured 35 TFLOPS there, 0.16x
// cuBLAS's 216 (session 11, device call 4), the worst ratio of any shape we have timed.
// Changed vs g10: where g10 would take the element-copy path, A and B are first copied into
// device scratch with K and N rounded up to multiples of 8 and zeros in the padding (a zero
// column of A against a zero row of B adds nothing to any dot product: the sums are g10's over the
// true K), g10's plan runs on the padded problem, and when N was padded C's N columns are copied
// out of the padded result. Three memory-bound copies against a GEMM on the tensor-map path.
// Shapes on the grid are g10's, unchanged.
// Prediction (written before its first device run; H200, bf16 and fp16): 4500^3 and 5500^3 from
// 35 TFLOPS to 450-550 (the copies ~0.33 GB at ~3 TB/s, ~0.11 ms, beside a 0.26 ms GEMM), i.e.
// 2-2.5x cuBLAS; shapes with a small N (1000 x 17 x 1000) level with g06's copy path or better.
// Measured (one H200, session 11 call 5, results/device/20261129-h200-session11/): 4500^3 409-417
// TFLOPS (1.9x cuBLAS), 5500^3 459-470 (2.1x), 3001 x 2999 x 1001 2.1x, 8192 x 8190 x 4100 1.8x,
// 16384 x 1000 x 4097 2.7x; 1000 x 17 x 1000 0.54x (g06 0.11x; four short launches).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "kernels/device_scratch.h"
#include "kernels/gemm/gemm_common.cuh"
#include "kernels/hopper/g06_tma_ws_entry.cuh"
#include "kernels/hopper/g06_tma_ws_host.cuh"
#include "kernels/hopper/g10_row_bands.cuh"
#include "kernels/hopper/g11_padded_operands.h"
#include "kernels/kernel_list.h"

namespace flashscope::kernels {
namespace {

constexpr int kCopyThreads = 256;

// dst[r][c] = src[r][c] inside rows x cols, 0 in the padding up to dst_rows x dst_cols. 16-bit
// elements are copied as bits (fp16 and bf16 alike); one element a thread, grid-stride, so that a
// warp's loads and stores are contiguous whatever the source's alignment.
__global__ void PadKernel(const uint16_t* __restrict__ src, int64_t rows, int64_t cols,
                          uint16_t* __restrict__ dst, int64_t dst_rows, int64_t dst_cols) {
  const int64_t total = dst_rows * dst_cols;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = i / dst_cols, c = i % dst_cols;
    dst[i] = r < rows && c < cols ? src[r * cols + c] : uint16_t{0};
  }
}

// dst[r][c] = src[r][c] for the first `cols` of src's `src_cols` columns.
__global__ void CropColumnsKernel(const float* __restrict__ src, int64_t rows, int64_t src_cols,
                                  float* __restrict__ dst, int64_t cols) {
  const int64_t total = rows * cols;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{gridDim.x} * blockDim.x) {
    dst[i] = src[(i / cols) * src_cols + i % cols];
  }
}

// Grid-stride copies: at most 16 blocks of kCopyThreads per SM.
unsigned CopyBlocks(int64_t elements) {
  return static_cast<unsigned>(
      std::min<int64_t>(g06::CeilDiv(elements, kCopyThreads), int64_t{16} * g06::SmCount()));
}

int64_t RoundUp8(int64_t x) { return g06::CeilDiv(x, 8) * 8; }

// The problem g10 runs: K and N rounded up to multiples of 8.
GemmProblem Padded(const GemmProblem& p) {
  GemmProblem q = p;
  q.k = RoundUp8(p.k);
  q.n = RoundUp8(p.n);
  return q;
}

// Whether g10 would take the element-copy path: a row pitch TMA cannot take, or an operand at an
// address it cannot.
bool NeedsPadding(const GemmProblem& p, const GemmArgs& a) {
  return !g06::ForOperands(g06::ShapePlan<g06::PredictedBestWidth>(p), p, a.a, a.b).tma;
}

cudaError_t LaunchPadded(const GemmProblem& p, const GemmArgs& a, cudaStream_t stream,
                         const char* id, g11::BandsLaunch bands) {
  static DeviceScratch scratch("g11's padded operands", 0);
  const GemmProblem q = Padded(p);
  const size_t a_bytes = size_t(q.m * q.k) * 2, b_bytes = size_t(q.k * q.n) * 2;
  const bool crop = q.n != p.n;
  const size_t c_bytes = crop ? size_t(q.m * q.n) * sizeof(float) : 0;
  void* ws = nullptr;
  if (const cudaError_t err = scratch.Get(a_bytes + b_bytes + c_bytes, &ws); err != cudaSuccess) {
    return err;
  }
  auto* const base = static_cast<unsigned char*>(ws);
  GemmArgs padded{base, base + a_bytes,
                  crop ? reinterpret_cast<float*>(base + a_bytes + b_bytes) : a.c};
  PadKernel<<<CopyBlocks(q.m * q.k), kCopyThreads, 0, stream>>>(
      static_cast<const uint16_t*>(a.a), p.m, p.k, static_cast<uint16_t*>(ws), q.m, q.k);
  if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess) return err;
  PadKernel<<<CopyBlocks(q.k * q.n), kCopyThreads, 0, stream>>>(
      static_cast<const uint16_t*>(a.b), p.k, p.n,
      static_cast<uint16_t*>(const_cast<void*>(padded.b)), q.k, q.n);
  if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess) return err;
  if (const cudaError_t err = bands(q, padded, stream, id); err != cudaSuccess) {
    return err;
  }
  if (!crop) return cudaSuccess;
  CropColumnsKernel<<<CopyBlocks(p.m * p.n), kCopyThreads, 0, stream>>>(padded.c, p.m, q.n, a.c,
                                                                        p.n);
  return cudaGetLastError();
}

DeviceFunction Copy(const void* fn, const char* name) {
  return DeviceFunction{fn, name, kCopyThreads, 0};
}

}  // namespace

namespace g11 {

cudaError_t Launch(const GemmProblem& p, const GemmArgs& a, cudaStream_t stream, const char* id,
                   BandsLaunch bands) {
  return NeedsPadding(p, a) ? LaunchPadded(p, a, stream, id, bands) : bands(p, a, stream, id);
}

std::vector<DeviceFunction> Describe(const GemmProblem& p, BandsDescribe bands) {
  // The runner's buffers are TMA-addressable: only the shape decides.
  if (g06::ShapePlan<g06::PredictedBestWidth>(p).tma) return bands(p);
  const GemmProblem q = Padded(p);
  std::vector<DeviceFunction> out{Copy(reinterpret_cast<const void*>(&PadKernel), "G11PadKernel")};
  for (const DeviceFunction& f : bands(q)) out.push_back(f);
  if (q.n != p.n) {
    out.push_back(Copy(reinterpret_cast<const void*>(&CropColumnsKernel), "G11CropColumnsKernel"));
  }
  return out;
}

KernelEntry PaddedEntry(KernelEntry e, const char* rung, BandsLaunch bands,
                        BandsDescribe describe) {
  e = g06::TmaWsEntry</*kSplitTail=*/false, g06::ShapePlan<g06::PredictedBestWidth>>(std::move(e),
                                                                                     rung);
  e.gemm_launch = [id = e.info.id, bands](const GemmProblem& p, const GemmArgs& a,
                                          cudaStream_t stream) {
    return Launch(p, a, stream, id.c_str(), bands);
  };
  const auto supports = e.gemm_supports;
  e.device_functions = [supports, describe](const Problem& pr) {
    const auto* p = std::get_if<GemmProblem>(&pr);
    if (p == nullptr || !supports(*p).empty()) return std::vector<DeviceFunction>{};
    return Describe(*p, describe);
  };
  return e;
}

}  // namespace g11

KernelEntry MakeG11PaddedOperands() {
  KernelEntry e;
  e.info.id = "gemm.g11_padded_operands";
  e.info.revision = 11;
  e.info.title =
      "g10 + K or N off the 8-element grid (or operands TMA cannot address): A and B copied into "
      "zero-padded scratch, g10 on the padded problem, C's columns copied out; g10 elsewhere";
  e.info.changed =
      "padded copies of the operands instead of the element-copying producer, so every shape "
      "runs on the tensor-map path";
  return g11::PaddedEntry(std::move(e), "g11", &g10::LaunchBands<false>,
                          &g10::DescribeBands<false>);
}

}  // namespace flashscope::kernels
