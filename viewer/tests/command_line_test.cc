// flashscope-view's command line before any window opens (no display needed): --version answers
// and exits 0, an unknown flag is a usage error (exit 2) that names it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace {

struct Outcome {
  int code = -1;
  std::string output;
};

Outcome View(const std::string& args) {
  Outcome o;
  FILE* p = popen((std::string("'" FLASHSCOPE_VIEW_BIN "' ") + args + " 2>&1").c_str(), "r");
  if (p == nullptr) return o;
  char buf[512];
  while (size_t n = fread(buf, 1, sizeof buf, p)) o.output.append(buf, n);
  const int status = pclose(p);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

TEST(ViewerCommandLine, VersionAnswersAndExitsZero) {
  const Outcome o = View("--version");
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_EQ(o.output.rfind("flashscope-view " FLASHSCOPE_VERSION " (git ", 0), 0u) << o.output;
}

TEST(ViewerCommandLine, UnknownFlagsAreUsageErrors) {
  for (const char* flag : {"--bogus", "-v", "--versions"}) {
    const Outcome o = View(std::string("report.json ") + flag);
    EXPECT_EQ(o.code, 2) << flag << ": " << o.output;
    EXPECT_NE(o.output.find(std::string("unknown option ") + flag), std::string::npos) << o.output;
    EXPECT_NE(o.output.find("usage: flashscope-view"), std::string::npos) << o.output;
  }
}

}  // namespace
