// Small POSIX file helpers for reports and journals: whole-file reads with clear messages, full
// writes that retry short writes, fsync, and the atomic replace (tmp + fsync + rename) that keeps
// a reader from ever seeing half a report.
#pragma once

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "reports/output_target.h"

namespace flashscope::reports {

// An advisory flock() of an open file for the life of this object: exclusive for a writer,
// shared for a reader, so that processes appending to one file (a run's journal) never
// interleave their lines and a reader never sees a line half written. On a file system that
// offers no such lock (ENOLCK, EOPNOTSUPP) the file is used unlocked, as before locks: every
// writer still appends whole lines with one write() to an O_APPEND file, which local file
// systems keep apart. `held()` says which.
class ScopedFileLock {
 public:
  ScopedFileLock(int fd, bool exclusive);
  ~ScopedFileLock();
  ScopedFileLock(const ScopedFileLock&) = delete;
  ScopedFileLock& operator=(const ScopedFileLock&) = delete;
  bool held() const { return held_; }

 private:
  int fd_;
  bool held_ = false;
};

enum class ReadLock { kNone, kShared };

// NotFound when the file does not exist; other failures name the path and the errno text. With
// kShared the file is read under a shared ScopedFileLock (a journal that others append to).
absl::StatusOr<std::string> ReadWholeFile(const std::string& path, ReadLock lock = ReadLock::kNone);

// Writes all of `data` to `fd` (looping over short writes and EINTR). `path` is for messages.
absl::Status WriteAllToFd(int fd, absl::string_view data, const std::string& path);

// fsync(fd) with a message naming `path` on failure.
absl::Status FsyncFd(int fd, const std::string& path);

// Writes `contents` to `path` atomically: a temporary file in the same folder is written and
// fsync'd, then renamed over `path`, then the folder is fsync'd so the rename itself survives a
// power loss. The temporary file is unnamed (O_TMPFILE) while it is written, so that even a
// process killed in the middle leaves nothing behind; on file systems without O_TMPFILE it is a
// mkstemp file ".NAME.tmp.XXXXXX", removed on every failure (a kill -9 can leave that one). What
// may be replaced, and how (mode and owner kept; read-only files, hard links, symlinks, FIFOs and
// devices only with `options.force`), is ResolveOutputTarget's (reports/output_target.h). On any
// failure `path` keeps its old content, and the message names it.
absl::Status WriteFileAtomic(const std::string& path, absl::string_view contents,
                             const WriteOptions& options = {});
// The same with the temporary file named from the start, as on file systems without O_TMPFILE
// (exposed so that the tests cover that path as well).
absl::Status WriteFileAtomicNamedTemp(const std::string& path, absl::string_view contents,
                                      const WriteOptions& options = {});

// The directory part of `path` ("." when it has none).
std::string DirectoryOf(const std::string& path);

}  // namespace flashscope::reports
