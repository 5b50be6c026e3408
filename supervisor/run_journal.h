// The journal of a run, from the supervisor's side: a fresh one beside the report (its header
// holding the plan), or the one being resumed, which must belong to the same plan. Cases planned
// as errors (their plugin crashed while loading) are recorded here, since no worker runs them.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "reports/journal.h"
#include "reports/plan.h"
#include "reports/report.h"
#include "suites/suite.h"

namespace flashscope::suites {

struct JournalRequest {
  std::string resume_journal;  // "" = a new run
  std::string out_path;        // "" = results/runs/<utc time>-<suite>.json
  std::string command_line;
  std::string kernels_filter;
  // The resumed journal as the caller read it (once: the supervisor reads it before choosing its
  // GPUs); null: read here.
  const reports::JournalContents* resumed = nullptr;
};

struct RunJournal {
  std::string journal_path;
  std::string out_path;  // the final report
  // What the journal holds once opened: the resumed results (none for a new run) and the cases
  // planned as errors, recorded here; the supervisor hands out the cases it is missing.
  reports::JournalContents contents;
};

// A new journal, or the resumed one once its plan matched `plan`. FailedPrecondition (a refusal
// that says how to proceed) when the journal belongs to another plan, was written before plans
// existed, or holds results its plan does not. The journal is read at most once here, not at all
// when `request.resumed` holds it already.
absl::StatusOr<RunJournal> OpenRunJournal(const JournalRequest& request, const Suite& suite,
                                          const reports::PlanRecord& plan);

// "2026-11-23T04:05:06Z" style times of now, in UTC, in `format` (strftime).
std::string UtcNow(const char* format);

// The report of a journal (complete when every planned case is in it), stamped with this
// flashscope (finish time, git revision, version, host) and written atomically to `out_path`.
// The journal is then removed when the report is complete, or always with `remove_journal`
// (ab, which does not resume). A failed write says that the journal still holds every result.
// `contents`: the journal as the caller last read it (after its last writer ended); null: read.
absl::StatusOr<reports::Report> WriteReportFromJournal(
    const std::string& journal_path, const std::string& out_path, bool remove_journal = false,
    const reports::JournalContents* contents = nullptr);

}  // namespace flashscope::suites
