// Variant sweep for gemm.g06_tma_ws (docs/perf-notes.md, "gemm.g06_tma_ws"): times the rung's
// tile widths, cluster sizes and scheduling groups side by side with cuBLAS in one process (cold
// L2, CUDA events, median), fp16 and bf16, and checks every variant's output against cuBLAS's on
// the same random inputs (NaN-poisoned C before each check). Not part of the CMake build: built
// here with
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I. -o gemm_sweep \
//        kernels/perf/gemm_sweep.cu kernels/hopper/tensor_map.cc -lcublas
// and run on the device (`gemm_sweep [SAMPLES]`; `gemm_sweep --pitch [SAMPLES]` the pitch study,
// `--pitch-once` its 5000^3 bf16 launches once each, for ncu; `--promotion [SAMPLES]` g06 with each
// L2 promotion of its tensor maps). The flashscope binary's own runs
// are the numbers that count.
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "kernels/hopper/g06_tma_ws.cu"
#include "kernels/perf/check_cuda.h"

namespace flashscope::kernels {
namespace {

using Launcher = cudaError_t (*)(const GemmProblem&, const GemmArgs&, const Maps&, cudaStream_t,
                                 int);
struct Variant {
  const char* name;
  int bn;
  int group;  // cluster-tile rows per scheduling group
  Launcher fp16, bf16;
};

template <int kBN, int kCluster>
constexpr Variant V(const char* name, int group) {
  return {name, kBN, group, &LaunchTyped<__half, kBN, true, kCluster>,
          &LaunchTyped<__nv_bfloat16, kBN, true, kCluster>};
}

const Variant kVariants[] = {
    V<256, 1>("128x256 c1 g16", 16), V<256, 2>("128x256 c2 g4", 4), V<256, 2>("128x256 c2 g16", 16),
    V<128, 2>("128x128 c2 g8", 8),   V<64, 2>("128x64 c2 g8", 8),   V<64, 1>("128x64 c1 g16", 16),
};

// Deterministic, non-zero inputs in [-1, 1) (a hash per element), as 16-bit floats.
template <typename T>
__global__ void FillKernel(T* x, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    const float v = float(h & 0xFFFFFF) / float(1 << 23) - 1.f;
    if constexpr (std::is_same_v<T, __half>) {
      x[i] = __float2half_rn(v);
    } else {
      x[i] = __float2bfloat16_rn(v);
    }
  }
}

struct Bufs {
  void *a, *b, *flush;
  float *c, *ref;
  size_t flush_bytes;
};

using Launch = std::function<cudaError_t()>;

// Median ms of each launch, the launches interleaved sample by sample (each after an L2 flush) so
// that clock and temperature drift over the run falls on all of them alike.
std::vector<double> MedianMs(const std::vector<Launch>& launches, const Bufs& buf, int samples) {
  cudaEvent_t t0, t1;
  CHECK_CUDA(cudaEventCreate(&t0));
  CHECK_CUDA(cudaEventCreate(&t1));
  for (const Launch& l : launches) CHECK_CUDA(l());
  std::vector<std::vector<float>> ms(launches.size());
  for (int i = 0; i < samples; ++i) {
    for (size_t v = 0; v < launches.size(); ++v) {
      CHECK_CUDA(cudaMemsetAsync(buf.flush, i & 0xFF, buf.flush_bytes));  // cold L2
      CHECK_CUDA(cudaEventRecord(t0));
      CHECK_CUDA(launches[v]());
      CHECK_CUDA(cudaEventRecord(t1));
      CHECK_CUDA(cudaEventSynchronize(t1));
      float x = 0;
      CHECK_CUDA(cudaEventElapsedTime(&x, t0, t1));
      ms[v].push_back(x);
    }
  }
  CHECK_CUDA(cudaEventDestroy(t0));
  CHECK_CUDA(cudaEventDestroy(t1));
  std::vector<double> med;
  for (auto& m : ms) {
    std::sort(m.begin(), m.end());
    med.push_back(m[m.size() / 2]);
  }
  return med;
}

// Max |c - ref| and max |ref| as float bits (non-negative floats order as integers); an element
// that is not finite (NaN: never written) sets bad.
__global__ void ErrKernel(const float* c, const float* ref, size_t n, unsigned* err, unsigned* mag,
                          unsigned* bad) {
  unsigned e = 0, m = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    if (!isfinite(c[i])) atomicOr(bad, 1u);
    e = max(e, __float_as_uint(fabsf(c[i] - ref[i])));
    m = max(m, __float_as_uint(fabsf(ref[i])));
  }
  atomicMax(err, e);
  atomicMax(mag, m);
}

