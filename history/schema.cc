#include "history/schema.h"

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace flashscope::history {
namespace {

// 0 -> 1: the tables. A report is kept whole (its JSON, `body`) so that the two runs around a
// change point can be compared and explained later; `points` is one row per case of a report,
// the series' data.
absl::Status MigrateFrom0To1(SqlConnection& db) {
  for (const char* sql : {
           "CREATE TABLE schema_version (version INTEGER NOT NULL)",
           "INSERT INTO schema_version (version) VALUES (0)",
           "CREATE TABLE revisions (name TEXT PRIMARY KEY, branch TEXT NOT NULL, "
           "seq BIGINT NOT NULL UNIQUE, added_at TEXT NOT NULL)",
           "CREATE TABLE reports (hash TEXT PRIMARY KEY, source TEXT NOT NULL, "
           "branch TEXT NOT NULL, testbed TEXT NOT NULL, gpu TEXT NOT NULL, "
           "flashscope_revision TEXT NOT NULL, started_at TEXT NOT NULL, "
           "added_at TEXT NOT NULL, body TEXT NOT NULL)",
           "CREATE TABLE points (report_hash TEXT NOT NULL REFERENCES reports (hash), "
           "kernel_id TEXT NOT NULL, problem_key TEXT NOT NULL, gpu TEXT NOT NULL, "
           "testbed TEXT NOT NULL, revision TEXT NOT NULL REFERENCES revisions (name), "
           "status TEXT NOT NULL, median_ms DOUBLE PRECISION, samples_ms TEXT NOT NULL, "
           "PRIMARY KEY (report_hash, kernel_id, problem_key))",
       }) {
    if (absl::Status s = db.Exec(sql); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// 1 -> 2: reading one series (`history show --kernels`) no longer scans every point.
absl::Status MigrateFrom1To2(SqlConnection& db) {
  return db.Exec("CREATE INDEX points_series ON points (kernel_id, problem_key, gpu, testbed)");
}

// kMigrations[n] takes a database from version n to n + 1.
const std::vector<std::function<absl::Status(SqlConnection&)>>& Migrations() {
  static const std::vector<std::function<absl::Status(SqlConnection&)>> kMigrations = {
      MigrateFrom0To1, MigrateFrom1To2};
  return kMigrations;
}

}  // namespace

absl::StatusOr<int> ReadSchemaVersion(SqlConnection& db) {
  auto has_version = db.TableExists("schema_version");
  if (!has_version.ok()) return has_version.status();
  if (!*has_version) {
    for (const char* table : {"reports", "points", "revisions"}) {
      auto exists = db.TableExists(table);
      if (!exists.ok()) return exists.status();
      if (*exists) {
        return absl::FailedPreconditionError(absl::StrCat(
            "history database ", db.where(), " has a table '", table,
            "' but no schema_version: it is not a flashscope history (or was damaged); use "
            "another database"));
      }
    }
    return 0;
  }
  auto rows = db.Query("SELECT version FROM schema_version", {});
  if (!rows.ok()) return rows.status();
  int version = 0;
  if (rows->size() != 1 || !(*rows)[0][0] || !absl::SimpleAtoi(*(*rows)[0][0], &version)) {
    return absl::FailedPreconditionError(absl::StrCat("history database ", db.where(),
                                                      ": schema_version must hold one version, "
                                                      "holds ",
                                                      rows->size(),
                                                      " rows: the database was damaged"));
  }
  return version;
}

absl::Status MigrateTo(SqlConnection& db, int target) {
  auto version = ReadSchemaVersion(db);
  if (!version.ok()) return version.status();
  if (*version > kHistorySchemaVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat("history database ", db.where(), " has schema version ", *version,
                     ", newer than this flashscope knows (", kHistorySchemaVersion,
                     "): use a newer flashscope; the database was not changed"));
  }
  for (int v = *version; v < target; ++v) {
    Transaction t(db);
    if (absl::Status s = t.Begin(); !s.ok()) return s;
    if (absl::Status s = Migrations()[v](db); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("migrating the history schema from version ", v,
                                                 " to ", v + 1, ": ", s.message()));
    }
    if (absl::Status s = db.Exec("UPDATE schema_version SET version = ?", {absl::StrCat(v + 1)});
        !s.ok()) {
      return s;
    }
    if (absl::Status s = t.Commit(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace flashscope::history
