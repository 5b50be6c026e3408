// compare, gate and render: the commands that judge and render reports (docs/gating.md). They
// need no GPU; CI runs them on committed reports.
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "analysis/compare.h"
#include "analysis/gate.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/output.h"
#include "render/render.h"
#include "render/render_terminal.h"
#include "reports/file_util.h"
#include "reports/json_fields.h"
#include "reports/report_json.h"
#include "reports/text_safety.h"

namespace flashscope::cli {
namespace {

int Fail(const char* command, const std::string& message) {
  PrintError(command, message);
  return 2;
}

// Writes `text` to --out (atomically), or to stdout without --out. Returns the exit code.
int Emit(const char* command, const Args& a, const std::string& text) {
  const std::string& out = a.String("out");
  if (out.empty()) {
    Print(text);
    return 0;
  }
  if (absl::Status s = reports::CheckNotAnInput("--out", out, a.positional(), WriteOptionsOf(a));
      !s.ok()) {
    return Fail(command, std::string(s.message()));
  }
  if (absl::Status s = reports::WriteOutputFile(out, text, WriteOptionsOf(a)); !s.ok()) {
    return Fail(command, std::string(s.message()));
  }
  PrintError(command, absl::StrCat("wrote ", out));
  return 0;
}

struct Loaded {
  reports::Report base, next;
};

// Reads both reports and refuses what cannot be paired: an empty side, a repeated case key.
// Returns 0 or the exit code of the failure.
int LoadPair(const char* command, const std::vector<std::string>& args, Loaded* out) {
  for (int i = 0; i < 2; ++i) {
    auto r = reports::ReadReportFile(args[i]);
    if (!r.ok()) return Fail(command, std::string(r.status().message()));
    if (absl::Status s = reports::CheckGateable(*r, args[i]); !s.ok()) {
      return Fail(command, std::string(s.message()));
    }
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

// The flag's choices are the formats' names (FormatFlag), so the lookup cannot miss.
reports::Format FormatOf(const Args& a) {
  return reports::ParseFormat(a.String("format")).value_or(reports::Format::kTerminal);
}

// --alpha / --min_effect, when given, override the policy's.
void ApplyStatFlags(const Args& a, reports::GatePolicy* p) {
  if (a.Given("alpha")) p->alpha = a.Double("alpha");
  if (a.Given("min_effect")) p->min_effect = a.Double("min_effect");
}

int Compare(const Args& a) {
  const std::vector<std::string>& args = a.positional();
  Loaded in;
  if (int rc = LoadPair("compare", args, &in)) return rc;
  reports::GatePolicy defaults;
  ApplyStatFlags(a, &defaults);
  reports::Comparison c =
      reports::Compare(in.base, in.next, defaults.ToCompareOptions(a.Bool("force")));
  if (int rc = RefuseMismatch("compare", c)) return rc;
  const bool to_stdout = a.String("out").empty();
  return Emit("compare", a,
              reports::RenderComparisonAs(FormatOf(a), c, nullptr, to_stdout && UseColor(a)));
}

int Gate(const Args& a) {
  const std::vector<std::string>& args = a.positional();
  // Both outputs are checked first, so that the verdict is never written to one of them alone.
  for (const char* flag : {"json", "out"}) {
    if (const std::string& target = a.String(flag); !target.empty()) {
      if (absl::Status s = reports::CheckOutputTarget(target, WriteOptionsOf(a)); !s.ok()) {
        return Fail("gate", absl::StrCat("--", flag, " ", s.message()));
      }
      if (absl::Status s = reports::CheckNotAnInput(absl::StrCat("--", flag), target,
                                                    a.positional(), WriteOptionsOf(a));
          !s.ok()) {
        return Fail("gate", std::string(s.message()));
      }
    }
  }
  reports::GatePolicy policy;
  if (const std::string& path = a.String("policy"); !path.empty()) {
    auto p = reports::ReadGatePolicyFile(path);
    if (!p.ok()) return Fail("gate", std::string(p.status().message()));
    policy = *p;
  }
  ApplyStatFlags(a, &policy);
  Loaded in;
  if (int rc = LoadPair("gate", args, &in)) return rc;
  reports::Comparison c =
      reports::Compare(in.base, in.next, policy.ToCompareOptions(a.Bool("force")));
  if (int rc = RefuseMismatch("gate", c)) return rc;
  reports::GateResult gate = reports::ApplyGate(c, policy);

  if (const std::string& json = a.String("json"); !json.empty()) {
    const std::string text =
        reports::jsonio::Dump(reports::GateVerdictJson(c, gate, policy, args[0], args[1]), 2) +
        "\n";
    if (absl::Status s = reports::WriteFileAtomic(json, text, WriteOptionsOf(a)); !s.ok()) {
      return Fail("gate", std::string(s.message()));
    }
  }
  const bool color = UseColor(a);
  const std::string summary = reports::RenderGateTerminal(gate, color);
  if (FormatOf(a) == reports::Format::kTerminal && a.String("out").empty()) {
    // The CI log: what was compared, the verdict counts, then the gate's decision.
    using reports::text::TerminalSafe;
    Print(absl::StrCat("flashscope gate: ", TerminalSafe(args[0]), " vs ", TerminalSafe(args[1]),
                       "\n", reports::RenderGateLog(c, gate, color)));
    return gate.ExitCode();
  }
  if (int rc = Emit("gate", a, reports::RenderComparisonAs(FormatOf(a), c, &gate, false))) {
    return rc;
  }
  // The decision always reaches the log: on stderr when stdout carries the rendering.
  if (a.String("out").empty()) {
    std::fputs(summary.c_str(), stderr);
  } else {
    Print(summary);
  }
  return gate.ExitCode();
}

int Render(const Args& a) {
  const std::string& format = a.String("format");
  auto report = reports::ReadReportFile(a.positional()[0]);
  if (!report.ok()) return Fail("render", std::string(report.status().message()));
  std::string text;
  if (std::optional<reports::Format> f = reports::ParseFormat(format)) {
    text = reports::RenderReportAs(*f, *report, a.String("out").empty() && UseColor(a));
  } else {  // "baseline", the one format that is a report again
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
  return Emit("render", a, text);
}

}  // namespace

namespace {

// What compare and gate share: the test's thresholds, --force, the rendering and where it goes.
void AddComparisonFlags(Command* c, const std::string& out_help) {
  c->Add(AlphaFlag())
      .Add(MinEffectFlag())
      .Add(ForceFlag(c->name + " reports of different GPUs or drivers (every output says so)"))
      .Add(FormatFlag(/*with_baseline=*/false))
      .Add(OutFlag(out_help))
      .Add(MaxInputFlag())
      .Add(ColorFlag());
}

}  // namespace

Command CompareCommand() {
  Command c("compare", "BASE NEW",
            "median deltas, Mann-Whitney U on raw samples, a verdict per case", 2, 2, Compare);
  c.details = absl::StrCat("A report ", kReportInput, "; ", kCompressedOut, ".");
  AddComparisonFlags(&c, "write the rendering here (atomically) instead of stdout");
  return c;
}

Command GateCommand() {
  Command c("gate", "BASE NEW", "compare + policy: exit 0 pass, 1 regression, 2 bad input or usage",
            2, 2, Gate);
  c.details =
      absl::StrCat("The rules and the policy file: docs/gating.md. A report ", kReportInput, ".");
  c.Add(Flag::String("policy", "FILE", "gate policy JSON (docs/gating.md); default: built-in"))
      .Add(Flag::String("json", "FILE", "also write the machine-readable verdict here"));
  AddComparisonFlags(&c, "write the rendering here (atomically); the verdict still goes to stdout");
  return c;
}

Command RenderCommand() {
  Command c("render", "REPORT",
            "one report as markdown, JUnit XML, CSV, HTML, a terminal table, or a baseline", 1, 1,
            Render);
  c.details = absl::StrCat(
      "--format baseline writes the report without heatmaps, to commit under "
      "results/baselines/.\nREPORT ",
      kReportInput, "; ", kCompressedOut, ".");
  c.Add(FormatFlag(/*with_baseline=*/true))
      .Add(OutFlag("write here (atomically) instead of stdout"))
      .Add(FileForceFlag())
      .Add(MaxInputFlag())
      .Add(ColorFlag());
  return c;
}

}  // namespace flashscope::cli
