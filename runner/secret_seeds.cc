#include "runner/secret_seeds.h"

#include <random>

#include "verify/sampled_check_counts.h"

namespace flashscope::runner {

SecretSeeds::SecretSeeds() {
  std::random_device entropy;
  state_ = (static_cast<uint64_t>(entropy()) << 32) ^ static_cast<uint64_t>(entropy());
}

uint64_t SecretSeeds::Next() {
  state_ += 0x9E3779B97F4A7C15ull;
  ++drawn_;
  return verify::SampleMix(state_);
}

}  // namespace flashscope::runner
