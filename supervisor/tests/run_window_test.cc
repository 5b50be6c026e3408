// How many cases a worker may hold at once: `flashscope run`'s choice (supervisor/run_window.h)
// and the scheduler's narrowing of it as the queue drains (EffectiveWindow,
// supervisor/device_scheduler.h).
#include "supervisor/run_window.h"

#include <gtest/gtest.h>

#include "supervisor/device_scheduler.h"

namespace flashscope::suites {
namespace {

Suite SuiteWith(const std::string& metrics, std::vector<std::string> trust_off) {
  Suite s;
  s.metrics = metrics;
  s.trust.off = std::move(trust_off);
  return s;
}

TEST(RunWindow, WorkersParkOnlyWithoutMetricsAndWithTheWorkCheck) {
  // Nothing asked: the work counters are collected per batch.
  EXPECT_TRUE(WorkerParksCases("", SuiteWith("", {})));
  EXPECT_EQ(RunWindow("", SuiteWith("", {})), kRunWindow);
  EXPECT_TRUE(WorkerParksCases("none", SuiteWith("", {})));
  EXPECT_TRUE(WorkerParksCases("", SuiteWith("none", {"plausibility", "streams"})));
  // --metrics=none overrides the suite's metrics, as the worker reads it.
  EXPECT_TRUE(WorkerParksCases("none", SuiteWith("full", {})));
  // Metrics asked, on the command line or by the suite: one case at a time.
  EXPECT_FALSE(WorkerParksCases("basic", SuiteWith("", {})));
  EXPECT_EQ(RunWindow("basic", SuiteWith("", {})), 1);
  EXPECT_FALSE(WorkerParksCases("", SuiteWith("full", {})));
  EXPECT_FALSE(WorkerParksCases("dram__bytes_read.sum", SuiteWith("none", {})));
  // The work check off: no counters at all, nothing to batch.
  EXPECT_FALSE(WorkerParksCases("", SuiteWith("", {"timed_outputs", "work"})));
  EXPECT_EQ(RunWindow("none", SuiteWith("", {"work"})), 1);
}

TEST(EffectiveWindow, ShrinksAsTheQueueDrainsSoThatTheGpusFinishTogether) {
  // Plenty left: the job's window.
  EXPECT_EQ(EffectiveWindow(256, 10000, 2), 256);
  EXPECT_EQ(EffectiveWindow(8, 100, 4), 8);
  // Half of an even share of what is left, never less than one.
  EXPECT_EQ(EffectiveWindow(256, 100, 2), 25);
  // One GPU: nothing to balance, the whole window to the end (fewer counter sessions).
  EXPECT_EQ(EffectiveWindow(256, 100, 1), 256);
  EXPECT_EQ(EffectiveWindow(256, 1, 1), 256);
  EXPECT_EQ(EffectiveWindow(256, 7, 2), 1);
  EXPECT_EQ(EffectiveWindow(256, 3, 2), 1);
  EXPECT_EQ(EffectiveWindow(256, 0, 2), 1);
  // Window 1 (ab, metrics asked) is one case at a time whatever is left.
  EXPECT_EQ(EffectiveWindow(1, 10000, 1), 1);
  EXPECT_EQ(EffectiveWindow(1, 0, 8), 1);
  // No GPU left counts as one; a window below one is one case at a time.
  EXPECT_EQ(EffectiveWindow(256, 100, 0), 256);
  EXPECT_EQ(EffectiveWindow(0, 100, 2), 1);
  EXPECT_EQ(EffectiveWindow(-3, 100, 2), 1);
  // Monotone in what is left: a refill never asks for more than the one before it.
  int previous = EffectiveWindow(64, 1000, 3);
  for (size_t left = 1000; left-- > 0;) {
    const int w = EffectiveWindow(64, left, 3);
    EXPECT_LE(w, previous) << left;
    EXPECT_GE(w, 1);
    previous = w;
  }
}

}  // namespace
}  // namespace flashscope::suites
