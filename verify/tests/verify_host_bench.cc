// flashscope-verify-host-bench: the host side of one verified attention case, step by step, as
// Workspace::Draw (after each redraw) and Workspace::Verify do it, on synthetic data (no GPU):
// the copies into the workspace's kept host buffers (here memcpy from a source buffer: the writes
// of a device-to-host copy, not the PCIe transfer; scripts/device/host_copies.sh measures that),
// the statistics of output (with the heatmaps the ladder suite asks for in the same pass),
// baseline and lse (suites/ladder.json: "all", side 16). Prints a
// markdown table of each step's minimum and median over the repetitions (docs/perf-notes.md).
//   flashscope-verify-host-bench [--batch B] [--heads H] [--seq S] [--dim D] [--dtype bf16|fp16]
//                                [--lse] [--side N] [--block-m M] [--reps R] [--device]
// Defaults: the ladder's B=1 H=32 S=16384 D=64 bf16 (33.5 M output elements), side 16, tile 64.
// --device (CUDA builds, on a GPU): the copies to the host and the Workspace's Redraw and Verify
// at that size instead (verify_host_bench_device.cc; scripts/device/verify-host-bench.sh).
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
#if FLASHSCOPE_HAVE_CUDA
#include "verify/tests/verify_host_bench_device.h"
#endif

namespace fv = flashscope::verify;

namespace {

struct Options {
  flashscope::AttentionProblem problem;
  int side = 16, block_m = 64, reps = 5;
  bool device = false;
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
    } else if (a == "--device") {
      o->device = true;
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

// A copy into host memory allocated and touched once, as the Workspace's kept host buffers
// (verify/host_buffer.h) receive the device's copies.
template <typename T>
void CopyInto(const std::vector<T>& src, std::vector<T>* kept) {
  std::memcpy(kept->data(), src.data(), src.size() * sizeof(T));
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
                 "[--lse] [--side N] [--block-m M] [--reps R] [--device] (positive integers)\n",
                 argv[0]);
    return 2;
  }
  const flashscope::AttentionProblem& p = o.problem;
  if (o.device) {
#if FLASHSCOPE_HAVE_CUDA
    return fv::testing::RunDeviceBench(p, o.side, o.block_m, o.reps);
#else
    std::fprintf(stderr,
                 "--device needs a build with CUDA (FLASHSCOPE_CUDA=ON); this one has none\n");
    return 2;
#endif
  }
  const int64_t n = p.QElements();
  const int64_t lse_n = p.want_lse ? p.LseElements() : 0;
  const fv::testing::SyntheticOutputs data =
      fv::testing::MakeSyntheticOutputs(n, lse_n, p.dtype, 28);
  const fv::Tolerance tol{1e-2, 1e-2};
  // The Workspace's host buffers, allocated (and here touched) once per problem.
  std::vector<float> reference = data.reference, baseline = data.baseline,
                     reference_lse = data.reference_lse, lse = data.lse;
  std::vector<unsigned char> output = data.output;
  std::vector<Step> steps;
  steps.push_back({"redraw: reference, baseline, lse copied into the kept host buffers", [&] {
                     CopyInto(data.reference, &reference);
                     CopyInto(data.baseline, &baseline);
                     CopyInto(data.reference_lse, &reference_lse);
                   }});
  steps.push_back({"verify: output and lse copied into the kept host buffers", [&] {
                     CopyInto(data.output, &output);
                     CopyInto(data.lse, &lse);
                   }});
  steps.push_back({"verify: ComputeErrorStats(output) with the heatmaps in its pass", [&] {
                     fv::HeatmapAccumulator maps =
                         fv::HeatmapAccumulator::ForAttention(p, o.block_m, o.side);
                     fv::ComputeErrorStats(output.data(), p.dtype, reference.data(), n, tol, &maps);
                     maps.Finish();
                   }});
  steps.push_back({"verify: BaselineStats (ComputeErrorStats over the baseline)", [&] {
                     fv::ComputeErrorStats(baseline.data(), flashscope::DType::kF32,
                                           reference.data(), n, tol);
                   }});
  steps.push_back({"verify: ComputeLseStats",
                   [&] { fv::ComputeLseStats(lse.data(), reference_lse.data(), lse_n, tol); }});
  for (int r = 0; r < o.reps; ++r) {
    for (Step& s : steps) {
      const auto t0 = std::chrono::steady_clock::now();
      s.run();
      s.ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  }
  std::printf(
      "B=%lld H=%lld S=%lld D=%lld %s, %lld output elements, lse %lld, side %d, tile %d, "
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
