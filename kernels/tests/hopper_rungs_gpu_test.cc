// The Hopper rungs of issue 27 (a19+) against the CPU double reference on the problems that take
// their new paths, on the device (ctest label gpu): a short query side against many key tiles
// (split-KV's shares), causal Sq > Sk with many tiles (rows that see no key in any share, and
// shares that see no key at all), odd lengths at every head dim, B·H past 65,535, and a20's
// dynamic schedule launch after launch. O and LSE are
// poisoned before each launch (kernel_gpu_run.h), so a row no share wrote fails.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "kernels/registry.h"
#include "kernels/tests/kernel_gpu_run.h"

namespace flashscope::kernels {
namespace {

using namespace testing;  // the device runs and comparisons (kernel_gpu_run.h)

// The rungs this test covers; each must be registered (a build without sm_90a has none of them).
const char* const kRungs[] = {"attn.a19_split_kv",    "attn.a20_dynamic_schedule",
                              "attn.a21_short_tiles", "attn.a22_poly_exp64",
                              "attn.a24_prefetch128", "attn.a26_trim_warpgroups"};

// AttentionShape with lse wanted and the given mask.
AttentionProblem Shape(int64_t b, int64_t h, int64_t sq, int64_t sk, int64_t d, DType t,
                       bool causal) {
  AttentionProblem p = AttentionShape(b, h, sq, sk, d, t);
  p.causal = causal;
  p.want_lse = true;
  return p;
}

// Short query sides against long key sides: few query tiles, many key tiles, so that split-KV
// deals each tile's keys to several CTAs (odd lengths: partial first/last tiles on both sides).
std::vector<AttentionProblem> SplitProblems() {
  std::vector<AttentionProblem> v;
  int n = 0;
  for (int64_t d : {64, 128, 256}) {
    for (bool causal : {false, true}) {
      const DType t = (n++ % 2) == 0 ? DType::kBF16 : DType::kF16;
      v.push_back(Shape(1, 2, 1, 3001, d, t, causal));     // one decode row
      v.push_back(Shape(1, 3, 77, 4099, d, t, causal));    // a chunk, Sk off the tile grid
      v.push_back(Shape(2, 1, 200, 2048, d, t, causal));   // two query tiles at BM = 128
      v.push_back(Shape(1, 1, 2100, 1500, d, t, causal));  // causal: rows 0..599 see no key
    }
  }
  return v;
}

class HopperRungsGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!OnHopper()) GTEST_SKIP() << "these rungs run on compute capability 9.0 only";
  }
};

TEST_F(HopperRungsGpu, EveryRungIsRegistered) {
  for (const char* id : kRungs) EXPECT_NE(FindKernel(id), nullptr) << id;
}

TEST_F(HopperRungsGpu, ShortQueriesAgainstLongKeysMatchTheReference) {
  uint32_t seed = 2700;
  for (const AttentionProblem& p : SplitProblems()) {
    const AttentionCase c = MakeAttentionCase(p, seed++);
    for (const char* id : kRungs) {
      const KernelEntry* e = FindKernel(id);
      ASSERT_NE(e, nullptr) << id;
      ASSERT_EQ(e->Supports(Problem{p}, 90), "") << id << " on " << ProblemKey(p);
      SCOPED_TRACE(std::string(id) + " on " + ProblemKey(p));
      AttentionOutput out;
      RunAttention(*e, c, &out);
      if (HasFatalFailure()) return;
      EXPECT_TRUE(CompareAttention(c, out)) << id << " on " << ProblemKey(p);
    }
  }
}

// The problems above must take the split path, or the test above proves nothing new: a split
// launch runs two kernels (the shares, then the combine), which the entry reports.
TEST_F(HopperRungsGpu, ShortQueryProblemsAreSplit) {
  for (const char* id : kRungs) {
    const KernelEntry* e = FindKernel(id);
    ASSERT_NE(e, nullptr) << id;
    for (const AttentionProblem& p : SplitProblems()) {
      EXPECT_EQ(e->device_functions(Problem{p}).size(), 2u)
          << id << ": " << ProblemKey(p) << " was not split";
    }
    // 16k tokens at D = 128 fill many waves: one kernel, no split.
    const AttentionProblem big = Shape(4, 16, 4096, 4096, 128, DType::kBF16, false);
    EXPECT_EQ(e->device_functions(Problem{big}).size(), 1u) << id;
  }
}

