// `flashscope history changes|bisect-range` (docs/history.md, docs/ci.md): the change points of
// the history, failing CI on a slowdown beyond the policy's allowance after --since, and the
// `git bisect` + `flashscope ab` script for one of them.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/history_common.h"
#include "cli/output.h"
#include "history/history_render.h"
#include "reports/file_util.h"
#include "reports/json_fields.h"
#include "reports/text_safety.h"

namespace flashscope::cli {
namespace {

constexpr char kChanges[] = "history changes";
constexpr char kBisect[] = "history bisect-range";

// --since REV as an index into the revisions; -1 without it; -2 (after printing why) when the
// history has no such revision.
int SinceIndex(const std::string& command, const Args& a, history::HistoryStore& store,
               std::vector<std::string>* revisions) {
  auto r = store.Revisions();
  if (!r.ok()) {
    HistoryFail(command, std::string(r.status().message()));
    return -2;
  }
  *revisions = std::move(*r);
  if (!a.Given("since")) return -1;
  const int index = history::RevisionIndex(*revisions, a.String("since"));
  if (index < 0) {
    HistoryFail(command, absl::StrCat("--since ", a.String("since"),
                                      ": no such revision in the history (", revisions->size(),
                                      " revisions; `flashscope history show` lists "
                                      "them)"));
    return -2;
  }
  return index;
}

int Changes(const Args& a) {
  if (const std::string& json = a.String("json"); !json.empty()) {
    if (absl::Status s = reports::CheckOutputTarget(json, WriteOptionsOf(a)); !s.ok()) {
      return HistoryFail(kChanges, absl::StrCat("--json ", s.message()));
    }
  }
  const std::optional<reports::GatePolicy> policy = HistoryPolicy(kChanges, a);
  if (!policy) return 2;
  std::optional<history::HistoryStore> store = OpenHistory(kChanges, a);
  if (!store) return 2;
  std::vector<std::string> revisions;
  const int since = SinceIndex(kChanges, a, *store, &revisions);
  if (since == -2) return 2;
  auto all = LoadChanges(kChanges, a, *store, *policy, /*explain=*/true);
  if (!all) return 2;
  const nlohmann::json j =
      history::ChangesJson(*all, revisions, since, store->connection().where(), a.String("since"));
  if (const std::string& json = a.String("json"); !json.empty()) {
    if (absl::Status s =
            reports::WriteFileAtomic(json, reports::jsonio::Dump(j, 2) + "\n", WriteOptionsOf(a));
        !s.ok()) {
      return HistoryFail(kChanges, std::string(s.message()));
    }
  }
  Print(history::RenderChangesText(*all, revisions, since));
  return j["exit_code"].get<int>();
}

int BisectRange(const Args& a) {
  if (a.String("suite").empty() || a.String("plugin").empty()) {
    return HistoryFail(kBisect,
                       "--suite SUITE and --plugin FILE are needed: each bisection step builds "
                       "the plugin (--build) and runs `flashscope ab SUITE` against the good "
                       "build");
  }
  const std::optional<reports::GatePolicy> policy = HistoryPolicy(kBisect, a);
  if (!policy) return 2;
  std::optional<history::HistoryStore> store = OpenHistory(kBisect, a);
  if (!store) return 2;
  auto all = LoadChanges(kBisect, a, *store, *policy, /*explain=*/true);
  if (!all) return 2;
  history::BisectOptions options;
  options.suite = a.String("suite");
  options.plugin = a.String("plugin");
  options.build = a.Given("build") ? a.String("build")
                                   : "cmake -S . -B build-bisect -G Ninja && cmake --build "
                                     "build-bisect";
  if (a.Given("flashscope")) options.flashscope = a.String("flashscope");
  std::vector<const history::HistoryChange*> picked;
  for (const history::SeriesChanges& s : *all) {
    for (const history::HistoryChange& h : s.changes) {
      if (a.Given("revision") ? h.revision == a.String("revision") : h.point.change > 0) {
        picked.push_back(&h);
      }
    }
  }
  if (picked.empty()) {
    PrintError(kBisect, a.Given("revision")
                            ? absl::StrCat("no change point at revision ", a.String("revision"),
                                           " in the series chosen")
                            : "no slowdown among the change points of the series chosen");
    return 1;
  }
  if (picked.size() > 1) {
    std::string list;
    for (const history::HistoryChange* h : picked) {
      absl::StrAppend(&list, "\n  ", reports::text::TerminalSafe(h->key.Name()), ": ",
                      reports::text::TerminalSafe(h->previous_revision), " -> ",
                      reports::text::TerminalSafe(h->revision));
    }
    return HistoryFail(kBisect, absl::StrCat(picked.size(),
                                             " change points match; narrow with "
                                             "--kernels, --problems or --revision:",
                                             list));
  }
  Print(history::BisectScript(*picked[0], options));
  return 0;
}

int HistoryGroup(const Args&) {
  PrintError("history",
             "which one? flashscope history add|show|changes|bisect-range (`flashscope history "
             "--help`)");
  return 2;
}

}  // namespace

Command HistoryChangesCommand() {
  Command c(kChanges, "", "every change point; exit 1 on a slowdown beyond the allowance", 0, 0,
            Changes);
  c.details =
      "Per series, change points of the per-revision medians (PELT), each confirmed by a\n"
      "Mann-Whitney test on the raw samples of the segments either side and the policy's\n"
      "minimum effect, named by the last revision before and the first after, with its change\n"
      "and an explanation from the counters and resources of the two runs (correlation, not\n"
      "cause). Exit codes: 1 when a slowdown beyond the policy's allowance (max of\n"
      "allowed_slowdown and min_effect, per-kernel overrides included) is found after --since,\n"
      "0 otherwise, 2 bad input. --json schema: docs/history.md.";
  c.Add(DbFlag())
      .Add(Flag::String("since", "REV",
                        "only change points whose first revision after comes later than REV "
                        "(CI: the last revision the main branch had)"))
      .Add(Flag::String("json", "OUT", "write every change point as JSON (docs/history.md)"))
      .Add(FileForceFlag())
      .Add(SeriesKernelsFlag())
      .Add(SeriesProblemsFlag())
      .Add(PolicyFlag());
  return c;
}

Command HistoryBisectCommand() {
  Command c(kBisect, "", "print the git bisect + flashscope ab script for a change point", 0, 0,
            BisectRange);
  c.details =
      "Prints a bash script that builds the good revision of a change point once, then runs\n"
      "`git bisect start BAD GOOD` and `git bisect run` with a step that builds each commit\n"
      "and runs `flashscope ab SUITE --kernels KERNEL` against the good build (exit 0 good,\n"
      "1 bad, 125 skip). The revisions must name commits of the checkout it runs in. Picks the\n"
      "change at --revision, else the one slowdown of the series chosen. Exit codes: 0 printed,\n"
      "1 no matching change point, 2 bad input (several match: narrow them). docs/ci.md.";
  c.Add(DbFlag())
      .Add(SeriesKernelsFlag())
      .Add(SeriesProblemsFlag())
      .Add(Flag::String("revision", "REV", "the change point whose first bad revision is REV"))
      .Add(Flag::String("suite", "SUITE", "the suite each step runs with flashscope ab"))
      .Add(Flag::String("plugin", "FILE",
                        "the plugin file the build makes (relative to the "
                        "checkout)"))
      .Add(Flag::String("build", "CMD", "the build command (default: CMake into build-bisect)"))
      .Add(Flag::String("flashscope", "PATH", "the flashscope command the steps run"))
      .Add(PolicyFlag());
  return c;
}

Command HistoryGroupCommand() {
  Command c("history", "add|show|changes|bisect-range ...",
            "performance history across revisions: add, show, changes, bisect-range", 0, 100000,
            HistoryGroup);
  c.details =
      "  flashscope history add --db DB REPORT... [--revision REV] [--branch B]\n"
      "  flashscope history show --db DB [--kernels GLOB] [--problems GLOB] "
      "[--format markdown|html|csv]\n"
      "  flashscope history changes --db DB [--since REV] --json OUT\n"
      "  flashscope history bisect-range --db DB --suite SUITE --plugin FILE [--revision REV]\n"
      "DB is a file path (SQLite) or a postgresql:// URL. `flashscope history SUB --help` for\n"
      "each one's flags. docs/history.md, docs/ci.md.";
  return c;
}

}  // namespace flashscope::cli