// Max |c - ref| over max |ref|; a NaN (an element never written) counts as infinite error.
double RelErr(const Bufs& buf, size_t n) {
  unsigned* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, 3 * sizeof(unsigned)));
  CHECK_CUDA(cudaMemset(d, 0, 3 * sizeof(unsigned)));
  ErrKernel<<<1024, 256>>>(buf.c, buf.ref, n, d, d + 1, d + 2);
  unsigned h[3];
  CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaFree(d));
  float err, mag;
  std::memcpy(&err, &h[0], 4);
  std::memcpy(&mag, &h[1], 4);
  return h[2] != 0 ? INFINITY : double(err) / double(mag);
}

// cuBLAS's C = A·B into `c` (fp32, packed), A's rows `lda` and B's `ldb` elements apart: the
// reference and the peer of every mode.
cudaError_t Cublas(cublasHandle_t h, const GemmProblem& p, const Bufs& buf, int64_t lda,
                   int64_t ldb, float* c) {
  const cudaDataType t = p.dtype == DType::kBF16 ? CUDA_R_16BF : CUDA_R_16F;
  const float one = 1.f, zero = 0.f;
  return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, int(p.n), int(p.m), int(p.k), &one, buf.b, t,
                      int(ldb), buf.a, t, int(lda), &zero, c, CUDA_R_32F, int(p.n),
                      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS
             ? cudaSuccess
             : cudaErrorUnknown;
}

// launches[0] is cuBLAS, whose result is in buf.ref: every other launch is checked against it on a
// NaN-poisoned C (*ok false on a mismatch), then all are timed and printed beside cuBLAS.
void CheckTimeAndPrint(const GemmProblem& p, const Bufs& buf, const std::vector<Launch>& launches,
                       const std::vector<std::string>& names, int samples, bool* ok) {
  const size_t elems = size_t(p.m) * p.n;
  std::vector<double> errs(launches.size(), 0.0);
  for (size_t i = 1; i < launches.size(); ++i) {
    CHECK_CUDA(cudaMemset(buf.c, 0xFF, elems * 4));  // NaN until written
    CHECK_CUDA(launches[i]());
    CHECK_CUDA(cudaDeviceSynchronize());
    errs[i] = RelErr(buf, elems);
    *ok = *ok && errs[i] < 1e-4;
  }
  const std::vector<double> ms = MedianMs(launches, buf, samples);
  const double flop = 2.0 * p.m * p.n * p.k;
  for (size_t i = 0; i < launches.size(); ++i) {
    std::printf("%-32s %-26s %8.4f ms %7.1f TFLOPS %5.3fx of cuBLAS", ProblemKey(p).c_str(),
                names[i].c_str(), ms[i], flop / ms[i] / 1e9, ms[0] / ms[i]);
    if (i > 0) std::printf("  err %.1e %s", errs[i], errs[i] < 1e-4 ? "ok" : "WRONG");
    std::printf("\n");
  }
}

// What gemm.g06_tma_ws launches for `p` (its registered plan, maps over packed rows).
cudaError_t LaunchRegisteredG06(const GemmProblem& p, const GemmArgs& args) {
  return g06::LaunchPlan<false>(p, args, g06::ShapePlan<g06::PredictedBestWidth>(p), nullptr,
                                "g06");
}

void RunShape(cublasHandle_t h, const GemmProblem& p, const Bufs& buf, int samples, bool* ok) {
  const bool bf16 = p.dtype == DType::kBF16;
  CHECK_CUDA(Cublas(h, p, buf, p.k, p.n, buf.ref));
  GemmArgs args{buf.a, buf.b, buf.c};
  std::vector<std::string> names = {"cuBLAS", "registered plan"};
  std::vector<Launch> launches = {[&] { return Cublas(h, p, buf, p.k, p.n, buf.c); },
                                  [&, args] { return LaunchRegisteredG06(p, args); }};
  std::vector<Maps> maps(std::size(kVariants));
  for (size_t i = 0; i < std::size(kVariants); ++i) {
    const Variant& v = kVariants[i];
    if (v.bn < 256 && p.m * p.n >= int64_t(4096) * 4096) continue;  // not a contender there
    if (const std::string why = MapsFor(p, args, v.bn, &maps[i]); !why.empty()) {
      std::printf("%s: %s\n", v.name, why.c_str());
      *ok = false;
      continue;
    }
    names.push_back(v.name);
    const Maps* mp = &maps[i];
    const Variant* vp = &v;
    launches.push_back([&, vp, mp, args] {
      return (bf16 ? vp->bf16 : vp->fp16)(p, args, *mp, nullptr, vp->group);
    });
  }
  CheckTimeAndPrint(p, buf, launches, names, samples, ok);
}

