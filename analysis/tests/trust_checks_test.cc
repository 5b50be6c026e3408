// The trust checks' decisions on the evidence real launches produced. The numbers come from the
// H200 run of results/device/20261124-h200-trust/call1 (counters of attn.a10_fa2 and its cheating
// variants at attention_fwd{B=2,H=8,S=2048,D=128,fp16}, CUPTI records of the traced-sample test),
// so that each test says: this is what an honest launch looked like there, this is what a cheat
// looked like, and this is the verdict.
#include "analysis/trust_checks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/tests/trust_inputs.h"

namespace flashscope::reports {
namespace {

using testing::HasSubstr;
using testing_inputs::A10Work;
using testing_inputs::H200;
using testing_inputs::kFlops;
using testing_inputs::kInputBytes;
using testing_inputs::Value;

// A check that cannot run (CheckOff): off, under its own name, with the reason as its rule.
void ExpectOffWithReason(const TrustCheckRecord& c, const std::string& check,
                         const std::string& reason) {
  EXPECT_EQ(c.check, check);
  EXPECT_EQ(c.status, "off");
  EXPECT_EQ(c.rule, reason);
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

TEST(Work, KernelsNotCountedOverOneUserRangeAreNoFailure) {
  // A batched session counts each launch over one user range: the work is judged, the kernels are
  // not counted (the streams check's traced launch counts them).
  WorkInput w = A10Work(3.436e10, 0, 2.519e7);
  w.kernels = -1;
  TrustCheckRecord c = CheckWork(w);
  EXPECT_EQ(c.status, "passed") << c.rule;
  EXPECT_EQ(Value(c, "kernels"), nullptr);
  w = A10Work(0, 0, 6.451e4);
  w.paths[3].flops = 0;
  w.kernels = -1;
  c = CheckWork(w);
  EXPECT_EQ(c.status, "failed");
  EXPECT_THAT(c.findings[0], HasSubstr("did 0.0 % of the problem's minimal FLOPs"));
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
  ExpectOffWithReason(CheckWork(w), "work", w.unavailable_reason);
  ExpectOffWithReason(CheckPrecision(w), "precision", w.unavailable_reason);
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

LaunchOutputCheck Launch(const std::string& kind, int launch, int64_t bad_rows) {
  LaunchOutputCheck c;
  c.kind = kind;
  c.launch = launch;
  c.rows = kSampledRowsPerLaunch;
  c.bad_rows = bad_rows;
  c.bad = 64 * bad_rows;
  c.input_seed = 1000 + launch;
  return c;
}

// The launches of a case as the runner makes them: one verified, 2 warm-up, `timed` timed, one
// traced, 2 profiled.
std::vector<LaunchOutputCheck> AllLaunches(int timed, int64_t bad_rows_when_timed) {
  std::vector<LaunchOutputCheck> out = {Launch("verified", 0, 0), Launch("warm-up", 0, 0),
                                        Launch("warm-up", 1, 0)};
  for (int i = 0; i < timed; ++i) out.push_back(Launch("timed", i, bad_rows_when_timed));
  out.push_back(Launch("traced", 0, 0));
  out.push_back(Launch("profiled", 0, 0));
  out.push_back(Launch("profiled", 1, 0));
  return out;
}

const LaunchCounts kCounts{1, 2, 10, 1, 2};

TEST(LaunchOutputs, EveryLaunchRightPassesAndStatesItsDetectionPower) {
  std::vector<TimedLaunchRecord> failed;
  const TrustCheckRecord c =
      CheckLaunchOutputs(AllLaunches(10, 0), kCounts, kSampledRowsPerLaunch, &failed);
  EXPECT_EQ(c.status, "passed");
  EXPECT_TRUE(failed.empty());
  EXPECT_EQ(Value(c, "launches")->value, 16);
  EXPECT_EQ(Value(c, "rows_checked")->value, 16 * kSampledRowsPerLaunch);
  EXPECT_EQ(Value(c, "profiled_launches")->value, 2);
  // 64 rows x 16 launches: a kernel wrong on 1 % of rows escapes with 0.99^1024 = 3.4e-5.
  EXPECT_THAT(c.rule, HasSubstr("1 % of rows escapes all 16 launches' checks with probability "
                                "3.4e-05"));
}

TEST(LaunchOutputs, AWrongTimedLaunchFailsNamingItsKindAndRows) {
  std::vector<TimedLaunchRecord> failed;
  const TrustCheckRecord c =
      CheckLaunchOutputs(AllLaunches(10, 3), kCounts, kSampledRowsPerLaunch, &failed);
  EXPECT_EQ(c.status, "failed");
  ASSERT_EQ(failed.size(), 10u);
  EXPECT_EQ(failed[0].kind, "timed");
  EXPECT_EQ(failed[0].bad_rows, 3);
  EXPECT_EQ(failed[0].input_seed, 1000u);
  EXPECT_THAT(c.findings[0], HasSubstr("timed launch 0 (output stale before it): 3 of 64 sampled "
                                       "rows wrong"));
  EXPECT_THAT(c.findings.back(), HasSubstr("7 more failing launches"));
}

TEST(LaunchOutputs, ABadLseAloneFails) {
  std::vector<LaunchOutputCheck> checks = AllLaunches(10, 0);
  checks.back().lse_bad = 1;
  std::vector<TimedLaunchRecord> failed;
  EXPECT_EQ(CheckLaunchOutputs(checks, kCounts, kSampledRowsPerLaunch, &failed).status, "failed");
  EXPECT_EQ(failed.at(0).kind, "profiled");
}

TEST(LaunchOutputs, ALaunchOfAnyKindLeftUncheckedFails) {
  std::vector<LaunchOutputCheck> checks = AllLaunches(10, 0);
  checks.erase(checks.begin() + 1);  // one warm-up launch
  std::vector<TimedLaunchRecord> failed;
  const TrustCheckRecord c = CheckLaunchOutputs(checks, kCounts, kSampledRowsPerLaunch, &failed);
  EXPECT_EQ(c.status, "failed");
  EXPECT_THAT(c.findings[0], HasSubstr("1 of 2 warm-up launches went unchecked"));
}

TEST(LaunchOutputs, NoLaunchIsOff) {
  std::vector<TimedLaunchRecord> failed;
  EXPECT_EQ(CheckLaunchOutputs({}, LaunchCounts{}, 64, &failed).status, "off");
}

TEST(EscapeProbability, IsOneMinusFToTheDraws) {
  EXPECT_DOUBLE_EQ(EscapeProbability(0, 64, 10), 1);
  EXPECT_DOUBLE_EQ(EscapeProbability(1, 64, 10), 0);
  EXPECT_NEAR(EscapeProbability(0.5, 1, 1), 0.5, 1e-15);
  EXPECT_NEAR(EscapeProbability(0.1, 64, 1), std::pow(0.9, 64), 1e-15);
  EXPECT_NEAR(EscapeProbability(0.01, 64, 20), std::pow(0.99, 1280), 1e-12);
  // A kernel that skips one row of a million still escapes a long run.
  EXPECT_GT(EscapeProbability(1e-6, 64, 100), 0.99);
}

ProfiledDurationInput Durations(double median, double kernel, std::vector<double> passes) {
  ProfiledDurationInput in;
  in.comparable = true;
  in.timed_median_ms = median;
  in.kernel_ms = kernel;
  in.pass_ms = std::move(passes);
  return in;
}

TEST(ProfiledDuration, WithinTheSlowdownPasses) {
  // Events hold CUPTI's host work: a pass may take a while longer than its kernels.
  const TrustCheckRecord c = CheckProfiledDuration(Durations(1.0, 0.97, {1.1, 1.3, 4.0}));
  EXPECT_EQ(c.status, "passed");
  EXPECT_NEAR(Value(c, "kernel_ratio")->value, 0.97, 1e-12);
  EXPECT_NEAR(Value(c, "slowest_ratio")->value, 4.0, 1e-12);
}

TEST(ProfiledDuration, KernelsMuchSlowerWhenProfiledFailNamingBoth) {
  // Full work when profiled, a quarter when timed: 4 x the GPU time.
  const TrustCheckRecord c = CheckProfiledDuration(Durations(0.5, 2.0, {2.1}));
  EXPECT_EQ(c.status, "failed");
  EXPECT_THAT(c.findings[0], HasSubstr("the profiled launch's kernels ran 2.0000 ms on the GPU, "
                                       "4.00 x the timed median of 0.5000 ms"));
}

TEST(ProfiledDuration, APassSlowedByCuptisHostWorkIsRecordedNotJudged) {
  // As measured on an H200: one pass of an honest case took 60x the timed median in events.
  const TrustCheckRecord c = CheckProfiledDuration(Durations(0.13, 0.13, {2.3, 8.3, 2.2}));
  EXPECT_EQ(c.status, "passed");
  EXPECT_NEAR(Value(c, "slowest_profiled_ms")->value, 8.3, 1e-12);
  EXPECT_NEAR(Value(c, "slowest_ratio")->value, 8.3 / 0.13, 1e-9);
}

TEST(ProfiledDuration, TinyLaunchesGetTheAbsoluteSlack) {
  EXPECT_EQ(CheckProfiledDuration(
                Durations(0.004, 0.004 * kProfiledSlowdownMax + 0.5 * kProfiledSlackMs, {1.0}))
                .status,
            "passed");
}

TEST(ProfiledDuration, NotComparableIsOffWithTheReason) {
  ProfiledDurationInput in;
  in.not_comparable_reason = "CUPTI kernel replay: one launch holds every pass";
  ExpectOffWithReason(CheckProfiledDuration(in), "profiled_duration", in.not_comparable_reason);
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
