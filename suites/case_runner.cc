#include "suites/case_runner.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "profiler/cupti_profiler.h"
#include "profiler/device_info.h"
#include "profiler/kernel_tracer.h"
#include "profiler/metric_catalogue.h"
#include "profiler/nvtx_ranges.h"
#include "profiler/resources.h"
#include "profiler/timing.h"
#include "profiler/work_counters.h"
#include "suites/record_conversions.h"
#include "suites/trust_case.h"
#include "verify/host_memory.h"
#include "verify/input_kind.h"
#include "verify/problem_costs.h"
#include "verify/tolerance.h"
#include "verify/workspace.h"

namespace flashscope::suites {

struct CaseRunner::State {
  Suite suite;
  RunOptions options;
  cudaStream_t stream = nullptr;
  std::unique_ptr<profiler::Timer> timer;
  profiler::DeviceInfo device;
  verify::InputKind input_kind = verify::InputKind::kNormal;

  // One problem's inputs and reference, reused by every kernel of that problem.
  std::string workspace_key;
  std::unique_ptr<verify::Workspace> workspace;
  absl::Status workspace_status;  // why the current problem has no workspace

  // Hardware metrics: resolved once; the profiler is created on first use. It collects the
  // metrics asked for and the trust checks' work counters in the same passes.
  std::vector<profiler::MetricDef> metric_defs;
  std::vector<profiler::MetricDef> profiled_defs;           // metric_defs, then the work counters
  const profiler::WorkCounterSet* work_counters = nullptr;  // null: none for this GPU, or off
  std::unique_ptr<profiler::RangeProfiler> range_profiler;
  std::string metrics_unavailable;  // set once the profiler cannot work in this process
  std::unique_ptr<profiler::KernelTracer> tracer;  // exact per-kernel durations (activity records)
  std::string tracer_unavailable;
};

namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

std::string Gib(double bytes) { return absl::StrFormat("%.2f GiB", bytes / (1ull << 30)); }

profiler::TimingPolicy ToPolicy(const TimingSpec& t) {
  profiler::TimingPolicy p;
  p.cold = t.cold;
  p.warmup = t.warmup;
  p.min_samples = t.min_samples;
  p.max_samples = t.max_samples;
  p.noise_target = t.noise_target;
  p.time_cap_s = t.time_cap_s;
  return p;
}

verify::TolerancePolicy ToleranceFor(const Problem& problem, const VerifySpec& spec) {
  DType dtype = std::visit([](const auto& p) { return p.dtype; }, problem);
  verify::TolerancePolicy t = verify::DefaultTolerance(FamilyOf(problem), dtype);
  if (spec.atol) t.atol = *spec.atol;
  if (spec.rtol) t.rtol = *spec.rtol;
  if (spec.baseline_factor) t.baseline_factor = *spec.baseline_factor;
  if (spec.floor) t.floor = *spec.floor;
  return t;
}

// A sticky error (illegal address, trap, launch failure) poisons the context: every later call
// returns it again. A second synchronise tells the two kinds apart.
bool ContextIsLost() {
  cudaGetLastError();
  return cudaDeviceSynchronize() != cudaSuccess;
}

std::string CudaErrorText(cudaError_t e) {
  return absl::StrCat(cudaGetErrorName(e), ": ", cudaGetErrorString(e));
}

// `kernel` bound to input set `set` of `ws` (the output is shared by every set).
LaunchFn Bind(const kernels::KernelEntry& kernel, const Problem& problem, verify::Workspace& ws,
              int set) {
  if (const auto* a = std::get_if<AttentionProblem>(&problem)) {
    const kernels::AttentionArgs args = {
        ws.input(0, set),
        ws.input(1, set),
        ws.input(2, set),
        ws.output(),
        a->want_lse ? ws.lse() : nullptr,
        static_cast<float>(1.0 / std::sqrt(static_cast<double>(a->head_dim)))};
    const AttentionProblem p = *a;
    return [&kernel, p, args](cudaStream_t s) { return kernel.attention_launch(p, args, s); };
  }
  const kernels::GemmArgs args = {ws.input(0, set), ws.input(1, set),
                                  static_cast<float*>(ws.output())};
  const GemmProblem p = std::get<GemmProblem>(problem);
  return [&kernel, p, args](cudaStream_t s) { return kernel.gemm_launch(p, args, s); };
}

}  // namespace

