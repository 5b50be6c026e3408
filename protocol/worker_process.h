// A flashscope-worker process seen from the supervisor: starting it (found beside flashscope, or
// at $FLASHSCOPE_WORKER), reading its progress lines with a time limit, killing it, and saying in
// words how it ended.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "protocol/worker_protocol.h"

namespace flashscope::suites {

// $FLASHSCOPE_WORKER when set, else flashscope-worker in the folder of this program
// (/proc/self/exe). An error says where it looked and how to point at the worker.
absl::StatusOr<std::string> FindWorker();
// This program's path (/proc/self/exe); "" when it cannot be read.
std::string ThisProgram();

// How to start a worker beyond its request.
struct WorkerStartOptions {
  // Give it a command channel (request.command_fd; Send and CloseCommands below).
  bool commands = false;
  // Variables set in its environment, over ours: CUDA_VISIBLE_DEVICES pins it to one GPU.
  std::vector<std::pair<std::string, std::string>> environment;
  // The CPUs it may run on (sched_setaffinity); empty: ours.
  std::vector<int> cpus;
};

class WorkerProcess {
 public:
  // Starts `worker_exe` with `request` (its progress_fd set to a pipe of ours, its command_fd to a
  // socket of ours when asked); stdout and stderr are this process's. The descriptors are ours
  // and its only: another worker started later inherits none of them, so that each worker's end
  // is seen as soon as it exits.
  static absl::StatusOr<WorkerProcess> Start(const std::string& worker_exe,
                                             protocol::WorkerRequest request,
                                             const WorkerStartOptions& options = {});
  WorkerProcess(WorkerProcess&& other) noexcept;
  WorkerProcess& operator=(WorkerProcess&&) = delete;
  WorkerProcess(const WorkerProcess&) = delete;
  ~WorkerProcess();  // kills and reaps a worker still running

  enum class Read { kMessage, kEnded, kTimedOut };
  // The next progress message, waiting at most `limit_s`; kEnded when the worker closed the pipe
  // (it exited), kTimedOut when the limit passed first. Lines that are not messages are skipped.
  Read Next(double limit_s, protocol::Message* out);
  // The progress pipe, for poll() over several workers; -1 once it has ended.
  int progress_fd() const { return fd_; }
  // One command line to the worker; false when it can no longer be told (it exited).
  bool Send(const std::string& line);
  // No more commands: the worker finishes the case in hand and exits.
  void CloseCommands();
  void Kill();
  // Waits for the worker to exit and returns its wait status (waitpid).
  int Wait();

 private:
  WorkerProcess(pid_t pid, int fd, int command_fd) : pid_(pid), fd_(fd), command_fd_(command_fd) {}
  pid_t pid_ = -1;
  int fd_ = -1;
  int command_fd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string buffer_;
};

// Our environment with `overrides` set (each replacing a variable of that name), as
// "NAME=VALUE" strings for execve.
std::vector<std::string> ChildEnvironment(
    const std::vector<std::pair<std::string, std::string>>& overrides);

// "exited with code 4", "was killed by signal 11 (Segmentation fault)".
std::string DescribeExit(int wait_status);
// True when the process died of a signal (a crash, an abort, a kill).
bool DiedOfSignal(int wait_status);
// "signal 11 (Segmentation fault)" for a death by signal, else DescribeExit.
std::string CauseOfDeath(int wait_status);

}  // namespace flashscope::suites
