// Test-only variants of attn.a10_fa2 that are slower by a known fraction, the subjects of the
// regression gate's quality experiment (scripts/device/gate-quality.sh, docs/gate-quality.md):
//   test.a10_slow3, test.a10_slow5, test.a10_slow10: a10's launch, then a one-warp spin kernel on
//   the same stream that waits a calibrated time, so the pair takes (1 + p) times a10's time.
// Calibration, once per problem at the first launch (the runner's verification launch, which is
// not timed): median of a10 alone and of a10 followed by a zero-length spin, each sample after an
// L2 flush like the runner's cold timing; the spin then lasts p * t(a10) minus the measured cost
// of launching the spin kernel at all. The output is a10's, so verification passes as for a10.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/kernel_list.h"
#include "kernels/testing/test_kernel_list.h"

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

// Per variant and problem: how long the spin must last (nanoseconds). The key holds the percent:
// the three variants share this map, and a key of the problem alone once gave all three the spin
// calibrated for whichever ran first (measured on the H200: +2.8 % for slow3, slow5 and slow10).
std::mutex g_mutex;
std::map<std::string, unsigned long long> g_spin_ns;
void* g_flush = nullptr;
size_t g_flush_bytes = 0;

cudaError_t EnsureFlushBuffer() {
  if (g_flush != nullptr) return cudaSuccess;
  int device = 0, l2 = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  if (cudaError_t e = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device); e != cudaSuccess)
    return e;
  g_flush_bytes = 2 * static_cast<size_t>(std::max(l2, 1 << 20));
  return cudaMalloc(&g_flush, g_flush_bytes);
}

// Median time of `launch` over kSamples samples, L2 flushed before each (like cold timing).
template <class Launch>
cudaError_t MedianMs(cudaStream_t s, Launch launch, float* median) {
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

KernelEntry MakeSlow(int percent) {
  KernelEntry e = MakeA10Fa2();
  const std::string pct = std::to_string(percent);
  e.info.id = "test.a10_slow" + pct;
  e.info.title = "Test only: attn.a10_fa2 made " + pct + " % slower by a calibrated spin";
  e.info.changed =
      "a10 plus a spin kernel lasting " + pct + " % of a10's cold median (gate-quality experiment)";
  e.info.revision = 9100 + percent;
  e.info.test_only = true;
  const AttentionLaunch a10 = e.attention_launch;
  const double fraction = percent / 100.0;
  e.attention_launch = [a10, fraction](const AttentionProblem& p, const AttentionArgs& args,
                                       cudaStream_t s) -> cudaError_t {
    std::lock_guard<std::mutex> lock(g_mutex);
    const std::string key = std::to_string(fraction) + " " + ProblemKey(p);
    auto it = g_spin_ns.find(key);
    if (it == g_spin_ns.end()) {
      if (cudaError_t err = EnsureFlushBuffer(); err != cudaSuccess) return err;
      float base = 0, with_zero_spin = 0;
      if (cudaError_t err = MedianMs(
              s, [&] { return a10(p, args, s); }, &base);
          err != cudaSuccess)
        return err;
      auto pair = [&]() -> cudaError_t {
        if (cudaError_t err = a10(p, args, s); err != cudaSuccess) return err;
        SpinNanosecondsKernel<<<1, 32, 0, s>>>(0);
        return cudaGetLastError();
      };
      if (cudaError_t err = MedianMs(s, pair, &with_zero_spin); err != cudaSuccess) return err;
      const double target_ns = fraction * base * 1e6;
      const double overhead_ns = std::max(0.0, (with_zero_spin - base) * 1e6);
      it =
          g_spin_ns
              .emplace(key, static_cast<unsigned long long>(std::max(0.0, target_ns - overhead_ns)))
              .first;
    }
    if (cudaError_t err = a10(p, args, s); err != cudaSuccess) return err;
    SpinNanosecondsKernel<<<1, 32, 0, s>>>(it->second);
    return cudaGetLastError();
  };
  auto a10_functions = e.device_functions;
  e.device_functions = [a10_functions](const Problem& prob) {
    auto fns = a10_functions(prob);
    fns.push_back({reinterpret_cast<const void*>(&SpinNanosecondsKernel), "test_spin_ns", 32, 0});
    return fns;
  };
  return e;
}

}  // namespace

KernelEntry MakeTestA10Slow3() { return MakeSlow(3); }
KernelEntry MakeTestA10Slow5() { return MakeSlow(5); }
KernelEntry MakeTestA10Slow10() { return MakeSlow(10); }

}  // namespace flashscope::kernels
