// Loading through the reports library, live reload, and never crashing on a bad file.
#include "viewer/session.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "reports/report_json.h"
#include "viewer/tests/synthetic_report.h"

namespace flashscope::viewer {
namespace {

namespace fs = std::filesystem;

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fs_viewer_session_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const char* name) { return (dir_ / name).string(); }
  static void Overwrite(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::trunc) << text;
  }
  fs::path dir_;
};

TEST_F(SessionTest, LoadsReloadsAndKeepsLastGoodVersion) {
  std::string path = Path("run.json");
  ASSERT_TRUE(reports::WriteReportFileAtomic(testing::MakeSyntheticReport(30, 1), path).ok());
  Session s({path});
  EXPECT_EQ(s.LoadAll(), 0);
  ASSERT_TRUE(s.reports()[0].report);
  EXPECT_EQ(s.reports()[0].report->cases.size(), 30u);
  uint64_t gen = s.reports()[0].generation;
  EXPECT_EQ(s.PollForChanges(), 0);  // unchanged file: no reload

  // A damaged write: the error is recorded, the last good report stays.
  Overwrite(path, "{\"schema\": \"flashscope.report\", trunc");
  EXPECT_EQ(s.PollForChanges(), 1);
  EXPECT_FALSE(s.reports()[0].error.empty());
  EXPECT_NE(s.reports()[0].error.find(path), std::string::npos);
  ASSERT_TRUE(s.reports()[0].report);
  EXPECT_EQ(s.reports()[0].report->cases.size(), 30u);
  EXPECT_EQ(s.ErrorCount(), 1);

  // The run finishes: a new, good version is picked up.
  ASSERT_TRUE(reports::WriteReportFileAtomic(testing::MakeSyntheticReport(50, 2), path).ok());
  EXPECT_EQ(s.PollForChanges(), 1);
  EXPECT_TRUE(s.reports()[0].error.empty());
  EXPECT_EQ(s.reports()[0].report->cases.size(), 50u);
  EXPECT_NE(s.reports()[0].generation, gen);
  EXPECT_EQ(s.ErrorCount(), 0);
}

TEST_F(SessionTest, BadFilesAreNamedErrorsNotCrashes) {
  std::string missing = Path("missing.json"), empty = Path("empty.json"),
              notjson = Path("notjson.json"), other = Path("other.json");
  Overwrite(empty, "");
  Overwrite(notjson, "this is not json\n");
  Overwrite(other, "{\"hello\": 1}");
  Session s({missing, empty, notjson, other});
  EXPECT_EQ(s.LoadAll(), 4);
  for (const auto& r : s.reports()) {
    EXPECT_FALSE(r.report) << r.path;
    EXPECT_NE(r.error.find(r.path), std::string::npos) << r.error;
    EXPECT_FALSE(ErrorHint(r.error).empty());
  }
  // A file that appears later is loaded by the poll.
  ASSERT_TRUE(reports::WriteReportFileAtomic(testing::MakeSyntheticReport(5, 3), missing).ok());
  EXPECT_GE(s.PollForChanges(), 1);
  EXPECT_TRUE(s.reports()[0].report);
}

}  // namespace
}  // namespace flashscope::viewer
