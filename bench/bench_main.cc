// flashscope-bench: a suite's cases as Google Benchmark benchmarks, so that Google Benchmark's
// users get what they expect: --benchmark_filter, --benchmark_repetitions, its console and JSON
// output (--benchmark_out=x.json --benchmark_out_format=json) and its tools/compare.py.
//
//   flashscope-bench --suite=ladder [--kernels='attn.a1*'] [--plugin=FILE]...
//   [--benchmark_filter=...]
//
// One benchmark per supported case, named "<kernel id>/<problem key>" (spaces in the key become
// '/'). Kernels are planned and bound exactly as `flashscope run` does (runner/planner.h,
// runner/case_binding.h), so a plugin's kernels (--plugin FILE, the suite's "plugins",
// FLASHSCOPE_PLUGINS) are benchmarked like the built-in ones; the plugins' provenance goes into
// the JSON context. Each iteration is one launch timed with a CUDA event pair and reported with
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
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "bench/bench_args.h"
#include "common/install_layout.h"
#include "plugins/sha256.h"
#include "profiler/device_info.h"
#include "profiler/timing.h"
#include "runner/case_binding.h"
#include "runner/kernel_loading.h"
#include "runner/planner.h"
#include "suites/plugin_paths.h"
#include "suites/suite.h"
#include "protocol/worker_process.h"
#include "verify/input_kind.h"
#include "verify/problem_costs.h"
#include "verify/tolerance.h"

