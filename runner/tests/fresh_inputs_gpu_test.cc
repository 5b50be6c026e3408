// Fresh inputs and sampled checks around real launches (runner/fresh_inputs.h), with the GPU
// gemm reference as the "kernel": computed every launch it passes every check; computed on the
// first launch only and replayed after (a cache keyed on the buffers) it fails every later
// launch, whatever the kind; every launch reads inputs drawn from its own seed. With rotated
// buffer slots, an honest kernel still passes every launch, and a cache keyed on the buffers'
// addresses that computes only for buffers new to it or given twice in a row
// (test.cheat_pointer_cache's rule) serves a stale answer and fails. Label gpu.
#include "runner/fresh_inputs.h"

#include <cuda_runtime_api.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "verify/device_buffer.h"
#include "verify/gpu_reference.h"
#include "verify/tests/gpu_test_helpers.h"

namespace flashscope::runner {
namespace {

class FreshInputsGpu : public verify::GpuTest<> {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (!HasFatalFailure()) Make(1);
  }

  void Make(int slots) {
    problem_.m = 64;
    problem_.n = 96;
    problem_.k = 128;
    problem_.dtype = DType::kF16;
    verify::WorkspaceOptions o{verify::InputKind::kNormal, 3};
    o.slots = slots;
    auto ws = verify::Workspace::Create(problem_, o, nullptr);
    ASSERT_TRUE(ws.ok()) << ws.status();
    ws_ = *std::move(ws);
  }

  // The reference product of the current slot's inputs, written as the kernel's C.
  cudaError_t Honest() {
    return verify::GemmReferenceGpu(problem_, ws_->input(0), ws_->input(1),
                                    verify::ReferencePrecision::kFp64,
                                    static_cast<float*>(ws_->output()), nullptr);
  }

  // An address-keyed cache: the answer for buffers seen before, unless they are the previous
  // launch's too (what a profiler's replay looks like) or new; then the real work, kept.
  cudaError_t AddressCache() {
    void* c = ws_->output();
    const size_t bytes = static_cast<size_t>(problem_.m * problem_.n) * 4;
    const bool repeat = c == last_output_;
    last_output_ = c;
    auto it = cache_.find(c);
    if (it != cache_.end() && !repeat) {
      return cudaMemcpy(c, it->second.get(), bytes, cudaMemcpyDeviceToDevice);
    }
    if (cudaError_t e = Honest(); e != cudaSuccess) return e;
    verify::DeviceBuffer& kept = cache_[c];
    if (kept.get() == nullptr && !kept.Allocate(bytes, "cached answer").ok()) {
      return cudaErrorMemoryAllocation;
    }
    return cudaMemcpy(kept.get(), c, bytes, cudaMemcpyDeviceToDevice);
  }

  void MakeRotated() {
    Make(kRotatedSlots);
    ASSERT_EQ(ws_->num_slots(), kRotatedSlots) << ws_->slots_note();
  }

  enum class Kernel { kHonest, kFirstOnly, kAddressCache };

  // One case: the verified launch, 2 warm-up, 6 timed, 1 traced, 2 profiled; kFirstOnly computes
  // on the verified launch only.
  std::vector<reports::LaunchOutputCheck> RunCase(bool cached, SecretSeeds& seeds) {
    return RunCase(cached ? Kernel::kFirstOnly : Kernel::kHonest, seeds);
  }
  std::vector<reports::LaunchOutputCheck> RunCase(Kernel kernel, SecretSeeds& seeds) {
    FreshLaunches fresh(*ws_, seeds, nullptr, reports::kSampledEntriesPerLaunch);
    EXPECT_TRUE(fresh.BeforeVerified().ok());
    EXPECT_TRUE(ws_->PoisonOutputs(nullptr).ok());
    EXPECT_EQ(kernel == Kernel::kAddressCache ? AddressCache() : Honest(), cudaSuccess);
    const verify::TolerancePolicy policy = verify::DefaultTolerance(Family::kGemm, DType::kF16);
    const verify::ErrorStats& base = ws_->BaselineStats({policy.atol, policy.rtol});
    const verify::ElementBound e = verify::BoundFor(&base, policy);
    fresh.SetBound({e.absolute ? 1 : 0, e.max_abs, e.atol, e.rtol, 0, 0},
                   verify::SampledRuleFor(&base, policy));
    EXPECT_TRUE(fresh.After().ok());
    const std::pair<const char*, int> kinds[] = {
        {"warm-up", 2}, {"timed", 6}, {"traced", 1}, {"profiled", 2}};
    for (const auto& [kind, count] : kinds) {
      for (int i = 0; i < count; ++i) {
        EXPECT_TRUE(fresh.Before(kind, i, /*poison=*/i % 2 == 1).ok());
        slots_.push_back(ws_->slot());
        if (kernel == Kernel::kHonest) EXPECT_EQ(Honest(), cudaSuccess);
        if (kernel == Kernel::kAddressCache) EXPECT_EQ(AddressCache(), cudaSuccess);
        EXPECT_TRUE(fresh.After().ok());
      }
    }
    EXPECT_TRUE(fresh.Collect().ok());
    const reports::LaunchCounts& n = fresh.launches();
    EXPECT_EQ(n.total(), 12);
    EXPECT_EQ(n.timed, 6);
    describe_ = fresh.Describe();
    return fresh.checks();
  }

