// A window of cases per worker (ScheduleJob::window, supervisor/device_scheduler.h) with the CPU
// stand-in for a parking flashscope-worker (tests/fake_worker.cc, FAKE_PARK): it takes the RUN
// lines that arrive together, starts and parks each, collects their "counters" in one go (keyed P
// lines) and finishes them in a burst of F lines. Every case is recorded once; a death or a hang
// in a parked case's step costs that case alone, and the others of its batch run again.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "reports/report_json.h"
#include "supervisor/device_scheduler.h"
#include "supervisor/run_window.h"
#include "supervisor/tests/supervisor_fixture.h"

namespace flashscope::suites {
namespace {

namespace fs = std::filesystem;

// Three kernels (one of the plugin) over four problems: 12 cases.
constexpr char kSuite[] = R"({"name": "fake", "kernels": ["fake.a", "fake.b", "plug.c"],
  "problems": [{"family": "attention_fwd", "axes": {"seq": [16, 32, 48, 64]}}],
  "case_timeout_s": 30})";
constexpr size_t kCases = 12;

class ParkingTest : public testing::SupervisorFixture {
 protected:
  ParkingTest() : SupervisorFixture(kSuite) {}
  void SetUp() override {
    SupervisorFixture::SetUp();
    events_ = (dir_ / "events.txt").string();
    setenv("FAKE_EVENTS", events_.c_str(), 1);
    setenv("FAKE_PARK", "200", 1);  // the RUN lines of one refill come within microseconds
  }
  // The FAKE_EVENTS lines as (what, rest): "start pinned", "batch 6", "case KEY", ...
  std::vector<std::pair<std::string, std::string>> Events() const {
    std::vector<std::pair<std::string, std::string>> out;
    std::ifstream in(events_);
    for (std::string line; std::getline(in, line);) {
      std::vector<std::string> parts = absl::StrSplit(line, absl::MaxSplits(' ', 2));
      parts.resize(3);
      out.emplace_back(parts[1], parts[2]);
    }
    return out;
  }
  std::vector<int> Batches() const {
    std::vector<int> sizes;
    for (const auto& [what, rest] : Events()) {
      if (what == "batch") sizes.push_back(std::atoi(rest.c_str()));
    }
    return sizes;
  }
  int Count(const std::string& what) const {
    int n = 0;
    for (const auto& e : Events()) n += e.first == what;
    return n;
  }
  // How often each case was measured (its result recorded by a worker).
  std::map<std::string, int> Measured() const {
    std::map<std::string, int> n;
    for (const auto& [what, rest] : Events()) {
      if (what == "case") ++n[rest];
    }
    return n;
  }
  // The report of a run that recorded every case, each once; case key -> its result.
  std::map<std::string, reports::CaseResult> ReportByKey() const {
    auto report = reports::ReadReportFile(out_);
    EXPECT_TRUE(report.ok()) << report.status();
    std::map<std::string, reports::CaseResult> by_key;
    if (!report.ok()) return by_key;
    EXPECT_TRUE(report->complete);
    for (const auto& c : report->cases) {
      EXPECT_TRUE(by_key.emplace(c.Key(), c).second) << c.Key() << " is in the report twice";
    }
    EXPECT_EQ(by_key.size(), kCases);
    return by_key;
  }
  // Every case but `lost` passed and was measured exactly once; `lost` never was.
  void ExpectOthersPassedOnce(const std::string& lost) const {
    for (const auto& [key, c] : ReportByKey()) {
      if (key != lost) EXPECT_EQ(c.status, reports::CaseStatus::kPassed) << key;
    }
    const std::map<std::string, int> measured = Measured();
    EXPECT_EQ(measured.size(), lost.empty() ? kCases : kCases - 1);
    EXPECT_EQ(measured.count(lost), 0u);
    for (const auto& [key, n] : measured) EXPECT_EQ(n, 1) << key << " was measured twice";
  }
  // Runs the suite with the fake worker crashing in `phase` of case `crash`: the run fails and
  // `crash` alone is an error, with `reason`.
  void ExpectCrashRecorded(const std::string& crash, const char* phase, const std::string& reason) {
    setenv("FAKE_CRASH_KEY", crash.c_str(), 1);
    setenv("FAKE_CRASH_PHASE", phase, 1);
    SuperviseResult r = Run(Args());
    EXPECT_EQ(r.exit_code, 1) << stderr_;
    const auto by_key = ReportByKey();
    ASSERT_TRUE(by_key.count(crash));
    EXPECT_EQ(by_key.at(crash).status, reports::CaseStatus::kError);
    EXPECT_EQ(by_key.at(crash).reason, reason);
  }

  std::string events_;
};

TEST_F(ParkingTest, WithMetricsAskedTheWorkerGetsOneCaseAtATime) {
  SuperviseArgs a = Args();
  a.metrics = "basic";  // a worker that profiles each case on its own: window 1
  setenv("FAKE_PARK", "20", 1);
  SuperviseResult r = Run(a);
  ASSERT_EQ(r.exit_code, 0) << stderr_;
  EXPECT_EQ(Batches(), std::vector<int>(kCases, 1));
  ExpectOthersPassedOnce("");
}

