// The history database's schema, versioned (docs/history.md, "Schema"): a table `schema_version`
// holds one row, the version; each version N+1 is reached from N by one migration function run
// in a transaction. Opening a database migrates it forward; a database of a newer version than
// this build knows is refused (never altered).
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "history/sql_connection.h"

namespace flashscope::history {

inline constexpr int kHistorySchemaVersion = 2;

// 0 for an empty database (no schema_version table, none of ours either). A database holding our
// tables without a version, or several version rows, is FailedPrecondition.
absl::StatusOr<int> ReadSchemaVersion(SqlConnection& db);

// Migrates step by step up to `target` (<= kHistorySchemaVersion); refuses a newer database.
absl::Status MigrateTo(SqlConnection& db, int target = kHistorySchemaVersion);

}  // namespace flashscope::history
