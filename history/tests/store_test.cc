// The history store on both backends, the same tests: schema and migrations, adding reports
// (no-op on re-adding, revisions, series keys), reading series and reports back, and the errors.
#include "history/store.h"

#include <gtest/gtest.h>

#include "history/schema.h"
#include "history/tests/test_databases.h"
#include "reports/report_json.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::history {
namespace {

using reports::CaseStatus;
using reports::Report;
using reports::testing::SimpleCase;

Report RunOf(double scale, const std::string& revision) {
  Report r;
  r.environment = reports::testing::SyntheticEnvironment();
  r.environment.git_revision = revision;
  r.environment.host = "ci-runner";
  r.complete = true;
  r.cases.push_back(SimpleCase("attn.a", "p1", CaseStatus::kPassed, 1.0 * scale));
  r.cases.push_back(SimpleCase("attn.b", "p1", CaseStatus::kPassed, 2.0 * scale));
  r.cases.push_back(SimpleCase("attn.c", "p1", CaseStatus::kSkipped, 0));
  for (reports::CaseResult& c : r.cases) c.provenance.reset();
  return r;
}

class StoreTest : public ::testing::TestWithParam<const char*> {};

TEST_P(StoreTest, NewDatabaseIsMigratedToTheCurrentSchema) {
  FS_HISTORY_TEST_DB(db, GetParam());
  auto store = HistoryStore::Open(db);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(store->connection().backend(), std::string(GetParam()));
  auto version = ReadSchemaVersion(store->connection());
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, kHistorySchemaVersion);
}

TEST_P(StoreTest, MigratesAnOlderSchemaStepByStepKeepingItsData) {
  FS_HISTORY_TEST_DB(db, GetParam());
  {
    auto c = OpenConnection(db);
    ASSERT_TRUE(c.ok()) << c.status();
    ASSERT_TRUE(MigrateTo(**c, 1).ok());
    EXPECT_EQ(*ReadSchemaVersion(**c), 1);
    ASSERT_TRUE((*c)->Exec("INSERT INTO revisions (name, branch, seq, added_at) VALUES "
                           "(?, ?, ?, ?)",
                           {"r0", "main", "1", "2026-01-01T00:00:00Z"})
                    .ok());
  }
  auto store = HistoryStore::Open(db);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(*ReadSchemaVersion(store->connection()), 2);
  EXPECT_EQ(*store->Revisions(), std::vector<std::string>{"r0"});
}

TEST_P(StoreTest, NewerSchemaIsRefusedUntouched) {
  FS_HISTORY_TEST_DB(db, GetParam());
  {
    auto store = HistoryStore::Open(db);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE(store->connection().Exec("UPDATE schema_version SET version = 99").ok());
  }
  auto again = HistoryStore::Open(db);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("schema version 99, newer than this flashscope knows"),
            std::string::npos)
      << again.status();
}

TEST_P(StoreTest, AddsCasesAsSeriesAndReAddingIsANoOp) {
  FS_HISTORY_TEST_DB(db, GetParam());
  auto store = HistoryStore::Open(db);
  ASSERT_TRUE(store.ok()) << store.status();
  const Report first = RunOf(1.0, "rev1");
  auto added = store->Add(first, {});
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_TRUE(added->added);
  EXPECT_EQ(added->cases, 3);
  EXPECT_EQ(added->revisions, std::vector<std::string>{"rev1"});
  AddOptions relabel;
  relabel.revision = "other";
  auto again = store->Add(first, relabel);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->added);
  EXPECT_EQ(again->hash, added->hash);
  ASSERT_TRUE(store->Add(RunOf(1.1, "rev2"), {}).ok());
  AddOptions other_revision;
  other_revision.revision = "rev2";  // a second run of rev2: pooled into one point
  ASSERT_TRUE(store->Add(RunOf(1.12, "ignored"), other_revision).ok());
  EXPECT_EQ(*store->Revisions(), (std::vector<std::string>{"rev1", "rev2"}));

  auto series = store->LoadSeries({});
  ASSERT_TRUE(series.ok()) << series.status();
  ASSERT_EQ(series->size(), 3u);
  const Series& a = (*series)[0];
  EXPECT_EQ(a.key.kernel_id, "attn.a");
  EXPECT_EQ(a.key.gpu, first.environment.gpu_name);
  EXPECT_EQ(a.key.testbed, "ci-runner");
  ASSERT_EQ(a.points.size(), 2u);
  EXPECT_EQ(a.points[0].revision, "rev1");
  EXPECT_TRUE(a.points[0].Timed());
  EXPECT_EQ(a.points[1].report_hashes.size(), 2u);
  EXPECT_EQ(a.points[1].samples_ms.size(), 2 * first.cases[0].timing->samples_ms.size());
  EXPECT_FALSE((*series)[2].points[0].Timed());  // skipped: a point without a timing
  EXPECT_EQ((*series)[2].points[0].status, "skipped");

  auto filtered = store->LoadSeries({"attn.[ab]", "p*"});
  ASSERT_TRUE(filtered.ok());
  EXPECT_EQ(filtered->size(), 2u);

  auto back = store->LoadReport(added->hash);
  ASSERT_TRUE(back.ok()) << back.status();
  reports::testing::ExpectSameReport(*back, first);
}

TEST_P(StoreTest, ACaseWithoutAnyRevisionIsRefused) {
  FS_HISTORY_TEST_DB(db, GetParam());
  auto store = HistoryStore::Open(db);
  ASSERT_TRUE(store.ok());
  auto r = store->Add(RunOf(1.0, ""), {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("pass --revision"), std::string::npos) << r.status();
  EXPECT_TRUE(store->Revisions()->empty());  // nothing half-added
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return std::string(info.param); });

TEST(OpenConnection, BadSpecsAreNamedWithTheFix) {
  auto empty = OpenConnection("");
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  auto mysql = OpenConnection("mysql://db/x");
  EXPECT_EQ(mysql.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(mysql.status().message().find("unsupported database URL scheme 'mysql'"),
            std::string::npos);
  auto bad = OpenConnection("postgresql://host:notaport/db");
  EXPECT_FALSE(bad.ok());
  auto dir = OpenConnection(reports::testing::MakeTempDir());
  EXPECT_EQ(dir.status().code(), absl::StatusCode::kInvalidArgument) << dir.status();
  auto missing_dir = OpenConnection("/nonexistent/dir/history.sqlite");
  EXPECT_EQ(missing_dir.status().code(), absl::StatusCode::kUnavailable) << missing_dir.status();
}

TEST(OpenConnection, UnreachableServerSaysSoWithoutThePassword) {
  const std::string socket_dir = reports::testing::MakeTempDir();  // no server listens there
  auto r = OpenConnection("postgresql://user:secret@/db?host=" + socket_dir + "&connect_timeout=2");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("is the server running"), std::string::npos) << r.status();
  EXPECT_EQ(r.status().message().find("secret"), std::string::npos) << r.status();
}

TEST(OpenConnection, AFileThatIsNotADatabaseIsRefused) {
  const std::string path = reports::testing::MakeTempDir() + "/notes.txt";
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs("not a database, just some text that is long enough to have a header\n", f);
  std::fclose(f);
  auto store = HistoryStore::Open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("not an SQLite database"), std::string::npos)
      << store.status();
}

TEST(NumberPlaceholders, OutsideQuotesOnly) {
  EXPECT_EQ(NumberPlaceholders("SELECT ? , '?', \"a?\" FROM t WHERE x = ?"),
            "SELECT $1 , '?', \"a?\" FROM t WHERE x = $2");
}

}  // namespace
}  // namespace flashscope::history
