#include "supervisor/ab_supervisor.h"

#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <optional>

#include "absl/strings/str_cat.h"
#include "reports/journal.h"
#include "reports/text_safety.h"
#include "suites/plan_cases.h"
#include "suites/plugin_paths.h"
#include "supervisor/ab_session.h"
#include "supervisor/device_selection.h"
#include "supervisor/dry_run_command.h"
#include "supervisor/planning.h"
#include "supervisor/run_journal.h"

namespace flashscope::suites {
namespace {

namespace fs = std::filesystem;

using protocol::kSideNames;

// The signal that asked ab to stop, 0 while none did.
volatile sig_atomic_t g_stop_signal = 0;

void OnStopSignal(int signo) { g_stop_signal = signo; }

// Catches SIGINT, SIGTERM and SIGHUP while it lives, so that ab can stop cleanly; the previous
// handlers come back after.
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = OnStopSignal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &sa, &previous_[i]);
  }
  ~StopSignals() {
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &previous_[i], nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  static int Received() { return g_stop_signal; }

 private:
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction previous_[3];
};

AbOutcome Fail(int code, const std::string& message) {
  std::fprintf(stderr, "flashscope ab: %s\n", reports::text::TerminalSafeLines(message).c_str());
  AbOutcome r;
  r.exit_code = code;
  if (code == kExitCannotTest) r.cannot_test = message;
  return r;
}

AbOutcome Stopped(int signo, const std::string& what) {
  return Fail(128 + signo,
              absl::StrCat("stopped by signal ", signo, " (", strsignal(signo), ") ", what));
}

// A side's plugin file; NotFound (cannot test) when there is none.
absl::StatusOr<std::string> ResolveSide(const char* flag, const std::string& name,
                                        const std::string& worker_exe) {
  PluginSources sources = PluginSourcesFromEnvironment({}, {name}, worker_exe);
  sources.command_line_flag = absl::StrCat("--", flag);
  auto paths = ResolvePlugins(sources);
  if (!paths.ok()) return paths.status();
  return paths->front();
}

// The output folder, created; refused when it already holds an ab's files.
absl::Status PrepareOutDir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--out_dir ", dir, " cannot be created: ", ec.message()));
  }
  for (const char* name :
       {"base.json", "new.json", "base.json.journal.jsonl", "new.json.journal.jsonl"}) {
    if (fs::exists(fs::path(dir) / name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--out_dir ", dir, " already holds ", name,
          " of an earlier ab (a journal there is what an ab killed with SIGKILL leaves; "
          "`flashscope show` reads it): choose another --out_dir, or remove those files"));
    }
  }
  return absl::OkStatus();
}

std::string RenderAbPlan(const protocol::PlanningResult& planned) {
  std::string out;
  const reports::PlanRecord* plans[2] = {&planned.plan, &*planned.ab_new};
  for (int s = 0; s < 2; ++s) {
    for (const auto& p : plans[s]->plugins) {
      if (p.builtin) continue;
      const reports::PlannedKernelRecord* any =
          plans[s]->kernels.empty() ? nullptr : &plans[s]->kernels.front();
      if (any != nullptr && &plans[s]->plugins[static_cast<size_t>(any->plugin)] != &p) continue;
      absl::StrAppend(&out, kSideNames[s], ": ", reports::text::TerminalSafe(p.plugin), " ",
                      reports::text::TerminalSafe(p.version), "\n  file ",
                      reports::text::TerminalSafe(p.path), "\n  sha256 ", p.sha256, "\n");
    }
  }
  const std::vector<AbUnit> units = AbUnits(*plans[0], *plans[1]);
  absl::StrAppend(&out, units.size(), " cases (in the order they run):\n");
  for (const AbUnit& u : units) {
    absl::StrAppend(&out, "  ", reports::text::TerminalSafe(u.key),
                    u.index[1] < 0   ? "  [base side only]"
                    : u.index[0] < 0 ? "  [new side only]"
                                     : "",
                    "\n");
  }
  return out;
}

// Journals opened for both sides in `dir`, and the contexts' journal paths.
absl::Status OpenJournals(const AbArgs& args, const Suite& suite,
                          const protocol::PlanningResult& planned, const std::string& dir,
                          AbContext* ctx, std::optional<reports::JournalWriter> (&writers)[2]) {
  const reports::PlanRecord* plans[2] = {&planned.plan, &*planned.ab_new};
  for (int s = 0; s < 2; ++s) {
    const std::string out = (fs::path(dir) / absl::StrCat(kSideNames[s], ".json")).string();
    auto journal =
        OpenRunJournal({"", out, args.command_line, args.kernels_filter}, suite, *plans[s]);
    if (!journal.ok()) return journal.status();
    ctx->journals[s] = journal->journal_path;
    ctx->locks[s] = std::move(journal->lock);
    ctx->plans[s] = plans[s];
    auto writer = reports::JournalWriter::Open(journal->journal_path, /*append=*/true);
    if (!writer.ok()) return writer.status();
    writers[s].emplace(*std::move(writer));
  }
  return absl::OkStatus();
}

// Both reports from the journals (which go, complete or not: ab does not resume).
AbOutcome WriteReports(const AbContext& ctx, const std::string& dir) {
  AbOutcome r;
  for (int s = 0; s < 2; ++s) {
    const std::string out = (fs::path(dir) / absl::StrCat(kSideNames[s], ".json")).string();
    auto report = WriteReportFromJournal(ctx.journals[s], out, /*remove_journal=*/true);
    if (!report.ok()) return Fail(2, std::string(report.status().message()));
    (s == 0 ? r.base : r.next) = *std::move(report);
    (s == 0 ? r.base_path : r.new_path) = out;
  }
  return r;
}

}  // namespace