// The dynamic schedule: a20 at D = 64, a24 at D = 128 (two Q buffers, two K/V stages), on
// problems with enough query tiles not to split: more tiles than SMs (each CTA takes several, so
// both Q buffers are filled and released again), a last head group smaller than the others,
// causal rows that see no key, Sq != Sk; launched twice on the same buffers, so a work counter
// the first launch left dirty fails the second.
TEST_F(HopperRungsGpu, DynamicScheduleMatchesTheReferenceLaunchAfterLaunch) {
  uint32_t seed = 2750;
  for (const auto& [id, d] : {std::pair<const char*, int64_t>{"attn.a20_dynamic_schedule", 64},
                              std::pair<const char*, int64_t>{"attn.a24_prefetch128", 128},
                              std::pair<const char*, int64_t>{"attn.a26_trim_warpgroups", 64},
                              std::pair<const char*, int64_t>{"attn.a26_trim_warpgroups", 128}}) {
    const KernelEntry* e = FindKernel(id);
    ASSERT_NE(e, nullptr) << id;
    for (const AttentionProblem& p : {Shape(1, 140, 300, 300, d, DType::kBF16, true),
                                      Shape(1, 140, 300, 300, d, DType::kF16, false),
                                      Shape(1, 70, 700, 450, d, DType::kBF16, true)}) {
      const auto fns = e->device_functions(Problem{p});
      ASSERT_EQ(fns.size(), 1u) << id << " split " << ProblemKey(p);
      // a24 and a26 must run their persistent instance here, not a21's one CTA per tile.
      if (d == 128) {
        const KernelEntry* a21 = FindKernel("attn.a21_short_tiles");
        ASSERT_NE(a21, nullptr);
        ASSERT_NE(fns[0].name, a21->device_functions(Problem{p})[0].name) << ProblemKey(p);
      }
      const AttentionCase c = MakeAttentionCase(p, seed++);
      for (int launch = 0; launch < 2; ++launch) {
        SCOPED_TRACE(std::string(id) + " on " + ProblemKey(p) + " launch " +
                     std::to_string(launch));
        AttentionOutput out;
        RunAttention(*e, c, &out);
        if (HasFatalFailure()) return;
        EXPECT_TRUE(CompareAttention(c, out)) << fns[0].name << " launch " << launch;
      }
    }
  }
}

// a21 at D = 64: 128-row query tiles where 192-row ones would pad more than they gain, on and off
// the split path (many query tiles and few keys: one share), odd lengths, causal Sq > Sk.
TEST_F(HopperRungsGpu, ShortTilesTakeTheirPathAndMatchTheReference) {
  const KernelEntry* e = FindKernel("attn.a21_short_tiles");
  ASSERT_NE(e, nullptr);
  auto kernel_name = [&](const AttentionProblem& p) {
    const auto fns = e->device_functions(Problem{p});
    return fns.empty() ? std::string() : fns[0].name;
  };
  const AttentionProblem chunk = Shape(4, 40, 256, 300, 64, DType::kBF16, true);
  EXPECT_NE(kernel_name(chunk).find("BM=128"), std::string::npos) << kernel_name(chunk);
  EXPECT_NE(kernel_name(Shape(1, 32, 2048, 2048, 64, DType::kBF16, false)).find("BM=192"),
            std::string::npos);
  uint32_t seed = 2850;
  for (const AttentionProblem& p : {chunk, Shape(1, 36, 1000, 400, 64, DType::kF16, false),
                                    Shape(1, 70, 500, 300, 64, DType::kBF16, true)}) {
    const AttentionCase c = MakeAttentionCase(p, seed++);
    SCOPED_TRACE(ProblemKey(p));
    AttentionOutput out;
    RunAttention(*e, c, &out);
    if (HasFatalFailure()) return;
    EXPECT_TRUE(CompareAttention(c, out)) << ProblemKey(p);
  }
}

TEST_F(HopperRungsGpu, ManyHeadsPastTheGridYLimit) {
  uint32_t seed = 2800;
  for (int64_t d : {64, 128, 256}) {
    const AttentionProblem p = Shape(2, 32769, 17, 33, d, DType::kBF16, d == 128);
    const AttentionCase c = MakeAttentionCase(p, seed++);
    for (const char* id : kRungs) {
      SCOPED_TRACE(std::string(id) + " on " + ProblemKey(p));
      AttentionOutput out;
      RunAttention(*FindKernel(id), c, &out);
      if (HasFatalFailure()) return;
      EXPECT_TRUE(CompareAttention(c, out)) << id << " on " << ProblemKey(p);
    }
  }
}

