// The CPU stand-in for `flashscope-worker` (fake_worker.cc) as an ab worker: plans both sides
// and runs pairs with synthetic interleaved samples, so that `flashscope ab` (suites/
// ab_supervisor.h, cli/cmd_ab.cc) is tested end to end without a GPU. Every suite kernel is
// offered by both sides. Steered by the environment and by the plugin files' contents:
//   a side file holding "not a plugin"   planning refuses it (FATAL, exit kExitBadPlugin)
//   a side file holding "crash at load"  the worker dies of SIGSEGV while loading it
//   a new file holding "slowdown=X"      the new side's samples are (1 + X) times slower
//   FAKE_AB_SLOWDOWN=X                   the same, overriding the file
//   FAKE_AB_ONLY_BASE=ID                 the new side does not offer kernel ID
//   FAKE_AB_FAIL_KEY=KEY                 the new side fails verification in case KEY
//   FAKE_CRASH_KEY / FAKE_HANG_KEY=KEY   with FAKE_AB_SIDE=base|new (default new): that side dies
//                                        of SIGSEGV / hangs in case KEY before it is verified (the
//                                        base side first), in phase FAKE_CRASH_PHASE (default
//                                        launch)
//   FAKE_AB_PAIR_SLEEP_MS=N              each pair takes N ms more (to be interrupted)
// Like the run stand-in, it takes its cases from RUN lines, runs on the GPU CUDA_VISIBLE_DEVICES
// pins it to among FAKE_DEVICES, records it in both sides' results and logs "UUID case KEY" to
// FAKE_EVENTS.
#include "supervisor/tests/fake_worker_ab.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>

#include "analysis/ab_verdict.h"
#include "reports/devices.h"
#include "reports/journal.h"
#include "suites/plan_cases.h"
#include "suites/suite.h"
#include "supervisor/ab_session.h"

namespace fs = flashscope;
namespace protocol = flashscope::suites::protocol;

namespace {

using protocol::kSideNames;

void Tell(int fd, protocol::Event e, const std::string& text, const std::string& key = "",
          const std::string& status = "") {
  protocol::Tell(fd, {e, key, status, text});
}

// Loads the two sides as the real worker would announce them.
void LoadSides(const protocol::WorkerRequest& r) {
  for (const std::string& p : {r.ab_base, r.ab_new}) {
    Tell(r.progress_fd, protocol::Event::kLoad, p);
    if (ReadFile(p).find("crash at load") != std::string::npos) raise(SIGSEGV);
    Tell(r.progress_fd, protocol::Event::kLoaded, p);
  }
}

double Slowdown(const protocol::WorkerRequest& r) {
  if (!Env("FAKE_AB_SLOWDOWN").empty()) return std::atof(Env("FAKE_AB_SLOWDOWN").c_str());
  const std::string text = ReadFile(r.ab_new);
  const size_t at = text.find("slowdown=");
  return at == std::string::npos ? 0.0 : std::atof(text.c_str() + at + 9);
}

// 30 interleaved pairs around 1 ms with a drift of 3 % over the case, the new side slower by
// `slowdown`; sample i of each side is pair i, `order` says who went first.
void Samples(uint64_t seed, double slowdown, std::vector<double> (&ms)[2], std::string* order) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, 0.002);
  std::bernoulli_distribution coin(0.5);
  for (int i = 0; i < 30; ++i) {
    const bool base_first = coin(rng);
    *order += base_first ? 'b' : 'n';
    for (int s = 0; s < 2; ++s) {
      const int slot = 2 * i + ((s == 0) == base_first ? 0 : 1);
      const double drift = 1 + 0.03 * slot / 60.0;
      ms[s].push_back(drift * std::exp(noise(rng)) * (s == 1 ? 1 + slowdown : 1.0));
    }
  }
}

fs::reports::TimingRecord Timing(const std::vector<double>& ms, const std::string& side,
                                 uint64_t seed, const std::string& order) {
  fs::reports::TimingRecord t;
  t.mode = "cold";
  t.samples_ms = ms;
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  t.median_ms = sorted[sorted.size() / 2];
  t.min_ms = sorted.front();
  t.max_ms = sorted.back();
  t.interleaved = fs::reports::InterleavingRecord{side, seed, order, 0};
  return t;
}

