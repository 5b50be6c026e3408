#include "profiler/paired_sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "profiler/sample_stats.h"

namespace flashscope::profiler {
namespace {

// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014):
// the increment walks the state, the finaliser mixes every bit into every output bit.
uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

bool PairOrder::AFirst() {
  state_ += 0x9e3779b97f4a7c15ull;
  return (Mix(state_) >> 63) != 0;  // the top bit: the best mixed
}

uint64_t CaseSeed(uint64_t session_seed, int case_index) {
  return Mix(session_seed ^ Mix(static_cast<uint64_t>(case_index) + 0x9e3779b97f4a7c15ull));
}

bool ShouldStopPairs(const std::vector<double>& log_ratios, const PairPolicy& policy,
                     double elapsed_s, bool* converged, std::string* reason) {
  auto decide = [&](bool stop, bool conv, const char* why) {
    if (converged) *converged = conv;
    if (reason) *reason = stop ? why : "";
    return stop;
  };
  const int n = static_cast<int>(log_ratios.size());
  if (n >= policy.timing.min_samples &&
      MedianStandardError(log_ratios) <= policy.log_ratio_noise_target) {
    return decide(true, true, "noise_target");
  }
  if (n >= policy.timing.max_samples) return decide(true, false, "max_samples");
  if (elapsed_s >= policy.timing.time_cap_s) return decide(true, false, "time_cap");
  return decide(false, false, "");
}

}  // namespace flashscope::profiler
