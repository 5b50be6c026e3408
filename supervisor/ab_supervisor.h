// `flashscope ab SUITE --base OLD.so --new NEW.so` from the supervisor's side (docs/gating.md,
// "flashscope ab"): resolve the two sides, have a worker plan both (supervisor/planning.h), open one
// journal per side in the output folder, run worker sessions (supervisor/ab_session.h) until every
// case of both sides is recorded, and write one report per side. Like `run`, it never touches
// CUDA nor loads a plugin. The verdict is the caller's (analysis/ab_verdict.h), from the reports.
//
// A signal (SIGINT, SIGTERM, SIGHUP) stops it cleanly: the worker is killed, both reports are
// written from what was measured (complete: false), the journals are removed, and it says so;
// ab does not resume, so nothing else is left behind.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/ab_verdict.h"
#include "reports/report.h"

namespace flashscope::suites {

// `git bisect run` skips a commit whose test exits 125: a side that cannot be tested.
inline constexpr int kExitCannotTest = 125;

struct AbArgs {
  std::string suite_path;
  std::string base_plugin, new_plugin;  // as given (paths or bare names, suites/plugin_paths.h)
  std::string kernels_filter;
  std::string out_dir;  // "" = reports/ab/<utc time>-<suite>
  std::string metrics;
  reports::AbOptions options;
  uint64_t seed = 0;          // the coins' seed (per case: profiler::CaseSeed)
  double case_timeout_s = 0;  // 0 = the suite's limit; a pair gets twice it
  std::string devices;  // --devices all|0,2,3 (supervisor/device_selection.h); "" = CUDA's device 0
  bool force = false;   // --force: GPUs of different models
  std::string worker_exe;
  std::string command_line;
  bool quiet = false;
  bool dry_run = false;  // print both plans and stop: no GPU needed, nothing written
};

struct AbOutcome {
  // 0 when both reports were written (the verdict decides the exit code); 2 bad input or
  // usage; kExitCannotTest when a side's plugin cannot be loaded (`cannot_test` says why: the
  // reports may still be written); 128 + N when stopped by signal N.
  int exit_code = 0;
  std::string cannot_test;
  std::string base_path, new_path;  // the reports written ("" when none)
  reports::Report base, next;
};

AbOutcome SuperviseAb(const AbArgs& args);

}  // namespace flashscope::suites
