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
// iteration, outside the timed span, as `flashscope run` does. A case goes through the phases of
// every case path (runner/case_phases.h): before timing, the kernel's prepare() runs and the case
// is launched once on a poisoned output and verified against the reference with the suite's
// tolerance, as `flashscope run` applies it (bench/bench_case.h); a case that fails is skipped
// with the verification rule as its error. Counters (per iteration, from the event times, not CPU
// time): TFLOPS and bytes_per_second (minimal bytes: each input read once, each output written
// once).
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
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "bench/bench_args.h"
#include "bench/bench_case.h"
#include "common/install_layout.h"
#include "profiler/device_info.h"
#include "profiler/timing.h"
#include "protocol/worker_process.h"
#include "runner/case_binding.h"
#include "runner/case_phases.h"
#include "runner/kernel_loading.h"
#include "runner/planner.h"
#include "suites/plugin_paths.h"
#include "suites/suite.h"
#include "verify/input_kind.h"
#include "verify/problem_costs.h"

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
  int cc = 0;  // the GPU's compute capability, for supports()
};
Context* g_ctx = nullptr;

// One benchmark's case through the phases every case path shares (runner/case_phases.h): the
// kernel's supports(), the problem's workspace, the kernel's prepare(), one launch on poisoned
// outputs verified against the suite's tolerance (a fast wrong kernel must not produce a
// benchmark number), then Google Benchmark's iterations as the measurement. A phase that ends the
// case skips the benchmark with its reason.
class BenchPhases : public runner::CasePhases {
 public:
  BenchPhases(benchmark::State& state, const runner::BoundCase& bc)
      : state_(state), c_(*g_ctx), bc_(bc), problem_(bc.planned->problem) {}

  bool Supports() override {
    std::string why = bc_.kernel->Supports(problem_, c_.cc);
    return why.empty() || Skip("not supported: " + why);
  }
  bool Inputs() override {
    auto ws = c_.workspaces.For(problem_, c_.spec, c_.stream);
    if (!ws.ok()) return Skip(runner::InputsEnding(ws.status()).reason);
    ws_ = *ws;
    launch_.emplace(*bc_.kernel, problem_, *ws_);
    return true;
  }
  bool Prepare() override {
    if (!launch_->prepares()) return true;
    std::string note;
    cudaError_t e = launch_->Prepare(c_.stream, &note);
    if (e == cudaSuccess) e = cudaStreamSynchronize(c_.stream);
    return e == cudaSuccess || Skip("prepare: " + launch_->Describe(e));
  }
  bool Verify() override {
    if (auto s = ws_->PoisonOutputs(c_.stream); !s.ok()) return Skip(std::string(s.message()));
    cudaError_t e = (*launch_)(c_.stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(c_.stream);
    if (e != cudaSuccess) return Skip("launch: " + launch_->Describe(e));
    verify::HeatmapOptions no_heatmaps;
    no_heatmaps.enabled = false;
    auto verdict = ws_->Verify(BenchTolerance(c_.suite, problem_), no_heatmaps, c_.stream);
    if (!verdict.ok()) return Skip("verification: " + std::string(verdict.status().message()));
    return verdict->verdict.passed || Skip("verification failed: " + verdict->verdict.rule);
  }
  bool Measure() override {
    for (auto _ : state_) {
      if (c_.suite.timing.cold) (void)c_.timer->FlushL2();
      cudaEventRecord(c_.start, c_.stream);
      cudaError_t e = (*launch_)(c_.stream);
      cudaEventRecord(c_.stop, c_.stream);
      if (e == cudaSuccess) e = cudaEventSynchronize(c_.stop);
      float ms = 0;
      if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, c_.start, c_.stop);
      if (e != cudaSuccess) return Skip("timing: " + launch_->Describe(e));
      state_.SetIterationTime(ms * 1e-3);
      total_s_ += ms * 1e-3;
      iteration_ms_.push_back(ms);
    }
    return true;
  }
  void Complete() override {
    if (total_s_ <= 0) return;
    const double iters = static_cast<double>(state_.iterations());
    state_.counters["TFLOPS"] = verify::Flops(problem_) * iters / total_s_ * 1e-12;
    state_.counters["bytes_per_second"] = verify::MinimalBytes(problem_) * iters / total_s_;
    // `Time` is the mean of the iterations; `flashscope run` reports medians, so a mean pulled up
    // by a few slow iterations would not compare. Both are given.
    std::sort(iteration_ms_.begin(), iteration_ms_.end());
    state_.counters["median_ms"] = iteration_ms_[iteration_ms_.size() / 2];
    state_.counters["max_ms"] = iteration_ms_.back();
    // The SM clock right after the last iteration (the timer's %globaltimer/clock64 probe): a
    // long benchmark at full tensor load may run the GPU into its power limit, which the
    // samples of `flashscope run` (throttle-checked one by one) do not see.
    if (auto mhz = c_.timer->MeasureSmClockMhz(); mhz.ok()) {
      state_.counters["sm_clock_mhz_after"] = *mhz;
    }
  }

 private:
  bool Skip(const std::string& why) {
    state_.SkipWithError(why.c_str());
    return false;
  }

  benchmark::State& state_;
  Context& c_;
  const runner::BoundCase& bc_;
  const Problem& problem_;
  verify::Workspace* ws_ = nullptr;
  std::optional<runner::BoundLaunch> launch_;
  double total_s_ = 0;
  std::vector<double> iteration_ms_;  // Google Benchmark reports the mean; the median is ours
};

void RunCase(benchmark::State& state, const runner::BoundCase& bc) {
  BenchPhases phases(state, bc);
  runner::RunCasePhases(phases);
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "flashscope-bench: %s\n", message.c_str());
  return 2;
}

// The suite's plan over the built-in kernels and the plugins (the suite's, --plugin=FILE or
// FLASHSCOPE_PLUGINS, as for `flashscope run`), bound to the loaded kernels.
absl::StatusOr<std::vector<runner::BoundCase>> Plan(const runner::SuiteFile& suite,
                                                    const std::vector<std::string>& plugin_flags,
                                                    const std::string& kernels,
                                                    plugins::PluginSet* set,
                                                    reports::PlanRecord* plan) {
  // Bare names are looked up beside this program as beside flashscope-worker (same layout).
  auto paths = suites::ResolvePlugins(suites::PluginSourcesFromEnvironment(
      suite.suite.plugins, plugin_flags, suites::ThisProgram()));
  if (!paths.ok()) return paths.status();
  if (absl::Status s = runner::LoadKernels(*paths, -1, set); !s.ok()) return s;
  auto made = runner::MakePlan({&suite.suite, suite.sha256, set, kernels, "", {}});
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
  auto file = runner::ReadSuiteFile(*path);  // one read: the suite and the SHA-256 its plan records
  if (!file.ok()) return bench::Fail(std::string(file.status().message()));
  const suites::Suite* suite = &file->suite;
  static plugins::PluginSet kernel_set;  // the benchmarks' kernels live until exit
  static reports::PlanRecord plan;
  auto cases = bench::Plan(*file, args.plugins, kernels, &kernel_set, &plan);
  if (!cases.ok()) return bench::Fail(std::string(cases.status().message()));
  auto device = profiler::QueryDevice(0);
  if (!device.ok()) {
    return bench::Fail("no usable GPU: " + std::string(device.status().message()));
  }
  static bench::Context ctx;
  bench::g_ctx = &ctx;
  ctx.suite = *suite;
  ctx.cc = device->cc;
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
      benchmark::AddCustomContext("flashscope.plugin." + p.plugin,
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
