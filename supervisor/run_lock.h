// One run per journal (issue 23): two `flashscope run … --out X` at once would append to one
// journal and rename reports over each other. A run holds JOURNAL.lock, flock'ed for its whole
// life and holding who it is (pid, host, start time, command line), so that a second run on the
// same journal is refused naming the first. flock dies with its process: a lock file left by a run
// that was killed is free, and is taken over with a note naming the dead run.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace flashscope::suites {

class RunLock {
 public:
  // Takes the lock of `journal_path` for this process; `command_line` is what a refused second
  // run is told. FailedPrecondition when a live run holds it ("… is in use by the run of pid 123
  // on host h, started 2026-11-28T01:02:03Z: `flashscope run …`"). `note` receives a line when a
  // stale lock was taken over, else "".
  static absl::StatusOr<std::unique_ptr<RunLock>> Take(const std::string& journal_path,
                                                       const std::string& command_line,
                                                       std::string* note);
  ~RunLock();  // removes the lock file and releases the lock
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  const std::string& path() const { return path_; }

 private:
  RunLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
};

// The lock file of a journal: "<journal>.lock".
std::string LockPathOf(const std::string& journal_path);

}  // namespace flashscope::suites
