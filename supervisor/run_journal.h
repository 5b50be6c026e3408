// The journal of a run, from the supervisor's side: a fresh one beside the report (its header
// holding the plan), or the one being resumed, which must belong to the same plan. Cases planned
// as errors (their plugin crashed while loading) are recorded here, since no worker runs them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "reports/journal.h"
#include "reports/output_target.h"
#include "reports/plan.h"
#include "reports/report.h"
#include "suites/suite.h"
#include "supervisor/run_lock.h"

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

// The folders a new run made for its --out (the missing ones, outermost first), removed again
// while still empty when the run ends before its journal was written (no GPU, a planning error):
// a run refused before it starts leaves nothing behind.
class MadeFolders {
 public:
  MadeFolders(std::string journal_path, std::vector<std::string> folders)
      : journal_path_(std::move(journal_path)), folders_(std::move(folders)) {}
  ~MadeFolders();
  MadeFolders(const MadeFolders&) = delete;
  MadeFolders& operator=(const MadeFolders&) = delete;

 private:
  std::string journal_path_;
  std::vector<std::string> folders_;
};

struct RunJournal {
  std::string journal_path;
  // Declared before `lock`, so that the lock file is gone before its folder is removed.
  std::unique_ptr<MadeFolders> made_folders;
  std::string out_path;           // the final report
  std::unique_ptr<RunLock> lock;  // held until the run ends (supervisor/run_lock.h)
  std::string lock_note;          // said when a stale lock of a dead run was taken over
  // What the journal holds once started: the resumed results (none for a new run) and the cases
  // planned as errors, recorded here; the supervisor hands out the cases it is missing.
  reports::JournalContents contents;
};

// The journal a run will write or resume, claimed before anything runs: its lock taken (a live
// run on the same journal is refused, naming it), and, for a new run, refused when a journal is
// already there: a run never truncates one (issue 23). The refusal names the exact command that
// resumes it, and the other ways (another --out, `flashscope show`); nothing is touched.
absl::StatusOr<RunJournal> ClaimRunJournal(const JournalRequest& request, const Suite& suite);

// The claimed journal made ready: a new one created with its header (the plan), or the resumed
// one (read at most once here, not at all when `request.resumed` holds it already) checked
// against `plan`: FailedPrecondition (a refusal that says how to proceed) when it belongs to
// another plan, was written before plans existed, or holds results its plan does not. Then the
// planned errors and a session line; `journal->contents` holds what the journal holds.
absl::Status StartRunJournal(const JournalRequest& request, const Suite& suite,
                             const reports::PlanRecord& plan, RunJournal* journal);

// ClaimRunJournal, then StartRunJournal.
absl::StatusOr<RunJournal> OpenRunJournal(const JournalRequest& request, const Suite& suite,
                                          const reports::PlanRecord& plan);

// What `--resume JOURNAL` checks before it runs anything, also with --dry_run: the journal reads,
// and it is this plan's. FailedPrecondition (a refusal that says how to proceed) when it belongs
// to another plan, was written before plans existed, or holds results its plan does not; the
// reader's error when it cannot be read.
absl::Status CheckResumable(const std::string& journal_path, const reports::PlanRecord& plan);
// The part of CheckResumable that needs no plan, done before planning (which needs a worker, and
// a GPU's kernels): the journal reads, and it is a journal of this suite (by name).
absl::Status CheckResumableSuite(const std::string& journal_path, const Suite& suite);

// "2026-11-23T04:05:06Z" style times of now, in UTC, in `format` (strftime).
std::string UtcNow(const char* format);

// The report of a journal (complete when every planned case is in it), stamped with this
// flashscope (finish time, git revision, version, host) and written atomically to `out_path`.
// The journal is then removed when the report is complete, or always with `remove_journal`
// (ab, which does not resume). A failed write says that the journal still holds every result.
// `contents`: the journal as the caller last read it (after its last writer ended); null: read.
// What may be replaced at `out_path` follows `options` (--force; reports/output_target.h).
absl::StatusOr<reports::Report> WriteReportFromJournal(
    const std::string& journal_path, const std::string& out_path, bool remove_journal = false,
    const reports::JournalContents* contents = nullptr, const reports::WriteOptions& options = {});

}  // namespace flashscope::suites