absl::StatusOr<std::unique_ptr<CaseRunner>> CaseRunner::Create(const Suite& suite,
                                                               const RunOptions& options) {
  auto device = profiler::QueryDevice(0);
  if (!device.ok()) return device.status();
  auto kind = verify::ParseInputKind(suite.input_kind);
  if (!kind) {
    return absl::InvalidArgumentError(
        absl::StrCat(suite.path, ": suite.input.kind: unknown input '", suite.input_kind, "'"));
  }
  std::unique_ptr<CaseRunner> runner(new CaseRunner());
  runner->state_ = std::make_unique<State>();
  State& s = *runner->state_;
  s.suite = suite;
  s.options = options;
  s.device = *device;
  s.input_kind = *kind;
  if (cudaError_t e = cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking);
      e != cudaSuccess) {
    return absl::InternalError("cudaStreamCreate: " + CudaErrorText(e));
  }
  auto timer = profiler::Timer::Create(s.stream);
  if (!timer.ok()) return timer.status();
  s.timer = *std::move(timer);
  const std::string spec = options.metrics.empty() ? suite.metrics : options.metrics;
  if (!spec.empty() && spec != "none") {
    auto defs = profiler::ResolveMetrics(spec, s.device.cc);
    if (!defs.ok()) return defs.status();
    s.metric_defs = *std::move(defs);
  }
  s.profiled_defs = s.metric_defs;
  const auto& off = suite.trust.off;
  if (std::find(off.begin(), off.end(), "work") == off.end()) {
    s.work_counters = profiler::WorkCountersFor(s.device.cc);
  }
  if (s.work_counters != nullptr) {
    for (const std::string& hw : s.work_counters->AllHwNames()) {
      const bool asked = std::any_of(s.metric_defs.begin(), s.metric_defs.end(),
                                     [&](const profiler::MetricDef& m) { return m.hw_name == hw; });
      if (!asked) s.profiled_defs.push_back({hw, hw, "", "trust checks' work counter", 0});
    }
  }
  return runner;
}

CaseRunner::~CaseRunner() {
  if (state_ && state_->stream) {
    state_->workspace.reset();
    cudaStreamDestroy(state_->stream);
  }
}

reports::Environment CaseRunner::DescribeEnvironment(bool measure_peaks) {
  reports::Environment env = ToEnvironment(state_->device);
  if (measure_peaks) {
    profiler::NvtxRange range("measure peaks");
    auto peaks = profiler::MeasurePeaks(state_->stream);
    if (peaks.ok()) {
      peaks_ = ToPeaks(*peaks);
    } else {
      peaks_.matmul_source = "not measured: " + std::string(peaks.status().message());
    }
  }
  env.peaks = peaks_;
  return env;
}