// The pitch study (docs/perf-notes.md, "The GEMM pitch study and g08_shared_a"): the same M x N x K
// with A's and B's rows `lda` / `ldb` elements apart, the registered plan of g06 against cuBLAS on
// the same pitches, so that only the rows' alignment differs between the lines of one shape.
struct Pitch {
  const char* name;
  int64_t lda, ldb;
};

// g06's plan with tensor maps over rows `pitch` apart (the runner's maps assume K and N);
// `share_a`: its clusters along N sharing A (g08's kernel) wherever g06 would cluster;
// `promotion`: L2's fetch granularity in both maps (the --promotion study); unset, g06's own.
cudaError_t LaunchPitched(const GemmProblem& p, const GemmArgs& args, const Pitch& pitch,
                          bool share_a,
                          std::optional<CUtensorMapL2promotion> promotion = std::nullopt) {
  g06::Plan plan = g06::ShapePlan<g06::PredictedBestWidth>(p);
  plan.share_a = share_a && plan.tma && plan.cluster == 2;
  g06::Maps maps;
  const std::string why = g06::EncodeMaps(p, args.a, args.b, pitch.lda, pitch.ldb, plan.share_a,
                                          &maps, g06::kBM, promotion);
  if (!why.empty()) {
    std::fprintf(stderr, "pitch %s: %s\n", pitch.name, why.c_str());
    return cudaErrorInvalidValue;
  }
  return p.dtype == DType::kBF16
             ? g06::LaunchPlanTyped<__nv_bfloat16, false>(p, args, plan, maps, nullptr)
             : g06::LaunchPlanTyped<__half, false>(p, args, plan, maps, nullptr);
}

