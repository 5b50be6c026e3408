// A flashscope-worker process seen from the supervisor: starting it (found beside flashscope, or
// at $FLASHSCOPE_WORKER), reading its progress lines with a time limit, killing it, and saying in
// words how it ended.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "suites/worker_protocol.h"

namespace flashscope::suites {

// $FLASHSCOPE_WORKER when set, else flashscope-worker in the folder of this program
// (/proc/self/exe). An error says where it looked and how to point at the worker.
absl::StatusOr<std::string> FindWorker();
// This program's path (/proc/self/exe); "" when it cannot be read.
std::string ThisProgram();

class WorkerProcess {
 public:
  // Starts `worker_exe` with `request` (its progress_fd set to a pipe of ours); stdout and stderr
  // are this process's.
  static absl::StatusOr<WorkerProcess> Start(const std::string& worker_exe,
                                             protocol::WorkerRequest request);
  WorkerProcess(WorkerProcess&& other) noexcept;
  WorkerProcess& operator=(WorkerProcess&&) = delete;
  WorkerProcess(const WorkerProcess&) = delete;
  ~WorkerProcess();  // kills and reaps a worker still running

  enum class Read { kMessage, kEnded, kTimedOut };
  // The next progress message, waiting at most `limit_s`; kEnded when the worker closed the pipe
  // (it exited), kTimedOut when the limit passed first. Lines that are not messages are skipped.
  Read Next(double limit_s, protocol::Message* out);
  void Kill();
  // Waits for the worker to exit and returns its wait status (waitpid).
  int Wait();

 private:
  WorkerProcess(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
  pid_t pid_ = -1;
  int fd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string buffer_;
};

// "exited with code 4", "was killed by signal 11 (Segmentation fault)".
std::string DescribeExit(int wait_status);
// True when the process died of a signal (a crash, an abort, a kill).
bool DiedOfSignal(int wait_status);
// "signal 11 (Segmentation fault)" for a death by signal, else DescribeExit.
std::string CauseOfDeath(int wait_status);

}  // namespace flashscope::suites
