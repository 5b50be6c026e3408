// The worker process: runs the cases of a plan that its journal does not hold yet, appending each
// result to the journal and telling the supervisor over a pipe when a case starts and ends.
// It exits as soon as the CUDA context is lost, so one faulting kernel costs one case.
#pragma once

#include <string>

namespace flashscope::suites {

struct WorkerArgs {
  std::string suite_path;
  std::string kernels_filter;
  std::string journal_path;
  std::string metrics;
  std::string dump_dir;
  int progress_fd = -1;  // lines: "S <index>", "F <index> <status>", "FATAL <message>"
};

inline constexpr int kWorkerExitContextLost = 3;
inline constexpr int kWorkerExitFatal = 4;  // no usable GPU or bad arguments: do not restart

int RunWorker(const WorkerArgs& args);

}  // namespace flashscope::suites
