#include "suites/ab_session.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/text_safety.h"
#include "suites/plan_cases.h"
#include "suites/progress_text.h"
#include "suites/worker_process.h"
#include "suites/worker_protocol.h"

namespace flashscope::suites {
namespace {

using Clock = std::chrono::steady_clock;
namespace protocol = suites::protocol;
using reports::CaseStatus;

constexpr double kStartupLimitS = 900;  // start-up and the peak measurement, as for run
constexpr double kPollS = 0.25;         // how often an interruption is looked for
constexpr const char* kSideName[2] = {"base", "new"};

// What the supervisor knows of the worker while it runs.
struct Watch {
  std::string current;  // key of the pair in flight, "" between pairs
  std::string phase;
  int side = -1;        // whose kernel code runs (SIDE), -1 before any in this pair
  std::string summary;  // the AB line of the pair just finished
  std::string loading;  // plugin file being loaded
  Clock::time_point pair_start;
  bool timed_out = false;
};

struct Progress {
  int finished = 0;
  int total = 0;
};

void PrintLine(AbContext& ctx, const Progress& p, const std::string& key, const std::string& what,
               bool loud) {
  if (ctx.quiet && !loud) return;
  std::fprintf(
      stderr, "[%d/%d] %s  %s  %s\n", p.finished, p.total,
      reports::text::TerminalSafe(what).c_str(), reports::text::TerminalSafe(key).c_str(),
      ElapsedAndEta(SecondsSince(ctx.start), ctx.done_this_run, p.total - p.finished).c_str());
}

// Follows the worker until it ends, the pair in flight passes its limit, or an interruption.
void Follow(AbContext& ctx, WorkerProcess& worker, Watch& w, Progress& p, AbSessionOutcome& out) {
  protocol::Message m;
  while (true) {
    const double limit =
        w.current.empty() ? kStartupLimitS : ctx.pair_limit_s - SecondsSince(w.pair_start);
    const auto read = worker.Next(std::min(std::max(limit, 0.0), kPollS), &m);
    if (ctx.interrupted && ctx.interrupted()) {
      worker.Kill();
      out.interrupted = true;
      return;
    }
    if (read == WorkerProcess::Read::kEnded) return;
    if (read == WorkerProcess::Read::kTimedOut) {
      if (limit > kPollS) continue;
      worker.Kill();
      w.timed_out = true;
      return;
    }
    switch (m.event) {
      case protocol::Event::kCaseStarted:
        w.current = m.key, w.phase.clear(), w.side = -1, w.pair_start = Clock::now();
        break;
      case protocol::Event::kPhase:
        w.phase = m.text;
        break;
      case protocol::Event::kSide:
        w.side = m.text == kSideName[1] ? 1 : 0;
        break;
      case protocol::Event::kPairVerdict:
        w.summary = m.text;
        break;
      case protocol::Event::kCaseFinished:
        w.current.clear();
        out.progressed = true;
        ++p.finished;
        ++ctx.done_this_run;
        PrintLine(ctx, p, m.key, w.summary, false);
        break;
      case protocol::Event::kLoad:
        w.loading = m.text;
        break;
      case protocol::Event::kLoaded:
        w.loading.clear();
        break;
      case protocol::Event::kNote:
        std::fprintf(stderr, "flashscope ab: %s\n", reports::text::TerminalSafe(m.text).c_str());
        break;
      case protocol::Event::kFatal:
        out.fatal = m.text;
        break;
    }
  }
}

// The keys each side's journal holds a result for.
absl::StatusOr<std::array<std::set<std::string>, 2>> RecordedKeys(const AbContext& ctx) {
  std::array<std::set<std::string>, 2> keys;
  for (int s = 0; s < 2; ++s) {
    auto j = reports::ReadJournal(ctx.journals[s]);
    if (!j.ok()) return j.status();
    for (const auto& [key, result] : j->FinishedByKey()) keys[s].insert(key);
  }
  return keys;
}

// Records one side of `u` as `status` with `reason`, keeping what its journal already holds of
// it (a side verified before its pair died keeps its verification; `keep_verified` then makes
// its status that verification's).
absl::Status Record(AbContext& ctx, const AbWriters& writers, const AbUnit& u, int side,
                    CaseStatus status, const std::string& reason, bool keep_verified) {
  const int index = u.index[side];
  if (index < 0) return absl::OkStatus();
  auto journal = reports::ReadJournal(ctx.journals[side]);
  if (!journal.ok()) return journal.status();
  auto done = journal->FinishedByKey();
  const reports::PlanRecord& plan = *ctx.plans[side];
  reports::CaseResult r =
      done.count(u.key) ? *done[u.key]
                        : NewCaseResult(plan, plan.cases[static_cast<size_t>(index)], *ctx.suite);
  if (keep_verified && r.verification && r.verification->ran) {
    status = r.verification->passed ? CaseStatus::kPassed : CaseStatus::kFailed;
  }
  r.status = status;
  r.reason = reason;
  return writers[side]->CaseFinished(index, r);
}

// The pair in flight has no final result: the worker died or hung inside it.
absl::Status RecordInFlight(AbContext& ctx, const AbWriters& writers, const Watch& w,
                            const AbUnit& u, int wait_status, Progress& p) {
  const int f = w.side;
  const reports::ProvenanceRecord* from =
      f >= 0 && u.index[f] >= 0
          ? ctx.plans[f]->ProvenanceOf(
                ctx.plans[f]->cases[static_cast<size_t>(u.index[f])].kernel_id)
          : nullptr;
  const std::string reason =
      w.timed_out ? absl::StrFormat(
                        "exceeded the pair time limit of %.0f s and was killed (twice the "
                        "case limit: raise it with --case_timeout_s or the suite's "
                        "case_timeout_s)",
                        ctx.pair_limit_s)
                  : protocol::CrashReason(w.phase, from, CauseOfDeath(wait_status));
  const CaseStatus bad = w.timed_out ? CaseStatus::kTimeout : CaseStatus::kError;
  if (f < 0) {  // before any side's kernel code: nobody's fault but the process's
    for (int s = 0; s < 2; ++s) {
      if (absl::Status st = Record(ctx, writers, u, s, bad, reason, false); !st.ok()) return st;
    }
  } else {
    const int o = 1 - f;
    if (absl::Status st = Record(ctx, writers, u, f, bad, reason, false); !st.ok()) return st;
    const std::string cause = absl::StrCat("the ", kSideName[f], " side ",
                                           w.timed_out ? "hung" : "crashed", " (", reason, ")");
    // Verified before the other side died: kept, status by its verification; else not run.
    if (absl::Status st = Record(ctx, writers, u, o, CaseStatus::kSkipped,
                                 absl::StrCat("not timed: ", cause), true);
        !st.ok()) {
      return st;
    }
  }
  ++p.finished;
  ++ctx.done_this_run;
  PrintLine(
      ctx, p, u.key,
      absl::StrCat(f < 0 ? "both sides" : kSideName[f], " ", CaseStatusName(bad), ": ", reason),
      true);
  return absl::OkStatus();
}

// A side's plugin killed the worker while loading: no case can run; every one not recorded yet
// is recorded, the crashing side's as error, the other side's as not run.
absl::Status RecordLoadCrash(AbContext& ctx, const AbWriters& writers, const std::string& plugin,
                             const std::string& reason, Progress& p) {
  const int f = plugin == ctx.plugins[1] ? 1 : 0;
  auto done = RecordedKeys(ctx);
  if (!done.ok()) return done.status();
  for (const AbUnit& u : AbUnits(*ctx.plans[0], *ctx.plans[1])) {
    bool recorded = false;
    for (int s = 0; s < 2; ++s) {
      if (u.index[s] < 0 || (*done)[s].count(u.key)) continue;
      const std::string why =
          s == f ? reason : absl::StrCat("not run: the ", kSideName[f], " side's ", reason);
      if (absl::Status st = Record(ctx, writers, u, s,
                                   s == f ? CaseStatus::kError : CaseStatus::kSkipped, why, false);
          !st.ok()) {
        return st;
      }
      recorded = true;
    }
    if (recorded) ++p.finished, ++ctx.done_this_run;
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<AbUnit> AbUnits(const reports::PlanRecord& base, const reports::PlanRecord& next) {
  std::vector<AbUnit> units;
  std::map<std::string, int> next_index;
  for (const auto& c : next.cases) next_index[c.key] = c.index;
  for (const auto& c : base.cases) {
    AbUnit u{c.key, {c.index, -1}};
    if (auto it = next_index.find(c.key); it != next_index.end()) {
      u.index[1] = it->second;
      next_index.erase(it);
    }
    units.push_back(u);
  }
  for (const auto& c : next.cases) {
    if (next_index.count(c.key)) units.push_back({c.key, {-1, c.index}});
  }
  return units;
}

absl::StatusOr<int> FinishedAbUnits(const AbContext& ctx) {
  auto done = RecordedKeys(ctx);
  if (!done.ok()) return done.status();
  int finished = 0;
  for (const AbUnit& u : AbUnits(*ctx.plans[0], *ctx.plans[1])) {
    bool all = true;
    for (int s = 0; s < 2; ++s) all &= u.index[s] < 0 || (*done)[s].count(u.key) > 0;
    finished += all;
  }
  return finished;
}

AbSessionOutcome RunAbSession(AbContext& ctx, const AbWriters& writers) {
  AbSessionOutcome out;
  const std::vector<AbUnit> units = AbUnits(*ctx.plans[0], *ctx.plans[1]);
  auto finished = FinishedAbUnits(ctx);
  if (!finished.ok()) {
    out.failure = std::string(finished.status().message());
    return out;
  }
  Progress p{*finished, static_cast<int>(units.size())};
  protocol::WorkerRequest request;
  request.command = protocol::Command::kAb;
  request.journal_path = ctx.journals[0];
  request.new_journal = ctx.journals[1];
  request.ab_base = ctx.plugins[0];
  request.ab_new = ctx.plugins[1];
  request.metrics = ctx.metrics;
  request.ab_seed = ctx.seed;
  request.ab_alpha = ctx.options.alpha;
  request.ab_min_effect = ctx.options.min_effect;
  request.ab_allowed_slowdown = ctx.options.allowed_slowdown;
  auto worker = WorkerProcess::Start(ctx.worker_exe, request);
  if (!worker.ok()) {
    out.failure = std::string(worker.status().message());
    return out;
  }
  Watch w;
  Follow(ctx, *worker, w, p, out);
  const int status = worker->Wait();
  out.exit = DescribeExit(status);
  if (out.interrupted) return out;
  absl::Status recorded = absl::OkStatus();
  auto in_flight =
      std::find_if(units.begin(), units.end(), [&](const AbUnit& u) { return u.key == w.current; });
  if (!w.current.empty() && in_flight != units.end()) {
    recorded = RecordInFlight(ctx, writers, w, *in_flight, status, p);
    out.progressed = true;
  } else if (!w.loading.empty() && (DiedOfSignal(status) || w.timed_out)) {
    out.cannot_test = absl::StrCat(
        "plugin ", w.loading,
        w.timed_out ? absl::StrCat(" hung while loading (killed after ", kStartupLimitS, " s)")
                    : absl::StrCat(" crashed while loading: ", CauseOfDeath(status)));
    recorded = RecordLoadCrash(ctx, writers, w.loading, out.cannot_test, p);
    out.progressed = true;
  } else if (w.timed_out) {
    out.startup_timed_out = true;
  }
  if (!recorded.ok()) out.failure = std::string(recorded.message());
  return out;
}

}  // namespace flashscope::suites
