#include "reports/shard_set.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace flashscope::reports {

std::string ShardSet::Name() const {
  if (Whole()) return "";
  return absl::StrCat(absl::StrJoin(shards, ","), "/", n);
}

std::string ShardSet::MissingNames() const {
  std::vector<std::string> missing;
  for (int k = 1; k <= n; ++k) {
    if (!shards.count(k)) missing.push_back(absl::StrCat(k, "/", n));
  }
  return absl::StrJoin(missing, ", ");
}

absl::StatusOr<ShardSet> ParseShardSet(const std::string& text) {
  ShardSet set;
  if (text.empty()) return set;
  const std::vector<std::string> parts = absl::StrSplit(text, '/');
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat("shard '", text, "': ", why,
                     " (expected K/N, e.g. 2/4, or a list of shards K1,K2/N with 1 <= K <= N)"));
  };
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[1], &set.n) || set.n < 1) {
    return bad("not K/N");
  }
  for (absl::string_view k_text : absl::StrSplit(parts[0], ',')) {
    int k = 0;
    if (!absl::SimpleAtoi(k_text, &k) || k < 1 || k > set.n) {
      return bad(absl::StrCat("'", k_text, "' is not a shard number between 1 and ", set.n));
    }
    if (!set.shards.insert(k).second) return bad(absl::StrCat("shard ", k, " is named twice"));
  }
  return set;
}

}  // namespace flashscope::reports
