// Batched range-profiler sessions on the device (RangeProfiler::ProfileBatch, docs/trust.md
// "Cost"): each launch's counters in a session shared with others equal its counters alone, each
// launch's hooks run once per pass around it, a launch that enqueues nothing is NotFound, a
// failing launch names itself and the next session works, and a batch costs less host time than
// profiling its launches one by one. Label gpu.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "profiler/calibration_kernels.h"
#include "profiler/cupti_profiler.h"
#include "profiler/device_info.h"
#include "profiler/tests/mma_loop_fixture.h"
#include "profiler/work_counters.h"

namespace flashscope::profiler {
namespace {

class BatchProfileGpuTest : public MmaLoopGpuTest {
 protected:
  void SetUp() override { SetUpFor(1); }
  // Launch i runs (i + 1) times the base work: its tensor count says which launch it was.
  std::function<cudaError_t(cudaStream_t)> MmaLaunch(int i) {
    return [this, i](cudaStream_t s) { return LaunchLoop(64 * (i + 1), s); };
  }
};

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST_F(BatchProfileGpuTest, EachLaunchCountsAsItDoesAloneAndItsHooksRunEveryPass) {
  auto rp = RangeProfiler::Create(metrics_, 0);
  ASSERT_TRUE(rp.ok()) << rp.status();
  constexpr int kLaunches = 8;
  std::vector<double> alone, alone_ms;
  const auto t_alone = std::chrono::steady_clock::now();
  for (int i = 0; i < kLaunches; ++i) {
    auto r = (*rp)->Profile(MmaLaunch(i), {}, stream_, Replay::kUser, {}, MetricScope::kHardware);
    ASSERT_TRUE(r.ok()) << r.status();
    alone.push_back(r->values[0].second);
    alone_ms.push_back(r->kernel_ms);
  }
  const double alone_s = Seconds(t_alone);
  std::vector<int> before(kLaunches + 1, 0), after(kLaunches + 1, 0);
  std::vector<BatchLaunch> launches;
  for (int i = 0; i < kLaunches; ++i) {
    launches.push_back({[&before, i] { return ++before[i], absl::OkStatus(); }, MmaLaunch(i),
                        [&after, i] { return ++after[i], absl::OkStatus(); }});
  }
  // A launch that enqueues nothing, in the middle: NotFound for it alone.
  launches.insert(launches.begin() + 3,
                  {[&before] { return ++before[kLaunches], absl::OkStatus(); },
                   [](cudaStream_t) { return cudaSuccess; },
                   [&after] { return ++after[kLaunches], absl::OkStatus(); }});
  const auto t_batch = std::chrono::steady_clock::now();
  BatchProfile b = (*rp)->ProfileBatch(launches, stream_, MetricScope::kHardware);
  const double batch_s = Seconds(t_batch);
  ASSERT_TRUE(b.status.ok()) << b.status << " (launch " << b.failed << ")";
  ASSERT_EQ(b.launches.size(), launches.size());
  EXPECT_EQ(b.passes, (*rp)->PassesNeeded(MetricScope::kHardware));
  // The range CUPTI records around it holds no GPU time: NotFound, not zero counters.
  EXPECT_TRUE(absl::IsNotFound(b.launches[3].status()))
      << b.launches[3].status() << " kernel_ms "
      << (b.launches[3].ok() ? b.launches[3]->kernel_ms : -1.0);
  for (int i = 0; i < kLaunches; ++i) {
    const size_t at = static_cast<size_t>(i < 3 ? i : i + 1);
    ASSERT_TRUE(b.launches[at].ok()) << b.launches[at].status();
    const ProfileResult& r = *b.launches[at];
    ASSERT_EQ(r.values.size(), 2u);  // hardware scope: tensor and DRAM
    EXPECT_EQ(r.values[0].first.name, "tensor");
    // Tensor instructions are counted exactly: the same count as alone, (i + 1) x the first's.
    EXPECT_DOUBLE_EQ(r.values[0].second, alone[static_cast<size_t>(i)]) << "launch " << i;
    EXPECT_DOUBLE_EQ(r.values[0].second, alone[0] * (i + 1)) << "launch " << i;
    EXPECT_EQ(static_cast<int>(r.pass_ms.size()), b.passes);
    // Its kernel time is the busiest SM's active time, close to the kernel's own duration alone
    // (gpu__time_duration of its auto range), without the range's gaps. The duration alone
    // also holds the ~2 us before the first SM starts (4 x H200, session 6: 2.3 us busy against
    // 4.6 us alone for the shortest launch), hence the absolute allowance.
    EXPECT_GT(r.kernel_ms, 0.5 * alone_ms[static_cast<size_t>(i)] - 0.002) << "launch " << i;
    EXPECT_LT(r.kernel_ms, 1.5 * alone_ms[static_cast<size_t>(i)]) << "launch " << i;
    std::printf("launch %d: busy %.4f ms in the batch, %.4f ms alone (auto range)\n", i,
                r.kernel_ms, alone_ms[static_cast<size_t>(i)]);
    EXPECT_EQ(before[static_cast<size_t>(i)], b.passes);
    EXPECT_EQ(after[static_cast<size_t>(i)], b.passes);
  }
  EXPECT_EQ(before[kLaunches], b.passes);
  std::printf("%d launches: %.3f s one by one, %.3f s batched (%d passes)\n", kLaunches, alone_s,
              batch_s, b.passes);
  EXPECT_LT(batch_s, alone_s) << "a batch must cost less than its launches profiled one by one";
}

TEST_F(BatchProfileGpuTest, AFailingLaunchIsNamedAndTheNextSessionWorks) {
  auto rp = RangeProfiler::Create(metrics_, 0);
  ASSERT_TRUE(rp.ok()) << rp.status();
  std::vector<BatchLaunch> launches = {{{}, MmaLaunch(0), {}}, {{}, MmaLaunch(1), {}}};
  launches.push_back({{}, [this](cudaStream_t s) { return LaunchMmaLoop(out_, 0, 64, s); }, {}});
  BatchProfile bad = (*rp)->ProfileBatch(launches, stream_, MetricScope::kHardware);
  EXPECT_FALSE(bad.status.ok());
  EXPECT_EQ(bad.failed, 2) << bad.status;
  cudaGetLastError();  // an invalid configuration is not sticky
  launches.pop_back();
  // A hook's failure is named the same way.
  launches[1].after = [] { return absl::InternalError("check failed"); };
  BatchProfile hook = (*rp)->ProfileBatch(launches, stream_, MetricScope::kHardware);
  EXPECT_EQ(hook.failed, 1) << hook.status;
  launches[1].after = {};
  BatchProfile good = (*rp)->ProfileBatch(launches, stream_, MetricScope::kAll);
  ASSERT_TRUE(good.status.ok()) << good.status;
  ASSERT_EQ(good.launches.size(), 2u);
  for (const auto& r : good.launches) {
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->values.size(), 3u);  // every metric, the instrumented one included
    EXPECT_TRUE(r->instrumented);
  }
  // Single launches after batches: the object is enabled afresh for them.
  auto single = (*rp)->Profile(MmaLaunch(0), {}, stream_, Replay::kUser, {}, MetricScope::kAll);
  ASSERT_TRUE(single.ok()) << single.status();
  EXPECT_DOUBLE_EQ(single->values[0].second, good.launches[0]->values[0].second);
}

}  // namespace
}  // namespace flashscope::profiler

