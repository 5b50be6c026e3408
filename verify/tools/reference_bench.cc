// flashscope-reference-bench: times the GPU attention reference (fp32) and the same-precision
// baseline (verify/gpu_reference.h) with CUDA events: one warm-up launch each, then the median of
// --reps launches, on fresh inputs generated once per shape. Prints ms and TFLOP/s per kernel.
//
//   flashscope-reference-bench [--reps N] [--shape B,H,S,D,DTYPE[,causal]]...
//
// Without --shape it times the shapes of the ladder's verification cost (docs/perf-notes.md, "The
// GPU reference and baseline, tiled"). Exit 0 when every launch ran, 1 on a CUDA error, 2 on bad
// usage. Not a test: CI never runs it (scripts/device/reference-bench.sh does, on a GPU machine).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/problem.h"
#include "verify/gpu_reference.h"
#include "verify/input_generators.h"

namespace flashscope::verify {
namespace {

#define BENCH_CUDA(expr)                                                       \
  do {                                                                         \
    const cudaError_t err_ = (expr);                                           \
    if (err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "flashscope-reference-bench: %s: %s (%s)\n", #expr, \
                   cudaGetErrorName(err_), cudaGetErrorString(err_));          \
      return false;                                                            \
    }                                                                          \
  } while (0)

AttentionProblem Shape(int64_t b, int64_t h, int64_t s, int64_t d, DType t, bool causal) {
  AttentionProblem p = AttentionShape(b, h, s, s, d, t);
  p.causal = causal;
  p.want_lse = true;
  return p;
}

// (query, key) pairs the problem scores: B·H·Σ_i keys seen by row i.
double ScoredPairs(const AttentionProblem& p) {
  double keys = 0;
  for (int64_t i = 0; i < p.seq_q; ++i) keys += static_cast<double>(p.CausalKeyEnd(i));
  return keys * static_cast<double>(p.batch * p.heads);
}

// "B,H,S,D,DTYPE[,causal]" → a problem; false (with a message) when it does not parse.
bool ParseShape(const std::string& text, AttentionProblem* p) {
  long long b = 0, h = 0, s = 0, d = 0;
  char dtype[8] = {0}, flag[8] = {0};
  const int n =
      std::sscanf(text.c_str(), "%lld,%lld,%lld,%lld,%7[a-z0-9],%7s", &b, &h, &s, &d, dtype, flag);
  const std::string dt(dtype), fl(flag);
  const bool known = dt == "fp16" || dt == "bf16" || dt == "fp32";
  if (n < 5 || !known || (n == 6 && fl != "causal") || b <= 0 || h <= 0 || s <= 0 || d <= 0 ||
      d > kReferenceMaxHeadDim) {
    std::fprintf(stderr,
                 "flashscope-reference-bench: --shape %s: expected B,H,S,D,DTYPE[,causal] with "
                 "positive sizes, D <= %d and DTYPE fp16, bf16 or fp32 (e.g. 1,32,16384,64,bf16,"
                 "causal)\n",
                 text.c_str(), kReferenceMaxHeadDim);
    return false;
  }
  const DType t = dt == "fp16" ? DType::kF16 : (dt == "bf16" ? DType::kBF16 : DType::kF32);
  *p = Shape(b, h, s, d, t, n == 6);
  return true;
}

struct Buffers {
  void* q = nullptr;
  void* k = nullptr;
  void* v = nullptr;
  float* out = nullptr;
  float* lse = nullptr;
  ~Buffers() {
    for (void* x : {q, k, v, static_cast<void*>(out), static_cast<void*>(lse)}) cudaFree(x);
  }
};

// The median of `reps` launches of `launch` (after one warm-up), in ms.
template <typename Launch>
bool TimeMedian(int reps, Launch launch, double* ms) {
  cudaEvent_t start, stop;
  BENCH_CUDA(cudaEventCreate(&start));
  BENCH_CUDA(cudaEventCreate(&stop));
  std::vector<float> t(reps);
  BENCH_CUDA(launch());
  for (int r = 0; r < reps; ++r) {
    BENCH_CUDA(cudaEventRecord(start));
    BENCH_CUDA(launch());
    BENCH_CUDA(cudaEventRecord(stop));
    BENCH_CUDA(cudaEventSynchronize(stop));
    BENCH_CUDA(cudaEventElapsedTime(&t[r], start, stop));
  }
  BENCH_CUDA(cudaEventDestroy(start));
  BENCH_CUDA(cudaEventDestroy(stop));
  std::sort(t.begin(), t.end());
  *ms = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
  return true;
}

bool BenchShape(const AttentionProblem& p, int reps) {
  Buffers b;
  const size_t e = DTypeBytes(p.dtype);
  BENCH_CUDA(cudaMalloc(&b.q, p.QElements() * e));
  BENCH_CUDA(cudaMalloc(&b.k, p.KElements() * e));
  BENCH_CUDA(cudaMalloc(&b.v, p.KElements() * e));
  BENCH_CUDA(cudaMalloc(reinterpret_cast<void**>(&b.out), p.QElements() * sizeof(float)));
  BENCH_CUDA(cudaMalloc(reinterpret_cast<void**>(&b.lse), p.LseElements() * sizeof(float)));
  BENCH_CUDA(GenerateAttentionInputs(p, InputKind::kNormal, 1, b.q, b.k, b.v, nullptr));
  double ref_ms = 0, base_ms = 0;
  if (!TimeMedian(
          reps,
          [&] {
            return AttentionReferenceGpu(p, b.q, b.k, b.v, ReferencePrecision::kFp32, b.out, b.lse,
                                         nullptr);
          },
          &ref_ms)) {
    return false;
  }
  if (!TimeMedian(
          reps, [&] { return AttentionSamePrecisionBaselineGpu(p, b.q, b.k, b.v, b.out, nullptr); },
          &base_ms)) {
    return false;
  }
  // Multiply-adds ×2: the reference scores and P·V each pair once (4·D FLOP), the baseline
  // scores it three times and P·V once (8·D).
  const double pairs = ScoredPairs(p), d = static_cast<double>(p.head_dim);
  std::printf("%-44s reference %9.3f ms %6.2f TFLOP/s   baseline %9.3f ms %6.2f TFLOP/s\n",
              ProblemKey(p).c_str(), ref_ms, 4 * d * pairs / ref_ms * 1e-9, base_ms,
              8 * d * pairs / base_ms * 1e-9);
  return true;
}

int Main(int argc, char** argv) {
  int reps = 5;
  std::vector<AttentionProblem> shapes;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
      if (reps < 1 || reps > 1000) {
        std::fprintf(stderr, "flashscope-reference-bench: --reps %s: expected 1 to 1000\n",
                     argv[i]);
        return 2;
      }
    } else if (a == "--shape" && i + 1 < argc) {
      AttentionProblem p;
      if (!ParseShape(argv[++i], &p)) return 2;
      shapes.push_back(p);
    } else {
      std::fprintf(stderr,
                   "usage: flashscope-reference-bench [--reps N] [--shape "
                   "B,H,S,D,DTYPE[,causal]]...\n");
      return 2;
    }
  }
  if (shapes.empty()) {
    shapes = {
        Shape(1, 32, 16384, 64, DType::kBF16, true), Shape(4, 16, 4096, 128, DType::kBF16, false),
        Shape(16, 32, 1024, 64, DType::kBF16, true), Shape(2, 8, 16384, 256, DType::kBF16, false)};
  }
  for (const AttentionProblem& p : shapes) {
    if (!BenchShape(p, reps)) return 1;
  }
  return 0;
}

}  // namespace
}  // namespace flashscope::verify

int main(int argc, char** argv) { return flashscope::verify::Main(argc, argv); }
