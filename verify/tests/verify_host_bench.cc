// flashscope-verify-host-bench: the host side of one verified attention case, step by step, as
// Workspace::Draw (after each redraw) and Workspace::Verify do it, on synthetic data (no GPU):
// the copies into host memory (here memcpy from a source buffer: the page faults and the writes
// of a device-to-host copy, not the PCIe transfer), the statistics of output, baseline and lse,
// and the heatmaps the ladder suite asks for (suites/ladder.json: "all", side 16). Prints a
// markdown table of each step's minimum and median over the repetitions (docs/perf-notes.md).
//   flashscope-verify-host-bench [--batch B] [--heads H] [--seq S] [--dim D] [--dtype bf16|fp16]
//                                [--lse] [--side N] [--block-m M] [--reps R]
// Defaults: the ladder's B=1 H=32 S=16384 D=64 bf16 (33.5 M output elements), side 16, tile 64.
// Threads: the chunked steps use up to 16 (verify/parallel_chunks.h); `taskset -c 0` pins them to
// one core for the single-core figure.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "verify/error_stats.h"
#include "verify/heatmap.h"
#include "verify/tests/synthetic_outputs.h"

namespace fv = flashscope::verify;

namespace {

struct Options {
  flashscope::AttentionProblem problem;
  int side = 16, block_m = 64, reps = 5;
};

bool ParseArgs(int argc, char** argv, Options* o) {
  auto& p = o->problem;
  p.batch = 1;
  p.heads = 32;
  p.seq_q = p.seq_k = 16384;
  p.head_dim = 64;
  p.dtype = flashscope::DType::kBF16;
  p.causal = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--lse") {
      p.want_lse = true;
    } else if (a == "--dtype" && has_value) {
      const std::string d = argv[++i];
      if (d != "bf16" && d != "fp16") return false;
      p.dtype = d == "bf16" ? flashscope::DType::kBF16 : flashscope::DType::kF16;
    } else if (has_value && (a == "--batch" || a == "--heads" || a == "--seq" || a == "--dim" ||
                             a == "--side" || a == "--block-m" || a == "--reps")) {
      const long v = std::atol(argv[++i]);
      if (v <= 0) return false;
      if (a == "--batch") p.batch = v;
      if (a == "--heads") p.heads = v;
      if (a == "--seq") p.seq_q = p.seq_k = v;
      if (a == "--dim") p.head_dim = v;
      if (a == "--side") o->side = static_cast<int>(v);
      if (a == "--block-m") o->block_m = static_cast<int>(v);
      if (a == "--reps") o->reps = static_cast<int>(v);
    } else {
      return false;
    }
  }
  return true;
}

// A copy into a freshly allocated host vector, as ToHostFloat and Verify do after a copy back.
template <typename T>
std::vector<T> FreshCopy(const std::vector<T>& src) {
  std::vector<T> out(src.size());
  std::memcpy(out.data(), src.data(), src.size() * sizeof(T));
  return out;
}

// Reads one element of `v`, so that the compiler cannot drop the allocation and copy it came from.
volatile double g_sink = 0;
template <typename T>
void Keep(const std::vector<T>& v) {
  if (!v.empty()) g_sink = g_sink + static_cast<double>(v[v.size() / 2]);
}

struct Step {
  std::string name;
  std::function<void()> run;
  std::vector<double> ms;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: %s [--batch B] [--heads H] [--seq S] [--dim D] [--dtype bf16|fp16] "
                 "[--lse] [--side N] [--block-m M] [--reps R] (positive integers)\n",
                 argv[0]);
    return 2;
  }
  const flashscope::AttentionProblem& p = o.problem;
  const int64_t n = p.QElements();
  const int64_t lse_n = p.want_lse ? p.LseElements() : 0;
  const fv::testing::SyntheticOutputs data =
      fv::testing::MakeSyntheticOutputs(n, lse_n, p.dtype, 28);
  const fv::Tolerance tol{1e-2, 1e-2};
  std::vector<Step> steps;
  steps.push_back({"redraw: reference, baseline, lse copied into fresh host vectors", [&] {
                     Keep(FreshCopy(data.reference));
                     Keep(FreshCopy(data.baseline));
                     Keep(FreshCopy(data.reference_lse));
                   }});
  steps.push_back({"verify: output and lse copied into fresh host vectors", [&] {
                     Keep(FreshCopy(data.output));
                     Keep(FreshCopy(data.lse));
                   }});
  steps.push_back({"verify: ComputeErrorStats(output)", [&] {
                     fv::ComputeErrorStats(data.output_data(), p.dtype, data.reference.data(), n,
                                           tol);
                   }});
  steps.push_back({"verify: BaselineStats (ComputeErrorStats over the baseline)", [&] {
                     fv::ComputeErrorStats(data.baseline.data(), flashscope::DType::kF32,
                                           data.reference.data(), n, tol);
                   }});
  steps.push_back({"verify: ComputeLseStats", [&] {
                     fv::ComputeLseStats(data.lse.data(), data.reference_lse.data(), lse_n, tol);
                   }});
  std::vector<float> errors;
  steps.push_back({"verify: AbsErrors (fresh fp32 error array)", [&] {
                     errors = fv::AbsErrors(data.output_data(), p.dtype, data.reference.data(), n);
                   }});
  steps.push_back({"verify: AttentionHeatmaps", [&] {
                     fv::AttentionHeatmaps(p, errors.data(), o.block_m, o.side);
                   }});
  for (int r = 0; r < o.reps; ++r) {
    for (Step& s : steps) {
      const auto t0 = std::chrono::steady_clock::now();
      s.run();
      s.ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
              .count());
    }
  }
  std::printf("B=%lld H=%lld S=%lld D=%lld %s, %lld output elements, lse %lld, side %d, tile %d, "
              "%d reps, hardware threads %u\n\n",
              static_cast<long long>(p.batch), static_cast<long long>(p.heads),
              static_cast<long long>(p.seq_q), static_cast<long long>(p.head_dim),
              p.dtype == flashscope::DType::kBF16 ? "bf16" : "fp16", static_cast<long long>(n),
              static_cast<long long>(lse_n), o.side, o.block_m, o.reps,
              std::thread::hardware_concurrency());
  std::printf("| step | min ms | median ms |\n|---|---:|---:|\n");
  double total_min = 0, total_median = 0;
  for (Step& s : steps) {
    std::sort(s.ms.begin(), s.ms.end());
    const double median = s.ms[s.ms.size() / 2];
    total_min += s.ms.front();
    total_median += median;
    std::printf("| %s | %.1f | %.1f |\n", s.name.c_str(), s.ms.front(), median);
  }
  std::printf("| total | %.1f | %.1f |\n", total_min, total_median);
  return 0;
}