namespace flashscope::bench {
namespace {

// One stream, one L2-flushing timer and the current problem's workspace, shared by every case.
struct Context {
  suites::Suite suite;
  cudaStream_t stream = nullptr;
  std::unique_ptr<profiler::Timer> timer;
  cudaEvent_t start = nullptr, stop = nullptr;
  runner::ProblemWorkspaces workspaces;
  runner::WorkspaceSpec spec;
};
Context* g_ctx = nullptr;

void RunCase(benchmark::State& state, const runner::BoundCase& bc) {
  Context& c = *g_ctx;
  const Problem& problem = bc.planned->problem;
  auto ws = c.workspaces.For(problem, c.spec, c.stream);
  if (!ws.ok()) {
    state.SkipWithError(("inputs/reference: " + std::string(ws.status().message())).c_str());
    return;
  }
  const runner::BoundLaunch launch(*bc.kernel, problem, **ws);
  // Verify once before timing: a fast wrong kernel must not produce a benchmark number.
  if (auto s = (*ws)->PoisonOutputs(c.stream); !s.ok()) {
    state.SkipWithError(std::string(s.message()).c_str());
    return;
  }
  cudaError_t e = launch(c.stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(c.stream);
  if (e != cudaSuccess) {
    state.SkipWithError(("launch: " + launch.Describe(e)).c_str());
    return;
  }
  DType dtype = std::visit([](const auto& p) { return p.dtype; }, problem);
  verify::HeatmapOptions no_heatmaps;
  no_heatmaps.enabled = false;
  auto verdict =
      (*ws)->Verify(verify::DefaultTolerance(FamilyOf(problem), dtype), no_heatmaps, c.stream);
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
    cudaError_t e = launch(c.stream);
    cudaEventRecord(c.stop, c.stream);
    if (e == cudaSuccess) e = cudaEventSynchronize(c.stop);
    float ms = 0;
    if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, c.start, c.stop);
    if (e != cudaSuccess) {
      state.SkipWithError(("timing: " + launch.Describe(e)).c_str());
      return;
    }
    state.SetIterationTime(ms * 1e-3);
    total_s += ms * 1e-3;
    iteration_ms.push_back(ms);
  }
  if (total_s > 0) {
    const double iters = static_cast<double>(state.iterations());
    state.counters["TFLOPS"] = verify::Flops(problem) * iters / total_s * 1e-12;
    state.counters["bytes_per_second"] = verify::MinimalBytes(problem) * iters / total_s;
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

int Fail(const std::string& message) {
  std::fprintf(stderr, "flashscope-bench: %s\n", message.c_str());
  return 2;
}

// The suite's plan over the built-in kernels and the plugins (the suite's, --plugin=FILE or
// FLASHSCOPE_PLUGINS, as for `flashscope run`), bound to the loaded kernels.
absl::StatusOr<std::vector<runner::BoundCase>> Plan(const suites::Suite& suite,
                                                    const std::vector<std::string>& plugin_flags,
                                                    const std::string& kernels,
                                                    plugins::PluginSet* set,
                                                    reports::PlanRecord* plan) {
  // Bare names are looked up beside this program as beside flashscope-worker (same layout).
  auto paths = suites::ResolvePlugins(
      suites::PluginSourcesFromEnvironment(suite.plugins, plugin_flags, suites::ThisProgram()));
  if (!paths.ok()) return paths.status();
  if (absl::Status s = runner::LoadKernels(*paths, -1, set); !s.ok()) return s;
  auto sha = plugins::Sha256OfFile(suite.path);
  if (!sha.ok()) return sha.status();
  auto made = runner::MakePlan({&suite, *sha, set, kernels, "", {}});
  if (!made.ok()) return made.status();
  *plan = *std::move(made);
  return runner::BindPlan(*plan, *set);
}

}  // namespace
}  // namespace flashscope::bench

int main(int argc, char** argv) {
  using namespace flashscope;
  for (int i = 1; i < argc; ++i) {
    // Google Benchmark prints its own help and exits; ours comes first.
    if (std::strcmp(argv[i], "--help") == 0) std::printf("%s\n", bench::BenchHelpText().c_str());
  }
  benchmark::Initialize(&argc, argv);
  const bench::BenchArgs args =
      bench::ParseBenchArgs(std::vector<std::string>(argv + 1, argv + argc));
  if (args.help) {
    std::printf("%s", bench::BenchHelpText().c_str());
    return 0;
  }
  if (!args.error.empty()) {
    std::fprintf(stderr, "flashscope-bench: %s\n", args.error.c_str());
    return 2;
  }
  const std::string& kernels = args.kernels;
  const std::string suites_dir = args.suites_dir.empty()
                                     ? InstalledDataDir(suites::ThisProgram()) + "/suites"
                                     : args.suites_dir;
  auto path = suites::ResolveSuitePath(args.suite, suites_dir);
  if (!path.ok()) return bench::Fail(std::string(path.status().message()));
  auto suite = suites::LoadSuiteFile(*path);
  if (!suite.ok()) return bench::Fail(std::string(suite.status().message()));
  static plugins::PluginSet kernel_set;  // the benchmarks' kernels live until exit
  static reports::PlanRecord plan;
  auto cases = bench::Plan(*suite, args.plugins, kernels, &kernel_set, &plan);
  if (!cases.ok()) return bench::Fail(std::string(cases.status().message()));
  auto device = profiler::QueryDevice(0);
  if (!device.ok()) {
    return bench::Fail("no usable GPU: " + std::string(device.status().message()));
  }
  static bench::Context ctx;
  bench::g_ctx = &ctx;
  ctx.suite = *suite;
  ctx.spec.options.input =
      verify::ParseInputKind(suite->input_kind).value_or(verify::InputKind::kNormal);
  ctx.spec.options.seed = suite->seed;
  cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking);
  cudaEventCreate(&ctx.start);
  cudaEventCreate(&ctx.stop);
  auto timer = profiler::Timer::Create(ctx.stream);
  if (!timer.ok()) return bench::Fail(std::string(timer.status().message()));
  ctx.timer = *std::move(timer);
  benchmark::AddCustomContext("flashscope.suite", suite->name);
  benchmark::AddCustomContext("flashscope.gpu", device->name);
  benchmark::AddCustomContext("flashscope.timing",
                              suite->timing.cold ? "cold (L2 flushed)" : "hot");
  for (const auto& p : kernel_set.plugins()) {
    if (!p.builtin) {
      benchmark::AddCustomContext("flashscope.plugin." + p.name,
                                  p.version + " " + p.path + " sha256 " + p.sha256);
    }
  }
  int skipped = 0;
  for (const runner::BoundCase& bc : *cases) {
    if (bc.kernel == nullptr || !bc.kernel->Supports(bc.planned->problem, device->cc).empty()) {
      ++skipped;  // unsupported: no benchmark (flashscope run records the reason)
      continue;
    }
    const std::string name = absl::StrReplaceAll(bc.planned->key, {{" ", "/"}});
    benchmark::RegisterBenchmark(name.c_str(),
                                 [bc](benchmark::State& st) { bench::RunCase(st, bc); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  std::fprintf(stderr,
               "flashscope-bench: suite %s: %zu cases registered, %d unsupported left out\n",
               suite->name.c_str(), cases->size() - skipped, skipped);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  ctx.workspaces.Reset();
  return 0;
}
