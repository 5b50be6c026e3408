// "Did you mean": the known names nearest to a misspelt one, by edit distance. One helper for every
// name a user types: kernels and suites (suites/, runner/), commands and flags (cli/), metrics
// (profiler/metric_catalogue.cc). Header-only, so that each of those layers may use it.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace flashscope {

// Levenshtein distance: insertions, deletions and substitutions, one each.
inline size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// The `how_many` known names closest to `name`, nearest first; ties keep the order of `known`.
inline std::vector<std::string> ClosestNames(const std::string& name,
                                             const std::vector<std::string>& known,
                                             size_t how_many) {
  std::vector<std::pair<size_t, const std::string*>> scored;
  scored.reserve(known.size());
  for (const auto& k : known) scored.emplace_back(EditDistance(name, k), &k);
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < how_many; ++i) out.push_back(*scored[i].second);
  return out;
}

// The one known name `name` is most likely a typo of: a unique completion of a prefix, else the
// closest by edit distance when it is close enough (1 edit for up to 3 characters, 2 up to 8,
// then 3); "" when none is.
inline std::string DidYouMean(const std::string& name, const std::vector<std::string>& known) {
  if (name.empty()) return "";
  // A unique completion of a prefix ("--pol" -> "--policy") is the likeliest intent.
  std::string completion;
  int completions = 0;
  for (const std::string& k : known) {
    if (k.compare(0, name.size(), name) == 0) {
      completion = k;
      ++completions;
    }
  }
  if (completions == 1 && name.size() >= 2) return completion;
  const size_t limit = name.size() <= 3 ? 1 : (name.size() <= 8 ? 2 : 3);
  std::vector<std::string> closest = ClosestNames(name, known, 1);
  if (closest.empty() || EditDistance(name, closest[0]) > limit) return "";
  return closest[0];
}

}  // namespace flashscope
