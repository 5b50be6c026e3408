// `flashscope ab SUITE --base OLD.so --new NEW.so` from the supervisor's side (docs/gating.md,
// "flashscope ab"): resolve the two sides, have a worker plan both (supervisor/planning.h), open
// one journal per side in the output folder, run worker sessions (supervisor/ab_session.h) until
// every case of both sides is recorded, and write one report per side. Like `run`, it never touches
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
#include "supervisor/supervisor.h"

namespace flashscope::suites {

// `git bisect run` skips a commit whose test exits 125: a side that cannot be tested.
inline constexpr int kExitCannotTest = 125;

struct AbArgs : WorkerRunArgs {
  std::string base_plugin, new_plugin;  // as given (paths or bare names, suites/plugin_paths.h)
  std::string out_dir;                  // "" = reports/ab/<utc time>-<suite>
  reports::AbOptions options;
  uint64_t seed = 0;  // the coins' seed (per case: profiler::CaseSeed)
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
