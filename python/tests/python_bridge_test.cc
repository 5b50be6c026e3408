// libflashscope_python.so on the CPU: a module's kernels become a plugin table; flashscope's
// buffers reach the kernel as tensors over the same pointers, with the problem's shapes and dtypes,
// on the given stream; a Python exception is the launch's plugin error with its traceback;
// supports() reasons; bad modules are refused with the reason. The stand-in torch (fake_torch/)
// records what a real one would wrap.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "python/tests/bridge_test_util.h"

namespace flashscope::python_bridge::testing {
namespace {

using ::testing::HasSubstr;

const fs_plugin* Recorder() {
  static const fs_plugin* plugin = [] {
    std::string error;
    const fs_plugin* p = LoadModule("recorder.py", &error);
    EXPECT_NE(p, nullptr) << error;
    return p;
  }();
  return plugin;
}

const fs_kernel& Kernel(const std::string& id) {
  const fs_kernel* k = FindKernel(Recorder(), id);
  EXPECT_NE(k, nullptr) << id;
  static fs_kernel none{};
  return k != nullptr ? *k : none;
}

int32_t LaunchOnce(const fs_kernel& k, const fs_problem& p) {
  const fs_buffers b = FakeBuffers(p);
  return k.launch(k.user, &p, &b, kStream);
}

void ExpectTensor(const nlohmann::json& t, uintptr_t ptr, const std::vector<int64_t>& shape,
                  const std::string& dtype) {
  ASSERT_TRUE(t.is_object()) << t;
  EXPECT_EQ(t["ptr"].get<uint64_t>(), ptr);
  EXPECT_EQ(t["shape"].get<std::vector<int64_t>>(), shape);
  EXPECT_EQ(t["dtype"], dtype);
  std::vector<int64_t> strides(shape.size());
  int64_t step = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = step;
    step *= shape[i];
  }
  EXPECT_EQ(t["strides"].get<std::vector<int64_t>>(), strides) << "row-major, contiguous";
}

TEST(PythonBridge, DescribesTheModulesKernels) {
  const fs_plugin* p = Recorder();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->abi_version, FLASHSCOPE_ABI_VERSION);
  EXPECT_EQ(p->struct_size, sizeof(fs_plugin));
  EXPECT_STREQ(p->name, "recorder");
  EXPECT_THAT(p->version, HasSubstr("recorder-1 (python 3."));
  EXPECT_THAT(p->version, HasSubstr("torch 0.0-fake"));
  EXPECT_EQ(p->kernel_count, 8);
  const fs_kernel& v1 = Kernel("pytest.attn_v1");
  EXPECT_EQ(v1.struct_size, sizeof(fs_kernel));
  EXPECT_EQ(v1.family, FS_FAMILY_ATTENTION_FWD);
  EXPECT_STREQ(v1.title, "records its arguments");
  EXPECT_STREQ(v1.changed, "the first revision");
  EXPECT_EQ(v1.revision, 3);
  EXPECT_EQ(v1.min_sm, 80);
  EXPECT_EQ(v1.exact_sm, 0);
  EXPECT_EQ(v1.flags, 0u);
  EXPECT_EQ(v1.tile.block_m, 128);
  EXPECT_EQ(v1.tile.block_n, 64);
  EXPECT_EQ(v1.tile.block_k, 1);
  EXPECT_EQ(v1.tile.threads, 128);
  EXPECT_TRUE(v1.supports && v1.launch && v1.last_error && v1.prepare);
  EXPECT_EQ(v1.device_functions, nullptr) << "Python kernels report no CUfunctions";
  const fs_kernel& peer = Kernel("pytest.attn_peer");
  EXPECT_EQ(peer.flags, unsigned{FS_KERNEL_PEER | FS_KERNEL_NOT_IDEMPOTENT});
  EXPECT_EQ(peer.exact_sm, 90);
  EXPECT_EQ(peer.revision, 1000);
  EXPECT_EQ(Kernel("pytest.attn_fp8").flags, unsigned{FS_KERNEL_ACCEPTS_FP8})
      << "accepts_fp8=True declares FS_KERNEL_ACCEPTS_FP8";
  EXPECT_EQ(Kernel("pytest.gemm_v1").family, FS_FAMILY_GEMM);
  EXPECT_STREQ(Kernel("pytest.gemm_v1").changed, "");
}