// Relaunching on the same buffers (the timing loop) gives the same output: the workspace of the
// partial results carries nothing from one launch to the next.
TEST_F(HopperRungsGpu, RelaunchGivesTheSameResult) {
  const AttentionProblem p = Shape(1, 2, 100, 5000, 128, DType::kBF16, true);
  const AttentionCase c = MakeAttentionCase(p, 2900);
  for (const char* id : kRungs) {
    AttentionOutput first, second;
    RunAttention(*FindKernel(id), c, &first);
    if (HasFatalFailure()) return;
    RunAttention(*FindKernel(id), c, &second);
    if (HasFatalFailure()) return;
    EXPECT_TRUE(CompareAttention(c, first)) << id;
    EXPECT_EQ(first.o, second.o) << id;
    EXPECT_EQ(first.lse, second.lse) << id;
  }
}

// Runs `e` on `g` twice on the same buffers: the first output must match the reference, the
// second must be the first bit for bit (counters left dirty, or an order that changes, fail it).
void ExpectTwoLaunchesMatchTheReference(const KernelEntry& e, const GemmProblem& g, uint32_t seed) {
  const GemmCase gc = MakeGemmCase(g, seed);
  std::vector<float> first, second;
  RunGemm(e, g, gc.ab, gc.bb, &first);
  if (::testing::Test::HasFatalFailure()) return;
  EXPECT_TRUE(CompareGemm(first, gc.ref, gc.abs_sum)) << e.info.id << " on " << ProblemKey(g);
  RunGemm(e, g, gc.ab, gc.bb, &second);
  if (::testing::Test::HasFatalFailure()) return;
  EXPECT_EQ(first, second) << e.info.id << " on " << ProblemKey(g) << ": the second launch differs";
}

// `e` must take `g` and run one device function whose name holds `part` (a tile width, a kernel),
// or the shape no longer tests what its case means to on this GPU's SM count. Fails fatally.
void AssertRunsTheFunctionItTests(const KernelEntry& e, const GemmProblem& g,
                                  const std::string& part) {
  ASSERT_EQ(e.Supports(Problem{g}, 90), "") << ProblemKey(g);
  const auto fns = e.device_functions(Problem{g});
  ASSERT_EQ(fns.size(), 1u) << ProblemKey(g);
  ASSERT_NE(fns[0].name.find(part), std::string::npos)
      << ProblemKey(g) << " runs " << fns[0].name << ", not the " << part << " its case tests";
}

// g07's split tail: shapes whose last wave of tiles is partial, so that its tiles are split along
// K and their partial sums added in split order: single CTAs (1000^3: 64 tiles of 128x128, two
// splits) and clusters of two with an odd tile-row count (2100 x 4000 x 520: 144 cluster tiles
// over 66 clusters, the last 12 in two splits; the CTA whose row is past M still takes its turns).
// Launched twice: the split-order counters must be back at zero, and the order makes the result
// the same bit for bit.
TEST_F(HopperRungsGpu, SplitTailGemmMatchesTheReferenceLaunchAfterLaunch) {
  const KernelEntry* e = FindKernel("gemm.g07_split_tail");
  ASSERT_NE(e, nullptr);
  uint32_t seed = 3000;
  for (const GemmProblem& g :
       {GemmProblem{1000, 1000, 1000, DType::kBF16}, GemmProblem{2100, 4000, 520, DType::kF16}}) {
    ASSERT_EQ(e->Supports(Problem{g}, 90), "");
    ExpectTwoLaunchesMatchTheReference(*e, g, seed++);
    if (HasFatalFailure()) return;
  }
}

// g06's tile width by predicted time (g06::PredictedBestWidth): shapes whose rule picks 128x192 and
// 128x128 tiles, single CTAs and clusters of two with an odd tile-row count (the CTA past M still
// multicasts its B boxes: of 192's three, rank 0 loads two), N off the width (a partial and a
// wholly outside 64-column box of B), K off the 64-k step. Each must name the width it is meant to
// test, or the shape no longer exercises it on this GPU's SM count.
TEST_F(HopperRungsGpu, G06TileWidthsMatchTheReference) {
  const KernelEntry* e = FindKernel("gemm.g06_tma_ws");
  ASSERT_NE(e, nullptr);
  struct Case {
    GemmProblem g;
    const char* width;  // a part of the described function's name
  };
  uint32_t seed = 3100;
  for (const Case& c : {Case{{4104, 1800, 200, DType::kBF16}, "192, tma, cluster 2"},
                        Case{{520, 3336, 136, DType::kF16}, "192, tma, cluster 1"},
                        Case{{4104, 1352, 72, DType::kF16}, "128, tma, cluster 2"},
                        Case{{264, 2824, 40, DType::kBF16}, "128, tma, cluster 1"}}) {
    AssertRunsTheFunctionItTests(*e, c.g, c.width);
    if (HasFatalFailure()) return;
    const GemmCase gc = MakeGemmCase(c.g, seed++);
    std::vector<float> out;
    RunGemm(*e, c.g, gc.ab, gc.bb, &out);
    if (HasFatalFailure()) return;
    EXPECT_TRUE(CompareGemm(out, gc.ref, gc.abs_sum)) << ProblemKey(c.g) << " with " << c.width;
  }
}

