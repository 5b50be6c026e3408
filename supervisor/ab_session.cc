#include "supervisor/ab_session.h"

#include <array>
#include <cstdio>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "reports/text_safety.h"
#include "supervisor/device_scheduler.h"
#include "suites/plan_cases.h"
#include "supervisor/run_progress.h"
#include "protocol/worker_protocol.h"

namespace flashscope::suites {
namespace {

using protocol::kSideNames;
using reports::CaseStatus;

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

// Records one side of `u` as `status` with `reason` on `lost`'s GPU, keeping what its journal
// already holds of it (a side verified before its pair died keeps its verification;
// `keep_verified` then makes its status that verification's).
absl::Status RecordSide(const AbContext& ctx, const AbWriters& writers, const AbUnit& u,
                        const LostCase& lost, int side, CaseStatus status,
                        const std::string& reason, bool keep_verified) {
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
  r.wall_s = lost.wall_s;
  r.device = lost.device->device.index;
  r.device_uuid = lost.device->device.uuid;
  return writers[side]->CaseFinished(index, r);
}

// A pair whose worker died or hung inside it: the side whose code ran (`lost.side`) gets the
// error; the other keeps its verification, not timed. Neither side's code running: both.
absl::Status RecordInFlight(const AbContext& ctx, const AbWriters& writers, const AbUnit& u,
                            const LostCase& lost) {
  const int f = lost.side;
  if (f < 0) {  // before any side's kernel code: nobody's fault but the process's
    for (int s = 0; s < 2; ++s) {
      if (absl::Status st = RecordSide(ctx, writers, u, lost, s, lost.status, lost.reason, false);
          !st.ok()) {
        return st;
      }
    }
    return absl::OkStatus();
  }
  if (absl::Status st = RecordSide(ctx, writers, u, lost, f, lost.status, lost.reason, false);
      !st.ok()) {
    return st;
  }
  const std::string cause = absl::StrCat("the ", kSideNames[f], " side ",
                                         lost.status == CaseStatus::kTimeout ? "hung" : "crashed",
                                         " (", lost.reason, ")");
  return RecordSide(ctx, writers, u, lost, 1 - f, CaseStatus::kSkipped,
                    absl::StrCat("not timed: ", cause), true);
}

// A side's plugin killed the worker while loading: that side's case is an error, the other's is
// not run.
absl::Status RecordLoadCrash(const AbContext& ctx, const AbWriters& writers, const AbUnit& u,
                             const LostCase& lost) {
  const int f = lost.loading_plugin == ctx.plugins[1] ? 1 : 0;
  auto done = RecordedKeys(ctx);
  if (!done.ok()) return done.status();
  for (int s = 0; s < 2; ++s) {
    if (u.index[s] < 0 || (*done)[s].count(u.key)) continue;
    const std::string why =
        s == f ? lost.reason
               : absl::StrCat("not run: the ", kSideNames[f], " side's ", lost.reason);
    if (absl::Status st =
            RecordSide(ctx, writers, u, lost, s, s == f ? CaseStatus::kError : CaseStatus::kSkipped,
                       why, false);
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

// The plugin record of `side` for unit `u`: its case's kernel's, else the side's file (a worker
// of the ab loads both sides' files whatever the case).
const reports::ProvenanceRecord* SidePlugin(const AbContext& ctx, const AbUnit& u, int side) {
  const reports::PlanRecord& plan = *ctx.plans[side];
  if (u.index[side] >= 0) {
    return plan.ProvenanceOf(plan.cases[static_cast<size_t>(u.index[side])].kernel_id);
  }
  for (const reports::ProvenanceRecord& p : plan.plugins) {
    if (!p.builtin && p.path == ctx.plugins[side]) return &p;
  }
  return nullptr;
}

// The line of a case: its verdict in words, or, for a case recorded by the supervisor, whose
// side's code ran when it was lost.
CaseEnded Shown(const CaseEnded& e) {
  CaseEnded shown = e;
  if (!e.reason.empty()) {
    shown.status = absl::StrCat(e.side < 0 ? "both sides" : kSideNames[e.side], " ", e.status);
  } else if (!e.summary.empty()) {
    shown.status = e.summary + " ";  // a verdict in words: two spaces before the key
  }
  return shown;
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

AbCasesOutcome RunAbCases(const AbContext& ctx, const AbWriters& writers) {
  AbCasesOutcome out;
  const std::vector<AbUnit> units = AbUnits(*ctx.plans[0], *ctx.plans[1]);
  auto done = RecordedKeys(ctx);
  if (!done.ok()) {
    out.failure = std::string(done.status().message());
    return out;
  }
  // The scheduler hands out one planned case per pair: the base side's, else the new side's (the
  // key and the problem are the same on both sides).
  std::map<std::string, const AbUnit*> unit_of;
  ScheduleJob job;
  int finished = 0;
  for (const AbUnit& u : units) {
    unit_of[u.key] = &u;
    bool all = true;
    for (int s = 0; s < 2; ++s) all &= u.index[s] < 0 || (*done)[s].count(u.key) > 0;
    if (all) {
      ++finished;
      continue;
    }
    const int side = u.index[0] >= 0 ? 0 : 1;
    job.cases.push_back(&ctx.plans[side]->cases[static_cast<size_t>(u.index[side])]);
  }
  job.worker_exe = ctx.worker_exe;
  job.plan = ctx.plans[0];
  job.devices = ctx.devices;
  job.case_limit_s = ctx.pair_limit_s;
  job.start = ctx.start;
  job.unit = "pair";
  job.limit_hint =
      "twice the case limit: raise it with --case_timeout_s or the suite's case_timeout_s";
  job.request = [&](const DeviceSlot&) {
    protocol::WorkerRequest r;
    r.command = protocol::Command::kAb;
    r.journal_path = ctx.journals[0];
    r.new_journal = ctx.journals[1];
    r.ab_base = ctx.plugins[0];
    r.ab_new = ctx.plugins[1];
    r.metrics = ctx.metrics;
    r.ab_seed = ctx.seed;
    r.ab_alpha = ctx.options.alpha;
    r.ab_min_effect = ctx.options.min_effect;
    r.ab_allowed_slowdown = ctx.options.allowed_slowdown;
    return r;
  };
  job.plugins_of = [&](const reports::PlannedCaseRecord& c) {
    const AbUnit& u = *unit_of.at(c.key);
    return std::vector<const reports::ProvenanceRecord*>{SidePlugin(ctx, u, 0),
                                                         SidePlugin(ctx, u, 1)};
  };
  job.record = [&](const LostCase& lost) {
    const AbUnit& u = *unit_of.at(lost.planned->key);
    if (lost.loading_plugin.empty()) return RecordInFlight(ctx, writers, u, lost);
    out.cannot_test = lost.reason;
    return RecordLoadCrash(ctx, writers, u, lost);
  };
  RunProgress progress(static_cast<int>(units.size()), finished,
                       static_cast<int>(ctx.devices.size()), ctx.quiet, ctx.start);
  job.ended = [&](const CaseEnded& e) {
    ++out.recorded;
    progress.Ended(Shown(e));
  };
  job.note = [](const DeviceSlot&, const std::string& text) {
    std::fprintf(stderr, "flashscope ab: %s\n", reports::text::TerminalSafe(text).c_str());
  };
  job.interrupted = ctx.interrupted;
  const ScheduleResult result = RunOnDevices(job);
  out.failure = result.failure;
  out.interrupted = result.interrupted;
  return out;
}

}  // namespace flashscope::suites
