#include "suites/shard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace flashscope::suites {
namespace {

struct FakeCase {
  int index = 0;
  std::string problem;
  std::string kernel;
};

// A problem-major plan: `problems` problems × `kernels` kernels.
std::vector<FakeCase> Plan(int problems, int kernels) {
  std::vector<FakeCase> plan;
  for (int p = 0; p < problems; ++p) {
    for (int k = 0; k < kernels; ++k) {
      plan.push_back(
          {static_cast<int>(plan.size()), "p" + std::to_string(p), "k" + std::to_string(k)});
    }
  }
  return plan;
}

std::string Key(const FakeCase& c) { return c.kernel + " " + c.problem; }

TEST(ParseShard, AcceptsKOverN) {
  auto s = ParseShard("2/4");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->k, 2);
  EXPECT_EQ(s->n, 4);
  EXPECT_EQ(s->Name(), "2/4");
  auto all = ParseShard("");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->everything());
}

TEST(ParseShard, RefusesBadTextWithTheExpectedForm) {
  for (const char* bad : {"2", "0/4", "5/4", "a/b", "2/4/1", "-1/3", "1/0"}) {
    auto s = ParseShard(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(std::string(s.status().message()).find("--shard"), std::string::npos) << bad;
  }
}

// Every case exactly once over the N shards, each shard in plan order, for several sizes.
TEST(SelectShard, DisjointCoveringAndDeterministic) {
  for (int problems : {1, 2, 3, 7, 12}) {
    for (int kernels : {1, 3, 5}) {
      const auto plan = Plan(problems, kernels);
      for (int n : {1, 2, 3, 4, 8}) {
        std::multiset<std::string> seen;
        for (int k = 1; k <= n; ++k) {
          auto shard = SelectShard(plan, Shard{k, n}, [](const FakeCase& c) { return c.problem; });
          auto again = SelectShard(plan, Shard{k, n}, [](const FakeCase& c) { return c.problem; });
          ASSERT_EQ(shard.size(), again.size());
          for (size_t i = 0; i < shard.size(); ++i) {
            EXPECT_EQ(shard[i].index, static_cast<int>(i)) << "renumbered within the shard";
            EXPECT_EQ(Key(shard[i]), Key(again[i]));
            seen.insert(Key(shard[i]));
          }
        }
        ASSERT_EQ(seen.size(), plan.size()) << problems << "x" << kernels << " over " << n;
        for (const auto& c : plan) EXPECT_EQ(seen.count(Key(c)), 1u) << Key(c);
      }
    }
  }
}

TEST(SelectShard, KeepsAProblemsKernelsTogetherWhenThereAreEnoughProblems) {
  const auto plan = Plan(6, 4);
  auto shard = SelectShard(plan, Shard{2, 3}, [](const FakeCase& c) { return c.problem; });
  ASSERT_EQ(shard.size(), 8u);  // problems p1 and p4, four kernels each
  for (const auto& c : shard) EXPECT_TRUE(c.problem == "p1" || c.problem == "p4") << c.problem;
}

TEST(SelectShard, DealsCasesWhenProblemsAreFewerThanShards) {
  const auto plan = Plan(1, 5);
  for (int k = 1; k <= 4; ++k) {
    auto shard = SelectShard(plan, Shard{k, 4}, [](const FakeCase& c) { return c.problem; });
    EXPECT_FALSE(shard.empty()) << "shard " << k << " of 4 has no case";
  }
}

}  // namespace
}  // namespace flashscope::suites
