// Our own kernels reach the runner by the path a user's plugin takes: the KernelEntry -> fs_kernel
// adapter (kernels/abi_adapter.h), the plugin host's validation, and its C++ view. Everything the
// registry says must come out of the host unchanged. No CUDA call is needed (CI has no GPU).
#include <gtest/gtest.h>

#include "kernels/abi_adapter.h"
#include "kernels/registry.h"
#include "plugins/plugin_set.h"
#include "runner/kernel_listing.h"
#include "runner/planner.h"
#include "suites/suite.h"

namespace flashscope::runner {
namespace {

std::vector<Problem> Probes() {
  std::vector<Problem> out;
  for (int64_t d : {32, 64, 96, 128}) {
    for (DType t : {DType::kF16, DType::kBF16, DType::kF32}) {
      for (bool causal : {false, true}) {
        AttentionProblem a;
        a.batch = 2, a.heads = 3, a.seq_q = 17, a.seq_k = 1000, a.head_dim = d, a.dtype = t;
        a.causal = causal, a.want_lse = causal;
        out.push_back(a);
      }
    }
  }
  for (DType t : {DType::kF16, DType::kBF16, DType::kF32}) {
    out.push_back(GemmProblem{1000, 17, 333, t});
    out.push_back(GemmProblem{128, 128, 128, t});
  }
  return out;
}

TEST(BuiltinPlugin, EveryEntryComesThroughTheHostUnchanged) {
  plugins::PluginSet set;
  ASSERT_TRUE(set.AddLinked(&flashscope_builtin_plugin_v1).ok());
  const auto& entries = kernels::AllKernels();
  ASSERT_EQ(set.kernels().size(), entries.size());
  ASSERT_EQ(set.plugins().size(), 1u);
  EXPECT_TRUE(set.plugins()[0].builtin);
  EXPECT_EQ(set.plugins()[0].plugin, "built-in");
  EXPECT_FALSE(set.plugins()[0].version.empty()) << "flashscope's revision";
  for (const kernels::KernelEntry& e : entries) {
    const plugins::Kernel* k = set.Find(e.info.id);
    ASSERT_NE(k, nullptr) << e.info.id;
    const KernelInfo& i = k->info();
    EXPECT_EQ(i.family, e.info.family) << e.info.id;
    EXPECT_EQ(i.revision, e.info.revision) << e.info.id;
    EXPECT_EQ(i.title, e.info.title) << e.info.id;
    EXPECT_EQ(i.changed, e.info.changed) << e.info.id;
    EXPECT_EQ(i.min_sm, e.info.min_sm) << e.info.id;
    EXPECT_EQ(i.exact_sm, e.info.exact_sm) << e.info.id;
    EXPECT_EQ(i.tile.block_m, e.info.tile.block_m) << e.info.id;
    EXPECT_EQ(i.tile.threads, e.info.tile.threads) << e.info.id;
    EXPECT_EQ(i.is_peer, e.info.is_peer) << e.info.id;
    EXPECT_EQ(i.idempotent, e.info.idempotent) << e.info.id;
    EXPECT_FALSE(i.test_only) << e.info.id;
    for (const Problem& p : Probes()) {
      for (int sm : {0, 80, 90, 100}) {
        EXPECT_EQ(k->Supports(p, sm), e.Supports(p, sm)) << e.info.id << " " << ProblemKey(p);
      }
      if (!e.Supports(p).empty()) continue;
      auto host = k->DeviceFunctions(p);
      ASSERT_TRUE(host.ok()) << host.status();
      const auto ours = e.device_functions(p);
      ASSERT_EQ(host->size(), ours.size()) << e.info.id;
      for (size_t f = 0; f < ours.size(); ++f) {
        EXPECT_EQ((*host)[f].name, ours[f].name);
        EXPECT_EQ((*host)[f].block_threads, ours[f].block_threads);
        EXPECT_EQ((*host)[f].dynamic_smem_bytes, ours[f].dynamic_smem_bytes);
      }
    }
  }
  // Ladder order survives: the host sorts a plugin's kernels the way the registry does.
  for (size_t i = 0; i < entries.size(); ++i)
    EXPECT_EQ(set.kernels()[i]->info().id, entries[i].info.id);
}

TEST(BuiltinPlugin, TestKernelsAreAPluginFile) {
  plugins::PluginSet set;
  const std::string path = std::string(FLASHSCOPE_PLUGIN_BUILD_DIR) + "/libfs_test_kernels.so";
  absl::Status s = set.Load(path);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(set.plugins()[0].plugin, "flashscope-test-kernels");
  std::vector<std::string> ids;
  for (const plugins::Kernel* k : set.kernels()) {
    ids.push_back(k->info().id);
    EXPECT_TRUE(k->info().test_only) << k->info().id;
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"test.oob_write",
                                           "test.infinite_loop",
                                           "test.nan_output",
                                           "test.half_output",
                                           "test.a10_slow3",
                                           "test.a10_slow5",
                                           "test.a10_slow10",
                                           "test.cheat_cache_output",
                                           "test.cheat_cache_inputs",
                                           "test.cheat_when_poisoned",
                                           "test.cheat_first_full",
                                           "test.cheat_side_stream",
                                           "test.cheat_side_stream_async",
                                           "test.honest_after_side_stream_async",
                                           "test.cheat_fp16_accum",
                                           "test.cheat_host_copy",
                                           "test.cheat_content_cache",
                                           "test.honest_after_content_cache",
                                           "test.cheat_pointer_cache",
                                           "test.cheat_sequence",
                                           "test.cheat_deferred",
                                           "test.honest_after_deferred",
                                           "test.cheat_host_thread",
                                           "test.honest_after_host_thread",
                                           "test.cheat_l2_persist",
                                           "test.honest_after_l2_persist",
                                           "test.cheat_write_inputs",
                                           "test.honest_after_write_inputs",
                                           "test.cheat_write_reference",
                                           "test.honest_after_write_reference",
                                           "test.cheat_oob_write",
                                           "test.honest_after_oob_write",
                                           "test.cheat_partial_fp16",
                                           "test.cheat_tiny_zero"}));
  EXPECT_FALSE(set.Find("test.oob_write")->info().idempotent);
  // It can sit beside the built-in kernels: no id is offered twice.
  EXPECT_TRUE(set.AddLinked(&flashscope_builtin_plugin_v1).ok());
}

