// The one seam between the history store and its databases: a connection that runs SQL with
// parameters and returns rows as text. The store's SQL is written once with `?` placeholders;
// each backend adapts them (SQLite binds `?` itself, PostgreSQL gets `$1, $2, ...`). Two
// backends: SQLite (libsqlite3, one file, the default) and PostgreSQL (libpq, a team's server).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace flashscope::history {

// A parameter or a column value; nullopt is SQL NULL.
using SqlValue = std::optional<std::string>;
using SqlRow = std::vector<SqlValue>;

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  // "sqlite" or "postgresql".
  virtual const char* backend() const = 0;
  // What the user gave (a path or a URL without its password), for messages.
  virtual const std::string& where() const = 0;
  // Runs one statement with `?` placeholders bound to `params` in order; returns its rows.
  virtual absl::StatusOr<std::vector<SqlRow>> Query(const std::string& sql,
                                                    const std::vector<SqlValue>& params) = 0;
  // Whether a table of this name exists (the catalogues differ: sqlite_master, pg_catalog).
  virtual absl::StatusOr<bool> TableExists(const std::string& table) = 0;

  absl::Status Exec(const std::string& sql, const std::vector<SqlValue>& params = {}) {
    return Query(sql, params).status();
  }
};

// Which database `spec` names: a `postgresql://` (or `postgres://`) URL, else a file path
// (SQLite). Another scheme ("mysql://...") or an empty spec is an InvalidArgument naming the
// accepted forms. Connection failures (no server, bad password, a file that is not a database)
// are Unavailable / FailedPrecondition with the backend's message and the fix.
absl::StatusOr<std::unique_ptr<SqlConnection>> OpenConnection(const std::string& spec);

bool IsPostgresUrl(const std::string& spec);

// The backends (sqlite_connection.cc, postgres_connection.cc).
absl::StatusOr<std::unique_ptr<SqlConnection>> OpenSqlite(const std::string& path);
absl::StatusOr<std::unique_ptr<SqlConnection>> OpenPostgres(const std::string& url);

// `sql` with its `?` placeholders (outside quoted strings) numbered as PostgreSQL's `$1, $2, ...`.
std::string NumberPlaceholders(const std::string& sql);

// A transaction that rolls back unless committed: BEGIN, COMMIT and ROLLBACK are the same SQL on
// both backends.
class Transaction {
 public:
  explicit Transaction(SqlConnection& db) : db_(db) {}
  ~Transaction();
  absl::Status Begin();
  absl::Status Commit();

 private:
  SqlConnection& db_;
  bool open_ = false;
};

}  // namespace flashscope::history
