#include "runner/worker_ab.h"

#include <unistd.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "profiler/paired_sampling.h"
#include "analysis/ab_verdict.h"
#include "reports/devices.h"
#include "reports/journal.h"
#include "runner/case_runner.h"
#include "runner/kernel_loading.h"
#include "runner/planner.h"
#include "runner/worker_run.h"
#include "suites/plan_cases.h"

namespace flashscope::runner {
namespace {

namespace protocol = suites::protocol;
using protocol::Event;
using protocol::Tell;

using protocol::kSideNames;

// One side of the session: its journal as read, its bound plan and its writer.
struct Side {
  reports::JournalContents journal;
  std::vector<BoundCase> bound;
  std::optional<reports::JournalWriter> writer;
};

// A case of the session: both sides' (a pair), or one side's alone. Base order, then cases of
// the new side alone.
struct Unit {
  const BoundCase* of[2] = {nullptr, nullptr};
  const std::string& key() const { return (of[0] != nullptr ? of[0] : of[1])->planned->key; }
};

std::vector<Unit> Units(const Side (&sides)[2]) {
  std::vector<Unit> units;
  std::map<std::string, const BoundCase*> next;
  for (const BoundCase& b : sides[1].bound) next[b.planned->key] = &b;
  for (const BoundCase& b : sides[0].bound) {
    Unit u;
    u.of[0] = &b;
    if (auto it = next.find(b.planned->key); it != next.end()) {
      u.of[1] = it->second;
      next.erase(it);
    }
    units.push_back(u);
  }
  for (const BoundCase& b : sides[1].bound) {
    if (!next.count(b.planned->key)) continue;
    Unit u;
    u.of[1] = &b;
    units.push_back(u);
  }
  return units;
}

// Reads both journals, loads both sides and binds both plans. "" or the fatal message.
std::string Open(const protocol::WorkerRequest& r, plugins::PluginSet* kernels, Side (&sides)[2]) {
  const std::string paths[2] = {r.journal_path, r.new_journal};
  for (int i = 0; i < 2; ++i) {
    auto journal = reports::ReadJournal(paths[i]);
    if (!journal.ok()) return std::string(journal.status().message());
    if (!journal->plan) return absl::StrCat(paths[i], " holds no plan: not an ab journal");
    sides[i].journal = *std::move(journal);
  }
  if (absl::Status s = LoadAbKernels(r.ab_base, r.ab_new, r.progress_fd, kernels); !s.ok()) {
    return std::string(s.message());
  }
  for (int i = 0; i < 2; ++i) {
    auto bound = BindPlan(*sides[i].journal.plan, *kernels);
    if (!bound.ok()) return std::string(bound.status().message());
    sides[i].bound = *std::move(bound);
    auto writer = reports::JournalWriter::Open(paths[i], /*append=*/true);
    if (!writer.ok()) return std::string(writer.status().message());
    sides[i].writer.emplace(*std::move(writer));
  }
  return "";
}

// The peaks of this worker's GPU, measured once (or read) through the base side's journal as
// `run` does, its device line (and the environment, for the first) copied to the new side's.
std::string SetUpAbPeaks(const protocol::WorkerRequest& r, CaseRunner& runner, Side (&sides)[2]) {
  if (absl::Status s = SetUpPeaks(r, sides[0].journal, runner, *sides[0].writer); !s.ok()) {
    return std::string(s.message());
  }
  const reports::DeviceRecord mine = runner.DescribeDevice(r.device);
  const reports::JournalContents& next = sides[1].journal;
  if (reports::FindDevice(next.devices, mine.uuid) == nullptr) {
    if (absl::Status s = sides[1].writer->WriteDevice(mine); !s.ok())
      return std::string(s.message());
  }
  if (!next.environment) {
    const reports::Environment env = runner.DescribeEnvironment(/*measure_peaks=*/false);
    if (absl::Status s = sides[1].writer->WriteEnvironment(env); !s.ok()) {
      return std::string(s.message());
    }
  }
  return "";
}

reports::CaseResult Planned(const Side& side, const BoundCase& b, const suites::Suite& suite) {
  return suites::NewCaseResult(*side.journal.plan, *b.planned, suite);
}

// Runs one unit and appends each side's result. "" or the fatal message.
std::string RunUnit(const protocol::WorkerRequest& r, CaseRunner& runner,
                    const suites::Suite& suite, Side (&sides)[2], const Unit& u) {
  const int fd = r.progress_fd;
  const std::string& key = u.key();
  Tell(fd, {Event::kCaseStarted, key, "", ""});
  for (int i = 0; i < 2; ++i) {
    if (u.of[i] == nullptr) continue;
    if (auto s = sides[i].writer->CaseStarted(u.of[i]->planned->index, key); !s.ok()) {
      return std::string(s.message());
    }
  }
  std::optional<reports::CaseResult> result[2];
  std::string summary;
  if (u.of[0] != nullptr && u.of[1] != nullptr) {
    PairToRun pair;
    for (int i = 0; i < 2; ++i) {
      const BoundCase& b = *u.of[i];
      (i == 0 ? pair.base : pair.next) = {b.planned->index, key, b.kernel, b.planned->problem,
                                          Planned(sides[i], b, suite)};
    }
    const reports::AbOptions ab{r.ab_alpha, r.ab_min_effect, r.ab_allowed_slowdown};
    pair.seed = profiler::CaseSeed(r.ab_seed, u.of[0]->planned->index);
    pair.log_ratio_noise_target = ab.Threshold() / 3;
    std::string interim_error;
    PairObserver observer;
    observer.side = [fd](int side) { Tell(fd, {Event::kSide, "", "", kSideNames[side]}); };
    observer.verified = [&](int side, const reports::CaseResult& so_far) {
      reports::CaseResult kept = so_far;
      StampDevice(r, runner, &kept);
      auto s = sides[side].writer->CaseFinished(u.of[side]->planned->index, kept);
      if (!s.ok() && interim_error.empty()) interim_error = std::string(s.message());
    };
    PairResult p = runner.RunPair(pair, observer);
    if (!interim_error.empty()) return interim_error;
    result[0] = std::move(p.base);
    result[1] = std::move(p.next);
    summary = reports::AbPairProgressLine(reports::JudgePair(*result[0], *result[1], ab));
  } else {
    const int i = u.of[0] != nullptr ? 0 : 1;
    const BoundCase& b = *u.of[i];
    Tell(fd, {Event::kSide, "", "", kSideNames[i]});
    result[i] = runner.Run(
        {b.planned->index, key, b.kernel, b.planned->problem, Planned(sides[i], b, suite)});
    summary = absl::StrCat(kSideNames[i], " side only: ", CaseStatusName(result[i]->status));
  }
  for (int i = 0; i < 2; ++i) {
    if (!result[i]) continue;
    StampDevice(r, runner, &*result[i]);
    if (auto s = sides[i].writer->CaseFinished(u.of[i]->planned->index, *result[i]); !s.ok()) {
      return std::string(s.message());
    }
  }
  Tell(fd, {Event::kPairVerdict, "", "", summary});
  Tell(fd, {Event::kCaseFinished, key,
            absl::StrCat(result[0] ? CaseStatusName(result[0]->status) : "-", "/",
                         result[1] ? CaseStatusName(result[1]->status) : "-"),
            ""});
  return "";
}

}  // namespace

int RunAbPairs(const protocol::WorkerRequest& request) {
  const int fd = request.progress_fd;
  plugins::PluginSet kernels;
  Side sides[2];
  if (request.command_fd < 0) {
    return protocol::TellFatal(fd, "flashscope-worker ab takes its pairs from --command_fd");
  }
  if (std::string fatal = Open(request, &kernels, sides); !fatal.empty()) {
    return protocol::TellFatal(fd, fatal);
  }
  auto suite = PlannedSuite(*sides[0].journal.plan);
  if (!suite.ok()) return protocol::TellFatal(fd, std::string(suite.status().message()));
  auto runner = CaseRunner::Create(*suite, RunOptions{request.metrics, ""});
  if (!runner.ok()) return protocol::TellFatal(fd, std::string(runner.status().message()));
  if (std::string fatal = SetUpAbPeaks(request, **runner, sides); !fatal.empty()) {
    return protocol::TellFatal(fd, fatal);
  }
  (*runner)->SetPhaseObserver([fd](const char* phase) {
    Tell(fd, {Event::kPhase, "", "", phase});
  });
  const std::vector<Unit> units = Units(sides);
  std::map<std::string, const Unit*> by_key;
  for (const Unit& u : units) by_key[u.key()] = &u;
  // One unit: refused when a side planned it as an error (the supervisor records those), else
  // run. "" or the fatal message.
  auto run = [&](const Unit& u) -> std::string {
    for (int i = 0; i < 2; ++i) {
      if (u.of[i] != nullptr && u.of[i]->kernel == nullptr) {
        return absl::StrCat(u.key(), ": planned as an error");
      }
    }
    return RunUnit(request, **runner, *suite, sides, u);
  };
  auto finish = [&](const std::string& fatal) {
    if (!fatal.empty()) return protocol::TellFatal(fd, fatal);
    // Leave without touching CUDA again: the context would only return the same error.
    if ((*runner)->context_lost()) _exit(protocol::kExitContextLost);
    return 0;
  };
  // The supervisor hands the pairs out, one RUN line each (supervisor/ab_session.h).
  protocol::CommandReader commands(request.command_fd);
  while (std::optional<std::string> key = commands.Next()) {
    auto it = by_key.find(*key);
    if (it == by_key.end()) {
      return protocol::TellFatal(
          fd, absl::StrCat("asked to run case '", *key,
                           "', which neither journal's plan holds (a flashscope defect; please "
                           "report it)"));
    }
    if (int code = finish(run(*it->second)); code != 0) return code;
  }
  return 0;
}

}  // namespace flashscope::runner
