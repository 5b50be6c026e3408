// `flashscope ab` from the supervisor's side (supervisor/ab_supervisor.h) with the CPU stand-in for
// flashscope-worker (tests/fake_worker_ab.cc): two reports with interleaved timings and the
// sides' provenance, "cannot test" for a side that does not load, a crash or a hang that costs
// one side of one pair while the other side keeps what it measured, an interruption that leaves
// partial reports and nothing else, and the refusals.
#include "supervisor/ab_supervisor.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "analysis/ab_verdict.h"
#include "common/tests/expect_has.h"

namespace flashscope::suites {
namespace {

namespace fs = std::filesystem;

constexpr char kSuite[] = R"({"name": "fake", "kernels": ["fake.a", "fake.b"],
  "problems": [{"family": "attention_fwd", "axes": {"seq": [17, 64]}}], "case_timeout_s": 30})";

class AbSupervisorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v :
         {"FAKE_NO_GPU", "FAKE_AB_SLOWDOWN", "FAKE_AB_ONLY_BASE", "FAKE_AB_FAIL_KEY",
          "FAKE_CRASH_KEY", "FAKE_HANG_KEY", "FAKE_AB_SIDE", "FAKE_CRASH_PHASE",
          "FAKE_AB_PAIR_SLEEP_MS", "FLASHSCOPE_PLUGINS", "FAKE_DEVICES", "FAKE_EVENTS"}) {
      unsetenv(v);
    }
    dir_ = fs::temp_directory_path() /
           ("flashscope_ab_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    suite_ = (dir_ / "fake.json").string();
    std::ofstream(suite_) << kSuite;
    base_ = Plugin("libold.so", "an old build");
    new_ = Plugin("libnew.so", "a new build");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Plugin(const std::string& name, const std::string& contents) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << contents;
    return path;
  }
  AbArgs Args() const {
    AbArgs a;
    a.suite_path = suite_;
    a.base_plugin = base_;
    a.new_plugin = new_;
    a.out_dir = Out();
    a.seed = 99;
    a.worker_exe = FLASHSCOPE_FAKE_WORKER;
    a.command_line = "flashscope ab fake.json";
    return a;
  }
  std::string Out() const { return (dir_ / "out").string(); }
  std::string Key(const std::string& kernel, int seq) const {
    return kernel + " attention_fwd{B=1,H=1,S=" + std::to_string(seq) + ",D=64,fp16}";
  }
  AbOutcome Run(const AbArgs& a) {
    ::testing::internal::CaptureStderr();
    AbOutcome r = SuperviseAb(a);
    stderr_ = ::testing::internal::GetCapturedStderr();
    return r;
  }
  reports::AbResult Verdict(const AbOutcome& o) {
    return reports::JudgeAb(reports::CompareAb(o.base, o.next, reports::AbOptions{}));
  }
  const reports::CaseResult* Case(const reports::Report& r, const std::string& key) {
    for (const auto& c : r.cases) {
      if (c.Key() == key) return &c;
    }
    return nullptr;
  }
  std::set<std::string> OutFiles() const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(Out())) names.insert(e.path().filename().string());
    return names;
  }

  fs::path dir_;
  std::string suite_, base_, new_, stderr_;
};

TEST_F(AbSupervisorTest, TwoReportsOfInterleavedPairsWithEachSidesProvenance) {
  AbOutcome o = Run(Args());
  ASSERT_EQ(o.exit_code, 0) << stderr_;
  EXPECT_EQ(OutFiles(), (std::set<std::string>{"base.json", "new.json"})) << "journals removed";
  ASSERT_EQ(o.base.cases.size(), 4u);
  ASSERT_EQ(o.next.cases.size(), 4u);
  EXPECT_TRUE(o.base.complete);
  const reports::CaseResult& b = o.base.cases[0];
  const reports::CaseResult& n = o.next.cases[0];
  EXPECT_EQ(b.Key(), n.Key());
  EXPECT_EQ(b.provenance->path, fs::canonical(base_).string());
  EXPECT_EQ(n.provenance->path, fs::canonical(new_).string());
  ASSERT_TRUE(b.timing && b.timing->interleaved);
  EXPECT_EQ(b.timing->interleaved->side, "base");
  EXPECT_EQ(n.timing->interleaved->side, "new");
  EXPECT_EQ(b.timing->interleaved->order, n.timing->interleaved->order);
  EXPECT_TRUE(Verdict(o).passed());
  EXPECT_HAS(stderr_, "seed 99");
  EXPECT_HAS(stderr_, "[4/4] same");
  EXPECT_HAS(stderr_, "ETA");
}