// The phase a side dies or hangs in, when it is told to in case `key`.
void MaybeDie(const protocol::WorkerRequest& r, int side, const std::string& key) {
  if (Env("FAKE_AB_SIDE").empty() ? side != 1 : Env("FAKE_AB_SIDE") != kSideNames[side]) return;
  const std::string phase = Env("FAKE_CRASH_PHASE").empty() ? "launch" : Env("FAKE_CRASH_PHASE");
  if (key == Env("FAKE_CRASH_KEY")) {
    Tell(r.progress_fd, protocol::Event::kPhase, phase);
    raise(SIGSEGV);
  }
  if (key == Env("FAKE_HANG_KEY")) {
    Tell(r.progress_fd, protocol::Event::kPhase, phase);
    while (true) sleep(1);
  }
}

struct Sides {
  fs::reports::JournalContents journal[2];
  std::optional<fs::reports::JournalWriter> writer[2];
  fs::reports::DeviceRecord me;  // the GPU this worker runs on
};

void RunUnit(const protocol::WorkerRequest& r, const fs::suites::Suite& suite, Sides& sd,
             const fs::suites::AbUnit& u) {
  const int fd = r.progress_fd;
  Tell(fd, protocol::Event::kCaseStarted, "", u.key);
  Event(sd.me.uuid + " case " + u.key);
  fs::reports::CaseResult result[2];
  for (int s = 0; s < 2; ++s) {
    if (u.index[s] < 0) continue;
    const fs::reports::PlanRecord& plan = *sd.journal[s].plan;
    (void)sd.writer[s]->CaseStarted(u.index[s], u.key);
    Tell(fd, protocol::Event::kSide, kSideNames[s]);
    Tell(fd, protocol::Event::kPhase, "supports");
    result[s] = fs::suites::NewCaseResult(plan, plan.cases[u.index[s]], suite);
    result[s].device = r.device;
    result[s].device_uuid = sd.me.uuid;
    MaybeDie(r, s, u.key);
    fs::reports::VerificationRecord v;
    v.ran = true;
    v.passed = !(s == 1 && u.key == Env("FAKE_AB_FAIL_KEY"));
    v.rule = v.passed ? "max_abs 1e-3 <= 2 x 9e-4" : "max_abs 0.4 > 2 x 9e-4";
    result[s].verification = v;
    result[s].status =
        v.passed ? fs::reports::CaseStatus::kPassed : fs::reports::CaseStatus::kFailed;
    result[s].reason = "verified; the interleaved timing of this pair did not finish";
    (void)sd.writer[s]->CaseFinished(u.index[s], result[s]);  // what the real worker keeps
    result[s].reason = v.passed ? "" : v.rule;
  }
  if (u.index[0] >= 0 && u.index[1] >= 0) {
    std::vector<double> ms[2];
    std::string order;
    const uint64_t seed = r.ab_seed ^ static_cast<uint64_t>(u.index[0]);
    Samples(seed, Slowdown(r), ms, &order);
    for (int s = 0; s < 2; ++s) result[s].timing = Timing(ms[s], kSideNames[s], seed, order);
  }
  if (!Env("FAKE_AB_PAIR_SLEEP_MS").empty())
    usleep(1000 * std::atoi(Env("FAKE_AB_PAIR_SLEEP_MS").c_str()));
  for (int s = 0; s < 2; ++s) {
    if (u.index[s] >= 0) (void)sd.writer[s]->CaseFinished(u.index[s], result[s]);
  }
  const fs::reports::AbOptions ab{r.ab_alpha, r.ab_min_effect, r.ab_allowed_slowdown};
  Tell(fd, protocol::Event::kPairVerdict,
       u.index[0] >= 0 && u.index[1] >= 0
           ? fs::reports::AbPairProgressLine(fs::reports::JudgePair(result[0], result[1], ab))
           : "one side only");
  Tell(fd, protocol::Event::kCaseFinished, "", u.key, "passed/passed");
}

}  // namespace

