// Registry contract checks. No CUDA call is made here (CI has no GPU): only the entries' metadata,
// supports() and the addresses of their device functions are inspected.
#include "kernels/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>

namespace flashscope::kernels {
namespace {

const char* const kOurAttention[] = {"attn.a01_scalar", "attn.a02_smem_tiled", "attn.a03_wmma",
                                     "attn.a04_vectorized"};
const char* const kOurGemm[] = {"gemm.g01_naive", "gemm.g02_smem_tiled", "gemm.g03_register_tiled",
                                "peer.cublas_gemm"};

AttentionProblem Attn(int64_t d, DType t = DType::kF16) {
  AttentionProblem p = AttentionShape(2, 3, 17, 1000, d, t);
  p.causal = true;
  return p;
}

const KernelEntry& Get(const char* id) {
  const KernelEntry* e = FindKernel(id);
  EXPECT_NE(e, nullptr) << id << " is not registered; add it to kernels/kernel_list.h";
  static const KernelEntry kEmpty;
  return e != nullptr ? *e : kEmpty;
}

TEST(Registry, IdsAreUniqueAndNonEmpty) {
  std::set<std::string> seen;
  for (const auto& e : AllKernels()) {
    EXPECT_FALSE(e.info.id.empty());
    EXPECT_TRUE(seen.insert(e.info.id).second) << "duplicate kernel id " << e.info.id;
    EXPECT_FALSE(e.info.title.empty()) << e.info.id;
    EXPECT_FALSE(e.info.changed.empty()) << e.info.id;
    EXPECT_GE(e.info.min_sm, 80) << e.info.id;
    EXPECT_GE(e.info.tile.threads, 1) << e.info.id;
  }
}

TEST(Registry, OurKernelsAreListed) {
  for (const char* id : kOurAttention) EXPECT_NE(FindKernel(id), nullptr) << id;
  for (const char* id : kOurGemm) EXPECT_NE(FindKernel(id), nullptr) << id;
}

// The rung number in a ladder id ("attn.a07_direct_rescale" -> 7), or -1 when the id has none.
int RungOf(const std::string& id) {
  for (const char* prefix : {"attn.a", "gemm.g"}) {
    const std::string pre(prefix);
    if (id.rfind(pre, 0) == 0 && id.size() > pre.size() + 2 && std::isdigit(id[pre.size()]) &&
        std::isdigit(id[pre.size() + 1])) {
      return std::stoi(id.substr(pre.size(), 2));
    }
  }
  return -1;
}

TEST(Registry, RevisionsFollowTheLadderOrder) {
  // Within a family's ladder, revisions never decrease; variants of one rung (a11's "each alone and
  // together") may share a revision, and a ladder id's rung number is its revision.
  std::map<std::pair<Family, bool>, int> last;  // (family, is_peer) -> last revision
  for (const auto& e : AllKernels()) {
    auto key = std::make_pair(e.info.family, e.info.is_peer);
    auto it = last.find(key);
    if (it != last.end()) {
      EXPECT_GE(e.info.revision, it->second) << e.info.id << " is out of order in its ladder";
    }
    last[key] = e.info.revision;
    if (e.info.is_peer) {
      EXPECT_GE(e.info.revision, 1000) << e.info.id;
    } else {
      EXPECT_LT(e.info.revision, 1000) << e.info.id;
      EXPECT_EQ(RungOf(e.info.id), e.info.revision)
          << e.info.id << ": the rung number in the id and the revision disagree";
    }
  }
  EXPECT_EQ(Get("attn.a01_scalar").info.revision, 1);
  EXPECT_EQ(Get("attn.a04_vectorized").info.revision, 4);
  EXPECT_EQ(Get("gemm.g03_register_tiled").info.revision, 3);
}

TEST(Registry, TestOnlyKernelsAreNotBuiltIn) {
  // They live in the test plugin (kernels/testing/), which a run loads only when asked.
  for (const auto& e : AllKernels()) {
    EXPECT_FALSE(e.info.test_only) << e.info.id;
    EXPECT_NE(e.info.id.rfind("test.", 0), 0u) << e.info.id;
  }
}

TEST(Registry, EveryEntryHasTheEntryPointsOfItsFamily) {
  for (const auto& e : AllKernels()) {
    if (e.info.family == Family::kAttentionFwd) {
      EXPECT_TRUE(e.attention_supports) << e.info.id;
      EXPECT_TRUE(e.attention_launch) << e.info.id;
      EXPECT_FALSE(e.gemm_launch) << e.info.id;
    } else {
      EXPECT_TRUE(e.gemm_supports) << e.info.id;
      EXPECT_TRUE(e.gemm_launch) << e.info.id;
      EXPECT_FALSE(e.attention_launch) << e.info.id;
    }
    EXPECT_TRUE(e.device_functions) << e.info.id;
  }
}

TEST(Registry, AttentionRungsSupportTheirProblemsAndExplainTheRest) {
  for (const char* id : kOurAttention) {
    const KernelEntry& e = Get(id);
    for (int64_t d : {64, 128}) {
      for (DType t : {DType::kF16, DType::kBF16}) {
        EXPECT_EQ(e.Supports(Attn(d, t)), "") << id << " D=" << d;
      }
    }
    const std::string d96 = e.Supports(Attn(96));
    EXPECT_NE(d96.find("head_dim 96"), std::string::npos) << id << ": " << d96;
    const std::string f32 = e.Supports(Attn(64, DType::kF32));
    EXPECT_NE(f32.find("fp32"), std::string::npos) << id << ": " << f32;
    AttentionProblem huge = Attn(64);
    huge.heads = 70000;
    EXPECT_NE(e.Supports(huge).find("65535"), std::string::npos) << id;
  }
  // Every non-peer attention rung (including later rungs) explains D=96 rather than accepting it.
  for (const auto& e : AllKernels()) {
    if (e.info.family != Family::kAttentionFwd || e.info.is_peer) continue;
    EXPECT_NE(e.Supports(Attn(96)), "") << e.info.id << " claims head_dim 96";
  }
}

TEST(Registry, GemmEntriesSupportTheirProblemsAndExplainTheRest) {
  for (const char* id : kOurGemm) {
    const KernelEntry& e = Get(id);
    for (DType t : {DType::kF32, DType::kF16}) {
      EXPECT_EQ(e.Supports(GemmProblem{1, 1, 1, t}), "") << id;
      EXPECT_EQ(e.Supports(GemmProblem{1000, 17, 1000, t}), "") << id;
    }
    const std::string bf16 = e.Supports(GemmProblem{64, 64, 64, DType::kBF16});
    if (e.info.is_peer) {
      EXPECT_EQ(bf16, "") << id << " (cuBLAS takes bf16)";
    } else {
      EXPECT_NE(bf16.find("bf16"), std::string::npos) << id << ": " << bf16;
    }
    EXPECT_NE(e.Supports(GemmProblem{0, 4, 4, DType::kF32}), "") << id;
  }
  EXPECT_NE(Get("gemm.g01_naive").Supports(GemmProblem{int64_t{2} << 20, 8, 8, DType::kF32}), "");
  EXPECT_TRUE(Get("peer.cublas_gemm").info.is_peer);
}

TEST(Registry, FamilyMismatchIsExplained) {
  const std::string r = Get("attn.a01_scalar").Supports(Problem{GemmProblem{}});
  EXPECT_NE(r.find("attention_fwd"), std::string::npos) << r;
  const std::string g = Get("gemm.g01_naive").Supports(Problem{Attn(64)});
  EXPECT_NE(g.find("gemm"), std::string::npos) << g;
}

TEST(Registry, MinimumArchitectureIsChecked) {
  KernelEntry hopper = Get("attn.a01_scalar");
  hopper.info.min_sm = 90;
  const Problem p = Attn(64);
  const std::string r = hopper.Supports(p, /*device_sm=*/80);
  EXPECT_NE(r.find("needs sm_90"), std::string::npos) << r;
  EXPECT_NE(r.find("sm_80"), std::string::npos) << r;
  EXPECT_EQ(hopper.Supports(p, 90), "");
  EXPECT_EQ(hopper.Supports(p, 100), "");
  EXPECT_EQ(hopper.Supports(p, 0), "") << "device_sm 0 means unknown: no architecture check";
  for (const char* id : kOurAttention) {
    EXPECT_NE(Get(id).Supports(p, 75).find("needs sm_80"), std::string::npos) << id;
  }
}

TEST(Registry, ArchSpecificCodeRunsOnItsArchitectureOnly) {
  KernelEntry sm90a = Get("gemm.g01_naive");
  sm90a.info.min_sm = 90;
  sm90a.info.exact_sm = 90;
  const Problem p{GemmProblem{64, 64, 64, DType::kF16}};
  EXPECT_EQ(sm90a.Supports(p, 90), "");
  const std::string blackwell = sm90a.Supports(p, 100);
  EXPECT_NE(blackwell.find("sm_90a only"), std::string::npos) << blackwell;
  EXPECT_NE(blackwell.find("sm_100"), std::string::npos) << blackwell;
  EXPECT_NE(sm90a.Supports(p, 80), "");
  EXPECT_EQ(sm90a.Supports(p, 0), "") << "device_sm 0 means unknown: no architecture check";
#ifdef FLASHSCOPE_HAVE_SM90A
  const KernelEntry& g05 = Get("gemm.g05_wgmma");
  EXPECT_EQ(g05.info.exact_sm, 90);
  EXPECT_EQ(g05.Supports(p, 90), "");
  EXPECT_NE(g05.Supports(p, 100), "");
  const std::string fp32 = g05.Supports(Problem{GemmProblem{64, 64, 64, DType::kF32}}, 90);
  EXPECT_NE(fp32.find("fp32"), std::string::npos) << fp32;
  const KernelEntry& g06 = Get("gemm.g06_tma_ws");
  EXPECT_EQ(g06.info.exact_sm, 90);
  for (DType t : {DType::kF16, DType::kBF16}) {
    // Odd sizes included: TMA-incompatible shapes take the element-copy producer.
    for (const GemmProblem& g :
         {GemmProblem{64, 64, 64, t}, GemmProblem{1000, 17, 1000, t}, GemmProblem{1, 129, 17, t}}) {
      EXPECT_EQ(g06.Supports(Problem{g}, 90), "") << ProblemKey(g);
    }
  }
  EXPECT_NE(g06.Supports(p, 100), "");
  const std::string g06_fp32 = g06.Supports(Problem{GemmProblem{64, 64, 64, DType::kF32}}, 90);
  EXPECT_NE(g06_fp32.find("fp32"), std::string::npos) << g06_fp32;
  // The audit holds the rung to the instructions its technique needs (audit/audit_policy.h).
  for (const char* op : {"HGMMA", "UTMALDG", "USETMAXREG"}) {
    EXPECT_NE(std::find(g06.info.required_sass.begin(), g06.info.required_sass.end(), op),
              g06.info.required_sass.end())
        << op;
  }
#endif
}

#ifdef FLASHSCOPE_HAVE_SM90A
TEST(Registry, G06NamesThePathAndTileThatRun) {
  const KernelEntry& g06 = Get("gemm.g06_tma_ws");
  struct Want {
    GemmProblem g;
    const char* name;  // a part of the described function's name
  };
  // K and N multiples of 8: TMA; 4096^2 and 8192^2 (several waves) take 128x256 tiles in
  // clusters of two, 2048^2 (one wave) single CTAs, 1024^2 128x64 tiles (more tiles in flight);
  // one tile row has no peer for a cluster; N = 17 or K = 17: the element-copy producer.
  // Off the grid (132 SMs, this machine's fallback and an H200's count): 3000^2 fills 3 rounds of
  // 128x192 tiles 97 % where 128x256 filled the third 18 %; 5000^2 and 6000^2 stay at 256 (no
  // narrower width predicted 3 % faster); 264 x 2944 has 69 tiles of 128x128 for 132 SMs.
  for (const Want& w : {Want{{3000, 3000, 3000, DType::kBF16}, "bf16, 192, tma, cluster 2"},
                        Want{{5000, 5000, 5000, DType::kF16}, "fp16, 256, tma, cluster 2"},
                        Want{{6000, 6000, 6000, DType::kBF16}, "bf16, 256, tma, cluster 2"},
                        Want{{16384, 1024, 4096, DType::kBF16}, "bf16, 256, tma, cluster 2"},
                        Want{{8192, 8192, 1024, DType::kF16}, "fp16, 256, tma, cluster 2"},
                        Want{{520, 3456, 136, DType::kF16}, "fp16, 192, tma, cluster 1"},
                        Want{{264, 2944, 40, DType::kBF16}, "bf16, 128, tma, cluster 1"},
                        Want{{4096, 4096, 4096, DType::kF16}, "fp16, 256, tma, cluster 2"},
                        Want{{4096, 4096, 4096, DType::kBF16}, "bf16, 256, tma, cluster 2"},
                        Want{{8192, 8192, 8192, DType::kF16}, "fp16, 256, tma, cluster 2"},
                        Want{{8192, 16384, 4096, DType::kBF16}, "bf16, 256, tma, cluster 2"},
                        Want{{2048, 2048, 2048, DType::kF16}, "fp16, 256, tma, cluster 1"},
                        Want{{1024, 1024, 1024, DType::kF16}, "fp16, 64, tma, cluster 1"},
                        Want{{128, 4096, 64, DType::kF16}, "fp16, 64, tma, cluster 1"},
                        Want{{1000, 17, 1000, DType::kBF16}, "bf16, 128, copy"},
                        Want{{64, 64, 17, DType::kF16}, "fp16, 128, copy"}}) {
    const auto fns = g06.device_functions(Problem{w.g});
    ASSERT_EQ(fns.size(), 1u) << ProblemKey(w.g);
    EXPECT_NE(fns[0].func, nullptr);
    EXPECT_EQ(fns[0].block_threads, g06.info.tile.threads);
    EXPECT_NE(fns[0].name.find(w.name), std::string::npos) << fns[0].name;
    EXPECT_GT(fns[0].dynamic_smem_bytes, 190u * 1024) << "the stages fill shared memory";
    EXPECT_LE(fns[0].dynamic_smem_bytes, 227u * 1024) << "at most 227 KiB per block";
  }
  EXPECT_TRUE(g06.device_functions(Problem{GemmProblem{8, 8, 8, DType::kF32}}).empty());
}

// g07 shares g06's host code (g06_tma_ws_entry.cuh): its TMA path names the split-tail kernel,
// never 128x64 tiles; the element-copy path is g06's kernel, unsplit.
TEST(Registry, G07NamesTheSplitKernelOrG06sCopyPath) {
  const KernelEntry& g07 = Get("gemm.g07_split_tail");
  struct Want {
    GemmProblem g;
    const char* name;
  };
  for (const Want& w :
       {Want{{4096, 4096, 4096, DType::kF16}, "G07SplitTailKernel<fp16, 256, cluster 2>"},
        Want{{2048, 2048, 2048, DType::kBF16}, "G07SplitTailKernel<bf16, 256, cluster 1>"},
        Want{{1024, 1024, 1024, DType::kF16}, "G07SplitTailKernel<fp16, 128, cluster 1>"},
        Want{{1000, 17, 1000, DType::kBF16}, "G06TmaWsKernel<bf16, 128, copy, cluster 1>"}}) {
    const auto fns = g07.device_functions(Problem{w.g});
    ASSERT_EQ(fns.size(), 1u) << ProblemKey(w.g);
    EXPECT_NE(fns[0].func, nullptr);
    EXPECT_EQ(fns[0].name, w.name);
    EXPECT_EQ(fns[0].block_threads, g07.info.tile.threads);
  }
  const std::string fp32 = g07.Supports(Problem{GemmProblem{64, 64, 64, DType::kF32}}, 90);
  EXPECT_NE(fp32.find("g07 issues wgmma"), std::string::npos) << fp32;
  EXPECT_EQ(Get("gemm.g06_tma_ws")
                .device_functions(Problem{GemmProblem{4096, 4096, 4096, DType::kBF16}})[0]
                .name,
            "G06TmaWsKernel<bf16, 256, tma, cluster 2>");
}

// g08 is g06 except where A's rows are off the 32-byte grid (K not a multiple of 16) and g06
// would cluster: there its clusters share A (G08SharedAKernel); a single tile column, rows on the
// grid, unclustered sizes and the element-copy path are g06's kernels.
TEST(Registry, G08SharesAOnlyWhereARowsAreOffTheSectorGrid) {
  const KernelEntry& g08 = Get("gemm.g08_shared_a");
  struct Want {
    GemmProblem g;
    const char* name;
  };
  for (const Want& w :
       {Want{{3000, 3000, 3000, DType::kBF16}, "G08SharedAKernel<bf16, 192, cluster 2>"},
        Want{{5000, 5000, 5000, DType::kF16}, "G08SharedAKernel<fp16, 256, cluster 2>"},
        Want{{6000, 6000, 6000, DType::kBF16}, "G06TmaWsKernel<bf16, 256, tma, cluster 2>"},
        Want{{4096, 4096, 4104, DType::kF16}, "G08SharedAKernel<fp16, 256, cluster 2>"},
        Want{{65536, 256, 4104, DType::kF16}, "G06TmaWsKernel<fp16, 256, tma, cluster 2>"},
        Want{{1000, 1000, 1000, DType::kBF16}, "G06TmaWsKernel<bf16, 64, tma, cluster 1>"},
        Want{{1000, 17, 1000, DType::kBF16}, "G06TmaWsKernel<bf16, 128, copy, cluster 1>"}}) {
    const auto fns = g08.device_functions(Problem{w.g});
    ASSERT_EQ(fns.size(), 1u) << ProblemKey(w.g);
    EXPECT_NE(fns[0].func, nullptr);
    EXPECT_EQ(fns[0].name, w.name) << ProblemKey(w.g);
    EXPECT_EQ(fns[0].block_threads, g08.info.tile.threads);
  }
  const std::string fp32 = g08.Supports(Problem{GemmProblem{64, 64, 64, DType::kF32}}, 90);
  EXPECT_NE(fp32.find("g08 issues wgmma"), std::string::npos) << fp32;
}

// g10 launches two row bands, each with its own tile width, only where g06's wave-time model
// prices them 3 % below one launch after the second launch's cost; elsewhere it is g06's kernel.
TEST(Registry, G10SplitsRowsOnlyWhereTheModelPricesTwoBandsLower) {
  const KernelEntry& g10 = Get("gemm.g10_row_bands");
  const KernelEntry& g06 = Get("gemm.g06_tma_ws");
  auto names = [&](const GemmProblem& g) {
    std::vector<std::string> out;
    for (const DeviceFunction& f : g10.device_functions(Problem{g})) out.push_back(f.name);
    return out;
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ(names({5000, 5000, 5000, DType::kBF16}),
            (Names{"G06TmaWsKernel<bf16, 192, tma, cluster 2>",
                   "G06TmaWsKernel<bf16, 256, tma, cluster 2>"}));
  EXPECT_EQ(names({1800, 3296, 2048, DType::kF16}),
            (Names{"G06TmaWsKernel<fp16, 128, tma, cluster 1>",
                   "G06TmaWsKernel<fp16, 256, tma, cluster 1>"}));
  // The same rows with a shorter K: the second launch costs more than the last round saves.
  EXPECT_EQ(names({1800, 3296, 1024, DType::kF16}).size(), 1u);
  // The plans are remembered per shape (CachedPlanBands): asked again, K = 2048 is still split.
  EXPECT_EQ(names({1800, 3296, 2048, DType::kF16}).size(), 2u);
  // Not with 128 x 64 tiles: one band of a few such CTAs measured 8 % slower than g06.
  EXPECT_EQ(names({2200, 1840, 2048, DType::kBF16}).size(), 1u);
  // kernels_hopper_rungs_gpu_test's shape: two widths, so that both launches are tested.
  EXPECT_EQ(names({3900, 3088, 1024, DType::kBF16}).size(), 2u);
  for (const GemmProblem& g :
       {GemmProblem{4096, 4096, 4096, DType::kBF16}, GemmProblem{6000, 6000, 6000, DType::kF16},
        GemmProblem{3000, 3000, 3000, DType::kBF16}, GemmProblem{1000, 17, 1000, DType::kBF16}}) {
    const auto fns = g10.device_functions(Problem{g});
    ASSERT_EQ(fns.size(), 1u) << ProblemKey(g);
    EXPECT_EQ(fns[0].name, g06.device_functions(Problem{g})[0].name) << ProblemKey(g);
  }
}

// g11 pads K and N to the 8-element grid where g06-g10 would copy elements: the padding copies,
// g10's kernels on the padded problem, and the copy of C's columns when N was padded; g10's
// kernels on the grid.
TEST(Registry, G11PadsOnlyShapesOffTheGrid) {
  const KernelEntry& g11 = Get("gemm.g11_padded_operands");
  const KernelEntry& g10 = Get("gemm.g10_row_bands");
  auto names = [](const KernelEntry& e, const GemmProblem& g) {
    std::vector<std::string> out;
    for (const DeviceFunction& f : e.device_functions(Problem{g})) out.push_back(f.name);
    return out;
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ(
      names(g11, {4500, 4500, 4500, DType::kBF16}),
      (Names{"G11PadKernel", "G06TmaWsKernel<bf16, 256, tma, cluster 2>", "G11CropColumnsKernel"}));
  // K off the grid, N on it: C is written in place.
  EXPECT_EQ(names(g11, {1000, 1024, 999, DType::kF16}),
            (Names{"G11PadKernel", "G06TmaWsKernel<fp16, 64, tma, cluster 1>"}));
  for (const GemmProblem& g :
       {GemmProblem{5000, 5000, 5000, DType::kBF16}, GemmProblem{4096, 4096, 4096, DType::kF16}}) {
    EXPECT_EQ(names(g11, g), names(g10, g)) << ProblemKey(g);
  }
  EXPECT_TRUE(g11.device_functions(Problem{GemmProblem{64, 64, 64, DType::kF32}}).empty());
}

// g12 runs g11's plans (padding, bands, widths, clusters) with C staged for TMA stores: the same
// kernels' tiles, in G12StagedCKernel, with the shared memory of one stage fewer at 128 x 256.
TEST(Registry, G12StagesTheKernelsG11WouldRun) {
  const KernelEntry& g12 = Get("gemm.g12_staged_c");
  const KernelEntry& g11 = Get("gemm.g11_padded_operands");
  EXPECT_NE(std::find(g12.info.required_sass.begin(), g12.info.required_sass.end(), "UTMASTG"),
            g12.info.required_sass.end());
  auto names = [](const KernelEntry& e, const GemmProblem& g) {
    std::vector<std::string> out;
    for (const DeviceFunction& f : e.device_functions(Problem{g})) out.push_back(f.name);
    return out;
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ(names(g12, {4096, 4096, 4096, DType::kBF16}),
            (Names{"G12StagedCKernel<bf16, 256, cluster 2>"}));
  EXPECT_EQ(
      names(g12, {5000, 5000, 5000, DType::kF16}),
      (Names{"G12StagedCKernel<fp16, 192, cluster 2>", "G12StagedCKernel<fp16, 256, cluster 2>"}));
  for (const GemmProblem& g :
       {GemmProblem{4500, 4500, 4500, DType::kBF16}, GemmProblem{1000, 1024, 999, DType::kF16},
        GemmProblem{3000, 3000, 3000, DType::kBF16}, GemmProblem{70, 4104, 64, DType::kF16}}) {
    Names want = names(g11, g);
    for (std::string& n : want) {  // "G06TmaWsKernel<bf16, 256, tma, cluster 2>" -> G12's name
      const std::string g06 = "G06TmaWsKernel<";
      if (n.rfind(g06, 0) != 0) continue;
      n = "G12StagedCKernel<" + n.substr(g06.size());
      n.erase(n.find("tma, "), 5);
    }
    EXPECT_EQ(names(g12, g), want) << ProblemKey(g);
  }
  const auto fns = g12.device_functions(Problem{GemmProblem{4096, 4096, 4096, DType::kBF16}});
  ASSERT_EQ(fns.size(), 1u);
  EXPECT_LT(fns[0].dynamic_smem_bytes, 227u * 1024u);
  EXPECT_TRUE(g12.device_functions(Problem{GemmProblem{64, 64, 64, DType::kF32}}).empty());
}
#endif

TEST(Registry, OurRungsDescribeTheirDeviceFunctions) {
  for (const char* id : kOurAttention) {
    const KernelEntry& e = Get(id);
    for (int64_t d : {64, 128}) {
      for (DType t : {DType::kF16, DType::kBF16}) {
        const auto fns = e.device_functions(Problem{Attn(d, t)});
        ASSERT_EQ(fns.size(), 1u) << id;
        EXPECT_NE(fns[0].func, nullptr) << id;
        EXPECT_EQ(fns[0].block_threads, e.info.tile.threads) << id;
        EXPECT_NE(fns[0].name.find(t == DType::kF16 ? "fp16" : "bf16"), std::string::npos)
            << fns[0].name;
        EXPECT_NE(fns[0].name.find(std::to_string(d)), std::string::npos) << fns[0].name;
      }
    }
    EXPECT_TRUE(e.device_functions(Problem{Attn(96)}).empty()) << id;
  }
  // Different instantiations are different functions.
  const auto& a03 = Get("attn.a03_wmma");
  EXPECT_EQ(a03.device_functions(Problem{Attn(128, DType::kBF16)})[0].name, "a03_wmma<bf16,128>");
  EXPECT_NE(a03.device_functions(Problem{Attn(64)})[0].func,
            a03.device_functions(Problem{Attn(128)})[0].func);
  // Past 48 KB of dynamic shared memory the launch must opt in; the description says how much.
  EXPECT_GT(a03.device_functions(Problem{Attn(128)})[0].dynamic_smem_bytes, 48u * 1024);

  for (const char* id : {"gemm.g01_naive", "gemm.g02_smem_tiled", "gemm.g03_register_tiled"}) {
    const auto fns = Get(id).device_functions(Problem{GemmProblem{17, 33, 5, DType::kF32}});
    ASSERT_EQ(fns.size(), 1u) << id;
    EXPECT_NE(fns[0].func, nullptr) << id;
    EXPECT_EQ(fns[0].block_threads, Get(id).info.tile.threads) << id;
  }
  const auto& g03 = Get("gemm.g03_register_tiled");
  EXPECT_NE(
      g03.device_functions(Problem{GemmProblem{128, 128, 128, DType::kF16}})[0].name.find("vec16"),
      std::string::npos);
  EXPECT_NE(
      g03.device_functions(Problem{GemmProblem{128, 127, 128, DType::kF16}})[0].name.find("scalar"),
      std::string::npos);
  EXPECT_TRUE(Get("peer.cublas_gemm").device_functions(Problem{GemmProblem{}}).empty());
}

}  // namespace
}  // namespace flashscope::kernels
