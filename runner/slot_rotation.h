// Which buffer slot each launch of a case reads and writes (docs/trust.md, "rotated buffers"). The
// workspace keeps kRotatedSlots copies of the inputs and outputs (verify/buffer_slots.h) and every
// launch but the verified one is given a slot drawn just before it from the secret seeds
// (runner/secret_seeds.h), which the kernel never sees: a cache keyed on buffer addresses sees an
// address set come back in an order it cannot predict, with content it has not seen, and the
// answer it serves is stale for the sampled check. The draw happens in the timer's before-hook,
// outside the timing events; the launch then only indexes the slot's buffers.
#pragma once

#include <vector>

#include "runner/secret_seeds.h"

namespace flashscope::runner {

// Two slots (docs/trust.md says why not more): every launch reads fresh content, so any answer a
// cache serves is stale, and the rotation only has to make an address set recur soon and
// unpredictably. With two, one recurs at the third launch of a case at the earliest and then at
// every second launch on average; each slot more delays the first recurrence (every slot is new
// once) and costs the inputs and outputs once more.
inline constexpr int kRotatedSlots = 2;

class SlotRotation {
 public:
  explicit SlotRotation(int slots);

  int slots() const { return static_cast<int>(launches_.size()); }
  // The verified launch's slot: 0, whose inputs the full reference describes.
  int Verified();
  // Any other launch's slot, drawn from `seeds` (one seed a draw; none with one slot): a slot no
  // launch of this case used yet while there is one (so that per-buffer set-up an honest kernel
  // caches, such as tensor wrappers or TMA descriptors, is done by a warm-up launch, not a timed
  // one), then any slot, each with probability 1/slots.
  int Next(SecretSeeds& seeds);
  // A launch given `slot` by the caller (the other side of an ab pair drew it): counted.
  int Use(int slot);
  // Launches given each slot so far.
  const std::vector<int>& launches() const { return launches_; }

 private:
  std::vector<int> launches_;
};

}  // namespace flashscope::runner
