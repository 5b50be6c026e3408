// `flashscope run --devices` (docs/devices.md) with the CPU stand-in worker pretending to see
// several GPUs (tests/fake_worker.cc, FAKE_DEVICES): one pinned worker per GPU, cases handed out
// as GPUs free up, problem-major; a worker that dies or hangs costs its case and restarts on its
// own GPU only; mixed models refused or forced; --resume, --shard, --deadline_s and --dry_run
// with devices; the journal whole with several workers writing to it.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "absl/strings/str_split.h"
#include "reports/report_json.h"
#include "supervisor/device_scheduler.h"
#include "supervisor/run_window.h"
#include "supervisor/tests/supervisor_fixture.h"

namespace flashscope::suites {
namespace {

namespace fs = std::filesystem;

constexpr char kSuite[] = R"({"name": "fake", "kernels": ["fake.a", "fake.b"],
  "problems": [{"family": "attention_fwd", "axes": {"seq": [16, 32, 48, 64, 80, 96]}}],
  "case_timeout_s": 30})";
constexpr int kCases = 12;

// One line of FAKE_EVENTS: "UUID start pinned", "UUID inputs PROBLEM", "UUID case KEY".
struct FakeEvent {
  std::string uuid, what, rest;
};

class DevicesTest : public testing::SupervisorFixture {
 protected:
  DevicesTest() : SupervisorFixture(kSuite) {}
  void SetUp() override {
    SupervisorFixture::SetUp();
    events_ = (dir_ / "events.txt").string();
    setenv("FAKE_EVENTS", events_.c_str(), 1);
    setenv("FAKE_DEVICES", "Fake H200,Fake H200", 1);
  }
  SuperviseArgs On(const std::string& devices) const {
    SuperviseArgs a = Args();
    a.plugins.clear();
    a.devices = devices;
    return a;
  }
  std::vector<FakeEvent> Events() const {
    std::vector<FakeEvent> out;
    std::ifstream in(events_);
    for (std::string line; std::getline(in, line);) {
      std::vector<std::string> parts = absl::StrSplit(line, absl::MaxSplits(' ', 2));
      parts.resize(3);
      out.push_back({parts[0], parts[1], parts[2]});
    }
    return out;
  }
  std::map<std::string, int> Starts() const {
    std::map<std::string, int> n;
    for (const auto& e : Events()) n[e.uuid] += e.what == "start";
    return n;
  }
  reports::Report Report() const {
    auto r = reports::ReadReportFile(out_);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : reports::Report{};
  }
  // Runs on `devices` expecting every case done and every journal line read; the report.
  reports::Report CompleteRun(const std::string& devices) {
    SuperviseResult r = Run(On(devices));
    EXPECT_EQ(r.exit_code, 0) << stderr_;
    reports::Report report = Report();
    EXPECT_TRUE(report.complete);
    EXPECT_EQ(report.unreadable_journal_lines, 0);
    EXPECT_EQ(report.cases.size(), static_cast<size_t>(kCases));
    return report;
  }

  std::string events_;
};

TEST_F(DevicesTest, AllGpusRunTheCasesOncePinnedEachCaseRecordingItsGpu) {
  setenv("FAKE_DEVICES", "Fake H200,Fake H200,Fake H200", 1);
  setenv("FAKE_CASE_MS", "30", 1);
  const reports::Report report = CompleteRun("all");
  std::set<int> used;
  for (const auto& c : report.cases) {
    ASSERT_TRUE(c.device.has_value()) << c.Key();
    EXPECT_EQ(c.device_uuid, "GPU-fake-" + std::to_string(*c.device)) << c.Key();
    used.insert(*c.device);
  }
  EXPECT_EQ(used, (std::set<int>{0, 1, 2})) << "every GPU ran cases";
  ASSERT_EQ(report.environment.devices.size(), 3u);
  EXPECT_EQ(report.environment.devices[2].uuid, "GPU-fake-2");
  EXPECT_EQ(report.environment.devices[2].pci_bus_id, "0000:02:00.0");
  std::map<std::string, int> runs;
  for (const auto& e : Events()) {
    if (e.what == "start") EXPECT_EQ(e.rest, "pinned") << "CUDA_VISIBLE_DEVICES set for " << e.uuid;
    if (e.what == "case") ++runs[e.rest];
  }
  EXPECT_EQ(runs.size(), static_cast<size_t>(kCases));
  for (const auto& [key, n] : runs) EXPECT_EQ(n, 1) << key;
  EXPECT_EQ(Starts(),
            (std::map<std::string, int>{{"GPU-fake-0", 1}, {"GPU-fake-1", 1}, {"GPU-fake-2", 1}}));
  EXPECT_HAS(stderr_, "3 GPUs, one worker each");
}

