// Report files on disk: reading (a report, or a journal by its .jsonl name) with a message per
// kind of failure, and the atomic write. The JSON mapping itself is in report_json.cc.
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "reports/file_util.h"
#include "reports/journal.h"
#include "reports/json_fields.h"
#include "reports/json_text.h"
#include "reports/report_json.h"

namespace flashscope::reports {
namespace {

using jsonio::Json;

}  // namespace

absl::StatusOr<Report> ReadReportFile(const std::string& path) {
  if (absl::EndsWith(path, ".jsonl")) {
    absl::StatusOr<JournalContents> journal = ReadJournal(path);
    if (!journal.ok()) return journal.status();
    return ReportFromJournal(*journal);
  }
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  if (text->find_first_not_of(" \t\r\n") == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(path,
                     ": file is empty, not a report (if its run was interrupted, read its .jsonl "
                     "journal instead)"));
  }
  if (absl::Status deep = jsonio::CheckJsonDepth(*text, path); !deep.ok()) return deep;
  Json j;
  try {
    j = Json::parse(*text);
  } catch (const Json::parse_error& e) {
    // nlohmann reports a byte offset (1-based, at the offending character); people want lines.
    auto [line, col] = jsonio::LineColumn(*text, e.byte > 0 ? e.byte - 1 : 0);
    std::string what = e.what();
    size_t cut = what.find("syntax error");
    return absl::InvalidArgumentError(
        absl::StrCat(path, ":", line, ":", col,
                     ": not valid JSON: ", cut == std::string::npos ? what : what.substr(cut)));
  } catch (const Json::exception& e) {
    // Valid syntax the parser still cannot hold, e.g. a number beyond double ("1e900"); found
    // by fuzz/report_fuzzer.cc, it used to end the program in std::terminate.
    std::string what = e.what();
    size_t cut = what.find("] ");
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": not valid JSON: ", cut == std::string::npos ? what : what.substr(cut + 2)));
  }
  absl::StatusOr<Report> report = ReportFromJson(j);
  if (!report.ok()) {
    return absl::Status(report.status().code(),
                        absl::StrCat(path, ": ", report.status().message()));
  }
  return report;
}

std::string ReportToText(const Report& report) { return jsonio::DumpReadable(ToJson(report)); }

absl::Status WriteReportFileAtomic(const Report& report, const std::string& path,
                                   const WriteOptions& options) {
  return WriteFileAtomic(path, ReportToText(report), options);
}

}  // namespace flashscope::reports