reports::CaseResult CaseRunner::Run(const PlannedCase& c) {
  State& s = *state_;
  const auto start = std::chrono::steady_clock::now();
  profiler::NvtxRange case_range("case " + c.key);
  reports::CaseResult r = NewCaseResult(c, s.suite);
  auto finish = [&](reports::CaseStatus status, std::string reason) {
    r.status = status;
    r.reason = std::move(reason);
    r.wall_s = Seconds(start);
    return r;
  };
  auto cuda_failure = [&](const std::string& phase, cudaError_t e) {
    context_lost_ = ContextIsLost();
    std::string msg = absl::StrCat(phase, ": ", CudaErrorText(e));
    if (context_lost_) absl::StrAppend(&msg, " (the CUDA context is lost; a fresh worker goes on)");
    return finish(reports::CaseStatus::kError, msg);
  };

  if (std::string why = c.kernel->Supports(c.problem, s.device.cc); !why.empty()) {
    return finish(reports::CaseStatus::kSkipped, why);
  }

  // Inputs and reference, once per problem.
  const std::string problem_key = ProblemKey(c.problem);
  if (s.workspace_key != problem_key) {
    profiler::NvtxRange phase("inputs+reference");
    s.workspace.reset();
    s.workspace_key = problem_key;
    s.workspace_status = absl::OkStatus();
    size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    const double need = static_cast<double>(
        verify::Workspace::DeviceBytesNeeded(c.problem, s.suite.trust.input_sets));
    // Host copies of reference, baseline and output are bounded too (verify/host_memory.h).
    absl::Status host_fits = absl::OkStatus();
    if (auto available = verify::MemAvailableBytes(); available.ok()) {
      host_fits = verify::CheckHostMemory(
          verify::HostBytesNeeded(c.problem, s.suite.verify.heatmaps != "none",
                                  !s.options.dump_dir.empty(), s.suite.trust.input_sets),
          *available);
    }
    if (!host_fits.ok()) {
      s.workspace_status =
          absl::ResourceExhaustedError(absl::StrCat("problem ", host_fits.message()));
    } else if (need > 0.9 * static_cast<double>(free_bytes)) {
      s.workspace_status = absl::ResourceExhaustedError(
          absl::StrCat("problem needs ", Gib(need),
                       " of device memory for inputs, output and "
                       "reference; ",
                       Gib(free_bytes), " of ", Gib(total_bytes), " free"));
    } else {
      verify::WorkspaceOptions wo;
      wo.input = s.input_kind;
      wo.seed = s.suite.seed;
      wo.input_sets = s.suite.trust.input_sets;
      wo.precision = s.suite.verify.reference == "fp64" ? verify::ReferencePrecision::kFp64
                                                        : verify::ReferencePrecision::kFp32;
      auto ws = verify::Workspace::Create(c.problem, wo, s.stream);
      if (ws.ok()) {
        s.workspace = *std::move(ws);
      } else {
        s.workspace_status = ws.status();
      }
    }
  }
  if (!s.workspace) {
    if (absl::IsResourceExhausted(s.workspace_status)) {
      return finish(reports::CaseStatus::kSkipped, std::string(s.workspace_status.message()));
    }
    context_lost_ = ContextIsLost();
    return finish(reports::CaseStatus::kError,
                  absl::StrCat("inputs/reference: ", s.workspace_status.message()));
  }
  verify::Workspace& ws = *s.workspace;

  const kernels::KernelEntry& kernel = *c.kernel;
  const Problem& problem = c.problem;
  std::vector<LaunchFn> launches;
  for (int set = 0; set < ws.num_input_sets(); ++set)
    launches.push_back(Bind(kernel, problem, ws, set));
  TrustSettings trust_settings;
  trust_settings.off.insert(s.suite.trust.off.begin(), s.suite.trust.off.end());
  TrustCase trust(trust_settings, ws, std::move(launches), s.stream,
                  s.suite.seed ^ std::hash<std::string>()(c.key));
  const LaunchFn launch = trust.launch();

  // Launch on poisoned outputs, then verify.
  {
    profiler::NvtxRange phase("verify");
    if (auto st = ws.PoisonOutputs(s.stream); !st.ok()) {
      return finish(reports::CaseStatus::kError, absl::StrCat("poison: ", st.message()));
    }
    if (cudaError_t e = launch(s.stream); e != cudaSuccess) return cuda_failure("launch", e);
    if (cudaError_t e = cudaStreamSynchronize(s.stream); e != cudaSuccess) {
      return cuda_failure("kernel", e);
    }
    // Heatmaps cost report space: passing cases get small ones (policy "all") or none; a failing
    // case is verified again for full-resolution heatmaps, which show where it is wrong.
    const std::string& policy = s.suite.verify.heatmaps;
    const auto tolerance = ToleranceFor(problem, s.suite.verify);
    verify::HeatmapOptions ho;
    ho.block_m = c.kernel->info.tile.block_m;
    ho.block_n = c.kernel->info.tile.block_n;
    ho.enabled = policy == "all";
    ho.max_side = s.suite.verify.heatmap_side;
    auto v = ws.Verify(tolerance, ho, s.stream);
    if (v.ok() && !v->verdict.passed && policy != "none") {
      ho.enabled = true;
      ho.max_side = 256;
      v = ws.Verify(tolerance, ho, s.stream);
    }
    if (!v.ok()) {
      context_lost_ = ContextIsLost();
      return finish(reports::CaseStatus::kError, absl::StrCat("verify: ", v.status().message()));
    }
    r.verification = ToVerificationRecord(*v);
    if (!s.options.dump_dir.empty()) {
      std::string dir = (std::filesystem::path(s.options.dump_dir) / CaseDirName(c)).string();
      if (auto st = ws.DumpNpy(dir, s.stream); st.ok()) {
        r.verification->dump_dir = dir;
      } else {
        r.verification->dump_dir = absl::StrCat("not written: ", st.message());
      }
    }
    // The trust checks: the verified output's own check, then the other input sets (after the
    // dump, which writes set 0's output).
    if (absl::Status st = trust.AfterVerifiedLaunch(0, *v); !st.ok()) {
      context_lost_ = ContextIsLost();
      return finish(reports::CaseStatus::kError, absl::StrCat("output check: ", st.message()));
    }
    if (absl::Status st = trust.VerifyOtherSets(tolerance); !st.ok()) {
      context_lost_ = ContextIsLost();
      return finish(reports::CaseStatus::kError, absl::StrCat("input sets: ", st.message()));
    }
  }

  // Time it (also when verification failed: a developer wants both answers).
  {
    profiler::NvtxRange phase("time");
    auto t = s.timer->Time(launch, ToPolicy(s.suite.timing), trust.Hooks());
    if (!t.ok()) {
      context_lost_ = ContextIsLost();
      return finish(reports::CaseStatus::kError, absl::StrCat("timing: ", t.status().message()));
    }
    r.timing = ToTimingRecord(*t);
    r.throughput = ToThroughput(problem, r.timing->median_ms, peaks_);
    trust.Trace(*s.timer, Tracer(), s.tracer_unavailable, s.suite.timing.cold);
  }

  if (c.kernel->device_functions) {
    for (const auto& f : c.kernel->device_functions(problem)) {
      auto usage = profiler::QueryResources(f.func, f.name, f.block_threads, f.dynamic_smem_bytes);
      if (usage.ok()) r.resources.push_back(ToResourceRecord(*usage));
    }
  }

  {
    profiler::NvtxRange phase("profile");
    Profile(c, launch, &r, &trust);
  }

  // Work a launch left running on a stream of its own must not reach into the next case.
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return cuda_failure("device", e);
  const reports::Environment env = [&] {
    reports::Environment e = ToEnvironment(s.device);
    e.peaks = peaks_;
    return e;
  }();
  absl::StatusOr<reports::TrustRecord> record =
      trust.Finish(problem, env, r.timing ? &*r.timing : nullptr, s.suite.timing.cold);
  if (!record.ok()) {
    context_lost_ = ContextIsLost();
    return finish(reports::CaseStatus::kError,
                  absl::StrCat("trust checks: ", record.status().message()));
  }
  r.trust = *std::move(record);

  const bool passed = r.verification && r.verification->passed;
  reports::CaseResult done =
      finish(passed ? reports::CaseStatus::kPassed : reports::CaseStatus::kFailed,
             passed ? "" : r.verification->rule);
  reports::ApplyTrustVerdict(&done);
  return done;
}

