// `flashscope list` and `run --dry_run` as a new plugin author meets them (issue 25), end to end on
// the CPU with the small C plugins of plugins/tests: every dtype tried, --kernels and
// --plugin_only, refusals last, supports() marks in the plan, plugin paths as the user typed them,
// and messages that repeat the user's own flags.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/tests/flashscope_command.h"
#include "cli/tests/test_plugin_path.h"
#include "common/tests/expect_has.h"

namespace flashscope {
namespace {

namespace fs = std::filesystem;

using testing::TestPlugin;

class ListCli : public testing::FlashscopeCommandTest {
 protected:
  // A suite in the test's folder with the given problems (a JSON list's inside).
  std::string Suite(const std::string& name, const std::string& kernels,
                    const std::string& problems, const std::string& plugins = "") {
    std::ofstream(dir_ / name) << R"({"name": "t", "kernels": [)" << kernels << "]"
                               << (plugins.empty() ? "" : R"(, "plugins": [)" + plugins + "]")
                               << R"(, "problems": [)" << problems << "]}";
    return name;
  }
};

constexpr char kAttention[] = R"({"family": "attention_fwd", "axes": {"seq": 17}})";

TEST_F(ListCli, EveryDtypeOfTheAbiIsTriedBf16Included) {
  Result r = Flashscope("list --plugin_only --plugin " + TestPlugin("gemm_bf16"));
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t gemm = r.out.find("wide.gemm_v1");
  ASSERT_NE(gemm, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("supports: fp16,bf16\n", gemm), std::string::npos) << r.out;
  r = Flashscope("list --plugin_only --plugin " + TestPlugin("good"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("supports: fp16\n", r.out.find("good.gemm_v1")), std::string::npos) << r.out;
}

TEST_F(ListCli, KernelsGlobAndPluginOnlyNarrowTheListing) {
  const std::string both = " --plugin " + TestPlugin("good") + " --plugin " + TestPlugin("other");
  Result r = Flashscope("list --kernels 'good.*'" + both);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.out, "good.attn_v1");
  EXPECT_HAS(r.out, "good.gemm_v1");
  EXPECT_EQ(r.out.find("other.attn_v1"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("suites (in"), std::string::npos) << "a narrowed listing has no suites";
  EXPECT_HAS(r.out, "--kernels good.*");
  r = Flashscope("list --kernels 'good.attn_v1,other.g*'" + both);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.out, "good.attn_v1");
  EXPECT_HAS(r.out, "other.gemm_v1");
  EXPECT_EQ(r.out.find("good.gemm_v1"), std::string::npos) << r.out;
  r = Flashscope("list --plugin-only" + both);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.out, "other.attn_v1");
  EXPECT_EQ(r.out.find("built-in"), std::string::npos) << r.out;
  r = Flashscope("list --kernels 'good.atn*'" + both);
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "--kernels good.atn*: no kernel matches 'good.atn*' (closest: good.attn_v1");
  // Without a filter the suites come first, the kernels after them.
  r = Flashscope("list" + both);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_LT(r.out.find("suites (in"), r.out.find("good.attn_v1")) << r.out;
}

TEST_F(ListCli, RefusedPluginsComeLastAfterEverythingListed) {
  Result r =
      Flashscope("list --plugin " + TestPlugin("no_entry") + " --plugin " + TestPlugin("good"));
  EXPECT_EQ(r.code, 2);
  const size_t refusal = r.out.find("plugins not listed (1):");
  ASSERT_NE(refusal, std::string::npos) << r.out;
  EXPECT_LT(r.out.find("good.gemm_v1"), refusal);
  EXPECT_LT(r.out.find("suites (in"), refusal);
  EXPECT_HAS(r.out.substr(refusal), TestPlugin("no_entry"));
  EXPECT_HAS(r.out.substr(refusal), "REFUSED: ");
}

