// Bounded reading of input files (input_file.h); compression is in compression.cc.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "reports/file_kind.h"
#include "reports/file_util.h"
#include "reports/input_file.h"

namespace flashscope::reports {
namespace {

std::atomic<uint64_t> max_input_bytes{kDefaultMaxInputBytes};

constexpr size_t kChunk = 1 << 16;

std::string OverCap(const std::string& path, uint64_t max_bytes, const char* what) {
  return absl::StrCat(path, ": ", what, " more than ", max_bytes >> 20,
                      " MiB (the input cap; --max-input-mb N lifts it, 0 = no cap): refused "
                      "without reading it whole");
}

// An open file descriptor, closed on every path out.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ > 2) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Opens `path` for reading and checks that it is a regular file; "-" is standard input.
absl::StatusOr<int> OpenRegular(const std::string& path) {
  if (path == "-") return 0;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot open for reading: ", std::strerror(err)));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const char* kind = FileKindName(st.st_mode);
    ::close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": is ", kind,
                     ", not a regular file: flashscope reads reports, policies, suites and "
                     "journals from regular files (or \"-\" for standard input where a command "
                     "says so)"));
  }
  // Regular files never block; clear O_NONBLOCK (it only kept open() of a FIFO from waiting).
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

// Reads at most `max_bytes` (0 = no cap) from `fd`; one byte more is an error.
absl::StatusOr<std::string> ReadBounded(int fd, const std::string& path, uint64_t max_bytes) {
  std::string data;
  char buf[kChunk];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::DataLossError(absl::StrCat(path, ": read failed: ", std::strerror(errno)));
    }
    if (n == 0) return data;
    if (max_bytes != 0 && data.size() + static_cast<size_t>(n) > max_bytes) {
      return absl::ResourceExhaustedError(OverCap(path, max_bytes, "holds"));
    }
    data.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

void SetMaxInputBytes(uint64_t bytes) { max_input_bytes = bytes; }
uint64_t MaxInputBytes() { return max_input_bytes; }
std::string MaxInputText() {
  const uint64_t cap = MaxInputBytes();
  return cap == 0 ? "no cap" : absl::StrCat(cap >> 20, " MiB");
}

absl::StatusOr<std::string> ReadInputFile(const std::string& path, std::string* as_stored) {
  absl::StatusOr<int> fd = OpenRegular(path);
  if (!fd.ok()) return fd.status();
  Fd closer(*fd);
  const uint64_t cap = MaxInputBytes();
  struct stat st;
  if (*fd != 0 && ::fstat(*fd, &st) == 0 && cap != 0 && static_cast<uint64_t>(st.st_size) > cap) {
    return absl::ResourceExhaustedError(OverCap(path, cap, "holds"));
  }
  absl::StatusOr<std::string> raw = ReadBounded(*fd, path, cap);
  if (!raw.ok()) return raw.status();
  if (as_stored != nullptr) *as_stored = *raw;
  if (CompressionOfContent(*raw) == Compression::kNone) return raw;
  return DecompressData(*raw, cap, path);
}

absl::Status ReadLines(const std::string& path, uint64_t max_line,
                       const std::function<absl::Status(int, absl::string_view)>& line_fn,
                       const std::function<void(int, uint64_t)>& long_fn) {
  absl::StatusOr<int> fd = OpenRegular(path);
  if (!fd.ok()) return fd.status();
  Fd closer(*fd);
  // Shared lock: appenders (other processes of a run) wait until the snapshot is read.
  ScopedFileLock lock(*fd, /*exclusive=*/false);
  const uint64_t cap = MaxInputBytes();
  std::string line;
  uint64_t long_bytes = 0;  // > 0 while skipping an over-long line
  uint64_t kept = 0;
  int line_no = 1;
  char buf[kChunk];
  auto finish_line = [&]() -> absl::Status {
    absl::Status st;
    if (long_bytes > 0) {
      long_fn(line_no, long_bytes);
    } else {
      kept += line.size();
      if (cap != 0 && kept > cap) return absl::ResourceExhaustedError(OverCap(path, cap, "holds"));
      st = line_fn(line_no, line);
    }
    line.clear();
    long_bytes = 0;
    ++line_no;
    return st;
  };
  while (true) {
    const ssize_t n = ::read(*fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::DataLossError(absl::StrCat(path, ": read failed: ", std::strerror(errno)));
    }
    if (n == 0) break;
    absl::string_view chunk(buf, static_cast<size_t>(n));
    while (!chunk.empty()) {
      const size_t nl = chunk.find('\n');
      const absl::string_view part = chunk.substr(0, nl);
      if (long_bytes > 0 || line.size() + part.size() > max_line) {
        long_bytes += line.size() + part.size();
        line.clear();
        line.shrink_to_fit();
      } else {
        line.append(part.data(), part.size());
      }
      if (nl == absl::string_view::npos) break;
      if (absl::Status st = finish_line(); !st.ok()) return st;
      chunk.remove_prefix(nl + 1);
    }
  }
  if (!line.empty() || long_bytes > 0) return finish_line();
  return absl::OkStatus();
}

}  // namespace flashscope::reports
