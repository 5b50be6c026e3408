// A plan: the suite's kernels × problems, in the order the runner takes them (problem-major, so
// that one problem's inputs and reference serve every kernel before the next problem).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/problem.h"
#include "kernels/registry.h"
#include "suites/suite.h"

namespace flashscope::suites {

struct PlannedCase {
  int index = 0;
  const kernels::KernelEntry* kernel = nullptr;
  Problem problem;
  std::string key;  // kernel id + " " + problem key
};

// `kernels_filter` (--kernels, a comma list of ids or globs) narrows the suite's own list.
// Test-only kernels take part only when a pattern starts with "test.". A pattern that matches
// no kernel is an error that names the closest ids.
absl::StatusOr<std::vector<PlannedCase>> BuildPlan(const Suite& suite,
                                                   const std::string& kernels_filter);

bool GlobMatch(const std::string& pattern, const std::string& text);

}  // namespace flashscope::suites
