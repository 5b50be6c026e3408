#include "analysis/tests/synthetic_series.h"

#include <algorithm>

namespace flashscope::reports::testing {

std::vector<RevisionSamples> MakeSyntheticHistory(const SyntheticHistorySpec& spec,
                                                  std::mt19937_64& rng) {
  std::normal_distribution<double> noise(0, spec.noise);
  std::vector<RevisionSamples> out;
  for (int i = 0; i < spec.revisions; ++i) {
    double level = 1.0;
    for (const PlantedStep& s : spec.steps) {
      if (i >= s.index) level *= 1 + s.size;
    }
    const double run = level * (1 + noise(rng));
    RevisionSamples r;
    for (int k = 0; k < spec.samples; ++k) r.samples_ms.push_back(run * (1 + noise(rng)));
    r.median_ms = MedianOf(r.samples_ms);
    out.push_back(std::move(r));
  }
  return out;
}

DetectionScore ScoreDetector(const SyntheticHistorySpec& spec, int trials, uint64_t seed,
                             const ChangePointOptions& options) {
  std::mt19937_64 rng(seed);
  DetectionScore score;
  for (int t = 0; t < trials; ++t) {
    const ChangePointResult found = FindChangePoints(MakeSyntheticHistory(spec, rng), options);
    ++score.histories;
    score.planted += static_cast<int>(spec.steps.size());
    for (const ChangePoint& c : found.changes) {
      auto planted = std::find_if(spec.steps.begin(), spec.steps.end(), [&](const PlantedStep& s) {
        return s.index == c.index && (s.size > 0) == (c.change > 0);
      });
      if (planted != spec.steps.end()) {
        ++score.detected;
      } else {
        ++score.false_changes;
      }
    }
  }
  return score;
}

}  // namespace flashscope::reports::testing
