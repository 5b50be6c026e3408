// Internal to the case runner, shared by its two files: case_runner.cc (one case) and
// case_runner_pair.cc (the two sides of an ab pair). Not for other code: use case_runner.h.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "profiler/cupti_profiler.h"
#include "profiler/device_info.h"
#include "profiler/kernel_tracer.h"
#include "profiler/metric_catalogue.h"
#include "profiler/timing.h"
#include "profiler/work_counters.h"
#include "runner/buffer_integrity.h"
#include "runner/case_binding.h"
#include "runner/case_isolation.h"
#include "runner/case_runner.h"
#include "runner/host_threads.h"
#include "runner/secret_seeds.h"
#include "runner/trust_case.h"

namespace flashscope::runner {

struct CaseRunner::State {
  suites::Suite suite;
  RunOptions options;
  cudaStream_t stream = nullptr;
  std::unique_ptr<profiler::Timer> timer;
  profiler::DeviceInfo device;
  WorkspaceSpec workspace_spec;
  ProblemWorkspaces workspaces;  // one problem's inputs and reference, reused by its kernels

  // Hardware metrics: resolved once; the profiler is created on first use. It collects the
  // metrics asked for and the trust checks' work counters in the same passes.
  std::vector<profiler::MetricDef> metric_defs;
  std::vector<profiler::MetricDef> profiled_defs;           // metric_defs, then work counters
  const profiler::WorkCounterSet* work_counters = nullptr;  // null: none for this GPU, or off
  TrustSettings trust;
  SecretSeeds seeds;  // fresh inputs' and sampled rows' seeds, keyed from the OS at start
  // False once a hardware-only profile (profiler::MetricScope::kHardware) failed here: every
  // later profile collects all counters at once (runner/case_profile.cc).
  bool hardware_scope_usable = true;
  // "kernel dtype" pairs whose tensor paths fell short of the work floor once: their later cases
  // collect every counter at once (runner/case_profile.cc), not the hardware-counted ones first.
  std::set<std::string> scalar_first;
  // The work counters' screen (profiler/work_counters.h, WorkScreen): its counters, given to the
  // range profiler beside profiled_defs where the GPU has one and cases are batched; and the
  // "kernel dtype" pairs whose screen was not complete once: their later cases collect the full
  // set at once (runner/case_settle.cc).
  std::vector<profiler::MetricDef> screen_defs;
  std::set<std::string> screen_failed;
  std::unique_ptr<profiler::RangeProfiler> range_profiler;
  std::string metrics_unavailable;  // set once the profiler cannot work in this process
  std::unique_ptr<profiler::KernelTracer> tracer;  // exact per-kernel durations (activity records)
  std::string tracer_unavailable;
  std::unique_ptr<CaseIsolation> isolation;  // the device state restored and checked per case
  // Cases parked until their work counters are collected together (runner/case_settle.cc), in
  // the order they ran; parking is on only where a supervisor hands out several cases at once.
  std::vector<std::unique_ptr<Case>> parked;
  bool parking = false;
};

// The case being run: its result so far, its workspace and its bound launch.
struct CaseRunner::Case {
  const CaseToRun* c = nullptr;
  reports::CaseResult r;
  std::chrono::steady_clock::time_point start;
  verify::Workspace* ws = nullptr;
  std::optional<BoundLaunch> launch;           // on input set 0; names a plugin's own errors
  std::unique_ptr<TrustCase> trust;            // its launch() reads the current input set
  std::unique_ptr<BufferIntegrity> integrity;  // inputs, references and guards, per launch
  // The worker's host threads when the case started, before any of its plugin code ran
  // (runner/host_threads.h); watched once taken, checked once.
  std::vector<HostThread> threads_before;
  bool threads_watched = false;
  bool threads_checked = false;
  std::vector<LeftThread> threads_left;  // what the check found (ThreadsLeftBy)
  // A parked case (runner/case_settle.cc) owns what it runs on: its copy of the case and a share
  // of its workspace (the next problem's For() would free it).
  std::unique_ptr<CaseToRun> owned;
  std::shared_ptr<verify::Workspace> workspace_share;
  bool parked = false;
  double own_wall_s = 0;  // its own phases' wall time, up to parking: its wall_s adds its share
                          // of the settle, not the other cases' time in between
  TrustCase::PassHooks pass_hooks;  // around each of its batched counter launches
  int batched_launches = 0;
  // The isolation check made as it was parked (its own phases), and the first failing one after
  // a batched launch of its own: the case's isolation verdict is made of the two.
  std::optional<reports::TrustCheckRecord> isolation, batch_isolation;
};

namespace case_runner_internal {

// A batched counter session's answer for a launch whose range recorded nothing: evidence (the
// launch enqueued no kernel), not a profiler failure.
inline constexpr char kNoKernelLaunched[] = "no kernel";

// A profile's values by hardware name (runner/case_profile.cc).
std::map<std::string, double> ByHwName(const profiler::ProfileResult& r);

// "kernel dtype": State::scalar_first's key.
inline std::string KernelDTypeKey(const CaseToRun& c) {
  return c.kernel->info().id + " " + DTypeOf(c.problem);
}

// A sticky error (illegal address, trap, launch failure) poisons the context: every later call
// returns it again. A second synchronise tells the two kinds apart.
bool ContextIsLost();

// Ends a case: its status, reason and wall time since `start`.
void Finish(reports::CaseResult& r, std::chrono::steady_clock::time_point start,
            reports::CaseStatus status, std::string reason);

}  // namespace case_runner_internal
}  // namespace flashscope::runner
