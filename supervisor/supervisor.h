// The parent of a run (`flashscope run`): resolves the plugins, has a worker plan the suite
// (supervisor/planning.h), chooses the GPUs (supervisor/device_selection.h), writes the plan into
// the journal (or checks it against the journal being resumed), runs the cases on one worker per
// GPU and replaces one that faults or hangs (supervisor/device_scheduler.h), prints progress, and
// writes the final report atomically. It never touches CUDA nor loads plugin code, so a kernel's or
// a plugin's crash cannot take it down.
#pragma once

#include <string>
#include <vector>

#include "reports/report.h"

namespace flashscope::suites {

// What `flashscope run` and `flashscope ab` both take: the suite, which of its kernels, where the
// workers run and how they report (cli/cmd_run.cc and cmd_ab.cc fill it from the same flags).
struct WorkerRunArgs {
  std::string suite_path;
  std::string kernels_filter;
  std::string metrics;
  double case_timeout_s = 0;  // 0 = the suite's own limit (ab: a pair gets twice it)
  std::string devices;  // --devices all|0,2,3 (supervisor/device_selection.h); "" = CUDA's device 0
  bool force = false;   // --force: run on GPUs of different models
  std::string worker_exe;  // flashscope-worker (protocol/worker_process.h, FindWorker)
  std::string command_line;
  bool quiet = false;    // no per-case progress lines
  bool dry_run = false;  // print the plan and stop: no GPU needed, nothing written
};

struct SuperviseArgs : WorkerRunArgs {
  std::vector<std::string> plugins;  // --plugin, in order (suites/plugin_paths.h)
  std::string out_path;              // final report; "" = results/runs/<utc time>-<suite>.json
  std::string resume_journal;        // continue the run this journal belongs to
  std::string dump_dir;
  // Stop (killing the case in flight, which stays unrecorded) once the run has taken this long;
  // the report is then partial and the journal is kept for --resume. 0 = no limit.
  double deadline_s = 0;
  // --sanitize=TOOL: after the run, rerun the cases under compute-sanitizer
  // (supervisor/sanitize.h).
  std::string sanitize_tool;
  std::string shard;  // --shard K/N: only that part of the plan (suites/shard.h); "" = all
};

struct SuperviseResult {
  int exit_code = 0;  // 0 all passed or skipped, 1 some failed/error/timeout, 2 unusable input
  std::string report_path;
  reports::Report report;
};

SuperviseResult Supervise(const SuperviseArgs& args);

}  // namespace flashscope::suites
