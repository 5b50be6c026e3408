// The parent of a run: plans the suite, keeps the journal, starts worker processes and replaces
// one that faults or hangs, prints progress, and writes the final report atomically. It never
// touches CUDA itself, so a kernel's fault cannot take it down.
#pragma once

#include <string>

#include "reports/report.h"

namespace flashscope::suites {

struct SuperviseArgs {
  std::string suite_path;
  std::string kernels_filter;
  std::string out_path;        // final report; "" = reports/runs/<utc time>-<suite>.json
  std::string resume_journal;  // continue the run this journal belongs to
  std::string metrics;
  std::string dump_dir;
  double case_timeout_s = 0;  // 0 = the suite's own limit
  // Stop (killing the case in flight, which stays unrecorded) once the run has taken this long;
  // the report is then partial and the journal is kept for --resume. 0 = no limit.
  double deadline_s = 0;
  // --sanitize=TOOL: after the run, rerun the cases under compute-sanitizer (suites/sanitize.h).
  std::string sanitize_tool;
  std::string shard;       // --shard K/N: only that part of the plan (suites/shard.h); "" = all
  std::string worker_exe;  // this program's path (re-executed as `__worker`)
  std::string command_line;
  bool quiet = false;  // no per-case progress lines
};

struct SuperviseResult {
  int exit_code = 0;  // 0 all passed or skipped, 1 some failed/error/timeout, 2 unusable input
  std::string report_path;
  reports::Report report;
};

SuperviseResult Supervise(const SuperviseArgs& args);

}  // namespace flashscope::suites
