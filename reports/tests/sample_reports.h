// Reports built in code for the reports/ tests: a fully populated one (every field set to a
// non-default value, so a field lost by the writer or the reader shows up) and small ones for
// the renderers and compare. All are marked synthetic.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "reports/report.h"

namespace flashscope::reports::testing {

Report FullReport();

// A case with timing (median `median_ms`), throughput and verification when `status` calls for
// them; a reason when skipped/error.
CaseResult SimpleCase(const std::string& kernel_id, const std::string& problem_key,
                      CaseStatus status, double median_ms);

// An environment that looks like an H200 run but says synthetic.
Environment SyntheticEnvironment();

// A heatmap of `kind`: a src_rows x src_cols source on rows x cols cells, its axes named; its
// values (max, mean) left empty for the test to set.
HeatmapRecord HeatmapOfShape(const std::string& kind, int64_t src_rows, int64_t src_cols, int rows,
                             int cols, const std::string& row_axis = "",
                             const std::string& col_axis = "");

// Field-by-field equality with gtest expectations (NaN equals NaN).
void ExpectSameReport(const Report& a, const Report& b);
void ExpectSameCase(const CaseResult& a, const CaseResult& b);

// The committed example report (reports/testdata/).
std::string TestdataPath(const std::string& name);

// The path of a committed report, `path` (absolute): `path` itself, or when only `path`.xz is
// committed (large old runs are kept xz-compressed so that the checkout stays small enough to
// travel to the GPU machine), a copy decompressed with `xz -dc` into a temporary folder, once per
// process. Empty (with a test failure) when neither can be read.
std::string CommittedReport(const std::string& path);

// A fresh empty directory under TEST_TMPDIR or /tmp, unique per call.
std::string MakeTempDir();

// The names in `dir` (without "." and ".."), to check what a write left behind.
std::set<std::string> ListDir(const std::string& dir);

}  // namespace flashscope::reports::testing
