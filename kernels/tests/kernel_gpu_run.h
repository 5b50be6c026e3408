// Running one attention or GEMM kernel on one problem against the CPU double reference, for the
// kernels' GPU tests (kernels_gpu_test: every rung on small problems; hopper_rungs_gpu_test:
// issue 27's rungs on the problems that take their new paths). Test code only.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/problem.h"
#include "kernels/registry.h"

namespace flashscope::kernels::testing {

// Device memory owned for one scope.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) { status_ = cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes); }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  unsigned char* get() const { return static_cast<unsigned char*>(ptr_); }
  cudaError_t status() const { return status_; }

 private:
  void* ptr_ = nullptr;
  cudaError_t status_ = cudaSuccess;
};

struct AttentionCase {
  AttentionProblem p;
  std::vector<float> q, k, v;  // values as rounded to the dtype
  std::vector<unsigned char> qb, kb, vb;
  std::vector<double> ref_o, ref_lse;
  float softmax_scale = 0.f;  // what the launch passes (0: 1/sqrt(D)); the reference used it too
};

// Random inputs (seeded) and their CPU double reference.
AttentionCase MakeAttentionCase(const AttentionProblem& p, uint32_t seed);

struct AttentionOutput {
  std::vector<unsigned char> o;  // AttentionOutputDType(p.dtype): BF16 for E4M3 inputs
  std::vector<float> lse;
};

// Uploads the case, poisons O and LSE, launches `e` and downloads. `offset_elems` shifts every
// pointer by that many elements from cudaMalloc's 256-byte alignment (to exercise fallbacks).
// Fails the calling test (fatally) on a CUDA error.
void RunAttention(const KernelEntry& e, const AttentionCase& c, AttentionOutput* out,
                  int offset_elems = 0);

// Compares the first `rows` flattened query rows (all when negative) of O, and of LSE when the
// problem asks for it. O: |o - ref| <= 1e-2 + 2e-2·|ref|; LSE: <= 2e-3·(1 + |ref|), -inf exact.
::testing::AssertionResult CompareAttention(const AttentionCase& c, const AttentionOutput& out,
                                            int64_t rows = -1);

struct GemmCase {
  GemmProblem g;
  std::vector<float> a, b;  // values as rounded to the dtype
  std::vector<unsigned char> ab, bb;
  std::vector<double> ref, abs_sum;
};

// Random inputs (seeded) and the CPU double reference with Σ|a·b| per element.
GemmCase MakeGemmCase(const GemmProblem& g, uint32_t seed);

// Uploads A and B, poisons C, launches `e` and downloads C (fatal test failure on a CUDA error).
void RunGemm(const KernelEntry& e, const GemmProblem& g, const std::vector<unsigned char>& ab,
             const std::vector<unsigned char>& bb, std::vector<float>* c, int offset_elems = 0);

// |c - ref| <= 2e-4·Σ|a·b| + 1e-5: fp32 accumulation of K products, whatever the input dtype.
::testing::AssertionResult CompareGemm(const std::vector<float>& c, const std::vector<double>& ref,
                                       const std::vector<double>& abs_sum);

// Whether the current device is compute capability 9.0, where the sm_90a rungs run (their GPU
// tests skip elsewhere).
bool OnHopper();

}  // namespace flashscope::kernels::testing
