#include "protocol/worker_process.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"

namespace flashscope::suites {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

std::string ThisProgram() {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  return n <= 0 ? "" : std::string(self, static_cast<size_t>(n));
}

absl::StatusOr<std::string> FindWorker() {
  if (const char* env = std::getenv("FLASHSCOPE_WORKER"); env != nullptr && env[0] != '\0') {
    if (access(env, X_OK) != 0) {
      return absl::NotFoundError(absl::StrCat("FLASHSCOPE_WORKER=", env,
                                              " is not an executable file: ", std::strerror(errno),
                                              " (unset it to use the worker beside flashscope)"));
    }
    return std::string(env);
  }
  const std::string self = ThisProgram();
  if (self.empty())
    return absl::InternalError("cannot read /proc/self/exe to find flashscope-worker");
  const std::string path =
      (std::filesystem::path(self).parent_path() / "flashscope-worker").string();
  if (access(path.c_str(), X_OK) != 0) {
    return absl::NotFoundError(absl::StrCat(
        "cannot find flashscope-worker: ", path, " is ", std::strerror(errno),
        ". flashscope runs kernels in that separate program; build it (cmake --build ... "
        "--target flashscope-worker), install it beside flashscope, or set FLASHSCOPE_WORKER to "
        "its path"));
  }
  return path;
}

namespace {

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void CloseBoth(int fds[2]) {
  if (fds[0] >= 0) close(fds[0]);
  if (fds[1] >= 0) close(fds[1]);
}

}  // namespace

std::vector<std::string> ChildEnvironment(
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& o : overrides) replaced |= o.first == name;
    if (!replaced) env.push_back(entry);
  }
  for (const auto& [name, value] : overrides) env.push_back(name + "=" + value);
  return env;
}

absl::StatusOr<WorkerProcess> WorkerProcess::Start(const std::string& worker_exe,
                                                   protocol::WorkerRequest request,
                                                   const WorkerStartOptions& options) {
  // Close-on-exec everywhere: a worker started later must not hold this one's pipe open.
  int progress[2] = {-1, -1}, commands[2] = {-1, -1};
  if (pipe2(progress, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  // A socket rather than a pipe: send(MSG_NOSIGNAL) to a worker that died is an error, not a
  // SIGPIPE that would end the supervisor.
  if (options.commands && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, commands) != 0) {
    CloseBoth(progress);
    return absl::InternalError(absl::StrCat("socketpair: ", std::strerror(errno)));
  }
  request.progress_fd = progress[1];
  request.command_fd = commands[1];
  std::vector<std::string> argv = protocol::WorkerArgv(worker_exe, request);
  std::vector<std::string> env = ChildEnvironment(options.environment);
  std::vector<char*> cargv = Pointers(argv), cenv = Pointers(env);
  // Made before fork: the child only calls sched_setaffinity.
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int c : options.cpus) {
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &cpus);
  }
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    CloseBoth(progress);
    CloseBoth(commands);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    // A worker outlives no supervisor: killed (even by SIGKILL), it takes its worker along, which
    // would otherwise go on writing a journal nobody reads.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the supervisor died before prctl took effect
    // Near its GPU when known (supervisor/gpu_affinity.h); refused (a cgroup without those CPUs),
    // it runs where the supervisor may.
    if (!options.cpus.empty()) sched_setaffinity(0, sizeof(cpus), &cpus);
    // The child keeps its own two ends across exec; everything else closes there.
    fcntl(progress[1], F_SETFD, 0);
    if (commands[1] >= 0) fcntl(commands[1], F_SETFD, 0);
    execve(worker_exe.c_str(), cargv.data(), cenv.data());
    std::fprintf(stderr, "flashscope: cannot start %s: %s\n", worker_exe.c_str(),
                 std::strerror(errno));
    _exit(127);
  }
  close(progress[1]);
  if (commands[1] >= 0) close(commands[1]);
  return WorkerProcess(pid, progress[0], commands[0]);
}

bool WorkerProcess::Send(const std::string& line) {
  if (command_fd_ < 0) return false;
  const std::string data = line + "\n";
  size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = send(command_fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

void WorkerProcess::CloseCommands() {
  if (command_fd_ >= 0) close(command_fd_);
  command_fd_ = -1;
}

WorkerProcess::WorkerProcess(WorkerProcess&& other) noexcept
    : pid_(other.pid_),
      fd_(other.fd_),
      command_fd_(other.command_fd_),
      reaped_(other.reaped_),
      status_(other.status_),
      buffer_(std::move(other.buffer_)) {
  other.pid_ = -1;
  other.fd_ = -1;
  other.command_fd_ = -1;
}

WorkerProcess::~WorkerProcess() {
  if (fd_ >= 0) close(fd_);
  CloseCommands();
  if (pid_ > 0 && !reaped_) {
    Kill();
    Wait();
  }
}

WorkerProcess::Read WorkerProcess::Next(double limit_s, protocol::Message* out) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(limit_s);
  while (true) {
    for (size_t nl = buffer_.find('\n'); nl != std::string::npos; nl = buffer_.find('\n')) {
      const std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      if (auto m = protocol::ParseMessage(line)) {
        *out = *std::move(m);
        return Read::kMessage;
      }
    }
    if (fd_ < 0) return Read::kEnded;
    const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    // With no time left, one look without waiting: Next(0) takes what has already arrived.
    pollfd p{fd_, POLLIN, 0};
    const int n = poll(&p, 1, left <= 0 ? 0 : static_cast<int>(std::min(left, 3600.0) * 1000) + 1);
    if (n < 0) continue;  // EINTR
    if (n == 0) {
      if (left <= 0) return Read::kTimedOut;
      continue;  // the limit: the loop decides
    }
    char buf[4096];
    const ssize_t got = read(fd_, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      close(fd_);
      fd_ = -1;
      continue;  // parse what is left, then report the end
    }
    buffer_.append(buf, static_cast<size_t>(got));
  }
}

void WorkerProcess::Kill() {
  if (pid_ > 0 && !reaped_) kill(pid_, SIGKILL);
}

int WorkerProcess::Wait() {
  if (pid_ <= 0 || reaped_) return status_;
  while (waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  return status_;
}

std::string DescribeExit(int status) {
  if (WIFSIGNALED(status)) {
    return absl::StrCat("was killed by signal ", WTERMSIG(status), " (",
                        strsignal(WTERMSIG(status)), ")");
  }
  if (WIFEXITED(status)) return absl::StrCat("exited with code ", WEXITSTATUS(status));
  return "ended";
}

bool DiedOfSignal(int status) { return WIFSIGNALED(status); }

std::string CauseOfDeath(int status) {
  if (!WIFSIGNALED(status)) return DescribeExit(status);
  return absl::StrCat("signal ", WTERMSIG(status), " (", strsignal(WTERMSIG(status)), ")");
}

}  // namespace flashscope::suites
