// peer.cublas_gemm: cuBLAS's GEMM, the library yardstick for the gemm ladder.
//
// Row-major through a column-major library (the transpose trick): a row-major M×N matrix is the
// column-major N×M matrix of its transpose, so C = A·B row-major is Cᵀ = Bᵀ·Aᵀ column-major, i.e.
// cublasGemmEx(m = N, n = M, k = K, A := B (ld N), B := A (ld K), C (ld N)), no copies.
// fp16 / bf16 inputs: CUDA_R_16F / CUDA_R_16BF in, CUDA_R_32F out, CUBLAS_COMPUTE_32F (tensor
// cores, fp32 accumulate).
// fp32 inputs: CUBLAS_COMPUTE_32F with the default math mode, i.e. plain FP32 without TF32, so the
// result passes the fp32 tolerance like our rungs must.
// The handle is created lazily, once per process (creating one costs milliseconds and allocates
// device memory), and guarded by a mutex because a handle's stream is per-handle state.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/kernel_list.h"

namespace flashscope::kernels {
namespace {

// cuBLAS failures have no cudaError_t of their own: the status is printed with what to check, and
// the launch reports cudaErrorUnknown so that the runner records the case as an error.
cudaError_t Report(const char* what, cublasStatus_t s) {
  std::fprintf(stderr, "peer.cublas_gemm: %s failed: %s\n", what, cublasGetStatusName(s));
  return cudaErrorUnknown;
}

struct Handle {
  std::mutex mu;
  cublasHandle_t handle = nullptr;
  cublasStatus_t create_status = CUBLAS_STATUS_NOT_INITIALIZED;
};

Handle& SharedHandle() {
  static Handle* h = [] {
    auto* x = new Handle;  // never destroyed: cuBLAS must not be torn down after the CUDA runtime
    x->create_status = cublasCreate(&x->handle);
    if (x->create_status == CUBLAS_STATUS_SUCCESS) {
      // Explicitly no TF32: fp32 inputs must be computed in full FP32.
      x->create_status = cublasSetMathMode(x->handle, CUBLAS_DEFAULT_MATH);
    }
    return x;
  }();
  return *h;
}

std::string Supports(const GemmProblem& g) {
  if (g.m < 1 || g.n < 1 || g.k < 1) return "M, N and K must all be >= 1";
  if (g.m > INT32_MAX || g.n > INT32_MAX || g.k > INT32_MAX) {
    return "cublasGemmEx takes 32-bit M, N and K";
  }
  return "";
}

cudaError_t Launch(const GemmProblem& g, const GemmArgs& args, cudaStream_t stream) {
  Handle& h = SharedHandle();
  if (h.create_status != CUBLAS_STATUS_SUCCESS) {
    return Report("cublasCreate (is a GPU visible to this process?)", h.create_status);
  }
  std::lock_guard<std::mutex> lock(h.mu);
  if (cublasStatus_t s = cublasSetStream(h.handle, stream); s != CUBLAS_STATUS_SUCCESS) {
    return Report("cublasSetStream", s);
  }
  const cudaDataType in_type = g.dtype == DType::kF16    ? CUDA_R_16F
                               : g.dtype == DType::kBF16 ? CUDA_R_16BF
                                                         : CUDA_R_32F;
  const float alpha = 1.f;
  const float beta = 0.f;
  const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
  // Column-major view: Cᵀ (N×M, ld N) = Bᵀ (N×K, ld N) · Aᵀ (K×M, ld K).
  const cublasStatus_t s = cublasGemmEx(h.handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, args.b,
                                        in_type, n, args.a, in_type, k, &beta, args.c, CUDA_R_32F,
                                        n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS) return Report("cublasGemmEx", s);
  return cudaGetLastError();
}

}  // namespace

KernelEntry MakeCublasGemm() {
  KernelEntry e;
  e.info.id = "peer.cublas_gemm";
  e.info.family = Family::kGemm;
  e.info.revision = 1000;
  e.info.title = "cuBLAS cublasGemmEx (fp32 compute, no TF32)";
  e.info.changed = "library peer: the yardstick for the gemm ladder";
  e.info.min_sm = 80;
  e.info.tile = TileShape{};  // cuBLAS picks its own kernels and tiles
  e.info.is_peer = true;
  e.gemm_supports = Supports;
  e.gemm_launch = Launch;
  // Library kernels are not ours to describe: empty.
  e.device_functions = [](const Problem&) { return std::vector<DeviceFunction>{}; };
  return e;
}

}  // namespace flashscope::kernels
