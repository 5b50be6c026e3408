// The trust checks end to end (issues 13 and 29, docs/trust.md): suites/testing/trust.json
// through the real `flashscope run` (supervisor and worker processes). Every honest case passes
// with no check failed — test.honest_after_<cheat> too, run right after a cheat that leaves state
// behind, and measuring as attn.a10_fa2 does on the same problem; every cheat fails, and the check
// meant for it is among its failed checks — the address-keyed caches too, since every launch is
// given buffers from a slot drawn before it (runner/slot_rotation.h), which each case's record
// must say.
// FLASHSCOPE_TRUST_REPORT=PATH reads a report of that suite made already (a device call makes it
// once and keeps it) instead of running the suite again; FLASHSCOPE_TRUST_PYTHON_REPORT=PATH the
// same for suites/testing/trust_python.json (the Python cheat beside torch's SDPA).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "reports/report_json.h"

namespace flashscope {
namespace {

namespace fs = std::filesystem;

struct Meant {
  std::vector<std::string> checks;  // each must be among the failed checks
  // Caught only once every launch reads inputs no launch read before (a cache that is right
  // whenever inputs repeat): not judged in a run whose inputs repeat (InputsRepeat).
  bool needs_fresh_inputs = false;
};

// The check each cheat exists to meet (docs/trust.md's exploit table).
const std::map<std::string, Meant>& MeantFor() {
  static const std::map<std::string, Meant> kMeant = {
      {"test.cheat_cache_output", {{"timed_outputs"}}},
      {"test.cheat_cache_inputs", {{"work"}}},
      {"test.cheat_when_poisoned", {{"timed_outputs"}}},
      {"test.cheat_first_full", {{"timed_outputs"}}},
      {"test.cheat_side_stream", {{"streams"}}},
      {"test.cheat_side_stream_async", {{"streams"}}},
      {"test.cheat_fp16_accum", {{"precision"}}},
      {"test.cheat_host_copy", {{"streams"}}},
      {"test.cheat_content_cache", {{"timed_outputs"}, true}},
      {"test.cheat_pointer_cache", {{"timed_outputs"}, true}},
      {"test.cheat_sequence", {{"timed_outputs"}}},
      {"test.cheat_deferred", {{"timed_outputs"}}},
      // Its thread outlives the case: isolation fails it and the worker ends after it.
      {"test.cheat_host_thread", {{"timed_outputs", "isolation"}}},
      {"test.cheat_l2_persist", {{"isolation"}}},
      {"test.cheat_write_inputs", {{"integrity"}}},
      {"test.cheat_write_reference", {{"integrity"}}},
      {"test.cheat_oob_write", {{"integrity"}}},
      {"test.cheat_partial_fp16", {{"precision"}}},
      {"test.cheat_tiny_zero", {{"timed_outputs"}}},
      {"test.cheat_py_address_cache", {{"timed_outputs"}, true}},
  };
  return kMeant;
}

// Why a case may be skipped (its supports() says so): the cheats that play on some problems
// only, and the peers beside them (cuDNN and cuBLAS decide their own shapes). a10, the rungs and
// its copies after the cheats run everywhere in this suite.
bool SkipExpected(const reports::CaseResult& c) {
  if (c.kernel_id.rfind("peer.", 0) == 0 || c.kernel_id.rfind("torch.", 0) == 0) return true;
  static const std::set<std::string> kFp16Only = {"test.cheat_fp16_accum",
                                                  "test.cheat_partial_fp16"};
  if (kFp16Only.count(c.kernel_id)) return c.reason.find("fp16 inputs only") != std::string::npos;
  if (c.kernel_id == "test.cheat_tiny_zero")
    return c.reason.find("seq_k >= 4096") != std::string::npos;
  return false;
}

// True when the case's launches read input sets in turn (issue 13's design: "timed launch i
// reads set i mod 2"), which the caches of needs_fresh_inputs answer right.
bool InputsRepeat(const reports::CaseResult& c) {
  return c.trust && c.trust->input_sets.find("i mod") != std::string::npos;
}

std::set<std::string> FailedChecks(const reports::CaseResult& c) {
  std::set<std::string> out;
  if (!c.trust) return out;
  for (const auto& k : c.trust->checks) {
    if (k.status == "failed") out.insert(k.check);
  }
  return out;
}

reports::Report ReadReport(const std::string& path) {
  auto r = reports::ReadReportFile(path);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : reports::Report{};
}

// The report of suites/testing/SUITE.json: the file $ENV names, else a fresh run of the suite.
reports::Report SuiteReport(const char* env, const std::string& suite) {
  if (const char* given = std::getenv(env)) return ReadReport(given);
  const std::string out = (fs::temp_directory_path() / ("flashscope_" + suite + ".json")).string();
  fs::remove(out);
  const std::string cmd = std::string(FLASHSCOPE_BINARY_DIR) + "/cli/flashscope run " +
                          FLASHSCOPE_TEST_SOURCE_DIR + "/suites/testing/" + suite + ".json --out " +
                          out + " --quiet";
  const int rc = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 1) << "failed cheats make the run exit 1";
  return ReadReport(out);
}

reports::Report TrustReport() { return SuiteReport("FLASHSCOPE_TRUST_REPORT", "trust"); }

// Judges every case of `report`; returns the cheats it saw judged.
std::set<std::string> JudgeCases(const reports::Report& report) {
  static const std::vector<std::string> kAlwaysRecorded = {
      "plausibility",      "work",      "precision", "timed_outputs", "streams",
      "profiled_duration", "integrity", "isolation"};
  std::set<std::string> judged;
  for (const reports::CaseResult& c : report.cases) {
    SCOPED_TRACE(c.Key() + ": " + c.reason);
    const auto meant = MeantFor().find(c.kernel_id);
    if (c.status == reports::CaseStatus::kSkipped) {
      EXPECT_TRUE(SkipExpected(c)) << "an unexpected skip";
      continue;
    }
    EXPECT_TRUE(c.trust.has_value());
    if (!c.trust) continue;
    std::set<std::string> recorded;
    for (const auto& k : c.trust->checks) recorded.insert(k.check);
    for (const std::string& name : kAlwaysRecorded) {
      EXPECT_EQ(recorded.count(name), 1u) << "no " << name << " check recorded";
    }
    const std::set<std::string> failed = FailedChecks(c);
    // Every launch but the verified one was given a drawn buffer slot: without that an address
    // cache sees the same buffers every launch and computes every time (runner/slot_rotation.h).
    const bool fresh = std::any_of(c.trust->checks.begin(), c.trust->checks.end(), [](auto& k) {
      return k.check == "timed_outputs" && k.status != "off";
    });
    if (fresh && !InputsRepeat(c)) {
      EXPECT_NE(c.trust->input_sets.find("buffers rotated"), std::string::npos)
          << "launches not rotated through buffer slots: " << c.trust->input_sets;
    }
    if (meant == MeantFor().end()) {
      EXPECT_EQ(c.status, reports::CaseStatus::kPassed);
      EXPECT_TRUE(failed.empty());
      for (const auto& k : c.trust->checks) {
        EXPECT_NE(k.status, "off") << k.check << ": " << k.rule;
      }
      continue;
    }
    if (meant->second.needs_fresh_inputs && InputsRepeat(c)) {
      std::printf(
          "not judged: %s reads repeating input sets (%s); it is caught once every launch "
          "reads fresh inputs\n",
          c.Key().c_str(), c.trust->input_sets.c_str());
      continue;
    }
    judged.insert(c.kernel_id);
    EXPECT_EQ(c.status, reports::CaseStatus::kFailed);
    for (const std::string& check : meant->second.checks) {
      EXPECT_EQ(failed.count(check), 1u) << c.kernel_id << " was not caught by " << check;
    }
  }
  return judged;
}

TEST(TrustGpuTest, HonestKernelsPassAndEveryCheatFailsByItsCheck) {
  const reports::Report report = TrustReport();
  ASSERT_FALSE(report.cases.empty());
  std::set<std::string> cheats_run;
  for (const reports::CaseResult& c : report.cases) {
    if (c.kernel_id.rfind("test.cheat_", 0) == 0) cheats_run.insert(c.kernel_id);
  }
  EXPECT_GE(cheats_run.size(), 16u) << "the red team has at least 16 distinct cheats";
  const std::set<std::string> judged = JudgeCases(report);
  for (const std::string& id : cheats_run) {
    const auto meant = MeantFor().find(id);
    ASSERT_NE(meant, MeantFor().end()) << id << " has no check meant for it in this test";
    if (!meant->second.needs_fresh_inputs) EXPECT_EQ(judged.count(id), 1u) << id << " never judged";
  }
}

// An honest kernel right after a hostile one measures as if it ran first: the median of each
// test.honest_after_<cheat> case is attn.a10_fa2's on the same problem (the same code) within the
// timing noise of these suites (2 % targets; 15 % allows for clocks between cases).
TEST(TrustGpuTest, HonestCaseAfterACheatMeasuresAsIfItRanFirst) {
  const reports::Report report = TrustReport();
  std::map<std::string, double> a10_ms;
  for (const reports::CaseResult& c : report.cases) {
    if (c.kernel_id == "attn.a10_fa2" && c.timing) a10_ms[c.problem_key] = c.timing->median_ms;
  }
  int compared = 0;
  for (const reports::CaseResult& c : report.cases) {
    if (c.kernel_id.rfind("test.honest_after_", 0) != 0 || !c.timing) continue;
    SCOPED_TRACE(c.Key());
    auto it = a10_ms.find(c.problem_key);
    ASSERT_NE(it, a10_ms.end());
    const double ratio = c.timing->median_ms / it->second;
    EXPECT_GT(ratio, 0.85) << "faster than a10 alone: state the cheat before it left helps";
    EXPECT_LT(ratio, 1.15) << "slower than a10 alone: state the cheat before it left hurts";
    ++compared;
  }
  EXPECT_GT(compared, 0);
}

// The cheats that pass verification are caught by the trust checks alone.
TEST(TrustGpuTest, VerificationAloneWouldHavePassedThem) {
  const reports::Report report = TrustReport();
  static const std::set<std::string> kAlone = {
      "test.cheat_side_stream",  "test.cheat_cache_inputs", "test.cheat_when_poisoned",
      "test.cheat_l2_persist",   "test.cheat_write_inputs", "test.cheat_oob_write",
      "test.cheat_partial_fp16", "test.cheat_host_thread"};
  for (const reports::CaseResult& c : report.cases) {
    if (c.status == reports::CaseStatus::kSkipped) continue;
    SCOPED_TRACE(c.Key());
    if (c.kernel_id == "test.cheat_fp16_accum") {
      // Accumulating in fp16 lands near the bound, on either side of it by the input draw (a
      // fresh one every run: 2.3 x the baseline on one draw of device call 4, session 5): the
      // precision check is what catches it on every draw.
      ASSERT_TRUE(c.verification.has_value());
      EXPECT_LT(c.verification->ratio_to_baseline, 4.0) << c.verification->rule;
      continue;
    }
    if (!kAlone.count(c.kernel_id)) continue;
    ASSERT_TRUE(c.verification.has_value());
    EXPECT_TRUE(c.verification->passed) << c.verification->rule;
  }
}

// Needs FLASHSCOPE_PYTHON with torch on the GPU machine (docs/python.md), as python_peers does.
TEST(TrustGpuTest, PythonCheatFailsAndSdpaPasses) {
  const reports::Report report = SuiteReport("FLASHSCOPE_TRUST_PYTHON_REPORT", "trust_python");
  ASSERT_FALSE(report.cases.empty());
  JudgeCases(report);
  bool cheat_ran = false;
  for (const reports::CaseResult& c : report.cases) {
    cheat_ran |= c.kernel_id == "test.cheat_py_address_cache";
  }
  EXPECT_TRUE(cheat_ran);
}

}  // namespace
}  // namespace flashscope