// `flashscope list` asks every dtype of the ABI: the bf16 GEMM rungs say bf16 (issue 25: g06 was
// listed as fp16-only, having never been asked about bf16).
TEST(BuiltinPlugin, TheListingAsksAboutEveryDtype) {
  plugins::PluginSet set;
  ASSERT_TRUE(set.AddLinked(&flashscope_builtin_plugin_v1).ok());
  for (const char* id : {"gemm.g04_mma", "gemm.g06_tma_ws"}) {
    ASSERT_NE(set.Find(id), nullptr) << id;
    const bool bf16 = set.Find(id)->Supports(GemmProblem{1000, 17, 333, DType::kBF16}).empty();
    const Listing listing = ListKernels(set, {false, id, false, -1});
    const size_t line = listing.text.find("supports: ");
    ASSERT_NE(line, std::string::npos) << listing.text;
    const std::string supports = listing.text.substr(line, listing.text.find('\n', line) - line);
    EXPECT_EQ(supports.find("bf16") != std::string::npos, bf16) << id << ": " << supports;
    if (std::string(id) == "gemm.g06_tma_ws") EXPECT_TRUE(bf16) << "g06 runs bf16 (README)";
    // E4M3 is listed only for kernels that set FS_KERNEL_ACCEPTS_FP8 (never asked otherwise).
    if (!set.Find(id)->info().accepts_fp8) {
      EXPECT_EQ(supports.find("e4m3"), std::string::npos) << id << ": " << supports;
      EXPECT_EQ(listing.text.find("FS_KERNEL_ACCEPTS_FP8"), std::string::npos)
          << "the listing does not print the refusal of a dtype it never offers: " << listing.text;
    }
    EXPECT_TRUE(listing.unmatched.empty());
  }
}

