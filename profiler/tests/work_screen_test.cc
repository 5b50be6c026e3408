// The work evidence's screen (profiler/work_counters.h, WorkScreen): when its identity stands for
// the full set of precision paths and when it does not. The counts below are GH100's as measured
// (results/device/20261128-h200x2-session4/call7-tensor-ops-per-instruction-fp16.json) and the
// counts a cheat would leave.
#include <algorithm>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "profiler/work_counters.h"

namespace flashscope::profiler {
namespace {

const WorkCounterSet& Gh100() { return *WorkCountersFor(90); }

// A launch's screen counts: everything zero but what `set` says.
std::map<std::string, double> Counts(const std::map<std::string, double>& set) {
  std::map<std::string, double> c;
  for (const std::string& n : Gh100().ScreenHwNames()) c[n] = 0;
  for (const auto& [n, v] : set) c[n] = v;
  return c;
}

constexpr char kTensor[] = "sm__inst_executed_pipe_tensor.sum";
constexpr char kWgmma[] = "sm__inst_executed_pipe_tensor_op_gmma.sum";
constexpr char kHfma2[] = "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum";
constexpr char kFp16Sync[] = "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_off.sum";
constexpr char kBf16Sync[] = "sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_off.sum";
constexpr char kHgmmaFp16[] = "sm__ops_path_tensor_op_hgmma_src_fp16.sum";
constexpr char kHgmmaBf16[] = "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum";

TEST(WorkScreen, Gh100HasOneAndItsCountersAreNotTheFullSets) {
  ASSERT_TRUE(Gh100().has_screen());
  EXPECT_FALSE(WorkCountersFor(80)->has_screen());  // not measured on an A100
  const std::vector<std::string> all = Gh100().AllHwNames();
  for (const char* n : {kTensor, kWgmma, kFp16Sync, kBf16Sync}) {
    EXPECT_EQ(std::count(all.begin(), all.end(), n), 0) << n;
  }
  // Every tensor path of the full set is derived from the screen.
  for (const WorkCounter& c : Gh100().paths) {
    if (c.hw_name.find("__sass_") != std::string::npos) continue;
    const auto& terms = Gh100().screen.path_terms;
    EXPECT_TRUE(std::any_of(terms.begin(), terms.end(), [&](const auto& t) {
      return t.first == c.hw_name;
    })) << c.hw_name;
  }
}

TEST(WorkScreen, AnMmaSyncKernelOnItsContractPathIsComplete) {
  // a10_fa2 at B=2 H=4 S=1024 D=128 fp16, as measured.
  const ScreenOutcome o = ApplyScreen(Gh100(), Counts({{kTensor, 1048576},
                                                       {kFp16Sync, 4294967296.0},
                                                       {"dram__bytes_read.sum", 5e6},
                                                       {"dram__bytes_write.sum", 2e6}}));
  ASSERT_TRUE(o.complete) << o.why;
  EXPECT_EQ(o.values.at("sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum"), 4294967296.0);
  EXPECT_EQ(o.values.at("sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16.sum"), 0);
  EXPECT_EQ(o.values.at("sm__ops_path_tensor_src_int8.sum"), 0);
  EXPECT_EQ(o.values.at("dram__bytes_read.sum"), 5e6);
}

TEST(WorkScreen, AWgmmaKernelIsCompleteWithEveryWgmmaPathCounted) {
  // a17 (fp16 wgmma) as measured; a bf16 wgmma kernel with an fp8 share also completes: its fp8
  // FLOPs are counted (the precision rule judges them).
  ScreenOutcome o =
      ApplyScreen(Gh100(), Counts({{kTensor, 65536}, {kWgmma, 65536}, {kHgmmaFp16, 4294967296.0}}));
  ASSERT_TRUE(o.complete) << o.why;
  EXPECT_EQ(o.values.at("sm__ops_path_tensor_op_hgmma_src_fp16.sum"), 4294967296.0);
  o = ApplyScreen(Gh100(), Counts({{kTensor, 3000},
                                   {kWgmma, 3000},
                                   {kHgmmaBf16, 1e8},
                                   {"sm__ops_path_tensor_src_fp8.sum", 5e7}}));
  ASSERT_TRUE(o.complete) << o.why;
  EXPECT_EQ(o.values.at("sm__ops_path_tensor_src_fp8.sum"), 5e7);
  EXPECT_EQ(o.values.at("sm__ops_path_tensor_src_bf16_dst_fp32.sum"), 1e8);
}

TEST(WorkScreen, AScalarKernelIsCompleteWithNoTensorWork) {
  ScreenOutcome o = ApplyScreen(Gh100(), Counts({}));
  ASSERT_TRUE(o.complete) << o.why;
  for (const auto& [path, v] : o.values) EXPECT_EQ(v, 0) << path;
  // The HFMA2.MMA a scalar kernel's compiler puts on the tensor pipe (a02 at one of smoke's
  // problems: 277,824 tensor-pipe instructions, no FLOPs on any path) are no matrix products.
  o = ApplyScreen(Gh100(), Counts({{kTensor, 277824}, {kHfma2, 277824}}));
  ASSERT_TRUE(o.complete) << o.why;
  // Without them in the count, those instructions would be mma.sync off the counted paths.
  o = ApplyScreen(Gh100(), Counts({{kTensor, 277824}}));
  EXPECT_FALSE(o.complete);
  // More of them counted than tensor instructions: the counts are inconsistent.
  o = ApplyScreen(Gh100(), Counts({{kTensor, 10}, {kHfma2, 11}}));
  EXPECT_FALSE(o.complete);
}

TEST(WorkScreen, AnMmaSyncOffTheCountedPathsBreaksTheIdentity) {
  // test.cheat_fp16_accum's shape: half its mma.sync instructions accumulate in fp16.
  ScreenOutcome o = ApplyScreen(Gh100(), Counts({{kTensor, 2000}, {kFp16Sync, 1000 * 4096.0}}));
  EXPECT_FALSE(o.complete);
  EXPECT_NE(o.why.find("2000 mma.sync instructions"), std::string::npos)
      << o.why;  // names the numbers
  EXPECT_TRUE(o.values.empty());
  // One instruction off the counted paths among a million is enough.
  o = ApplyScreen(Gh100(), Counts({{kTensor, 1048577}, {kFp16Sync, 4294967296.0}}));
  EXPECT_FALSE(o.complete);
  // An m16n8k8 (2,048 FLOPs) of the contract is not told apart from a foreign one: full set.
  o = ApplyScreen(Gh100(), Counts({{kTensor, 2}, {kFp16Sync, 4096 + 2048}}));
  EXPECT_FALSE(o.complete);
  // A sparse mma.sync counts in neither dense counter.
  o = ApplyScreen(Gh100(), Counts({{kTensor, 3}, {kWgmma, 1}, {kBf16Sync, 4096}}));
  EXPECT_FALSE(o.complete);
}

TEST(WorkScreen, IntegerOrFp64TensorInstructionsBreakIt) {
  for (const char* n :
       {"sm__inst_executed_pipe_tensor_op_imma.sum", "sm__inst_executed_pipe_tensor_op_dmma.sum"}) {
    const ScreenOutcome o = ApplyScreen(Gh100(), Counts({{kTensor, 1}, {n, 1}}));
    EXPECT_FALSE(o.complete) << n;
    EXPECT_NE(o.why.find(n), std::string::npos) << o.why;
  }
}

TEST(WorkScreen, AMissingOrBrokenCountIsNotComplete) {
  std::map<std::string, double> c = Counts({{kTensor, 1}, {kFp16Sync, 4096}});
  c.erase(kWgmma);
  ScreenOutcome o = ApplyScreen(Gh100(), c);
  EXPECT_FALSE(o.complete);
  EXPECT_NE(o.why.find(kWgmma), std::string::npos) << o.why;
  o = ApplyScreen(Gh100(), Counts({{kTensor, -1}}));
  EXPECT_FALSE(o.complete);
  o = ApplyScreen(*WorkCountersFor(80), Counts({}));
  EXPECT_FALSE(o.complete);
}

}  // namespace
}  // namespace flashscope::profiler
