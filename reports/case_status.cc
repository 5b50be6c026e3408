#include "reports/report.h"

namespace flashscope::reports {

const char* CaseStatusName(CaseStatus s) {
  switch (s) {
    case CaseStatus::kPassed:
      return "passed";
    case CaseStatus::kFailed:
      return "failed";
    case CaseStatus::kSkipped:
      return "skipped";
    case CaseStatus::kError:
      return "error";
    case CaseStatus::kTimeout:
      return "timeout";
  }
  return "?";
}

std::optional<CaseStatus> ParseCaseStatus(const std::string& s) {
  for (CaseStatus c : {CaseStatus::kPassed, CaseStatus::kFailed, CaseStatus::kSkipped,
                       CaseStatus::kError, CaseStatus::kTimeout}) {
    if (s == CaseStatusName(c)) return c;
  }
  return std::nullopt;
}

}  // namespace flashscope::reports