TEST_F(DevicesTest, WithoutDevicesOneUnpinnedWorkerRecordsDeviceZero) {
  SuperviseResult r = Run(On(""));
  ASSERT_EQ(r.exit_code, 0) << stderr_;
  for (const auto& c : Report().cases) {
    EXPECT_EQ(c.device, 0);
    EXPECT_EQ(c.device_uuid, "GPU-fake-0");
  }
  EXPECT_EQ(Events()[0].what + " " + Events()[0].rest, "start unpinned");
}

TEST_F(DevicesTest, AFasterGpuTakesMoreOfTheWork) {
  setenv("FAKE_CASE_MS", "10", 1);
  setenv("FAKE_SLOW_UUID", "GPU-fake-1:300", 1);
  SuperviseResult r = Run(On("0,1"));
  ASSERT_EQ(r.exit_code, 0) << stderr_;
  int on_fast = 0;
  for (const auto& c : Report().cases) on_fast += c.device == 0;
  // GPU 1 needs 310 ms a case, GPU 0 10 ms: handed out as they free up, GPU 0 runs nearly all.
  EXPECT_GE(on_fast, 9) << "a static split would give each GPU 6";
}

TEST_F(DevicesTest, EachGpuMakesAProblemsInputsOnceAndKeepsToItsProblem) {
  setenv("FAKE_CASE_MS", "40", 1);
  SuperviseResult r = Run(On("all"));
  ASSERT_EQ(r.exit_code, 0) << stderr_;
  std::map<std::string, std::set<std::string>> gpus_of;  // problem -> GPUs that made its inputs
  std::set<std::pair<std::string, std::string>> made;
  int inputs = 0;
  for (const auto& e : Events()) {
    if (e.what != "inputs") continue;
    ++inputs;
    EXPECT_TRUE(made.insert({e.uuid, e.rest}).second)
        << e.uuid << " made the inputs of " << e.rest
        << " twice: it left that problem and came back";
    gpus_of[e.rest].insert(e.uuid);
  }
  EXPECT_EQ(gpus_of.size(), 6u);
  // Problem-major: 6 problems of 2 cases; only a GPU that would idle at the end shares one.
  EXPECT_LE(inputs, 6 + 1) << "case by case over 2 GPUs would make them up to 12 times";
}

TEST_F(DevicesTest, AWorkerThatDiesCostsItsCaseAndRestartsOnItsGpuOnly) {
  setenv("FAKE_CASE_MS", "20", 1);
  setenv("FAKE_CRASH_KEY", Key("fake.b", 48).c_str(), 1);
  SuperviseResult r = Run(On("all"));
  EXPECT_EQ(r.exit_code, 1) << stderr_;
  const reports::Report report = Report();
  EXPECT_TRUE(report.complete);
  ASSERT_EQ(report.cases.size(), static_cast<size_t>(kCases));
  std::string crashed_on;
  for (const auto& c : report.cases) {
    if (c.Key() == Key("fake.b", 48)) {
      EXPECT_EQ(c.status, reports::CaseStatus::kError);
      EXPECT_EQ(c.reason,
                "the worker process died (signal 11 (Segmentation fault)) in supports() "
                "while running this case");
      ASSERT_TRUE(c.device.has_value());
      crashed_on = c.device_uuid;
    } else {
      EXPECT_EQ(c.status, reports::CaseStatus::kPassed) << c.Key();
    }
  }
  const std::string other = crashed_on == "GPU-fake-0" ? "GPU-fake-1" : "GPU-fake-0";
  const auto starts = Starts();
  EXPECT_EQ(starts.at(crashed_on), 2) << "its GPU got a fresh worker";
  EXPECT_EQ(starts.at(other), 1) << "the other GPU's worker went on untouched";
}