  GemmProblem problem_;
  std::unique_ptr<verify::Workspace> ws_;
  std::vector<int> slots_;  // the slot of each launch after the verified one
  std::string describe_;
  const void* last_output_ = nullptr;
  std::map<const void*, verify::DeviceBuffer> cache_;
};

TEST_F(FreshInputsGpu, AnHonestKernelPassesEveryLaunchOnInputsOfItsOwn) {
  SecretSeeds seeds(11);
  const std::vector<reports::LaunchOutputCheck> checks = RunCase(false, seeds);
  ASSERT_EQ(checks.size(), 12u);
  std::set<uint64_t> input_seeds;
  for (const reports::LaunchOutputCheck& c : checks) {
    SCOPED_TRACE(c.kind + " " + std::to_string(c.launch));
    EXPECT_EQ(c.rows, reports::kSampledEntriesPerLaunch);
    EXPECT_EQ(c.bad, 0);
    EXPECT_EQ(c.bad_rows, 0);
    input_seeds.insert(c.input_seed);
  }
  EXPECT_EQ(input_seeds.size(), 12u) << "every launch read inputs from a seed of its own";
  std::vector<reports::TimedLaunchRecord> failed;
  const reports::LaunchCounts counts{1, 2, 6, 1, 2};
  EXPECT_EQ(reports::CheckLaunchOutputs(checks, counts, reports::kSampledEntriesPerLaunch, &failed)
                .status,
            "passed");
}

TEST_F(FreshInputsGpu, ACacheKeyedOnTheBuffersFailsEveryLaterLaunch) {
  SecretSeeds seeds(12);
  const std::vector<reports::LaunchOutputCheck> checks = RunCase(true, seeds);
  ASSERT_EQ(checks.size(), 12u);
  EXPECT_EQ(checks[0].kind, "verified");
  EXPECT_EQ(checks[0].bad_rows, 0);
  for (size_t i = 1; i < checks.size(); ++i) {
    SCOPED_TRACE(checks[i].kind + " " + std::to_string(checks[i].launch));
    // Stale (the verified launch's answer to other inputs) or never written (poisoned): every
    // sampled entry is wrong.
    EXPECT_EQ(checks[i].bad_rows, reports::kSampledEntriesPerLaunch);
  }
}

TEST_F(FreshInputsGpu, TheNextCaseRedrawsTheVerifiedInputs) {
  SecretSeeds seeds(13);
  const uint64_t first = ws_->seed();
  RunCase(false, seeds);
  // The first case read the inputs: the next one's verified launch gets a new draw and a new
  // full reference, in the same buffers.
  const void* a = ws_->input(0);
  FreshLaunches next(*ws_, seeds, nullptr, reports::kSampledEntriesPerLaunch);
  ASSERT_TRUE(next.BeforeVerified().ok());
  EXPECT_NE(ws_->seed(), first);
  EXPECT_EQ(ws_->input(0), a);
  EXPECT_THAT(next.Describe(), ::testing::HasSubstr("1 redraw(s)"));
}

TEST_F(FreshInputsGpu, AnAddressCacheComputesEveryLaunchWhenTheBuffersNeverMove) {
  // One slot: every launch gets the same addresses, so the cache's rule always says "repeat" and
  // it does the work. This is what rotation is for.
  SecretSeeds seeds(14);
  for (const reports::LaunchOutputCheck& c : RunCase(Kernel::kAddressCache, seeds)) {
    EXPECT_EQ(c.bad_rows, 0);
  }
  EXPECT_THAT(describe_, ::testing::HasSubstr("buffers not rotated"));
}

TEST_F(FreshInputsGpu, RotatedSlotsPassAnHonestKernelEveryLaunch) {
  ASSERT_NO_FATAL_FAILURE(MakeRotated());
  SecretSeeds seeds(15);
  const std::vector<reports::LaunchOutputCheck> checks = RunCase(Kernel::kHonest, seeds);
  for (const reports::LaunchOutputCheck& c : checks) EXPECT_EQ(c.bad_rows, 0);
  EXPECT_EQ(slots_[0], 1) << "the first launch after the verified one gets the unused slot";
  EXPECT_EQ(std::set<int>(slots_.begin(), slots_.end()).size(), 2u);
  EXPECT_THAT(describe_, ::testing::HasSubstr("buffers rotated: 2 buffer slots"));
}

TEST_F(FreshInputsGpu, RotatedSlotsMakeAnAddressCacheServeStaleAnswers) {
  ASSERT_NO_FATAL_FAILURE(MakeRotated());
  SecretSeeds seeds(16);
  const std::vector<reports::LaunchOutputCheck> checks = RunCase(Kernel::kAddressCache, seeds);
  ASSERT_EQ(checks.size(), slots_.size() + 1);
  int served = 0;
  for (size_t i = 1; i < checks.size(); ++i) {
    SCOPED_TRACE(checks[i].kind + " " + std::to_string(checks[i].launch));
    const int previous = i == 1 ? 0 : slots_[i - 2];
    // Seen before and not the previous launch's: the cache served the answer to other inputs.
    const bool serves = i > 1 && slots_[i - 1] != previous;
    served += serves;
    if (serves) {
      EXPECT_GT(checks[i].bad_rows, reports::kSampledEntriesPerLaunch / 2);
    } else {
      EXPECT_EQ(checks[i].bad_rows, 0);
    }
  }
  ASSERT_GT(served, 0) << "the drawn order never came back to a slot: another key would";
  std::vector<reports::TimedLaunchRecord> failed;
  const reports::LaunchCounts counts{1, 2, 6, 1, 2};
  EXPECT_EQ(reports::CheckLaunchOutputs(checks, counts, reports::kSampledEntriesPerLaunch, &failed)
                .status,
            "failed");
}

}  // namespace
}  // namespace flashscope::runner
