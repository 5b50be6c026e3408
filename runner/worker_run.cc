#include "suites/worker.h"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "reports/journal.h"
#include "suites/case_runner.h"
#include "suites/plan.h"
#include "suites/shard.h"

namespace flashscope::suites {
namespace {

void Tell(int fd, const std::string& line) {
  if (fd < 0) return;
  std::string l = line + "\n";
  // A short write to a pipe of this size does not happen; a failed one only loses progress text.
  [[maybe_unused]] ssize_t n = write(fd, l.data(), l.size());
}

int Fatal(int fd, const std::string& message) {
  Tell(fd, "FATAL " + message);
  std::fprintf(stderr, "flashscope worker: %s\n", message.c_str());
  return kWorkerExitFatal;
}

}  // namespace

int RunWorker(const WorkerArgs& args) {
  auto suite = LoadSuiteFile(args.suite_path);
  if (!suite.ok()) return Fatal(args.progress_fd, std::string(suite.status().message()));
  auto plan = BuildPlan(*suite, args.kernels_filter);
  if (!plan.ok()) return Fatal(args.progress_fd, std::string(plan.status().message()));
  auto shard = ParseShard(args.shard);
  if (!shard.ok()) return Fatal(args.progress_fd, std::string(shard.status().message()));
  *plan = SelectShard(*plan, *shard, [](const PlannedCase& c) { return ProblemKey(c.problem); });
  auto journal = reports::ReadJournal(args.journal_path);
  if (!journal.ok()) return Fatal(args.progress_fd, std::string(journal.status().message()));
  auto writer = reports::JournalWriter::Open(args.journal_path, /*append=*/true);
  if (!writer.ok()) return Fatal(args.progress_fd, std::string(writer.status().message()));

  RunOptions options;
  options.metrics = args.metrics;
  options.dump_dir = args.dump_dir;
  if (args.sanitize_rerun) {
    suite->timing = TimingSpec{/*cold=*/false,       /*warmup=*/0,
                               /*min_samples=*/1,    /*max_samples=*/1,
                               /*noise_target=*/1.0, /*time_cap_s=*/0.0};
    suite->metrics.clear();
    suite->verify.heatmaps = "none";
    options.metrics.clear();
    options.dump_dir.clear();
  }
  auto runner = CaseRunner::Create(*suite, options);
  if (!runner.ok()) return Fatal(args.progress_fd, std::string(runner.status().message()));

  // The first worker of a run measures the environment; later ones reuse its peaks.
  if (journal->environment) {
    (*runner)->SetPeaks(journal->environment->peaks);
  } else {
    Tell(args.progress_fd, "ENV measuring device peaks");
    reports::Environment env = (*runner)->DescribeEnvironment(/*measure_peaks=*/true);
    if (auto s = writer->WriteEnvironment(env); !s.ok()) {
      return Fatal(args.progress_fd, std::string(s.message()));
    }
  }

  for (const PlannedCase& c : *plan) {
    if (journal->finished.count(c.index)) continue;
    if (!args.only_cases.empty() && !args.only_cases.count(c.index)) continue;
    Tell(args.progress_fd, absl::StrCat("S ", c.index));
    if (auto s = writer->CaseStarted(c.index, c.key); !s.ok()) {
      return Fatal(args.progress_fd, std::string(s.message()));
    }
    reports::CaseResult r = (*runner)->Run(c);
    if (auto s = writer->CaseFinished(c.index, r); !s.ok()) {
      return Fatal(args.progress_fd, std::string(s.message()));
    }
    Tell(args.progress_fd, absl::StrCat("F ", c.index, " ", reports::CaseStatusName(r.status)));
    if ((*runner)->context_lost()) {
      // Leave without touching CUDA again: the context would only return the same error.
      _exit(kWorkerExitContextLost);
    }
  }
  return 0;
}

}  // namespace flashscope::suites