int64_t RoundUp(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

// `once`: each launch once, untimed (for ncu); else checked against cuBLAS and timed.
void RunPitchShape(cublasHandle_t h, const GemmProblem& p, const Bufs& buf, int samples, bool once,
                   bool* ok) {
  const int64_t n = p.n, k = p.k;
  const std::vector<Pitch> pitches = {{"rows as packed", k, n},
                                      {"A rows to 32 B", RoundUp(k, 16), n},
                                      {"B rows to 32 B", k, RoundUp(n, 16)},
                                      {"both to 32 B", RoundUp(k, 16), RoundUp(n, 16)},
                                      {"both to 128 B", RoundUp(k, 64), RoundUp(n, 64)}};
  auto cublas = [&](const Pitch& pt, float* c) { return Cublas(h, p, buf, pt.lda, pt.ldb, c); };
  const GemmArgs args{buf.a, buf.b, buf.c};
  std::vector<Launch> launches;
  std::vector<std::string> names;
  for (const Pitch& pt : pitches) {
    const Pitch* pp = &pt;
    launches.push_back([&, pp] { return cublas(*pp, buf.c); });
    names.push_back(std::string("cuBLAS, ") + pt.name);
    launches.push_back([&, pp, args] { return LaunchPitched(p, args, *pp, false); });
    names.push_back(std::string("g06, ") + pt.name);
    launches.push_back([&, pp, args] { return LaunchPitched(p, args, *pp, true); });
    names.push_back(std::string("g06 sharing A, ") + pt.name);
  }
  constexpr size_t kPer = 3;  // cuBLAS, g06, g06 sharing A: per pitch
  if (once) {
    for (const Launch& l : launches) CHECK_CUDA(l());
    CHECK_CUDA(cudaDeviceSynchronize());
    return;
  }
  std::vector<double> errs(launches.size(), 0.0);
  for (size_t i = 0; i < launches.size(); ++i) {
    if (i % kPer == 0) {
      CHECK_CUDA(cublas(pitches[i / kPer], buf.ref));
      continue;
    }
    CHECK_CUDA(cudaMemset(buf.c, 0xFF, size_t(p.m) * n * 4));  // NaN until written
    CHECK_CUDA(launches[i]());
    CHECK_CUDA(cudaDeviceSynchronize());
    errs[i] = RelErr(buf, size_t(p.m) * n);
    *ok = *ok && errs[i] < 1e-4;
  }
  const std::vector<double> ms = MedianMs(launches, buf, samples);
  const double flop = 2.0 * p.m * p.n * p.k;
  for (size_t i = 0; i < launches.size(); ++i) {
    std::printf("%-32s %-32s %8.4f ms %7.1f TFLOPS %5.3fx of cuBLAS on the same pitch",
                ProblemKey(p).c_str(), names[i].c_str(), ms[i], flop / ms[i] / 1e9,
                ms[i / kPer * kPer] / ms[i]);
    if (i % kPer != 0) std::printf("  err %.1e %s", errs[i], errs[i] < 1e-4 ? "ok" : "WRONG");
    std::printf("\n");
  }
}

// The promotion study: g06's plan on packed rows as registered (each map's promotion by its rows,
// hopper::PromotionForRows) and with each L2 promotion forced on both maps (none, 64, 128, 256
// bytes), against cuBLAS, each checked against cuBLAS's result.
void RunPromotionShape(cublasHandle_t h, const GemmProblem& p, const Bufs& buf, int samples,
                       bool* ok) {
  const Pitch packed{"rows as packed", p.k, p.n};
  const std::pair<const char*, std::optional<CUtensorMapL2promotion>> kinds[] = {
      {"g06, as registered", std::nullopt},
      {"g06, L2 promotion none", CU_TENSOR_MAP_L2_PROMOTION_NONE},
      {"g06, L2 promotion 64 B", CU_TENSOR_MAP_L2_PROMOTION_L2_64B},
      {"g06, L2 promotion 128 B", CU_TENSOR_MAP_L2_PROMOTION_L2_128B},
      {"g06, L2 promotion 256 B", CU_TENSOR_MAP_L2_PROMOTION_L2_256B}};
  const GemmArgs args{buf.a, buf.b, buf.c};
  std::vector<Launch> launches{[&] { return Cublas(h, p, buf, p.k, p.n, buf.c); }};
  std::vector<std::string> names{"cuBLAS"};
  for (const auto& [name, promotion] : kinds) {
    const std::optional<CUtensorMapL2promotion> pr = promotion;
    launches.push_back([&, pr, args] { return LaunchPitched(p, args, packed, false, pr); });
    names.push_back(name);
  }
  CHECK_CUDA(Cublas(h, p, buf, p.k, p.n, buf.ref));
  CheckTimeAndPrint(p, buf, launches, names, samples, ok);
}

int Main(int argc, char** argv) {
  const bool pitch = argc > 1 && std::strcmp(argv[1], "--pitch") == 0;
  const bool pitch_once = argc > 1 && std::strcmp(argv[1], "--pitch-once") == 0;
  const bool promotion = argc > 1 && std::strcmp(argv[1], "--promotion") == 0;
  const int mode = pitch || pitch_once || promotion ? 1 : 0;
  const int samples = std::atoi(argc > 1 + mode ? argv[1 + mode] : "20");
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20);
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  const size_t max_elems = size_t(8192) * 16384;
  Bufs buf{};
  buf.flush_bytes = size_t(256) << 20;
  CHECK_CUDA(cudaMalloc(&buf.a, max_elems * 2));
  CHECK_CUDA(cudaMalloc(&buf.b, max_elems * 2));
  CHECK_CUDA(cudaMalloc(&buf.c, max_elems * 4));
  CHECK_CUDA(cudaMalloc(&buf.ref, max_elems * 4));
  CHECK_CUDA(cudaMalloc(&buf.flush, buf.flush_bytes));
  const int64_t shapes[][3] = {{4096, 4096, 4096},
                               {8192, 8192, 8192},
                               {8192, 16384, 4096},
                               {2048, 2048, 2048},
                               {1024, 1024, 1024}};
  bool ok = true;
  const int64_t pitch_shapes[] = {3000, 5000, 6000, 4000};
  for (DType t : {DType::kF16, DType::kBF16}) {
    if (t == DType::kF16) {
      FillKernel<__half><<<1024, 256>>>(static_cast<__half*>(buf.a), max_elems, 1);
      FillKernel<__half><<<1024, 256>>>(static_cast<__half*>(buf.b), max_elems, 2);
    } else {
      FillKernel<__nv_bfloat16><<<1024, 256>>>(static_cast<__nv_bfloat16*>(buf.a), max_elems, 1);
      FillKernel<__nv_bfloat16><<<1024, 256>>>(static_cast<__nv_bfloat16*>(buf.b), max_elems, 2);
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    if (pitch_once) {  // one shape, bf16 only: for ncu's counters
      if (t == DType::kBF16) RunPitchShape(h, GemmProblem{5000, 5000, 5000, t}, buf, 1, true, &ok);
      continue;
    }
    if (pitch) {
      for (int64_t e : pitch_shapes) {
        RunPitchShape(h, GemmProblem{e, e, e, t}, buf, samples, false, &ok);
      }
      continue;
    }
    if (promotion) {
      for (int64_t e : pitch_shapes) {
        RunPromotionShape(h, GemmProblem{e, e, e, t}, buf, samples, &ok);
      }
      continue;
    }
    for (const auto& s : shapes) RunShape(h, GemmProblem{s[0], s[1], s[2], t}, buf, samples, &ok);
  }
  std::printf("gemm_sweep: %s\n", ok ? "every variant matched cuBLAS" : "MISMATCH");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace flashscope::kernels

int main(int argc, char** argv) { return flashscope::kernels::Main(argc, argv); }
