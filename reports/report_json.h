// The report's JSON form (docs/report-schema.md): writing, strict reading that names the JSON
// path of a bad field, and the report file on disk (atomic write; reading a report or a journal).
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "reports/output_target.h"
#include "reports/report.h"

namespace flashscope::reports {

inline constexpr char kReportSchemaName[] = "flashscope.report";

// Top level: {"schema": "flashscope.report", "schema_version": 1, "complete": ...,
// "environment": {...}, "suite": {...}, "cases": [...]}.
nlohmann::json ToJson(const Report& report);
// Strict about types (a bad field is named by its JSON path: "cases[3].timing.median_ms:
// expected number, got string"); unknown keys are ignored; a schema_version other than
// kSchemaVersion is refused with a message saying which side is newer.
absl::StatusOr<Report> ReportFromJson(const nlohmann::json& j);

nlohmann::json CaseToJson(const CaseResult& c);
absl::StatusOr<CaseResult> CaseFromJson(const nlohmann::json& j);
nlohmann::json EnvironmentToJson(const Environment& e);
absl::StatusOr<Environment> EnvironmentFromJson(const nlohmann::json& j);
nlohmann::json DeviceToJson(const DeviceRecord& d);
absl::StatusOr<DeviceRecord> DeviceFromJson(const nlohmann::json& j);
nlohmann::json SuiteToJson(const SuiteRecord& s);
absl::StatusOr<SuiteRecord> SuiteFromJson(const nlohmann::json& j);

// Reads a report file; every failure names the path: missing file, empty file, not JSON (with
// line and column), JSON that is not a flashscope report, unsupported schema version, a bad
// field. A path ending in ".jsonl" is read as a run journal (ReadJournal + ReportFromJournal,
// complete = false).
absl::StatusOr<Report> ReadReportFile(const std::string& path);

// The report as text, laid out for diffs (objects indented, number arrays on one line).
std::string ReportToText(const Report& report);

// WriteFileAtomic (reports/file_util.h) of `text`, compressed first when `path` ends in ".xz",
// ".gz" or ".zst" (xz, gzip, zstd): what every `--out` of flashscope writes through. What may be
// replaced follows `options` (--force; reports/output_target.h).
absl::Status WriteOutputFile(const std::string& path, const std::string& text,
                             const WriteOptions& options = {});

// WriteOutputFile of the report's JSON: a reader sees the old file or the complete new one, never
// half a report; compressed by the name's ending; what may be replaced follows `options`.
absl::Status WriteReportFileAtomic(const Report& report, const std::string& path,
                                   const WriteOptions& options = {});

}  // namespace flashscope::reports
