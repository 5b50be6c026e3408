// The worker process: runs the cases of a plan that its journal does not hold yet, appending each
// result to the journal and telling the supervisor over a pipe when a case starts and ends.
// It exits as soon as the CUDA context is lost, so one faulting kernel costs one case.
#pragma once

#include <set>
#include <string>

namespace flashscope::suites {

struct WorkerArgs {
  std::string suite_path;
  std::string kernels_filter;
  std::string journal_path;
  std::string metrics;
  std::string dump_dir;
  std::string shard;     // --shard K/N as given to the supervisor (suites/shard.h)
  int progress_fd = -1;  // lines: "S <index>", "F <index> <status>", "FATAL <message>"
  // Run only these case indices (empty = all); the --sanitize pass reruns one case at a time.
  std::set<int> only_cases;
  // A rerun under compute-sanitizer (suites/sanitize.h): one timed sample, no warm-up, no L2
  // flush, no metrics, heatmaps or dumps, since the tool slows every launch 10-100x and only the
  // kernel's memory accesses matter.
  bool sanitize_rerun = false;
};

inline constexpr int kWorkerExitContextLost = 3;
inline constexpr int kWorkerExitFatal = 4;  // no usable GPU or bad arguments: do not restart

int RunWorker(const WorkerArgs& args);

}  // namespace flashscope::suites
