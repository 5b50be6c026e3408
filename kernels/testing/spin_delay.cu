#include <algorithm>
#include <mutex>
#include <vector>

#include "kernels/testing/spin_delay.h"

namespace flashscope::kernels {
namespace {

constexpr int kWarmup = 3;
constexpr int kSamples = 9;

__global__ void SpinNanosecondsKernel(unsigned long long ns) {
  if (threadIdx.x != 0) return;
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

std::mutex g_flush_mutex;
void* g_flush = nullptr;
size_t g_flush_bytes = 0;

cudaError_t EnsureFlushBuffer() {
  std::lock_guard<std::mutex> lock(g_flush_mutex);
  if (g_flush != nullptr) return cudaSuccess;
  int device = 0, l2 = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  if (cudaError_t e = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device); e != cudaSuccess)
    return e;
  g_flush_bytes = 2 * static_cast<size_t>(std::max(l2, 1 << 20));
  return cudaMalloc(&g_flush, g_flush_bytes);
}

}  // namespace

cudaError_t LaunchSpin(unsigned long long ns, cudaStream_t stream) {
  SpinNanosecondsKernel<<<1, 32, 0, stream>>>(ns);
  return cudaGetLastError();
}

void AddSpinToDeviceFunctions(KernelEntry* entry) {
  auto own = entry->device_functions;
  entry->device_functions = [own](const Problem& problem) {
    auto functions = own(problem);
    functions.push_back(
        {reinterpret_cast<const void*>(&SpinNanosecondsKernel), "test_spin_ns", 32, 0});
    return functions;
  };
}

cudaError_t ColdMedianMs(cudaStream_t s, const std::function<cudaError_t()>& launch,
                         float* median) {
  if (cudaError_t err = EnsureFlushBuffer(); err != cudaSuccess) return err;
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> ms;
  cudaError_t err = cudaSuccess;
  for (int i = 0; i < kWarmup + kSamples && err == cudaSuccess; ++i) {
    cudaMemsetAsync(g_flush, i & 0xff, g_flush_bytes, s);
    cudaEventRecord(a, s);
    err = launch();
    cudaEventRecord(b, s);
    if (err == cudaSuccess) err = cudaEventSynchronize(b);
    float t = 0;
    if (err == cudaSuccess) err = cudaEventElapsedTime(&t, a, b);
    if (i >= kWarmup) ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  if (err != cudaSuccess) return err;
  std::sort(ms.begin(), ms.end());
  *median = ms[ms.size() / 2];
  return cudaSuccess;
}

}  // namespace flashscope::kernels
