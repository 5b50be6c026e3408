// `flashscope run --shard K/N`: the part of a suite's plan that one of N CI jobs (or cluster array
// tasks) runs, so that the N reports can be joined with `flashscope merge`.
//
// The selection is deterministic (it depends only on the plan), the shards are disjoint and
// together cover every case. Cases are dealt out by problem (all kernels of one problem go to the
// same shard, round-robin over problems), because the worker computes each problem's inputs and
// reference once and reuses them for every kernel of that problem; splitting a problem's kernels
// over shards would repeat that work in each. When the plan has fewer problems than shards, cases
// are dealt out one by one instead, so that no shard is left idle.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace flashscope::suites {

struct Shard {
  int k = 1;  // 1-based: this is shard k of n
  int n = 1;
  bool everything() const { return n == 1; }
  std::string Name() const;  // "2/4"
};

// "K/N" with 1 <= K <= N; "" means the whole plan (1/1). Errors say what was expected.
absl::StatusOr<Shard> ParseShard(const std::string& text);

// The positions (into a plan whose cases have these problem keys, in plan order) that belong to
// `shard`, in plan order.
std::vector<size_t> ShardPositions(const std::vector<std::string>& problem_keys,
                                   const Shard& shard);

// The shard's cases of `plan`, renumbered 0.. so that the shard is a plan of its own (its journal
// and report index cases within the shard). `problem_key` maps a case to its problem key.
template <class Case, class KeyFn>
std::vector<Case> SelectShard(const std::vector<Case>& plan, const Shard& shard,
                              KeyFn problem_key) {
  if (shard.everything()) return plan;
  std::vector<std::string> keys;
  keys.reserve(plan.size());
  for (const Case& c : plan) keys.push_back(problem_key(c));
  std::vector<Case> out;
  for (size_t pos : ShardPositions(keys, shard)) {
    out.push_back(plan[pos]);
    out.back().index = static_cast<int>(out.size()) - 1;
  }
  return out;
}

}  // namespace flashscope::suites
