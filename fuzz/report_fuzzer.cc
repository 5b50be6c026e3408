// Fuzzes the report reader: reports::ReadReportFile on the input as a file (missing, empty, not
// JSON, not a report, bad fields), and for JSON input reports::ReportFromJson directly. A report
// that reads must write and read back (what we accept, we can also save).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_util.h"
#include "reports/json_text.h"
#include "reports/report_json.h"

namespace fs = flashscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fs::fuzz::WriteInputFile(data, size, ".json");
  auto from_file = fs::reports::ReadReportFile(path);
  fs::fuzz::CheckErrorIsExplained(from_file.status(), "ReadReportFile");

  // What nests too deep is refused before parsing (reports/json_text.h); the direct path below
  // goes through the same gate as every reader does.
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (fs::reports::jsonio::TooDeepAt(text) != std::string_view::npos) {
    if (from_file.ok()) fs::fuzz::Broken("JSON nested too deep is refused", absl::OkStatus());
    return 0;
  }
  auto j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  auto report = fs::reports::ReportFromJson(j);
  fs::fuzz::CheckErrorIsExplained(report.status(), "ReportFromJson");
  if (!report.ok()) return 0;
  auto again =
      fs::reports::ReportFromJson(nlohmann::json::parse(fs::reports::ReportToText(*report)));
  if (!again.ok())
    fs::fuzz::Broken("a report that reads, written back, reads again", again.status());
  if (again->cases.size() != report->cases.size()) {
    fs::fuzz::Broken("the round trip keeps every case", absl::OkStatus());
  }
  return 0;
}
