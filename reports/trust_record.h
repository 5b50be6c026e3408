// The trust record of a case (docs/trust.md, docs/report-schema.md "trust"): part of the report
// model (report.h), free of CUDA like the rest of it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flashscope::reports {

// ---- trust checks (docs/trust.md): can the case's verdict and numbers be believed? ----

// One named value a trust check measured or used, with its unit ("TFLOP/s", "%", "bytes").
struct TrustValue {
  std::string name;
  double value = 0;
  std::string unit;
};

// One check of one case. A failed check makes the case `failed`; "off" says the check did not
// run and `rule` says why; "info" is recorded and never decides (bitwise determinism).
struct TrustCheckRecord {
  std::string check;   // "plausibility", "work", "precision", "timed_outputs", "streams",
                       // "profiled_duration" (reports before fresh inputs: "input_sets",
                       // "determinism")
  std::string status;  // "passed", "failed", "off", "info"
  std::string rule;    // the rule applied, with its numbers; or why the check is off
  std::vector<TrustValue> values;     // the evidence
  std::vector<std::string> findings;  // each violation, named ("kernel K ran on stream 17 ...")
};

// A launch whose output failed its sampled check (only failing launches are kept, at most 16).
struct TimedLaunchRecord {
  int launch = 0;                // index within its kind; timed launches count throttled ones too
  int input_set = 0;             // reports before fresh inputs: the input set it read
  bool poisoned_before = false;  // else the output still held the previous launch's result
  int64_t bad = 0;               // elements past the verification bound, NaN/Inf or never written
  int64_t never_written = 0;     // still the poison pattern
  double max_abs = 0;            // over the finite, written elements
  std::string kind = "timed";    // "verified", "warm-up", "timed", "traced", "profiled"
  int64_t rows = 0;              // rows (attention) or entries (gemm) sampled
  int64_t bad_rows = 0;          // of them, with any bad element or a bad lse
  int64_t lse_bad = 0;           // of them, with a bad log-sum-exp
  uint64_t input_seed = 0;       // the harness's seed of the inputs it read
};

// GPU work and synchronisation the traced launch caused, from CUPTI activity records; times in
// microseconds from the start event of the traced launch.
struct ActivityRecord {
  std::string kind;     // "kernel", "memcpy", "memset", "sync"
  std::string name;     // kernel name, copy direction ("HtoD"), or the synchronisation API
  int64_t stream = -1;  // CUPTI stream id; -1 for none (a device or event synchronisation)
  double start_us = 0;
  double end_us = 0;
  int64_t bytes = 0;
  bool synchronous = false;  // a copy the host waited for
};

struct TrustRecord {
  std::vector<TrustCheckRecord> checks;
  // How inputs varied: "fresh inputs for each of 23 launches (...)"; older reports: "2 input
  // set(s) (seeds 1, 2); timed launch i reads set i mod 2; ...".
  std::string input_sets;
  std::vector<TimedLaunchRecord> failed_launches;
  int64_t launch_stream = -1;            // CUPTI id of the stream the traced launch was given
  std::vector<ActivityRecord> activity;  // of the traced launch, the harness's own work removed
  double wall_s = 0;                     // host time the checks added to the case
};

}  // namespace flashscope::reports
