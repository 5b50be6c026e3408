// `flashscope ab`: two builds of the same kernels in one session (supervisor/ab_supervisor.h),
// judged like `gate` on their interleaved samples (analysis/ab_verdict.h; docs/gating.md says why).
#include <cstdio>
#include <random>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "analysis/ab_verdict.h"
#include "analysis/gate.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/output.h"
#include "protocol/worker_process.h"
#include "reports/file_util.h"
#include "reports/json_fields.h"
#include "reports/provenance.h"
#include "reports/text_safety.h"
#include "suites/suite.h"
#include "supervisor/ab_supervisor.h"

namespace flashscope::cli {
namespace {

int Fail(const std::string& message) {
  PrintError("ab", message);
  return 2;
}

// --seed, or a fresh one (printed by the supervisor and kept in every case's timing).
bool Seed(const Args& a, uint64_t* seed) {
  if (!a.Given("seed")) {
    std::random_device device;
    *seed = (static_cast<uint64_t>(device()) << 32) ^ device();
    return true;
  }
  return absl::SimpleAtoi(a.String("seed"), seed);
}

std::string SideLine(const char* side, const reports::Report& r) {
  const std::vector<reports::PluginUse> uses = reports::PluginsOf(r);
  return absl::StrCat(side, ": ",
                      uses.empty() ? "(no case recorded its plugin)"
                                   : reports::text::TerminalSafe(
                                         reports::DescribeProvenance(uses.front().provenance)),
                      "\n");
}

// The verdict on the terminal and, with --json, in the file. Returns the exit code.
int Judge(const Args& a, const suites::AbOutcome& o, const reports::AbOptions& options) {
  const reports::AbComparison c = reports::CompareAb(o.base, o.next, options);
  const reports::AbResult r = reports::JudgeAb(c);
  const int exit_code = o.exit_code == suites::kExitCannotTest ? o.exit_code : r.ExitCode();
  if (const std::string& json = a.String("json"); !json.empty()) {
    nlohmann::json j = reports::AbVerdictJson(c, r, o.base_path, o.new_path);
    if (!o.cannot_test.empty()) {
      j["passed"] = false;
      j["exit_code"] = exit_code;
      j["cannot_test"] = o.cannot_test;
    }
    if (absl::Status s =
            reports::WriteFileAtomic(json, reports::jsonio::Dump(j, 2) + "\n", WriteOptionsOf(a));
        !s.ok()) {
      return Fail(std::string(s.message()));
    }
  }
  Print(absl::StrCat(SideLine("base", o.base), SideLine("new ", o.next)));
  Print(reports::RenderAbTerminal(c, r, UseColor(a)));
  if (!o.cannot_test.empty()) {
    Print(
        absl::StrCat("CANNOT TEST (exit 125): ", reports::text::TerminalSafe(o.cannot_test), "\n"));
  }
  Print(absl::StrCat("reports: ", o.base_path, " ", o.new_path, "\n"));
  return exit_code;
}

int Ab(const Args& a) {
  if (a.String("base").empty() || a.String("new").empty()) {
    return Fail("both --base FILE and --new FILE are needed: the two builds to compare");
  }
  auto path = suites::ResolveSuitePath(a.positional()[0], SuitesDir(a));
  if (!path.ok()) return Fail(std::string(path.status().message()));
  if (const std::string& json = a.String("json"); !json.empty()) {
    if (absl::Status s = reports::CheckOutputTarget(json, WriteOptionsOf(a)); !s.ok()) {
      return Fail(absl::StrCat("--json ", s.message()));
    }
  }
  auto worker = suites::FindWorker();
  if (!worker.ok()) return Fail(std::string(worker.status().message()));
  suites::AbArgs args;
  if (!Seed(a, &args.seed)) return Fail("--seed: expected an unsigned 64-bit integer");
  FillWorkerRunArgs(a, *path, *worker, &args);
  args.base_plugin = a.String("base");
  args.new_plugin = a.String("new");
  args.out_dir = a.String("out_dir");
  args.options = {a.Double("alpha"), a.Double("min_effect"), a.Double("allowed_slowdown")};
  const suites::AbOutcome o = suites::SuperviseAb(args);
  if (args.dry_run || o.base_path.empty() || o.exit_code >= 128) return o.exit_code;
  return Judge(a, o, args.options);
}

}  // namespace

Command AbCommand() {
  Command c("ab", "SUITE",
            "two builds of the same kernels in one session, samples interleaved: a verdict "
            "like gate's",
            1, 1, Ab);
  c.details =
      "Loads --base and --new in one worker per GPU (--devices: one pinned worker each; both\n"
      "sides of a case always run on one GPU), verifies each case of both on the same inputs\n"
      "with the trust checks of `run`, then times the two in pairs, a seeded coin deciding\n"
      "which goes first, L2 flushed before each sample, so that clock and thermal drift hit\n"
      "both alike. A case fails when slower by more than --allowed_slowdown with p < --alpha\n"
      "on the Wilcoxon signed-rank test of its per-pair log-ratios, or when the new side\n"
      "fails where the base did not.\n"
      "Writes DIR/base.json and DIR/new.json (reports like run's). Exit codes: 0 pass,\n"
      "1 regression, 2 bad input or usage, 125 cannot test (a side's plugin is missing, is not\n"
      "a plugin, has another ABI, or crashes while loading: `git bisect run` skips the commit),\n"
      "128+N stopped by signal N. docs/gating.md, \"flashscope ab\".";
  const reports::AbOptions defaults;
  c.Add(Flag::String("base", "FILE", "the plugin before the change (path or bare name)"))
      .Add(Flag::String("new", "FILE", "the plugin after the change (path or bare name)"))
      .Add(Flag::String("kernels", "GLOB", "comma list of kernel ids or globs narrowing the suite"))
      .Add(Flag::String("out_dir", "DIR",
                        "where base.json and new.json go (default reports/ab/<utc time>-<suite>)"))
      .Add(Flag::String("json", "FILE", "also write the machine-readable verdict here"))
      .Add(Flag::Double("alpha", "A", "significance level of the signed-rank test, in (0, 1)",
                        defaults.alpha)
               .Check(reports::AlphaProblem))
      .Add(Flag::Double("min_effect", "E",
                        "smallest relative change that counts, in [0, 1): 0.005 = 0.5%",
                        defaults.min_effect)
               .Check(reports::MinEffectProblem))
      .Add(Flag::Double("allowed_slowdown", "S",
                        "a slower case fails beyond this relative change: 0.005 = 0.5%",
                        defaults.allowed_slowdown)
               .Check(reports::AllowedSlowdownProblem))
      .Add(
          Flag::String("seed", "N", "the seed of the coins that order each pair (default: random)"))
      .Add(Flag::String("metrics", "SET",
                        "hardware metrics per side: basic, full, or a comma list "
                        "(`flashscope metrics`)"))
      .Add(Flag::Double("case_timeout_s", "S",
                        "kill a case that runs longer than this (a pair gets twice it; 0 = the "
                        "suite's limit)",
                        0)
               .Check(AtLeast(0)))
      .Add(DevicesFlag())
      .Add(ForceFlag("with --devices: run on GPUs of different models (refused otherwise)"))
      .Add(Flag::Bool("dry_run", "print both sides and the cases, and stop: needs no GPU"))
      .Add(SuitesDirFlag())
      .Add(MaxInputFlag())
      .Add(ColorFlag())
      .Add(Flag::Bool("quiet", "no per-case progress lines"));
  return c;
}

}  // namespace flashscope::cli
