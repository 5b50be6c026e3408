// The trust checks' decisions (docs/trust.md): pure functions from the evidence a run measured to
// a TrustCheckRecord each, so that CI tests them without a GPU and a reader of a report can see
// exactly which numbers decided. The runner (runner/) gathers the evidence on the GPU: CUPTI
// counters and activity records (profiler/), the outputs of timed launches (verify/).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/report.h"

namespace flashscope::reports {

// ---- thresholds, each argued in docs/trust.md ----

// Achieved rates may exceed the theoretical ceilings by this much before failing: CUDA events
// resolve about 0.5 us, and the clocks the driver reports are rounded to 1 MHz.
inline constexpr double kCeilingMargin = 1.05;
// Ceilings from a measured peak (an architecture whose rates flashscope does not know) allow
// this much more: the measured GEMM ran power-limited (1650 of 1980 MHz on an H200).
inline constexpr double kMeasuredPeakMargin = 1.5;
// The FLOPs the hardware counted in one launch must reach this share of the problem's minimal
// FLOPs. Counters are exact sums and an honest kernel pads, never skips.
inline constexpr double kWorkFloor = 0.9;
// With L2 flushed before the launch, DRAM reads must reach this share of the input bytes.
inline constexpr double kDramReadFloor = 0.5;
// Below this many input bytes the DRAM rule is off: a few sectors of other traffic decide.
inline constexpr double kDramRuleMinBytes = 1 << 20;
// Arithmetic outside the family's precision contract may reach this share of the minimal FLOPs.
inline constexpr double kPrecisionTolerance = 0.01;
// Below this many minimal FLOPs the FLOP and precision rules are off: such a launch is index
// arithmetic and fixed costs (the smoke suite's smallest problem needs 1,536 FLOPs).
inline constexpr double kWorkRuleMinFlops = 1e6;

// ---- check 1: physically possible ----

// What the GPU can do at most: dense 16-bit tensor FLOP/s and DRAM bytes/s.
struct Ceilings {
  double flops_per_s = 0;
  std::string flops_source;  // how it was derived, with its numbers
  double bytes_per_s = 0;
  std::string bytes_source;
};

// Dense tensor FLOPs per SM per clock for 16-bit inputs on compute capability `cc` (the higher of
// fp16 and fp32 accumulation), from NVIDIA's datasheets; 0 for an architecture not listed.
double TensorFlopsPerSmClock(int cc);

// The ceilings of the GPU a report was made on: SMs × max SM clock × TensorFlopsPerSmClock, and
// 2 × memory clock × bus width (double data rate); each falls back to the measured peak ×
// kMeasuredPeakMargin where the architecture or the memory clock is unknown, and to the measured
// peak when that exceeds the theoretical value (the table would then be wrong for this GPU).
Ceilings CeilingsOf(const Environment& env);

struct PlausibilityInput {
  double minimal_flops = 0;        // the least arithmetic the problem needs
  double minimal_input_bytes = 0;  // inputs read once
  double best_ms = 0;              // the fastest timed launch
  bool cold = true;                // L2 flushed before each launch (inputs come from DRAM)
};
TrustCheckRecord CheckPlausibility(const PlausibilityInput& in, const Ceilings& ceilings);

// ---- check 2: work conservation and the precision contract, from hardware counters ----

// The FLOPs one arithmetic path did in one profiled launch.
struct WorkPath {
  std::string name;        // "fp16 mma.sync, fp32 accumulate"
  std::string inputs;      // "fp16", "bf16", "tf32", "fp8", "int8", "fp32"
  std::string accumulate;  // "fp32", "fp16", "fp16 or fp32" (the counters cannot tell), "int32"
  double flops = 0;
  bool judged = true;  // precision evidence (scalar FADD/FMUL/HFMA counts are work evidence only)
};

struct WorkInput {
  bool available = false;
  std::string unavailable_reason;  // why there are no counters (permissions, architecture)
  int kernels = 0;                 // kernels the profiled launch enqueued
  std::vector<WorkPath> paths;
  bool dram_counted = false;
  double dram_read_bytes = 0;
  double dram_write_bytes = 0;
  bool l2_flushed = false;    // each counted launch started from a flushed L2 (user replay)
  std::string problem_dtype;  // "fp16", "bf16", "fp32"
  double minimal_flops = 0;
  double minimal_input_bytes = 0;
};
TrustCheckRecord CheckWork(const WorkInput& in);
// Fails when paths outside the contract (fp16/bf16 inputs or fp32 upcasts, fp32 accumulation)
// did more than kPrecisionTolerance of the minimal FLOPs.
TrustCheckRecord CheckPrecision(const WorkInput& in);

// ---- check 3: every timed launch answers for itself; check 5: input sets, determinism ----

// The GPU check of one launch's output against its input set's reference (verify/output_check.h).
struct LaunchOutputCheck {
  int launch = 0;  // timed launch index; -1 - s for the verified first launch of input set s
  int input_set = 0;
  bool poisoned_before = false;
  int64_t bad = 0;
  int64_t never_written = 0;
  int64_t nonfinite = 0;
  double max_abs = 0;
  uint64_t hash = 0;
};
// `checks` holds one entry per timed launch; `launches` is how many were timed. Fills `failed`
// with the first failing launches (at most 16).
TrustCheckRecord CheckTimedOutputs(const std::vector<LaunchOutputCheck>& checks, int launches,
                                   std::vector<TimedLaunchRecord>* failed);

struct InputSetVerdict {
  int set = 0;
  uint64_t seed = 0;
  bool passed = false;
  std::string rule;  // the verification's rule, with its numbers
  double max_abs = 0;
  double ratio_to_baseline = 0;
};
TrustCheckRecord CheckInputSets(const std::vector<InputSetVerdict>& sets);

// Informative: are all launches of one input set bitwise identical? `checks` holds the verified
// and the timed launches.
TrustCheckRecord CheckDeterminism(const std::vector<LaunchOutputCheck>& checks);

// ---- check 4: stream accounting of one traced launch ----

struct TracedLaunch {
  bool available = false;
  std::string unavailable_reason;
  int64_t launch_stream = -1;
  // Every record CUPTI made while the traced launch was taken, times in microseconds from the
  // end of the marker kernel before the start event (the window's begin).
  std::vector<ActivityRecord> records;
  double window_end_us = 0;  // start of the marker kernel after the stop event
  double call_begin_us = 0;  // launch() called (host time, same clock)
  double call_end_us = 0;    // launch() returned
};
// Names each violation: GPU work on a stream other than the launch's, work that ended after the
// stop event, a host synchronisation or synchronous copy inside launch(), no kernel at all.
// `activity` receives the launch's own records (the harness's flush, poison, probe removed).
TrustCheckRecord CheckStreams(const TracedLaunch& in, std::vector<ActivityRecord>* activity);

// ---- the verdict ----

// A case whose verification passed but a trust check failed becomes `failed`; the reason names
// every failed check with its rule, after the verification's own rule when that failed too.
void ApplyTrustVerdict(CaseResult* c);

// A check that did not run, with the reason.
TrustCheckRecord CheckOff(const std::string& check, const std::string& reason);

}  // namespace flashscope::reports
