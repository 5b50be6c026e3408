// The trust checks' decisions on the evidence real launches produced. The numbers come from the
// H200 run of results/device/20261124-h200-trust/call1 (counters of attn.a10_fa2 and its cheating
// variants at attention_fwd{B=2,H=8,S=2048,D=128,fp16}, CUPTI records of the traced-sample test),
// so that each test says: this is what an honest launch looked like there, this is what a cheat
// looked like, and this is the verdict.
#include "analysis/trust_checks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace flashscope::reports {
namespace {

using testing::HasSubstr;

// attention_fwd{B=2,H=8,S=2048,D=128,fp16}: 4·B·H·S²·D FLOPs; Q, K, V of 8 MiB each.
constexpr double kFlops = 3.436e10;
constexpr double kInputBytes = 3.0 * 2 * 8 * 2048 * 128 * 2;

Environment H200() {
  Environment e;
  e.compute_capability = 90;
  e.sm_count = 132;
  e.sm_clock_mhz = 1980;
  e.memory_clock_mhz = 3201;
  e.memory_bus_bits = 6016;
  e.peaks.matmul_fp16_tflops = 761.4;
  e.peaks.matmul_bf16_tflops = 792.7;
  e.peaks.copy_gbps = 4208.9;
  return e;
}

const TrustValue* Value(const TrustCheckRecord& c, const std::string& name) {
  for (const TrustValue& v : c.values) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

TEST(Ceilings, TheoreticalFromTheEnvironment) {
  const Ceilings c = CeilingsOf(H200());
  // 132 SMs × 1980 MHz × 4096 FLOP/clock = 1070.5 TFLOP/s, plus 5 %.
  EXPECT_NEAR(c.flops_per_s / 1e12, 1070.5 * kCeilingMargin, 0.1);
  EXPECT_THAT(c.flops_source, HasSubstr("132 SMs x 1980 MHz x 4096"));
  // 2 × 3201 MHz × 6016 bits / 8 = 4814 GB/s, plus 5 %.
  EXPECT_NEAR(c.bytes_per_s / 1e9, 4814.4 * kCeilingMargin, 0.5);
}

TEST(Ceilings, UnknownArchitectureFallsBackToTheMeasuredPeak) {
  Environment e = H200();
  e.compute_capability = 87;
  e.memory_clock_mhz = 0;
  const Ceilings c = CeilingsOf(e);
  EXPECT_NEAR(c.flops_per_s / 1e12, 792.7 * kMeasuredPeakMargin, 0.1);
  EXPECT_THAT(c.flops_source, HasSubstr("no datasheet rate known for sm_87"));
  EXPECT_NEAR(c.bytes_per_s / 1e9, 4208.9 * kMeasuredPeakMargin, 0.1);
}

TEST(Ceilings, AMeasuredPeakAboveTheTableDisownsTheTable) {
  Environment e = H200();
  e.sm_clock_mhz = 1000;  // a wrong clock: the table would say 540 TFLOP/s
  const Ceilings c = CeilingsOf(e);
  EXPECT_THAT(c.flops_source, HasSubstr("exceeds the architecture's datasheet rate"));
}

TEST(Plausibility, HonestA10PassesAndTheUnjoinedSideStreamFails) {
  const Ceilings c = CeilingsOf(H200());
  // a10: 0.1167 ms (294 TFLOP/s).
  TrustCheckRecord honest = CheckPlausibility({kFlops, kInputBytes, 0.1167, true}, c);
  EXPECT_EQ(honest.status, "passed") << honest.rule;
  EXPECT_NEAR(Value(honest, "achieved_tflops")->value, 294.4, 0.5);
  // test.cheat_side_stream_async: the events saw 0.0018 ms (18,838 TFLOP/s).
  TrustCheckRecord cheat = CheckPlausibility({kFlops, kInputBytes, 0.0018, true}, c);
  EXPECT_EQ(cheat.status, "failed");
  ASSERT_FALSE(cheat.findings.empty());
  EXPECT_THAT(cheat.findings[0], HasSubstr("of what this GPU can do"));
  // The inputs alone (25 MB) cannot cross 4.8 TB/s in 1.8 us either.
  EXPECT_EQ(cheat.findings.size(), 2u);
}

TEST(Plausibility, HotTimingSwitchesTheBandwidthRuleOffAndSaysSo) {
  TrustCheckRecord c = CheckPlausibility({1e6, 1e9, 0.01, false}, CeilingsOf(H200()));
  EXPECT_EQ(c.status, "passed");
  EXPECT_THAT(c.rule, HasSubstr("bandwidth rule off"));
  EXPECT_EQ(CheckPlausibility({1e6, 1e9, 0, true}, CeilingsOf(H200())).status, "off");
}

WorkInput A10Work(double hmma_fp32, double hmma_fp16, double dram_read) {
  WorkInput w;
  w.available = true;
  w.kernels = 1;
  w.paths = {{"fp16 mma.sync, fp32 accumulate", "fp16", "fp32", hmma_fp32},
             {"fp16 mma.sync, fp16 accumulate", "fp16", "fp16", hmma_fp16},
             {"fp16 wgmma", "fp16", "fp16 or fp32", 0},
             {"fp32 FFMA", "fp32", "fp32", 2 * 7.301e7}};
  w.dram_counted = true;
  w.dram_read_bytes = dram_read;
  w.dram_write_bytes = 6.067e4;
  w.l2_flushed = true;
  w.problem_dtype = "fp16";
  w.minimal_flops = kFlops;
  w.minimal_input_bytes = kInputBytes;
  return w;
}

TEST(Work, HonestA10DidAllItsWork) {
  const TrustCheckRecord c = CheckWork(A10Work(3.436e10, 0, 2.519e7));
  EXPECT_EQ(c.status, "passed") << c.rule;
  EXPECT_GT(Value(c, "share_of_minimal_flops")->value, 1.0);
  EXPECT_EQ(CheckPrecision(A10Work(3.436e10, 0, 2.519e7)).status, "passed");
}

TEST(Work, SkippingTheWorkFailsOnFlopsAndOnDram) {
  // test.cheat_when_poisoned on a stale output: no tensor work, 64 KB read.
  WorkInput w = A10Work(0, 0, 6.451e4);
  w.paths[3].flops = 0;
  const TrustCheckRecord c = CheckWork(w);
  EXPECT_EQ(c.status, "failed");
  ASSERT_EQ(c.findings.size(), 2u);
  EXPECT_THAT(c.findings[0], HasSubstr("did 0.0 % of the problem's minimal FLOPs"));
  EXPECT_THAT(c.findings[1], HasSubstr("read 0.06 MiB from DRAM"));
}

TEST(Work, NoKernelFails) {
  WorkInput w = A10Work(0, 0, 0);
  w.kernels = 0;
  const TrustCheckRecord c = CheckWork(w);
  EXPECT_EQ(c.status, "failed");
  EXPECT_THAT(c.findings[0], HasSubstr("enqueued no kernel"));
}

TEST(Work, DramRuleOffUnderKernelReplayAndForTinyInputs) {
  WorkInput w = A10Work(3.436e10, 0, 0);
  w.l2_flushed = false;
  EXPECT_EQ(CheckWork(w).status, "passed");
  EXPECT_THAT(CheckWork(w).rule, HasSubstr("kernel replay"));
  w = A10Work(3.436e10, 0, 0);
  w.minimal_input_bytes = 4096;
  EXPECT_THAT(CheckWork(w).rule, HasSubstr("DRAM rule off: inputs under"));
}

TEST(Work, CountersUnavailableIsOffWithTheReason) {
  WorkInput w;
  w.unavailable_reason = "no work-counter set for sm_86";
  const TrustCheckRecord c = CheckWork(w);
  EXPECT_EQ(c.status, "off");
  EXPECT_EQ(c.rule, w.unavailable_reason);
  EXPECT_EQ(CheckPrecision(w).status, "off");
}

TEST(Work, TinyProblemsHaveTheFlopRulesOff) {
  // attention_fwd{B=2,H=3,S=1,D=64}: 1,536 FLOPs; a kernel doing less is not judged on FLOPs.
  WorkInput w = A10Work(0, 1000, 0);
  w.minimal_flops = 1536;
  w.minimal_input_bytes = 2304;
  const TrustCheckRecord c = CheckWork(w);
  EXPECT_EQ(c.status, "passed");
  EXPECT_THAT(c.rule, HasSubstr("FLOP rule off"));
  EXPECT_EQ(CheckPrecision(w).status, "off");
  // No kernel still fails at any size.
  w.kernels = 0;
  EXPECT_EQ(CheckWork(w).status, "failed");
}

TEST(Precision, ScalarCountsAreWorkButNotPrecisionEvidence) {
  // a02 (bf16): FFMA does the work; the compiler's HFMA2 register moves are 2.3 % of its FLOPs.
  WorkInput w = A10Work(0, 0, 1.262e7);
  w.problem_dtype = "bf16";
  w.minimal_flops = 8.594e9;
  w.minimal_input_bytes = 1.258e7;
  w.paths[3].flops = 2 * 4.573e9;
  w.paths.push_back({"fp16 HFMA2 (register moves included)", "fp16", "fp16", 4 * 4.889e7, false});
  EXPECT_EQ(CheckWork(w).status, "passed");
  EXPECT_EQ(CheckPrecision(w).status, "passed");
}

TEST(Precision, Fp16AccumulationFails) {
  // test.cheat_fp16_accum: Q·Kᵀ (half the FLOPs) on the fp16-accumulate path.
  const TrustCheckRecord c = CheckPrecision(A10Work(1.718e10, 1.718e10, 2.518e7));
  EXPECT_EQ(c.status, "failed");
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_THAT(c.findings[0], HasSubstr("50.0 % of the minimal FLOPs ran as fp16 mma.sync, fp16 "
                                       "accumulate"));
  // The work itself was all done.
  EXPECT_EQ(CheckWork(A10Work(1.718e10, 1.718e10, 2.518e7)).status, "passed");
}

TEST(Precision, WgmmaAndUpcastsAreInContract) {
  WorkInput w = A10Work(0, 0, 2.517e7);
  w.paths[2].flops = 3.436e10;  // cuDNN: fp16 HGMMA
  const TrustCheckRecord c = CheckPrecision(w);
  EXPECT_EQ(c.status, "passed");
  EXPECT_THAT(c.rule, HasSubstr("not counted apart"));
  // bf16 inputs computed on the fp16 path lose range: outside the contract.
  w.problem_dtype = "bf16";
  EXPECT_EQ(CheckPrecision(w).status, "failed");
}

TEST(Precision, ASmallShareOutsideTheContractIsTolerated) {
  WorkInput w = A10Work(3.436e10, 0.005 * kFlops, 2.519e7);
  EXPECT_EQ(CheckPrecision(w).status, "passed");
}

LaunchOutputCheck Launch(int launch, int set, bool poisoned, int64_t bad, uint64_t hash) {
  LaunchOutputCheck c;
  c.launch = launch;
  c.input_set = set;
  c.poisoned_before = poisoned;
  c.bad = bad;
  c.never_written = poisoned ? bad : 0;
  c.hash = hash;
  return c;
}

TEST(TimedOutputs, EveryLaunchCorrectPasses) {
  std::vector<LaunchOutputCheck> checks;
  for (int i = 0; i < 10; ++i) checks.push_back(Launch(i, i % 2, i % 3 == 0, 0, 100 + i % 2));
  std::vector<TimedLaunchRecord> failed;
  const TrustCheckRecord c = CheckTimedOutputs(checks, 10, &failed);
  EXPECT_EQ(c.status, "passed");
  EXPECT_TRUE(failed.empty());
  EXPECT_EQ(Value(c, "poisoned_before")->value, 4);
}

TEST(TimedOutputs, AStaleOrUnwrittenLaunchFailsAndIsKept) {
  std::vector<LaunchOutputCheck> checks;
  for (int i = 0; i < 20; ++i) {
    // A cache keyed on the output: right on input set 0, stale on set 1.
    checks.push_back(Launch(i, i % 2, false, i % 2 == 1 ? 6144 : 0, 7));
  }
  std::vector<TimedLaunchRecord> failed;
  const TrustCheckRecord c = CheckTimedOutputs(checks, 20, &failed);
  EXPECT_EQ(c.status, "failed");
  EXPECT_EQ(failed.size(), 10u);
  EXPECT_EQ(failed[0].launch, 1);
  EXPECT_THAT(c.findings[0], HasSubstr("timed launch 1 (input set 1, output stale before it)"));
  EXPECT_THAT(c.findings.back(), HasSubstr("7 more failing launches"));
}

TEST(TimedOutputs, UncheckedLaunchesFail) {
  std::vector<TimedLaunchRecord> failed;
  const TrustCheckRecord c = CheckTimedOutputs({Launch(0, 0, true, 0, 1)}, 3, &failed);
  EXPECT_EQ(c.status, "failed");
  EXPECT_THAT(c.findings[0], HasSubstr("2 of 3 timed launches went unchecked"));
}

TEST(InputSets, EachSetMustVerify) {
  EXPECT_EQ(CheckInputSets({{0, 1, true, "ok", 1e-4, 0.4}, {1, 2, true, "ok", 1e-4, 0.5}}).status,
            "passed");
  const TrustCheckRecord bad = CheckInputSets(
      {{0, 1, true, "ok", 1e-4, 0.4}, {1, 2, false, "max|err| 9.4e-4 > 2 x ...", 9.4e-4, 2.8}});
  EXPECT_EQ(bad.status, "failed");
  EXPECT_THAT(bad.findings[0], HasSubstr("input set 1 (seed 2): max|err| 9.4e-4"));
  EXPECT_EQ(CheckInputSets({{0, 1, true, "ok", 1e-4, 0.4}}).status, "off");
}

TEST(Determinism, InformativeOnly) {
  const TrustCheckRecord same =
      CheckDeterminism({Launch(-1, 0, true, 0, 5), Launch(0, 0, true, 0, 5), Launch(1, 1, 0, 0, 9),
                        Launch(-2, 1, true, 0, 9)});
  EXPECT_EQ(same.status, "info");
  EXPECT_THAT(same.rule, HasSubstr("bitwise identical"));
  const TrustCheckRecord differs =
      CheckDeterminism({Launch(0, 0, true, 0, 5), Launch(2, 0, true, 0, 6)});
  EXPECT_EQ(differs.status, "info");
  EXPECT_THAT(differs.rule, HasSubstr("outputs differ bitwise"));
  EXPECT_EQ(Value(differs, "set 0 distinct outputs")->value, 2);
}

// Records as the traced-sample test printed them on the H200 (microseconds from the window's
// begin; stream 13 is the launch's).
TracedLaunch Traced(std::vector<ActivityRecord> records, double window_end, double call_begin,
                    double call_end) {
  TracedLaunch t;
  t.available = true;
  t.launch_stream = 13;
  t.window_end_us = window_end;
  t.call_begin_us = call_begin;
  t.call_end_us = call_end;
  t.records = std::move(records);
  return t;
}

ActivityRecord Rec(std::string kind, std::string name, int64_t stream, double start, double end) {
  ActivityRecord r;
  r.kind = std::move(kind);
  r.name = std::move(name);
  r.stream = stream;
  r.start_us = start;
  r.end_us = end;
  return r;
}

const ActivityRecord kFlush = Rec("kernel", "L2FlushReadKernel", 13, -6943, -6907);
const ActivityRecord kProbe = Rec("kernel", "ClockProbeKernel", 13, 488, 509);

TEST(Streams, HonestLaunchKeepsOnlyItsOwnWork) {
  std::vector<ActivityRecord> activity;
  const TrustCheckRecord c =
      CheckStreams(Traced({kFlush, Rec("kernel", "SpinKernel", 13, 280, 481), kProbe,
                           Rec("sync", "cudaDeviceSynchronize", -1, 530, 560)},
                          484, 5, 270),
                   &activity);
  EXPECT_EQ(c.status, "passed") << testing::PrintToString(c.findings);
  ASSERT_EQ(activity.size(), 1u);
  EXPECT_EQ(activity[0].name, "SpinKernel");
}

TEST(Streams, SideStreamJoinedIsNamed) {
  std::vector<ActivityRecord> activity;
  const TrustCheckRecord c =
      CheckStreams(Traced({kFlush, Rec("sync", "cudaStreamWaitEvent", 16, 15, 19),
                           Rec("kernel", "SpinKernel", 16, 40, 241),
                           Rec("sync", "cudaStreamWaitEvent", 13, 41, 42), kProbe},
                          244, 10, 44),
                   &activity);
  EXPECT_EQ(c.status, "failed");
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_THAT(c.findings[0],
              HasSubstr("kernel SpinKernel ran on stream 16, not the launch's stream 13"));
}

TEST(Streams, SideStreamNotJoinedEndsAfterTheStop) {
  std::vector<ActivityRecord> activity;
  const TrustCheckRecord c = CheckStreams(
      Traced({kFlush, Rec("kernel", "SpinKernel", 18, 45, 246), Rec("kernel", "Probe", 13, 65, 86)},
             56, 10, 45),
      &activity);
  EXPECT_EQ(c.status, "failed");
  ASSERT_EQ(c.findings.size(), 2u);
  EXPECT_THAT(c.findings[1], HasSubstr("ended 190.0 us after the stop event"));
}

TEST(Streams, HostSynchronisationAndSynchronousCopiesAreNamed) {
  std::vector<ActivityRecord> activity;
  ActivityRecord copy = Rec("memcpy", "HtoD", 7, 139, 161);
  copy.bytes = 1 << 20;
  copy.synchronous = true;
  const TrustCheckRecord c =
      CheckStreams(Traced({kFlush, Rec("sync", "cudaStreamSynchronize", 13, 20, 222), copy,
                           Rec("kernel", "SpinKernel", 13, 17, 218)},
                          235, 3, 230),
                   &activity);
  EXPECT_EQ(c.status, "failed");
  ASSERT_EQ(c.findings.size(), 3u);
  EXPECT_THAT(c.findings[0], HasSubstr("cudaStreamSynchronize inside launch(): the host waited"));
  EXPECT_THAT(c.findings[1], HasSubstr("memcpy HtoD ran on stream 7"));
  EXPECT_THAT(c.findings[2], HasSubstr("synchronous HtoD copy of 1048576 bytes"));
}

TEST(Streams, ACopyOnlyLaunchHasNoKernel) {
  std::vector<ActivityRecord> activity;
  const TrustCheckRecord c = CheckStreams(
      Traced({kFlush, Rec("memcpy", "DtoD", 13, 30, 32), kProbe}, 43, 2, 28), &activity);
  EXPECT_EQ(c.status, "failed");
  EXPECT_THAT(c.findings[0], HasSubstr("enqueued no kernel"));
}

TEST(Verdict, AFailedCheckFailsAPassedCaseAndNamesTheCheck) {
  CaseResult r;
  r.status = CaseStatus::kPassed;
  r.trust.emplace();
  r.trust->checks.push_back(CheckOff("work", "no counters"));
  TrustCheckRecord streams;
  streams.check = "streams";
  streams.status = "failed";
  streams.findings = {"kernel K ran on stream 16, not the launch's stream 13"};
  r.trust->checks.push_back(streams);
  ApplyTrustVerdict(&r);
  EXPECT_EQ(r.status, CaseStatus::kFailed);
  EXPECT_EQ(r.reason,
            "trust check streams failed: kernel K ran on stream 16, not the launch's "
            "stream 13");
  // A case that failed verification keeps its own rule first.
  CaseResult v = r;
  v.status = CaseStatus::kFailed;
  v.reason = "max|err| 9.4e-4 > 2 x baseline 3.3e-4 + 1e-5";
  ApplyTrustVerdict(&v);
  EXPECT_THAT(v.reason, testing::StartsWith("max|err| 9.4e-4"));
  EXPECT_THAT(v.reason, HasSubstr("; trust check streams failed"));
  // An error stays an error.
  CaseResult e = r;
  e.status = CaseStatus::kError;
  e.reason = "launch: cudaErrorIllegalAddress";
  ApplyTrustVerdict(&e);
  EXPECT_EQ(e.status, CaseStatus::kError);
}

}  // namespace
}  // namespace flashscope::reports