int FakeAbPlan(const protocol::WorkerRequest& r) {
  auto suite = fs::suites::LoadSuiteFile(r.suite_path);
  if (!suite.ok()) return protocol::TellFatal(r.progress_fd, std::string(suite.status().message()));
  LoadSides(r);
  for (const std::string& p : {r.ab_base, r.ab_new}) {
    if (ReadFile(p).find("not a plugin") != std::string::npos) {
      return protocol::TellFatal(r.progress_fd,
                                 "plugin " + p + " does not export flashscope_plugin_v1 (fake)",
                                 protocol::kExitBadPlugin);
    }
  }
  fs::reports::PlanRecord plans[2];
  for (int s = 0; s < 2; ++s) {
    fs::reports::PlanRecord& plan = plans[s];
    plan.suite_path = r.suite_path;
    plan.suite_sha256 = std::to_string(std::hash<std::string>()(ReadFile(r.suite_path)));
    plan.kernels_filter = r.kernels_filter;
    plan.plugins.push_back({true, "built-in", "fake-revision", "", ""});
    plan.plugins.push_back({false, "fakeplugin", "old", r.ab_base, "b0"});
    plan.plugins.push_back({false, "fakeplugin", "new", r.ab_new, "n0"});
    for (const auto& id : suite->kernel_patterns) {
      if (s == 1 && id == Env("FAKE_AB_ONLY_BASE")) continue;
      fs::reports::PlannedKernelRecord k;
      k.info.id = id;
      k.plugin = 1 + s;
      plan.kernels.push_back(k);
    }
    AddCases(*suite, &plan);
  }
  protocol::PlanningResult result;
  result.plan = plans[0];
  result.ab_new = plans[1];
  return WritePlanningResult(r, std::move(result));
}

int FakeAbRun(const protocol::WorkerRequest& r) {
  Sides sd;
  std::optional<fs::reports::DeviceRecord> me = MyDevice();
  if (!me) return protocol::TellFatal(r.progress_fd, "pinned to a GPU this machine lacks");
  sd.me = *me;
  sd.me.index = r.device;
  Event(sd.me.uuid + " start " + (Env("CUDA_VISIBLE_DEVICES").empty() ? "unpinned" : "pinned"));
  const std::string paths[2] = {r.journal_path, r.new_journal};
  for (int s = 0; s < 2; ++s) {
    auto j = fs::reports::ReadJournal(paths[s]);
    if (!j.ok() || !j->plan) return protocol::kExitFatal;
    sd.journal[s] = *std::move(j);
    auto w = fs::reports::JournalWriter::Open(paths[s], true);
    if (!w.ok()) return protocol::kExitFatal;
    sd.writer[s].emplace(*std::move(w));
    if (!fs::reports::FindDevice(sd.journal[s].devices, sd.me.uuid)) {
      (void)sd.writer[s]->WriteDevice(sd.me);
    }
    if (!sd.journal[s].environment) {
      fs::reports::Environment env;
      env.gpu_name = "Fake GPU";
      (void)sd.writer[s]->WriteEnvironment(env);
    }
  }
  LoadSides(r);
  auto suite = fs::suites::LoadSuiteFile(sd.journal[0].plan->suite_path);
  if (!suite.ok()) return protocol::kExitFatal;
  std::map<std::string, fs::suites::AbUnit> units;
  for (const auto& u : fs::suites::AbUnits(*sd.journal[0].plan, *sd.journal[1].plan)) {
    units[u.key] = u;
  }
  // The pairs the supervisor hands out, as the real worker takes them.
  protocol::CommandReader commands(r.command_fd);
  while (std::optional<std::string> key = commands.Next()) {
    auto it = units.find(*key);
    if (it == units.end()) return protocol::TellFatal(r.progress_fd, "no such case: " + *key);
    RunUnit(r, *suite, sd, it->second);
  }
  return 0;
}
