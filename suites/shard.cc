#include "suites/shard.h"

#include <map>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace flashscope::suites {

std::string Shard::Name() const { return absl::StrCat(k, "/", n); }

absl::StatusOr<Shard> ParseShard(const std::string& text) {
  if (text.empty()) return Shard{};
  std::vector<std::string> parts = absl::StrSplit(text, '/');
  Shard s;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &s.k) || !absl::SimpleAtoi(parts[1], &s.n)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--shard '", text, "': expected K/N, e.g. 2/4 for the second of four shards"));
  }
  if (s.n < 1 || s.k < 1 || s.k > s.n) {
    return absl::InvalidArgumentError(
        absl::StrCat("--shard '", text, "': K must be between 1 and N (shards are numbered 1..N)"));
  }
  return s;
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
