// The sizes of a slot's buffers and how many slots a workspace keeps for the trust checks'
// rotation (verify/buffer_slots.h): all it asks for when they fit in the budget, fewer down to
// one when they do not, with the reason naming the sizes.
#include "verify/buffer_slots.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace flashscope::verify {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kGiB = int64_t{1} << 30;

TEST(BufferSlots, ASlotHoldsTheInputsTheOutputAndTheLse) {
  AttentionProblem a = AttentionShape(2, 4, 128, 256, 64, DType::kBF16);
  a.want_lse = true;
  const BufferSizes s = BufferSizesOf(a);
  const int64_t q = 2 * 4 * 128 * 64 * 2, kv = 2 * 4 * 256 * 64 * 2, lse = 2 * 4 * 128 * 4;
  EXPECT_EQ(s.input_bytes[0], q);
  EXPECT_EQ(s.input_bytes[1], kv);
  EXPECT_EQ(s.input_bytes[2], kv);
  EXPECT_EQ(s.output_bytes, q);
  EXPECT_EQ(s.SlotBytes(), q + 2 * kv + q + lse);
  a.want_lse = false;
  EXPECT_EQ(BufferSizesOf(a).SlotBytes(), q + 2 * kv + q);

  // a and b in fp16, c in fp32.
  EXPECT_EQ(BufferSizesOf(GemmProblem{64, 32, 16, DType::kF16}).SlotBytes(),
            64 * 16 * 2 + 16 * 32 * 2 + 64 * 32 * 4);
}

// E4M3: Q, K, V one byte an element, O in BF16 (two); a gemm's A and B one byte, C fp32.
TEST(BufferSlots, E4M3InputsAreOneByteAndTheAttentionOutputIsBf16) {
  const BufferSizes s = BufferSizesOf(AttentionShape(2, 4, 128, 256, 64, DType::kE4M3));
  const int64_t q = 2 * 4 * 128 * 64, kv = 2 * 4 * 256 * 64;
  EXPECT_EQ(s.input_bytes[0], q);
  EXPECT_EQ(s.input_bytes[1], kv);
  EXPECT_EQ(s.output_elements, q);
  EXPECT_EQ(s.output_bytes, 2 * q);
  EXPECT_EQ(BufferSizesOf(GemmProblem{64, 32, 16, DType::kE4M3}).SlotBytes(),
            64 * 16 + 16 * 32 + 64 * 32 * 4);
}

TEST(BufferSlots, EverySlotWantedWhenTheyFitTheBudget) {
  // 1 GiB base + 1 extra slot of 1 GiB = 2 GiB <= half of 4 GiB free.
  const SlotPlan plan = PlanSlots(2, kGiB, kGiB, 4 * kGiB);
  EXPECT_EQ(plan.slots, 2);
  EXPECT_THAT(plan.note, HasSubstr("2 buffer slots (1024.0 MiB of inputs and outputs each)"));
  EXPECT_EQ(PlanSlots(3, kGiB, kGiB, 6 * kGiB).slots, 3);
}

TEST(BufferSlots, FallsBackToOneSlotWithTheSizesWhenASecondDoesNotFit) {
  // 2 GiB + 1 GiB > half of 5 GiB: the second slot would eat into what the kernel may need.
  const SlotPlan plan = PlanSlots(2, kGiB, 2 * kGiB, 5 * kGiB);
  EXPECT_EQ(plan.slots, 1);
  EXPECT_THAT(plan.note, HasSubstr("1 buffer slot of the 2 wanted"));
  EXPECT_THAT(plan.note, HasSubstr("2 would need 3.00 GiB"));
  EXPECT_THAT(plan.note, HasSubstr("budget of 2.50 GiB (50 % of the 5.00 GiB free"));
}

TEST(BufferSlots, KeepsAsManyAsFitBetweenOneAndTheWanted) {
  // Base 1 GiB, slots of 1 GiB, budget 3.5 GiB: 1 + 2 extra = 3 GiB fit, a 4th does not.
  const SlotPlan plan = PlanSlots(5, kGiB, kGiB, 7 * kGiB);
  EXPECT_EQ(plan.slots, 3);
  EXPECT_THAT(plan.note, HasSubstr("3 buffer slots of the 5 wanted"));
  // The budget exactly met is within it.
  EXPECT_EQ(PlanSlots(2, kGiB, kGiB, 4 * kGiB).slots, 2);
  EXPECT_EQ(PlanSlots(2, kGiB + 1, kGiB, 4 * kGiB).slots, 1);
}

TEST(BufferSlots, OneSlotWantedOrNothingFreeIsOneSlot) {
  EXPECT_EQ(PlanSlots(1, kGiB, kGiB, 100 * kGiB).slots, 1);
  EXPECT_THAT(PlanSlots(1, kGiB, kGiB, 100 * kGiB).note, HasSubstr("1 buffer slot ("));
  EXPECT_EQ(PlanSlots(0, kGiB, kGiB, 100 * kGiB).slots, 1);
  EXPECT_EQ(PlanSlots(4, kGiB, kGiB, 0).slots, 1);
}

}  // namespace
}  // namespace flashscope::verify
