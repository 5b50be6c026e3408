// Small POSIX file helpers for reports and journals: whole-file reads with clear messages, full
// writes that retry short writes, fsync, and the atomic replace (tmp + fsync + rename) that keeps
// a reader from ever seeing half a report.
#pragma once

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace flashscope::reports {

// NotFound when the file does not exist; other failures name the path and the errno text.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path);

// Writes all of `data` to `fd` (looping over short writes and EINTR). `path` is for messages.
absl::Status WriteAllToFd(int fd, absl::string_view data, const std::string& path);

// fsync(fd) with a message naming `path` on failure.
absl::Status FsyncFd(int fd, const std::string& path);

// Writes `contents` to `path` atomically: `path`.tmp.PID is written and fsync'd, then renamed
// over `path`, then the directory is fsync'd so the rename itself survives a power loss. On any
// failure the temporary file is removed and `path` is untouched.
absl::Status WriteFileAtomic(const std::string& path, absl::string_view contents);

// The directory part of `path` ("." when it has none).
std::string DirectoryOf(const std::string& path);

}  // namespace flashscope::reports
