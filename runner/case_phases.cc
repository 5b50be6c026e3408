#include "runner/case_phases.h"

#include <variant>

#include "absl/strings/str_cat.h"

namespace flashscope::runner {

bool RunCasePhases(CasePhases& phases) {
  if (!phases.Supports() || !phases.Inputs() || !phases.Prepare() || !phases.Verify() ||
      !phases.Measure()) {
    return false;
  }
  phases.Complete();
  return true;
}

verify::TolerancePolicy ToleranceFor(const Problem& problem, const suites::VerifySpec& spec) {
  const DType dtype = std::visit([](const auto& p) { return p.dtype; }, problem);
  verify::TolerancePolicy t = verify::DefaultTolerance(FamilyOf(problem), dtype);
  if (spec.atol) t.atol = *spec.atol;
  if (spec.rtol) t.rtol = *spec.rtol;
  if (spec.baseline_factor) t.baseline_factor = *spec.baseline_factor;
  if (spec.floor) t.floor = *spec.floor;
  return t;
}

Ending InputsEnding(const absl::Status& workspace_status) {
  if (absl::IsResourceExhausted(workspace_status)) {
    return {reports::CaseStatus::kSkipped, std::string(workspace_status.message())};
  }
  return {reports::CaseStatus::kError,
          absl::StrCat("inputs/reference: ", workspace_status.message())};
}

}  // namespace flashscope::runner