// An FP8-only rung's lengths are probed in E4M3, the dtype it takes: asked in fp16 it refused
// every length and the listing said "S tried 1,17,2047,16384: " with nothing after it.
TEST(BuiltinPlugin, TheListingProbesLengthsInADtypeTheKernelTakes) {
  plugins::PluginSet set;
  ASSERT_TRUE(set.AddLinked(&flashscope_builtin_plugin_v1).ok());
  const Listing listing = ListKernels(set, {false, "attn.a27_fp8", false, -1});
  const size_t line = listing.text.find("supports: ");
  ASSERT_NE(line, std::string::npos) << listing.text;
  const std::string supports = listing.text.substr(line, listing.text.find('\n', line) - line);
  EXPECT_EQ(supports,
            "supports: D 64,128,256; e4m3; S tried 1,17,2047,16384: all; Sq!=Sk "
            "causal+lse ok");
}

// The demo plugin is a plugin file of its own, not the test plugin: its planted-bug kernels are
// ordinary kernels (no test-only flag), since users run them through the installed demo suite.
TEST(BuiltinPlugin, DemoKernelsAreAPluginFileOfTheirOwn) {
  plugins::PluginSet set;
  const std::string path =
      std::string(FLASHSCOPE_PLUGIN_BUILD_DIR) + "/libflashscope_demo_kernels.so";
  absl::Status s = set.Load(path);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(set.plugins()[0].plugin, "flashscope-demo-kernels");
  std::vector<std::string> ids;
  for (const plugins::Kernel* k : set.kernels()) {
    ids.push_back(k->info().id);
    EXPECT_FALSE(k->info().test_only) << k->info().id;
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"demo.bug_grid_floor", "demo.bug_key_tile_floor",
                                           "demo.bug_causal_diagonal", "demo.bug_stale_rescale",
                                           "demo.bug_ldmatrix_trans", "demo.bug_fp16_accumulate"}));
  // It sits beside the built-in kernels and the test plugin: no id is offered twice.
  EXPECT_TRUE(set.AddLinked(&flashscope_builtin_plugin_v1).ok());
  EXPECT_TRUE(set.Load(std::string(FLASHSCOPE_PLUGIN_BUILD_DIR) + "/libfs_test_kernels.so").ok());
}

// The demo suite (suites/demo.json, docs/heatmaps.md) plans a10 and its six bug variants from the
// demo plugin on both problems, and every case can run on an H100/H200 except fp16 accumulation
// on the bf16 problem, which says why.
TEST(BuiltinPlugin, DemoSuitePlansA10BesideItsBugVariants) {
  plugins::PluginSet set;
  ASSERT_TRUE(set.AddLinked(&flashscope_builtin_plugin_v1).ok());
  ASSERT_TRUE(
      set.Load(std::string(FLASHSCOPE_PLUGIN_BUILD_DIR) + "/libflashscope_demo_kernels.so").ok());
  auto suite = suites::LoadSuiteFile(std::string(FLASHSCOPE_TEST_SOURCE_DIR) + "/suites/demo.json");
  ASSERT_TRUE(suite.ok()) << suite.status();
  EXPECT_EQ(suite->plugins, std::vector<std::string>{"flashscope_demo_kernels"});
  auto plan = MakePlan({&*suite, "sha", &set, "", "", {}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->cases.size(), 14u);
  int bugs = 0;
  for (const auto& c : plan->cases) {
    const plugins::Kernel* k = set.Find(c.kernel_id);
    ASSERT_NE(k, nullptr) << c.key;
    const bool a10 = c.kernel_id == "attn.a10_fa2";
    EXPECT_TRUE(a10 || c.kernel_id.rfind("demo.bug_", 0) == 0) << c.key;
    EXPECT_FALSE(k->info().test_only) << c.key;
    bugs += !a10;
    const std::string why = k->Supports(c.problem, /*device_sm=*/90);
    if (c.kernel_id == "demo.bug_fp16_accumulate" &&
        std::get<AttentionProblem>(c.problem).dtype == DType::kBF16) {
      EXPECT_NE(why.find("fp16 only"), std::string::npos) << why;
    } else {
      EXPECT_EQ(why, "") << c.key;
    }
  }
  EXPECT_EQ(bugs, 12);
}

}  // namespace
}  // namespace flashscope::runner