// `ab --devices`: one worker pinned to each GPU, the pairs handed out as GPUs free up, and both
// sides of every pair on one GPU (issue 19: a pair split over two GPUs would compare the GPUs).
TEST_F(AbSupervisorTest, WithDevicesBothSidesOfEachPairRunOnOneGpu) {
  const std::string events = (dir_ / "events.txt").string();
  setenv("FAKE_DEVICES", "Fake H200,Fake H200", 1);
  setenv("FAKE_EVENTS", events.c_str(), 1);
  setenv("FAKE_AB_PAIR_SLEEP_MS", "150", 1);  // long enough that both GPUs take pairs
  AbArgs a = Args();
  a.devices = "0,1";
  AbOutcome o = Run(a);
  ASSERT_EQ(o.exit_code, 0) << stderr_;
  ASSERT_EQ(o.base.cases.size(), 4u);
  std::set<std::string> used;
  for (const reports::CaseResult& b : o.base.cases) {
    const reports::CaseResult* n = Case(o.next, b.Key());
    ASSERT_TRUE(n != nullptr);
    EXPECT_EQ(b.device_uuid, n->device_uuid) << b.Key();
    EXPECT_EQ(b.device, n->device) << b.Key();
    used.insert(b.device_uuid);
  }
  EXPECT_EQ(used, (std::set<std::string>{"GPU-fake-0", "GPU-fake-1"})) << stderr_;
  std::ifstream in(events);
  int pinned = 0;
  for (std::string line; std::getline(in, line);) pinned += line.find(" start pinned") != line.npos;
  EXPECT_EQ(pinned, 2) << "one pinned worker per GPU";
  EXPECT_EQ(o.base.environment.devices.size(), 2u);
  EXPECT_EQ(o.next.environment.devices.size(), 2u);
  EXPECT_HAS(stderr_, "2 GPUs, one worker each");
}

TEST_F(AbSupervisorTest, ASlowerNewSideIsARegression) {
  setenv("FAKE_AB_SLOWDOWN", "0.01", 1);
  AbOutcome o = Run(Args());
  ASSERT_EQ(o.exit_code, 0) << stderr_;
  reports::AbResult r = Verdict(o);
  ASSERT_EQ(r.failures.size(), 4u);
  EXPECT_EQ(r.failures[0].rule, "slowdown");
  EXPECT_EQ(r.ExitCode(), 1);
  EXPECT_HAS(stderr_, "] slower  +1.0");
}

TEST_F(AbSupervisorTest, ASideThatCannotLoadCannotBeTested) {
  AbArgs missing = Args();
  missing.new_plugin = (dir_ / "libgone.so").string();
  EXPECT_EQ(Run(missing).exit_code, kExitCannotTest);
  EXPECT_HAS(stderr_, "libgone.so (--new): no such file");
  AbArgs refused = Args();
  refused.new_plugin = Plugin("libjunk.so", "not a plugin");
  AbOutcome r = Run(refused);
  EXPECT_EQ(r.exit_code, kExitCannotTest);
  EXPECT_HAS(r.cannot_test, "does not export flashscope_plugin_v1");
  AbArgs crashing = Args();
  crashing.base_plugin = Plugin("libcrash.so", "crash at load");
  AbOutcome c = Run(crashing);
  EXPECT_EQ(c.exit_code, kExitCannotTest);
  EXPECT_HAS(c.cannot_test, "libcrash.so crashed while loading: signal 11");
  EXPECT_FALSE(fs::exists(Out())) << "nothing written for a side that cannot be tested";
}

TEST_F(AbSupervisorTest, BadInputIsExitTwoAndWritesNothing) {
  AbArgs same = Args();
  same.new_plugin = base_;
  EXPECT_EQ(Run(same).exit_code, 2);
  EXPECT_HAS(stderr_, "the same file");
  EXPECT_HAS(stderr_, "cp ");
  AbArgs bad_suite = Args();
  bad_suite.suite_path = (dir_ / "nothing.json").string();
  EXPECT_EQ(Run(bad_suite).exit_code, 2);
  setenv("FAKE_NO_GPU", "1", 1);
  EXPECT_EQ(Run(Args()).exit_code, 2);
  EXPECT_HAS(stderr_, "no usable GPU");
  EXPECT_FALSE(fs::exists(Out()));
  unsetenv("FAKE_NO_GPU");
  fs::create_directories(Out());
  std::ofstream(Out() + "/new.json.journal.jsonl") << "{}";
  EXPECT_EQ(Run(Args()).exit_code, 2);
  EXPECT_HAS(stderr_, "already holds new.json.journal.jsonl");
}

TEST_F(AbSupervisorTest, DryRunShowsBothSidesAndTheCases) {
  setenv("FAKE_NO_GPU", "1", 1);
  setenv("FAKE_AB_ONLY_BASE", "fake.b", 1);
  AbArgs a = Args();
  a.dry_run = true;
  ::testing::internal::CaptureStdout();
  AbOutcome o = Run(a);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(o.exit_code, 0) << stderr_;
  EXPECT_HAS(out, "base: fakeplugin old");
  EXPECT_HAS(out, "new: fakeplugin new");
  EXPECT_HAS(out, "4 cases");
  EXPECT_HAS(out, Key("fake.b", 17) + "  [base side only]");
  EXPECT_FALSE(fs::exists(Out()));
}