// g08's clusters along N sharing A (K off the 32-byte grid): an even and an odd tile-column count
// (the CTA past N computes zeros, stores nothing and still multicasts its half of A), M off the
// tile, N off the width, K off the 64-k step, widths 192 and 128; launched twice on the same
// buffers. Each must run G08SharedAKernel, or the shape no longer tests it on this GPU.
TEST_F(HopperRungsGpu, G08SharedAMatchesTheReference) {
  const KernelEntry* e = FindKernel("gemm.g08_shared_a");
  ASSERT_NE(e, nullptr);
  uint32_t seed = 3200;
  for (const GemmProblem& g :
       {GemmProblem{4104, 1800, 200, DType::kBF16}, GemmProblem{4104, 1352, 72, DType::kF16}}) {
    AssertRunsTheFunctionItTests(*e, g, "G08SharedAKernel");
    if (HasFatalFailure()) return;
    ExpectTwoLaunchesMatchTheReference(*e, g, seed++);
    if (HasFatalFailure()) return;
  }
}

// g09's 192 x 192 tiles on three consumer warpgroups: a single CTA and clusters of two with an odd
// tile-row count (the CTA past M still multicasts its B boxes), M and N off the tile (a 64-column
// box of B 8 columns wide), K off the 64-k step; launched twice on the same buffers. Each must run
// G09TallTileKernel, as must the 3000^3 and 5000^3, or the shapes no longer test it here.
TEST_F(HopperRungsGpu, G09TallTilesMatchTheReference) {
  const KernelEntry* e = FindKernel("gemm.g09_tall_tiles");
  ASSERT_NE(e, nullptr);
  struct Case {
    GemmProblem g;
    const char* kernel;  // a part of the described function's name
  };
  uint32_t seed = 3300;
  for (const Case& c : {Case{{2312, 1544, 136, DType::kBF16}, "192x192, cluster 1"},
                        Case{{5000, 2312, 72, DType::kF16}, "192x192, cluster 2"}}) {
    AssertRunsTheFunctionItTests(*e, c.g,
                                 std::string("G09TallTileKernel<") +
                                     (c.g.dtype == DType::kBF16 ? "bf16, " : "fp16, ") + c.kernel);
    if (HasFatalFailure()) return;
    ExpectTwoLaunchesMatchTheReference(*e, c.g, seed++);
    if (HasFatalFailure()) return;
  }
  for (int64_t size : {3000, 5000}) {
    AssertRunsTheFunctionItTests(*e, GemmProblem{size, size, size, DType::kBF16},
                                 "G09TallTileKernel");
    if (HasFatalFailure()) return;
  }
}

// g10's two row bands: the bottom band reads A and writes C from the split row on. Shapes the
// model splits (two launches, two widths each), M off the 128-row tile, N off both widths;
// launched twice on the same buffers.
TEST_F(HopperRungsGpu, G10RowBandsMatchTheReference) {
  const KernelEntry* e = FindKernel("gemm.g10_row_bands");
  ASSERT_NE(e, nullptr);
  uint32_t seed = 3300;
  for (const GemmProblem& g :
       {GemmProblem{3900, 3088, 1024, DType::kBF16}, GemmProblem{1800, 3296, 2048, DType::kF16}}) {
    ASSERT_EQ(e->device_functions(Problem{g}).size(), 2u)
        << ProblemKey(g) << " no longer splits: the test would not test the bands";
    ExpectTwoLaunchesMatchTheReference(*e, g, seed++);
    if (HasFatalFailure()) return;
  }
}

// g11's padded operands: N off the grid (C cropped from a padded result), K off it (C in place),
// both, against the CPU reference, launched twice on the same buffers (the scratch is reused).
TEST_F(HopperRungsGpu, G11PaddedOperandsMatchTheReference) {
  const KernelEntry* e = FindKernel("gemm.g11_padded_operands");
  ASSERT_NE(e, nullptr);
  uint32_t seed = 3400;
  for (const GemmProblem& g :
       {GemmProblem{1000, 17, 1000, DType::kBF16}, GemmProblem{640, 1024, 999, DType::kF16},
        GemmProblem{517, 301, 1001, DType::kBF16}}) {
    const auto fns = e->device_functions(Problem{g});
    ASSERT_FALSE(fns.empty());
    ASSERT_EQ(fns[0].name, "G11PadKernel") << ProblemKey(g) << " no longer takes the padded path";
    ExpectTwoLaunchesMatchTheReference(*e, g, seed++);
    if (HasFatalFailure()) return;
  }
}

