// Which buffer slot each launch is given (runner/slot_rotation.h): drawn from the secret seeds, one
// seed a draw; every slot used once before any repeats; then uniform, so that an address set comes
// back soon and in an order that differs from one key (one worker's entropy) to another.
#include "runner/slot_rotation.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace flashscope::runner {
namespace {

TEST(SlotRotation, TheVerifiedLaunchIsInSlotZeroAndDrawsNothing) {
  SecretSeeds seeds(5);
  SlotRotation r(kRotatedSlots);
  EXPECT_EQ(r.Verified(), 0);
  EXPECT_EQ(seeds.drawn(), 0);
  EXPECT_EQ(r.launches()[0], 1);
}

TEST(SlotRotation, EachDrawTakesOneSecretSeedAndStaysInRange) {
  SecretSeeds seeds(7);
  SlotRotation r(3);
  r.Verified();
  for (int i = 0; i < 500; ++i) {
    const int slot = r.Next(seeds);
    EXPECT_GE(slot, 0);
    EXPECT_LT(slot, 3);
  }
  EXPECT_EQ(seeds.drawn(), 500);
  int total = 0;
  for (int n : r.launches()) total += n;
  EXPECT_EQ(total, 501);
}

TEST(SlotRotation, EverySlotIsUsedOnceBeforeAnyRepeats) {
  for (uint64_t key = 1; key <= 50; ++key) {
    SecretSeeds seeds(key);
    SlotRotation r(4);
    std::set<int> seen = {r.Verified()};
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(seen.insert(r.Next(seeds)).second) << "key " << key;
    EXPECT_EQ(seen.size(), 4u);
  }
}

TEST(SlotRotation, SlotsAreUniformAndTheOrderIsNotFixed) {
  // After the first launches every slot is equally likely, and the previous slot comes back with
  // probability 1/slots: 20000 draws keep each share within 3 % of it.
  SecretSeeds seeds(9);
  SlotRotation r(kRotatedSlots);
  int previous = r.Verified();
  int repeats = 0;
  constexpr int kDraws = 20000;
  for (int i = 0; i < kDraws; ++i) {
    const int slot = r.Next(seeds);
    repeats += slot == previous;
    previous = slot;
  }
  for (int n : r.launches()) {
    EXPECT_NEAR(static_cast<double>(n) / (kDraws + 1), 1.0 / kRotatedSlots, 0.03);
  }
  EXPECT_NEAR(static_cast<double>(repeats) / kDraws, 1.0 / kRotatedSlots, 0.03);
  // Another key, another order.
  auto order = [](uint64_t key) {
    SecretSeeds s(key);
    SlotRotation rot(kRotatedSlots);
    std::string out = std::to_string(rot.Verified());
    for (int i = 0; i < 64; ++i) out += std::to_string(rot.Next(s));
    return out;
  };
  EXPECT_NE(order(1), order(2));
  EXPECT_EQ(order(3), order(3));
}

TEST(SlotRotation, OneSlotIsAlwaysSlotZeroAndDrawsNothing) {
  SecretSeeds seeds(1);
  SlotRotation r(1);
  r.Verified();
  for (int i = 0; i < 10; ++i) EXPECT_EQ(r.Next(seeds), 0);
  EXPECT_EQ(seeds.drawn(), 0);
  EXPECT_EQ(SlotRotation(0).slots(), 1);
}

TEST(SlotRotation, AGivenSlotIsCountedAndDrawsNothing) {
  // ab's second sample of a pair reads the slot the first drew: counted, no draw of its own.
  SecretSeeds seeds(5);
  SlotRotation r(kRotatedSlots);
  r.Verified();
  EXPECT_EQ(r.Use(1), 1);
  EXPECT_EQ(r.Use(1), 1);
  EXPECT_EQ(r.Use(7), kRotatedSlots - 1);  // clamped: never a slot the workspace lacks
  EXPECT_EQ(r.launches(), (std::vector<int>{1, 3}));
  EXPECT_EQ(seeds.drawn(), 0);
}

}  // namespace
}  // namespace flashscope::runner
