#include "suites/shard.h"

#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "reports/shard_set.h"

namespace flashscope::suites {

std::string Shard::Name() const { return absl::StrCat(k, "/", n); }

absl::StatusOr<Shard> ParseShard(const std::string& text) {
  if (text.empty()) return Shard{};
  // One shard of the report field's form (reports/shard_set.h): a list is not a --shard.
  auto set = reports::ParseShardSet(text);
  if (!set.ok() || set->shards.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--shard '", text,
                     "': expected K/N with 1 <= K <= N, e.g. 2/4 for the second of four shards"));
  }
  return Shard{*set->shards.begin(), set->n};
}

std::vector<size_t> ShardPositions(const std::vector<std::string>& problem_keys,
                                   const Shard& shard) {
  std::vector<size_t> out;
  // Problems in order of first appearance (the plan is problem-major, so this is plan order).
  std::map<std::string, size_t> problem_number;
  for (const auto& key : problem_keys) problem_number.emplace(key, problem_number.size());
  const bool by_problem = problem_number.size() >= static_cast<size_t>(shard.n);
  for (size_t pos = 0; pos < problem_keys.size(); ++pos) {
    const size_t unit = by_problem ? problem_number[problem_keys[pos]] : pos;
    if (static_cast<int>(unit % static_cast<size_t>(shard.n)) == shard.k - 1) out.push_back(pos);
  }
  return out;
}

}  // namespace flashscope::suites
