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
  // 10x slower, samples and all (a timing agrees with its samples, or the report is refused).
  for (const char* key : {"median_ms", "mean_ms", "min_ms", "max_ms"}) {
    copy["timing"][key] = copy["timing"][key].get<double>() * 10;
  }
  for (Json& x : copy["timing"]["samples_ms"]) x = x.get<double>() * 10;
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
  base["cases"][0]["timing"]["min_ms"] = 100.0;
  Json next = base;
  next["cases"][0]["timing"]["samples_ms"] = {200.0, 201.0};
  next["cases"][0]["timing"]["median_ms"] = 200.5;
  next["cases"][0]["timing"]["min_ms"] = 200.0;
  CliResult r = RunCli({"gate", Save(dir, "b.json", base), Save(dir, "n.json", next)});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, AllOf(HasSubstr("GATE FAILED"), HasSubstr("[slowdown]")));
}

// Issue 14, item 5: a report string never reaches the terminal raw, and a NUL does not cut the
// output short.
TEST(GateCli, HostileStringsReachTheTerminalInert) {
  const std::string dir = TempDir();
  Json r = Example();
  r["cases"][0]["kernel_id"] =
      std::string("evil\x1b[2J\rGATE PASSED\nx") + std::string(1, '\0') + "nul";
  r["cases"][1]["reason"] = "\x1b]0;title\x07";
  const std::string path = Save(dir, "hostile.json", r);
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"show", path, "--color=always"},
                                             {"render", path, "--format", "terminal"},
                                             {"gate", path, path, "--color=always"}}) {
    CliResult c = RunCli(args);
    const std::string all = c.out + c.err;
    if (args[0] != "gate") {  // the gate lists failures only, and this case passes
      EXPECT_THAT(all, HasSubstr("evil\\x1b[2J\\rGATE PASSED\\nx\\x00nul")) << args[0];
    }
    for (size_t i = all.find('\x1b'); i != std::string::npos; i = all.find('\x1b', i + 1)) {
      EXPECT_NE(all.compare(i, 3, "\x1b]0"), 0) << args[0];
      EXPECT_NE(all.compare(i, 4, "\x1b[2J"), 0) << args[0];
    }
    EXPECT_EQ(all.find('\0'), std::string::npos) << args[0];
    EXPECT_EQ(all.find('\r'), std::string::npos) << args[0];
  }
  // The rows after the NUL are there.
  EXPECT_THAT(RunCli({"show", path}).out, HasSubstr("attn.a01_scalar"));
  // An error message naming a hostile key is inert too.
  Json twice = r;
  twice["cases"].push_back(r["cases"][0]);
  CliResult dup = RunCli({"gate", Save(dir, "twice.json", twice), path});
  EXPECT_EQ(dup.exit_code, 2);
  EXPECT_THAT(dup.err, HasSubstr("evil\\x1b[2J\\rGATE PASSED\\nx\\x00nul attention_fwd"));
  EXPECT_EQ(dup.err.find('\x1b'), std::string::npos);
}

}  // namespace
}  // namespace flashscope::cli::testing
