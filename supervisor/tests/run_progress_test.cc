// The ETA of a run's progress lines counts the GPUs working at once (supervisor/run_progress.h).
#include "supervisor/run_progress.h"

#include <gtest/gtest.h>

namespace flashscope::suites {
namespace {

TEST(RunProgress, EtaIsTheMeanCaseTimePerWaveOfGpus) {
  // 4 cases took 40 s: 10 s each.
  EXPECT_DOUBLE_EQ(EtaSeconds(40, 4, 8, 1), 80) << "one GPU runs them one after another";
  EXPECT_DOUBLE_EQ(EtaSeconds(40, 4, 8, 4), 20) << "four GPUs: two waves";
  EXPECT_DOUBLE_EQ(EtaSeconds(40, 4, 3, 4), 10) << "fewer cases than GPUs: one wave";
  EXPECT_DOUBLE_EQ(EtaSeconds(40, 4, 0, 4), 0);
  EXPECT_DOUBLE_EQ(EtaSeconds(0, 0, 8, 4), 0) << "nothing timed yet: no guess";
  EXPECT_EQ(MinSec(125.4), "2:05");
}

}  // namespace
}  // namespace flashscope::suites
