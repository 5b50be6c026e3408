// Fuzzes the journal reader (reports::ReadJournal, on the input as a file): truncated lines, lines
// that are not JSON, wrong types, unknown events. A journal that reads must turn into a report
// that writes and reads back, as `flashscope show run.jsonl` and --resume do.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_util.h"
#include "reports/journal.h"
#include "reports/report_json.h"

namespace fs = flashscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fs::fuzz::WriteInputFile(data, size, ".journal.jsonl");
  auto journal = fs::reports::ReadJournal(path);
  fs::fuzz::CheckErrorIsExplained(journal.status(), "ReadJournal");
  if (!journal.ok()) return 0;
  fs::reports::Report report = fs::reports::ReportFromJournal(*journal);
  auto back = fs::reports::ReportFromJson(nlohmann::json::parse(fs::reports::ReportToText(report)));
  if (!back.ok()) fs::fuzz::Broken("a journal's report writes and reads back", back.status());
  return 0;
}
