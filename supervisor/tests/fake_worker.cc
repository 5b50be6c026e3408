// A CPU stand-in for flashscope-worker that speaks the real protocol (protocol/worker_protocol.h),
// so that the supervisor's handling of plans, journals, devices, crashes and hangs is tested
// without a GPU. Its kernels are the suite's kernel names taken literally, all attention_fwd; a
// name starting with "plug." comes from the first --plugin file. It pretends to see the GPUs of
// FAKE_DEVICES and, like a real worker, runs on the one CUDA_VISIBLE_DEVICES names (else on the
// first). Behaviour is steered by the environment:
//   FAKE_NO_GPU=1                  the planning result says no device is usable
//   FAKE_DEVICES=NAME,NAME,...     the GPUs it sees (default one "Fake GPU"); GPU i has the UUID
//                                  GPU-fake-i; a name ending in "/80" has 80 GiB instead of 141
//   FAKE_EVENTS=FILE               append "UUID start pinned|unpinned", "UUID inputs PROBLEM" (a
//                                  problem's inputs made: the first case of a problem in this
//                                  process) and "UUID case KEY" lines to FILE
//   FAKE_CASE_MS=N                 each case takes N ms
//   FAKE_SLOW_UUID=UUID:N          cases on that GPU take N ms more
//   FAKE_RESULT_KB=N               pad each result to about N kB (journal lines written in pieces)
//   FAKE_CRASH_LOADING=PATH        die of SIGSEGV while "loading" that plugin file
//   FAKE_CRASH_LOADING_IN_RUN=PATH the same, only when running cases (not when planning)
//   FAKE_CRASH_KEY=KEY             die of SIGSEGV in case KEY, in phase FAKE_CRASH_PHASE (supports)
//   FAKE_HANG_KEY=KEY              never finish case KEY (hang in phase FAKE_CRASH_PHASE)
//   FAKE_PARK=MS                   a parking worker (the RUN lines of a window): takes the RUN
//   lines
//                                  that come within MS ms of each other (NextWithin), starts each
//                                  (S, P supports, P timing) and parks it; then "collects the
//                                  counters" of the batch (a keyed P profiling line for each) and
//                                  finishes each (keyed P concluding, its result, F); appends
//                                  "UUID batch N" to FAKE_EVENTS. FAKE_CRASH_PHASE may then name
//                                  any of those phases
//   FAKE_PARKED_MS=N               a parking worker takes N ms to run each case up to parking
//   FAKE_DIE_AFTER_FIRST_F=1       a parking worker dies (SIGSEGV) after the first F of a batch
//   FAKE_FATAL_AFTER=N             once the journal holds N results, say FATAL and exit
//   FAKE_FATAL_UUID=UUID           on that GPU, say FATAL at once (a GPU that fell off the bus)
// As an ab worker (plan with --base/--new, and ab): fake_worker_ab.cc.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "protocol/worker_protocol.h"
#include "reports/devices.h"
#include "reports/journal.h"
#include "suites/plan_cases.h"
#include "suites/shard.h"
#include "suites/suite.h"
#include "supervisor/tests/fake_worker_ab.h"

namespace fs = flashscope;
namespace protocol = flashscope::suites::protocol;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

