#include "suites/plan.h"

#include <fnmatch.h>

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "suites/closest_names.h"

namespace flashscope::suites {

bool GlobMatch(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

namespace {

std::vector<std::string> AllIds() {
  std::vector<std::string> ids;
  for (const auto& e : kernels::AllKernels(/*include_test_only=*/true)) ids.push_back(e.info.id);
  return ids;
}

absl::StatusOr<std::vector<const kernels::KernelEntry*>> Match(
    const std::vector<std::string>& patterns, const std::string& where) {
  std::vector<const kernels::KernelEntry*> out;
  for (const auto& pattern : patterns) {
    const bool test_only_ok = pattern.rfind("test.", 0) == 0;
    bool matched = false;
    for (const auto& e : kernels::AllKernels(/*include_test_only=*/true)) {
      if (e.info.test_only && !test_only_ok) continue;
      if (!GlobMatch(pattern, e.info.id)) continue;
      matched = true;
      if (std::find(out.begin(), out.end(), &e) == out.end()) out.push_back(&e);
    }
    if (!matched) {
      return absl::NotFoundError(
          absl::StrCat(where, ": no kernel matches '", pattern,
                       "' (closest: ", absl::StrJoin(ClosestNames(pattern, AllIds(), 3), ", "),
                       "; `flashscope list` shows them all)"));
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<PlannedCase>> BuildPlan(const Suite& suite,
                                                   const std::string& kernels_filter) {
  auto selected = Match(suite.kernel_patterns, suite.path + ": suite.kernels");
  if (!selected.ok()) return selected.status();
  if (!kernels_filter.empty()) {
    std::vector<std::string> patterns = absl::StrSplit(kernels_filter, ',', absl::SkipEmpty());
    auto narrowed = Match(patterns, "--kernels");
    if (!narrowed.ok()) return narrowed.status();
    std::vector<const kernels::KernelEntry*> both;
    for (const auto* e : *selected) {
      if (std::find(narrowed->begin(), narrowed->end(), e) != narrowed->end()) both.push_back(e);
    }
    if (both.empty()) {
      return absl::NotFoundError(absl::StrCat(
          "--kernels ", kernels_filter, " selects none of the kernels of suite ", suite.name));
    }
    *selected = std::move(both);
  }
  // Keep the registry's order (ladder order) whatever order the patterns came in.
  std::vector<const kernels::KernelEntry*> ordered;
  for (const auto& e : kernels::AllKernels(/*include_test_only=*/true)) {
    if (std::find(selected->begin(), selected->end(), &e) != selected->end()) {
      ordered.push_back(&e);
    }
  }
  std::vector<PlannedCase> plan;
  for (const auto& problem : suite.problems) {
    for (const auto* kernel : ordered) {
      if (kernel->info.family != FamilyOf(problem)) continue;
      PlannedCase c;
      c.index = static_cast<int>(plan.size());
      c.kernel = kernel;
      c.problem = problem;
      c.key = kernel->info.id + " " + ProblemKey(problem);
      plan.push_back(std::move(c));
    }
  }
  if (plan.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        suite.path, ": the suite's kernels and problems have no family in common: no cases"));
  }
  return plan;
}

}  // namespace flashscope::suites
