// The work evidence a case's counters become (runner/trust_case.h, WorkInputFrom): the screen's
// FP32 bound stands for the SASS-instrumented scalar counters where they were not collected, and
// never beside them (docs/trust.md, check 2).
#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <string>

#include "runner/trust_case.h"

namespace flashscope::runner {
namespace {

const profiler::WorkCounterSet& Gh100() { return *profiler::WorkCountersFor(90); }

constexpr char kFmaPipe[] = "sm__inst_executed_pipe_fma.sum";
constexpr char kSassFfma[] = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum";

AttentionProblem Attention() {
  AttentionProblem p;
  p.batch = 1;
  p.heads = 4;
  p.seq_q = p.seq_k = 512;
  p.head_dim = 64;
  p.dtype = DType::kF16;
  return p;
}

double Counted(const reports::WorkInput& w) {
  return std::accumulate(w.paths.begin(), w.paths.end(), 0.0,
                         [](double s, const reports::WorkPath& p) { return s + p.flops; });
}

// A screen's values for a scalar kernel: no tensor work, its FMA-pipe instructions.
std::map<std::string, double> ScalarScreen(double fma_instructions) {
  std::map<std::string, double> counts;
  for (const std::string& n : Gh100().ScreenHwNames()) counts[n] = 0;
  counts[kFmaPipe] = fma_instructions;
  const profiler::ScreenOutcome o = profiler::ApplyScreen(Gh100(), counts);
  EXPECT_TRUE(o.complete) << o.why;
  return o.values;
}

TEST(WorkInput, TheScreensFmaBoundCountsAScalarKernelsWork) {
  // g03 at 512^3 fp16 as measured on an H200 (session 8, call 1): 4,279,424 FMA-pipe
  // instructions; a01 at B=1 H=4 S=512 D=64: 10,990,272. Both above 90 % of the minimal FLOPs.
  const reports::WorkInput w =
      WorkInputFrom(Gh100(), ScalarScreen(10990272), -1, true, Problem{Attention()});
  const double minimal = w.minimal_flops;
  ASSERT_GT(minimal, 0);
  EXPECT_DOUBLE_EQ(Counted(w), 10990272.0 * 64);
  EXPECT_GE(Counted(w), 0.9 * minimal);
  bool found = false;
  for (const reports::WorkPath& p : w.paths) {
    if (p.name != Gh100().screen.scalar_path) continue;
    found = true;
    EXPECT_FALSE(p.judged) << "FMUL, FADD and IMAD run on the FMA pipe too: no precision evidence";
  }
  EXPECT_TRUE(found);
}

TEST(WorkInput, ACopyInsteadOfTheArithmeticStaysFarBelowTheFloor) {
  // A cached answer copied out: O(output) instructions, not O(S^2 D).
  const reports::WorkInput w =
      WorkInputFrom(Gh100(), ScalarScreen(4 * 512 * 64 / 32 * 4), -1, true, Problem{Attention()});
  EXPECT_LT(Counted(w), 0.01 * w.minimal_flops);
}

TEST(WorkInput, TheSassCountersCountAloneWhereTheyWereCollected) {
  // A kernel short even with the bound gets the instrumented session after the screen: its exact
  // lane counts replace the bound instead of adding to it.
  std::map<std::string, double> values = ScalarScreen(4279424);
  values[kSassFfma] = 134217728;
  const reports::WorkInput w = WorkInputFrom(Gh100(), values, -1, true, Problem{Attention()});
  EXPECT_DOUBLE_EQ(Counted(w), 134217728.0 * 2);
  for (const reports::WorkPath& p : w.paths) EXPECT_NE(p.name, Gh100().screen.scalar_path);
}

TEST(WorkInput, WithoutTheBoundsCounterNothingIsAdded) {
  // The full set's values (a kernel whose screen failed): the scalar paths as counted, no bound.
  std::map<std::string, double> values;
  for (const std::string& n : Gh100().AllHwNames()) values[n] = 0;
  const reports::WorkInput w = WorkInputFrom(Gh100(), values, -1, true, Problem{Attention()});
  EXPECT_EQ(Counted(w), 0);
  for (const reports::WorkPath& p : w.paths) EXPECT_NE(p.name, Gh100().screen.scalar_path);
}

}  // namespace
}  // namespace flashscope::runner