AbOutcome SuperviseAb(const AbArgs& args) {
  auto suite = LoadSuiteFile(args.suite_path);
  if (!suite.ok()) return Fail(2, std::string(suite.status().message()));
  auto selection = ParseDeviceSelection(args.devices);
  if (!selection.ok()) return Fail(2, std::string(selection.status().message()));
  auto base = ResolveSide("base", args.base_plugin, args.worker_exe);
  if (!base.ok()) return Fail(kExitCannotTest, std::string(base.status().message()));
  auto next = ResolveSide("new", args.new_plugin, args.worker_exe);
  if (!next.ok()) return Fail(kExitCannotTest, std::string(next.status().message()));
  if (*base == *next) {
    return Fail(2, absl::StrCat("--base and --new are the same file, ", *base,
                                ": the two sides must be two files (for an A/A check of one "
                                "build, compare it with a copy: cp ",
                                *base, " copy.so)"));
  }
  StopSignals signals;
  auto planned =
      PlanAbInWorker({args.worker_exe, args.suite_path, *base, *next, args.kernels_filter});
  if (StopSignals::Received())
    return Stopped(StopSignals::Received(), "while planning; nothing was written");
  if (!planned.ok()) {
    const bool cannot = absl::IsFailedPrecondition(planned.status());
    return Fail(cannot ? kExitCannotTest : 2,
                absl::StrCat(cannot ? "cannot test: " : "", planned.status().message()));
  }
  if (args.dry_run) {
    std::printf("%s", RenderAbPlan(*planned).c_str());
    return AbOutcome{};
  }
  if (!planned->device.usable) {
    return Fail(2, absl::StrCat("no usable GPU: ", planned->device.reason,
                                ". Nothing was run and nothing was written; `",
                                DryRunCommand("ab", args.suite_path,
                                              {{"--base", args.base_plugin},
                                               {"--new", args.new_plugin},
                                               {"--kernels", args.kernels_filter}}),
                                "` shows the plan without a GPU"));
  }
  std::vector<std::string> warnings;
  auto devices = ChooseDevices(*selection, planned->devices, {}, args.force, &warnings);
  if (!devices.ok()) return Fail(2, std::string(devices.status().message()));
  for (const auto& w : warnings) {
    std::fprintf(stderr, "flashscope ab: %s\n", reports::text::TerminalSafe(w).c_str());
  }
  const std::string dir =
      !args.out_dir.empty()
          ? args.out_dir
          : absl::StrCat("reports/ab/", UtcNow("%Y%m%d-%H%M%S"), "-", suite->name);
  if (absl::Status s = PrepareOutDir(dir); !s.ok()) return Fail(2, std::string(s.message()));
  AbContext ctx;
  ctx.suite = &*suite;
  ctx.plugins[0] = *base;
  ctx.plugins[1] = *next;
  ctx.worker_exe = args.worker_exe;
  ctx.metrics = args.metrics;
  ctx.seed = args.seed;
  ctx.options = args.options;
  ctx.devices = *std::move(devices);
  ctx.pair_limit_s = 2 * (args.case_timeout_s > 0 ? args.case_timeout_s : suite->case_timeout_s);
  ctx.quiet = args.quiet;
  ctx.start = std::chrono::steady_clock::now();
  ctx.interrupted = [] { return StopSignals::Received() != 0; };
  if (selection->given) {
    std::fprintf(stderr, "flashscope ab: %zu GPU%s, one worker each:\n%s", ctx.devices.size(),
                 ctx.devices.size() == 1 ? "" : "s",
                 reports::text::TerminalSafe(RenderDevices(ctx.devices)).c_str());
  }
  std::optional<reports::JournalWriter> writers[2];
  if (absl::Status s = OpenJournals(args, *suite, *planned, dir, &ctx, writers); !s.ok()) {
    return Fail(2, std::string(s.message()));
  }
  std::fprintf(stderr, "flashscope ab: suite %s, %zu cases; seed %llu; reports in %s\n",
               suite->name.c_str(), AbUnits(*ctx.plans[0], *ctx.plans[1]).size(),
               static_cast<unsigned long long>(args.seed), dir.c_str());
  const AbCasesOutcome ran = RunAbCases(ctx, {&*writers[0], &*writers[1]});
  const std::string& failure = ran.failure;
  const std::string& cannot_test = ran.cannot_test;
  AbOutcome out = WriteReports(ctx, dir);
  if (const int signo = StopSignals::Received()) {
    return Stopped(
        signo, absl::StrCat("after ", ran.recorded, " cases: partial reports (complete: false) ",
                            out.base_path, " and ", out.new_path,
                            ", no verdict; the journals are removed (ab does not "
                            "resume: run it again)"));
  }
  if (!failure.empty()) {
    AbOutcome f =
        Fail(2, absl::StrCat(failure, out.base_path.empty()
                                          ? ""
                                          : absl::StrCat(" (partial reports: ", out.base_path, ", ",
                                                         out.new_path, ")")));
    return f;
  }
  if (!cannot_test.empty()) {
    out.exit_code = kExitCannotTest;
    out.cannot_test = cannot_test;
  }
  return out;
}

}  // namespace flashscope::suites
