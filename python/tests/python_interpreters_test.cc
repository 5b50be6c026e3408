// Which Python the bridge loads: every CPython >= 3.10 with a shared libpython found at configure
// time (the same bridge, built against one version's headers, with each), and the messages when
// the environment names no usable one. An interpreter starts once per process, so each case runs
// in a fresh process: gtest's "threadsafe" death tests re-execute this binary for the statement.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>

#include "python/tests/bridge_test_util.h"

namespace flashscope::python_bridge::testing {
namespace {

std::vector<std::string> TestPythons() {
  std::vector<std::string> out;
  std::stringstream list(FLASHSCOPE_TEST_PYTHONS);
  for (std::string python; std::getline(list, python, ',');) {
    if (!python.empty()) out.push_back(python);
  }
  return out;
}

// In the child: loads recorder.py and launches one kernel; prints what happened and exits 0 only
// when both worked.
[[noreturn]] void LoadAndLaunch() {
  std::string error;
  const fs_plugin* p = LoadModule("recorder.py", &error);
  if (p == nullptr) {
    std::fprintf(stderr, "refused: %s\n", error.c_str());
    std::exit(1);
  }
  const fs_kernel* k = FindKernel(p, "pytest.attn_v1");
  const fs_problem problem = Attention(1, 2, 8, 8, 64, FS_DTYPE_BF16, false, false);
  const fs_buffers buffers = FakeBuffers(problem);
  const int32_t rc = k->launch(k->user, &problem, &buffers, kStream);
  std::fprintf(stderr, "version: %s; launch: %d %s\n", p->version, rc,
               rc == 0 ? "" : k->last_error(k->user));
  std::exit(rc == 0 ? 0 : 1);
}

// In the child: the message of a refused load (exits 0 when refused, 1 when it loaded).
[[noreturn]] void ExpectRefused() {
  std::string error;
  const fs_plugin* p = LoadModule("recorder.py", &error);
  std::fprintf(stderr, "refused: %s\n", error.c_str());
  std::exit(p == nullptr ? 0 : 1);
}

class PythonInterpreters : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

std::string VersionOf(const std::string& python) {
  std::string out;
  if (FILE* f = popen(
          (python + " -c 'import sys; print(\"%d.%d.%d\" % sys.version_info[:3])'").c_str(), "r")) {
    char buf[64] = {};
    if (fgets(buf, sizeof buf, f) != nullptr) out = buf;
    pclose(f);
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

TEST_F(PythonInterpreters, EachPythonWithASharedLibpythonRunsTheSameBridge) {
  const std::vector<std::string> pythons = TestPythons();
  ASSERT_FALSE(pythons.empty())
      << "no Python >= 3.10 with a shared libpython was found when configuring (install "
         "python3-dev and libpython3.X, or configure with -DPython3_EXECUTABLE=...)";
  for (const std::string& python : pythons) {
    const std::string version = VersionOf(python);
    ASSERT_FALSE(version.empty()) << python;
    setenv("FLASHSCOPE_PYTHON", python.c_str(), 1);
    EXPECT_EXIT(LoadAndLaunch(), ::testing::ExitedWithCode(0),
                "version: recorder-1 \\(python " + version + ", torch 0.0-fake\\); launch: 0")
        << python;
  }
  unsetenv("FLASHSCOPE_PYTHON");
}

TEST_F(PythonInterpreters, AMissingInterpreterIsNamedWithTheFix) {
  setenv("FLASHSCOPE_PYTHON", "/nonexistent/python3", 1);
  EXPECT_EXIT(ExpectRefused(), ::testing::ExitedWithCode(0),
              "cannot run the Python interpreter '/nonexistent/python3': No such file.*set "
              "FLASHSCOPE_PYTHON to the python3 that has torch");
  unsetenv("FLASHSCOPE_PYTHON");
}

TEST_F(PythonInterpreters, ALibraryThatIsNoLibpythonIsRefused) {
  setenv("FLASHSCOPE_PYTHON_LIB", "libm.so.6", 1);
  EXPECT_EXIT(ExpectRefused(), ::testing::ExitedWithCode(0),
              "libm.so.6 lacks CPython functions the bridge needs \\(Py_IsInitialized, .*not a "
              "CPython >= 3.10 libpython");
  setenv("FLASHSCOPE_PYTHON_LIB", "/nonexistent/libpython3.12.so", 1);
  EXPECT_EXIT(ExpectRefused(), ::testing::ExitedWithCode(0),
              "cannot load libpython /nonexistent/libpython3.12.so: .*set FLASHSCOPE_PYTHON_LIB "
              "to the shared libpython of");
  unsetenv("FLASHSCOPE_PYTHON_LIB");
}

// The library of one version with the interpreter of another (its sys.path, its packages) would
// crash in the first extension module: refused by version.
TEST_F(PythonInterpreters, ALibpythonOfAnotherVersionIsRefused) {
  std::string one, other, other_lib;
  for (const std::string& python : TestPythons()) {
    const std::string v = VersionOf(python);
    const std::string mm = v.substr(0, v.rfind('.'));
    const std::string lib = python.substr(0, python.rfind("/bin/")) + "/lib/libpython" + mm + ".so";
    if (one.empty()) {
      one = python;
    } else if (VersionOf(one).rfind(mm + ".", 0) != 0 && access(lib.c_str(), R_OK) == 0) {
      other = python;
      other_lib = lib;
    }
  }
  if (other.empty()) GTEST_SKIP() << "needs two Python versions with shared libpythons";
  setenv("FLASHSCOPE_PYTHON", one.c_str(), 1);
  setenv("FLASHSCOPE_PYTHON_LIB", other_lib.c_str(), 1);
  EXPECT_EXIT(ExpectRefused(), ::testing::ExitedWithCode(0), "must name the same version");
  unsetenv("FLASHSCOPE_PYTHON");
  unsetenv("FLASHSCOPE_PYTHON_LIB");
}

}  // namespace
}  // namespace flashscope::python_bridge::testing
