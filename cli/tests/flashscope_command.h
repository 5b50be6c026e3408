// The real `flashscope` run from a test, end to end: a fresh folder per test, the exit code and
// what the command wrote to standard output and error. Shared by the command-line tests of
// plugins (cli/tests/plugins_test.cc) and of Python modules (python/tests/python_cli_test.cc);
// the including test defines FLASHSCOPE_BIN_DIR, the folder of the built `flashscope`.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace flashscope::testing {

struct CommandResult {
  int code = -1;
  std::string out, err;
};

inline std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class FlashscopeCommandTest : public ::testing::Test {
 protected:
  using Result = CommandResult;  // what Flashscope() returns, as the tests name it

  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("flashscope_cli_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // `flashscope ARGS` from the test's folder, with no plugins from the environment and no GPU,
  // plus `env` ("-u NAME A=b C=d ": env(1)'s unsets first, then assignments).
  CommandResult Flashscope(const std::string& args, const std::string& env = "") {
    const std::string cmd = "cd '" + dir_.string() + "' && env -u FLASHSCOPE_PLUGINS " + env +
                            " CUDA_VISIBLE_DEVICES= '" + FLASHSCOPE_BIN_DIR + "/flashscope' " +
                            args + " > out.txt 2> err.txt";
    const int rc = std::system(cmd.c_str());
    CommandResult r;
    r.code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.out = Slurp(dir_ / "out.txt");
    r.err = Slurp(dir_ / "err.txt");
    return r;
  }

  std::filesystem::path dir_;
};

}  // namespace flashscope::testing
