// Deliberately faulty attention_fwd kernels (test_only = true), the subjects of the runner's own
// tests (issue 7): a run must survive each of them and record the right status.
//   test.oob_write     one store 1 TiB past O: an illegal-address fault that poisons the context
//   test.infinite_loop spins on a device flag that nothing ever sets: only a watchdog ends it
//   test.nan_output    writes NaN to every element of O (and of the LSE)
//   test.half_output   computes the first half of O's rows (and LSE) correctly, leaves the rest
//                      untouched, so only the "never written" check can catch it
// They accept every problem the first rungs accept, so a suite can mix them with good kernels.
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/attention/attention_common.cuh"
#include "kernels/kernel_list.h"
#include "kernels/testing/test_kernel_list.h"

namespace flashscope::kernels {
namespace {

// A store this far past the output lands in unmapped virtual memory on any current GPU.
constexpr unsigned long long kFarOffsetBytes = 1ull << 40;

__global__ void OobWriteKernel(unsigned char* o) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    volatile unsigned char* far = o + kFarOffsetBytes;
    *far = 0xAB;
  }
}

// Never set by anyone; volatile reads keep the compiler from hoisting the load out of the loop.
__device__ int g_never_set = 0;

__global__ void InfiniteLoopKernel(int* out_iterations) {
  volatile int* flag = &g_never_set;
  int n = 0;
  while (*flag == 0) {
    ++n;
    __nanosleep(1000);  // spin politely: the GPU stays usable for other work meanwhile
  }
  *out_iterations = n;  // unreachable in practice; keeps the loop observable
}

template <typename T>
__global__ void NanFillKernel(T* o, long long o_elems, float* lse, long long lse_elems) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < o_elems;
       i += stride) {
    o[i] = FromFloat<T>(nanf(""));
  }
  if (lse != nullptr) {
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < lse_elems;
         i += stride) {
      lse[i] = nanf("");
    }
  }
}

constexpr int kFillThreads = 256;
constexpr int kFillBlocks = 1024;  // grid-stride loop: any size

std::string Supports(const AttentionProblem& p) { return AttentionBasicSupport(p); }

KernelEntry Base(std::string id, int revision, std::string title, std::string changed) {
  KernelEntry e;
  e.info.id = std::move(id);
  e.info.family = Family::kAttentionFwd;
  e.info.revision = revision;
  e.info.title = std::move(title);
  e.info.changed = std::move(changed);
  e.info.min_sm = 80;
  e.info.test_only = true;
  e.attention_supports = Supports;
  return e;
}

}  // namespace

KernelEntry MakeTestOobWrite() {
  KernelEntry e = Base("test.oob_write", 9001, "Test only: writes 1 TiB past O",
                       "faults with an illegal address on purpose");
  e.info.idempotent = false;
  e.info.tile = TileShape{1, 1, 1, 32};
  e.attention_launch = [](const AttentionProblem&, const AttentionArgs& a, cudaStream_t s) {
    OobWriteKernel<<<1, 32, 0, s>>>(static_cast<unsigned char*>(a.o));
    return LaunchResult();
  };
  e.device_functions = [](const Problem&) {
    return std::vector<DeviceFunction>{
        {reinterpret_cast<const void*>(&OobWriteKernel), "test_oob_write", 32, 0}};
  };
  return e;
}

KernelEntry MakeTestInfiniteLoop() {
  KernelEntry e = Base("test.infinite_loop", 9002, "Test only: never finishes",
                       "spins on a flag nothing sets; only a watchdog ends it");
  e.info.tile = TileShape{1, 1, 1, 32};
  e.attention_launch = [](const AttentionProblem&, const AttentionArgs& a, cudaStream_t s) {
    // The LSE buffer, when present, receives the iteration count if the loop ever ended; else O.
    int* sink = a.lse != nullptr ? reinterpret_cast<int*>(a.lse) : static_cast<int*>(a.o);
    InfiniteLoopKernel<<<1, 32, 0, s>>>(sink);
    return LaunchResult();
  };
  e.device_functions = [](const Problem&) {
    return std::vector<DeviceFunction>{
        {reinterpret_cast<const void*>(&InfiniteLoopKernel), "test_infinite_loop", 32, 0}};
  };
  return e;
}

KernelEntry MakeTestNanOutput() {
  KernelEntry e = Base("test.nan_output", 9003, "Test only: NaN everywhere",
                       "writes NaN to every output element and LSE");
  e.info.tile = TileShape{1, 1, 1, kFillThreads};
  e.attention_launch = [](const AttentionProblem& p, const AttentionArgs& a, cudaStream_t s) {
    float* lse = p.want_lse ? a.lse : nullptr;
    if (p.dtype == DType::kF16) {
      NanFillKernel<__half><<<kFillBlocks, kFillThreads, 0, s>>>(
          static_cast<__half*>(a.o), p.QElements(), lse, p.LseElements());
    } else {
      NanFillKernel<__nv_bfloat16><<<kFillBlocks, kFillThreads, 0, s>>>(
          static_cast<__nv_bfloat16*>(a.o), p.QElements(), lse, p.LseElements());
    }
    return LaunchResult();
  };
  e.device_functions = [](const Problem& prob) {
    const auto* p = std::get_if<AttentionProblem>(&prob);
    const bool f16 = p == nullptr || p->dtype == DType::kF16;
    const void* f = f16 ? reinterpret_cast<const void*>(&NanFillKernel<__half>)
                        : reinterpret_cast<const void*>(&NanFillKernel<__nv_bfloat16>);
    return std::vector<DeviceFunction>{{f, "test_nan_fill", kFillThreads, 0}};
  };
  return e;
}

KernelEntry MakeTestHalfOutput() {
  KernelEntry e = Base("test.half_output", 9004, "Test only: writes the first half of O",
                       "correct values for the first half of the B*H*Sq rows, the rest untouched");
  e.info.tile = TileShape{64, 1, 1, 64};
  e.attention_launch = [](const AttentionProblem& p, const AttentionArgs& a, cudaStream_t s) {
    return LaunchScalarAttentionRows(p, a, p.batch * p.heads * p.seq_q / 2, s);
  };
  // It runs a01's kernel on fewer rows.
  e.device_functions = [](const Problem& prob) { return MakeA01Scalar().device_functions(prob); };
  return e;
}

}  // namespace flashscope::kernels
