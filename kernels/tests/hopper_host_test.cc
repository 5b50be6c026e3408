// The Hopper rungs' host-side schedule arithmetic, in CI: split-KV's share count (a19,
// attn_sm90::SplitCount), the dynamic schedule's head groups (a20, attn_sm90::SchedGroup) and
// g07's split tail (g06::SplitTailPlan).
#include <gtest/gtest.h>

#include <cstdint>

#include "kernels/hopper/attn_sm90_host.h"
#include "kernels/hopper/gemm_split_tail.h"

namespace flashscope::kernels::attn_sm90 {
namespace {

TEST(SplitCount, TilesThatFillWholeWavesAreNotSplit) {
  EXPECT_EQ(SplitCount(132, 128, 132), 1);
  EXPECT_EQ(SplitCount(2048, 32, 132), 1);  // 16k tokens, D = 128, S = 2048: 0.97 of 16 waves
  EXPECT_EQ(SplitCount(3072, 4, 132), 1);   // S = 512: short tiles, too few keys to share
}

TEST(SplitCount, FewTilesAreSplitToFillTheMachine) {
  // B=2 H=16 Sq=128 at D=128: 32 query tiles; 4 shares make 128 of 132 CTAs.
  EXPECT_EQ(SplitCount(32, 128, 132), 4);
  // 64 tiles: 2 shares, 128 CTAs.
  EXPECT_EQ(SplitCount(64, 32, 132), 2);
  // One tile (a decode row): 16 shares fill 16 SMs at most; 14 is the fewest within 15 % of it.
  EXPECT_EQ(SplitCount(1, 1000, 132), 14);
}

TEST(SplitCount, APoorLastWaveIsSplitToo) {
  // B=2 H=32 Sq=512 at D=64 (BM 192): 192 tiles are 1.45 waves (0.73 of two); 2 shares: 0.97.
  EXPECT_EQ(SplitCount(192, 32, 132), 2);
}

TEST(SplitCount, EveryShareKeepsFourKeyTiles) {
  EXPECT_EQ(SplitCount(4, 7, 132), 1);  // 7 key tiles: one share
  EXPECT_EQ(SplitCount(4, 8, 132), 2);  // 8 key tiles: at most 2 shares
  EXPECT_EQ(SplitCount(1, 0, 132), 1);  // no key tile at all
}

TEST(SplitCount, NothingToSplitOrNoDeviceMeansOneShare) {
  EXPECT_EQ(SplitCount(0, 100, 132), 1);
  EXPECT_EQ(SplitCount(10, 100, 0), 1);
}

TEST(SchedGroup, AGroupHoldsTwoWavesOfTiles) {
  EXPECT_EQ(SchedGroup(11, 132), 24);  // S = 2048 at BM = 192: 24 heads x 11 tiles = 264
  EXPECT_EQ(SchedGroup(3, 132), 88);   // S = 512
  EXPECT_EQ(SchedGroup(86, 132), 4);   // S = 16384: 344 tiles
  EXPECT_EQ(SchedGroup(1000, 132), 1);
  EXPECT_EQ(SchedGroup(0, 132), 1);
}

TEST(SplitTailPlan, ThePartialLastWaveIsSplitAlongK) {
  // 5000^3 at 128x256, clusters of two: 400 cluster tiles over 66, a tail of 4 tiles, 79 k-steps:
  // 16 splits would fit, the serial hand-over of partial sums caps them at 6.
  const g06::SplitTail a = g06::SplitTailPlan(400, 66, 79);
  EXPECT_EQ(a.full_units, 396);
  EXPECT_EQ(a.splits, g06::kMaxSplits);
  // 3000^3: 144 over 66, a tail of 12: 5 splits fill 60 of the 66 clusters.
  const g06::SplitTail b = g06::SplitTailPlan(144, 66, 47);
  EXPECT_EQ(b.full_units, 132);
  EXPECT_EQ(b.splits, 5);
  // Fewer tiles than one wave: all of them are the tail.
  EXPECT_EQ(g06::SplitTailPlan(64, 132, 16).full_units, 0);
  EXPECT_EQ(g06::SplitTailPlan(64, 132, 16).splits, 2);
}

TEST(SplitTailPlan, WholeWavesLargeTailsAndShortKAreNotSplit) {
  EXPECT_EQ(g06::SplitTailPlan(132, 66, 64).splits, 1);  // whole waves
  EXPECT_EQ(g06::SplitTailPlan(564, 66, 94).splits, 1);  // 6000^3: a tail of 36 of 66
  EXPECT_EQ(g06::SplitTailPlan(400, 66, 7).splits, 1);   // under 8 k-steps: no two of 4
  EXPECT_EQ(g06::SplitTailPlan(400, 66, 79).full_units + 4, 400);
  EXPECT_EQ(g06::SplitTailPlan(0, 66, 79).splits, 1);
}

}  // namespace
}  // namespace flashscope::kernels::attn_sm90
