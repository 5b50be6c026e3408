// The hand-out of a run's cases to its GPUs (supervisor/case_queue.h): problem-major, dynamic, the
// orphans of a dead worker first, and sharing a problem only when a GPU would idle.
#include "supervisor/case_queue.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace flashscope::suites {
namespace {

// `problems` problems of `kernels` cases each, in plan order: "k0 p0", "k1 p0", ...
std::vector<QueuedCase> Plan(int problems, int kernels) {
  std::vector<QueuedCase> cases;
  for (int p = 0; p < problems; ++p) {
    for (int k = 0; k < kernels; ++k) {
      cases.push_back(
          {"k" + std::to_string(k) + " p" + std::to_string(p), "p" + std::to_string(p)});
    }
  }
  return cases;
}

std::string NextKey(CaseQueue& q, int gpu) {
  auto c = q.Next(gpu);
  return c ? c->key : "(none)";
}

TEST(CaseQueue, OneGpuRunsThePlanInOrder) {
  CaseQueue q(Plan(2, 2));
  EXPECT_EQ(NextKey(q, 0), "k0 p0");
  EXPECT_EQ(NextKey(q, 0), "k1 p0");
  EXPECT_EQ(NextKey(q, 0), "k0 p1");
  EXPECT_EQ(NextKey(q, 0), "k1 p1");
  EXPECT_EQ(NextKey(q, 0), "(none)");
  EXPECT_TRUE(q.empty());
}

TEST(CaseQueue, EachGpuTakesAWholeProblemAndTheNextUntouchedOneWhenItIsDone) {
  CaseQueue q(Plan(3, 3));
  EXPECT_EQ(NextKey(q, 0), "k0 p0");
  EXPECT_EQ(NextKey(q, 1), "k0 p1") << "a second GPU starts its own problem";
  EXPECT_EQ(NextKey(q, 0), "k1 p0");
  EXPECT_EQ(NextKey(q, 0), "k2 p0");
  // GPU 0 is faster: it takes the untouched problem, not GPU 1's.
  EXPECT_EQ(NextKey(q, 0), "k0 p2");
  EXPECT_EQ(NextKey(q, 1), "k1 p1");
  EXPECT_EQ(q.size(), 3u);
}

TEST(CaseQueue, AnIdleGpuSharesTheProblemWithTheMostCasesLeftTakingFromItsBack) {
  CaseQueue q(Plan(1, 6));
  EXPECT_EQ(NextKey(q, 0), "k0 p0");
  EXPECT_EQ(NextKey(q, 1), "k5 p0") << "nothing untouched: GPU 1 joins p0 from the back";
  EXPECT_EQ(NextKey(q, 0), "k1 p0");
  EXPECT_EQ(NextKey(q, 1), "k2 p0") << "on p0 now: it takes the front like its owner";
  EXPECT_EQ(NextKey(q, 0), "k3 p0");
  EXPECT_EQ(NextKey(q, 1), "k4 p0");
  EXPECT_EQ(NextKey(q, 0), "(none)");
}

TEST(CaseQueue, NoSharingForTheLastCaseOfAProblem) {
  CaseQueue q(Plan(1, 2));
  EXPECT_EQ(NextKey(q, 0), "k0 p0");
  EXPECT_FALSE(q.HasCaseFor(1)) << "so no worker is started for GPU 1";
  EXPECT_EQ(NextKey(q, 1), "(none)")
      << "one case left: its GPU runs it next, no second reference for it";
  EXPECT_EQ(NextKey(q, 0), "k1 p0");
}

TEST(CaseQueue, TheProblemOfADeadWorkerGoesOnFirstFromItsFront) {
  CaseQueue q(Plan(3, 3));
  EXPECT_EQ(NextKey(q, 0), "k0 p0");
  EXPECT_EQ(NextKey(q, 1), "k0 p1");
  EXPECT_EQ(NextKey(q, 0), "k1 p0");  // GPU 0's worker dies in it: recorded, not put back
  q.Leave(0);
  EXPECT_EQ(NextKey(q, 0), "k2 p0") << "the restarted worker goes on with the orphaned problem";
  // A case handed out that never started goes back to the front.
  auto c = q.Next(1);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->key, "k1 p1");
  q.PutBack(*c);
  q.Leave(1);
  EXPECT_EQ(NextKey(q, 0), "k1 p1") << "an orphan comes before the untouched p2";
}

TEST(CaseQueue, RemoveTakesOutQueuedCasesOnly) {
  CaseQueue q(Plan(2, 2));
  EXPECT_EQ(NextKey(q, 0), "k0 p0");
  const auto removed = q.Remove({"k0 p0", "k1 p0", "k1 p1", "nope"});
  ASSERT_EQ(removed.size(), 2u);
  EXPECT_EQ(removed[0].key, "k1 p0");
  EXPECT_EQ(removed[1].key, "k1 p1");
  EXPECT_EQ(NextKey(q, 0), "k0 p1");
  EXPECT_TRUE(q.empty());
}

TEST(CaseQueue, EveryCaseIsHandedOutExactlyOnceWhateverTheOrderOfAsking) {
  CaseQueue q(Plan(5, 4));
  std::map<std::string, int> seen;
  std::map<int, std::set<std::string>> problems_of;  // GPU -> problems it made inputs for
  const int order[] = {0, 1, 2, 2, 1, 0, 0, 0, 1, 2, 2, 2, 0, 1, 1, 1, 0, 2, 0, 1, 2, 0, 1, 2};
  std::map<int, std::string> last;
  for (int gpu : order) {
    auto c = q.Next(gpu);
    if (!c) continue;
    ++seen[c->key];
    if (last[gpu] != c->problem) {
      EXPECT_TRUE(problems_of[gpu].insert(c->problem).second)
          << "GPU " << gpu << " came back to " << c->problem << ": its inputs made twice";
    }
    last[gpu] = c->problem;
  }
  EXPECT_EQ(seen.size(), 20u);
  for (const auto& [key, n] : seen) EXPECT_EQ(n, 1) << key;
}

}  // namespace
}  // namespace flashscope::suites
