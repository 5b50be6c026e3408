#include "reports/file_util.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <random>

#include "absl/strings/str_cat.h"
#include "reports/file_kind.h"

namespace flashscope::reports {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

// When a file cannot be created, the usual cause is a missing directory: say which.
std::string CreateHint(const std::string& path, int err) {
  if (err != ENOENT) return "";
  std::string dir = DirectoryOf(path);
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    return absl::StrCat(" (directory \"", dir, "\" does not exist; create it first)");
  }
  return "";
}

}  // namespace

std::string DirectoryOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

ScopedFileLock::ScopedFileLock(int fd, bool exclusive) : fd_(fd) {
  int rc;
  do {
    rc = ::flock(fd_, exclusive ? LOCK_EX : LOCK_SH);
  } while (rc != 0 && errno == EINTR);
  held_ = rc == 0;
}

ScopedFileLock::~ScopedFileLock() {
  if (held_) ::flock(fd_, LOCK_UN);
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path, ReadLock lock) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot open for reading: ", ErrnoText(err)));
  }
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory, not a file"));
  }
  std::optional<ScopedFileLock> locked;
  if (lock == ReadLock::kShared) locked.emplace(fd, /*exclusive=*/false);
  std::string data;
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      locked.reset();
      ::close(fd);
      return absl::DataLossError(absl::StrCat(path, ": read failed: ", ErrnoText(err)));
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  locked.reset();
  ::close(fd);
  return data;
}

absl::Status WriteAllToFd(int fd, absl::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::DataLossError(absl::StrCat(path, ": write failed: ", ErrnoText(errno)));
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

absl::Status FsyncFd(int fd, const std::string& path) {
  if (::fsync(fd) != 0) {
    return absl::DataLossError(absl::StrCat(path, ": fsync failed: ", ErrnoText(errno)));
  }
  return absl::OkStatus();
}

// An atomic write replaces the target by renaming a new file over it: right for a regular file,
// wrong for anything else (the rename would replace a symlink, a FIFO or /dev/full itself).
absl::Status CheckOutputTarget(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return absl::OkStatus();  // a new file
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write ", path, ": ", ErrnoText(errno)));
  }
  if (S_ISREG(st.st_mode)) return absl::OkStatus();
  std::string hint;
  if (S_ISLNK(st.st_mode)) {
    char target[4096];
    ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
    if (n > 0) {
      hint = absl::StrCat(" (it points to \"", std::string(target, static_cast<size_t>(n)),
                          "\": give that path instead)");
    }
  }
  return absl::FailedPreconditionError(absl::StrCat(
      path, ": is ", FileKindName(st.st_mode), ", not a regular file", hint,
      ". flashscope writes its files whole and renames them into place, which would replace it; "
      "to write into a pipe or a device, write to standard output and redirect that"));
}

namespace {

// A name in `dir` for the moment between linking the finished file and renaming it over the
// target: ".BASE.tmp.<pid>.<random>" (linkat refuses one that exists; the caller tries again).
std::string FreshName(const std::string& dir, const std::string& base) {
  static std::random_device random;
  return absl::StrCat(dir, "/.", base, ".tmp.", ::getpid(), ".", absl::Hex(random()));
}

// The temporary file: unnamed (O_TMPFILE) where the file system allows it, so that a process
// killed while writing leaves nothing; else a mkstemp file beside the target, removed on failure.
struct TempFile {
  int fd = -1;
  std::string name;  // empty while unnamed

  absl::Status Open(const std::string& dir, const std::string& base, const std::string& target,
                    bool unnamed) {
    if (unnamed) fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (fd >= 0) return absl::OkStatus();
    std::string tmpl = absl::StrCat(dir, "/.", base, ".tmp.XXXXXX");
    fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
    if (fd < 0) {
      int err = errno;
      return absl::FailedPreconditionError(
          absl::StrCat("cannot write ", target, ": creating a temporary file in ", dir,
                       " failed: ", ErrnoText(err), CreateHint(target, err)));
    }
    name = tmpl;
    ::fchmod(fd, 0644);  // mkstemp makes 0600; a report is for others to read
    return absl::OkStatus();
  }

  // Gives the unnamed file a name in `dir` (the rename needs one).
  absl::Status Name(const std::string& dir, const std::string& base) {
    if (!name.empty()) return absl::OkStatus();
    const std::string proc = absl::StrCat("/proc/self/fd/", fd);
    for (int attempt = 0; attempt < 100; ++attempt) {
      std::string candidate = FreshName(dir, base);
      if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, candidate.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        name = candidate;
        return absl::OkStatus();
      }
      if (errno != EEXIST) break;
    }
    return absl::FailedPreconditionError(
        absl::StrCat("naming the temporary file in ", dir, " failed: ", ErrnoText(errno)));
  }

  ~TempFile() {
    if (fd >= 0) ::close(fd);
    if (!name.empty()) ::unlink(name.c_str());
  }
};

absl::Status WriteAtomically(const std::string& path, absl::string_view contents, bool unnamed) {
  if (absl::Status s = CheckOutputTarget(path); !s.ok()) return s;
  const std::string dir = DirectoryOf(path);
  const std::string base = path.substr(path.find_last_of('/') + 1);
  TempFile tmp;
  if (absl::Status s = tmp.Open(dir, base, path, unnamed); !s.ok()) return s;
  absl::Status s = WriteAllToFd(tmp.fd, contents, path);
  if (s.ok()) s = FsyncFd(tmp.fd, path);
  if (s.ok()) s = tmp.Name(dir, base);
  if (s.ok() && ::close(tmp.fd) != 0) {
    s = absl::DataLossError(absl::StrCat(path, ": close failed: ", ErrnoText(errno)));
  }
  tmp.fd = -1;
  if (s.ok() && ::rename(tmp.name.c_str(), path.c_str()) != 0) {
    s = absl::FailedPreconditionError(absl::StrCat("cannot write ", path, ": rename from ",
                                                   tmp.name, " failed: ", ErrnoText(errno)));
  }
  if (!s.ok()) return s;  // ~TempFile removes the temporary file
  tmp.name.clear();
  // Make the rename durable; a failure here does not undo a complete, renamed file.
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteFileAtomic(const std::string& path, absl::string_view contents) {
  return WriteAtomically(path, contents, /*unnamed=*/true);
}

absl::Status WriteFileAtomicNamedTemp(const std::string& path, absl::string_view contents) {
  return WriteAtomically(path, contents, /*unnamed=*/false);
}

}  // namespace flashscope::reports
