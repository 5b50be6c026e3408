// compare, gate and render: the commands that judge and render reports (docs/gating.md). They
// need no GPU; CI runs them on committed reports.
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "reports/compare.h"
#include "reports/file_util.h"
#include "reports/gate.h"
#include "reports/render_csv.h"
#include "reports/render_html.h"
#include "reports/render_junit.h"
#include "reports/render_markdown.h"
#include "reports/render_terminal.h"
#include "reports/report_json.h"

namespace flashscope::cli {
namespace {

bool UseColor() { return absl::GetFlag(FLAGS_color) && reports::StdoutIsTty(); }

int Fail(const char* command, const std::string& message) {
  std::fprintf(stderr, "flashscope %s: %s\n", command, message.c_str());
  return 2;
}

bool KnownFormat(const std::string& f, bool allow_baseline) {
  return f == "terminal" || f == "markdown" || f == "junit" || f == "csv" || f == "html" ||
         (allow_baseline && f == "baseline");
}

// Writes `text` to --out (atomically), or to stdout without --out. Returns the exit code.
int Emit(const char* command, const std::string& text) {
  const std::string out = absl::GetFlag(FLAGS_out);
  if (out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  if (absl::Status s = reports::WriteFileAtomic(out, text); !s.ok()) {
    return Fail(command, std::string(s.message()));
  }
  std::fprintf(stderr, "flashscope %s: wrote %s\n", command, out.c_str());
  return 0;
}

struct Loaded {
  reports::Report base, next;
};

// Reads both reports. Returns 0 or the exit code of the failure.
int LoadPair(const char* command, const std::vector<std::string>& args, Loaded* out) {
  for (int i = 0; i < 2; ++i) {
    auto r = reports::ReadReportFile(args[i]);
    if (!r.ok()) return Fail(command, std::string(r.status().message()));
    (i == 0 ? out->base : out->next) = std::move(*r);
  }
  return 0;
}

int RefuseMismatch(const char* command, const reports::Comparison& c) {
  if (!c.EnvironmentMismatch() || c.forced) return 0;
  return Fail(command,
              absl::StrCat("the reports come from different environments (", c.environment_note,
                           "): timings are not comparable. Compare runs of the same GPU and "
                           "driver, or pass --force to compare anyway (every output then says "
                           "so)."));
}

std::string RenderComparisonAs(const std::string& format, const reports::Comparison& c,
                               const reports::GateResult* gate, bool color) {
  if (format == "markdown") return reports::RenderComparisonMarkdown(c, gate);
  if (format == "junit") return reports::RenderComparisonJunit(c, gate);
  if (format == "csv") return reports::RenderComparisonCsv(c, gate);
  if (format == "html") return reports::RenderComparisonHtml(c, gate);
  std::string text = reports::RenderComparison(c, color);
  if (gate != nullptr) text += "\n" + reports::RenderGateTerminal(*gate, color);
  return text;
}

// --alpha / --min_effect override the policy's (their defaults mean "not given").
void ApplyStatFlags(reports::GatePolicy* p) {
  if (absl::GetFlag(FLAGS_alpha) > 0) p->alpha = absl::GetFlag(FLAGS_alpha);
  if (absl::GetFlag(FLAGS_min_effect) >= 0) p->min_effect = absl::GetFlag(FLAGS_min_effect);
}

}  // namespace

int CmdCompare(const std::vector<std::string>& args) {
  const std::string format = absl::GetFlag(FLAGS_format);
  if (args.size() != 2 || !KnownFormat(format, false)) {
    std::fprintf(stderr,
                 "usage: flashscope compare BASE NEW [--alpha 0.01] [--min_effect 0.02] [--force]"
                 " [--format terminal|markdown|junit|csv|html] [--out FILE]\n");
    return 2;
  }
  if (absl::GetFlag(FLAGS_alpha) >= 1) return Fail("compare", "--alpha must be in (0, 1)");
  Loaded in;
  if (int rc = LoadPair("compare", args, &in)) return rc;
  reports::GatePolicy defaults;
  ApplyStatFlags(&defaults);
  reports::Comparison c =
      reports::Compare(in.base, in.next, defaults.ToCompareOptions(absl::GetFlag(FLAGS_force)));
  if (int rc = RefuseMismatch("compare", c)) return rc;
  const bool to_stdout = absl::GetFlag(FLAGS_out).empty();
  return Emit("compare", RenderComparisonAs(format, c, nullptr, to_stdout && UseColor()));
}

int CmdGate(const std::vector<std::string>& args) {
  const std::string format = absl::GetFlag(FLAGS_format);
  if (args.size() != 2 || !KnownFormat(format, false)) {
    std::fprintf(stderr,
                 "usage: flashscope gate BASE NEW [--policy FILE] [--json FILE] [--force]"
                 " [--alpha A] [--min_effect E] [--format terminal|markdown|junit|csv|html]"
                 " [--out FILE]\nexit: 0 pass, 1 regression, 2 bad input or usage\n");
    return 2;
  }
  reports::GatePolicy policy;
  if (const std::string path = absl::GetFlag(FLAGS_policy); !path.empty()) {
    auto p = reports::ReadGatePolicyFile(path);
    if (!p.ok()) return Fail("gate", std::string(p.status().message()));
    policy = *p;
  }
  ApplyStatFlags(&policy);
  Loaded in;
  if (int rc = LoadPair("gate", args, &in)) return rc;
  reports::Comparison c =
      reports::Compare(in.base, in.next, policy.ToCompareOptions(absl::GetFlag(FLAGS_force)));
  if (int rc = RefuseMismatch("gate", c)) return rc;
  reports::GateResult gate = reports::ApplyGate(c, policy);

  if (const std::string json = absl::GetFlag(FLAGS_json); !json.empty()) {
    const std::string text =
        reports::GateVerdictJson(c, gate, policy, args[0], args[1]).dump(2) + "\n";
    if (absl::Status s = reports::WriteFileAtomic(json, text); !s.ok()) {
      return Fail("gate", std::string(s.message()));
    }
  }
  const bool color = UseColor();
  const std::string summary = reports::RenderGateTerminal(gate, color);
  if (format == "terminal" && absl::GetFlag(FLAGS_out).empty()) {
    // The CI log: what was compared, the verdict counts, then the gate's decision.
    std::printf("flashscope gate: %s vs %s\n", args[0].c_str(), args[1].c_str());
    if (!c.environment_note.empty() && !c.forced) {
      std::printf("environment differs: %s\n", c.environment_note.c_str());
    }
    std::printf(
        "%d pairs: %d slower, %d faster, %d same, %d ambiguous, %d not timed; %zu only in "
        "base, %zu only in next\n%s",
        static_cast<int>(c.paired.size()), c.CountVerdict(reports::Verdict::kSlower),
        c.CountVerdict(reports::Verdict::kFaster), c.CountVerdict(reports::Verdict::kSame),
        c.CountVerdict(reports::Verdict::kAmbiguous), c.CountVerdict(reports::Verdict::kNotTimed),
        c.only_base.size(), c.only_next.size(), summary.c_str());
    return gate.ExitCode();
  }
  if (int rc = Emit("gate", RenderComparisonAs(format, c, &gate, false))) return rc;
  // The decision always reaches the log: on stderr when stdout carries the rendering.
  std::fputs(summary.c_str(), absl::GetFlag(FLAGS_out).empty() ? stderr : stdout);
  return gate.ExitCode();
}

int CmdRender(const std::vector<std::string>& args) {
  const std::string format = absl::GetFlag(FLAGS_format);
  if (args.size() != 1 || !KnownFormat(format, true)) {
    std::fprintf(stderr,
                 "usage: flashscope render REPORT --format markdown|junit|csv|html|terminal|"
                 "baseline [--out FILE]\n(baseline: the report without heatmaps, to commit "
                 "under reports/baselines/)\n");
    return 2;
  }
  auto report = reports::ReadReportFile(args[0]);
  if (!report.ok()) return Fail("render", std::string(report.status().message()));
  std::string text;
  if (format == "markdown") text = reports::RenderReportMarkdown(*report);
  if (format == "junit") text = reports::RenderReportJunit(*report);
  if (format == "csv") text = reports::RenderReportCsv(*report);
  if (format == "html") text = reports::RenderReportHtml(*report);
  if (format == "terminal") {
    const bool color = absl::GetFlag(FLAGS_out).empty() && UseColor();
    text = reports::RenderSummary(*report, color) + "\n" + reports::RenderCaseTable(*report, color);
  }
  if (format == "baseline") {
    // Heatmaps are most of a report's bytes and play no part in a gate; timings, samples,
    // statuses, verification numbers and metrics stay.
    for (reports::CaseResult& c : report->cases) {
      if (c.verification) {
        c.verification->heatmaps.clear();
        c.verification->dump_dir.clear();
      }
    }
    text = reports::ReportToText(*report);
  }
  return Emit("render", text);
}

}  // namespace flashscope::cli
