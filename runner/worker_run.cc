#include "runner/worker_run.h"

#include <unistd.h>

#include <cstdio>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "plugins/sha256.h"
#include "reports/journal.h"
#include "runner/case_runner.h"
#include "runner/kernel_loading.h"
#include "runner/planner.h"
#include "suites/plan_cases.h"

namespace flashscope::runner {
namespace {

namespace protocol = suites::protocol;
using suites::protocol::Event;
using suites::protocol::Tell;

// A rerun under compute-sanitizer (suites/sanitize.h): one timed sample, no warm-up, no L2
// flush, no metrics, heatmaps or dumps, since the tool slows every launch 10-100x and only the
// kernel's memory accesses matter.
void ForSanitizer(suites::Suite* suite, RunOptions* options) {
  suite->timing = suites::TimingSpec{/*cold=*/false,       /*warmup=*/0,
                                     /*min_samples=*/1,    /*max_samples=*/1,
                                     /*noise_target=*/1.0, /*time_cap_s=*/0.0};
  suite->metrics.clear();
  suite->verify.heatmaps = "none";
  options->metrics.clear();
  options->dump_dir.clear();
}

}  // namespace

absl::StatusOr<suites::Suite> PlannedSuite(const reports::PlanRecord& plan) {
  auto suite = suites::LoadSuiteFile(plan.suite_path);
  if (!suite.ok()) return suite.status();
  auto sha = plugins::Sha256OfFile(plan.suite_path);
  if (!sha.ok()) return sha.status();
  if (*sha != plan.suite_sha256) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the suite file ", plan.suite_path, " changed since the run was planned; start a new run"));
  }
  return suite;
}

int RunCases(const suites::protocol::WorkerRequest& request) {
  const int fd = request.progress_fd;
  auto journal = reports::ReadJournal(request.journal_path);
  if (!journal.ok()) return protocol::TellFatal(fd, std::string(journal.status().message()));
  if (!journal->plan) {
    return protocol::TellFatal(
        fd, absl::StrCat(request.journal_path,
                         " holds no plan (written by an older flashscope); finish it "
                         "with that version, or start a new run"));
  }
  const reports::PlanRecord& plan = *journal->plan;
  auto suite = PlannedSuite(plan);
  if (!suite.ok()) return protocol::TellFatal(fd, std::string(suite.status().message()));
  plugins::PluginSet kernels;
  std::vector<std::string> files;
  for (const auto& p : plan.plugins) {
    if (!p.builtin) files.push_back(p.path);
  }
  if (absl::Status s = LoadKernels(files, fd, &kernels); !s.ok()) {
    return protocol::TellFatal(fd, std::string(s.message()), suites::protocol::kExitBadPlugin);
  }
  auto bound = BindPlan(plan, kernels);
  if (!bound.ok()) return protocol::TellFatal(fd, std::string(bound.status().message()));

  RunOptions options{request.metrics, request.dump_dir};
  if (request.sanitize_rerun) ForSanitizer(&*suite, &options);
  auto runner = CaseRunner::Create(*suite, options);
  if (!runner.ok()) return protocol::TellFatal(fd, std::string(runner.status().message()));
  auto writer = reports::JournalWriter::Open(request.journal_path, /*append=*/true);
  if (!writer.ok()) return protocol::TellFatal(fd, std::string(writer.status().message()));
  // The first worker of a run measures the environment; later ones reuse its peaks.
  if (journal->environment) {
    (*runner)->SetPeaks(journal->environment->peaks);
  } else {
    Tell(fd, {Event::kNote, "", "", "measuring device peaks"});
    if (auto s = writer->WriteEnvironment((*runner)->DescribeEnvironment(/*measure_peaks=*/true));
        !s.ok()) {
      return protocol::TellFatal(fd, std::string(s.message()));
    }
  }
  (*runner)->SetPhaseObserver([fd](const char* phase) {
    Tell(fd, {Event::kPhase, "", "", phase});
  });

  const auto done = journal->FinishedByKey();
  const std::set<std::string> only(request.only_keys.begin(), request.only_keys.end());
  for (const BoundCase& b : *bound) {
    const reports::PlannedCaseRecord& c = *b.planned;
    if (b.kernel == nullptr || done.count(c.key)) continue;  // planned errors: the supervisor's
    if (!only.empty() && !only.count(c.key)) continue;
    Tell(fd, {Event::kCaseStarted, c.key, "", ""});
    if (auto s = writer->CaseStarted(c.index, c.key); !s.ok()) {
      return protocol::TellFatal(fd, std::string(s.message()));
    }
    const CaseToRun run{c.index, c.key, b.kernel, c.problem,
                        suites::NewCaseResult(plan, c, *suite)};
    reports::CaseResult r = (*runner)->Run(run);
    if (auto s = writer->CaseFinished(c.index, r); !s.ok()) {
      return protocol::TellFatal(fd, std::string(s.message()));
    }
    Tell(fd, {Event::kCaseFinished, c.key, reports::CaseStatusName(r.status), ""});
    if ((*runner)->context_lost()) {
      // Leave without touching CUDA again: the context would only return the same error.
      _exit(suites::protocol::kExitContextLost);
    }
  }
  return 0;
}

}  // namespace flashscope::runner
