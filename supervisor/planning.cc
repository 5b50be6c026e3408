#include "supervisor/planning.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "protocol/worker_process.h"
#include "reports/input_file.h"
#include "reports/text_safety.h"

namespace flashscope::suites {
namespace {

// Loading plugins and planning take seconds; a worker silent this long is stuck.
constexpr double kPlanningLimitS = 120;

// A folder of our own for the planning result, removed when done.
class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && tmp[0] ? tmp : "/tmp") + "/flashscope-plan-XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Attempt {
  bool finished = false;  // the worker wrote a plan
  std::string loading;    // the plugin being loaded when the worker died or hung
  std::string phase;      // the last call the worker said it was making (supports() of ...)
  std::string fatal;      // what the worker said before giving up
  std::string death;      // how it died, if it did not finish
  bool hung = false;      // killed by us after kPlanningLimitS without progress
  int exit_code = -1;     // when it exited (not killed by a signal)
};

Attempt RunPlanner(const std::string& worker_exe, const protocol::WorkerRequest& w) {
  Attempt a;
  auto worker = WorkerProcess::Start(worker_exe, w);
  if (!worker.ok()) {
    a.death = std::string(worker.status().message());
    return a;
  }
  protocol::Message m;
  while (true) {
    const auto read = worker->Next(kPlanningLimitS, &m);
    if (read == WorkerProcess::Read::kTimedOut) {
      worker->Kill();
      a.hung = true;
      a.death = absl::StrCat("made no progress for ", kPlanningLimitS, " s and was killed");
      break;
    }
    if (read == WorkerProcess::Read::kEnded) break;
    if (m.event == protocol::Event::kLoad) a.loading = m.text;
    if (m.event == protocol::Event::kLoaded) a.loading.clear();
    if (m.event == protocol::Event::kPhase) a.phase = m.text;
    if (m.event == protocol::Event::kFatal) {
      a.fatal = m.text;
      a.loading.clear();  // a refusal the worker explained (a FATAL line), not a crash
    }
  }
  const int status = worker->Wait();
  if (WIFEXITED(status)) a.exit_code = WEXITSTATUS(status);
  if (a.death.empty()) {
    a.finished = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!a.finished) {
      a.death = DiedOfSignal(status) ? CauseOfDeath(status) : DescribeExit(status);
    }
  }
  return a;
}

absl::StatusOr<protocol::PlanningResult> ReadPlanningResult(const std::string& plan_out) {
  absl::StatusOr<std::string> text = reports::ReadInputFile(plan_out);
  if (!text.ok()) return text.status();
  return protocol::PlanningResultFromText(*text);
}

}  // namespace

absl::StatusOr<protocol::PlanningResult> PlanInWorker(const PlanRequest& request) {
  ScratchDir scratch;
  if (scratch.path().empty()) {
    return absl::InternalError("cannot create a scratch folder for planning (set TMPDIR?)");
  }
  const std::string plan_out = scratch.path() + "/plan.json";
  std::vector<protocol::LostPlugin> lost;
  // Each crash drops one plugin, so this ends.
  for (size_t attempt = 0; attempt <= request.plugins.size(); ++attempt) {
    protocol::WorkerRequest w;
    w.command = protocol::Command::kPlan;
    w.suite_path = request.suite_path;
    w.kernels_filter = request.kernels_filter;
    w.shard = request.shard;
    w.check_supports = request.check_supports;
    w.plan_out = plan_out;
    w.lost_plugins = lost;
    for (const auto& p : request.plugins) {
      bool is_lost = false;
      for (const auto& l : lost) is_lost |= l.path == p;
      if (!is_lost) w.plugins.push_back(p);
    }
    const Attempt a = RunPlanner(request.worker_exe, w);
    if (a.finished) return ReadPlanningResult(plan_out);
    if (!a.loading.empty()) {
      // The worker died (or hung) inside this plugin's loading: its code, not ours.
      const std::string reason =
          absl::StrCat("plugin ", a.loading,
                       a.hung ? " hung while loading: " : " crashed while loading: ", a.death);
      std::fprintf(stderr, "flashscope: %s; planning without it\n",
                   reports::text::TerminalSafe(reason).c_str());
      lost.push_back({a.loading, reason});
      continue;
    }
    if (!a.fatal.empty()) return absl::InvalidArgumentError(a.fatal);
    if (!a.phase.empty()) {  // the plugin's code, asked about a planned case (--dry_run)
      return absl::InvalidArgumentError(
          absl::StrCat("flashscope-worker ", a.death, " in ", a.phase, " while planning"));
    }
    return absl::InternalError(
        absl::StrCat("flashscope-worker ", a.death, " while planning (its messages are above)"));
  }
  return absl::InternalError("planning did not converge (a flashscope defect; please report it)");
}

absl::StatusOr<protocol::PlanningResult> PlanAbInWorker(const AbPlanRequest& request) {
  ScratchDir scratch;
  if (scratch.path().empty()) {
    return absl::InternalError("cannot create a scratch folder for planning (set TMPDIR?)");
  }
  protocol::WorkerRequest w;
  w.command = protocol::Command::kPlan;
  w.suite_path = request.suite_path;
  w.kernels_filter = request.kernels_filter;
  w.plan_out = scratch.path() + "/plan.json";
  w.ab_base = request.base;
  w.ab_new = request.next;
  const Attempt a = RunPlanner(request.worker_exe, w);
  if (a.finished) {
    auto result = ReadPlanningResult(w.plan_out);
    if (result.ok() && !result->ab_new) {
      return absl::InternalError("the worker made no plan for the new side (another version?)");
    }
    return result;
  }
  if (!a.loading.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("plugin ", a.loading,
                     a.hung ? " hung while loading: " : " crashed while loading: ", a.death));
  }
  if (a.exit_code == protocol::kExitBadPlugin) return absl::FailedPreconditionError(a.fatal);
  if (!a.fatal.empty()) return absl::InvalidArgumentError(a.fatal);
  return absl::InternalError(
      absl::StrCat("flashscope-worker ", a.death, " while planning (its messages are above)"));
}

}  // namespace flashscope::suites
