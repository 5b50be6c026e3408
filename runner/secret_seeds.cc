#include "runner/secret_seeds.h"

#include "common/split_mix.h"

namespace flashscope::runner {

SecretSeeds::SecretSeeds() : entropy_(std::make_unique<std::random_device>()) {}

uint64_t SecretSeeds::Next() {
  state_ += 0x9E3779B97F4A7C15ull;
  ++drawn_;
  if (!entropy_) return SplitMix64(state_);
  const uint64_t drawn = (static_cast<uint64_t>((*entropy_)()) << 32) ^ (*entropy_)();
  return drawn ^ SplitMix64(state_);
}

}  // namespace flashscope::runner