TEST_F(AbSupervisorTest, ACrashOfTheNewSideCostsItsSideOfOnePairOnly) {
  setenv("FAKE_CRASH_KEY", Key("fake.b", 17).c_str(), 1);
  AbOutcome o = Run(Args());
  ASSERT_EQ(o.exit_code, 0) << stderr_;
  const reports::CaseResult* n = Case(o.next, Key("fake.b", 17));
  const reports::CaseResult* b = Case(o.base, Key("fake.b", 17));
  ASSERT_TRUE(n && b);
  EXPECT_EQ(n->status, reports::CaseStatus::kError);
  EXPECT_HAS(n->reason,
             "plugin " + fs::canonical(new_).string() + " (fakeplugin new) crashed at launch");
  EXPECT_EQ(b->status, reports::CaseStatus::kPassed) << "verified before the other side died";
  ASSERT_TRUE(b->verification);
  EXPECT_HAS(b->reason, "not timed: the new side crashed");
  EXPECT_EQ(Case(o.next, Key("fake.a", 64))->status, reports::CaseStatus::kPassed)
      << "a fresh worker went on";
  reports::AbResult r = Verdict(o);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].rule, "correctness");
  EXPECT_HAS(stderr_, "new error " + Key("fake.b", 17));
  EXPECT_HAS(stderr_, "crashed at launch");
}

TEST_F(AbSupervisorTest, ACrashOfTheBaseSideIsNoRegression) {
  setenv("FAKE_CRASH_KEY", Key("fake.a", 64).c_str(), 1);
  setenv("FAKE_AB_SIDE", "base", 1);
  AbOutcome o = Run(Args());
  ASSERT_EQ(o.exit_code, 0) << stderr_;
  EXPECT_EQ(Case(o.base, Key("fake.a", 64))->status, reports::CaseStatus::kError);
  const reports::CaseResult* n = Case(o.next, Key("fake.a", 64));
  EXPECT_EQ(n->status, reports::CaseStatus::kSkipped) << "the new side never ran";
  EXPECT_HAS(n->reason, "the base side crashed");
  reports::AbComparison c = reports::CompareAb(o.base, o.next, reports::AbOptions{});
  EXPECT_TRUE(reports::JudgeAb(c).passed());
  EXPECT_EQ(c.CountVerdict(reports::Verdict::kNotTimed), 1);
}

TEST_F(AbSupervisorTest, AHangIsATimeoutOfItsSide) {
  setenv("FAKE_HANG_KEY", Key("fake.a", 17).c_str(), 1);
  AbArgs a = Args();
  a.case_timeout_s = 0.5;  // a pair gets 1 s
  AbOutcome o = Run(a);
  ASSERT_EQ(o.exit_code, 0) << stderr_;
  const reports::CaseResult* n = Case(o.next, Key("fake.a", 17));
  EXPECT_EQ(n->status, reports::CaseStatus::kTimeout);
  EXPECT_HAS(n->reason, "exceeded the pair time limit of 1 s");
  EXPECT_EQ(Case(o.base, Key("fake.a", 17))->status, reports::CaseStatus::kPassed);
  EXPECT_EQ(Verdict(o).failures.size(), 1u);
}

TEST_F(AbSupervisorTest, AKernelOnlyTheBaseOffersIsMissingOnTheNewSide) {
  setenv("FAKE_AB_ONLY_BASE", "fake.b", 1);
  AbOutcome o = Run(Args());
  ASSERT_EQ(o.exit_code, 0) << stderr_;
  EXPECT_EQ(o.base.cases.size(), 4u);
  EXPECT_EQ(o.next.cases.size(), 2u);
  reports::AbResult r = Verdict(o);
  ASSERT_EQ(r.failures.size(), 2u);
  EXPECT_EQ(r.failures[0].rule, "missing");
}

TEST_F(AbSupervisorTest, AnInterruptedAbLeavesPartialReportsAndNothingElse) {
  setenv("FAKE_AB_PAIR_SLEEP_MS", "500", 1);
  std::thread killer([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    kill(getpid(), SIGTERM);
  });
  AbOutcome o = Run(Args());
  killer.join();
  EXPECT_EQ(o.exit_code, 128 + SIGTERM) << stderr_;
  EXPECT_HAS(stderr_, "stopped by signal 15");
  EXPECT_HAS(stderr_, "partial reports (complete: false)");
  EXPECT_EQ(OutFiles(), (std::set<std::string>{"base.json", "new.json"}));
  EXPECT_TRUE(o.base_path.empty()) << "no verdict for a stopped ab";
}

}  // namespace
}  // namespace flashscope::suites
