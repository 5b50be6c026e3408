#include "runner/case_runner.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/trust_checks.h"
#include "common/seconds_since.h"
#include "profiler/nvtx_ranges.h"
#include "profiler/resources.h"
#include "profiler/work_counters.h"
#include "protocol/worker_protocol.h"
#include "runner/case_phases.h"
#include "runner/case_runner_state.h"
#include "runner/record_conversions.h"
#include "runner/slot_rotation.h"
#include "runner/trust_case.h"
#include "verify/input_kind.h"
#include "verify/problem_costs.h"
#include "verify/tolerance.h"

namespace flashscope::runner {

namespace phase = suites::protocol::phase;

namespace case_runner_internal {

bool ContextIsLost() {
  cudaGetLastError();
  return cudaDeviceSynchronize() != cudaSuccess;
}

void Finish(reports::CaseResult& r, std::chrono::steady_clock::time_point start,
            reports::CaseStatus status, std::string reason) {
  r.status = status;
  r.reason = std::move(reason);
  r.wall_s = SecondsSince(start);
}

}  // namespace case_runner_internal

namespace {

using case_runner_internal::ContextIsLost;
using case_runner_internal::Finish;

}  // namespace

absl::StatusOr<std::unique_ptr<CaseRunner>> CaseRunner::Create(const suites::Suite& suite,
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
  s.workspace_spec.options.input = *kind;
  s.workspace_spec.options.seed = suite.seed;
  s.trust.off.insert(suite.trust.off.begin(), suite.trust.off.end());
  s.workspace_spec.options.precision = suite.verify.reference == "fp64"
                                           ? verify::ReferencePrecision::kFp64
                                           : verify::ReferencePrecision::kFp32;
  s.workspace_spec.heatmaps = suite.verify.heatmaps != "none";
  s.workspace_spec.dumps = !options.dump_dir.empty();
  if (cudaError_t e = cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking);
      e != cudaSuccess) {
    return absl::InternalError("cudaStreamCreate: " + CudaErrorText(e));
  }
  int current_device = 0;
  if (cudaError_t e = cudaGetDevice(&current_device); e != cudaSuccess) {
    return absl::InternalError("cudaGetDevice: " + CudaErrorText(e));
  }
  s.isolation = std::make_unique<CaseIsolation>(current_device, s.stream);
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
  if (s.trust.off.count("work") == 0) s.work_counters = profiler::WorkCountersFor(s.device.cc);
  if (s.work_counters != nullptr) {
    for (const std::string& hw : s.work_counters->AllHwNames()) {
      const bool asked = std::any_of(s.metric_defs.begin(), s.metric_defs.end(),
                                     [&](const profiler::MetricDef& m) { return m.hw_name == hw; });
      if (!asked) s.profiled_defs.push_back({hw, hw, "", "trust checks' work counter", 0});
    }
    // The screen serves batched cases, which ask for no metrics (runner/case_settle.cc). Its
    // scope collects every one of its counters, those the full set shares included.
    if (s.metric_defs.empty()) {
      for (const std::string& hw : s.work_counters->ScreenHwNames()) {
        s.screen_defs.push_back({hw, hw, "", "trust checks' work screen", 0});
      }
    }
  }
  return runner;
}

CaseRunner::~CaseRunner() {
  if (state_ && state_->stream) {
    state_->workspaces.Reset();
    cudaStreamDestroy(state_->stream);
  }
}

reports::Environment CaseRunner::DescribeEnvironment(bool measure_peaks) {
  reports::Environment env = ToEnvironment(state_->device);
  if (measure_peaks) {
    profiler::NvtxRange range("measure peaks");
    auto peaks = profiler::MeasurePeaks(state_->stream);
    if (peaks.ok()) {
      peaks_ = *peaks;
    } else {
      peaks_.matmul_source = "not measured: " + std::string(peaks.status().message());
    }
  }
  env.peaks = peaks_;
  return env;
}

reports::DeviceRecord CaseRunner::DescribeDevice(int index) const {
  reports::DeviceRecord d = ToDevice(state_->device, index);
  d.peaks = peaks_;
  return d;
}

void CaseRunner::Enter(const char* phase) {
  if (observer_) observer_(phase);
}