TEST_F(DevicesTest, AHangCostsItsCaseWhileTheOtherGpuGoesOn) {
  setenv("FAKE_CASE_MS", "20", 1);
  SuperviseArgs a = On("all");
  a.case_timeout_s = 1;
  EXPECT_EQ(RunWithHungCase(Key("fake.a", 16), a).exit_code, 1) << stderr_;
  int passed_elsewhere = 0;
  std::string hung_on;
  for (const auto& c : Report().cases) {
    if (c.Key() == Key("fake.a", 16)) {
      EXPECT_EQ(c.status, reports::CaseStatus::kTimeout);
      hung_on = c.device_uuid;
    } else {
      EXPECT_EQ(c.status, reports::CaseStatus::kPassed) << c.Key();
    }
  }
  for (const auto& c : Report().cases) passed_elsewhere += c.device_uuid != hung_on;
  // 11 cases of 20 ms take the other GPU 0.2 s, well inside the hung case's 1 s.
  EXPECT_GE(passed_elsewhere, 9) << "the other GPU kept going while one case hung";
  EXPECT_EQ(Starts().at(hung_on), 2);
}

TEST_F(DevicesTest, AGpuWhoseWorkerGivesUpLeavesTheRunToTheOthers) {
  setenv("FAKE_FATAL_UUID", "GPU-fake-1", 1);
  SuperviseResult r = Run(On("all"));
  EXPECT_EQ(r.exit_code, 0) << stderr_;
  EXPECT_HAS(stderr_,
             "device 1 (Fake H200, GPU-fake-1, 0000:01:00.0) is taken out of the run: "
             "fake GPU lost: GPU-fake-1; the other GPUs go on");
  const reports::Report report = Report();
  EXPECT_TRUE(report.complete);
  for (const auto& c : report.cases) EXPECT_EQ(c.device, 0) << c.Key();
  EXPECT_EQ(Starts().at("GPU-fake-1"), 1) << "not restarted after FATAL";
  // With every GPU gone, the run stops with the reason and keeps its journal.
  setenv("FAKE_DEVICES", "Fake H200,Fake H200", 1);
  setenv("FAKE_FATAL_UUID", "GPU-fake-0", 1);
  EXPECT_EQ(Run(On("0")).exit_code, 2);
  EXPECT_HAS(stderr_, "flashscope run: fake GPU lost: GPU-fake-0");
  EXPECT_TRUE(fs::exists(Journal()));
}

TEST_F(DevicesTest, MixedModelsAreRefusedBeforeAnythingRunsUnlessForced) {
  setenv("FAKE_DEVICES", "Fake H200,Fake H100/80", 1);
  SuperviseResult refused = Run(On("all"));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_HAS(stderr_,
             "GPUs of different models: device 0 is Fake H200 (sm_90, 132 SMs, 141 GiB), device 1 "
             "is Fake H100/80 (sm_90, 132 SMs, 80 GiB) (name Fake H200 vs Fake H100/80, memory "
             "141 GiB vs 80 GiB)");
  EXPECT_HAS(stderr_, "pass --force");
  EXPECT_FALSE(fs::exists(Journal())) << "refused before the journal";
  SuperviseArgs forced = On("all");
  forced.force = true;
  SuperviseResult r = Run(forced);
  EXPECT_EQ(r.exit_code, 0) << stderr_;
  EXPECT_HAS(stderr_, "--force: GPUs of different models");
  EXPECT_EQ(Report().environment.devices.size(), 2u);
  EXPECT_TRUE(Run(On("1")).exit_code == 0) << "one model alone is fine: " << stderr_;
}

