#include "cli/common_flags.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "analysis/gate.h"
#include "common/install_layout.h"
#include "protocol/worker_process.h"
#include "render/render_terminal.h"
#include "reports/input_file.h"

namespace flashscope::cli {

Flag ColorFlag() {
  return Flag::String("color", "WHEN",
                      "colour the output: auto colours a terminal unless NO_COLOR is set or "
                      "TERM=dumb; always for CI logs")
      .Choices({"auto", "always", "never"})
      .ImplicitValue("always")
      .Alias("true", "auto")
      .Alias("yes", "auto")
      .Alias("1", "auto")
      .Alias("false", "never")
      .Alias("no", "never")
      .Alias("0", "never");
}

Flag OutFlag(std::string help) { return Flag::String("out", "FILE", std::move(help)); }

namespace {
constexpr char kFileForce[] =
    "lets --out/--json replace a read-only file, one with other hard links or an input of the "
    "command, or write through a symlink or into a FIFO or device";
}  // namespace

Flag ForceFlag(std::string help) {
  return Flag::Bool("force", absl::StrCat(help, "; also ", kFileForce));
}

Flag FileForceFlag() { return Flag::Bool("force", kFileForce); }

reports::WriteOptions WriteOptionsOf(const Args& args) {
  reports::WriteOptions o;
  o.force = args.Bool("force");
  return o;
}

Flag FormatFlag(bool with_baseline) {
  std::vector<std::string> formats = {"terminal", "markdown", "junit", "csv", "html"};
  if (with_baseline) formats.push_back("baseline");
  return Flag::String("format", "F", "output format").Choices(formats);
}

namespace {

// A threshold of the gate policy as a flag: the built-in policy's value as its default and the
// policy's own check (gate applies it over the policy file's).
Flag PolicyThresholdFlag(const char* name, const char* meta, const std::string& meaning,
                         double reports::GatePolicy::*threshold, std::string (*check)(double)) {
  return Flag::Double(name, meta, meaning + " (gate: overrides the policy's)",
                      reports::GatePolicy{}.*threshold)
      .Check(check);
}

}  // namespace

Flag AlphaFlag() {
  return PolicyThresholdFlag("alpha", "A",
                             "significance level of the Mann-Whitney U test, in (0, 1)",
                             &reports::GatePolicy::alpha, reports::AlphaProblem);
}

Flag MinEffectFlag() {
  return PolicyThresholdFlag("min_effect", "E",
                             "smallest relative median change that counts, in [0, 1): 0.02 = 2%",
                             &reports::GatePolicy::min_effect, reports::MinEffectProblem);
}

Flag SuitesDirFlag() {
  return Flag::String(
      "suites_dir", "DIR",
      "where suite files live (default ./suites, else the suites installed with flashscope)");
}

Flag DevicesFlag() {
  return Flag::String("devices", "LIST",
                      "run on these GPUs, one worker pinned to each, cases handed out as GPUs "
                      "free up: 'all' or indices like 0,2,3 (docs/devices.md; default: CUDA's "
                      "device 0)");
}

Flag MaxInputFlag() {
  return Flag::Int("max_input_mb", "N",
                   "refuse an input file (report, journal, policy, suite) larger than N MiB once "
                   "decompressed; 0 = no cap",
                   static_cast<int>(reports::kDefaultMaxInputBytes >> 20))
      .Check(AtLeast(0));
}

bool UseColor(const Args& args) {
  const std::string& when = args.String("color");
  if (when == "always") return true;
  if (when == "never") return false;
  return reports::UseColorByDefault();
}

std::string SuitesDir(const Args& args) {
  const std::string& flag = args.String("suites_dir");
  if (!flag.empty()) return flag;
  if (std::filesystem::is_directory("suites")) return "suites";
  return InstalledDataDir(suites::ThisProgram()) + "/suites";  // <prefix>/share/flashscope/suites
}

void FillWorkerRunArgs(const Args& args, const std::string& suite_path,
                       const std::string& worker_exe, suites::WorkerRunArgs* out) {
  out->suite_path = suite_path;
  out->kernels_filter = args.String("kernels");
  out->metrics = args.String("metrics");
  out->case_timeout_s = args.Double("case_timeout_s");
  out->devices = args.String("devices");
  out->force = args.Bool("force");
  out->worker_exe = worker_exe;
  out->command_line = args.command_line();
  out->quiet = args.Bool("quiet");
  out->dry_run = args.Bool("dry_run");
}

}  // namespace flashscope::cli
