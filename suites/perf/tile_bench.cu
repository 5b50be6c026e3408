// Tile sweep for the mma.sync attention core (issue 4, docs/perf-notes.md): times candidate tile
// shapes of attn.a10_fa2 / a11 side by side in one process, the way the reports do (cold L2,
// CUDA events, median), and checks each candidate's output against the registered a10 tile on the
// same inputs. Not part of the CMake build: compiled by suites/perf/build.sh with nvcc -arch=sm_90
// and run on the device by suites/perf/device.sh. The real flashscope binary confirms the winner.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/attention/attn_mma_entry.cuh"
#include "suites/perf/check_cuda.h"

namespace flashscope::kernels::attn_mma {
namespace {

constexpr unsigned kA10 = kSInRegs | kDirectRescale | kCpAsync | kSwizzle | kCausalSkip;
constexpr unsigned kA11C = kA10 | kCondRescale;

using Launcher = cudaError_t (*)(const AttentionProblem&, const AttentionArgs&, cudaStream_t);
struct Variant {
  const char* name;
  int head_dim;
  Launcher launch;
  bool reference;  // the registered a10 tile for this head dim: others are checked against it
};

template <int D, class TL, unsigned F>
cudaError_t LaunchBf16(const AttentionProblem& p, const AttentionArgs& a, cudaStream_t s) {
  return Instance<__nv_bfloat16, D, TL, F>::Launch(p, a, s);
}

const Variant kVariants[] = {
    {"a10 D64 128x64 4w MT2 (registered)", 64, &LaunchBf16<64, Tile<128, 64, 2, 2>, kA10>, true},
    {"a10 D128 64x64 4w MT1 (registered)", 128, &LaunchBf16<128, Tile<64, 64, 2>, kA10>, true},
    {"a10 D128 128x64 8w MT1 1blk/SM", 128, &LaunchBf16<128, Tile<128, 64, 1>, kA10>, false},
    {"a10 D128 128x32 4w MT2 Qsmem", 128, &LaunchBf16<128, Tile<128, 32, 2, 2, true>, kA10>, false},
    {"a10 D128 128x64 4w MT2 Qsmem", 128, &LaunchBf16<128, Tile<128, 64, 2, 2, true>, kA10>, false},
    {"a11c D128 64x64 4w MT1", 128, &LaunchBf16<128, Tile<64, 64, 2>, kA11C>, false},
    {"a11c D128 128x32 4w MT2 Qsmem", 128, &LaunchBf16<128, Tile<128, 32, 2, 2, true>, kA11C>,
     false},
    {"a11c D128 128x64 4w MT2 Qsmem", 128, &LaunchBf16<128, Tile<128, 64, 2, 2, true>, kA11C>,
     false},
};

// Deterministic, non-zero inputs: a sum of 4 hashed uniforms (roughly normal, sd ~1).
__global__ void FillKernel(__nv_bfloat16* x, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    float acc = 0.f;
    uint32_t h = uint32_t(i) * 2654435761u ^ seed;
    for (int k = 0; k < 4; ++k) {
      h ^= h >> 16;
      h *= 0x7feb352du;
      h ^= h >> 15;
      h *= 0x846ca68bu;
      h ^= h >> 16;
      acc += (h >> 8) * (1.f / 16777216.f) - 0.5f;
    }
    x[i] = __float2bfloat16(acc * 1.7320508f);
  }
}

struct Buffers {
  __nv_bfloat16 *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr, *o_ref = nullptr;
  float* lse = nullptr;
};

double MaxAbsDiff(const __nv_bfloat16* a, const __nv_bfloat16* b, size_t n, bool* finite) {
  std::vector<__nv_bfloat16> ha(n), hb(n);
  CHECK_CUDA(cudaMemcpy(ha.data(), a, n * 2, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(hb.data(), b, n * 2, cudaMemcpyDeviceToHost));
  double m = 0;
  *finite = true;
  for (size_t i = 0; i < n; ++i) {
    const float x = __bfloat162float(ha[i]), y = __bfloat162float(hb[i]);
    if (!std::isfinite(x)) *finite = false;
    m = std::max(m, double(std::fabs(x - y)));
  }
  return m;
}

// Max |out - ref| against a CPU double-precision reference on a small odd shape (bottom-right
// causal when Sq != Sk), so every candidate (the registered tiles too) is checked against an
// independent implementation, not only against each other.
double CpuCheck(const Variant& var, int sq, int sk, bool causal) {
  const int d = var.head_dim, bh = 2;
  const size_t nq = size_t(bh) * sq * d, nk = size_t(bh) * sk * d;
  std::vector<__nv_bfloat16> hq(nq), hk(nk), hv(nk), ho(nq);
  uint32_t h = 12345u + sq * 31u + sk;
  auto rnd = [&h]() {
    h = h * 1664525u + 1013904223u;
    return ((h >> 8) * (1.f / 16777216.f) - 0.5f) * 3.f;
  };
  for (auto& x : hq) x = __float2bfloat16(rnd());
  for (auto& x : hk) x = __float2bfloat16(rnd());
  for (auto& x : hv) x = __float2bfloat16(rnd());
  __nv_bfloat16 *q, *k, *v, *o;
  CHECK_CUDA(cudaMalloc(&q, nq * 2));
  CHECK_CUDA(cudaMalloc(&k, nk * 2));
  CHECK_CUDA(cudaMalloc(&v, nk * 2));
  CHECK_CUDA(cudaMalloc(&o, nq * 2));
  CHECK_CUDA(cudaMemcpy(q, hq.data(), nq * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(k, hk.data(), nk * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(v, hv.data(), nk * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(o, 0xff, nq * 2));
  AttentionProblem p;
  p.batch = 1;
  p.heads = bh;
  p.seq_q = sq;
  p.seq_k = sk;
  p.head_dim = d;
  p.dtype = DType::kBF16;
  p.causal = causal;
  AttentionArgs a;
  a.q = q;
  a.k = k;
  a.v = v;
  a.o = o;
  a.softmax_scale = 1.f / std::sqrt(float(d));
  CHECK_CUDA(var.launch(p, a, 0));
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaMemcpy(ho.data(), o, nq * 2, cudaMemcpyDeviceToHost));
  for (auto* ptr : {q, k, v, o}) CHECK_CUDA(cudaFree(ptr));
  double worst = 0;
  std::vector<double> w(sk);
  for (int b = 0; b < bh; ++b) {
    for (int i = 0; i < sq; ++i) {
      const int end = causal ? std::min(sk, std::max(0, i + (sk - sq) + 1)) : sk;
      double mx = -1e300;
      for (int j = 0; j < end; ++j) {
        double dot = 0;
        for (int c = 0; c < d; ++c) {
          dot += double(__bfloat162float(hq[(size_t(b) * sq + i) * d + c])) *
                 __bfloat162float(hk[(size_t(b) * sk + j) * d + c]);
        }
        w[j] = dot / std::sqrt(double(d));
        mx = std::max(mx, w[j]);
      }
      double sum = 0;
      for (int j = 0; j < end; ++j) sum += (w[j] = std::exp(w[j] - mx));
      for (int c = 0; c < d; ++c) {
        double ref = 0;
        for (int j = 0; j < end; ++j)
          ref += w[j] * __bfloat162float(hv[(size_t(b) * sk + j) * d + c]);
        ref = end > 0 ? ref / sum : 0.0;
        const float got = __bfloat162float(ho[(size_t(b) * sq + i) * d + c]);
        worst = std::isfinite(got) ? std::max(worst, std::fabs(got - ref)) : 1e30;
        if (!std::isfinite(got)) return worst;
      }
    }
  }
  return worst;
}

}  // namespace
}  // namespace flashscope::kernels::attn_mma

int main(int argc, char** argv) {
  using namespace flashscope::kernels::attn_mma;
  using flashscope::AttentionProblem;
  using flashscope::DType;
  using flashscope::kernels::AttentionArgs;
  const int samples = argc > 1 ? std::atoi(argv[1]) : 30;
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20);
  const size_t flush_bytes = size_t(prop.l2CacheSize) * 4;
  void* flush = nullptr;
  CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
  cudaEvent_t e0, e1;
  CHECK_CUDA(cudaEventCreate(&e0));
  CHECK_CUDA(cudaEventCreate(&e1));

  bool all_ok = true;
  for (const Variant& var : kVariants) {
    const int shapes[][3] = {{1, 1, 0},       {17, 1000, 1}, {1000, 1000, 1},
                             {1000, 2047, 0}, {2047, 17, 1}, {2047, 2047, 0}};
    for (const auto& sh : shapes) {
      const double err = CpuCheck(var, sh[0], sh[1], sh[2] != 0);
      const bool ok = err < 1.5e-2;  // bf16 output rounding of values up to ~1.5
      all_ok = all_ok && ok;
      std::printf("check %-34s Sq=%4d Sk=%4d causal=%d max|err|=%.2e %s\n", var.name, sh[0], sh[1],
                  sh[2], err, ok ? "ok" : "FAIL");
    }
  }
  std::printf("CPU checks: %s\n", all_ok ? "all passed" : "FAILURES");
  std::printf("%-34s %4s %6s %6s %9s %8s %10s\n", "variant", "D", "S", "causal", "median_ms",
              "TFLOPS", "max|d|ref");
  for (int d : {64, 128}) {
    for (int causal : {0, 1}) {
      for (int s : {2048, 4096, 8192, 16384}) {
        AttentionProblem p;
        p.head_dim = d;
        p.heads = d == 64 ? 32 : 16;
        p.batch = 16384 / s;
        p.seq_q = p.seq_k = s;
        p.dtype = DType::kBF16;
        p.causal = causal != 0;
        const size_t n = size_t(p.QElements());
        Buffers b;
        for (auto** ptr : {&b.q, &b.k, &b.v, &b.o, &b.o_ref}) CHECK_CUDA(cudaMalloc(ptr, n * 2));
        uint32_t seed = 17;
        for (auto* ptr : {b.q, b.k, b.v}) FillKernel<<<1024, 256>>>(ptr, n, seed++ * 7919u);
        CHECK_CUDA(cudaGetLastError());
        AttentionArgs a;
        a.q = b.q;
        a.k = b.k;
        a.v = b.v;
        a.softmax_scale = 1.f / std::sqrt(float(d));
        const double flops = 4.0 * p.batch * p.heads * double(s) * s * d * (p.causal ? 0.5 : 1.0);
        for (const Variant& var : kVariants) {
          if (var.head_dim != d) continue;
          a.o = var.reference ? b.o_ref : b.o;
          CHECK_CUDA(cudaMemset(a.o, 0xff, n * 2));  // poison: NaN bf16 until written
          CHECK_CUDA(var.launch(p, a, 0));
          CHECK_CUDA(cudaDeviceSynchronize());
          for (int w = 0; w < 2; ++w) CHECK_CUDA(var.launch(p, a, 0));
          std::vector<float> ms;
          for (int i = 0; i < samples; ++i) {
            CHECK_CUDA(cudaMemsetAsync(flush, i & 0xff, flush_bytes));  // cold L2
            CHECK_CUDA(cudaEventRecord(e0));
            CHECK_CUDA(var.launch(p, a, 0));
            CHECK_CUDA(cudaEventRecord(e1));
            CHECK_CUDA(cudaEventSynchronize(e1));
            float t = 0;
            CHECK_CUDA(cudaEventElapsedTime(&t, e0, e1));
            ms.push_back(t);
          }
          std::sort(ms.begin(), ms.end());
          const float med = ms[ms.size() / 2];
          bool finite = true;
          const double diff = var.reference ? 0.0 : MaxAbsDiff(b.o, b.o_ref, n, &finite);
          std::printf("%-34s %4d %6d %6d %9.4f %8.1f %10.2e%s\n", var.name, d, s, causal, med,
                      flops / (med * 1e-3) / 1e12, diff,
                      (!finite || diff > 2e-2) ? "  MISMATCH" : "");
        }
        for (auto* ptr : {b.q, b.k, b.v, b.o, b.o_ref}) CHECK_CUDA(cudaFree(ptr));
      }
    }
  }
  return all_ok ? 0 : 1;
}
