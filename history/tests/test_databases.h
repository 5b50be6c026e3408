// The databases the history tests run against: a fresh SQLite file, and a fresh database on the
// PostgreSQL server of FLASHSCOPE_TEST_PG_URL (scripts/pg-test-cluster.sh; scripts/test.sh starts
// one). Without that URL a PostgreSQL test skips with the command that starts a server, except
// in CI (CI=true), where it fails: CI must test the server, never quietly not.
#pragma once

#include <string>

namespace flashscope::history::testing {

// A new SQLite file path in a fresh temporary folder.
std::string FreshSqlitePath();

// A new, empty database on the test server, as a postgresql:// URL; "" when there is no server
// (the caller then calls SkipOrFailWithoutPostgres()).
std::string FreshPostgresUrl();

// GTEST_SKIP's message or, with CI=true, a failure; use as `if (url.empty()) {
// SkipOrFailWithoutPostgres(); return; }` ... see the macro below.
bool InCi();
inline constexpr char kNoPostgres[] =
    "FLASHSCOPE_TEST_PG_URL is not set, so the PostgreSQL history tests did not run; start a "
    "throw-away server with: eval \"$(scripts/pg-test-cluster.sh start)\"";

}  // namespace flashscope::history::testing

// Inside a TEST: gives the database of `backend` ("sqlite" or "postgresql") in `var`, or skips
// (fails in CI) when PostgreSQL is asked for and there is no server.
#define FS_HISTORY_TEST_DB(var, backend)                                      \
  std::string var = std::string(backend) == "sqlite"                          \
                        ? ::flashscope::history::testing::FreshSqlitePath()   \
                        : ::flashscope::history::testing::FreshPostgresUrl(); \
  if (var.empty()) {                                                          \
    if (::flashscope::history::testing::InCi()) {                             \
      FAIL() << "CI=true: " << ::flashscope::history::testing::kNoPostgres;   \
    }                                                                         \
    GTEST_SKIP() << ::flashscope::history::testing::kNoPostgres;              \
  }
