// The PostgreSQL backend (libpq): a team's shared history on a server, same schema and same SQL
// as the SQLite file; only the placeholders are renumbered (NumberPlaceholders).
//
// libpq is loaded when a postgresql:// URL is first opened (dlopen), not linked: `flashscope`
// must start on machines without it (the GPU image has no libpq and nothing can be installed
// there), where only the SQLite history is then available, and says so.
#include <dlfcn.h>
#include <libpq-fe.h>  // the types and signatures only

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

// The libpq functions the backend calls, resolved from libpq.so.5 once.
struct LibPq {
  decltype(&::PQconnectdb) connectdb;
  decltype(&::PQstatus) status;
  decltype(&::PQerrorMessage) error_message;
  decltype(&::PQfinish) finish;
  decltype(&::PQexecParams) exec_params;
  decltype(&::PQresultStatus) result_status;
  decltype(&::PQresultErrorMessage) result_error_message;
  decltype(&::PQclear) clear;
  decltype(&::PQntuples) ntuples;
  decltype(&::PQnfields) nfields;
  decltype(&::PQgetisnull) getisnull;
  decltype(&::PQgetvalue) getvalue;
  decltype(&::PQgetlength) getlength;
  decltype(&::PQsetNoticeProcessor) set_notice_processor;
  decltype(&::PQconninfoParse) conninfo_parse;
  decltype(&::PQconninfoFree) conninfo_free;
  decltype(&::PQfreemem) freemem;
};

template <typename F>
bool Resolve(void* library, const char* name, F* f) {
  *f = reinterpret_cast<F>(dlsym(library, name));
  return *f != nullptr;
}

// libpq, or null with *error saying why and what to install.
const LibPq* LoadLibPq(std::string* error) {
  static std::string load_error;
  static const LibPq* loaded = []() -> const LibPq* {
    void* library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      load_error = absl::StrCat("PostgreSQL support needs libpq (", dlerror(),
                                "); install it (Debian/Ubuntu: apt-get install libpq5) or use an "
                                "SQLite file as --db");
      return nullptr;
    }
    static LibPq pq;
    const bool ok = Resolve(library, "PQconnectdb", &pq.connectdb) &&
                    Resolve(library, "PQstatus", &pq.status) &&
                    Resolve(library, "PQerrorMessage", &pq.error_message) &&
                    Resolve(library, "PQfinish", &pq.finish) &&
                    Resolve(library, "PQexecParams", &pq.exec_params) &&
                    Resolve(library, "PQresultStatus", &pq.result_status) &&
                    Resolve(library, "PQresultErrorMessage", &pq.result_error_message) &&
                    Resolve(library, "PQclear", &pq.clear) &&
                    Resolve(library, "PQntuples", &pq.ntuples) &&
                    Resolve(library, "PQnfields", &pq.nfields) &&
                    Resolve(library, "PQgetisnull", &pq.getisnull) &&
                    Resolve(library, "PQgetvalue", &pq.getvalue) &&
                    Resolve(library, "PQgetlength", &pq.getlength) &&
                    Resolve(library, "PQsetNoticeProcessor", &pq.set_notice_processor) &&
                    Resolve(library, "PQconninfoParse", &pq.conninfo_parse) &&
                    Resolve(library, "PQconninfoFree", &pq.conninfo_free) &&
                    Resolve(library, "PQfreemem", &pq.freemem);
    if (!ok) {
      load_error = absl::StrCat("libpq.so.5 lacks a function flashscope needs (", dlerror(),
                                "): install a libpq of PostgreSQL 10 or newer");
      return nullptr;
    }
    return &pq;
  }();
  if (loaded == nullptr) *error = load_error;
  return loaded;
}

class PostgresConnection : public SqlConnection {
 public:
  PostgresConnection(const LibPq& pq, PGconn* conn, std::string where)
      : pq_(pq), conn_(conn), where_(std::move(where)) {
    pq_.set_notice_processor(conn_, IgnoreNotice, nullptr);
  }
  ~PostgresConnection() override { pq_.finish(conn_); }
  const char* backend() const override { return "postgresql"; }
  const std::string& where() const override { return where_; }

  absl::StatusOr<std::vector<SqlRow>> Query(const std::string& sql,
                                            const std::vector<SqlValue>& params) override {
    std::vector<const char*> values;
    for (const SqlValue& p : params) values.push_back(p ? p->c_str() : nullptr);
    PGresult* result =
        pq_.exec_params(conn_, NumberPlaceholders(sql).c_str(), static_cast<int>(values.size()),
                        nullptr, values.data(), nullptr, nullptr, /*resultFormat=*/0);
    const ExecStatusType status = pq_.result_status(result);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      std::string message = absl::StrCat(
          "history database ", where_, " (PostgreSQL): ", Trimmed(pq_.result_error_message(result)),
          " (in: ", sql.substr(0, 80), ")");
      pq_.clear(result);
      if (pq_.status(conn_) != CONNECTION_OK) {
        return absl::UnavailableError(absl::StrCat(message, "; the connection was lost"));
      }
      return absl::InternalError(message);
    }
    std::vector<SqlRow> rows;
    for (int r = 0; r < pq_.ntuples(result); ++r) {
      SqlRow row;
      for (int c = 0; c < pq_.nfields(result); ++c) {
        if (pq_.getisnull(result, r, c)) {
          row.push_back(std::nullopt);
        } else {
          row.emplace_back(std::string(pq_.getvalue(result, r, c), pq_.getlength(result, r, c)));
        }
      }
      rows.push_back(std::move(row));
    }
    pq_.clear(result);
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
  const LibPq& pq_;
  PGconn* conn_;
  std::string where_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<SqlConnection>> OpenPostgres(const std::string& url) {
  const std::string where = WithoutPassword(url);
  std::string load_error;
  const LibPq* pq = LoadLibPq(&load_error);
  if (pq == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("history database ", where, ": ", load_error));
  }
  // Parse first: a malformed URL is bad input (exit 2 with the parser's reason), not a server
  // that cannot be reached.
  char* parse_error = nullptr;
  PQconninfoOption* options = pq->conninfo_parse(url.c_str(), &parse_error);
  if (options == nullptr) {
    std::string reason = parse_error ? Trimmed(parse_error) : "out of memory";
    pq->freemem(parse_error);
    return absl::InvalidArgumentError(absl::StrCat(
        "bad PostgreSQL URL ", where, ": ", reason,
        " (form: postgresql://USER[:PASSWORD]@HOST[:PORT]/DBNAME[?host=/socket/dir])"));
  }
  pq->conninfo_free(options);
  PGconn* conn = pq->connectdb(url.c_str());
  if (conn == nullptr || pq->status(conn) != CONNECTION_OK) {
    std::string reason = conn ? Trimmed(pq->error_message(conn)) : "out of memory";
    pq->finish(conn);
    return absl::UnavailableError(absl::StrCat(
        "cannot connect to the history database ", where, " (PostgreSQL): ", reason,
        "; is the server running, and are the host, port, user and database name right?"));
  }
  return std::unique_ptr<SqlConnection>(std::make_unique<PostgresConnection>(*pq, conn, where));
}

}  // namespace flashscope::history
