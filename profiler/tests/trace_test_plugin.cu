// A stand-in for a kernel plugin in the traced-sample GPU test: a shared library with its own,
// statically linked CUDA runtime (as a plugin built elsewhere has), so the test learns whether
// CUPTI's activity records and range profiler see what a second runtime in the process launches.
#include <cuda_runtime.h>

namespace {

__global__ void TracePluginSpinKernel(long long ns) {
  if (threadIdx.x != 0) return;
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < static_cast<unsigned long long>(ns));
}

cudaStream_t PrivateStream() {
  static cudaStream_t s = [] {
    cudaStream_t created = nullptr;
    cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking);
    return created;
  }();
  return s;
}

}  // namespace

// mode 0: spin on the given stream; 1: on a private stream, never joined; 2: on the given stream,
// then cudaStreamSynchronize of it inside the call. Returns a cudaError_t.
extern "C" __attribute__((visibility("default"))) int trace_test_plugin_launch(void* stream,
                                                                               long long spin_ns,
                                                                               int mode) {
  cudaStream_t given = static_cast<cudaStream_t>(stream);
  cudaStream_t target = mode == 1 ? PrivateStream() : given;
  TracePluginSpinKernel<<<1, 32, 0, target>>>(spin_ns);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess && mode == 2) e = cudaStreamSynchronize(given);
  return static_cast<int>(e);
}
