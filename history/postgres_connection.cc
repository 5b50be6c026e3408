// The PostgreSQL backend (libpq): a team's shared history on a server, same schema and same SQL
// as the SQLite file; only the placeholders are renumbered (NumberPlaceholders).
#include <libpq-fe.h>

#include <regex>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "history/sql_connection.h"

namespace flashscope::history {
namespace {

// The URL as messages show it: a password ("user:secret@host") replaced by "***".
std::string WithoutPassword(const std::string& url) {
  static const std::regex kPassword(R"(^([a-zA-Z]+://[^:/@?]*):[^@/?]*@)");
  return std::regex_replace(url, kPassword, "$1:***@");
}

std::string Trimmed(const char* message) {
  return std::string(absl::StripTrailingAsciiWhitespace(message ? message : ""));
}

void IgnoreNotice(void*, const char*) {}  // "relation already exists, skipping" and the like

class PostgresConnection : public SqlConnection {
 public:
  PostgresConnection(PGconn* conn, std::string where) : conn_(conn), where_(std::move(where)) {
    PQsetNoticeProcessor(conn_, IgnoreNotice, nullptr);
  }
  ~PostgresConnection() override { PQfinish(conn_); }
  const char* backend() const override { return "postgresql"; }
  const std::string& where() const override { return where_; }

  absl::StatusOr<std::vector<SqlRow>> Query(const std::string& sql,
                                            const std::vector<SqlValue>& params) override {
    std::vector<const char*> values;
    for (const SqlValue& p : params) values.push_back(p ? p->c_str() : nullptr);
    PGresult* result =
        PQexecParams(conn_, NumberPlaceholders(sql).c_str(), static_cast<int>(values.size()),
                     nullptr, values.data(), nullptr, nullptr, /*resultFormat=*/0);
    const ExecStatusType status = PQresultStatus(result);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      std::string message = absl::StrCat("history database ", where_,
                                         " (PostgreSQL): ", Trimmed(PQresultErrorMessage(result)),
                                         " (in: ", sql.substr(0, 80), ")");
      PQclear(result);
      if (PQstatus(conn_) != CONNECTION_OK) {
        return absl::UnavailableError(absl::StrCat(message, "; the connection was lost"));
      }
      return absl::InternalError(message);
    }
    std::vector<SqlRow> rows;
    for (int r = 0; r < PQntuples(result); ++r) {
      SqlRow row;
      for (int c = 0; c < PQnfields(result); ++c) {
        if (PQgetisnull(result, r, c)) {
          row.push_back(std::nullopt);
        } else {
          row.emplace_back(std::string(PQgetvalue(result, r, c), PQgetlength(result, r, c)));
        }
      }
      rows.push_back(std::move(row));
    }
    PQclear(result);
    return rows;
  }

  absl::StatusOr<bool> TableExists(const std::string& table) override {
    auto rows = Query(
        "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND "
        "tablename = ?",
        {table});
    if (!rows.ok()) return rows.status();
    return !rows->empty();
  }

 private:
  PGconn* conn_;
  std::string where_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<SqlConnection>> OpenPostgres(const std::string& url) {
  const std::string where = WithoutPassword(url);
  // Parse first: a malformed URL is bad input (exit 2 with the parser's reason), not a server
  // that cannot be reached.
  char* parse_error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &parse_error);
  if (options == nullptr) {
    std::string reason = parse_error ? Trimmed(parse_error) : "out of memory";
    PQfreemem(parse_error);
    return absl::InvalidArgumentError(absl::StrCat(
        "bad PostgreSQL URL ", where, ": ", reason,
        " (form: postgresql://USER[:PASSWORD]@HOST[:PORT]/DBNAME[?host=/socket/dir])"));
  }
  PQconninfoFree(options);
  PGconn* conn = PQconnectdb(url.c_str());
  if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) {
    std::string reason = conn ? Trimmed(PQerrorMessage(conn)) : "out of memory";
    PQfinish(conn);
    return absl::UnavailableError(absl::StrCat(
        "cannot connect to the history database ", where, " (PostgreSQL): ", reason,
        "; is the server running, and are the host, port, user and database name right?"));
  }
  return std::unique_ptr<SqlConnection>(std::make_unique<PostgresConnection>(conn, where));
}

}  // namespace flashscope::history
