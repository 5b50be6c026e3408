// The journal of a run, from the supervisor's side: a fresh one beside the report (its header
// holding the plan), or the one being resumed, which must belong to the same plan. Cases planned
// as errors (their plugin crashed while loading) are recorded here, since no worker runs them.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "reports/plan.h"
#include "suites/suite.h"

namespace flashscope::suites {

struct JournalRequest {
  std::string resume_journal;  // "" = a new run
  std::string out_path;        // "" = reports/runs/<utc time>-<suite>.json
  std::string command_line;
  std::string kernels_filter;
};

struct RunJournal {
  std::string journal_path;
  std::string out_path;  // the final report
};

// A new journal, or the resumed one once its plan matched `plan`. FailedPrecondition (a refusal
// that says how to proceed) when the journal belongs to another plan, was written before plans
// existed, or holds results its plan does not.
absl::StatusOr<RunJournal> OpenRunJournal(const JournalRequest& request, const Suite& suite,
                                          const reports::PlanRecord& plan);

// "2026-11-23T04:05:06Z" style times of now, in UTC, in `format` (strftime).
std::string UtcNow(const char* format);

}  // namespace flashscope::suites