namespace flashscope::profiler {
namespace {

// The trust checks' own counter set (every tensor path, DRAM bytes): where a batched session's
// host time goes per launch, against one launch profiled alone. Prints the steps; fails when
// batching does not make a launch's counters cheaper.
TEST_F(BatchProfileGpuTest, TheWorkCountersCostLessPerLaunchBatched) {
  auto info = QueryDevice(0);
  ASSERT_TRUE(info.ok()) << info.status();
  std::vector<MetricDef> work;
  for (const std::string& hw : WorkCountersFor(info->cc)->AllHwNames()) {
    work.push_back({hw, hw, "", "", 0});
  }
  auto rp = RangeProfiler::Create(work, 0);
  ASSERT_TRUE(rp.ok()) << rp.status();
  auto alone = (*rp)->Profile(MmaLaunch(0), {}, stream_, Replay::kUser, {}, MetricScope::kHardware);
  ASSERT_TRUE(alone.ok()) << alone.status();
  alone = (*rp)->Profile(MmaLaunch(0), {}, stream_, Replay::kUser, {}, MetricScope::kHardware);
  ASSERT_TRUE(alone.ok()) << alone.status();
  constexpr int kLaunches = 64;
  std::vector<BatchLaunch> launches(kLaunches, BatchLaunch{{}, MmaLaunch(0), {}});
  BatchProfile b = (*rp)->ProfileBatch(launches, stream_, MetricScope::kHardware);
  ASSERT_TRUE(b.status.ok()) << b.status;
  b = (*rp)->ProfileBatch(launches, stream_, MetricScope::kHardware);  // enabled: no re-enable
  ASSERT_TRUE(b.status.ok()) << b.status;
  const PassHostSeconds& h = b.host;
  const double per = 1e3 / kLaunches / b.passes;
  std::printf(
      "alone: %.2f ms, %d passes; batch of %d: %.2f ms a launch, %d passes; per launch and pass: "
      "before %.3f, drain %.3f, push %.3f (with Start), launch+sync %.3f, pop %.3f (with Stop), "
      "after %.3f ms\n",
      alone->wall_s * 1e3, alone->passes, kLaunches, b.wall_s * 1e3 / kLaunches, b.passes,
      h.before * per, h.drain * per, h.start * per, h.launch * per, h.stop * per, h.after * per);
  EXPECT_LT(b.wall_s / kLaunches, alone->wall_s);
}

}  // namespace
}  // namespace flashscope::profiler

