// Fuzzes the suite parser (suites::ParseSuite, docs/suites.md): any text must give a suite or a
// clear error, never a crash, a hang or an unbounded allocation.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_util.h"
#include "suites/suite.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto suite = flashscope::suites::ParseSuite(text, "fuzz.json");
  flashscope::fuzz::CheckErrorIsExplained(suite.status(), "ParseSuite");
  if (suite.ok()) {
    // Every problem of a parsed suite has a key (the plan and the reports use it).
    for (const auto& p : suite->problems) {
      if (flashscope::ProblemKey(p).empty()) {
        flashscope::fuzz::Broken("a parsed problem has a key", absl::OkStatus());
      }
    }
  }
  return 0;
}
