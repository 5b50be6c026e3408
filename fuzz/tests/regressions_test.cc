// Inputs the fuzzers once crashed on (fuzz/regressions/<target>/), replayed through the same
// parsers in the ordinary CPU test build: each must now give a clear error, never terminate.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/gate.h"
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

// Issue 14, item 3. Was: a stack overflow (SIGSEGV) in every reader: an array nested deep where
// a string or a number belongs, and the error path dumped the whole value recursively. The
// committed inputs nest 30,000 deep (64 KB, the fuzzers' length limit; deep enough for their
// ASan build); this gcc build needs more, so the test nests 300,000 deep.
TEST(FuzzRegressions, DeepNestingIsRefusedByEveryReaderNamingFileAndDepth) {
  const auto expect_refused = [](const absl::Status& s, const std::string& where) {
    ASSERT_FALSE(s.ok()) << where;
    EXPECT_THAT(std::string(s.message()), HasSubstr(where)) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("nested deeper than 64 levels")) << s;
    EXPECT_LT(s.message().size(), 400u) << "the message must not carry the value";
  };
  const std::string deep = std::string(300000, '[') + std::string(300000, ']');
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, const std::string& committed, const std::string& from,
                   const std::string& to) {
    std::string text = Read(committed);
    size_t at = text.find(from);
    text.replace(at, from.size(), to);
    std::ofstream(dir + name, std::ios::binary) << text;
    return dir + name;
  };
  const std::string shallow = std::string(30000, '[') + std::string(30000, ']');
  const std::string report =
      write("deep.json", Regressions("report") / "deep_array_in_string_field.json", shallow, deep);
  expect_refused(reports::ReadReportFile(report).status(), report + ":1:");
  const std::string suite = write(
      "deep_suite.json", Regressions("suite") / "deep_array_in_string_field.json", shallow, deep);
  expect_refused(suites::LoadSuiteFile(suite).status(), suite);
  const std::string policy = write(
      "deep_policy.json", Regressions("gate") / "deep_array_in_number_field.json", shallow, deep);
  expect_refused(reports::ReadGatePolicyFile(policy).status(), policy);
  const std::string line = std::string(29000, '[') + std::string(29000, ']');
  const std::string journal = write(
      "deep.journal.jsonl", Regressions("journal") / "deep_array_in_case_line.jsonl", line, deep);
  expect_refused(reports::ReadJournal(journal).status(), journal + ":2:");
  expect_refused(reports::ReadReportFile(journal).status(), journal + ":2:");
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