int EnvInt(const char* name, int fallback) {
  const std::string v = Env(name);
  return v.empty() ? fallback : std::atoi(v.c_str());
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Event(const std::string& line) {
  if (Env("FAKE_EVENTS").empty()) return;
  std::ofstream(Env("FAKE_EVENTS"), std::ios::app) << line << "\n";
}

std::vector<fs::reports::DeviceRecord> FakeDevices() {
  const std::string names = Env("FAKE_DEVICES").empty() ? "Fake GPU" : Env("FAKE_DEVICES");
  std::vector<fs::reports::DeviceRecord> out;
  for (absl::string_view name : absl::StrSplit(names, ',')) {
    fs::reports::DeviceRecord d;
    d.index = static_cast<int>(out.size());
    d.uuid = "GPU-fake-" + std::to_string(d.index);
    d.pci_bus_id = "0000:0" + std::to_string(d.index) + ":00.0";
    d.name = std::string(name);
    d.compute_capability = 90;
    d.sm_count = 132;
    d.memory_bytes = (absl::EndsWith(name, "/80") ? 80LL : 141LL) << 30;
    d.sm_clock_mhz = 1980;
    d.driver_version = "fake-driver";
    out.push_back(d);
  }
  return out;
}

std::optional<fs::reports::DeviceRecord> MyDevice() {
  const std::vector<fs::reports::DeviceRecord> all = FakeDevices();
  const std::string pinned = Env("CUDA_VISIBLE_DEVICES");
  if (pinned.empty()) return all[0];
  if (const auto* d = fs::reports::FindDevice(all, pinned)) return *d;
  return std::nullopt;
}

void AddCases(const fs::suites::Suite& suite, fs::reports::PlanRecord* plan) {
  for (const auto& problem : suite.problems) {
    for (const auto& k : plan->kernels) {
      fs::reports::PlannedCaseRecord c;
      c.index = static_cast<int>(plan->cases.size());
      c.kernel_id = k.info.id;
      c.problem = problem;
      c.key = k.info.id + " " + fs::ProblemKey(problem);
      plan->cases.push_back(c);
    }
  }
}

int WritePlanningResult(const protocol::WorkerRequest& r, protocol::PlanningResult result) {
  if (Env("FAKE_NO_GPU").empty()) {
    result.devices = FakeDevices();
    result.device = {true, result.devices[0].name, 90, ""};
  } else {
    result.device.reason = "no CUDA-capable device is detected (fake)";
  }
  std::ofstream(r.plan_out) << protocol::PlanningResultToText(result);
  return 0;
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

fs::reports::PlanRecord MakePlan(const protocol::WorkerRequest& r, const fs::suites::Suite& suite) {
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
  for (const auto& id : suite.kernel_patterns) {
    bool wanted = filter.empty();
    for (const auto& f : filter) wanted |= f == id;
    if (!wanted) continue;
    fs::reports::PlannedKernelRecord k;
    k.info.id = id;
    k.info.title = "fake " + id;
    k.plugin = id.rfind("plug.", 0) == 0 && plan.plugins.size() > 1 ? 1 : 0;
    plan.kernels.push_back(k);
  }
  AddCases(suite, &plan);
  plan.cases = fs::suites::SelectShard(plan.cases, *fs::suites::ParseShard(r.shard),
                                       [](const auto& c) { return fs::ProblemKey(c.problem); });
  return plan;
}

int Plan(const protocol::WorkerRequest& r) {
  auto suite = fs::suites::LoadSuiteFile(r.suite_path);
  if (!suite.ok()) {
    protocol::Tell(r.progress_fd,
                   {protocol::Event::kFatal, "", "", std::string(suite.status().message())});
    return protocol::kExitFatal;
  }
  LoadPlugins(r, r.plugins);
  return WritePlanningResult(r, {MakePlan(r, *suite), {}, {}});
}

// A progress line of phase `phase` (of case `keyed`'s, a keyed P line, when set) while running
// case `c`, where FAKE_CRASH_KEY dies and FAKE_HANG_KEY hangs in phase FAKE_CRASH_PHASE.
void EnterPhase(const protocol::WorkerRequest& r, const fs::reports::PlannedCaseRecord& c,
                const std::string& phase, const std::string& keyed = "") {
  protocol::Tell(r.progress_fd, {protocol::Event::kPhase, keyed, "", phase});
  const std::string fatal = Env("FAKE_CRASH_PHASE").empty() ? "supports" : Env("FAKE_CRASH_PHASE");
  if (phase != fatal) return;
  if (c.key == Env("FAKE_CRASH_KEY")) raise(SIGSEGV);
  while (c.key == Env("FAKE_HANG_KEY")) sleep(1);
}

// A case's start: its S line and journal line.
void BeginCase(const protocol::WorkerRequest& r, const fs::reports::PlannedCaseRecord& c,
               fs::reports::JournalWriter& writer) {
  protocol::Tell(r.progress_fd, {protocol::Event::kCaseStarted, c.key, "", ""});
  (void)writer.CaseStarted(c.index, c.key);
}

// A case's inputs: its problem's made when it is not the one this worker made last.
void MakeInputs(const fs::reports::PlannedCaseRecord& c, const fs::reports::DeviceRecord& me,
                std::string* last_problem) {
  if (fs::ProblemKey(c.problem) == *last_problem) return;
  *last_problem = fs::ProblemKey(c.problem);
  Event(me.uuid + " inputs " + *last_problem);
}

// A case's work and end: its result in the journal, then its F line.
void FinishCase(const protocol::WorkerRequest& r, const fs::reports::PlanRecord& plan,
                const fs::suites::Suite& suite, const fs::reports::PlannedCaseRecord& c,
                const fs::reports::DeviceRecord& me, fs::reports::JournalWriter& writer) {
  Event(me.uuid + " case " + c.key);
  int ms = EnvInt("FAKE_CASE_MS", 0);
  const std::string slow = Env("FAKE_SLOW_UUID");
  if (!slow.empty() && slow.substr(0, slow.find(':')) == me.uuid) {
    ms += std::atoi(slow.substr(slow.find(':') + 1).c_str());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  fs::reports::CaseResult result = fs::suites::NewCaseResult(plan, c, suite);
  result.status = fs::reports::CaseStatus::kPassed;
  result.device = r.device;
  result.device_uuid = me.uuid;
  result.wall_s = ms / 1000.0;
  if (const int kb = EnvInt("FAKE_RESULT_KB", 0); kb > 0) {
    // A consistent timing (median, mean, min and max of its samples): readers check that.
    fs::reports::TimingRecord& t = result.timing.emplace();
    t.samples_ms.assign(static_cast<size_t>(kb) * 1024 / 20, 1.25);
    t.median_ms = t.mean_ms = t.min_ms = t.max_ms = 1.25;
  }
  (void)writer.CaseFinished(c.index, result);
  protocol::Tell(r.progress_fd, {protocol::Event::kCaseFinished, c.key, "passed", ""});
}

const fs::reports::PlannedCaseRecord* FindCase(const fs::reports::PlanRecord& plan,
                                               const std::string& key) {
  for (const auto& c : plan.cases) {
    if (c.key == key) return &c;
  }
  return nullptr;
}

// FAKE_PARK: batches of the RUN lines that arrive together, each case parked after its timing and
// finished after the batch's shared "counter collection".
int RunParking(const protocol::WorkerRequest& r, const fs::reports::PlanRecord& plan,
               const fs::suites::Suite& suite, const fs::reports::DeviceRecord& me,
               fs::reports::JournalWriter& writer) {
  protocol::CommandReader commands(r.command_fd);
  const int wait_ms = EnvInt("FAKE_PARK", 0);
  std::string key, last_problem;
  // The first case of a batch: as long as it takes; the rest: those that follow it closely.
  for (protocol::CommandWait got = commands.NextWithin(-1, &key);
       got == protocol::CommandWait::kCommand; got = commands.NextWithin(-1, &key)) {
    std::vector<const fs::reports::PlannedCaseRecord*> parked;
    for (; got == protocol::CommandWait::kCommand; got = commands.NextWithin(wait_ms, &key)) {
      const fs::reports::PlannedCaseRecord* c = FindCase(plan, key);
      if (c == nullptr) return protocol::TellFatal(r.progress_fd, "no such case: " + key);
      BeginCase(r, *c, writer);
      EnterPhase(r, *c, protocol::phase::kSupports);
      MakeInputs(*c, me, &last_problem);
      EnterPhase(r, *c, protocol::phase::kTiming);
      std::this_thread::sleep_for(std::chrono::milliseconds(EnvInt("FAKE_PARKED_MS", 0)));
      parked.push_back(c);
    }
    Event(me.uuid + " batch " + std::to_string(parked.size()));
    for (const auto* c : parked) EnterPhase(r, *c, protocol::phase::kProfiling, c->key);
    for (const auto* c : parked) {
      EnterPhase(r, *c, protocol::phase::kConcluding, c->key);
      FinishCase(r, plan, suite, *c, me, writer);
      if (!Env("FAKE_DIE_AFTER_FIRST_F").empty()) raise(SIGSEGV);
    }
    if (got == protocol::CommandWait::kEnd) break;
  }
  return 0;
}

// One case, as a real worker would run it (minus the GPU).
void RunOne(const protocol::WorkerRequest& r, const fs::reports::PlanRecord& plan,
            const fs::suites::Suite& suite, const fs::reports::PlannedCaseRecord& c,
            const fs::reports::DeviceRecord& me, fs::reports::JournalWriter& writer,
            std::string* last_problem) {
  BeginCase(r, c, writer);
  EnterPhase(
      r, c, Env("FAKE_CRASH_PHASE").empty() ? protocol::phase::kSupports : Env("FAKE_CRASH_PHASE"));
  MakeInputs(c, me, last_problem);
  FinishCase(r, plan, suite, c, me, writer);
}

int Run(const protocol::WorkerRequest& r) {
  auto journal = fs::reports::ReadJournal(r.journal_path);
  if (!journal.ok() || !journal->plan) return protocol::kExitFatal;
  const fs::reports::PlanRecord& plan = *journal->plan;
  std::optional<fs::reports::DeviceRecord> me = MyDevice();
  if (!me) {
    return protocol::TellFatal(r.progress_fd, "pinned to a GPU this machine does not have: " +
                                                  Env("CUDA_VISIBLE_DEVICES"));
  }
  me->index = r.device;
  Event(me->uuid + " start " + (Env("CUDA_VISIBLE_DEVICES").empty() ? "unpinned" : "pinned"));
  if (me->uuid == Env("FAKE_FATAL_UUID")) {
    return protocol::TellFatal(r.progress_fd, "fake GPU lost: " + me->uuid);
  }
  std::vector<std::string> plugins;
  for (const auto& p : plan.plugins) {
    if (!p.builtin) plugins.push_back(p.path);
  }
  LoadPlugins(r, plugins);
  auto suite = fs::suites::LoadSuiteFile(plan.suite_path);
  auto writer = fs::reports::JournalWriter::Open(r.journal_path, true);
  if (!suite.ok() || !writer.ok()) return protocol::kExitFatal;
  if (!fs::reports::FindDevice(journal->devices, me->uuid)) (void)writer->WriteDevice(*me);
  if (!journal->environment) {
    fs::reports::Environment env;
    env.gpu_name = me->name;
    (void)writer->WriteEnvironment(env);
  }
  const auto done = journal->FinishedByKey();
  const int fatal_after = EnvInt("FAKE_FATAL_AFTER", -1);
  int ran = 0;
  std::string last_problem;
  auto may_run = [&]() {
    if (fatal_after < 0 || static_cast<int>(done.size()) + ran < fatal_after) return true;
    protocol::Tell(r.progress_fd, {protocol::Event::kFatal, "", "", "fake fatal error"});
    return false;
  };
  if (r.command_fd >= 0 && !Env("FAKE_PARK").empty()) {
    return RunParking(r, plan, *suite, *me, *writer);
  }
  if (r.command_fd >= 0) {
    protocol::CommandReader commands(r.command_fd);
    while (std::optional<std::string> key = commands.Next()) {
      const fs::reports::PlannedCaseRecord* c = FindCase(plan, *key);
      if (c == nullptr) return protocol::TellFatal(r.progress_fd, "no such case: " + *key);
      if (!may_run()) return protocol::kExitFatal;
      RunOne(r, plan, *suite, *c, *me, *writer, &last_problem);
      ++ran;
    }
    return 0;
  }
  for (const auto& c : plan.cases) {
    if (!c.error.empty() || done.count(c.key)) continue;
    if (!may_run()) return protocol::kExitFatal;
    RunOne(r, plan, *suite, c, *me, *writer, &last_problem);
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
