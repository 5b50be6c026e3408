// A CPU stand-in for flashscope-worker that speaks the real protocol (suites/worker_protocol.h),
// so that the supervisor's handling of plans, journals, crashes and hangs is tested without a GPU.
// Its kernels are the suite's kernel names taken literally, all attention_fwd; a name starting
// with "plug." comes from the first --plugin file. Behaviour is steered by the environment:
//   FAKE_NO_GPU=1                  the planning result says no device is usable
//   FAKE_CRASH_LOADING=PATH        die of SIGSEGV while "loading" that plugin file
//   FAKE_CRASH_LOADING_IN_RUN=PATH the same, only when running cases (not when planning)
//   FAKE_CRASH_KEY=KEY             die of SIGSEGV in case KEY, in phase FAKE_CRASH_PHASE (supports)
//   FAKE_HANG_KEY=KEY              never finish case KEY
//   FAKE_FATAL_AFTER=N             once the journal holds N results, say FATAL and exit
// As an ab worker (plan with --base/--new, and ab): fake_worker_ab.cc.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "absl/strings/str_split.h"
#include "reports/journal.h"
#include "suites/plan_cases.h"
#include "suites/shard.h"
#include "suites/suite.h"
#include "suites/tests/fake_worker_ab.h"
#include "suites/worker_protocol.h"

namespace fs = flashscope;
namespace protocol = flashscope::suites::protocol;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {

std::string FakeHash(const std::string& path) {
  return std::to_string(std::hash<std::string>()(ReadFile(path)));
}

void LoadPlugins(const protocol::WorkerRequest& r, const std::vector<std::string>& plugins) {
  const std::string crash = Env("FAKE_CRASH_LOADING");
  const std::string crash_in_run = Env("FAKE_CRASH_LOADING_IN_RUN");
  for (const auto& p : plugins) {
    protocol::Tell(r.progress_fd, {protocol::Event::kLoad, "", "", p});
    if (p == crash || (r.command == protocol::Command::kRun && p == crash_in_run)) raise(SIGSEGV);
    protocol::Tell(r.progress_fd, {protocol::Event::kLoaded, "", "", p});
  }
}

int Plan(const protocol::WorkerRequest& r) {
  auto suite = fs::suites::LoadSuiteFile(r.suite_path);
  if (!suite.ok()) {
    protocol::Tell(r.progress_fd,
                   {protocol::Event::kFatal, "", "", std::string(suite.status().message())});
    return protocol::kExitFatal;
  }
  LoadPlugins(r, r.plugins);
  fs::reports::PlanRecord plan;
  plan.suite_path = r.suite_path;
  plan.suite_sha256 = FakeHash(r.suite_path);
  plan.kernels_filter = r.kernels_filter;
  plan.shard = r.shard;
  plan.plugins.push_back({true, "built-in", "fake-revision", "", ""});
  for (const auto& p : r.plugins)
    plan.plugins.push_back({false, "fakeplugin", "1", p, FakeHash(p)});
  for (const auto& l : r.lost_plugins) plan.lost_plugins.push_back({l.path, l.reason});
  const std::vector<std::string> filter = absl::StrSplit(r.kernels_filter, ',', absl::SkipEmpty());
  for (const auto& id : suite->kernel_patterns) {
    bool wanted = filter.empty();
    for (const auto& f : filter) wanted |= f == id;
    if (!wanted) continue;
    fs::reports::PlannedKernelRecord k;
    k.info.id = id;
    k.info.title = "fake " + id;
    k.plugin = id.rfind("plug.", 0) == 0 && plan.plugins.size() > 1 ? 1 : 0;
    plan.kernels.push_back(k);
  }
  for (const auto& problem : suite->problems) {
    for (const auto& k : plan.kernels) {
      fs::reports::PlannedCaseRecord c;
      c.index = static_cast<int>(plan.cases.size());
      c.kernel_id = k.info.id;
      c.problem = problem;
      c.key = k.info.id + " " + fs::ProblemKey(problem);
      plan.cases.push_back(c);
    }
  }
  plan.cases = fs::suites::SelectShard(plan.cases, *fs::suites::ParseShard(r.shard),
                                       [](const auto& c) { return fs::ProblemKey(c.problem); });
  protocol::PlanningResult result{plan, {Env("FAKE_NO_GPU").empty(), "Fake GPU", 90, ""}};
  if (!result.device.usable) result.device.reason = "no CUDA-capable device is detected (fake)";
  std::ofstream(r.plan_out) << protocol::PlanningResultToText(result);
  return 0;
}

int Run(const protocol::WorkerRequest& r) {
  auto journal = fs::reports::ReadJournal(r.journal_path);
  if (!journal.ok() || !journal->plan) return protocol::kExitFatal;
  const fs::reports::PlanRecord& plan = *journal->plan;
  std::vector<std::string> plugins;
  for (const auto& p : plan.plugins) {
    if (!p.builtin) plugins.push_back(p.path);
  }
  LoadPlugins(r, plugins);
  auto suite = fs::suites::LoadSuiteFile(plan.suite_path);
  auto writer = fs::reports::JournalWriter::Open(r.journal_path, true);
  if (!suite.ok() || !writer.ok()) return protocol::kExitFatal;
  if (!journal->environment) {
    fs::reports::Environment env;
    env.gpu_name = "Fake GPU";
    (void)writer->WriteEnvironment(env);
  }
  const auto done = journal->FinishedByKey();
  const int fatal_after =
      Env("FAKE_FATAL_AFTER").empty() ? -1 : std::atoi(Env("FAKE_FATAL_AFTER").c_str());
  int ran = 0;
  for (const auto& c : plan.cases) {
    if (!c.error.empty() || done.count(c.key)) continue;
    if (fatal_after >= 0 && static_cast<int>(done.size()) + ran >= fatal_after) {
      protocol::Tell(r.progress_fd, {protocol::Event::kFatal, "", "", "fake fatal error"});
      return protocol::kExitFatal;
    }
    protocol::Tell(r.progress_fd, {protocol::Event::kCaseStarted, c.key, "", ""});
    (void)writer->CaseStarted(c.index, c.key);
    const std::string phase =
        Env("FAKE_CRASH_PHASE").empty() ? "supports" : Env("FAKE_CRASH_PHASE");
    protocol::Tell(r.progress_fd, {protocol::Event::kPhase, "", "", phase});
    if (c.key == Env("FAKE_CRASH_KEY")) raise(SIGSEGV);
    while (c.key == Env("FAKE_HANG_KEY")) sleep(1);
    fs::reports::CaseResult result = fs::suites::NewCaseResult(plan, c, *suite);
    result.status = fs::reports::CaseStatus::kPassed;
    (void)writer->CaseFinished(c.index, result);
    protocol::Tell(r.progress_fd, {protocol::Event::kCaseFinished, c.key, "passed", ""});
    ++ran;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  auto request = protocol::ParseWorkerArgv(std::vector<std::string>(argv, argv + argc));
  if (!request.ok()) {
    std::fprintf(stderr, "%s\n", std::string(request.status().message()).c_str());
    return protocol::kExitFatal;
  }
  if (request->command == protocol::Command::kPlan) {
    return request->ab_base.empty() ? Plan(*request) : FakeAbPlan(*request);
  }
  if (request->command == protocol::Command::kRun) return Run(*request);
  if (request->command == protocol::Command::kAb) return FakeAbRun(*request);
  return protocol::kExitFatal;
}
