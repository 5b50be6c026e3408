#include "supervisor/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "reports/file_util.h"
#include "supervisor/run_journal.h"

namespace flashscope::suites {
namespace {

std::string HostName() {
  char host[256] = {};
  return ::gethostname(host, sizeof host - 1) == 0 ? host : "";
}

// The lock file's lines "pid 123", "host h", "started T", "command …" as a map.
std::map<std::string, std::string> ReadHolder(int fd) {
  std::string text;
  char buf[4096];
  ssize_t n;
  while (text.size() < 64 * 1024 && (n = ::pread(fd, buf, sizeof buf, text.size())) > 0) {
    text.append(buf, static_cast<size_t>(n));
  }
  std::map<std::string, std::string> fields;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::pair<std::string, std::string> kv = absl::StrSplit(line, absl::MaxSplits(' ', 1));
    if (!kv.first.empty()) fields[kv.first] = kv.second;
  }
  return fields;
}

std::string Describe(const std::map<std::string, std::string>& holder) {
  auto get = [&](const char* key) {
    auto it = holder.find(key);
    return it == holder.end() || it->second.empty() ? std::string("?") : it->second;
  };
  return absl::StrCat("pid ", get("pid"), " on host ", get("host"), ", started ", get("started"),
                      ": `", get("command"), "`");
}

// Without flock (some network file systems): the holder is alive when it is a process of this
// host that still exists; a holder on another host cannot be checked and counts as alive.
bool HolderAlive(const std::map<std::string, std::string>& holder) {
  auto pid = holder.find("pid");
  auto host = holder.find("host");
  int value = 0;
  if (pid == holder.end() || !absl::SimpleAtoi(pid->second, &value) || value <= 0) return false;
  if (host == holder.end() || host->second != HostName()) return true;
  return ::kill(value, 0) == 0 || errno == EPERM;
}

absl::Status InUse(const std::string& journal, const std::string& lock,
                   const std::map<std::string, std::string>& holder) {
  return absl::FailedPreconditionError(absl::StrCat(
      journal, " is in use by another flashscope run: ", Describe(holder),
      ". Two runs on one journal would mix their results: wait for that run to finish, or give "
      "this one another --out (the lock is ",
      lock, "; it goes when that process ends)"));
}

bool SameFile(int fd, const std::string& path) {
  struct stat a, b;
  return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

}  // namespace

std::string LockPathOf(const std::string& journal_path) { return journal_path + ".lock"; }

absl::StatusOr<std::unique_ptr<RunLock>> RunLock::Take(const std::string& journal_path,
                                                       const std::string& command_line,
                                                       std::string* note) {
  note->clear();
  const std::string path = LockPathOf(journal_path);
  // A holder that ends removes the file after we opened it: then we hold a lock on a file no
  // longer there, and try again with the new one.
  for (int attempt = 0; attempt < 10; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot create the run's lock file ", path, ": ", std::strerror(errno)));
    }
    const bool locked = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    const int err = errno;
    const std::map<std::string, std::string> holder = ReadHolder(fd);
    if (!locked && (err == EWOULDBLOCK || HolderAlive(holder))) {
      ::close(fd);
      return InUse(journal_path, path, holder);
    }
    if (locked && !SameFile(fd, path)) {
      ::close(fd);
      continue;
    }
    if (!holder.empty()) {
      *note = absl::StrCat("took over the lock ", path, " of an earlier run that is no longer ",
                           "running (", Describe(holder), ")");
    }
    const std::string me =
        absl::StrCat("pid ", ::getpid(), "\nhost ", HostName(), "\nstarted ",
                     UtcNow("%Y-%m-%dT%H:%M:%SZ"), "\ncommand ", command_line, "\n");
    if (::ftruncate(fd, 0) != 0) {
      ::close(fd);
      return absl::FailedPreconditionError(
          absl::StrCat("cannot write the run's lock file ", path, ": ", std::strerror(errno)));
    }
    if (absl::Status s = reports::WriteAllToFd(fd, me, path); !s.ok()) {
      ::close(fd);
      return s;
    }
    return std::unique_ptr<RunLock>(new RunLock(fd, path));
  }
  return absl::FailedPreconditionError(
      absl::StrCat("cannot take the run's lock file ", path, ": it keeps being replaced"));
}

RunLock::~RunLock() {
  // Removed while still held: a run waiting on this file finds it gone and makes its own.
  ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace flashscope::suites
