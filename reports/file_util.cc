#include "reports/file_util.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <random>

#include "absl/strings/str_cat.h"

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

// EFBIG: the process's file size limit (`ulimit -f`) stopped the write; flashscope ignores SIGXFSZ
// so that this arrives as an error instead of killing it.
std::string WriteFailureHint(int err) {
  struct rlimit rl;
  if (err != EFBIG || ::getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return "";
  return absl::StrCat(" (the file size limit, `ulimit -f`, is ", rl.rlim_cur,
                      " bytes: raise it or write elsewhere)");
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
      const int err = errno;
      return absl::DataLossError(
          absl::StrCat(path, ": write failed: ", ErrnoText(err), WriteFailureHint(err)));
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

  // Private (0600) while written; KeepModeAndOwner gives it its final mode before the rename.
  absl::Status Open(const std::string& dir, const std::string& base, const std::string& target,
                    bool unnamed) {
    if (unnamed) fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
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

// The replaced file's owner and mode (a 0600 file stays private, a 0444 one read-only), or a new
// file's 0644 less the umask. Not keeping the owner is refused unless forced.
absl::Status KeepModeAndOwner(int fd, const OutputTarget& target, const WriteOptions& options) {
  if (target.exists && (target.st.st_uid != ::geteuid() || target.st.st_gid != ::getegid())) {
    if (::fchown(fd, target.st.st_uid, target.st.st_gid) != 0 && !options.force) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot write ", target.path, ": it belongs to uid ", target.st.st_uid, " gid ",
          target.st.st_gid, " and a new file cannot keep that owner (", ErrnoText(errno),
          "): write elsewhere, or pass --force to replace it with a file you own"));
    }
  }
  const mode_t mode = target.exists ? target.st.st_mode & 07777 : NewFileMode();
  if (::fchmod(fd, mode) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot write ", target.path, ": setting its mode failed: ", ErrnoText(errno)));
  }
  return absl::OkStatus();
}

// A FIFO or a device, with --force: written into as it is (no temporary file, no rename).
absl::Status WriteDirect(const OutputTarget& target, absl::string_view contents) {
  // O_NONBLOCK: a FIFO nobody reads fails at once (ENXIO) instead of waiting forever.
  const int fd = ::open(target.path.c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write ", target.path, ": ", ErrnoText(err),
                     err == ENXIO ? " (a FIFO that no process reads)" : ""));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  absl::Status s = WriteAllToFd(fd, contents, target.path);
  if (::close(fd) != 0 && s.ok()) {
    s = absl::DataLossError(absl::StrCat(target.path, ": close failed: ", ErrnoText(errno)));
  }
  return s;
}

absl::Status WriteAtomically(const std::string& requested, absl::string_view contents, bool unnamed,
                             const WriteOptions& options) {
  auto target = ResolveOutputTarget(requested, options);
  if (!target.ok()) return target.status();
  if (target->direct) return WriteDirect(*target, contents);
  const std::string& path = target->path;
  const std::string dir = DirectoryOf(path);
  const std::string base = path.substr(path.find_last_of('/') + 1);
  TempFile tmp;
  if (absl::Status s = tmp.Open(dir, base, path, unnamed); !s.ok()) return s;
  absl::Status s = WriteAllToFd(tmp.fd, contents, path);
  if (s.ok()) s = FsyncFd(tmp.fd, path);
  if (s.ok()) s = KeepModeAndOwner(tmp.fd, *target, options);
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

absl::Status WriteFileAtomic(const std::string& path, absl::string_view contents,
                             const WriteOptions& options) {
  return WriteAtomically(path, contents, /*unnamed=*/true, options);
}

absl::Status WriteFileAtomicNamedTemp(const std::string& path, absl::string_view contents,
                                      const WriteOptions& options) {
  return WriteAtomically(path, contents, /*unnamed=*/false, options);
}

}  // namespace flashscope::reports
