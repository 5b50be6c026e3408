// Parked cases and their settling (CaseRunner::RunOrPark, Settle; docs/trust.md, "Cost"). The work
// counters cost about 80 ms a case on GH100 with CUDA 13.0 whatever the kernel's size: six
// user-replay passes, each paying CUPTI's fixed Start/Stop host cost. A parked case has run every
// phase but its counters; a settle collects the counters of many parked cases in one session
// (profiler::RangeProfiler::ProfileBatch), each launch in a user range of its own, so that the
// passes' fixed cost is paid once for all of them.
//
// What a case's verdict relies on is kept per case: its own phases are judged as it is parked
// (the host threads it left, the isolation check, the integrity of the buffers so far: a case
// that fails one of them is not parked); in the session each of its launches reads fresh inputs
// and is checked (its sampled rows, the integrity of its buffers, the shared device state, which
// is put back after it), so that a launch of one case cannot change what another case's launch
// measures, and a change is blamed on the launch that made it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/seconds_since.h"
#include "protocol/worker_protocol.h"
#include "runner/case_runner.h"
#include "runner/case_runner_state.h"
#include "runner/slot_rotation.h"
#include "verify/problem_costs.h"
#include "verify/workspace.h"

namespace flashscope::runner {
namespace {

namespace phase = suites::protocol::phase;
using Clock = std::chrono::steady_clock;
using case_runner_internal::ByHwName;
using case_runner_internal::ContextIsLost;
using case_runner_internal::Finish;

// Parked cases at most: one batched session's launches, and what a worker that dies loses.
constexpr size_t kMaxParked = profiler::RangeProfiler::kMaxBatchLaunches;
// Device memory the workspaces of parked cases may keep alive beside the current problem's.
constexpr int64_t kParkedWorkspaceBytes = int64_t{2} << 30;

}  // namespace

void CaseRunner::EnableParking(bool on) { state_->parking = on; }

size_t CaseRunner::parked() const { return state_->parked.size(); }

std::optional<reports::CaseResult> CaseRunner::RunOrPark(const CaseToRun& c) {
  std::unique_ptr<Case> k = RunPhases(c, state_->parking);
  if (!k->parked) return k->r;
  state_->parked.push_back(std::move(k));
  return std::nullopt;
}

CaseRunner::SettleNeed CaseRunner::SettleBefore(const Problem& next) const {
  const State& s = *state_;
  if (s.parked.empty()) return SettleNeed::kNone;
  const std::string next_problem = ProblemKey(next);
  std::set<std::string> problems;
  int64_t bytes = 0;
  for (const auto& k : s.parked) {
    if (problems.insert(ProblemKey(k->c->problem)).second) {
      bytes += verify::Workspace::DeviceBytesNeeded(k->c->problem) * kRotatedSlots;
    }
  }
  // A new problem's workspace beside the parked ones beyond the allowance: make room for it.
  if (problems.count(next_problem) == 0 &&
      bytes + verify::Workspace::DeviceBytesNeeded(next) * kRotatedSlots > kParkedWorkspaceBytes) {
    return SettleNeed::kEverything;
  }
  return s.parked.size() >= kMaxParked ? SettleNeed::kRoom : SettleNeed::kNone;
}

bool CaseRunner::CanPark(Case& k) {
  State& s = *state_;
  if (!s.parking || s.work_counters == nullptr || !s.metric_defs.empty() ||
      !s.hardware_scope_usable || !k.c->kernel->info().idempotent ||
      verify::MinimalWorkFlops(k.c->problem) < reports::kWorkRuleMinFlops) {
    return false;  // profiled at once (or not at all) by Profile, as without parking
  }
  return RangeProfilerOrNull() != nullptr;
}

bool CaseRunner::Park(Case& k) {
  State& s = *state_;
  // The case's own phases are over: what they left is judged now, before other cases run.
  const std::vector<LeftThread> threads = ThreadsLeftBy(k);
  if (AnyCaseThread(threads)) return false;
  if (!k.integrity->Check(s.stream, "the traced launch", /*compare_content=*/false).ok()) {
    return false;
  }
  absl::StatusOr<bool> changed = k.integrity->ChangedSoFar(s.stream);
  // A launch that wrote into the shared buffers: concluded now, and the problem's next case gets
  // a fresh workspace (AddHarnessChecks).
  if (!changed.ok() || *changed) return false;
  k.isolation = s.isolation->CheckAndRestore(threads);
  if (k.isolation->status == "failed" || s.isolation->fresh_worker_needed()) return false;
  k.workspace_share = s.workspaces.Share();
  Case* parked = &k;  // heap-allocated (RunPhases): stable while parked
  k.pass_hooks = k.trust->ProfileHooks([this, parked]() -> absl::Status {
    // After the fresh inputs: their hashes, then the L2 flush last, so the launch starts cold.
    if (absl::Status st = parked->integrity->Snapshot(state_->stream); !st.ok()) return st;
    return state_->timer->FlushL2();
  });
  k.parked = true;
  k.own_wall_s = SecondsSince(k.start);
  return true;
}

profiler::BatchLaunch CaseRunner::BatchLaunchOf(Case& k, const CasePhaseFn& phase_of) {
  profiler::BatchLaunch l;
  Case* c = &k;
  l.before = [c, phase_of]() -> absl::Status {
    phase_of(c->c->key, phase::kProfiling);
    return c->pass_hooks.before();
  };
  l.launch = k.trust->launch();
  l.after = [this, c]() -> absl::Status {
    State& s = *state_;
    const std::string label = absl::StrCat("profiled launch ", c->batched_launches++);
    if (absl::Status st = c->integrity->Check(s.stream, label); !st.ok()) return st;
    absl::StatusOr<bool> changed = c->integrity->ChangedSoFar(s.stream);
    if (!changed.ok()) return changed.status();
    // Its out-of-bounds writes stay its own: the next case's checks see clean guards.
    if (*changed) {
      if (absl::Status st = c->integrity->RestoreGuards(s.stream); !st.ok()) return st;
    }
    reports::TrustCheckRecord isolation = s.isolation->CheckAndRestore();
    if (isolation.status == "failed" && !c->batch_isolation) {
      isolation.rule = absl::StrCat("after ", label, ": ", isolation.rule);
      c->batch_isolation = std::move(isolation);
    }
    // A state that cannot be put back: this worker ends after the settle.
    if (s.isolation->fresh_worker_needed()) context_lost_ = true;
    return c->pass_hooks.after();
  };
  return l;
}

bool CaseRunner::ProfileParked(const std::vector<Case*>& cases, profiler::MetricScope scope,
                               std::map<Case*, std::vector<profiler::ProfileResult>>* profiles,
                               std::map<Case*, std::string>* failures, const SettledFn& settled,
                               const CasePhaseFn& phase_of, bool retrying_missing) {
  State& s = *state_;
  std::vector<Case*> left = cases;
  std::vector<Case*> missing;  // no range with an active SM: CUPTI may have left a range out
  while (!left.empty()) {
    const size_t n = std::min(left.size(), kMaxParked);
    const std::vector<Case*> chunk(left.begin(), left.begin() + static_cast<ptrdiff_t>(n));
    std::vector<profiler::BatchLaunch> launches;
    for (Case* k : chunk) launches.push_back(BatchLaunchOf(*k, phase_of));
    profiler::BatchProfile b = s.range_profiler->ProfileBatch(launches, s.stream, scope);
    if (b.status.ok() || b.failed < 0) {
      for (size_t i = 0; i < n; ++i) {
        if (!b.status.ok()) {
          (*failures)[chunk[i]] = absl::StrCat("a counter session shared by ", n,
                                               " cases failed: ", b.status.message());
        } else if (b.launches[i].ok()) {
          (*profiles)[chunk[i]].push_back(*std::move(b.launches[i]));
        } else {
          // Evidence (no kernel), said on stderr too: the progress log keeps why.
          std::fprintf(stderr, "flashscope-worker: %s: %s%s\n", chunk[i]->c->key.c_str(),
                       std::string(b.launches[i].status().message()).c_str(),
                       retrying_missing ? "" : " (asked again in a session of its own)");
          (*failures)[chunk[i]] = absl::IsNotFound(b.launches[i].status())
                                      ? case_runner_internal::kNoKernelLaunched
                                      : std::string(b.launches[i].status().message());
          if (absl::IsNotFound(b.launches[i].status())) missing.push_back(chunk[i]);
        }
      }
      left.erase(left.begin(), left.begin() + static_cast<ptrdiff_t>(n));
      continue;
    }
    // One case's launch or check failed: it gets no counters; the others run again without it.
    Case* bad = chunk[static_cast<size_t>(b.failed)];
    left.erase(std::find(left.begin(), left.end(), bad));
    if (!ContextIsLost()) {
      (*failures)[bad] = std::string(b.status.message());
      continue;
    }
    context_lost_ = true;
    Finish(bad->r, bad->start, reports::CaseStatus::kError,
           absl::StrCat("profiling (a counter session shared with ", n - 1,
                        " other cases): ", b.status.message(),
                        " (the CUDA context is lost; a fresh worker runs the other cases)"));
    bad->r.wall_s = bad->own_wall_s + b.wall_s;
    settled(*bad->c, bad->r);
    auto it = std::find_if(s.parked.begin(), s.parked.end(),
                           [bad](const std::unique_ptr<Case>& p) { return p.get() == bad; });
    s.parked.erase(it);
    return false;
  }
  // A session with an instrumented pass recorded fewer ranges than launches, silently (2 x H200,
  // session 5: "8 ranges for 10 launches", the last two scalar launches): a launch whose range
  // is missing is asked again in a session of its own before its absence is evidence.
  if (retrying_missing) return true;
  for (Case* k : missing) {
    failures->erase(k);
    if (!ProfileParked({k}, scope, profiles, failures, settled, phase_of,
                       /*retrying_missing=*/true)) {
      return false;
    }
  }
  return true;
}

bool CaseRunner::ProfileSettling(const std::vector<Case*>& cases,
                                 std::map<Case*, std::vector<profiler::ProfileResult>>* profiles,
                                 std::map<Case*, std::string>* failures, const SettledFn& settled,
                                 const CasePhaseFn& phase_of) {
  State& s = *state_;
  using profiler::MetricScope;
  auto profile = [&](const std::vector<Case*>& group, MetricScope scope) {
    return group.empty() || ProfileParked(group, scope, profiles, failures, settled, phase_of);
  };
  auto key = [](const Case* k) { return case_runner_internal::KernelDTypeKey(*k->c); };
  const bool screening = s.range_profiler->has_scope(MetricScope::kScreen) &&
                         s.range_profiler->has_scope(MetricScope::kScalar);
  // The screen (2 passes on GH100 against 6, docs/trust.md "The screen") for every kernel whose
  // screen has not failed before; a scalar kernel's cases add the scalar counters after it.
  std::vector<Case*> screened, hardware, every, scalar;
  for (Case* k : cases) {
    if (screening && s.screen_failed.count(key(k)) == 0) {
      screened.push_back(k);
    } else {
      (s.scalar_first.count(key(k)) ? every : hardware).push_back(k);
    }
  }
  if (!profile(screened, MetricScope::kScreen)) return false;
  for (Case* k : screened) {
    auto it = profiles->find(k);
    if (it == profiles->end()) continue;  // no counters: its failure says why
    const profiler::ScreenOutcome o =
        profiler::ApplyScreen(*s.work_counters, ByHwName(it->second.back()));
    if (!o.complete) {
      s.screen_failed.insert(key(k));  // its kernel's later cases go to the full set at once
      (s.scalar_first.count(key(k)) ? every : hardware).push_back(k);
    } else if (TensorShort(*k, o.values)) {
      scalar.push_back(k);
    }
  }
  if (!profile(hardware, MetricScope::kHardware)) return false;
  for (Case* k : hardware) {
    auto it = profiles->find(k);
    if (it != profiles->end() && TensorShort(*k, it->second.back())) every.push_back(k);
  }
  return profile(every, MetricScope::kAll) && profile(scalar, MetricScope::kScalar);
}

void CaseRunner::Settle(bool all, const SettledFn& settled, const CasePhaseFn& phase_of) {
  State& s = *state_;
  std::vector<Case*> cases, scalar;
  for (const auto& k : s.parked) {
    (s.scalar_first.count(case_runner_internal::KernelDTypeKey(*k->c)) ? scalar : cases)
        .push_back(k.get());
  }
  // A scalar kernel's cases need the instrumented counters, another profiler scope (a re-enable,
  // ~0.22 s, and a session of their own): unless asked for all, they wait until they fill half a
  // batch or nothing else is parked (device call 4: sessions of ~10 of them cost 86 ms a case).
  if (all || cases.empty() || scalar.size() >= kMaxParked / 2) {
    cases.insert(cases.end(), scalar.begin(), scalar.end());
  }
  std::map<Case*, std::vector<profiler::ProfileResult>> profiles;
  std::map<Case*, std::string> failures;
  if (!ProfileSettling(cases, &profiles, &failures, settled, phase_of)) return;
  const std::set<Case*> done(cases.begin(), cases.end());
  std::vector<std::unique_ptr<Case>> still_parked;
  for (auto& k : s.parked) {
    if (done.count(k.get()) == 0) {
      still_parked.push_back(std::move(k));
      continue;
    }
    phase_of(k->c->key, phase::kConcluding);
    const Clock::time_point concluding = Clock::now();
    auto it = profiles.find(k.get());
    double share_s = 0;  // of the sessions it was in
    if (it != profiles.end()) {
      for (const profiler::ProfileResult& r : it->second) share_s += r.wall_s;
    }
    TakeBatchedCounters(*k,
                        it == profiles.end() ? std::vector<profiler::ProfileResult>{} : it->second,
                        failures.count(k.get()) ? failures[k.get()] : "");
    Conclude(*k);
    k->r.wall_s = k->own_wall_s + share_s + SecondsSince(concluding);
    settled(*k->c, k->r);
  }
  s.parked = std::move(still_parked);
}

}  // namespace flashscope::runner
