// flashscope-bench: a suite's cases as Google Benchmark benchmarks, so that Google Benchmark's
// users get what they expect: --benchmark_filter, --benchmark_repetitions, its console and JSON
// output (--benchmark_out=x.json --benchmark_out_format=json) and its tools/compare.py.
//
//   flashscope-bench --suite=ladder [--kernels='attn.a1*'] [--benchmark_filter=...] ...
//
// One benchmark per supported case, named "<kernel id>/<problem key>" (spaces in the key become
// '/'). Each iteration is one launch timed with a CUDA event pair and reported with
// SetIterationTime (UseManualTime); with the suite's cold policy L2 is flushed before each
// iteration, outside the timed span, as `flashscope run` does. Before timing, a case is launched
// once on a poisoned output and verified against the reference; a case that fails is skipped with
// the verification rule as its error. Counters (per iteration, from the event times, not CPU time):
// TFLOPS and bytes_per_second (minimal bytes: each input read once, each output written once).
//
// Built only with CUDA. It links Google Benchmark from Debian (libbenchmark.so.1debian, a shared
// library): the GPU machine's image does not have that soname, so a run there needs the .so carried
// beside the binary and LD_LIBRARY_PATH pointing at it (scripts/device/stage.sh's bench mode).
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "common/install_layout.h"
#include "kernels/registry.h"
#include "profiler/device_info.h"
#include "profiler/timing.h"
#include "suites/plan.h"
#include "suites/suite.h"
#include "verify/input_kind.h"
#include "verify/problem_costs.h"
#include "verify/tolerance.h"
#include "verify/workspace.h"

namespace flashscope::bench {
namespace {

// One stream, one L2-flushing timer and the current problem's workspace, shared by every case.
struct Context {
  suites::Suite suite;
  cudaStream_t stream = nullptr;
  std::unique_ptr<profiler::Timer> timer;
  cudaEvent_t start = nullptr, stop = nullptr;
  std::string workspace_key;
  std::unique_ptr<verify::Workspace> workspace;
  std::string workspace_error;
};
Context* g_ctx = nullptr;

verify::Workspace* WorkspaceFor(const Problem& problem, std::string* error) {
  Context& c = *g_ctx;
  const std::string key = ProblemKey(problem);
  if (c.workspace_key != key) {
    c.workspace.reset();
    c.workspace_key = key;
    c.workspace_error.clear();
    verify::WorkspaceOptions wo;
    wo.input = verify::ParseInputKind(c.suite.input_kind).value_or(verify::InputKind::kNormal);
    wo.seed = c.suite.seed;
    auto ws = verify::Workspace::Create(problem, wo, c.stream);
    if (ws.ok()) {
      c.workspace = *std::move(ws);
    } else {
      c.workspace_error = std::string(ws.status().message());
    }
  }
  *error = c.workspace_error;
  return c.workspace.get();
}

void RunCase(benchmark::State& state, const suites::PlannedCase& pc) {
  Context& c = *g_ctx;
  std::string error;
  verify::Workspace* ws = WorkspaceFor(pc.problem, &error);
  if (ws == nullptr) {
    state.SkipWithError(("inputs/reference: " + error).c_str());
    return;
  }
  kernels::AttentionArgs aa;
  kernels::GemmArgs ga;
  if (const auto* a = std::get_if<AttentionProblem>(&pc.problem)) {
    aa = {ws->input(0),
          ws->input(1),
          ws->input(2),
          ws->output(),
          a->want_lse ? ws->lse() : nullptr,
          static_cast<float>(1.0 / std::sqrt(static_cast<double>(a->head_dim)))};
  } else {
    ga = {ws->input(0), ws->input(1), static_cast<float*>(ws->output())};
  }
  auto launch = [&]() -> cudaError_t {
    if (const auto* a = std::get_if<AttentionProblem>(&pc.problem)) {
      return pc.kernel->attention_launch(*a, aa, c.stream);
    }
    return pc.kernel->gemm_launch(std::get<GemmProblem>(pc.problem), ga, c.stream);
  };
  // Verify once before timing: a fast wrong kernel must not produce a benchmark number.
  if (auto s = ws->PoisonOutputs(c.stream); !s.ok()) {
    state.SkipWithError(std::string(s.message()).c_str());
    return;
  }
  if (cudaError_t e = launch();
      e != cudaSuccess || cudaStreamSynchronize(c.stream) != cudaSuccess) {
    state.SkipWithError((std::string("launch: ") + cudaGetErrorName(cudaGetLastError())).c_str());
    return;
  }
  DType dtype = std::visit([](const auto& p) { return p.dtype; }, pc.problem);
  verify::HeatmapOptions no_heatmaps;
  no_heatmaps.enabled = false;
  auto verdict =
      ws->Verify(verify::DefaultTolerance(FamilyOf(pc.problem), dtype), no_heatmaps, c.stream);
  if (!verdict.ok() || !verdict->verdict.passed) {
    state.SkipWithError(
        ("verification failed: " +
         (verdict.ok() ? verdict->verdict.rule : std::string(verdict.status().message())))
            .c_str());
    return;
  }
  double total_s = 0;
  std::vector<double> iteration_ms;  // Google Benchmark reports the mean; the median is ours
  for (auto _ : state) {
    if (c.suite.timing.cold) (void)c.timer->FlushL2();
    cudaEventRecord(c.start, c.stream);
    cudaError_t e = launch();
    cudaEventRecord(c.stop, c.stream);
    if (e == cudaSuccess) e = cudaEventSynchronize(c.stop);
    float ms = 0;
    if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, c.start, c.stop);
    if (e != cudaSuccess) {
      state.SkipWithError((std::string("timing: ") + cudaGetErrorName(e)).c_str());
      return;
    }
    state.SetIterationTime(ms * 1e-3);
    total_s += ms * 1e-3;
    iteration_ms.push_back(ms);
  }
  if (total_s > 0) {
    const double iters = static_cast<double>(state.iterations());
    state.counters["TFLOPS"] = verify::Flops(pc.problem) * iters / total_s * 1e-12;
    state.counters["bytes_per_second"] = verify::MinimalBytes(pc.problem) * iters / total_s;
    // `Time` is the mean of the iterations; `flashscope run` reports medians, so a mean pulled up
    // by a few slow iterations would not compare. Both are given.
    std::sort(iteration_ms.begin(), iteration_ms.end());
    state.counters["median_ms"] = iteration_ms[iteration_ms.size() / 2];
    state.counters["max_ms"] = iteration_ms.back();
    // The SM clock right after the last iteration (the timer's %globaltimer/clock64 probe): a
    // long benchmark at full tensor load may run the GPU into its power limit, which the
    // samples of `flashscope run` (throttle-checked one by one) do not see.
    if (auto mhz = c.timer->MeasureSmClockMhz(); mhz.ok())
      state.counters["sm_clock_mhz_after"] = *mhz;
  }
}

// Our flags (Google Benchmark's own were removed by benchmark::Initialize).
std::string FlagValue(int argc, char** argv, const char* name, const char* fallback) {
  const std::string prefix = std::string("--") + name + "=";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) return argv[i] + prefix.size();
  }
  return fallback;
}

}  // namespace
}  // namespace flashscope::bench

