// Inputs the fuzzers once crashed on (fuzz/regressions/<target>/), replayed through the same
// parsers in the ordinary CPU test build: each must now give a clear error, never terminate.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "reports/gate.h"
#include "reports/journal.h"
#include "reports/report_json.h"
#include "suites/suite.h"

namespace flashscope {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path Regressions(const char* target) {
  return fs::path(FLASHSCOPE_TEST_SOURCE_DIR) / "fuzz" / "regressions" / target;
}

std::vector<fs::path> Inputs(const char* target) {
  std::vector<fs::path> out;
  if (!fs::exists(Regressions(target))) return out;
  for (const auto& e : fs::directory_iterator(Regressions(target))) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string Read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(FuzzRegressions, SuiteNumberOverflowIsAClearError) {
  // Was: std::terminate on nlohmann's out_of_range 406 (only parse_error was caught).
  auto s = suites::ParseSuite(Read(Regressions("suite") / "number_overflow.json"), "x.json");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("x.json: not valid JSON"));
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("number overflow parsing '1e900'"));
}

TEST(FuzzRegressions, ReportNumberOverflowIsAClearError) {
  const fs::path p = Regressions("report") / "number_overflow.json";
  auto r = reports::ReadReportFile(p.string());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr(p.string() + ": not valid JSON"));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("number overflow parsing"));
}

TEST(FuzzRegressions, EveryCommittedInputGivesAResultOrAnExplainedError) {
  int inputs = 0;
  for (const auto& p : Inputs("suite")) {
    auto s = suites::ParseSuite(Read(p), p.string());
    EXPECT_TRUE(s.ok() || !s.status().message().empty()) << p;
    ++inputs;
  }
  for (const auto& p : Inputs("report")) {
    auto r = reports::ReadReportFile(p.string());
    EXPECT_TRUE(r.ok() || !r.status().message().empty()) << p;
    ++inputs;
  }
  for (const auto& p : Inputs("journal")) {
    auto j = reports::ReadJournal(p.string());
    EXPECT_TRUE(j.ok() || !j.status().message().empty()) << p;
    ++inputs;
  }
  for (const auto& p : Inputs("gate")) {
    auto g = reports::ReadGatePolicyFile(p.string());
    EXPECT_TRUE(g.ok() || !g.status().message().empty()) << p;
    ++inputs;
  }
  EXPECT_GE(inputs, 3);
}

}  // namespace
}  // namespace flashscope