TEST_F(ListCli, AKernelThatRefusesEveryProbeIsMarked) {
  Result r = Flashscope("list --plugin_only --plugin " + TestPlugin("refuse_all"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.out, "REFUSED every problem it was asked about, e.g.: refuses everything");
  r = Flashscope("list --plugin_only --plugin " + TestPlugin("good"));
  EXPECT_EQ(r.out.find("REFUSED every"), std::string::npos) << r.out;
}

TEST_F(ListCli, DryRunMarksTheCasesSupportsRefusesWithTheReason) {
  const std::string suite =
      Suite("s.json", R"("good.*")",
            R"({"family": "attention_fwd", "axes": {"seq": 17, "head_dim": [32, 64]}},
         {"family": "gemm", "axes": {"size": 8, "dtype": ["fp16", "bf16"]}})");
  Result r = Flashscope("run " + suite + " --dry_run --plugin " + TestPlugin("good"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.out, "plan: 4 cases");
  EXPECT_HAS(r.out,
             "good.attn_v1 attention_fwd{B=1,H=1,S=17,D=32,fp16}  [test-good]  SKIP: "
             "supports() says: head_dim 32 not supported: 64 and 128 only");
  EXPECT_HAS(r.out,
             "good.gemm_v1 gemm{M=8,N=8,K=8,bf16}  [test-good]  SKIP: supports() says: "
             "fp16 only");
  EXPECT_HAS(r.out, "good.attn_v1 attention_fwd{B=1,H=1,S=17,D=64,fp16}  [test-good]\n");
  EXPECT_HAS(r.out, "2 of 4 cases will be skipped");
}

TEST_F(ListCli, OneCaseIsOneCase) {
  const std::string suite = Suite("one.json", R"("good.attn_v1")", kAttention);
  Result r = Flashscope("run " + suite + " --dry_run --plugin " + TestPlugin("good"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.out, "plan: 1 case of suite file");
}

TEST_F(ListCli, TheNoGpuMessageRepeatsTheUsersPluginsAndFilter) {
  const std::string suite = Suite("s.json", R"("good.*")", kAttention);
  Result r = Flashscope("run " + suite + " --kernels 'good.a*' --plugin " + TestPlugin("good"));
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.err, "`flashscope run s.json --kernels 'good.a*' --plugin " + TestPlugin("good") +
                        " --dry_run` shows the plan without a GPU");
}

TEST_F(ListCli, PluginHelpSaysRepeatableOnce) {
  for (const char* command : {"run", "list"}) {
    Result r = Flashscope(std::string(command) + " --help");
    ASSERT_EQ(r.code, 0) << r.err;
    const size_t start = r.out.find("  --plugin FILE");
    ASSERT_NE(start, std::string::npos) << r.out;
    const std::string help = r.out.substr(start, r.out.find("\n  --", start + 1) - start);
    const size_t first = help.find("repeatable");
    ASSERT_NE(first, std::string::npos) << help;
    EXPECT_EQ(help.find("repeatable", first + 1), std::string::npos) << help;
  }
}

TEST_F(ListCli, PathsAreWhatTheUserTyped) {
  fs::copy_file(TestPlugin("good"), dir_ / "my.so");
  // A file in the current folder is that file, not a bare name looked up elsewhere.
  Result r = Flashscope("list --plugin_only --plugin my.so");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.out, "file " + fs::canonical(dir_ / "my.so").string());
  // A folder says it is one, and names the plugin in it.
  fs::create_directories(dir_ / "build");
  fs::copy_file(TestPlugin("good"), dir_ / "build/libmine.so");
  r = Flashscope("list --plugin ./build");
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.err, "plugin ./build (--plugin) is a folder, not a plugin file");
  EXPECT_HAS(r.err, "./build/libmine.so");
  // A bare name with an extension is looked up as itself only.
  r = Flashscope("list --plugin nope.py");
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.err, "plugin 'nope.py' (--plugin): no nope.py in ");
  EXPECT_EQ(r.err.find("libnope.py.so"), std::string::npos) << r.err;
  // A suite run from its own folder: "./my.so" is the file beside it.
  const std::string suite = Suite("plug.json", R"("good.*")", kAttention, R"("./my.so")");
  r = Flashscope("run " + suite + " --dry_run");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.out, "file " + fs::canonical(dir_ / "my.so").string());
}

}  // namespace
}  // namespace flashscope
