// `flashscope list --plugin` and `flashscope run --dry_run` end to end, on the CPU: the real
// flashscope and flashscope-worker with the small C plugins of plugins/tests (good, refused and
// crashing ones). Each refusal and crash must give the message docs/plugins.md promises.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/tests/flashscope_command.h"
#include "cli/tests/test_plugin_path.h"
#include "common/tests/expect_has.h"

namespace flashscope {
namespace {

namespace fs = std::filesystem;

using testing::TestPlugin;

class CliPlugins : public testing::FlashscopeCommandTest {
 protected:
  std::string Suite(const std::string& kernels, const std::string& plugins = "") {
    const fs::path p = dir_ / "suite.json";
    std::ofstream(p) << R"({"name": "e2e", "kernels": [)" << kernels << "]"
                     << (plugins.empty() ? "" : R"(, "plugins": [)" + plugins + "]")
                     << R"(, "problems": [{"family": "attention_fwd", "axes": {"seq": [17, 64]}},
                           {"family": "gemm", "axes": {"size": 8, "dtype": "fp16"}}]})";
    return p.string();
  }
};

TEST_F(CliPlugins, ListShowsAPluginsKernelsWithProvenance) {
  Result r = Flashscope("list --plugin " + TestPlugin("good"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.out, "test-good");
  EXPECT_HAS(r.out, "version 1.2.3");
  EXPECT_HAS(r.out, "file " + TestPlugin("good"));
  EXPECT_HAS(r.out, "good.attn_v1");
  EXPECT_HAS(r.out, "[test-good]");
  EXPECT_HAS(r.out, "e.g. refused: head_dim 32 not supported: 64 and 128 only");
}

// A refused plugin is named, with why, at the end of the listing (after every kernel that could
// be listed), and the command fails; a file that is not there is refused before anything runs.
TEST_F(CliPlugins, RefusedPluginsSayWhichFileAndHowToFixIt) {
  Result r = Flashscope("list --plugin " + TestPlugin("no_entry"));
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, TestPlugin("no_entry") + " does not export flashscope_plugin_v1");
  EXPECT_HAS(r.err, "not everything could be listed: see the end of the listing");
  r = Flashscope("list --plugin " + TestPlugin("abi2"));
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "built for plugin ABI version 2, but this flashscope speaks ABI version 1");
  r = Flashscope("list --plugin " + TestPlugin("good") + " --plugin " + TestPlugin("dup"));
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "\"good.attn_v1\" is offered by both plugin " + TestPlugin("good") +
                        " and plugin " + TestPlugin("dup"));
  EXPECT_HAS(r.out, "good.attn_v1") << "the plugin that loaded is still listed";
  r = Flashscope("list --plugin " + TestPlugin("bad_family"));
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "family 7 is not a family");
  r = Flashscope("list --plugin /nonexistent/libx.so");
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.err, "/nonexistent/libx.so (--plugin): no such file");
  std::ofstream(dir_ / "libjunk.so") << "junk";
  r = Flashscope("list --plugin ./libjunk.so");
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.out, "libjunk.so cannot be loaded");
}

// A plugin that crashes the worker while loading is set aside and the listing made without it;
// the crash is named at the end. A crash in supports() ends the listing, pinned on the kernel.
TEST_F(CliPlugins, PluginsThatCrashAreNamed) {
  Result r = Flashscope("list --plugin " + TestPlugin("crash_load_segv") + " --plugin " +
                        TestPlugin("good"));
  EXPECT_EQ(r.code, 1);
  EXPECT_HAS(r.out, "plugin " + TestPlugin("crash_load_segv") +
                        " crashed while loading: signal 11 (Segmentation fault)");
  EXPECT_HAS(r.out, "good.attn_v1") << "the other plugin is still listed";
  EXPECT_LT(r.out.find("good.attn_v1"), r.out.find("crashed while loading"))
      << "the crash comes last, where it is not scrolled away";
  r = Flashscope("list --plugin " + TestPlugin("crash_load_abort"));
  EXPECT_EQ(r.code, 1);
  EXPECT_HAS(r.out, "crashed while loading: signal 6 (Aborted)");
  EXPECT_HAS(r.err, "a plugin crashed flashscope-worker");
  r = Flashscope("list --plugin " + TestPlugin("crash_supports"));
  EXPECT_EQ(r.code, 1);
  EXPECT_HAS(r.err, "signal 11 (Segmentation fault)) in supports() of crashy.attn_v1 (plugin " +
                        TestPlugin("crash_supports") + ")");
}

