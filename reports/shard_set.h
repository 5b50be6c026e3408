// Which shards of a suite's plan a report holds (docs/report-schema.md, suite.shard): "K/N" for the
// report of `flashscope run --shard K/N`, "K1,K2,.../N" for a merge of some of the N shards, "" for
// the whole plan. `flashscope merge` reads it to tell a complete set of shards from an incomplete
// one, and writes the union.
#pragma once

#include <set>
#include <string>

#include "absl/status/statusor.h"

namespace flashscope::reports {

struct ShardSet {
  std::set<int> shards;  // 1-based; empty with n == 1: the whole plan
  int n = 1;

  bool Whole() const { return n == 1 || static_cast<int>(shards.size()) == n; }
  // "" for the whole plan, else "1,3/4".
  std::string Name() const;
  // The shards of 1..n that are not here, as "2/4, 4/4".
  std::string MissingNames() const;
};

// Parses suite.shard; errors say what was expected (1 <= K <= N, each K once).
absl::StatusOr<ShardSet> ParseShardSet(const std::string& text);

}  // namespace flashscope::reports