TEST(PythonBridge, WrapsAttentionBuffersWithoutCopyOnTheGivenStream) {
  const fs_kernel& k = Kernel("pytest.attn_v1");
  TakeRecords();
  const fs_problem p = Attention(2, 3, 5, 7, 64, FS_DTYPE_BF16, true, true);
  ASSERT_EQ(LaunchOnce(k, p), 0) << k.last_error(k.user);
  // The first launch of a problem prepares it (a call, then a second, timed on the host), then
  // launches: three calls with the same arguments.
  std::vector<nlohmann::json> calls = TakeRecords();
  ASSERT_EQ(calls.size(), 3u);
  for (const nlohmann::json& c : calls) {
    EXPECT_EQ(c["kernel"], "pytest.attn_v1");
    EXPECT_EQ(c["stream"].get<uint64_t>(), 0x5eedu) << "the kernel runs on flashscope's stream";
    EXPECT_DOUBLE_EQ(c["scale"].get<double>(), 0.125);
    EXPECT_EQ(c["causal"], true);
    const auto& t = c["tensors"];
    ExpectTensor(t[0], kQ, {2, 3, 5, 64}, "torch.bfloat16");
    ExpectTensor(t[1], kK, {2, 3, 7, 64}, "torch.bfloat16");
    ExpectTensor(t[2], kV, {2, 3, 7, 64}, "torch.bfloat16");
    ExpectTensor(t[3], kO, {2, 3, 5, 64}, "torch.bfloat16");
    ExpectTensor(t[4], kLse, {2, 3, 5}, "torch.float32");
  }
  ASSERT_EQ(LaunchOnce(k, p), 0);
  EXPECT_EQ(TakeRecords().size(), 1u) << "later launches call the kernel once";
}

TEST(PythonBridge, Fp16WithoutLseGetsNone) {
  const fs_kernel& k = Kernel("pytest.attn_peer");
  TakeRecords();
  ASSERT_EQ(LaunchOnce(k, Attention(1, 2, 16, 16, 128, FS_DTYPE_F16, false, false)), 0)
      << k.last_error(k.user);
  std::vector<nlohmann::json> calls = TakeRecords();
  ASSERT_FALSE(calls.empty());
  const nlohmann::json& c = calls.back();
  ExpectTensor(c["tensors"][0], kQ, {1, 2, 16, 128}, "torch.float16");
  EXPECT_TRUE(c["tensors"][4].is_null()) << "lse is None unless the problem wants it";
  EXPECT_EQ(c["causal"], false);
}

// E4M3: q, k, v are torch.float8_e4m3fn over the same bytes (a uint8 view, no copy); O is bf16.
TEST(PythonBridge, E4M3AttentionGetsFp8InputsAndABf16Output) {
  const fs_kernel& k = Kernel("pytest.attn_fp8");
  TakeRecords();
  ASSERT_EQ(LaunchOnce(k, Attention(1, 2, 16, 32, 64, FS_DTYPE_E4M3, false, true)), 0)
      << k.last_error(k.user);
  std::vector<nlohmann::json> calls = TakeRecords();
  ASSERT_FALSE(calls.empty());
  const nlohmann::json& t = calls.back()["tensors"];
  ExpectTensor(t[0], kQ, {1, 2, 16, 64}, "torch.float8_e4m3fn");
  ExpectTensor(t[1], kK, {1, 2, 32, 64}, "torch.float8_e4m3fn");
  ExpectTensor(t[2], kV, {1, 2, 32, 64}, "torch.float8_e4m3fn");
  ExpectTensor(t[3], kO, {1, 2, 16, 64}, "torch.bfloat16");
  ExpectTensor(t[4], kLse, {1, 2, 16}, "torch.float32");
}

