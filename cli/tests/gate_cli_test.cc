// `flashscope gate` and `compare` end to end on reports a CI should never trust (issue 14, item
// 1): a report holding a case twice, an empty side, a case slowed down 2x with two samples.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "cli/tests/run_cli.h"
#include "nlohmann/json.hpp"

namespace flashscope::cli::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using Json = nlohmann::json;

Json Example() {
  std::ifstream in(std::string(FLASHSCOPE_TEST_SOURCE_DIR) +
                   "/reports/testdata/synthetic_example_report.json");
  return Json::parse(in);
}

std::string Save(const std::string& dir, const std::string& name, const Json& j) {
  const std::string path = dir + "/" + name;
  WriteText(path, j.dump(1));
  return path;
}

TEST(GateCli, DuplicateKeysExit2OnEitherSide) {
  const std::string dir = TempDir();
  Json twice = Example();
  Json copy = twice["cases"][0];
  copy["status"] = "failed";
  copy["timing"]["median_ms"] = copy["timing"]["median_ms"].get<double>() * 10;
  twice["cases"].push_back(copy);
  const std::string ok = Save(dir, "ok.json", Example());
  const std::string dup = Save(dir, "dup.json", twice);
  for (const auto& [base, next] : {std::pair{ok, dup}, std::pair{dup, ok}}) {
    for (const char* command : {"gate", "compare"}) {
      CliResult r = RunCli({command, base, next});
      EXPECT_EQ(r.exit_code, 2) << command << " " << r.out;
      EXPECT_THAT(r.err, AllOf(HasSubstr("dup.json"), HasSubstr("appears 2 times")));
    }
  }
}

TEST(GateCli, EmptySideExit2) {
  const std::string dir = TempDir();
  Json empty = Example();
  empty["cases"] = Json::array();
  const std::string ok = Save(dir, "ok.json", Example());
  const std::string none = Save(dir, "empty.json", empty);
  for (const auto& [base, next] : {std::pair{none, ok}, std::pair{ok, none}}) {
    CliResult r = RunCli({"gate", base, next});
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_THAT(r.err, AllOf(HasSubstr("empty.json"), HasSubstr("holds no cases")));
  }
}

TEST(GateCli, TwoSamplesTwiceAsSlowFailTheGate) {
  const std::string dir = TempDir();
  Json base = Example();
  base["cases"] = Json::array({Example()["cases"][0]});
  base["cases"][0]["timing"]["samples_ms"] = {100.0, 100.5};
  base["cases"][0]["timing"]["median_ms"] = 100.25;
  Json next = base;
  next["cases"][0]["timing"]["samples_ms"] = {200.0, 201.0};
  next["cases"][0]["timing"]["median_ms"] = 200.5;
  CliResult r = RunCli({"gate", Save(dir, "b.json", base), Save(dir, "n.json", next)});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, AllOf(HasSubstr("GATE FAILED"), HasSubstr("[slowdown]")));
}

}  // namespace
}  // namespace flashscope::cli::testing
