#include "reports/output_target.h"

#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/file_kind.h"

namespace flashscope::reports {
namespace {

absl::Status Refuse(const std::string& path, const std::string& what, const std::string& how) {
  return absl::FailedPreconditionError(absl::StrCat(path, ": ", what, ". ", how));
}

std::string ReadLink(const std::string& path) {
  char target[PATH_MAX];
  const ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
  return n > 0 ? std::string(target, static_cast<size_t>(n)) : "";
}

// Where a symlink leads: its resolved path, or for a dangling link the path it names (relative
// to the link's folder), which the write then creates.
std::string Destination(const std::string& link) {
  if (char* resolved = ::realpath(link.c_str(), nullptr)) {
    std::string out = resolved;
    std::free(resolved);
    return out;
  }
  const std::string target = ReadLink(link);
  if (target.empty() || target[0] == '/') return target;
  const size_t slash = link.find_last_of('/');
  return slash == std::string::npos ? target : link.substr(0, slash + 1) + target;
}

absl::StatusOr<OutputTarget> Resolve(const std::string& path, const WriteOptions& options,
                                     int links_left);

absl::StatusOr<OutputTarget> NotRegular(const std::string& path, const struct stat& st,
                                        const WriteOptions& options, int links_left) {
  const std::string kind = FileKindName(st.st_mode);
  if (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode)) {
    return Refuse(path, absl::StrCat("is ", kind, ", not a regular file"),
                  "flashscope writes a file there: give a file's path (not even --force writes "
                  "into a directory or a socket)");
  }
  if (S_ISLNK(st.st_mode)) {
    const std::string dest = Destination(path);
    if (!options.force || dest.empty() || links_left == 0) {
      return Refuse(path,
                    absl::StrCat("is a symbolic link, not a regular file (it points to \"",
                                 ReadLink(path), "\": give that path instead)"),
                    "flashscope writes its files whole and renames them into place, which would "
                    "replace the link; pass --force to write to the file it points to");
    }
    return Resolve(dest, options, links_left - 1);
  }
  if (!options.force) {
    return Refuse(path, absl::StrCat("is ", kind, ", not a regular file"),
                  "flashscope writes its files whole and renames them into place, which would "
                  "replace it; to write into a pipe or a device, write to standard output and "
                  "redirect that, or pass --force to write into it directly");
  }
  OutputTarget t;
  t.path = path;
  t.exists = true;
  t.direct = true;
  t.st = st;
  return t;
}

absl::StatusOr<OutputTarget> Resolve(const std::string& path, const WriteOptions& options,
                                     int links_left) {
  OutputTarget t;
  t.path = path;
  if (::lstat(path.c_str(), &t.st) != 0) {
    if (errno == ENOENT) return t;  // a new file
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
  }
  if (!S_ISREG(t.st.st_mode)) return NotRegular(path, t.st, options, links_left);
  t.exists = true;
  const mode_t mode = t.st.st_mode & 07777;
  const bool read_only = (mode & S_IWUSR) == 0 || ::access(path.c_str(), W_OK) != 0;
  if (read_only && !options.force) {
    return Refuse(path,
                  absl::StrFormat("is read-only (mode %04o, owner uid %d)", mode, t.st.st_uid),
                  "flashscope does not replace a file that was made read-only: write elsewhere, "
                  "or pass --force to replace it (its mode and owner are kept)");
  }
  if (t.st.st_nlink > 1 && !options.force) {
    return Refuse(path,
                  absl::StrCat("has ", t.st.st_nlink,
                               " hard links (other names of the same file). flashscope writes a "
                               "new file and renames it into place, so the other names would keep "
                               "the old content"),
                  "Write elsewhere, or pass --force to replace this name alone (the other names "
                  "keep the old content)");
  }
  return t;
}

}  // namespace

mode_t NewFileMode() {
  // The umask, read without changing it (umask(2) can only set it, which races other threads).
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0) {
      return 0644 & ~static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
    }
  }
  return 0644 & ~022;  // the usual umask, where /proc says nothing
}

absl::StatusOr<OutputTarget> ResolveOutputTarget(const std::string& path,
                                                 const WriteOptions& options) {
  // realpath resolves a chain of links at once; only a dangling chain is followed link by link.
  return Resolve(path, options, /*links_left=*/8);
}

absl::Status CheckNotAnInput(const std::string& flag, const std::string& path,
                             const std::vector<std::string>& inputs, const WriteOptions& options) {
  struct stat out, in;
  if (options.force || ::stat(path.c_str(), &out) != 0) return absl::OkStatus();
  for (const std::string& input : inputs) {
    if (::stat(input.c_str(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
      return absl::FailedPreconditionError(absl::StrCat(
          flag, " ", path, " is the input ", input,
          ": writing there would replace the data this output is made from. Write elsewhere, or "
          "pass --force to replace it"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckOutputTarget(const std::string& path, const WriteOptions& options) {
  return ResolveOutputTarget(path, options).status();
}

}  // namespace flashscope::reports