TEST(PythonBridge, E4M3GemmGetsFp8InputsAndAnFp32Output) {
  const fs_kernel& k = Kernel("pytest.gemm_v1");
  TakeRecords();
  ASSERT_EQ(LaunchOnce(k, Gemm(64, 32, 48, FS_DTYPE_E4M3)), 0) << k.last_error(k.user);
  std::vector<nlohmann::json> calls = TakeRecords();
  ASSERT_FALSE(calls.empty());
  const nlohmann::json& t = calls.back()["tensors"];
  ExpectTensor(t[0], kA, {64, 48}, "torch.float8_e4m3fn");
  ExpectTensor(t[1], kB, {48, 32}, "torch.float8_e4m3fn");
  ExpectTensor(t[2], kC, {64, 32}, "torch.float32");
}

TEST(PythonBridge, WrapsGemmBuffers) {
  const fs_kernel& k = Kernel("pytest.gemm_v1");
  TakeRecords();
  ASSERT_EQ(LaunchOnce(k, Gemm(96, 40, 24, FS_DTYPE_F16)), 0) << k.last_error(k.user);
  std::vector<nlohmann::json> calls = TakeRecords();
  ASSERT_FALSE(calls.empty());
  const nlohmann::json& t = calls.back()["tensors"];
  ExpectTensor(t[0], kA, {96, 24}, "torch.float16");
  ExpectTensor(t[1], kB, {24, 40}, "torch.float16");
  ExpectTensor(t[2], kC, {96, 40}, "torch.float32");
}

TEST(PythonBridge, PrepareRunsTheModulesPrepareAndSaysWhatItDid) {
  const fs_kernel& k = Kernel("pytest.own_prepare");
  TakeRecords();
  const fs_problem p = Attention(1, 1, 8, 8, 64, FS_DTYPE_F16, false, false);
  const fs_buffers b = FakeBuffers(p);
  const char* note = nullptr;
  ASSERT_EQ(k.prepare(k.user, &p, &b, kStream, &note), 0) << k.last_error(k.user);
  ASSERT_NE(note, nullptr);
  EXPECT_THAT(note, HasSubstr("prepare() "));
  EXPECT_THAT(note, HasSubstr("ms a synchronised call"));
  std::vector<nlohmann::json> calls = TakeRecords();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]["kernel"], "pytest.prepared");
  EXPECT_EQ(calls[0]["key"], "attention_fwd{B=1,H=1,S=8,D=64,fp16}");
  EXPECT_EQ(calls[1]["kernel"], "pytest.own_prepare");
  ASSERT_EQ(LaunchOnce(k, p), 0);
  EXPECT_EQ(TakeRecords().size(), 1u) << "a prepared problem is not prepared again at launch";
}

TEST(PythonBridge, AnExceptionIsAPluginErrorWithItsTraceback) {
  const fs_kernel& k = Kernel("pytest.raises");
  EXPECT_EQ(LaunchOnce(k, Attention(1, 1, 8, 8, 64, FS_DTYPE_F16, false, false)),
            FS_LAUNCH_PLUGIN_ERROR);
  const std::string error = k.last_error(k.user);
  EXPECT_THAT(error, HasSubstr("pytest.raises raised"));
  EXPECT_THAT(error, HasSubstr("Traceback (most recent call last)"));
  EXPECT_THAT(error, HasSubstr("recorder.py\", line"));
  EXPECT_THAT(error, HasSubstr("in fails_here"));
  EXPECT_THAT(error, HasSubstr("ValueError: boom from the kernel"));
  // The next call works again: the error was taken, not left pending.
  const fs_kernel& fine = Kernel("pytest.attn_v1");
  EXPECT_EQ(LaunchOnce(fine, Attention(1, 1, 8, 8, 64, FS_DTYPE_F16, false, false)), 0);
}

TEST(PythonBridge, SupportsSaysWhy) {
  const fs_kernel& v1 = Kernel("pytest.attn_v1");
  const fs_problem d128 = Attention(1, 1, 8, 8, 128, FS_DTYPE_F16, false, false);
  const fs_problem d64 = Attention(1, 1, 8, 8, 64, FS_DTYPE_F16, false, false);
  EXPECT_STREQ(v1.supports(v1.user, &d128), "head_dim 128 not supported: 64 only");
  EXPECT_STREQ(v1.supports(v1.user, &d64), "");
  const fs_kernel& no_check = Kernel("pytest.attn_peer");
  EXPECT_STREQ(no_check.supports(no_check.user, &d128), "") << "no supports(): everything";
  const fs_kernel& raises = Kernel("pytest.supports_raises");
  const std::string raised = raises.supports(raises.user, &d64);
  EXPECT_THAT(raised, HasSubstr("supports() raised"));
  EXPECT_THAT(raised, HasSubstr("AttributeError"));
  EXPECT_THAT(raised, HasSubstr("no_such_field"));
  const fs_kernel& says_42 = Kernel("pytest.supports_int");
  const std::string wrong_type = says_42.supports(says_42.user, &d64);
  EXPECT_THAT(wrong_type, HasSubstr("TypeError"));
  EXPECT_THAT(wrong_type, HasSubstr("must return None or a reason (a string), returned 42"));
}