namespace flashscope::profiler {
namespace {

// The work screen (work_counters.h, WorkScreen) on the GPU: for the calibration loop's mma.sync
// m16n8k16 (fp16 in, fp32 accumulate) the identity holds, the paths it derives equal the full
// set's counts exactly, launch by launch, and it costs fewer passes; the scalar scope counts the
// instrumented FFMAs as the full set does. Prints both sessions' cost per launch.
TEST_F(BatchProfileGpuTest, TheScreenStandsForTheFullSetOnMmaSync) {
  auto info = QueryDevice(0);
  ASSERT_TRUE(info.ok()) << info.status();
  const WorkCounterSet* set = WorkCountersFor(info->cc);
  ASSERT_TRUE(set->has_screen()) << "no screen for sm_" << info->cc;
  std::vector<MetricDef> work, screen;
  for (const std::string& hw : set->AllHwNames()) work.push_back({hw, hw, "", "", 0});
  for (const std::string& hw : set->ScreenHwNames()) screen.push_back({hw, hw, "", "", 0});
  auto rp = RangeProfiler::Create(work, 0, screen);
  ASSERT_TRUE(rp.ok()) << rp.status();
  ASSERT_TRUE((*rp)->has_scope(MetricScope::kScreen));
  ASSERT_TRUE((*rp)->has_scope(MetricScope::kScalar));
  std::vector<BatchLaunch> launches;
  for (int i = 0; i < 8; ++i) launches.push_back({{}, MmaLaunch(i), {}});
  BatchProfile s = (*rp)->ProfileBatch(launches, stream_, MetricScope::kScreen);
  ASSERT_TRUE(s.status.ok()) << s.status;
  BatchProfile h = (*rp)->ProfileBatch(launches, stream_, MetricScope::kHardware);
  ASSERT_TRUE(h.status.ok()) << h.status;
  BatchProfile sc = (*rp)->ProfileBatch(launches, stream_, MetricScope::kScalar);
  ASSERT_TRUE(sc.status.ok()) << sc.status;
  BatchProfile all = (*rp)->ProfileBatch(launches, stream_, MetricScope::kAll);
  ASSERT_TRUE(all.status.ok()) << all.status;
  std::printf(
      "passes: screen %d, hardware %d, scalar %d, all %d; per launch: screen %.2f ms, "
      "hardware %.2f ms, scalar %.2f ms\n",
      s.passes, h.passes, sc.passes, all.passes, s.wall_s * 1e3 / launches.size(),
      h.wall_s * 1e3 / launches.size(), sc.wall_s * 1e3 / launches.size());
  EXPECT_LT(s.passes, h.passes);
  EXPECT_EQ(sc.passes, 1);  // the instrumented counters alone, no time counters beside them
  auto by_name = [](const ProfileResult& r) {
    std::map<std::string, double> m;
    for (const auto& [def, v] : r.values) m[def.hw_name] = v;
    return m;
  };
  for (size_t i = 0; i < launches.size(); ++i) {
    ASSERT_TRUE(s.launches[i].ok() && h.launches[i].ok() && sc.launches[i].ok() &&
                all.launches[i].ok())
        << "launch " << i;
    EXPECT_EQ(s.launches[i]->scope, MetricScope::kScreen);
    const std::map<std::string, double> counts = by_name(*s.launches[i]);
    const ScreenOutcome o = ApplyScreen(*set, counts);
    ASSERT_TRUE(o.complete) << "launch " << i << ": " << o.why;
    const std::map<std::string, double> full = by_name(*h.launches[i]);
    const std::string ffma = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum";
    for (const auto& [path, value] : o.values) {
      if (path == set->dram_read || path == set->dram_write) continue;  // cache state differs
      if (path == set->screen.scalar_instructions) {
        // The FP32 bound (not in the full set): its warp instructions hold every FFMA lane.
        EXPECT_GE(value * 32, by_name(*sc.launches[i]).at(ffma)) << "launch " << i;
        continue;
      }
      EXPECT_EQ(value, full.at(path)) << path << ", launch " << i;
    }
    EXPECT_GT(o.values.at(set->paths[0].hw_name), 0) << "launch " << i;
    EXPECT_EQ(by_name(*sc.launches[i]).at(ffma), by_name(*all.launches[i]).at(ffma))
        << "launch " << i;
    std::printf("launch %zu: tensor instructions %.0f, mma.sync fp16 FLOPs %.0f\n", i,
                counts.at(set->screen.tensor_instructions),
                counts.at(set->screen.mma_sync_flops[0]));
  }
}

}  // namespace
}  // namespace flashscope::profiler
