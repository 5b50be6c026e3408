#include "history/tests/test_databases.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "history/sql_connection.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::history::testing {

std::string FreshSqlitePath() { return reports::testing::MakeTempDir() + "/history.sqlite"; }

bool InCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

std::string FreshPostgresUrl() {
  const char* env = std::getenv("FLASHSCOPE_TEST_PG_URL");
  if (env == nullptr || *env == '\0') return "";
  const std::string base = env;
  static std::atomic<int> counter{0};
  const std::string name = absl::StrCat("fs_history_test_", getpid(), "_", counter++);
  auto db = OpenConnection(base);
  EXPECT_TRUE(db.ok()) << db.status();
  if (!db.ok()) return "";
  (*db)->Exec(absl::StrCat("DROP DATABASE IF EXISTS ", name)).IgnoreError();
  const absl::Status created = (*db)->Exec(absl::StrCat("CREATE DATABASE ", name));
  EXPECT_TRUE(created.ok()) << created;
  // postgresql://USER@HOST/DBNAME?PARAMS: the database is the path after the authority.
  const size_t authority = base.find("://") + 3;
  const size_t query = base.find('?', authority);
  size_t path = base.find('/', authority);
  if (path > query) path = std::string::npos;
  const std::string head = base.substr(0, path == std::string::npos ? query : path);
  const std::string tail = query == std::string::npos ? "" : base.substr(query);
  return absl::StrCat(head, "/", name, tail);
}

}  // namespace flashscope::history::testing