TEST_F(DevicesTest, AnIndexThatIsNoGpuOrBadTextIsRefused) {
  EXPECT_EQ(Run(On("0,5")).exit_code, 2);
  EXPECT_HAS(stderr_,
             "--devices 0,5: there is no GPU 5; CUDA sees 2: device 0 (Fake H200, "
             "GPU-fake-0, 0000:00:00.0)");
  EXPECT_EQ(Run(On("1,1")).exit_code, 2);
  EXPECT_HAS(stderr_, "--devices 1,1: GPU 1 is named twice");
  EXPECT_FALSE(fs::exists(Journal()));
}

TEST_F(DevicesTest, DryRunShowsTheGpusWithoutRunningAndSaysWhenItCannotCheckThem) {
  SuperviseArgs a = On("all");
  a.dry_run = true;
  ::testing::internal::CaptureStdout();
  SuperviseResult r = Run(a);
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(r.exit_code, 0) << stderr_;
  EXPECT_HAS(out, "plan: 12 cases");
  EXPECT_HAS(out, "devices: 2, one worker each");
  EXPECT_HAS(out,
             "device 1 (Fake H200, GPU-fake-1, 0000:01:00.0): Fake H200 (sm_90, 132 SMs, "
             "141 GiB), its worker pinned to it");
  EXPECT_FALSE(fs::exists(Journal()));
  EXPECT_TRUE(Events().empty()) << "no worker ran a case";
  a.devices = "4";
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(Run(a).exit_code, 2) << "a dry run checks --devices too";
  ::testing::internal::GetCapturedStdout();
  setenv("FAKE_NO_GPU", "1", 1);
  ::testing::internal::CaptureStdout();
  r = Run(a);
  out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_HAS(out,
             "device: none usable: no CUDA-capable device is detected (fake) (so --devices "
             "cannot be checked here)");
}

TEST_F(DevicesTest, DeadlineStopsEveryGpuAndResumeOnOtherDevicesCompletesByKey) {
  setenv("FAKE_CASE_MS", "20", 1);
  SuperviseArgs a = On("all");
  a.deadline_s = 1;
  EXPECT_EQ(RunWithHungCase(Key("fake.b", 96), a).exit_code, 1) << stderr_;
  EXPECT_HAS(stderr_, "stopped at the --deadline_s limit");
  ASSERT_TRUE(fs::exists(Journal()));
  EXPECT_FALSE(Report().complete);
  // Resumed on one GPU without --devices, then the report holds both parts.
  SuperviseArgs resume = On("");
  resume.resume_journal = Journal();
  resume.out_path.clear();
  ASSERT_EQ(Run(resume).exit_code, 0) << stderr_;
  const reports::Report report = Report();
  EXPECT_TRUE(report.complete);
  ASSERT_EQ(report.cases.size(), static_cast<size_t>(kCases));
  for (const auto& c : report.cases) EXPECT_EQ(c.status, reports::CaseStatus::kPassed) << c.Key();
  EXPECT_EQ(report.environment.devices.size(), 2u) << "both GPUs ran cases of the run";
  EXPECT_FALSE(fs::exists(Journal()));
}

TEST_F(DevicesTest, APlainRunResumedOnAllGpus) {
  InterruptedRun();  // one unpinned worker, two cases, then FATAL
  SuperviseArgs resume = On("all");
  resume.plugins = {plugin_};  // the plan of InterruptedRun has the plugin
  resume.resume_journal = Journal();
  SuperviseResult r = Run(resume);
  ASSERT_EQ(r.exit_code, 0) << stderr_;
  const reports::Report report = Report();
  EXPECT_TRUE(report.complete);
  std::set<int> used;
  for (const auto& c : report.cases) used.insert(c.device.value_or(-1));
  EXPECT_EQ(used, (std::set<int>{0, 1}));
}

TEST_F(DevicesTest, AResumeOnAnotherModelIsRefusedUnlessForced) {
  InterruptedRun();  // on "Fake H200"
  const std::string before = JournalBytes();
  setenv("FAKE_DEVICES", "Fake H100/80", 1);
  SuperviseArgs resume = Args();
  resume.resume_journal = Journal();
  EXPECT_EQ(Run(resume).exit_code, 2);
  EXPECT_HAS(stderr_, "GPUs of different models (with those that ran the resumed run's cases)");
  EXPECT_EQ(JournalBytes(), before) << "refused: the journal as it was";
  resume.force = true;
  EXPECT_EQ(Run(resume).exit_code, 0) << stderr_;
}

