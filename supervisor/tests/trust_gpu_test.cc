// The trust checks end to end (issue 13, docs/trust.md): suites/testing/trust.json through the
// real `flashscope run` (supervisor and worker processes). Every honest case passes with no check
// failed; every cheat fails, and the check meant for it is among its failed checks.
// FLASHSCOPE_TRUST_REPORT=PATH reads a report of that suite made already (a device call makes it
// once and keeps it) instead of running the suite again.
#include <gtest/gtest.h>
#include <sys/wait.h>

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

// The check each cheat exists to meet (docs/trust.md's table).
const std::map<std::string, std::vector<std::string>>& MeantFor() {
  static const std::map<std::string, std::vector<std::string>> kMeant = {
      {"test.cheat_cache_output", {"timed_outputs"}},
      {"test.cheat_cache_inputs", {"work"}},
      {"test.cheat_when_poisoned", {"timed_outputs"}},
      {"test.cheat_first_full", {"timed_outputs", "work"}},
      {"test.cheat_side_stream", {"streams"}},
      {"test.cheat_side_stream_async", {"streams"}},
      {"test.cheat_fp16_accum", {"precision"}},
      {"test.cheat_host_copy", {"streams"}},
  };
  return kMeant;
}

std::set<std::string> FailedChecks(const reports::CaseResult& c) {
  std::set<std::string> out;
  if (!c.trust) return out;
  for (const auto& k : c.trust->checks) {
    if (k.status == "failed") out.insert(k.check);
  }
  return out;
}

reports::Report TrustReport() {
  if (const char* given = std::getenv("FLASHSCOPE_TRUST_REPORT")) {
    auto r = reports::ReadReportFile(given);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : reports::Report{};
  }
  const std::string out = (fs::temp_directory_path() / "flashscope_trust.json").string();
  fs::remove(out);
  const std::string cmd = std::string(FLASHSCOPE_BINARY_DIR) + "/cli/flashscope run " +
                          FLASHSCOPE_TEST_SOURCE_DIR + "/suites/testing/trust.json --out " + out +
                          " --quiet";
  const int rc = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 1) << "failed cheats make the run exit 1";
  auto r = reports::ReadReportFile(out);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : reports::Report{};
}

TEST(TrustGpuTest, HonestKernelsPassAndEveryCheatFailsByItsCheck) {
  const reports::Report report = TrustReport();
  ASSERT_FALSE(report.cases.empty());
  std::set<std::string> cheats_seen;
  for (const reports::CaseResult& c : report.cases) {
    SCOPED_TRACE(c.Key() + ": " + c.reason);
    if (c.status == reports::CaseStatus::kSkipped) {
      EXPECT_EQ(c.kernel_id, "test.cheat_fp16_accum") << "only fp16 accumulation skips (bf16)";
      continue;
    }
    ASSERT_TRUE(c.trust.has_value());
    // plausibility, work, precision, timed_outputs, streams, profiled_duration.
    EXPECT_EQ(c.trust->checks.size(), 6u);
    const std::set<std::string> failed = FailedChecks(c);
    auto meant = MeantFor().find(c.kernel_id);
    if (meant == MeantFor().end()) {
      EXPECT_EQ(c.status, reports::CaseStatus::kPassed);
      EXPECT_TRUE(failed.empty());
      for (const auto& k : c.trust->checks) {
        EXPECT_NE(k.status, "off") << k.check << ": " << k.rule;
      }
      continue;
    }
    cheats_seen.insert(c.kernel_id);
    EXPECT_EQ(c.status, reports::CaseStatus::kFailed);
    for (const std::string& check : meant->second) {
      EXPECT_EQ(failed.count(check), 1u) << c.kernel_id << " was not caught by " << check;
    }
  }
  EXPECT_EQ(cheats_seen.size(), MeantFor().size());
}

// The cheats that pass verification are caught by the trust checks alone.
TEST(TrustGpuTest, VerificationAloneWouldHavePassedThem) {
  const reports::Report report = TrustReport();
  for (const reports::CaseResult& c : report.cases) {
    const bool alone =
        c.kernel_id == "test.cheat_fp16_accum" || c.kernel_id == "test.cheat_side_stream" ||
        c.kernel_id == "test.cheat_cache_inputs" || c.kernel_id == "test.cheat_when_poisoned";
    if (!alone || c.status == reports::CaseStatus::kSkipped) continue;
    SCOPED_TRACE(c.Key());
    ASSERT_TRUE(c.verification.has_value());
    EXPECT_TRUE(c.verification->passed) << c.verification->rule;
  }
}

}  // namespace
}  // namespace flashscope
