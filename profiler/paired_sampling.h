// Interleaved timing of two launches (flashscope ab, docs/gating.md): the policy, the seeded coin
// that orders each pair, the stopping rule and the result. Free of CUDA headers, like
// timing_policy.h, so that it is tested on any machine; the Timer that takes the samples is in
// timing.h (Timer::TimePair).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "profiler/timing_policy.h"

namespace flashscope::profiler {

struct PairPolicy {
  // cold: L2 flushed before every sample of either side; warmup: launches of each side before
  // the first pair; min_samples / max_samples: pairs; time_cap_s: for all pairs together;
  // throttle_ratio: a pair is dropped when either sample's SM clock fell below ratio x the
  // highest seen. noise_target is not used (log_ratio_noise_target is).
  TimingPolicy timing;
  // Stop once the standard error of the median per-pair log-ratio ln(b / a) is at or under this
  // (an absolute value: 0.0017 = 0.17 %).
  double log_ratio_noise_target = 0.005 / 3;
  uint64_t seed = 0;  // the coin's seed
};

// Which side goes first in each pair: one fair, independent coin per pair, drawn from SplitMix64
// seeded with `seed` (deterministic for a seed; every bit of the seed matters).
class PairOrder {
 public:
  explicit PairOrder(uint64_t seed) : state_(seed) {}
  bool AFirst();

 private:
  uint64_t state_;
};

// The seed of one case's coin from a session's seed and the case's index: different cases get
// unrelated coins (SplitMix64's finaliser of the two).
uint64_t CaseSeed(uint64_t session_seed, int case_index);

// Stop once at least min_samples pairs are in and the standard error of the median log-ratio is
// at or under the target (converged, "noise_target"); or at max_samples ("max_samples"); or when
// `elapsed_s` reached time_cap_s ("time_cap"). `converged` and `reason` may be null.
bool ShouldStopPairs(const std::vector<double>& log_ratios, const PairPolicy& policy,
                     double elapsed_s, bool* converged, std::string* reason);

struct PairTimingResult {
  // Each side's accepted samples in pair order: pair i is (a.samples_ms[i], b.samples_ms[i]).
  // Their summaries, mode, warm-up runs, clocks; rejected_throttled counts dropped pairs.
  TimingResult a, b;
  std::string order;  // one letter per accepted pair: 'a' when side a's sample went first, else 'b'
  int rejected_pairs = 0;
  bool converged = false;
  std::string stop_reason;
  // On an error: the side whose launch or sample failed (0 = a, 1 = b) and the error; the pairs
  // accepted before it are kept in a and b.
  int failed_side = -1;
  absl::Status status;
};

}  // namespace flashscope::profiler
