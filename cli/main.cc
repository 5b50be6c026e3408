// flashscope: verify, time and profile GPU kernels; compare and show the reports.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"

ABSL_FLAG(std::string, kernels, "", "run: comma list of kernel ids or globs narrowing the suite");
ABSL_FLAG(std::string, out, "",
          "run: report path (default reports/runs/<utc time>-<suite>.json); compare/gate/render: "
          "output file (default stdout)");
ABSL_FLAG(std::string, dump, "",
          "run: write output, reference and inputs of every verified case as .npy under DIR");
ABSL_FLAG(std::string, metrics, "",
          "run: hardware metrics to collect: basic, full, or a comma list (`flashscope metrics`)");
ABSL_FLAG(std::string, resume, "", "run: continue the interrupted run of this journal file");
ABSL_FLAG(double, case_timeout_s, 0,
          "run: kill a case that runs longer than this many seconds (0 = the suite's limit)");
ABSL_FLAG(double, deadline_s, 0,
          "run: stop after this many seconds, keeping the journal for --resume (0 = no limit)");
ABSL_FLAG(std::string, sanitize, "",
          "run: afterwards rerun each case under compute-sanitizer --tool TOOL (memcheck, "
          "racecheck, initcheck, synccheck; --sanitize alone = memcheck) and record its findings");
ABSL_FLAG(std::string, shard, "",
          "run: only shard K/N of the plan (e.g. 2/4), for splitting a suite over CI jobs; join "
          "the reports with `flashscope merge`");
ABSL_FLAG(std::string, suites_dir, "", "where suite files live (default ./suites)");
ABSL_FLAG(bool, color, true, "colour terminal output when stdout is a terminal");
ABSL_FLAG(bool, quiet, false, "run: no per-case progress lines");
ABSL_FLAG(bool, all, false, "list: also the test-only (deliberately faulty) kernels");
ABSL_FLAG(int, cc, 0, "metrics: compute capability x10 to show (default: the GPU's, else 90)");
ABSL_FLAG(double, alpha, 0,
          "compare/gate: significance level of the Mann-Whitney U test (default: the policy's, "
          "else 0.01)");
ABSL_FLAG(double, min_effect, -1,
          "compare/gate: smallest relative median change that counts, 0.02 = 2% (default: the "
          "policy's, else 0.02)");
ABSL_FLAG(bool, force, false,
          "compare/gate/merge: use reports from different GPUs or drivers (every output says so)");
ABSL_FLAG(std::string, format, "terminal",
          "compare/gate/render: terminal, markdown, junit, csv, html (render also: baseline)");
ABSL_FLAG(std::string, policy, "", "gate: policy JSON file (docs/gating.md)");
ABSL_FLAG(std::string, json, "", "gate: also write the machine-readable verdict to this file");

namespace {

constexpr const char* kUsage = R"(flashscope: verify, time and profile GPU kernels.

usage:
  flashscope list [--all] [--plugin FILE]...   kernels (with what they support) and suites
  flashscope run SUITE [--plugin FILE]... [--kernels GLOB] [--out FILE] [--dump DIR]
                       [--metrics SET] [--resume JOURNAL] [--case_timeout_s N] [--deadline_s N]
                       [--sanitize[=memcheck|racecheck|initcheck|synccheck]]
                       [--shard K/N] [--dry_run]
                                               run a suite (a name in suites/ or a path)
  flashscope merge --out FILE REPORT... [--force]
                                               join the reports of shards (run --shard K/N)
  flashscope show REPORT                       summary and case table of a report or journal
  flashscope compare BASE NEW [--alpha A] [--min_effect E] [--force] [--format F] [--out FILE]
                                               median deltas, Mann-Whitney U, verdict per case
  flashscope gate BASE NEW [--policy FILE] [--json FILE] [--force] [--format F] [--out FILE]
                                               compare + policy: exit 0 pass, 1 regression
  flashscope render REPORT --format markdown|junit|csv|html|baseline [--out FILE]
  flashscope metrics [--cc 90]                 the hardware-metric catalogue

exit codes: 0 success; 1 a case failed, errored or timed out (run), or a regression (gate);
2 bad input or usage.
plugins: --plugin FILE (repeatable), a suite's "plugins", or FLASHSCOPE_PLUGINS (docs/plugins.md).
docs: README.md, docs/suites.md, docs/plugins.md, docs/report-schema.md, docs/gating.md)";

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(kUsage);
  // `--sanitize` alone means memcheck; Abseil's string flags need a value, so supply it.
  static char kSanitizeDefault[] = "--sanitize=memcheck";
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--sanitize" || std::string(argv[i]) == "-sanitize") {
      argv[i] = kSanitizeDefault;
    }
  }
  flashscope::cli::TakePluginFlags(&argc, argv);
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  std::vector<std::string> args(positional.begin() + 1, positional.end());
  if (args.empty() || args[0] == "help") {
    std::printf("%s\n", kUsage);
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  std::vector<std::string> all(argv, argv + argc);
  if (command == "list") return flashscope::cli::CmdList(args);
  if (command == "run") return flashscope::cli::CmdRun(args, absl::StrJoin(all, " "));
  if (command == "merge") return flashscope::cli::CmdMerge(args);
  if (command == "show") return flashscope::cli::CmdShow(args);
  if (command == "compare") return flashscope::cli::CmdCompare(args);
  if (command == "gate") return flashscope::cli::CmdGate(args);
  if (command == "render") return flashscope::cli::CmdRender(args);
  if (command == "metrics") return flashscope::cli::CmdMetrics(args);
  std::fprintf(stderr, "flashscope: unknown command '%s'\n\n%s\n", command.c_str(), kUsage);
  return 2;
}