// One case of `flashscope run`: the phases of case_phases.h over CaseRunner's steps; with
// `may_park`, a case whose counters can be collected with other cases' is parked after its
// device functions (runner/case_settle.cc).
class CaseRunner::SinglePhases : public CasePhases {
 public:
  SinglePhases(CaseRunner& runner, Case& k, bool may_park)
      : runner_(runner), k_(k), may_park_(may_park) {}
  bool Supports() override { return runner_.Supported(k_); }
  bool Inputs() override {
    if (absl::Status st = runner_.RestoreIsolation(); !st.ok()) {
      return runner_.EndByIsolation(k_, st);
    }
    auto ws = runner_.Inputs(k_.c->problem);
    if (!ws.ok()) return runner_.EndByInputs(k_, ws.status());
    runner_.Bind(k_, **ws);
    return true;
  }
  bool Prepare() override { return runner_.Prepare(k_); }
  bool Verify() override { return runner_.Verify(k_); }
  // Timed also when verification failed: a developer wants both answers.
  bool Measure() override { return runner_.Time(k_); }
  void Complete() override {
    runner_.QueryDeviceFunctions(k_);
    if (may_park_ && runner_.CanPark(k_) && runner_.Park(k_)) return;
    runner_.Profile(k_);
    runner_.Conclude(k_);
  }

 private:
  CaseRunner& runner_;
  Case& k_;
  bool may_park_;
};

std::unique_ptr<CaseRunner::Case> CaseRunner::RunPhases(const CaseToRun& c, bool may_park) {
  profiler::NvtxRange case_range("case " + c.key);
  auto k = std::make_unique<Case>();
  if (may_park) {
    k->owned = std::make_unique<CaseToRun>(c);  // a parked case outlives the caller's
    k->c = k->owned.get();
  } else {
    k->c = &c;
  }
  k->r = c.planned;
  k->start = std::chrono::steady_clock::now();
  WatchThreads(*k);
  SinglePhases phases(*this, *k, may_park);
  RunCasePhases(phases);
  if (!k->parked) EndIfThreadsLeft(*k);
  return k;
}

reports::CaseResult CaseRunner::Run(const CaseToRun& c) { return RunPhases(c, false)->r; }

bool CaseRunner::Supported(Case& k) {
  Enter(phase::kSupports);
  if (std::string why = k.c->kernel->Supports(k.c->problem, state_->device.cc); !why.empty()) {
    Finish(k.r, k.start, reports::CaseStatus::kSkipped, why);
    return false;
  }
  return true;
}

// What an earlier case left changed in the shared device state is put back (that case already
// failed `isolation`, unless it ended before its check). A state that cannot be put back ends this
// worker: context_lost() then says so.
absl::Status CaseRunner::RestoreIsolation() {
  absl::Status st = state_->isolation->Restore();
  if (!st.ok()) context_lost_ = true;
  return st;
}

bool CaseRunner::EndByIsolation(Case& k, const absl::Status& status) {
  Finish(k.r, k.start, reports::CaseStatus::kError,
         absl::StrCat("isolation: the device state an earlier case left cannot be put back (",
                      status.message(), "); a fresh worker goes on"));
  return false;
}

absl::StatusOr<verify::Workspace*> CaseRunner::Inputs(const Problem& problem) {
  State& s = *state_;
  Enter(phase::kInputs);
  profiler::NvtxRange range("inputs+reference");
  // A new problem's inputs come from a seed the harness draws, not the suite's (runner/
  // secret_seeds.h); later cases of the problem redraw them (runner/fresh_inputs.h).
  // With fresh inputs the launches also rotate through buffer slots (runner/slot_rotation.h).
  const bool fresh = s.trust.off.count("timed_outputs") == 0;
  if (fresh) s.workspace_spec.options.seed = s.seeds.Next();
  s.workspace_spec.options.slots = fresh ? kRotatedSlots : 1;
  return s.workspaces.For(problem, s.workspace_spec, s.stream);
}

bool CaseRunner::EndByInputs(Case& k, const absl::Status& status) {
  const Ending ending = InputsEnding(status);
  if (ending.status == reports::CaseStatus::kError) context_lost_ = ContextIsLost();
  Finish(k.r, k.start, ending.status, ending.reason);
  return false;
}

