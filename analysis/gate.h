// The CI gate: a comparison (analysis/compare.h) judged by a policy -> pass or regression, with
// every failure named. The policy is a standalone JSON file (docs/gating.md); defaults apply
// without one. Exit codes of `flashscope gate`: 0 pass, 1 regression, 2 bad input or usage.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "analysis/compare.h"

namespace flashscope::reports {

inline constexpr char kGatePolicySchemaName[] = "flashscope.gate_policy";
inline constexpr char kGateVerdictSchemaName[] = "flashscope.gate_verdict";
inline constexpr int kGateVerdictSchemaVersion = 1;

// Settings for the kernels whose id matches `kernels` (a shell glob); the first matching
// override wins, unset fields fall back to the policy's.
struct KernelOverride {
  std::string kernels;
  std::optional<double> allowed_slowdown;
  std::optional<bool> verification_required;
  bool ignore = false;  // not gated at all (listed as ignored in every output)
};

// A hardware metric that must reach `min` in the new report, for passed cases of the kernels
// matching `kernels` (e.g. a tensor-core rung must keep the tensor pipe busy).
struct MetricFloor {
  std::string kernels = "*";
  std::string metric;  // friendly name ("tensor_pipe_pct") or hardware name
  double min = 0;
  bool fail_when_missing = true;  // metric not measured (run without --metrics): a failure
};

struct GatePolicy {
  std::string source = "built-in defaults";  // the policy file, for outputs
  double alpha = 0.01;
  double min_effect = 0.02;
  // A significant slowdown larger than this fails (0.02 = 2 %); below min_effect nothing is
  // "slower", so the effective threshold is max(allowed_slowdown, min_effect).
  double allowed_slowdown = 0.02;
  // Every case of the new report that is not skipped must have passed verification.
  // Independently of this, passed -> anything else is always a regression.
  bool verification_required = true;
  bool fail_on_missing = true;     // a case of the base report absent from the new one fails
  bool fail_on_ambiguous = false;  // an ambiguous slowdown beyond allowed_slowdown fails
  // Pairs with fewer raw samples on a side are judged by effect when the test does not confirm
  // a change (CompareOptions::min_samples): median and fastest sample both beyond the allowance.
  int min_samples = 10;
  // Case keys ("KERNEL PROBLEM", shell globs) that may pass without being judged: passed on both
  // sides but with no usable timing on one. Any other such pair fails ("not_judged").
  std::vector<std::string> allow_not_judged;
  std::vector<KernelOverride> overrides;
  std::vector<MetricFloor> metric_floors;

  CompareOptions ToCompareOptions(bool forced) const {
    return {alpha, min_effect, forced, min_samples};
  }
};

// The ranges of the gate's numbers, one rule for the policy file and the command line: "" when
// `v` is fine, else what is wrong ("out of range (0, 1)"). NaN and infinities are never fine.
std::string AlphaProblem(double v);            // (0, 1): a significance level
std::string MinEffectProblem(double v);        // [0, 1): a relative change, 0.02 = 2 %
std::string AllowedSlowdownProblem(double v);  // [0, 100]
std::string MinSamplesProblem(double v);       // an integer in [1, 100000]

// Strict: unknown keys and wrong types are errors naming the JSON path (a typo must never become
// a silent default). `path` is for messages.
absl::StatusOr<GatePolicy> GatePolicyFromJson(const nlohmann::json& j, const std::string& path);
absl::StatusOr<GatePolicy> ReadGatePolicyFile(const std::string& path);

// A report the gate can judge: at least one case, and each case key once (a report holding a
// case twice would let the first copy speak for a second, failed one). The error names `path`.
absl::Status CheckGateable(const Report& report, const std::string& path);

// Why a case fails the gate. `rule` is one of: "correctness" (passed -> not passed),
// "verification" (not passed in the new report while verification is required), "slowdown",
// "ambiguous", "not_judged" (passed on both sides, no usable timing on one), "metric_floor",
// "missing" (in base only).
struct GateFailure {
  std::string key;
  std::string rule;
  std::string message;
};

struct GateResult {
  bool passed = true;
  std::vector<GateFailure> failures;
  std::vector<std::string> ignored;  // keys not gated (policy overrides with "ignore")
  int cases_gated = 0;
  int not_judged = 0;          // pairs passed on both sides without a usable timing on one
  int not_judged_allowed = 0;  // of those, the ones the policy allows by name
  int ambiguous_passed = 0;    // ambiguous beyond the allowance, passed (fail_on_ambiguous off)
  std::string policy_source;
  std::string forced_banner;  // Comparison::ForcedBanner(), repeated on every output
  int ExitCode() const { return passed ? 0 : 1; }
};

GateResult ApplyGate(const Comparison& comparison, const GatePolicy& policy);

// The machine-readable verdict (`flashscope gate --json FILE`, schema in docs/gating.md).
nlohmann::json GateVerdictJson(const Comparison& comparison, const GateResult& gate,
                               const GatePolicy& policy, const std::string& base_path,
                               const std::string& next_path);

}  // namespace flashscope::reports
