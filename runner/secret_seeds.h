// The seeds of the trust checks' fresh inputs and sampled rows (docs/trust.md): drawn by the
// harness from the operating system's entropy when the worker starts, never from the suite's seed
// (a kernel can read the suite file) and never passed through the kernel ABI. Each seed is drawn
// when it is needed (an input seed before its launch, a row seed after it), so that no launch can
// learn one before it matters. The seeds are recorded in the report afterwards, for reproduction.
#pragma once

#include <cstdint>

namespace flashscope::runner {

class SecretSeeds {
 public:
  // Keyed from std::random_device.
  SecretSeeds();
  // A fixed key: tests only (the sequence is then predictable, which is what a test wants).
  explicit SecretSeeds(uint64_t key) : state_(key) {}

  // The next seed: splitmix64 over a counter from the key, so that consecutive seeds are
  // unrelated and never repeat within 2^64 draws.
  uint64_t Next();
  int64_t drawn() const { return drawn_; }

 private:
  uint64_t state_;
  int64_t drawn_ = 0;
};

}  // namespace flashscope::runner
