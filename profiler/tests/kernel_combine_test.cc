#include "profiler/kernel_combine.h"

#include <gtest/gtest.h>

#include "profiler/metric_catalogue.h"

namespace flashscope::profiler {
namespace {

TEST(CombineRuleFor, FromRollupAndSubmetric) {
  EXPECT_EQ(CombineRuleFor("dram__bytes.sum"), KernelCombine::kSum);
  EXPECT_EQ(CombineRuleFor("gpu__time_duration.sum"), KernelCombine::kSum);
  EXPECT_EQ(CombineRuleFor("gpu__time_duration.max"), KernelCombine::kMax);
  EXPECT_EQ(CombineRuleFor("sm__cycles_active.min"), KernelCombine::kMin);
  EXPECT_EQ(CombineRuleFor("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
            KernelCombine::kTimeWeighted);
  EXPECT_EQ(CombineRuleFor("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_"
                           "elapsed"),
            KernelCombine::kTimeWeighted);
  EXPECT_EQ(CombineRuleFor("lts__t_sector_hit_rate.pct"), KernelCombine::kTimeWeighted);
  EXPECT_EQ(CombineRuleFor("smsp__cycles_elapsed.avg.per_second"), KernelCombine::kTimeWeighted);
  EXPECT_EQ(CombineRuleFor("dram__bytes.sum.per_second"), KernelCombine::kTimeWeighted);
  EXPECT_EQ(CombineRuleFor("no_dot_at_all"), KernelCombine::kTimeWeighted);
}

TEST(CombineRuleFor, CatalogueCountsAddAndPercentagesAverage) {
  for (const MetricDef& m : MetricCatalogue(90)) {
    const KernelCombine rule = CombineRuleFor(m.hw_name);
    if (m.unit == "%" || m.unit == "Hz") {
      EXPECT_EQ(rule, KernelCombine::kTimeWeighted) << m.name;
    } else {
      EXPECT_EQ(rule, KernelCombine::kSum) << m.name << " (" << m.unit << ")";
    }
  }
}

TEST(CombineKernelValues, SumMaxMin) {
  EXPECT_DOUBLE_EQ(CombineKernelValues(KernelCombine::kSum, {1, 2, 3.5}, {}), 6.5);
  EXPECT_DOUBLE_EQ(CombineKernelValues(KernelCombine::kMax, {1, 7, 3}, {}), 7);
  EXPECT_DOUBLE_EQ(CombineKernelValues(KernelCombine::kMin, {4, 2, 3}, {}), 2);
}

TEST(CombineKernelValues, TimeWeighted) {
  // A 90 % kernel for 3 us and a 10 % kernel for 1 us: busy 2.8 of 4 us = 70 %.
  EXPECT_DOUBLE_EQ(CombineKernelValues(KernelCombine::kTimeWeighted, {90, 10}, {3000, 1000}), 70);
  // No time recorded: plain mean rather than a division by zero.
  EXPECT_DOUBLE_EQ(CombineKernelValues(KernelCombine::kTimeWeighted, {90, 10}, {0, 0}), 50);
}

TEST(CombineKernelValues, OneKernelUnchangedAndEmptyIsZero) {
  for (KernelCombine r : {KernelCombine::kSum, KernelCombine::kMax, KernelCombine::kMin,
                          KernelCombine::kTimeWeighted}) {
    EXPECT_DOUBLE_EQ(CombineKernelValues(r, {42.5}, {0}), 42.5) << CombineRuleName(r);
    EXPECT_DOUBLE_EQ(CombineKernelValues(r, {}, {}), 0) << CombineRuleName(r);
  }
}

}  // namespace
}  // namespace flashscope::profiler
