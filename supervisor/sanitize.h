// `flashscope run --sanitize[=TOOL]`: after the normal run, each case that ran is run again, alone,
// in a worker started under `compute-sanitizer --tool TOOL`, and the tool's findings (error count,
// kinds, the first messages with kernel names) are recorded in that case's `sanitizer` record.
// One process per case: compute-sanitizer reports per process, so this attributes every finding
// to exactly one case, and a fault under the tool costs only that rerun.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "reports/journal.h"
#include "reports/plan.h"

namespace flashscope::suites {

struct SanitizeArgs {
  std::string tool;            // memcheck | racecheck | initcheck | synccheck
  std::string sanitizer_path;  // FindComputeSanitizer()
  std::string worker_exe;      // flashscope-worker
  std::string journal_path;    // the run's journal: findings are appended as later case lines
  double case_limit_s = 300;   // the normal case limit; a rerun gets SanitizeLimitS() of it
  bool quiet = false;
  // Set in each rerun's environment (CUDA_VISIBLE_DEVICES: the run's first GPU with --devices).
  std::vector<std::pair<std::string, std::string>> environment;
  // The run's journal as the supervisor last read it (after the workers); null: read here.
  const reports::JournalContents* journal = nullptr;
};

// The command line of one case's rerun: compute-sanitizer with the tool, then flashscope-worker
// running only the case `key` of the plan in `journal` (a scratch journal holding the run's
// header, plan included).
std::vector<std::string> SanitizeRerunArgv(const SanitizeArgs& args, const std::string& journal,
                                           const std::string& log, const std::string& key);

// The tools slow kernels 10-100x and add their own start-up: each rerun may take 3x the case
// limit, and at least two minutes.
double SanitizeLimitS(double case_limit_s);

// Reruns the journal's finished cases (passed, failed, error) under the tool, one worker each,
// and appends each case's result with its `sanitizer` record to the journal. Cases that timed out
// get a record saying they were not rerun (they would only hang again, slower); skipped cases get
// none; a case already holding a record of this tool (a resumed run) is not run again.
// Fails only when the journal cannot be read or written; a rerun that fails is recorded.
absl::Status RunSanitizePass(const SanitizeArgs& args, const reports::PlanRecord& plan);

}  // namespace flashscope::suites
