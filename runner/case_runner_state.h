// Internal to the case runner, shared by its two files: case_runner.cc (one case) and
// case_runner_pair.cc (the two sides of an ab pair). Not for other code: use case_runner.h.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
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
  std::unique_ptr<profiler::RangeProfiler> range_profiler;
  std::string metrics_unavailable;  // set once the profiler cannot work in this process
  std::unique_ptr<profiler::KernelTracer> tracer;  // exact per-kernel durations (activity records)
  std::string tracer_unavailable;
  std::unique_ptr<CaseIsolation> isolation;  // the device state restored and checked per case
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
};

namespace case_runner_internal {

// A sticky error (illegal address, trap, launch failure) poisons the context: every later call
// returns it again. A second synchronise tells the two kinds apart.
bool ContextIsLost();

// Ends a case: its status, reason and wall time since `start`.
void Finish(reports::CaseResult& r, std::chrono::steady_clock::time_point start,
            reports::CaseStatus status, std::string reason);

}  // namespace case_runner_internal
}  // namespace flashscope::runner