// g12's staged C: every tile's C through shared memory and TMA stores, on shapes whose tiles cross
// M and N (the stores clip), every width (256, 192, 128, 64 and both bands of a split), clusters
// of one and two, and the padded path (N off the grid: C is g11's padded scratch); launched twice
// on the same buffers (the staging area and the bulk groups carry nothing over).
TEST_F(HopperRungsGpu, G12StagedCMatchesTheReference) {
  const KernelEntry* e = FindKernel("gemm.g12_staged_c");
  ASSERT_NE(e, nullptr);
  uint32_t seed = 3500;
  for (const GemmProblem& g :
       {GemmProblem{3900, 3088, 1024, DType::kBF16}, GemmProblem{1800, 3296, 2048, DType::kF16},
        GemmProblem{1000, 1000, 1000, DType::kBF16}, GemmProblem{2200, 1840, 520, DType::kF16},
        GemmProblem{517, 301, 1001, DType::kBF16}, GemmProblem{70, 4104, 64, DType::kF16}}) {
    const auto fns = e->device_functions(Problem{g});
    bool staged = false;
    for (const DeviceFunction& f : fns) staged |= f.name.rfind("G12StagedCKernel<", 0) == 0;
    ASSERT_TRUE(staged) << ProblemKey(g) << " runs no staged kernel: the test would not test it";
    ExpectTwoLaunchesMatchTheReference(*e, g, seed++);
    if (HasFatalFailure()) return;
  }
}

// a26 skips only key tiles that the mask zeroes whole for every row of a warpgroup, so its output
// must be a20's (D = 64) and a24's (D = 128) bit for bit, on the paths it trims: the persistent
// grid and split-KV, padded last query tiles (Sq off the 192- and 128-row grid), the causal
// diagonal with Sq < Sk and Sq > Sk (rows that see no key).
TEST_F(HopperRungsGpu, TrimmedWarpgroupsChangeNoBit) {
  const KernelEntry* a26 = FindKernel("attn.a26_trim_warpgroups");
  ASSERT_NE(a26, nullptr);
  uint32_t seed = 2790;
  for (const auto& [base_id, d] : {std::pair<const char*, int64_t>{"attn.a20_dynamic_schedule", 64},
                                   std::pair<const char*, int64_t>{"attn.a24_prefetch128", 128}}) {
    const KernelEntry* base = FindKernel(base_id);
    ASSERT_NE(base, nullptr) << base_id;
    std::vector<AttentionProblem> problems = {Shape(1, 140, 300, 300, d, DType::kBF16, true),
                                              Shape(2, 40, 520, 520, d, DType::kF16, true),
                                              Shape(1, 70, 700, 450, d, DType::kBF16, true),
                                              Shape(3, 50, 330, 1000, d, DType::kBF16, false)};
    if (d == 64) {  // split-KV's shares (at D = 128 these split on a17's untrimmed schedule)
      problems.push_back(Shape(1, 3, 77, 4099, d, DType::kF16, true));
      problems.push_back(Shape(1, 1, 2100, 1500, d, DType::kBF16, true));
    }
    for (const AttentionProblem& p : problems) {
      SCOPED_TRACE(std::string(base_id) + " against a26 on " + ProblemKey(p));
      const auto trimmed = a26->device_functions(Problem{p});
      const auto plain = base->device_functions(Problem{p});
      ASSERT_EQ(trimmed.size(), plain.size());
      ASSERT_NE(trimmed[0].name, plain[0].name) << "a26 must run its own (trimmed) instance";
      const AttentionCase c = MakeAttentionCase(p, seed++);
      AttentionOutput want, got;
      RunAttention(*base, c, &want);
      if (HasFatalFailure()) return;
      RunAttention(*a26, c, &got);
      if (HasFatalFailure()) return;
      EXPECT_TRUE(CompareAttention(c, got));
      EXPECT_TRUE(want.o == got.o) << "O differs from " << base_id;
      ASSERT_EQ(want.lse.size(), got.lse.size());
      EXPECT_EQ(0, std::memcmp(want.lse.data(), got.lse.data(), want.lse.size() * sizeof(float)))
          << "LSE differs from " << base_id;
    }
  }
}

}  // namespace
}  // namespace flashscope::kernels
