// `flashscope new-plugin`: names checked, every part of each of the four projects written with
// nothing left to fill in, nothing overwritten, the Python project's own test passing and its
// suite planned by the real flashscope, the CUDA project's table test compiling (and its kernel,
// where nvcc is), all on the CPU. scripts/test-install.sh builds the projects against an
// installed prefix.
#include "cli/new_plugin.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "cli/tests/flashscope_command.h"
#include "common/tests/expect_has.h"
#include "suites/suite.h"

namespace flashscope::cli {
namespace {

namespace fs = std::filesystem;

int Shell(const std::string& command) {
  const int rc = std::system(command.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

class NewPlugin : public testing::FlashscopeCommandTest {
 protected:
  fs::path Write(const PluginProject& p) {
    const fs::path folder = dir_ / p.name;
    absl::Status s = WritePluginProject(folder.string(), PluginProjectFiles(p));
    EXPECT_TRUE(s.ok()) << s;
    return folder;
  }
};

PluginProject Project(const std::string& name, bool attention, bool python) {
  return {name, attention, python, "0.1.0"};
}

TEST(NewPluginNames, AreLowercaseIdentifiersThatTakeNoReservedPrefix) {
  for (const char* good : {"my_kernels", "a", "gemm2", "x_1_y"}) {
    EXPECT_EQ(PluginNameProblem(good), "") << good;
  }
  for (const char* bad : {"", "My", "1x", "a-b", "a.b", "_x", "a b", "test", "flashscope",
                          "abcdefghijabcdefghijabcdefghijabcdefghijk"}) {
    const std::string why = PluginNameProblem(bad);
    EXPECT_NE(why, "") << bad;
  }
  EXPECT_HAS(PluginNameProblem("a-b"), "e.g. my_kernels");
  EXPECT_HAS(PluginNameProblem("test"), "reserved");
}

TEST(NewPluginFiles, EveryProjectIsCompleteWithNothingLeftToFill) {
  const std::regex placeholder("@[A-Z_]+@");
  for (bool attention : {false, true}) {
    for (bool python : {false, true}) {
      const PluginProject p = Project("mine", attention, python);
      std::map<std::string, std::string> files;
      for (const ProjectFile& f : PluginProjectFiles(p)) files[f.path] = f.text;
      const std::string what =
          std::string(python ? "python " : "cuda ") + (attention ? "attention" : "gemm");
      const std::string id = attention ? "mine.attn_v1" : "mine.gemm_v1";
      EXPECT_EQ(KernelId(p), id);
      for (const char* path : {"CMakeLists.txt", "suite.json", "README.md"}) {
        ASSERT_TRUE(files.count(path)) << what << ": " << path;
      }
      ASSERT_TRUE(files.count(python ? "mine.py" : "mine.cu")) << what;
      ASSERT_TRUE(files.count(python ? "tests/test_mine.py" : "tests/table_test.cc")) << what;
      EXPECT_EQ(files.size(), 5u) << what;
      for (const auto& [path, text] : files) {
        EXPECT_FALSE(std::regex_search(text, placeholder)) << what << ": " << path;
      }
      EXPECT_HAS(files["CMakeLists.txt"], "find_package(flashscope 0.1 CONFIG REQUIRED)");
      EXPECT_HAS(files[python ? "mine.py" : "mine.cu"], "\"" + id + "\"");
      EXPECT_HAS(files["README.md"], id);
    }
  }
}

TEST_F(NewPlugin, TheSuiteParsesAndLoadsThePluginBesideIt) {
  for (bool python : {false, true}) {
    for (bool attention : {false, true}) {
      const PluginProject p =
          Project(std::string(python ? "py" : "cu") + (attention ? "_a" : "_g"), attention, python);
      const fs::path folder = Write(p);
      auto suite = suites::LoadSuiteFile((folder / "suite.json").string());
      ASSERT_TRUE(suite.ok()) << suite.status();
      EXPECT_EQ(suite->kernel_patterns, std::vector<std::string>{p.name + ".*"});
      EXPECT_EQ(suite->plugins,
                std::vector<std::string>{
                    (folder / (python ? p.name + ".py" : "build/" + p.name + ".so")).string()});
      ASSERT_FALSE(suite->problems.empty());
      for (const Problem& problem : suite->problems) {
        EXPECT_EQ(FamilyOf(problem), attention ? Family::kAttentionFwd : Family::kGemm);
      }
    }
  }
}

TEST_F(NewPlugin, AnExistingFolderIsNeverOverwritten) {
  fs::create_directories(dir_ / "taken");
  std::ofstream(dir_ / "taken/mine.txt") << "mine";
  absl::Status s =
      WritePluginProject((dir_ / "taken").string(), PluginProjectFiles(Project("taken", 0, 0)));
  EXPECT_FALSE(s.ok());
  EXPECT_HAS(s.message(), "already exists");
  EXPECT_EQ(testing::Slurp(dir_ / "taken/mine.txt"), "mine");
  EXPECT_FALSE(fs::exists(dir_ / "taken/CMakeLists.txt"));
}

// The Python project's own test, with the `flashscope` package of this checkout (an install puts
// the same files under lib/flashscope/plugins/python).
TEST_F(NewPlugin, ThePythonProjectsOwnTestPasses) {
  for (bool attention : {false, true}) {
    const PluginProject p = Project(attention ? "py_attn" : "py_gemm", attention, true);
    const fs::path folder = Write(p);
    const std::string log = (dir_ / "test.log").string();
    const int rc =
        Shell("PYTHONPATH='" FLASHSCOPE_TEST_SOURCE_DIR "/python' '" FLASHSCOPE_TEST_PYTHON "' '" +
              (folder / "tests" / ("test_" + p.name + ".py")).string() + "' > '" + log + "' 2>&1");
    const std::string out = testing::Slurp(log);
    EXPECT_EQ(rc, 0) << out;
    EXPECT_HAS(out, "ok   declares one kernel");
    EXPECT_EQ(out.find("FAIL"), std::string::npos) << out;
  }
}

// The CUDA project's table test is plain C++ on the SDK header: it compiles with the host
// compiler here; the kernel source needs nvcc (checked where the build has one).
TEST_F(NewPlugin, TheCudaProjectCompiles) {
  for (bool attention : {false, true}) {
    const PluginProject p = Project(attention ? "cu_attn" : "cu_gemm", attention, false);
    const fs::path folder = Write(p);
    const std::string log = (dir_ / "cc.log").string();
    EXPECT_EQ(Shell("'" FLASHSCOPE_CXX
                    "' -std=c++17 -Wall -Werror -fsyntax-only -I'" FLASHSCOPE_TEST_SOURCE_DIR
                    "/include' '" +
                    (folder / "tests/table_test.cc").string() + "' > '" + log + "' 2>&1"),
              0)
        << testing::Slurp(log);
#if defined(FLASHSCOPE_NVCC)
    std::ofstream(folder / "flashscope_plugin_version.h")
        << "#define FLASHSCOPE_PLUGIN_VERSION \"test\"\n";
    EXPECT_EQ(
        Shell("'" FLASHSCOPE_NVCC "' -std=c++17 -arch=sm_80 -c -o '" + (dir_ / "k.o").string() +
              "' -I'" FLASHSCOPE_TEST_SOURCE_DIR "/include' -I'" + folder.string() + "' '" +
              (folder / (p.name + ".cu")).string() + "' > '" + log + "' 2>&1"),
        0)
        << testing::Slurp(log);
#endif
  }
}

// The command: the project, then what to do next; a second time, or a bad name, is refused.
TEST_F(NewPlugin, TheCommandWritesOnceAndThePythonSuitePlans) {
  testing::CommandResult r = Flashscope("new-plugin py_gemm --python --family gemm --dir sub");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.out, "wrote sub/py_gemm/");
  EXPECT_HAS(r.out, "flashscope run suite.json --dry_run");
  EXPECT_TRUE(fs::exists(dir_ / "sub/py_gemm/py_gemm.py"));
  r = Flashscope("new-plugin py_gemm --python --dir sub");
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.err, "sub/py_gemm already exists");
  r = Flashscope("new-plugin Bad-Name");
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.err, "'Bad-Name' does not start with a lowercase letter");
  r = Flashscope("new-plugin x --cuda --python");
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(fs::exists(dir_ / "x"));
  r = Flashscope("new-plugin x --family conv");
  EXPECT_EQ(r.code, 2);
  // The Python suite plans from its own folder with the bridge of this build (torch is imported
  // only inside the kernel: planning needs none).
  r = Flashscope("run sub/py_gemm/suite.json --dry_run",
                 "FLASHSCOPE_PYTHON='" FLASHSCOPE_TEST_PYTHON "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.out, "plan: 6 cases");
  EXPECT_HAS(r.out, "py_gemm.gemm_v1 gemm{M=1000,N=17,K=333,bf16}  [py_gemm]");
}

}  // namespace
}  // namespace flashscope::cli
