// `flashscope history` end to end, on SQLite and on PostgreSQL (the server of
// FLASHSCOPE_TEST_PG_URL; scripts/pg-test-cluster.sh): 32 synthetic reports with planted steps,
// written with the project's report writer, added in one command; `history changes` must name
// exactly the planted revisions; then re-adding, --since, show, bisect-range and the errors.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "cli/tests/run_cli.h"
#include "history/tests/synthetic_history.h"
#include "history/tests/test_databases.h"
#include "nlohmann/json.hpp"
#include "reports/report_json.h"

namespace flashscope::cli {
namespace {

using history::testing::PlantedSeries;
using history::testing::RevisionName;
using testing::RunCli;

constexpr int kRevisions = 32;

// attn.step: +6 % at rev12; attn.two: -8 % at rev08 and +5 % at rev31 (the newest alone);
// attn.flat: nothing. Noise 0.5 %.
const std::vector<PlantedSeries>& Planted() {
  static const std::vector<PlantedSeries> kSeries = {
      {"attn.step", {{12, 0.06}}}, {"attn.two", {{8, -0.08}, {31, 0.05}}}, {"attn.flat", {}}};
  return kSeries;
}

std::vector<std::string> WriteReports(const std::string& dir) {
  std::mt19937_64 rng(26);
  std::vector<std::string> paths;
  for (int i = 0; i < kRevisions; ++i) {
    const std::string path = absl::StrCat(dir, "/run-", RevisionName(i), ".json");
    const absl::Status s = reports::WriteReportFileAtomic(
        history::testing::SyntheticHistoryReport(i, Planted(), 0.005, rng), path);
    EXPECT_TRUE(s.ok()) << s;
    paths.push_back(path);
  }
  return paths;
}

class HistoryCli : public ::testing::TestWithParam<const char*> {};

TEST_P(HistoryCli, ChangesNameThePlantedRevisionsAndNoOthers) {
  FS_HISTORY_TEST_DB(db, GetParam());
  const std::string dir = testing::TempDir();
  const std::vector<std::string> paths = WriteReports(dir);
  std::vector<std::string> add = {"history", "add", "--db", db};
  add.insert(add.end(), paths.begin(), paths.end());
  testing::CliResult r = RunCli(add);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("added 3 cases to revision rev00"), std::string::npos) << r.out;

  // Re-adding the same report: a no-op.
  r = RunCli({"history", "add", "--db", db, paths[5]});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("already in the history"), std::string::npos) << r.out;

  const std::string json = dir + "/changes.json";
  r = RunCli({"history", "changes", "--db", db, "--json", json});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // two slowdowns beyond the gate's 2 %
  const nlohmann::json j = nlohmann::json::parse(testing::ReadText(json));
  std::set<std::string> found;
  for (const nlohmann::json& c : j["changes"]) {
    found.insert(absl::StrCat(c["kernel_id"].get<std::string>(), " ",
                              c["previous_revision"].get<std::string>(), "->",
                              c["revision"].get<std::string>()));
    for (const char* field : {"problem_key", "gpu", "change", "p_value", "method", "explanation"}) {
      EXPECT_TRUE(c.contains(field)) << field;
    }
    EXPECT_LT(c["p_value"].get<double>(), 0.01);
    if (c["kernel_id"] == "attn.step") {
      EXPECT_NEAR(c["change"].get<double>(), 0.06, 0.015);
      const std::string why = c["explanation"];
      EXPECT_NE(why.find("DRAM bytes +"), std::string::npos) << why;
      EXPECT_NE(why.find("registers 128 -> 168"), std::string::npos) << why;
      EXPECT_NE(why.find("correlation"), std::string::npos) << why;
    }
  }
  EXPECT_EQ(found, (std::set<std::string>{"attn.step rev11->rev12", "attn.two rev07->rev08",
                                          "attn.two rev30->rev31"}));
  EXPECT_EQ(j["regressions"], 2);

  // --since the revision before the newest: only the newest slowdown counts, still a failure.
  r = RunCli({"history", "changes", "--db", db, "--since", "rev30"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("rev30 -> rev31"), std::string::npos) << r.out;
  r = RunCli({"history", "changes", "--db", db, "--since", "rev31"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  r = RunCli({"history", "changes", "--db", db, "--since", "rev99"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no such revision"), std::string::npos) << r.err;

  for (const char* format : {"markdown", "csv", "html"}) {
    r = RunCli({"history", "show", "--db", db, "--format", format, "--kernels", "attn.step"});
    EXPECT_EQ(r.exit_code, 0) << format << r.err;
    EXPECT_NE(r.out.find("rev12"), std::string::npos) << format;
    EXPECT_EQ(r.out.find("attn.two"), std::string::npos) << format;
  }

  r = RunCli({"history", "bisect-range", "--db", db, "--kernels", "attn.step", "--suite",
              "suite.json", "--plugin", "build/attn.so"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("git bisect start 'rev12' 'rev11'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ab \"$suite\" --kernels \"$kernel\""), std::string::npos) << r.out;
  r = RunCli({"history", "bisect-range", "--db", db, "--suite", "s.json", "--plugin", "p.so"});
  EXPECT_EQ(r.exit_code, 2) << r.out;  // two slowdowns match: narrow them
}

INSTANTIATE_TEST_SUITE_P(Backends, HistoryCli, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return std::string(info.param); });

TEST(HistoryCliErrors, BadInputIsExit2WithTheReason) {
  const std::string dir = testing::TempDir();
  const std::string db = dir + "/h.sqlite";
  testing::WriteText(dir + "/future.json",
                     R"({"schema": "flashscope.report", "schema_version": 99, "cases": []})");
  testing::CliResult r = RunCli({"history", "add", "--db", db, dir + "/future.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("schema"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing was added"), std::string::npos) << r.err;

  r = RunCli({"history", "changes", "--db", "mysql://x/y"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unsupported database URL scheme"), std::string::npos) << r.err;
  r = RunCli({"history", "show", "--db", "postgresql://u@/db?host=" + dir + "&connect_timeout=2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot connect"), std::string::npos) << r.err;
  r = RunCli({"history", "show"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no database given"), std::string::npos) << r.err;
  r = RunCli({"history"});
  EXPECT_EQ(r.exit_code, 2);
  r = RunCli({"history", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("bisect-range"), std::string::npos) << r.out;
  r = RunCli({"history", "add", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--revision"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace flashscope::cli