TEST_F(CliPlugins, DryRunPlansAPluginsCasesWithoutAGpu) {
  Result r =
      Flashscope("run " + Suite(R"("good.*")") + " --dry_run --plugin " + TestPlugin("good"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.out, "plan: 3 cases");
  EXPECT_HAS(r.out, "good.attn_v1 attention_fwd{B=1,H=1,S=17,D=64,fp16}  [test-good]");
  EXPECT_HAS(r.out, "good.gemm_v1 gemm{M=8,N=8,K=8,fp16}  [test-good]");
  EXPECT_HAS(r.out, "file " + TestPlugin("good"));
  EXPECT_HAS(r.out, "device: none usable");
  EXPECT_FALSE(fs::exists(dir_ / "reports")) << "a dry run writes nothing";
}

TEST_F(CliPlugins, SuitePluginsAreRelativeToTheSuiteAndBareNamesAreLookedUp) {
  fs::copy_file(TestPlugin("good"), dir_ / "libmine.so");
  Result r = Flashscope("run " + Suite(R"("good.*")", R"("./libmine.so")") + " --dry_run");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.out, "file " + fs::canonical(dir_ / "libmine.so").string());
  r = Flashscope("run " + Suite(R"("good.*")", R"("test_plugin_good")") + " --dry_run",
                 std::string("FLASHSCOPE_PLUGIN_PATH=") + FLASHSCOPE_TEST_PLUGIN_DIR);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.out, "file " + TestPlugin("good"));
  r = Flashscope("run " + Suite(R"("good.*")") + " --dry_run",
                 "FLASHSCOPE_PLUGINS=" + TestPlugin("good"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.out, "plan: 3 cases");
}

TEST_F(CliPlugins, DryRunPlansAroundAPluginThatCrashesWhileLoading) {
  Result r = Flashscope("run " + Suite(R"("other.*", "good.attn_v1")") + " --dry_run --plugin " +
                        TestPlugin("other") + " --plugin " + TestPlugin("crash_load_segv"));
  EXPECT_EQ(r.code, 1) << r.err;
  const std::string reason = "plugin " + TestPlugin("crash_load_segv") +
                             " crashed while loading: signal 11 (Segmentation fault)";
  EXPECT_HAS(r.err, reason);
  EXPECT_HAS(r.out, "other.attn_v1 attention_fwd{B=1,H=1,S=17,D=64,fp16}  [test-other]");
  EXPECT_HAS(r.out, "good.attn_v1 attention_fwd{B=1,H=1,S=17,D=64,fp16}  ERROR: " + reason);
  EXPECT_HAS(r.out, "good.attn_v1 gemm{M=8,N=8,K=8,fp16}  ERROR: " + reason);
}

TEST_F(CliPlugins, RunWithoutAGpuFailsCleanlyAndLeavesNoJournal) {
  Result r = Flashscope("run " + Suite(R"("good.*")") + " --plugin " + TestPlugin("good") +
                        " --out runs/x.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_HAS(r.err, "no usable GPU");
  EXPECT_FALSE(fs::exists(dir_ / "runs")) << "nothing written";
}

TEST_F(CliPlugins, MetricsComeFromTheWorker) {
  Result r = Flashscope("metrics --cc 90");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_HAS(r.out, "hardware metrics for sm_90");
  EXPECT_HAS(r.out, "tensor_pipe_pct");
}

}  // namespace
}  // namespace flashscope
