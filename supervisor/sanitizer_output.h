// compute-sanitizer: finding the tool and reading what it printed. No CUDA here, so that the
// parser is tested on any machine against real output formats (suites/tests/).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "reports/report.h"

namespace flashscope::suites {

// The tools `flashscope run --sanitize=TOOL` accepts (compute-sanitizer's --tool values).
const std::vector<std::string>& SanitizerTools();
// "memcheck" etc. pass; anything else is InvalidArgument naming the valid tools.
absl::Status CheckSanitizerTool(const std::string& tool);

// compute-sanitizer on PATH, else in /usr/local/cuda/bin (or $CUDA_HOME/bin). NotFound says where
// it looked and how to fix it.
absl::StatusOr<std::string> FindComputeSanitizer();

// How many findings keep their full message in the report (the counts cover all of them).
inline constexpr int kMaxSanitizerFindings = 5;

// Reads compute-sanitizer's log (the lines prefixed "========= "). Fills errors (from "ERROR
// SUMMARY: N errors", or racecheck's "(N errors, M warnings)"), kinds and the first findings with
// their kernel names. ran is true only when a summary line was found; otherwise note says that the
// log has no summary (the tool did not finish).
reports::SanitizerRecord ParseSanitizerOutput(const std::string& tool, const std::string& log);

// "Invalid __global__ write of size 4 bytes" -> "Invalid __global__ write"; "Program hit
// cudaErrorLaunchFailure (error 719) due to ..." -> "Program hit cudaErrorLaunchFailure (error
// 719)"; racecheck's "Error: Race reported between Write access at ... and ..." -> "Error: Race
// reported between Write access".
std::string SanitizerErrorKind(const std::string& headline);

// The kernel named by a location line: "at 0x70 in file.cu:12:kern(int *)" (older
// compute-sanitizer), "at kern(int *)+0x70 in file.cu:12" (newer) or "at 0x70 in kern(int *)".
// "" when the line names none.
std::string SanitizerKernelName(const std::string& location_line);

}  // namespace flashscope::suites