profiler::KernelTracer* CaseRunner::Tracer() {
  State& s = *state_;
  if (s.tracer_unavailable.empty() && !s.tracer) {
    auto t = profiler::KernelTracer::Create();
    if (t.ok()) {
      s.tracer = *std::move(t);
    } else {
      s.tracer_unavailable = std::string(t.status().message());
    }
  }
  return s.tracer.get();
}

void CaseRunner::Profile(const PlannedCase& c, const LaunchFn& launch, reports::CaseResult* r,
                         TrustCase* trust) {
  State& s = *state_;
  if (s.profiled_defs.empty()) {
    trust->SetWork({false, absl::StrCat("no work counters known for sm_", s.device.cc)}, 0);
    return;
  }
  reports::ProfileRecord pr;
  if (s.metrics_unavailable.empty() && !s.range_profiler) {
    auto rp = profiler::RangeProfiler::Create(s.profiled_defs, 0);
    if (rp.ok()) {
      s.range_profiler = *std::move(rp);
    } else {
      s.metrics_unavailable = std::string(rp.status().message());
    }
  }
  reports::WorkInput work;
  work.unavailable_reason =
      s.work_counters == nullptr
          ? absl::StrCat("no work counters known for sm_", s.device.cc)
          : absl::StrCat("hardware counters unavailable: ", s.metrics_unavailable);
  double profile_s = 0;
  if (s.range_profiler) {
    // A launch that is not idempotent cannot be relaunched per pass: CUPTI replays each of its
    // kernels and restores the memory they touch instead.
    const profiler::Replay replay =
        c.kernel->info.idempotent ? profiler::Replay::kUser : profiler::Replay::kKernel;
    auto result = s.range_profiler->Profile(
        launch, [&]() { return s.timer->FlushL2(); }, s.stream, replay);
    if (result.ok()) {
      profile_s = result->wall_s;
      std::map<std::string, double> by_hw;
      reports::ProfileRecord all = ToProfileRecord(*result);
      pr = all;
      pr.metrics.clear();
      for (const auto& m : all.metrics) {
        by_hw[m.hw_name] = m.value;
        const bool asked = std::any_of(s.metric_defs.begin(), s.metric_defs.end(),
                                       [&](const auto& d) { return d.hw_name == m.hw_name; });
        if (asked) pr.metrics.push_back(m);
      }
      if (s.work_counters != nullptr) {
        work = WorkInputFrom(*s.work_counters, by_hw, result->kernels,
                             replay == profiler::Replay::kUser, c.problem);
      }
    } else if (absl::IsNotFound(result.status()) && s.work_counters != nullptr) {
      work = WorkInputFrom(*s.work_counters, {}, 0, true, c.problem);  // no kernel enqueued
      pr.unavailable_reason = std::string(result.status().message());
    } else {
      pr.unavailable_reason = std::string(result.status().message());
      work.unavailable_reason = absl::StrCat("hardware counters: ", pr.unavailable_reason);
    }
  } else {
    pr.unavailable_reason = s.metrics_unavailable;
  }
  trust->SetWork(std::move(work), profile_s);
  if (s.metric_defs.empty()) return;
  // One more launch under CUPTI's activity records: the exact duration of every kernel the
  // implementation launches (several for the unfused peer), after an L2 flush like a sample.
  if (profiler::KernelTracer* tracer = Tracer(); tracer != nullptr && s.timer->FlushL2().ok()) {
    auto records = tracer->Trace(launch, s.stream);
    if (records.ok()) {
      for (const auto& k : *records) pr.kernel_durations_ms.emplace_back(k.name, k.ms);
    }
  }
  r->profile = pr;
}

}  // namespace flashscope::suites