void CaseRunner::Bind(Case& k, verify::Workspace& ws) {
  State& s = *state_;
  const CaseToRun& c = *k.c;
  k.ws = &ws;
  k.launch.emplace(*c.kernel, c.problem, ws);
  k.trust = std::make_unique<TrustCase>(s.trust, ws, k.launch->AsFunction(), s.stream,
                                        s.suite.seed ^ std::hash<std::string>()(c.key), s.seeds);
  k.integrity = std::make_unique<BufferIntegrity>();
  WatchWorkspace(c.problem, ws, k.integrity.get());
}

reports::CaseResult CaseRunner::Complete(Case& k) {
  QueryDeviceFunctions(k);
  Profile(k);
  return Conclude(k);
}

reports::CaseResult CaseRunner::Conclude(Case& k) {
  State& s = *state_;
  // Work a launch left running on a stream of its own must not reach into the next case.
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    context_lost_ = ContextIsLost();
    Finish(k.r, k.start, reports::CaseStatus::kError, absl::StrCat("device: ", CudaErrorText(e)));
    return k.r;
  }
  reports::Environment env = ToEnvironment(s.device);
  env.peaks = peaks_;
  absl::StatusOr<reports::TrustRecord> record =
      k.trust->Finish(k.c->problem, env, k.r.timing ? &*k.r.timing : nullptr, s.suite.timing.cold);
  if (!record.ok()) {
    context_lost_ = ContextIsLost();
    Finish(k.r, k.start, reports::CaseStatus::kError,
           absl::StrCat("trust checks: ", record.status().message()));
    return k.r;
  }
  k.r.trust = *std::move(record);
  if (absl::Status st = AddHarnessChecks(k); !st.ok()) {
    context_lost_ = ContextIsLost();
    Finish(k.r, k.start, reports::CaseStatus::kError, absl::StrCat("integrity: ", st.message()));
    return k.r;
  }
  const bool passed = k.r.verification && k.r.verification->passed;
  Finish(k.r, k.start, passed ? reports::CaseStatus::kPassed : reports::CaseStatus::kFailed,
         passed ? "" : k.r.verification->rule);
  reports::ApplyTrustVerdict(&k.r);
  return k.r;
}

// The kernel's one-time work (a plugin's prepare(): JIT compilation, autotuning), timed on the
// host and recorded, before the verified launch, so that no verified or timed launch pays for it.
// False when the case ended (status set).
bool CaseRunner::Prepare(Case& k) {
  if (!k.launch->prepares()) return true;
  State& s = *state_;
  Enter(phase::kPrepare);
  profiler::NvtxRange range("prepare");
  const auto start = std::chrono::steady_clock::now();
  std::string note;
  cudaError_t e = k.launch->Prepare(s.stream, &note);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s.stream);
  if (e != cudaSuccess) {
    context_lost_ = ContextIsLost();
    Finish(k.r, k.start, reports::CaseStatus::kError,
           absl::StrCat("prepare: ", k.launch->Describe(e)));
    return false;
  }
  k.r.prepare = reports::PrepareRecord{SecondsSince(start), note};
  // prepare() could read the inputs: the verified launch then gets a fresh draw (fresh_inputs.h).
  k.ws->MarkRead();
  return true;
}

