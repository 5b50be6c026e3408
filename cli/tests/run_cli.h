// Runs the built `flashscope` binary the way a user or a CI script does, and captures what it
// printed: the command-line tests check exit codes and messages end to end.
#pragma once

#include <string>
#include <vector>

namespace flashscope::cli::testing {

struct CliResult {
  int exit_code = -1;  // 128 + N when killed by signal N
  std::string out, err;
};

struct CliOptions {
  std::vector<std::string> env;  // "NAME=value" set, "NAME" removed, on top of ours
  bool stdout_on_tty = false;    // stdout is a pseudo-terminal (for colour decisions)
  std::string stdout_path;       // stdout goes to this file (e.g. /dev/full) instead of a capture
};

// `args` excludes the program name. TERM and NO_COLOR are removed from the child's environment
// unless `options.env` sets them, so that the test's own terminal does not leak in.
CliResult RunCli(const std::vector<std::string>& args, const CliOptions& options = {});

// The binary under test (FLASHSCOPE_CLI_PATH, set by CMake).
std::string CliPath();

// A fresh empty directory, unique per call.
std::string TempDir();
void WriteText(const std::string& path, const std::string& text);
std::string ReadText(const std::string& path);  // "" when it cannot be read

}  // namespace flashscope::cli::testing
