#include "cli/tests/run_cli.h"

#include <fcntl.h>
#include <pty.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace flashscope::cli::testing {
namespace {

// Reads the pty master until the child closed its side (EIO on Linux).
std::string Drain(int fd) {
  std::string out;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  return out;
}

void ApplyEnv(const std::vector<std::string>& env) {
  ::unsetenv("NO_COLOR");
  ::unsetenv("TERM");
  for (const std::string& e : env) {
    size_t eq = e.find('=');
    if (eq == std::string::npos) {
      ::unsetenv(e.c_str());
    } else {
      ::setenv(e.substr(0, eq).c_str(), e.substr(eq + 1).c_str(), 1);
    }
  }
}

}  // namespace

std::string CliPath() { return FLASHSCOPE_CLI_PATH; }

std::string TempDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/fs_cli_XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
  return tmpl;
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CliResult RunCli(const std::vector<std::string>& args, const CliOptions& options) {
  const std::string dir = TempDir();
  const std::string out_path = options.stdout_path.empty() ? dir + "/out" : options.stdout_path;
  const std::string err_path = dir + "/err";
  int master = -1, slave = -1;
  if (options.stdout_on_tty && ::openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
    std::abort();
  }
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    ApplyEnv(options.env);
    int out = slave;
    if (!options.stdout_on_tty) {
      out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    }
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0) ::_exit(125);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    if (master >= 0) ::close(master);
    std::vector<std::string> argv_s = {CliPath()};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(126);
  }
  CliResult r;
  if (options.stdout_on_tty) {
    ::close(slave);
    r.out = Drain(master);
    ::close(master);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (!options.stdout_on_tty && options.stdout_path.empty()) r.out = ReadText(out_path);
  r.err = ReadText(err_path);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);  // the captures are read: leave no folder behind
  return r;
}

}  // namespace flashscope::cli::testing
