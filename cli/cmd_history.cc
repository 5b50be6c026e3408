// `flashscope history add|show` (docs/history.md): reports kept over revisions in a database, an
// SQLite file or a PostgreSQL server, and the series per case with their change points.
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/history_common.h"
#include "cli/output.h"
#include "history/history_render.h"
#include "reports/file_util.h"
#include "reports/report_json.h"
#include "reports/text_safety.h"

namespace flashscope::cli {

using reports::text::TerminalSafe;

Flag DbFlag() {
  return Flag::String("db", "DB",
                      "the history: a file path (SQLite, created if missing) or a "
                      "postgresql://USER@HOST/DBNAME URL");
}
Flag PolicyFlag() {
  return Flag::String("policy", "FILE",
                      "gate policy (docs/gating.md): alpha, min_effect, allowed_slowdown and "
                      "per-kernel overrides judge the change points; default: the gate's");
}
Flag SeriesKernelsFlag() {
  return Flag::String("kernels", "GLOB", "only series whose kernel id matches (shell glob)");
}
Flag SeriesProblemsFlag() {
  return Flag::String("problems", "GLOB", "only series whose problem key matches (shell glob)");
}

int HistoryFail(const std::string& command, const std::string& message) {
  PrintError(command, message);
  return 2;
}

std::optional<history::HistoryStore> OpenHistory(const std::string& command, const Args& a) {
  auto store = history::HistoryStore::Open(a.String("db"));
  if (!store.ok()) {
    HistoryFail(command, std::string(store.status().message()));
    return std::nullopt;
  }
  return std::move(*store);
}

std::optional<reports::GatePolicy> HistoryPolicy(const std::string& command, const Args& a) {
  if (a.String("policy").empty()) return reports::GatePolicy{};
  auto p = reports::ReadGatePolicyFile(a.String("policy"));
  if (!p.ok()) {
    HistoryFail(command, std::string(p.status().message()));
    return std::nullopt;
  }
  return *p;
}

std::optional<std::vector<history::SeriesChanges>> LoadChanges(const std::string& command,
                                                               const Args& a,
                                                               history::HistoryStore& store,
                                                               const reports::GatePolicy& policy,
                                                               bool explain) {
  history::SeriesFilter filter;
  if (a.Given("kernels")) filter.kernels = a.String("kernels");
  if (a.Given("problems")) filter.problems = a.String("problems");
  auto series = store.LoadSeries(filter);
  if (!series.ok()) {
    HistoryFail(command, std::string(series.status().message()));
    return std::nullopt;
  }
  auto changes = history::FindHistoryChanges(store, std::move(*series), policy, explain);
  if (!changes.ok()) {
    HistoryFail(command, std::string(changes.status().message()));
    return std::nullopt;
  }
  return std::move(*changes);
}

namespace {

constexpr char kAdd[] = "history add";
constexpr char kShow[] = "history show";

int Add(const Args& a) {
  // Every report is read before anything is added: one bad file adds nothing.
  std::vector<reports::Report> loaded;
  for (const std::string& path : a.positional()) {
    auto r = reports::ReadReportFile(path);
    if (!r.ok()) {
      return HistoryFail(kAdd, absl::StrCat(r.status().message(), " (nothing was added)"));
    }
    if (r->cases.empty()) {
      return HistoryFail(kAdd, absl::StrCat(path,
                                            " holds no case: nothing to add (nothing was "
                                            "added)"));
    }
    loaded.push_back(std::move(*r));
  }
  std::optional<history::HistoryStore> store = OpenHistory(kAdd, a);
  if (!store) return 2;
  for (size_t i = 0; i < loaded.size(); ++i) {
    history::AddOptions options;
    options.revision = a.String("revision");
    if (a.Given("branch")) options.branch = a.String("branch");
    options.testbed = a.String("testbed");
    options.source = a.positional()[i];
    auto outcome = store->Add(loaded[i], options);
    if (!outcome.ok()) {
      return HistoryFail(kAdd, absl::StrCat(a.positional()[i], ": ", outcome.status().message()));
    }
    const std::string what = outcome->added
                                 ? absl::StrCat("added ", outcome->cases, " cases to revision ",
                                                absl::StrJoin(outcome->revisions, ", "))
                                 : "already in the history (same content): nothing to do";
    Print(absl::StrCat(TerminalSafe(a.positional()[i]), ": ", TerminalSafe(what), " [report ",
                       outcome->hash.substr(0, 12), "]\n"));
  }
  return 0;
}

int Show(const Args& a) {
  if (const std::string& out = a.String("out"); !out.empty()) {
    if (absl::Status s = reports::CheckOutputTarget(out, WriteOptionsOf(a)); !s.ok()) {
      return HistoryFail(kShow, absl::StrCat("--out ", s.message()));
    }
  }
  const std::optional<reports::GatePolicy> policy = HistoryPolicy(kShow, a);
  if (!policy) return 2;
  std::optional<history::HistoryStore> store = OpenHistory(kShow, a);
  if (!store) return 2;
  auto all = LoadChanges(kShow, a, *store, *policy, /*explain=*/true);
  if (!all) return 2;
  const std::string& format = a.String("format");
  const std::string where = store->connection().where();
  const std::string text = format == "html"  ? history::RenderHistoryHtml(*all, where)
                           : format == "csv" ? history::RenderHistoryCsv(*all)
                                             : history::RenderHistoryMarkdown(*all, where);
  if (const std::string& out = a.String("out"); !out.empty()) {
    if (absl::Status s = reports::WriteFileAtomic(out, text, WriteOptionsOf(a)); !s.ok()) {
      return HistoryFail(kShow, std::string(s.message()));
    }
    PrintError(kShow, absl::StrCat("wrote ", out));
    return 0;
  }
  Print(text);
  return 0;
}

}  // namespace

Command HistoryAddCommand() {
  Command c(kAdd, "REPORT...",
            "add run reports to a history (SQLite file or PostgreSQL URL); re-adding is a no-op", 1,
            100000, Add);
  c.details =
      "Each case of each report becomes a point of its series (kernel id, problem key, GPU\n"
      "model, testbed) at its revision: --revision, else the case's plugin version, else the\n"
      "report's flashscope git revision. Revisions are ordered by when each was first added.\n"
      "A report is keyed by the SHA-256 of its content: adding it again does nothing. Reports\n"
      "may be compressed (.json.xz/.gz/.zst). A report of another schema version is refused\n"
      "with the reason, and then nothing is added. Exit codes: 0 added (or already there),\n"
      "2 bad input (unreadable report, bad --db, server unreachable). docs/history.md.";
  c.Add(DbFlag())
      .Add(MaxInputFlag())
      .Add(Flag::String("revision", "REV",
                        "the revision every case goes to (in CI: the commit, $(git rev-parse "
                        "HEAD)); default: per case, its plugin version or flashscope revision"))
      .Add(Flag::String("branch", "B", "the branch the revision was built from (default main)"))
      .Add(Flag::String("testbed", "NAME",
                        "the machine or runner pool (default: the report's host)"));
  return c;
}

Command HistoryShowCommand() {
  Command c(kShow, "", "per series the medians over revisions, change points marked", 0, 0, Show);
  c.details =
      "One table (markdown), row set (csv) or chart (html, one self-contained page) per series\n"
      "of the history; the first revision after each change point is marked with the change,\n"
      "its p-value and the explanation from the counters of the runs either side (a\n"
      "correlation, not a proven cause). Exit codes: 0 shown, 2 bad input. docs/history.md.";
  c.Add(DbFlag())
      .Add(SeriesKernelsFlag())
      .Add(SeriesProblemsFlag())
      .Add(Flag::String("format", "F", "output format (default markdown)")
               .Choices({"markdown", "html", "csv"}))
      .Add(OutFlag("write the output to FILE (atomically) instead of standard output"))
      .Add(FileForceFlag())
      .Add(PolicyFlag());
  return c;
}

}  // namespace flashscope::cli