TEST_F(ParkingTest, AWindowLetsTheWorkerParkSeveralCasesAndRecordsEachOnce) {
  SuperviseResult r = Run(Args());
  ASSERT_EQ(r.exit_code, 0) << stderr_;
  const std::vector<int> batches = Batches();
  ASSERT_FALSE(batches.empty());
  // The first refill: as many as the window allows with 12 cases queued for one GPU.
  EXPECT_EQ(batches[0], std::min<int>(EffectiveWindow(kRunWindow, kCases, 1), kCases));
  EXPECT_GT(batches[0], 1) << "the worker held several cases before finishing any";
  int total = 0;
  for (int b : batches) total += b;
  EXPECT_EQ(total, static_cast<int>(kCases));
  EXPECT_LT(batches.size(), kCases) << "fewer counter collections than cases";
  EXPECT_EQ(Count("start"), 1) << "one worker ran them all";
  ExpectOthersPassedOnce("");
}

TEST_F(ParkingTest, ACrashInAParkedCasesCounterCollectionCostsThatCaseAlone) {
  const std::string crash = Key("plug.c", 16);  // the third case of the first batch
  ExpectCrashRecorded(crash, protocol::phase::kProfiling,
                      "plugin " + fs::canonical(plugin_).string() +
                          " (fakeplugin 1) crashed at launch (profiling): "
                          "signal 11 (Segmentation fault)");
  // Its batch mates, parked but never finished, ran again on the next worker.
  ExpectOthersPassedOnce(crash);
  EXPECT_EQ(Count("start"), 2);
  const auto events = Events();
  ASSERT_FALSE(events.empty());
  const auto second = std::find_if(events.begin() + 1, events.end(),
                                   [](const auto& e) { return e.first == "start"; });
  for (auto e = events.begin(); e != second; ++e) {
    EXPECT_NE(e->first, "case") << "the first worker finished nothing: " << e->second;
  }
}

TEST_F(ParkingTest, ACrashAfterSomeFinishedCostsOnlyTheCaseItsCodeRan) {
  // Concluding is our code, run for one parked case after another: the first finishes, then the
  // second kills the worker.
  const std::string crash = Key("fake.b", 16);
  ExpectCrashRecorded(crash, protocol::phase::kConcluding,
                      "the worker process died (signal 11 (Segmentation fault)) in phase "
                      "concluding while running this case");
  ExpectOthersPassedOnce(crash);
  EXPECT_EQ(Count("start"), 2);
}

TEST_F(ParkingTest, AHangInAParkedCasesStepIsItsTimeoutAndTheOthersRunAgain) {
  SuperviseArgs a = Args();
  a.case_timeout_s = 1;
  setenv("FAKE_CRASH_PHASE", protocol::phase::kProfiling, 1);
  const std::string hung = Key("fake.b", 32);
  EXPECT_EQ(RunWithHungCase(hung, a).exit_code, 1) << stderr_;
  const auto by_key = ReportByKey();
  ASSERT_TRUE(by_key.count(hung));
  EXPECT_EQ(by_key.at(hung).status, reports::CaseStatus::kTimeout);
  EXPECT_HAS(by_key.at(hung).reason, "exceeded the case time limit of 1 s");
  ExpectOthersPassedOnce(hung);
  EXPECT_EQ(Count("start"), 2);
}

TEST_F(ParkingTest, AWorkerThatDiesBetweenCasesCostsNoCase) {
  // Each worker finishes the first case of its batch and dies: the case its code ran last is
  // finished, so no case is blamed; the rest of its batch runs again. Each worker finishes one.
  setenv("FAKE_DIE_AFTER_FIRST_F", "1", 1);
  SuperviseResult r = Run(Args());
  EXPECT_EQ(r.exit_code, 0) << stderr_;
  ExpectOthersPassedOnce("");
  EXPECT_EQ(Count("start"), static_cast<int>(kCases)) << "not retired: each worker finished one";
}

TEST_F(ParkingTest, AtTheDeadlineTheWorkerRecordsWhatItParked) {
  // All 12 cases are sent at once (one GPU: the whole window); parking each takes 150 ms, so the
  // deadline of 1 s comes while the worker holds some parked and others not started: told to
  // stop, it records those it parked, starts no other, and ends.
  setenv("FAKE_PARKED_MS", "150", 1);
  SuperviseArgs a = Args();
  a.deadline_s = 1;
  SuperviseResult r = Run(a);
  EXPECT_EQ(r.exit_code, 1) << stderr_;
  EXPECT_NE(stderr_.find("--resume"), std::string::npos) << stderr_;
  auto report = reports::ReadReportFile(out_);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_FALSE(report->complete);
  int passed = 0;
  for (const auto& c : report->cases) passed += c.status == reports::CaseStatus::kPassed;
  EXPECT_GT(passed, 0) << "the parked cases are measured, not lost";
  EXPECT_LT(passed, 12) << "the stop overtook the cases sent before it";
  const std::map<std::string, int> measured = Measured();
  EXPECT_EQ(measured.size(), static_cast<size_t>(passed));
  for (const auto& [key, n] : measured) EXPECT_EQ(n, 1) << key;
}

}  // namespace
}  // namespace flashscope::suites
