// Python modules through the real flashscope and flashscope-worker, on the CPU (the stand-in torch
// of fake_torch/): `list --plugin MODULE.py` shows a module's kernels with their provenance, a
// suite's "plugins" finds the shipped torch_sdpa.py by its bare name and plans its cases, and a
// module that cannot be imported refuses the run (exit 2) with the reason and the fix.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/tests/flashscope_command.h"

namespace flashscope {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

using Result = testing::CommandResult;

const std::string kModules = FLASHSCOPE_TEST_SOURCE_DIR "/python/tests/modules/";

class PythonCli : public testing::FlashscopeCommandTest {
 protected:
  // `flashscope ARGS` with the stand-in torch, the configured Python and the bridge of this build.
  Result Flashscope(const std::string& args, const std::string& env = "") {
    return FlashscopeCommandTest::Flashscope(
        args, "-u FLASHSCOPE_PYTHON_BRIDGE PYTHONPATH='" FLASHSCOPE_TEST_SOURCE_DIR
              "/python/tests/fake_torch' FLASHSCOPE_PYTHON='" FLASHSCOPE_TEST_PYTHON "' " +
                  env);
  }
};

TEST_F(PythonCli, ListShowsAModulesKernelsAndWhereTheyComeFrom) {
  const Result r = Flashscope("list --plugin " + kModules + "recorder.py");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("pytest.attn_v1"));
  EXPECT_THAT(r.out, HasSubstr("pytest.gemm_v1"));
  EXPECT_THAT(r.out, HasSubstr("head_dim 32 not supported: 64 only"));
  EXPECT_THAT(r.out, HasSubstr("version recorder-1 (python 3."));
  EXPECT_THAT(r.out, HasSubstr("file " + fs::canonical(kModules + "recorder.py").string()));
  EXPECT_THAT(r.out, HasSubstr("sha256 "));
  // The module's print() and the bridge's costs go to standard error, never into the answer.
  EXPECT_THAT(r.out, Not(HasSubstr("prints this")));
  EXPECT_THAT(r.err, HasSubstr("recorder.py prints this while it is imported"));
  EXPECT_THAT(r.err, HasSubstr("flashscope-python: Python 3."));
  EXPECT_THAT(r.err, HasSubstr("interpreter started in"));
}

TEST_F(PythonCli, ASuiteFindsTheShippedSdpaPeersByNameAndPlansThem) {
  std::ofstream(dir_ / "suite.json") << R"({"name": "py", "plugins": ["torch_sdpa.py"],
    "kernels": ["torch.*"], "problems": [{"family": "attention_fwd",
    "axes": {"dtype": ["bf16", "e4m3"], "head_dim": 64, "batch": 1, "heads": 2, "seq": 128}}]})";
  const Result r = Flashscope("run suite.json --dry_run");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("plan: 10 cases"));
  // bf16 runs on the three backends, e4m3 on the two upcast peers (accepts_fp8); each refuses the
  // other's dtype with its reason (the bf16 peers are never asked about e4m3).
  EXPECT_THAT(r.out, HasSubstr("5 of 10 cases will be skipped"));
  for (const char* id : {"torch.sdpa_flash", "torch.sdpa_cudnn", "torch.sdpa_efficient"}) {
    EXPECT_THAT(r.out, HasSubstr(std::string(id) + " attention_fwd{B=1,H=2,S=128,D=64,bf16}  ["));
  }
  for (const char* id : {"torch.sdpa_flash_e4m3_upcast", "torch.sdpa_cudnn_e4m3_upcast"}) {
    EXPECT_THAT(r.out, HasSubstr(std::string(id) + " attention_fwd{B=1,H=2,S=128,D=64,e4m3}  ["));
    EXPECT_THAT(r.out, Not(HasSubstr(std::string(id) + " attention_fwd{B=1,H=2,S=128,D=64,e4m3}  "
                                                       "[torch_sdpa]  SKIP")));
  }
  EXPECT_THAT(r.out, HasSubstr("dtype e4m3 not offered: the kernel does not set "
                               "FS_KERNEL_ACCEPTS_FP8"));
  EXPECT_THAT(r.out, HasSubstr("/lib/flashscope/plugins/torch_sdpa.py"));
}

// A run needs the module's kernels: one that cannot be imported refuses it (exit 2), saying why
// on lines of their own (a traceback keeps its line breaks).
TEST_F(PythonCli, AModuleThatCannotBeImportedRefusesTheRun) {
  std::ofstream(dir_ / "needs_triton.py") << "import triton  # not on the CI machine\n";
  std::ofstream(dir_ / "s.json") << R"({"name": "py", "plugins": ["./needs_triton.py"],
    "kernels": ["x.*"], "problems": [{"family": "gemm", "axes": {"size": 64}}]})";
  const Result r = Flashscope("run s.json --dry_run");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("needs_triton.py cannot be loaded: ModuleNotFoundError: No module "
                               "named 'triton' (set FLASHSCOPE_PYTHON to the python3 that has "
                               "this package"));
  std::ofstream(dir_ / "syntax.json")
      << R"({"name": "py", "plugins": [")" << kModules << R"(syntax_error.py"], "kernels": ["x.*"],
    "problems": [{"family": "gemm", "axes": {"size": 64}}]})";
  const Result syntax = Flashscope("run syntax.json --dry_run");
  EXPECT_EQ(syntax.code, 2);
  EXPECT_THAT(syntax.err, HasSubstr("SyntaxError"));
  EXPECT_THAT(syntax.err, HasSubstr("\n  File \"")) << "a traceback on lines of its own";
  EXPECT_THAT(syntax.err, Not(HasSubstr("\\n"))) << "no literal \\n";
}

// `list` on a machine without a module's package (torch, triton) says what the module needs and
// still lists everything else (exit 0): that machine is not where the module runs. A module
// with a real defect (a syntax error) is refused at the end of the listing, on its own lines.
TEST_F(PythonCli, ListSaysWhatAModuleNeedsInsteadOfFailing) {
  std::ofstream(dir_ / "needs_triton.py") << "import triton  # not on the CI machine\n";
  Result r = Flashscope("list --plugin ./needs_triton.py --plugin " + kModules + "recorder.py");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("pytest.attn_v1"));
  const size_t note = r.out.find("plugins not listed (1):");
  ASSERT_NE(note, std::string::npos) << r.out;
  EXPECT_LT(r.out.find("pytest.attn_v1"), note);
  EXPECT_THAT(r.out.substr(note), HasSubstr("needs a Python package this interpreter lacks"));
  EXPECT_THAT(r.out.substr(note), HasSubstr("No module named 'triton'"));
  r = Flashscope("list --plugin " + kModules + "syntax_error.py");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.out, HasSubstr("REFUSED: "));
  EXPECT_THAT(r.out, HasSubstr("SyntaxError"));
  EXPECT_THAT(r.out, Not(HasSubstr("\\n")));
}

TEST_F(PythonCli, AMissingBridgeIsNamedWithTheFix) {
  const Result r = Flashscope("list --plugin " + kModules + "recorder.py",
                              "FLASHSCOPE_PYTHON_BRIDGE=/nonexistent/libflashscope_python.so");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.out, HasSubstr("the Python bridge /nonexistent/libflashscope_python.so cannot be "
                               "loaded"));
  EXPECT_THAT(r.out, HasSubstr("set FLASHSCOPE_PYTHON_BRIDGE"));
  EXPECT_THAT(r.err, HasSubstr("not everything could be listed"));
}

}  // namespace
}  // namespace flashscope
