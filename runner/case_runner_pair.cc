// CaseRunner::RunPair: the same case of both sides of a `flashscope ab` comparison (runner/
// case_runner.h says what happens when; docs/gating.md says why the samples are interleaved).
#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "profiler/nvtx_ranges.h"
#include "protocol/worker_protocol.h"
#include "runner/case_runner.h"
#include "runner/case_runner_state.h"
#include "runner/record_conversions.h"

namespace flashscope::runner {
namespace {

namespace phase = suites::protocol::phase;
using case_runner_internal::ContextIsLost;
using case_runner_internal::Finish;
using reports::CaseStatus;

using suites::protocol::kSideNames;

// Passed or failed by the side's own verification.
CaseStatus VerifiedStatus(const reports::CaseResult& r) {
  return r.verification && r.verification->passed ? CaseStatus::kPassed : CaseStatus::kFailed;
}

}  // namespace

PairResult CaseRunner::RunPair(const PairToRun& pair, const PairObserver& observer) {
  profiler::NvtxRange range("pair " + pair.base.key);
  const CaseToRun* runs[2] = {&pair.base, &pair.next};
  Case k[2];
  bool live[2] = {true, true};  // still being measured
  bool verified[2] = {false, false};
  for (int i = 0; i < 2; ++i) {
    k[i].c = runs[i];
    k[i].r = runs[i]->planned;
    k[i].start = std::chrono::steady_clock::now();
  }
  auto side = [&](int i) {
    if (observer.side) observer.side(i);
  };
  auto end = [&](int i, CaseStatus status, std::string reason) {
    Finish(k[i].r, k[i].start, status, std::move(reason));
    live[i] = false;
  };
  auto result = [&] { return PairResult{k[0].r, k[1].r}; };
  // The other side cannot go on: kept as far as it got, with why.
  auto orphan = [&](int i, const std::string& why) {
    if (!live[i]) return;
    const int o = 1 - i;
    const std::string cause = absl::StrCat("the ", kSideNames[o], " side ", why, " (",
                                           CaseStatusName(k[o].r.status), ": ", k[o].r.reason, ")");
    if (verified[i]) {
      end(i, VerifiedStatus(k[i].r), absl::StrCat("verified, not timed: ", cause));
    } else {
      end(i, CaseStatus::kSkipped, absl::StrCat("not run: ", cause));
    }
  };

  // The phases of a single case (runner/case_phases.h) for each side, but one workspace for both
  // and the timing of the two together.
  // Threads either side leaves running are seen by the side concluded first (and the second).
  for (Case& c : k) WatchThreads(c);
  for (int i = 0; i < 2; ++i) {
    side(i);
    live[i] = Supported(k[i]);
  }
  if (!live[0] && !live[1]) return result();
  // The shared device state as the worker started (runner/case_isolation.h), as in Run().
  if (absl::Status st = RestoreIsolation(); !st.ok()) {
    for (int i = 0; i < 2; ++i) {
      if (live[i]) live[i] = EndByIsolation(k[i], st);
    }
    return result();
  }
  auto ws = Inputs(pair.base.problem);
  if (!ws.ok()) {
    for (int i = 0; i < 2; ++i) {
      if (live[i]) live[i] = EndByInputs(k[i], ws.status());
    }
    return result();
  }
  for (int i = 0; i < 2; ++i) {
    if (live[i]) Bind(k[i], **ws);
  }
  // Each side as a single case goes: its prepare(), then its launch on poisoned outputs verified,
  // with the trust checks' sampled check (each side reads inputs no launch has read).
  for (int i = 0; i < 2 && !context_lost_; ++i) {
    if (!live[i]) continue;
    side(i);
    if (!Prepare(k[i]) || !Verify(k[i])) {  // the case ended with status error
      live[i] = false;
      continue;
    }
    verified[i] = true;
    if (observer.verified) {
      reports::CaseResult so_far = k[i].r;
      Finish(so_far, k[i].start, VerifiedStatus(so_far),
             "verified; the interleaved timing of this pair did not finish");
      observer.verified(i, so_far);
    }
  }
  if (live[0] && live[1]) {
    if (!TimeInterleaved(k, pair, observer)) live[0] = live[1] = false;  // both ended there
  } else {
    for (int i = 0; i < 2 && !context_lost_; ++i) {
      if (!live[i]) continue;
      side(i);
      if (!Time(k[i])) live[i] = false;  // the other side's failure cost it its pairs only
    }
  }
  for (int i = 0; i < 2; ++i) {
    if (context_lost_) orphan(i, "lost the CUDA context");
  }
  FinishSides(k, live, observer);
  return result();
}

void CaseRunner::FinishSides(Case (&k)[2], const bool (&live)[2], const PairObserver& observer) {
  const bool alone = !(live[0] && live[1]);
  for (int i = 0; i < 2; ++i) {
    if (!live[i]) continue;
    if (observer.side) observer.side(i);
    Complete(k[i]);  // device functions, counters and the trust checks, as for a single case
    if (alone && k[i].r.status == CaseStatus::kPassed && k[i].r.reason.empty()) {
      k[i].r.reason = absl::StrCat("timed alone: the ", kSideNames[1 - i], " side ",
                                   CaseStatusName(k[1 - i].r.status));
    }
  }
}

bool CaseRunner::TimeInterleaved(Case (&k)[2], const PairToRun& pair,
                                 const PairObserver& observer) {
  State& s = *state_;
  Enter(phase::kTiming);
  profiler::NvtxRange range("time pairs");
  profiler::PairPolicy policy;
  policy.timing = s.suite.timing;
  policy.timing.min_samples = std::max(policy.timing.min_samples, kMinPairs);
  policy.timing.max_samples = std::max(policy.timing.max_samples, policy.timing.min_samples);
  policy.timing.time_cap_s *= 2;  // two kernels share it
  policy.log_ratio_noise_target = pair.log_ratio_noise_target;
  policy.seed = pair.seed;
  int announced = -1;  // tell only changes of side: a line per launch would be a line per sample
  // The trust checks. launches and sample hooks (fresh inputs, sampled checks), as Time() uses
  // them.
  profiler::SampleHooks hooks[2] = {k[0].trust->Hooks(), k[1].trust->Hooks()};
  // Both samples of a pair read the buffer slot its first sample drew (the draw stays secret):
  // slots lie in different memory, and a pair is to differ only in the code. (Measured: it did
  // not change the A/A of the example plugin, whose µs cases differ between two loaded copies of
  // one build with or without rotation; results/device/20261128-h200x2-session4/, calls C-E.)
  auto pair_slot = std::make_shared<std::pair<int, int>>(-1, 0);  // sample index, its slot
  for (int i = 0; i < 2; ++i) {
    TrustCase* trust = k[i].trust.get();
    hooks[i].before = [before = hooks[i].before, trust, pair_slot](int sample) {
      const bool second = pair_slot->first == sample;
      if (second) trust->UseSlotNext(pair_slot->second);
      absl::Status st = before(sample);
      if (!second) *pair_slot = {sample, trust->last_slot()};
      return st;
    };
  }
  profiler::PairTimingResult t =
      s.timer->TimePair(k[0].trust->launch(), k[1].trust->launch(), policy, hooks, [&](int side) {
        if (side != announced && observer.side) observer.side(side);
        announced = side;
      });
  std::string order = t.order;
  std::replace(order.begin(), order.end(), 'b', 'n');  // side b is the new side
  std::replace(order.begin(), order.end(), 'a', 'b');
  const reports::InterleavingRecord interleaved[2] = {
      {kSideNames[0], pair.seed, order, t.rejected_pairs},
      {kSideNames[1], pair.seed, order, t.rejected_pairs}};
  if (t.status.ok()) {
    for (int i = 0; i < 2; ++i) {
      if (observer.side) observer.side(i);  // the traced launch runs its code
      RecordTiming(k[i], i == 0 ? t.a : t.b);
      k[i].r.timing->interleaved = interleaved[i];
    }
    return true;
  }
  // Failed: what was timed before stays in the record (no traced launch of a kernel that broke).
  for (int i = 0; i < 2; ++i) {
    const profiler::TimingResult& mine = i == 0 ? t.a : t.b;
    k[i].r.timing = ToTimingRecord(mine);
    k[i].r.timing->interleaved = interleaved[i];
    if (!mine.samples_ms.empty()) {
      k[i].r.throughput = ToThroughput(k[i].c->problem, k[i].r.timing->median_ms, peaks_);
    }
  }
  context_lost_ = ContextIsLost();
  const std::string what = absl::StrCat("timing: ", t.status.message());
  if (t.failed_side < 0) {  // not a side's fault (a bad policy): both
    for (Case& c : k) Finish(c.r, c.start, CaseStatus::kError, what);
    return false;
  }
  const int f = t.failed_side, o = 1 - f;
  Finish(k[f].r, k[f].start, CaseStatus::kError, what);
  // The other side keeps its verification and the pairs taken so far.
  Finish(k[o].r, k[o].start, VerifiedStatus(k[o].r),
         absl::StrCat("verified; ", k[o].r.timing->samples_ms.size(), " pairs timed before the ",
                      kSideNames[f], " side failed (", what, ")"));
  return false;
}

}  // namespace flashscope::runner
