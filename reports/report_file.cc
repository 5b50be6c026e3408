// Report files on disk: reading (a report, or a journal by its .jsonl name) with a message per
// kind of failure, and the atomic write. The JSON mapping itself is in report_json.cc.
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "reports/file_util.h"
#include "reports/input_file.h"
#include "reports/journal.h"
#include "reports/json_fields.h"
#include "reports/json_strict.h"
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
  absl::StatusOr<std::string> text = ReadInputFile(path);
  if (!text.ok()) return text.status();
  if (text->find_first_not_of(" \t\r\n") == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(path,
                     ": file is empty, not a report (if its run was interrupted, read its .jsonl "
                     "journal instead)"));
  }
  absl::StatusOr<Json> j = jsonio::ParseStrict(*text, path, "a flashscope report");
  text->clear();
  text->shrink_to_fit();  // the parsed tree is what is kept; the text can go
  if (!j.ok()) return j.status();
  absl::StatusOr<Report> report = ReportFromJson(*j);
  if (!report.ok()) {
    return absl::Status(report.status().code(),
                        absl::StrCat(path, ": ", report.status().message()));
  }
  return report;
}

std::string ReportToText(const Report& report) { return jsonio::DumpReadable(ToJson(report)); }

absl::Status WriteOutputFile(const std::string& path, const std::string& text,
                             const WriteOptions& options) {
  // "--out X.json.xz" (.gz, .zst) writes compressed; readers recognise it by content.
  const Compression compression = CompressionForPath(path);
  if (compression == Compression::kNone) return WriteFileAtomic(path, text, options);
  absl::StatusOr<std::string> packed = CompressData(text, compression, path);
  if (!packed.ok()) return packed.status();
  return WriteFileAtomic(path, *packed, options);
}

absl::Status WriteReportFileAtomic(const Report& report, const std::string& path,
                                   const WriteOptions& options) {
  return WriteOutputFile(path, ReportToText(report), options);
}

}  // namespace flashscope::reports