TEST(PythonBridge, TwoModulesWithTheSameIdsAreTwoPlugins) {
  std::string error;
  const fs_plugin* twin = LoadModule("twin.py", &error);
  ASSERT_NE(twin, nullptr) << error;
  ASSERT_EQ(twin->kernel_count, 1) << "the kernels of a module it imports are not its own";
  EXPECT_STREQ(twin->name, "twin");
  const fs_kernel* mine = FindKernel(Recorder(), "pytest.attn_v1");
  const fs_kernel* theirs = FindKernel(twin, "pytest.attn_v1");
  ASSERT_TRUE(mine && theirs);
  EXPECT_EQ(theirs->revision, 4);
  const fs_problem p = Attention(1, 1, 4, 4, 64, FS_DTYPE_F16, false, false);
  TakeRecords();
  ASSERT_EQ(LaunchOnce(*theirs, p), 0) << theirs->last_error(theirs->user);
  ASSERT_EQ(LaunchOnce(*mine, p), 0);
  std::vector<nlohmann::json> calls = TakeRecords();
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.front()["side"], "twin");
  EXPECT_EQ(calls.back()["side"], "recorder");
}

struct BadModule {
  const char* file;
  std::vector<std::string> says;
};

TEST(PythonBridge, BadModulesAreRefusedWithTheReason) {
  const std::vector<BadModule> cases = {
      {"syntax_error.py", {"syntax_error.py\", line 5", "SyntaxError"}},
      {"no_kernels.py", {"declares no kernels", "@flashscope.kernel(id=..."}},
      {"bad_id.py", {"kernel 'bad id' (", "bad_id.py:4", "must be 1..128 letters"}},
      {"bad_family.py", {"family 'attention_bwd' is not a family (attention_fwd or gemm)"}},
      {"bad_signature.py",
       {"is called as fn(q, k, v, out, lse, scale, causal)", "too many positional arguments"}},
      {"duplicate_id.py", {"id 'bad.twice' is declared twice"}},
      {"sneaky_test_id.py", {"the prefix \"test.\" is for test_only=True kernels"}},
      {"import_error.py",
       {"import_error.py\", line 2", "ModuleNotFoundError", "no_such_package_for_flashscope_tests",
        "set FLASHSCOPE_PYTHON to the python3 that has this package"}},
      {"raises_at_import.py",
       {"raises_at_import.py\", line 3", "RuntimeError: this module refuses to load"}},
      {"does_not_exist.py", {"does_not_exist.py: not a Python file"}},
  };
  for (const BadModule& c : cases) {
    std::string error;
    EXPECT_EQ(LoadModule(c.file, &error), nullptr) << c.file;
    EXPECT_THAT(
        error, HasSubstr(std::string("Python module ") + ModulePath(c.file) + " cannot be loaded:"))
        << c.file;
    for (const std::string& s : c.says) EXPECT_THAT(error, HasSubstr(s)) << c.file;
  }
  EXPECT_NE(Recorder(), nullptr) << "a refused module leaves the loaded ones alone";
}

TEST(PythonBridge, RefusesAnotherAbiVersion) {
  ASSERT_NE(Recorder(), nullptr);
  const char* why = nullptr;
  EXPECT_EQ(BridgeEntry()(FLASHSCOPE_ABI_VERSION + 1, ModulePath("recorder.py").c_str(), &why),
            nullptr);
  ASSERT_NE(why, nullptr);
  EXPECT_THAT(why, HasSubstr("speaks plugin ABI version 1, flashscope 2"));
}

}  // namespace
}  // namespace flashscope::python_bridge::testing
