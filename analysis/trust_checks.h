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
// For an "e4m3" problem the FLOP ceiling is the FP8 rate: twice the 16-bit one where the
// architecture has FP8 tensor cores (sm_89, sm_90, sm_100; FP8PerSmClockFactor), and the
// measured (16-bit) peak counts twice as well, since no FP8 peak is measured.
Ceilings CeilingsOf(const Environment& env, const std::string& problem_dtype = "");
// 2 for FP8 on the architectures with FP8 tensor cores (datasheet dense rates: H100 1979 against
// 989 TFLOP/s, RTX 4090 660 against 330, B200 4500 against 2250), else 1.
double Fp8PerSmClockFactor(int cc);

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
  int kernels = 0;  // kernels the profiled launch enqueued; -1: not counted (one user range)
  std::vector<WorkPath> paths;
  bool dram_counted = false;
  double dram_read_bytes = 0;
  double dram_write_bytes = 0;
  bool l2_flushed = false;    // each counted launch started from a flushed L2 (user replay)
  std::string problem_dtype;  // "fp16", "bf16", "fp32"
  double minimal_flops = 0;
  double minimal_input_bytes = 0;
  // How the paths were counted, said in both rules; empty: every path in one profile.
  std::string counted_by;
};
TrustCheckRecord CheckWork(const WorkInput& in);
// Fails when paths outside the contract (fp16/bf16 inputs or fp32 upcasts, fp32 accumulation)
// did more than kPrecisionTolerance of the minimal FLOPs.
TrustCheckRecord CheckPrecision(const WorkInput& in);

// ---- check 3: every launch answers for itself, on inputs no launch has seen ----

// Rows (attention: whole query rows, lse included) or entries (gemm) checked after each launch,
// drawn at random after it ran (verify/sampled_rows.h). A kernel that skips (or gets wrong) a
// fraction f of rows escapes one launch's check with probability (1-f)^n and m launches' with
// (1-f)^(n·m) (EscapeProbability); docs/trust.md derives the numbers and the cost. An attention
// row costs O(Sk·D) in the check, a gemm entry O(K): entries are cheaper, so more are drawn.
inline constexpr int kSampledRowsPerLaunch = 64;
inline constexpr int kSampledEntriesPerLaunch = 256;

// The probability that a kernel whose output is wrong on a fraction `skipped_fraction` of its
// rows passes `launches` launches' checks of `samples_per_launch` rows drawn independently
// (with replacement): (1 - f)^(n·m). 1 for f <= 0, 0 for f >= 1.
double EscapeProbability(double skipped_fraction, int64_t samples_per_launch, int64_t launches);

// The sampled check of one launch's output against a reference computed for its sampled rows
// from the inputs that launch read.
struct LaunchOutputCheck {
  std::string kind;              // "verified", "warm-up", "timed", "traced", "profiled"
  int launch = 0;                // index within its kind (timed launches count throttled ones too)
  bool poisoned_before = false;  // the output was re-poisoned before it (else stale)
  uint64_t input_seed = 0;       // the harness's seed of the inputs the launch read
  int64_t rows = 0;              // rows (entries) checked
  int64_t bad = 0;               // elements past the bound, NaN/Inf or never written
  int64_t never_written = 0;
  int64_t nonfinite = 0;
  int64_t lse_bad = 0;   // rows whose log-sum-exp broke the lse rule
  int64_t bad_rows = 0;  // rows with any bad element or a bad lse
  double max_abs = 0;
};
// How many launches of each kind the harness made: each must have been checked.
struct LaunchCounts {
  int verified = 0, warmup = 0, timed = 0, traced = 0, profiled = 0;
  int total() const { return verified + warmup + timed + traced + profiled; }
};
// Named "timed_outputs" (the name suites switch it off by): every launch of the case, of every
// kind, met the verification rule on its sampled rows and its own inputs (verify/sampled_verdict.h
// has already applied the draw's baseline to each check's counts). `samples_per_launch` is the n
// each check drew (for the detection power in the rule). Fills `failed` with the first failing
// launches (at most 16).
TrustCheckRecord CheckLaunchOutputs(const std::vector<LaunchOutputCheck>& checks,
                                    const LaunchCounts& launches, int samples_per_launch,
                                    std::vector<TimedLaunchRecord>* failed);

// ---- check 6: the profiled launches look like the timed ones ----

// The GPU time of a profiled launch's kernels, as CUPTI measured it in the hardware-counted
// passes, may reach this many times the timed median, plus kProfiledSlackMs, before the check
// fails: counters counted in hardware (no instrumented SASS) barely slow a kernel, and the timed
// median (events around the launch) already holds the launch latency the kernel time does not. A
// launch that does more work when profiled than when timed (to pass the work check while its
// timed launches do less) is much slower. Provisional until measured on every honest kernel
// (docs/trust.md; scripts/device/trust-cost.sh prints the ratios).
inline constexpr double kProfiledSlowdownMax = 2.0;
// Absolute slack for tiny launches, whose times are a few microseconds.
inline constexpr double kProfiledSlackMs = 0.02;
// Each profiled launch's own start-to-stop event time is recorded (slowest_profiled_ms,
// slowest_ratio) but decides nothing: the events also hold CUPTI's host work per pass (starting and
// stopping the counters, the GPU waiting for an intercepted launch). Measured on an H200 (device
// call of 2026-11-28, docs/trust.md): honest kernels' passes took 2-3 ms around 0.13 ms kernels
// (16-30x), one pass of each case 6-12 ms, torch's SDPA through the Python route 21-29 ms (up to
// 89x), a 5 us kernel 1 ms (204x) -- no bound on the event time separates a recognised pass from
// CUPTI's own overhead, while the kernels' GPU time above never came near its bound.

struct ProfiledDurationInput {
  bool comparable = false;
  std::string not_comparable_reason;  // kernel replay, instrumented counters, no timing
  double kernel_ms = 0;               // CUPTI's GPU time of the launch's kernels
  std::string kernel_ms_basis = "their kernels' GPU time (CUPTI)";  // what kernel_ms measured
  std::vector<double> pass_ms;  // each profiled launch's own event time
  double timed_median_ms = 0;
};
TrustCheckRecord CheckProfiledDuration(const ProfiledDurationInput& in);

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