// Launch on poisoned outputs, then verify. False when the case ended (status set).
bool CaseRunner::Verify(Case& k) {
  State& s = *state_;
  const CaseToRun& c = *k.c;
  profiler::NvtxRange range("verify");
  auto error = [&](const std::string& what) {
    Finish(k.r, k.start, reports::CaseStatus::kError, what);
    return false;
  };
  auto cuda_failure = [&](const std::string& what, cudaError_t e) {
    context_lost_ = ContextIsLost();
    std::string msg = absl::StrCat(what, ": ", k.launch->Describe(e));
    if (context_lost_) absl::StrAppend(&msg, " (the CUDA context is lost; a fresh worker goes on)");
    return error(msg);
  };
  if (absl::Status st = k.trust->BeforeVerifiedLaunch(); !st.ok()) {
    context_lost_ = ContextIsLost();
    return error(absl::StrCat("fresh inputs: ", st.message()));
  }
  if (auto st = k.ws->PoisonOutputs(s.stream); !st.ok()) {
    return error(absl::StrCat("poison: ", st.message()));
  }
  if (auto st = k.integrity->Snapshot(s.stream); !st.ok()) {
    return error(absl::StrCat("integrity: ", st.message()));
  }
  Enter(phase::kLaunch);
  if (cudaError_t e = k.trust->launch()(s.stream); e != cudaSuccess) {
    return cuda_failure("launch", e);
  }
  if (auto st = k.integrity->Check(s.stream, "the verified launch"); !st.ok()) {
    return error(absl::StrCat("integrity: ", st.message()));
  }
  if (cudaError_t e = cudaStreamSynchronize(s.stream); e != cudaSuccess) {
    return cuda_failure("kernel", e);
  }
  Enter(phase::kVerify);
  // Heatmaps cost report space: passing cases get small ones (policy "all") or none; a failing
  // case is verified again for full-resolution heatmaps, which show where it is wrong.
  const std::string& policy = s.suite.verify.heatmaps;
  const auto tolerance = ToleranceFor(c.problem, s.suite.verify);
  verify::HeatmapOptions ho;
  ho.block_m = c.kernel->info().tile.block_m;
  ho.block_n = c.kernel->info().tile.block_n;
  ho.enabled = policy == "all";
  ho.max_side = s.suite.verify.heatmap_side;
  auto v = k.ws->Verify(tolerance, ho, s.stream);
  if (v.ok() && !v->verdict.passed && policy != "none") {
    ho.enabled = true;
    ho.max_side = verify::kFullHeatmapSide;
    v = k.ws->Verify(tolerance, ho, s.stream);
  }
  if (!v.ok()) {
    context_lost_ = ContextIsLost();
    return error(absl::StrCat("verify: ", v.status().message()));
  }
  k.r.verification = ToVerificationRecord(*v);
  if (!s.options.dump_dir.empty()) {
    const std::string dir =
        (std::filesystem::path(s.options.dump_dir) / CaseDirName(c.index, c.key)).string();
    if (auto st = k.ws->DumpNpy(dir, s.stream); st.ok()) {
      k.r.verification->dump_dir = dir;
    } else {
      k.r.verification->dump_dir = absl::StrCat("not written: ", st.message());
    }
  }
  // The trust checks: the verified output's sampled check (after the dump, which reads it).
  if (absl::Status st = k.trust->AfterVerifiedLaunch(*v); !st.ok()) {
    context_lost_ = ContextIsLost();
    return error(absl::StrCat("output check: ", st.message()));
  }
  return true;
}

bool CaseRunner::Time(Case& k) {
  State& s = *state_;
  Enter(phase::kTiming);
  profiler::NvtxRange range("time");
  const profiler::SampleHooks hooks = WithIntegrity(k.trust->Hooks(), k.integrity.get(), s.stream);
  auto t = s.timer->Time(k.trust->launch(), s.suite.timing, hooks);
  if (!t.ok()) {
    context_lost_ = ContextIsLost();
    Finish(k.r, k.start, reports::CaseStatus::kError,
           absl::StrCat("timing: ", t.status().message()));
    return false;
  }
  RecordTiming(k, *t);
  return true;
}

void CaseRunner::RecordTiming(Case& k, const profiler::TimingResult& t) {
  State& s = *state_;
  k.r.timing = ToTimingRecord(t);
  k.r.throughput = ToThroughput(k.c->problem, k.r.timing->median_ms, peaks_);
  k.trust->Trace(*s.timer, Tracer(), s.tracer_unavailable, s.suite.timing.cold);
}

// Registers, shared and local memory and occupancy of the functions the kernel reports, read
// through the driver from their CUfunctions (a plugin's are as readable as ours).
void CaseRunner::QueryDeviceFunctions(Case& k) {
  if (!k.c->kernel->reports_device_functions()) return;
  Enter(phase::kDeviceFunctions);
  auto functions = k.c->kernel->DeviceFunctions(k.c->problem);
  if (!functions.ok()) return;
  for (const plugins::DeviceFunction& f : *functions) {
    auto usage = profiler::QueryResources(f.cu_function, f.name, f.block_threads,
                                          static_cast<size_t>(f.dynamic_smem_bytes));
    if (usage.ok()) k.r.resources.push_back(*std::move(usage));
  }
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

}  // namespace flashscope::runner
