#include "history/sql_connection.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace flashscope::history {

bool IsPostgresUrl(const std::string& spec) {
  const std::string lower = absl::AsciiStrToLower(spec);
  return absl::StartsWith(lower, "postgresql://") || absl::StartsWith(lower, "postgres://");
}

absl::StatusOr<std::unique_ptr<SqlConnection>> OpenConnection(const std::string& spec) {
  if (spec.empty()) {
    return absl::InvalidArgumentError(
        "no database given: --db takes a file path (SQLite, created if missing) or a "
        "postgresql://USER@HOST/DBNAME URL");
  }
  if (IsPostgresUrl(spec)) return OpenPostgres(spec);
  if (const size_t scheme = spec.find("://"); scheme != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported database URL scheme '", spec.substr(0, scheme),
                     "': --db takes a file path (SQLite) or a postgresql:// URL (PostgreSQL)"));
  }
  return OpenSqlite(spec);
}

std::string NumberPlaceholders(const std::string& sql) {
  std::string out;
  int number = 0;
  char quote = 0;
  for (char c : sql) {
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '?') {
      absl::StrAppend(&out, "$", ++number);
      continue;
    }
    out.push_back(c);
  }
  return out;
}

Transaction::~Transaction() {
  if (open_) db_.Exec("ROLLBACK").IgnoreError();  // the error that got us here is reported
}

absl::Status Transaction::Begin() {
  absl::Status s = db_.Exec("BEGIN");
  open_ = s.ok();
  return s;
}

absl::Status Transaction::Commit() {
  absl::Status s = db_.Exec("COMMIT");
  open_ = false;
  return s;
}

}  // namespace flashscope::history
