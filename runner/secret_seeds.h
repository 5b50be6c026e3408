// The seeds of the trust checks' fresh inputs and sampled rows (docs/trust.md): drawn by the
// harness from the operating system's entropy (std::random_device) each time one is needed, never
// from the suite's seed (a kernel can read the suite file) and never passed through the kernel
// ABI. No state predicts the next seed, so even a plugin that reads the worker's memory cannot
// learn one before it matters (an input seed is drawn before its launch, a row seed after it).
// The seeds are recorded in the report afterwards, for reproduction.
#pragma once

#include <cstdint>
#include <memory>
#include <random>

namespace flashscope::runner {

class SecretSeeds {
 public:
  // Each seed from std::random_device.
  SecretSeeds();
  // A fixed key and a predictable sequence: tests only.
  explicit SecretSeeds(uint64_t key) : state_(key) {}

  // The next seed. From entropy, mixed with a counter so that two seeds never coincide even if
  // the entropy source repeated; with a key, splitmix64 over a counter from the key.
  uint64_t Next();
  int64_t drawn() const { return drawn_; }

 private:
  std::unique_ptr<std::random_device> entropy_;  // null when keyed
  uint64_t state_ = 0;
  int64_t drawn_ = 0;
};

}  // namespace flashscope::runner
