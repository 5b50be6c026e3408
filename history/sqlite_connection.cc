// The SQLite backend: one file, created on first use, nothing to run (Debian's libsqlite3).
#include <sqlite3.h>
#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "history/sql_connection.h"

namespace flashscope::history {
namespace {

class SqliteConnection : public SqlConnection {
 public:
  SqliteConnection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteConnection() override { sqlite3_close(db_); }
  const char* backend() const override { return "sqlite"; }
  const std::string& where() const override { return path_; }

  absl::StatusOr<std::vector<SqlRow>> Query(const std::string& sql,
                                            const std::vector<SqlValue>& params) override {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) return Error(sql);
    std::vector<SqlRow> rows;
    absl::Status status = Bind(stmt, params);
    while (status.ok()) {
      const int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) {
        status = Error(sql);
        break;
      }
      SqlRow row;
      for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, i));
        if (text == nullptr) {
          row.push_back(std::nullopt);
        } else {
          row.emplace_back(std::string(text, sqlite3_column_bytes(stmt, i)));
        }
      }
      rows.push_back(std::move(row));
    }
    sqlite3_finalize(stmt);
    if (!status.ok()) return status;
    return rows;
  }

  absl::StatusOr<bool> TableExists(const std::string& table) override {
    auto rows = Query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", {table});
    if (!rows.ok()) return rows.status();
    return !rows->empty();
  }

 private:
  absl::Status Bind(sqlite3_stmt* stmt, const std::vector<SqlValue>& params) {
    for (size_t i = 0; i < params.size(); ++i) {
      const int at = static_cast<int>(i) + 1;
      const int rc = params[i]
                         ? sqlite3_bind_text(stmt, at, params[i]->data(),
                                             static_cast<int>(params[i]->size()), SQLITE_TRANSIENT)
                         : sqlite3_bind_null(stmt, at);
      if (rc != SQLITE_OK) return Error("binding parameters");
    }
    return absl::OkStatus();
  }

  absl::Status Error(const std::string& what) {
    const int code = sqlite3_errcode(db_);
    std::string message =
        absl::StrCat("history database ", path_, " (SQLite): ", sqlite3_errmsg(db_),
                     " (in: ", what.substr(0, 80), ")");
    if (code == SQLITE_NOTADB) {
      return absl::FailedPreconditionError(
          absl::StrCat(message,
                       "; the file is not an SQLite database: give a new path or the "
                       "history file `flashscope history add` created"));
    }
    if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
      return absl::UnavailableError(
          absl::StrCat(message, "; another process holds the database: retry when it is done"));
    }
    return absl::InternalError(message);
  }

  sqlite3* db_;
  std::string path_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<SqlConnection>> OpenSqlite(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("history database ", path,
                     " is not a regular file: give a file path or a postgresql:// URL"));
  }
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = absl::StrCat("cannot open history database ", path,
                                       " (SQLite): ", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc),
                                       "; does its directory exist and is it writable?");
    sqlite3_close(db);
    return absl::UnavailableError(message);
  }
  // Concurrent writers (two CI jobs on one file) wait for each other instead of failing at once.
  sqlite3_busy_timeout(db, 10000);
  auto connection = std::make_unique<SqliteConnection>(db, path);
  if (absl::Status s = connection->Exec("PRAGMA foreign_keys = ON"); !s.ok()) return s;
  return std::unique_ptr<SqlConnection>(std::move(connection));
}

}  // namespace flashscope::history
