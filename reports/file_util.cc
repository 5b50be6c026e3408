#include "reports/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

}  // namespace

std::string DirectoryOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
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
  std::string data;
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return absl::DataLossError(absl::StrCat(path, ": read failed: ", ErrnoText(err)));
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
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

absl::Status WriteFileAtomic(const std::string& path, absl::string_view contents) {
  const std::string tmp = absl::StrCat(path, ".tmp.", ::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    int err = errno;
    return absl::FailedPreconditionError(absl::StrCat("cannot write ", path, ": creating ", tmp,
                                                      " failed: ", ErrnoText(err),
                                                      CreateHint(tmp, err)));
  }
  absl::Status s = WriteAllToFd(fd, contents, tmp);
  if (s.ok()) s = FsyncFd(fd, tmp);
  if (::close(fd) != 0 && s.ok()) {
    s = absl::DataLossError(absl::StrCat(tmp, ": close failed: ", ErrnoText(errno)));
  }
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) {
    s = absl::FailedPreconditionError(
        absl::StrCat("cannot write ", path, ": rename from ", tmp, " failed: ", ErrnoText(errno)));
  }
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  // Make the rename durable; a failure here does not undo a complete, renamed file.
  int dfd = ::open(DirectoryOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return absl::OkStatus();
}

}  // namespace flashscope::reports
