// A suite file: which kernels, over which problems (grids of named axes), with which inputs,
// timing and verification policy. The format is documented in docs/suites.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/problem.h"
#include "common/timing_policy.h"

namespace flashscope::suites {

// The suite's "timing" object: the one timing policy (common/timing_policy.h), its defaults
// included; throttle_ratio is not read from the suite file.
using TimingSpec = ::flashscope::TimingPolicy;

struct VerifySpec {
  std::string reference = "fp32";  // "fp32" | "fp64"
  // Which cases carry error heatmaps in the report: "failed" (at up to 256 x 256), "all" (passing
  // cases too, at up to heatmap_side x heatmap_side, to keep reports small) or "none".
  std::string heatmaps = "failed";
  int heatmap_side = 16;
  // Overrides of the family/dtype defaults (verify/tolerance.h); unset keeps the default.
  std::optional<double> atol;
  std::optional<double> rtol;
  std::optional<double> baseline_factor;
  std::optional<double> floor;
};

// The trust checks (docs/trust.md): all on unless switched off here.
struct TrustSpec {
  std::vector<std::string> off;  // checks switched off, from SwitchableTrustChecks()
};

// The checks a suite may switch off: "plausibility", "work" (with "precision"), "timed_outputs",
// "streams".
const std::vector<std::string>& SwitchableTrustChecks();

struct Suite {
  std::string name;
  std::string path;
  std::string description;
  std::vector<std::string> kernel_patterns;  // ids or globs ("attn.*")
  // Plugin files the kernels come from: paths made relative to the suite's folder already, or
  // bare names (looked up as suites/plugin_paths.h says).
  std::vector<std::string> plugins;
  std::vector<Problem> problems;  // the expanded grid, in file order
  std::string input_kind = "normal";
  uint64_t seed = 20261122;
  TimingSpec timing;
  VerifySpec verify;
  TrustSpec trust;
  std::string metrics;          // "" (none), "basic", "full" or a comma list; --metrics overrides
  double case_timeout_s = 300;  // the watchdog's limit for one case, all phases
};

// Parses suite text; `path` names the file in every error message. Errors name the JSON path of
// the bad entry and what was expected ("suite.problems[1].axes.dtype[0]: unknown dtype 'fp6'
// (expected one of fp16, bf16, e4m3, fp32)").
absl::StatusOr<Suite> ParseSuite(const std::string& text, const std::string& path);
// The suite in the file at `path`, read once; `as_stored`, when given, receives the file's bytes
// of that read (reports::ReadInputFile), which the plan's SHA-256 is of.
absl::StatusOr<Suite> LoadSuiteFile(const std::string& path, std::string* as_stored = nullptr);
// How many suites this process has parsed (ParseSuite calls). Each process that runs a suite
// parses it once (docs/architecture.md, "What is read and built once"); tests hold it to that.
uint64_t SuitesParsed();

// A suite argument is a path to a file or the name of a file in `suites_dir` ("smoke" ->
// suites_dir/smoke.json). NotFound lists the suites that exist.
absl::StatusOr<std::string> ResolveSuitePath(const std::string& name_or_path,
                                             const std::string& suites_dir);
// The *.json files in `suites_dir`, sorted.
std::vector<std::string> ListSuiteFiles(const std::string& suites_dir);

}  // namespace flashscope::suites