int main(int argc, char** argv) {
  using namespace flashscope;
  benchmark::Initialize(&argc, argv);
  const std::string suite_arg = bench::FlagValue(argc, argv, "suite", "smoke");
  const std::string kernels = bench::FlagValue(argc, argv, "kernels", "");
  const std::string suites_dir =
      bench::FlagValue(argc, argv, "suites_dir", (InstalledDataDir() + "/suites").c_str());
  auto path = suites::ResolveSuitePath(suite_arg, suites_dir);
  if (!path.ok()) {
    std::fprintf(stderr, "flashscope-bench: %s\n", std::string(path.status().message()).c_str());
    return 2;
  }
  auto suite = suites::LoadSuiteFile(*path);
  if (!suite.ok()) {
    std::fprintf(stderr, "flashscope-bench: %s\n", std::string(suite.status().message()).c_str());
    return 2;
  }
  auto plan = suites::BuildPlan(*suite, kernels);
  if (!plan.ok()) {
    std::fprintf(stderr, "flashscope-bench: %s\n", std::string(plan.status().message()).c_str());
    return 2;
  }
  auto device = profiler::QueryDevice(0);
  if (!device.ok()) {
    std::fprintf(stderr, "flashscope-bench: no usable GPU: %s\n",
                 std::string(device.status().message()).c_str());
    return 2;
  }
  static bench::Context ctx;
  bench::g_ctx = &ctx;
  ctx.suite = *suite;
  cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking);
  cudaEventCreate(&ctx.start);
  cudaEventCreate(&ctx.stop);
  auto timer = profiler::Timer::Create(ctx.stream);
  if (!timer.ok()) {
    std::fprintf(stderr, "flashscope-bench: %s\n", std::string(timer.status().message()).c_str());
    return 2;
  }
  ctx.timer = *std::move(timer);
  benchmark::AddCustomContext("flashscope.suite", suite->name);
  benchmark::AddCustomContext("flashscope.gpu", device->name);
  benchmark::AddCustomContext("flashscope.timing",
                              suite->timing.cold ? "cold (L2 flushed)" : "hot");
  int skipped = 0;
  for (const auto& pc : *plan) {
    if (!pc.kernel->Supports(pc.problem, device->cc).empty()) {
      ++skipped;  // unsupported: no benchmark (flashscope run records the reason)
      continue;
    }
    const std::string name = absl::StrReplaceAll(pc.key, {{" ", "/"}});
    benchmark::RegisterBenchmark(name.c_str(),
                                 [pc](benchmark::State& st) { bench::RunCase(st, pc); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  std::fprintf(stderr,
               "flashscope-bench: suite %s: %zu cases registered, %d unsupported left out\n",
               suite->name.c_str(), plan->size() - skipped, skipped);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  ctx.workspace.reset();
  return 0;
}
