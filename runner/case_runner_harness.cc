// The case runner's part of the checks that guard the harness itself (runner/harness_checks.h):
// integrity (runner/buffer_integrity.h) and isolation (runner/case_isolation.h) into the case's
// trust record, in their own file beside case_runner.cc.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runner/case_runner.h"
#include "runner/case_runner_state.h"
#include "runner/thread_origin.h"

namespace flashscope::runner {

// The checks that guard the harness itself (runner/harness_checks.h): the buffers after the
// launches not checked yet (traced, profiled), then the shared device state, restored for the
// next case; one that cannot be restored makes this worker hand over to a fresh one.
absl::Status CaseRunner::AddHarnessChecks(Case& k) {
  State& s = *state_;
  if (absl::Status st = k.integrity->Check(s.stream, "the traced and profiled launches",
                                           /*compare_content=*/false);
      !st.ok()) {
    return st;
  }
  absl::StatusOr<reports::TrustCheckRecord> integrity = k.integrity->Finish(s.stream);
  if (!integrity.ok()) return integrity.status();
  // Inputs, a reference or guards a launch wrote into would meet the next kernel of the problem:
  // it gets a workspace made afresh.
  // Guards written back too: parked cases of the problem still share these buffers.
  if (integrity->status == "failed") {
    s.workspaces.Invalidate();
    if (absl::Status st = k.integrity->RestoreGuards(s.stream); !st.ok()) return st;
  }
  // A parked case was checked as it was parked and after each of its batched launches
  // (runner/case_settle.cc); the device state has been put back since.
  reports::TrustCheckRecord isolation = !k.isolation
                                            ? s.isolation->CheckAndRestore(ThreadsLeftBy(k))
                                        : k.batch_isolation ? *k.batch_isolation
                                                            : *k.isolation;
  if (s.isolation->fresh_worker_needed()) context_lost_ = true;
  for (const reports::TrustCheckRecord* c : {&*integrity, &isolation}) {
    for (const reports::TrustValue& v : c->values) {
      if (v.name == "cost_s") k.r.trust->wall_s += v.value;
    }
    k.r.trust->checks.push_back(*c);
  }
  return absl::OkStatus();
}

void CaseRunner::WatchThreads(Case& k) {
  k.threads_before = ReadHostThreads();
  k.threads_watched = true;
}

std::vector<LeftThread> CaseRunner::ThreadsLeftBy(Case& k) {
  if (!k.threads_watched) return {};
  if (k.threads_checked) return k.threads_left;
  k.threads_checked = true;
  // Whatever the case's threads enqueued so far has finished: a thread that has nothing left to
  // wait for ends within the grace period, unless it is meant to outlive the case.
  if (cudaDeviceSynchronize() != cudaSuccess) cudaGetLastError();
  static const std::string worker = ThisExecutable();
  k.threads_left = ThreadsLeftRunning(
      k.threads_before, [] { return ReadHostThreads(); }, ThreadCreator,
      [](const std::string& creator) {
        return IsHarnessCreator(creator, worker) || LoadedByTheWorkersStart(creator);
      },
      kThreadGrace);
  return k.threads_left;
}

void CaseRunner::EndIfThreadsLeft(Case& k) {
  if (k.threads_checked) return;  // the trust checks' isolation verdict holds them
  const std::vector<LeftThread> left = ThreadsLeftBy(k);
  if (!AnyCaseThread(left)) return;
  context_lost_ = true;  // a thread cannot be put back: the next case gets a fresh worker
  std::vector<LeftThread> mine;
  for (const LeftThread& t : left) {
    if (!t.harness) mine.push_back(t);
  }
  const std::string text =
      absl::StrCat("isolation: ", absl::StrJoin(DescribeLeftThreads(mine), "; "));
  k.r.status = reports::CaseStatus::kError;
  k.r.reason = k.r.reason.empty() ? text : absl::StrCat(k.r.reason, "; ", text);
}

}  // namespace flashscope::runner
