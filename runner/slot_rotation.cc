#include "runner/slot_rotation.h"

#include <algorithm>

namespace flashscope::runner {

SlotRotation::SlotRotation(int slots) : launches_(static_cast<size_t>(std::max(1, slots)), 0) {}

int SlotRotation::Verified() {
  ++launches_[0];
  return 0;
}

int SlotRotation::Use(int slot) {
  const int clamped = std::clamp(slot, 0, slots() - 1);
  ++launches_[clamped];
  return clamped;
}

int SlotRotation::Next(SecretSeeds& seeds) {
  if (slots() == 1) {
    ++launches_[0];
    return 0;
  }
  std::vector<int> unused;
  for (int s = 0; s < slots(); ++s) {
    if (launches_[s] == 0) unused.push_back(s);
  }
  const uint64_t draw = seeds.Next();
  const int slot = unused.empty() ? static_cast<int>(draw % static_cast<uint64_t>(slots()))
                                  : unused[draw % unused.size()];
  ++launches_[slot];
  return slot;
}

}  // namespace flashscope::runner