TEST_F(DevicesTest, ShardsOnDevicesSplitThePlanAndEachRunsOnItsGpus) {
  std::set<std::string> keys;
  for (const char* shard : {"1/2", "2/2"}) {
    SuperviseArgs a = On("all");
    a.shard = shard;
    a.out_path = (dir_ / (std::string("s") + shard[0] + ".json")).string();
    ASSERT_EQ(Run(a).exit_code, 0) << stderr_;
    auto report = reports::ReadReportFile(a.out_path);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->cases.size(), 6u) << shard;
    for (const auto& c : report->cases) {
      EXPECT_TRUE(keys.insert(c.Key()).second) << c.Key() << " in both shards";
      EXPECT_TRUE(c.device == 0 || c.device == 1);
    }
  }
  EXPECT_EQ(keys.size(), static_cast<size_t>(kCases));
}

TEST_F(DevicesTest, ManyWorkersWritingBigResultsLeaveTheJournalWhole) {
  setenv("FAKE_DEVICES", "Fake H200,Fake H200,Fake H200,Fake H200", 1);
  setenv("FAKE_RESULT_KB", "1024", 1);
  const reports::Report report = CompleteRun("all");
  for (const auto& c : report.cases) {
    ASSERT_TRUE(c.timing.has_value()) << c.Key();
    EXPECT_EQ(c.timing->samples_ms.size(), 1024u * 1024 / 20) << c.Key();
  }
}

TEST_F(DevicesTest, ParkingWorkersShareTheRunAndTheirWindowsShrinkAsTheQueueDrains) {
  // Workers that take several cases at once (tests/fake_worker.cc, FAKE_PARK); the suite asks no
  // metrics, so `flashscope run` gives them a window (supervisor/run_window.h).
  setenv("FAKE_PARK", "200", 1);
  setenv("FAKE_CASE_MS", "20", 1);
  const reports::Report report = CompleteRun("all");
  std::map<std::string, std::vector<int>> batches;  // GPU -> the sizes of its batches, in order
  std::map<std::string, int> runs;
  for (const auto& e : Events()) {
    if (e.what == "batch") batches[e.uuid].push_back(std::stoi(e.rest));
    if (e.what == "case") ++runs[e.rest];
  }
  ASSERT_EQ(batches.size(), 2u) << "both GPUs got work";
  // GPU 0's worker is refilled first, then GPU 1's from what is left: each at most half of an even
  // share of the queue, so neither sits on a batch the other could run.
  const int first = EffectiveWindow(kRunWindow, kCases, 2);
  EXPECT_GT(first, 1);
  EXPECT_EQ(batches["GPU-fake-0"][0], first);
  EXPECT_EQ(batches["GPU-fake-1"][0], EffectiveWindow(kRunWindow, kCases - first, 2));
  // Every later refill found too few cases left for more than one at a time.
  int total = 0;
  for (const auto& [uuid, sizes] : batches) {
    for (size_t i = 0; i < sizes.size(); ++i) {
      total += sizes[i];
      if (i > 0) EXPECT_EQ(sizes[i], 1) << uuid << "'s batch " << i;
    }
  }
  EXPECT_EQ(total, kCases);
  EXPECT_EQ(runs.size(), static_cast<size_t>(kCases));
  for (const auto& [key, n] : runs) EXPECT_EQ(n, 1) << key << " was measured twice";
  std::set<int> used;
  for (const auto& c : report.cases) used.insert(c.device.value_or(-1));
  EXPECT_EQ(used, (std::set<int>{0, 1}));
}

TEST_F(DevicesTest, ProgressLinesNameTheGpu) {
  SuperviseArgs a = On("all");
  a.quiet = false;
  ASSERT_EQ(Run(a).exit_code, 0) << stderr_;
  EXPECT_HAS(stderr_, "on gpu 0  (elapsed ");
  EXPECT_HAS(stderr_, "on gpu 1  (elapsed ");
  EXPECT_HAS(stderr_, "[12/12] passed");
}

}  // namespace
}  // namespace flashscope::suites
