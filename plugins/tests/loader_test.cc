// The plugin host against small C plugins built in the tree, one defect each
// (tests/test_plugins/test_plugin.c): every refusal is a message that names the file and the fix,
// and a refused plugin adds nothing. Crashing plugins are tested end to end (cli/tests/), where
// the process that loads them is a worker the supervisor watches.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/tests/expect_has.h"
#include "plugins/plugin_set.h"
#include "plugins/sha256.h"
#include "plugins/validate.h"

namespace flashscope::plugins {
namespace {

std::string PluginPath(const std::string& variant) {
  return std::string(FLASHSCOPE_TEST_PLUGIN_DIR) + "/libtest_plugin_" + variant + ".so";
}

// The message of loading `variant` into a fresh set, which must fail and stay empty.
std::string Refusal(const std::string& variant) {
  PluginSet set;
  absl::Status s = set.Load(PluginPath(variant));
  EXPECT_FALSE(s.ok()) << variant << " was accepted";
  EXPECT_TRUE(set.kernels().empty()) << variant;
  EXPECT_TRUE(set.plugins().empty()) << variant;
  const std::string m(s.message());
  EXPECT_NE(m.find(PluginPath(variant)), std::string::npos) << "message must name the file: " << m;
  return m;
}

// fs_kernel gained `prepare` after version 1 shipped: a plugin built before declares the shorter
// struct_size and must still load (the field reads as zero).
TEST(PluginLoader, APluginBuiltBeforePrepareWasAppendedStillLoads) {
  PluginSet set;
  absl::Status s = set.Load(PluginPath("v1_struct_size"));
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(set.kernels().size(), 1u);
  EXPECT_NE(set.Find("good.attn_v1"), nullptr);
}

TEST(PluginLoader, PrepareIsCalledOnlyWhereThePluginHasIt) {
  PluginSet set;
  ASSERT_TRUE(set.Load(PluginPath("good")).ok());
  const Kernel* attn = set.Find("good.attn_v1");
  ASSERT_TRUE(attn->prepares());
  fs_problem p{};
  p.family = FS_FAMILY_ATTENTION_FWD;
  p.attention.head_dim = 128;
  std::string note = "stale";
  EXPECT_TRUE(attn->Prepare(p, fs_buffers{}, nullptr, &note).ok());
  EXPECT_EQ(note, "prepared for head_dim 128");
  const Kernel* gemm = set.Find("good.gemm_v1");
  EXPECT_FALSE(gemm->prepares());
  EXPECT_TRUE(gemm->Prepare(p, fs_buffers{}, nullptr, &note).ok());
  EXPECT_EQ(note, "") << "no prepare(): nothing said";
  // The v1 plugin's table holds the same Prepare, past the struct_size it declares: never read.
  PluginSet v1;
  ASSERT_TRUE(v1.Load(PluginPath("v1_struct_size")).ok());
  EXPECT_FALSE(v1.Find("good.attn_v1")->prepares());
}

TEST(PluginLoader, GoodPluginOffersItsKernelsWithProvenance) {
  PluginSet set;
  ASSERT_TRUE(set.Load(PluginPath("good")).ok());
  ASSERT_EQ(set.kernels().size(), 2u);
  const Kernel* attn = set.Find("good.attn_v1");
  ASSERT_NE(attn, nullptr);
  EXPECT_EQ(attn->info().family, Family::kAttentionFwd);
  EXPECT_EQ(attn->info().title, "Test attention kernel");
  EXPECT_EQ(attn->info().tile.block_m, 64);
  EXPECT_TRUE(attn->info().idempotent);
  const Kernel* gemm = set.Find("good.gemm_v1");
  ASSERT_NE(gemm, nullptr);
  EXPECT_FALSE(gemm->info().idempotent);
  EXPECT_EQ(gemm->info().exact_sm, 90);
  EXPECT_EQ(gemm->info().changed, "");

  const Provenance& p = attn->provenance();
  EXPECT_FALSE(p.builtin);
  EXPECT_EQ(p.plugin, "test-good");
  EXPECT_EQ(p.version, "1.2.3");
  EXPECT_EQ(p.path, std::filesystem::canonical(PluginPath("good")).string());
  EXPECT_EQ(p.sha256, *Sha256OfFile(PluginPath("good")));
  EXPECT_EQ(&gemm->provenance(), &p) << "one provenance per plugin";
}

TEST(PluginLoader, HostViewAsksThePluginAndChecksFamilyAndArchitectureItself) {
  PluginSet set;
  ASSERT_TRUE(set.Load(PluginPath("good")).ok());
  const Kernel* attn = set.Find("good.attn_v1");
  AttentionProblem a;
  a.head_dim = 64;
  EXPECT_EQ(attn->Supports(a), "");
  a.head_dim = 96;
  EXPECT_EQ(attn->Supports(a), "head_dim 96 not supported: 64 and 128 only");
  EXPECT_HAS(attn->Supports(Problem{GemmProblem{8, 8, 8, DType::kF16}}), "attention_fwd");
  const Kernel* gemm = set.Find("good.gemm_v1");
  const Problem g{GemmProblem{8, 8, 8, DType::kF16}};
  EXPECT_EQ(gemm->Supports(g, 90), "");
  EXPECT_HAS(gemm->Supports(g, 100), "sm_90a only");
  EXPECT_EQ(gemm->Supports(Problem{GemmProblem{8, 8, 8, DType::kF32}}), "fp16 only");
  const LaunchOutcome launch = gemm->Launch(fs_problem{}, fs_buffers{}, nullptr);
  EXPECT_EQ(launch.code, FS_LAUNCH_PLUGIN_ERROR);
  EXPECT_HAS(launch.plugin_error, "no last_error callback") << "gemm_v1 has no last_error";
  EXPECT_EQ(attn->Launch(fs_problem{}, fs_buffers{}, nullptr).plugin_error,
            "this test plugin has no GPU code");
  EXPECT_FALSE(attn->reports_device_functions());
  auto none = attn->DeviceFunctions(a);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

// The E4M3 questions a loaded test plugin's supports() has counted (fs_test_e4m3_questions).
int E4M3Questions(const std::string& variant) {
  void* handle = dlopen(PluginPath(variant).c_str(), RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(handle, nullptr) << variant << " is not loaded";
  if (handle == nullptr) return -1;
  const auto* count = static_cast<const int*>(dlsym(handle, "fs_test_e4m3_questions"));
  EXPECT_NE(count, nullptr);
  const int n = count != nullptr ? *count : -1;
  dlclose(handle);  // the reference dlopen added
  return n;
}

// E4M3 came after ABI 1: a kernel without FS_KERNEL_ACCEPTS_FP8 is never asked about it (its
// supports() is not called; the host answers with DTypeMismatch's reason), one with the flag is.
TEST(PluginLoader, E4M3IsOfferedOnlyToKernelsThatAcceptFp8) {
  PluginSet set;
  ASSERT_TRUE(set.Load(PluginPath("good")).ok());
  ASSERT_TRUE(set.Load(PluginPath("accepts_fp8")).ok());
  AttentionProblem a;
  a.head_dim = 64;
  a.dtype = DType::kE4M3;
  const Problem g{GemmProblem{64, 64, 64, DType::kE4M3}};
  const int before = E4M3Questions("good");
  for (const char* id : {"good.attn_v1", "good.gemm_v1"}) {
    const Kernel* k = set.Find(id);
    ASSERT_NE(k, nullptr) << id;
    EXPECT_FALSE(k->info().accepts_fp8) << id;
    const std::string why = k->Supports(k->info().family == Family::kGemm ? g : Problem{a}, 90);
    EXPECT_EQ(why, DTypeMismatch(k->info(), DType::kE4M3)) << id;
    EXPECT_HAS(why, "FS_KERNEL_ACCEPTS_FP8");
  }
  EXPECT_EQ(E4M3Questions("good"), before) << "supports() was asked about e4m3";
  const int fp8_before = E4M3Questions("accepts_fp8");
  for (const char* id : {"fp8.attn_v1", "fp8.gemm_v1"}) {
    const Kernel* k = set.Find(id);
    ASSERT_NE(k, nullptr) << id;
    EXPECT_TRUE(k->info().accepts_fp8) << id;
    EXPECT_EQ(k->Supports(k->info().family == Family::kGemm ? g : Problem{a}, 90), "") << id;
  }
  EXPECT_EQ(E4M3Questions("accepts_fp8"), fp8_before + 2) << "each supports() asked once";
  // The flag changes nothing for the other dtypes.
  a.dtype = DType::kBF16;
  EXPECT_EQ(set.Find("good.attn_v1")->Supports(a), "");
  EXPECT_EQ(set.Find("fp8.attn_v1")->Supports(a), "");
}

TEST(PluginLoader, SameFileTwiceLoadsOnceAndOtherIdsAddUp) {
  PluginSet set;
  ASSERT_TRUE(set.Load(PluginPath("good")).ok());
  ASSERT_TRUE(set.Load(PluginPath("good")).ok());
  const std::string via_dotdot =
      std::string(FLASHSCOPE_TEST_PLUGIN_DIR) + "/../test_plugins/libtest_plugin_good.so";
  ASSERT_TRUE(set.Load(via_dotdot).ok());
  EXPECT_EQ(set.kernels().size(), 2u);
  ASSERT_TRUE(set.Load(PluginPath("other")).ok());
  EXPECT_EQ(set.kernels().size(), 4u);
  EXPECT_EQ(set.plugins().size(), 2u);
  EXPECT_EQ(set.kernels()[2]->info().id.rfind("other.", 0), 0u) << "plugins in load order";
}

TEST(PluginLoader, DuplicateIdsNameBothFiles) {
  PluginSet set;
  ASSERT_TRUE(set.Load(PluginPath("good")).ok());
  absl::Status s = set.Load(PluginPath("dup"));
  ASSERT_FALSE(s.ok());
  const std::string m(s.message());
  EXPECT_HAS(m, "\"good.attn_v1\" is offered by both");
  EXPECT_HAS(m, std::filesystem::canonical(PluginPath("good")).string());
  EXPECT_HAS(m, std::filesystem::canonical(PluginPath("dup")).string());
  EXPECT_HAS(m, "rename one");
  EXPECT_EQ(set.kernels().size(), 2u) << "the refused plugin added nothing";
  EXPECT_EQ(set.plugins().size(), 1u);
}

TEST(PluginLoader, TheTwoAbSidesMayShareIdsEachOnce) {
  PluginSet set;
  ASSERT_TRUE(set.Load(PluginPath("good"), Side::kBase).ok());
  ASSERT_TRUE(set.Load(PluginPath("dup"), Side::kNew).ok());
  EXPECT_EQ(set.kernels().size(), 4u);
  const Kernel* base = set.Find("good.attn_v1", Side::kBase);
  const Kernel* next = set.Find("good.attn_v1", Side::kNew);
  ASSERT_NE(base, nullptr);
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(base->provenance().plugin, "test-good");
  EXPECT_EQ(next->provenance().plugin, "test-dup");
  EXPECT_EQ(next->provenance().side, Side::kNew);
  EXPECT_EQ(set.Find("good.attn_v1"), nullptr) << "no plugin outside the sides offers it";
  // A third build of the same kernels on a side that already has them is refused, naming both.
  const std::string copy = ::testing::TempDir() + "/libtest_plugin_good_copy.so";
  std::filesystem::copy_file(PluginPath("good"), copy,
                             std::filesystem::copy_options::overwrite_existing);
  absl::Status s = set.Load(copy, Side::kNew);
  ASSERT_FALSE(s.ok());
  EXPECT_HAS(s.message(), "is offered by both");
  EXPECT_HAS(s.message(), std::filesystem::canonical(PluginPath("dup")).string() + " (--new)");
  EXPECT_HAS(s.message(), std::filesystem::canonical(copy).string() + " (--new)");
  EXPECT_EQ(set.kernels().size(), 4u);
}

TEST(PluginLoader, OutsideTheAbSidesDuplicatesAreStillRefused) {
  {
    PluginSet set;  // a plugin that is no side clashes with a side
    ASSERT_TRUE(set.Load(PluginPath("good")).ok());
    absl::Status s = set.Load(PluginPath("dup"), Side::kBase);
    ASSERT_FALSE(s.ok());
    EXPECT_HAS(s.message(),
               "plugin " + std::filesystem::canonical(PluginPath("good")).string() + " and plugin");
    EXPECT_HAS(s.message(), "(--base)");
    EXPECT_HAS(s.message(), "except between the two sides of `flashscope ab`");
  }
  {
    PluginSet set;  // both on one side
    ASSERT_TRUE(set.Load(PluginPath("good"), Side::kBase).ok());
    EXPECT_FALSE(set.Load(PluginPath("dup"), Side::kBase).ok());
  }
  {
    PluginSet set;  // one file cannot be both sides: its kernels would be one and the same code
    ASSERT_TRUE(set.Load(PluginPath("good"), Side::kBase).ok());
    absl::Status s = set.Load(PluginPath("good"), Side::kNew);
    ASSERT_FALSE(s.ok());
    EXPECT_HAS(s.message(), "loaded twice, as base and as new");
    EXPECT_HAS(s.message(), "cp ");
  }
}

TEST(PluginLoader, MissingEntrySymbol) {
  const std::string m = Refusal("no_entry");
  EXPECT_HAS(m, "does not export flashscope_plugin_v1");
  EXPECT_HAS(m, "FLASHSCOPE_PLUGIN_EXPORT");
}

TEST(PluginLoader, WrongAbiVersionNamesBothNumbers) {
  const std::string m = Refusal("abi2");
  EXPECT_HAS(m, "ABI version 2");
  EXPECT_HAS(m, "speaks ABI version 1");
  EXPECT_HAS(m, "rebuild the plugin");
}

TEST(PluginLoader, BadFieldsAreNamed) {
  EXPECT_HAS(Refusal("bad_id"), "kernels[0]: id \"good.attn v1\" holds ' ' at position 9");
  EXPECT_HAS(Refusal("bad_family"), "family 7 is not a family");
  EXPECT_HAS(Refusal("bad_struct_size"), "kernels[0].struct_size is 12");
  EXPECT_HAS(Refusal("null_launch"), "launch is NULL");
  EXPECT_HAS(Refusal("sneaky_test_id"), "\"test.\" is reserved for kernels flagged");
}

TEST(PluginLoader, UnloadableAndMissingFiles) {
  const auto junk = std::filesystem::temp_directory_path() / "libflashscope_not_a_plugin.so";
  std::ofstream(junk) << "not an ELF file\n";
  PluginSet set;
  absl::Status s = set.Load(junk.string());
  ASSERT_FALSE(s.ok());
  EXPECT_HAS(s.message(), "cannot be loaded");
  EXPECT_HAS(s.message(), junk.string());
  EXPECT_HAS(s.message(), "ldd");
  std::filesystem::remove(junk);
  absl::Status missing = set.Load("/nonexistent/libnothing.so");
  ASSERT_FALSE(missing.ok());
  EXPECT_HAS(missing.message(), "/nonexistent/libnothing.so: no such file");
}

TEST(PluginLoader, IdRules) {
  EXPECT_EQ(BadIdReason("my.attn_v2-b"), "");
  EXPECT_HAS(BadIdReason(""), "empty");
  EXPECT_HAS(BadIdReason(nullptr), "NULL");
  EXPECT_HAS(BadIdReason("a/b"), "'/'");
  EXPECT_HAS(BadIdReason("a\x1b[2J"), "0x1b");
  EXPECT_HAS(BadIdReason(std::string(129, 'a').c_str()), "longer than 128");
}

}  // namespace
}  // namespace flashscope::plugins
