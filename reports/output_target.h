// What `--out FILE` (and `--json FILE`) may replace, decided before anything is written
// (docs/robustness.md, "Files"). flashscope writes a new file beside the target and renames it
// into place, so that a reader never sees half a file; that replaces a name, and would silently
// replace a symlink, a FIFO or a device, split a hard link, make a read-only file writable or a
// private file world-readable. So: a new file gets 0644 less the umask; a replaced file keeps its
// mode and owner; a read-only file, a file with other hard links, a symlink, a FIFO and a device
// are refused unless --force (with it: replaced keeping mode and owner, replaced under this one
// name (the other links keep the old content), written through to where the link points, written
// into directly). A directory or a socket is refused even with --force.
#pragma once

#include <sys/stat.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace flashscope::reports {

struct WriteOptions {
  bool force = false;  // the command's --force
};

struct OutputTarget {
  std::string path;     // where the data goes: a symlink's destination with --force
  bool exists = false;  // a file is replaced: `st` is it
  bool direct = false;  // a FIFO or a device with --force: written into, never renamed over
  struct stat st {};
};

// The target of a write to `path`, or a FailedPrecondition naming the path, what it is and what
// to do (--force, another path, or standard output and a redirection).
absl::StatusOr<OutputTarget> ResolveOutputTarget(const std::string& path,
                                                 const WriteOptions& options = {});

// ResolveOutputTarget's verdict alone: for commands that check their outputs before long work.
absl::Status CheckOutputTarget(const std::string& path, const WriteOptions& options = {});

// Refuses (unless forced) an output that is one of the command's input files (the same file by
// device and inode, through any link): `merge --out s1.json s1.json s2.json` or
// `gate a.json b.json --json a.json` would replace the data the output was made from.
absl::Status CheckNotAnInput(const std::string& flag, const std::string& path,
                             const std::vector<std::string>& inputs,
                             const WriteOptions& options = {});

// The mode a new file gets: 0644 less this process's umask.
mode_t NewFileMode();

}  // namespace flashscope::reports
