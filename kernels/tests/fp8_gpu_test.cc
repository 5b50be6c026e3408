// attn.a27_fp8 (E4M3 inputs, fp32 accumulation, BF16 O) against the CPU double reference computed
// from the same E4M3 values, on the device (ctest label gpu). Two comparisons:
//   - random N(0, 1) inputs rounded to E4M3, |o - ref| within ReferenceE4M3ErrorBound with P's
//     unit roundoff 2^-4 (cpu_reference.h derives the bound: P's rounding to E4M3, accumulation,
//     BF16's 2^-8 on O);
//   - integer scores (Q with two ±1 entries a row, K in {-2..2}, softmax scale ln 2, so that every
//     P = 2^(s - max) is a power of two E4M3 holds exactly): the same bound with P exact, 2^-8
//     relative plus 2^-10 Σ w|v|, tight enough that a key paired with the wrong V row (the
//     pre-pass's permutation, a fragment layout) fails.
// Odd lengths, Sq != Sk with lse, causal (bottom-right; rows that see no key: zeros and -inf) and
// not, head dims 64/128/256, B·H past 65,535, two launches on the same buffers (O and lse poisoned
// before each, kernel_gpu_run.h; the second must equal the first bit for bit).
// attn.a28_fp8_overlap (a27's body with the intra-warpgroup overlap) runs every test too.
// attn.a29_fp8_split_kv (a27's body with a19's split-KV) runs every test too, plus short query
// chunks against long key sides that take its split path (fp32 partials, a19's combine into BF16).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/registry.h"
#include "kernels/tests/cpu_reference.h"
#include "kernels/tests/kernel_gpu_run.h"

namespace flashscope::kernels {
namespace {

using namespace testing;  // the device runs and the reference (kernel_gpu_run.h, cpu_reference.h)

AttentionProblem Fp8Shape(int64_t b, int64_t h, int64_t sq, int64_t sk, int64_t d, bool causal) {
  AttentionProblem p = AttentionShape(b, h, sq, sk, d, DType::kE4M3);
  p.causal = causal;
  p.want_lse = true;
  return p;
}

// O within `bound` element by element (BF16 decoded), no NaN; lse within 2e-3 (1 + |ref|), -inf
// exact. The message names the worst element against its bound.
::testing::AssertionResult WithinBound(const AttentionCase& c, const AttentionOutput& out,
                                       const std::vector<double>& bound) {
  const int64_t n = c.p.QElements(), d_head = c.p.head_dim;
  int64_t bad = 0, worst = -1;
  double worst_ratio = 0.0, sum_sq = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double got = DecodeElement(DType::kBF16, out.o, i);
    const double err = std::fabs(got - c.ref_o[i]);
    const double ratio = std::isnan(err) ? 1e30 : err / bound[i];
    sum_sq += std::isnan(err) ? 0.0 : err * err;
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      worst = i;
    }
    if (!(err <= bound[i])) ++bad;
  }
  std::ostringstream msg;
  msg << "worst |err|/bound " << worst_ratio;
  if (worst >= 0) {
    msg << " at row " << worst / d_head << " d " << worst % d_head << " (got "
        << DecodeElement(DType::kBF16, out.o, worst) << ", want " << c.ref_o[worst] << ", bound "
        << bound[worst] << ")";
  }
  msg << "; rms err " << std::sqrt(sum_sq / static_cast<double>(n));
  if (bad > 0)
    return ::testing::AssertionFailure() << bad << " O elements out of bound; " << msg.str();
  for (int64_t r = 0; r < c.p.LseElements(); ++r) {
    const double want = c.ref_lse[r], got = out.lse[r];
    const bool ok = std::isinf(want) ? (std::isinf(got) && got < 0)
                                     : std::fabs(got - want) <= 2e-3 * (1.0 + std::fabs(want));
    if (!ok) {
      return ::testing::AssertionFailure()
             << "LSE row " << r << ": got " << got << ", want " << want;
    }
  }
  return ::testing::AssertionSuccess() << msg.str();
}

// The case's E4M3 inputs are fresh random values: no NaN pattern (0x7F, 0xFF) and many distinct.
::testing::AssertionResult FreshE4M3(const AttentionCase& c) {
  for (const std::vector<unsigned char>* t : {&c.qb, &c.kb, &c.vb}) {
    std::set<unsigned char> distinct;
    for (unsigned char b : *t) {
      if ((b & 0x7F) == 0x7F) return ::testing::AssertionFailure() << "a NaN byte in the inputs";
      distinct.insert(b);
    }
    if (t->size() >= 4096 && distinct.size() < 40) {
      return ::testing::AssertionFailure() << "only " << distinct.size() << " distinct values";
    }
  }
  return ::testing::AssertionSuccess();
}

// Launches `e` on the case twice on fresh, poisoned buffers: the first output within `bound`, the
// second the same bit for bit.
void ExpectWithinBoundTwice(const KernelEntry& e, const AttentionCase& c,
                            const std::vector<double>& bound) {
  SCOPED_TRACE(ProblemKey(c.p));
  ASSERT_EQ(e.Supports(Problem{c.p}, 90), "");
  AttentionOutput first, second;
  RunAttention(e, c, &first);
  if (::testing::Test::HasFatalFailure()) return;
  EXPECT_TRUE(WithinBound(c, first, bound));
  RunAttention(e, c, &second);
  if (::testing::Test::HasFatalFailure()) return;
  EXPECT_EQ(first.o, second.o) << "the second launch differs";
  EXPECT_EQ(first.lse, second.lse) << "the second launch's lse differs";
}

// The same for every FP8 rung of `rungs`, stopping at the first fatal failure.
void ExpectEachWithinBoundTwice(const std::vector<const KernelEntry*>& rungs,
                                const AttentionCase& c, const std::vector<double>& bound) {
  for (const KernelEntry* e : rungs) {
    SCOPED_TRACE(e->info.id);
    ExpectWithinBoundTwice(*e, c, bound);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Integer scores at softmax scale ln 2 (Q with two ±1 entries a row, K in {-2..2}, V random
// E4M3): every P = 2^(s - max) is a power of two E4M3 holds exactly.
AttentionCase IntegerScoresCase(const AttentionProblem& p, uint32_t seed) {
  const int64_t d = p.head_dim;
  AttentionCase c;
  c.p = p;
  c.softmax_scale = static_cast<float>(std::log(2.0));
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> col(0, static_cast<int>(d) - 1), sign(0, 1), kv(-2, 2);
  c.q.assign(p.QElements(), 0.f);
  for (int64_t r = 0; r < p.batch * p.heads * p.seq_q; ++r) {
    for (int n = 0; n < 2; ++n) {  // two ±1 entries (maybe the same column: ±2 or 0)
      c.q[r * d + col(rng)] += sign(rng) ? 1.f : -1.f;
    }
  }
  c.k.resize(p.KElements());
  for (float& x : c.k) x = static_cast<float>(kv(rng));
  RandomTensor(DType::kE4M3, p.KElements(), &rng, &c.v, &c.vb);
  c.qb.resize(c.q.size());
  c.kb.resize(c.k.size());
  for (size_t i = 0; i < c.q.size(); ++i) c.qb[i] = EncodeE4M3(c.q[i]);
  for (size_t i = 0; i < c.k.size(); ++i) c.kb[i] = EncodeE4M3(c.k[i]);
  ReferenceAttention(p, c.q, c.k, c.v, &c.ref_o, &c.ref_lse, c.softmax_scale);
  return c;
}

// a27 and the rungs on its FP8 body (a28_fp8_overlap: its intra-warpgroup overlap, a27's kernel
// at D = 256; a29_fp8_split_kv: a27 when it does not split): every test of this fixture runs
// each of them on the same case.
class A27Fp8Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!OnHopper()) GTEST_SKIP() << "attn.a27_fp8 runs on compute capability 9.0 only";
    e_ = FindKernel("attn.a27_fp8");
    ASSERT_NE(e_, nullptr);
    rungs_.push_back(e_);
    const KernelEntry* a28 = FindKernel("attn.a28_fp8_overlap");
    ASSERT_NE(a28, nullptr);
    rungs_.push_back(a28);
    a29_ = FindKernel("attn.a29_fp8_split_kv");
    ASSERT_NE(a29_, nullptr);
    rungs_.push_back(a29_);
  }
  // Each rung twice on `c`, O within the reference's bound for the case's E4M3 inputs with P
  // rounded to `p_unit` (1/16: an E4M3 step; 0: integer scores, every P exact).
  void ExpectEachWithinE4M3Bound(const AttentionCase& c, double p_unit) const {
    std::vector<double> bound;
    ReferenceE4M3ErrorBound(c.p, c.q, c.k, c.v, c.softmax_scale, p_unit, &bound);
    ExpectEachWithinBoundTwice(rungs_, c, bound);
  }
  const KernelEntry* e_ = nullptr;
  const KernelEntry* a29_ = nullptr;
  std::vector<const KernelEntry*> rungs_;
};

TEST_F(A27Fp8Gpu, A27Fp8MatchesTheReference) {
  uint32_t seed = 2700;
  for (int64_t d : {64, 128, 256}) {
    for (bool causal : {false, true}) {
      for (const AttentionProblem& p :
           {Fp8Shape(1, 3, 77, 301, d, causal),    // odd lengths, a partial key tile
            Fp8Shape(2, 2, 200, 200, d, causal),   // two query tiles, a partial second one
            Fp8Shape(1, 2, 300, 170, d, causal),   // Sq > Sk: causal rows 0..129 see no key
            Fp8Shape(1, 1, 130, 1000, d, causal),  // many key tiles, ring stages reused
            Fp8Shape(1, 1, 1, 33, d, causal)}) {   // one decode row
        const AttentionCase c = MakeAttentionCase(p, seed++);
        ASSERT_TRUE(FreshE4M3(c));
        ExpectEachWithinE4M3Bound(c, 1.0 / 16);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Integer scores at softmax scale ln 2: P = 2^(s - m) exactly in E4M3 (s - m in [-8, 0]; a stale
// conditional max keeps P <= 2^8), so O is off the reference only by accumulation and BF16.
TEST_F(A27Fp8Gpu, A27Fp8IntegerScoresAreExact) {
  uint32_t seed = 2720;
  for (int64_t d : {64, 128, 256}) {
    for (bool causal : {false, true}) {
      const AttentionProblem p = Fp8Shape(1, 2, 150, 700, d, causal);
      const AttentionCase c = IntegerScoresCase(p, seed++);
      ExpectEachWithinE4M3Bound(c, 0.0);
      if (HasFatalFailure()) return;
    }
  }
}

TEST_F(A27Fp8Gpu, A27Fp8ManyHeadsPastTheGridYLimit) {
  uint32_t seed = 2740;
  for (int64_t d : {64, 128, 256}) {
    const AttentionProblem p = Fp8Shape(2, 32769, 17, 33, d, d == 128);
    const AttentionCase c = MakeAttentionCase(p, seed++);
    ExpectEachWithinE4M3Bound(c, 1.0 / 16);
    if (HasFatalFailure()) return;
  }
}

// a28_fp8_overlap: its own (overlapped) kernel at D = 64 and 128, a27's kernel at D = 256; E4M3
// only, like a27.
TEST_F(A27Fp8Gpu, A28OverlapsAt64And128AndRunsA27At256) {
  const KernelEntry* a28 = FindKernel("attn.a28_fp8_overlap");
  ASSERT_NE(a28, nullptr);
  EXPECT_TRUE(a28->info.accepts_fp8);
  for (int64_t d : {64, 128, 256}) {
    const AttentionProblem p = Fp8Shape(1, 2, 256, 256, d, false);
    const auto fns = a28->device_functions(Problem{p});
    const auto a27 = e_->device_functions(Problem{p});
    ASSERT_EQ(fns.size(), 2u);
    ASSERT_EQ(a27.size(), 2u);
    EXPECT_EQ(fns[0].name, a27[0].name);  // the V^T pre-pass
    if (d == 256) {
      // a27's kernel template: each rung's file compiles its own copy (the audit reads a rung's
      // functions from its own source), so the two host stubs differ while the SASS is the same
      // (scripts/sass_compare.py, 0faf36b).
      EXPECT_EQ(fns[1].name, a27[1].name) << "D = 256 is a27's kernel";
    } else {
      EXPECT_NE(fns[1].name.find("AttnSm90Fp8OverlapKernel"), std::string::npos) << fns[1].name;
      EXPECT_NE(fns[1].func, a27[1].func);
    }
    AttentionProblem bf16 = p;
    bf16.dtype = DType::kBF16;
    EXPECT_EQ(a28->Supports(Problem{p}, 90), "");
    EXPECT_NE(a28->Supports(Problem{bf16}, 90).find("e4m3"), std::string::npos);
  }
}

// a29_fp8_split_kv's split path: short query sides against long key sides (few query tiles, many
// key tiles: SplitCount deals each tile's keys to 2-14 CTAs on 132 SMs), odd lengths on both sides,
// causal shares that see no key for some rows, and causal Sq > Sk split (rows 0..269 see no key in
// any share: O = 0 and lse -inf from the combine). a27 runs them too, as the reference schedule.
std::vector<AttentionProblem> SplitChunks(int64_t d, bool causal) {
  return {Fp8Shape(1, 2, 1, 16384, d, causal),     // one decode row, 14 shares
          Fp8Shape(1, 2, 77, 4099, d, causal),     // a chunk, Sk off the tile grid, 7 shares
          Fp8Shape(1, 1, 128, 16384, d, causal),   // one full query tile, 14 shares
          Fp8Shape(1, 1, 300, 4099, d, causal),    // three query tiles (a partial last), 7 shares
          Fp8Shape(1, 1, 1300, 1030, d, causal)};  // 11 query tiles, 2 shares; causal Sq > Sk
}

TEST_F(A27Fp8Gpu, A29SplitChunksMatchTheReference) {
  uint32_t seed = 2900;
  for (int64_t d : {64, 128, 256}) {
    for (bool causal : {false, true}) {
      for (const AttentionProblem& p : SplitChunks(d, causal)) {
        const AttentionCase c = MakeAttentionCase(p, seed++);
        ASSERT_TRUE(FreshE4M3(c));
        ExpectEachWithinE4M3Bound(c, 1.0 / 16);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST_F(A27Fp8Gpu, A29SplitChunksIntegerScoresAreExact) {
  uint32_t seed = 2920;
  for (int64_t d : {64, 128, 256}) {
    for (bool causal : {false, true}) {
      for (const AttentionProblem& p :
           {Fp8Shape(1, 2, 77, 4099, d, causal), Fp8Shape(1, 1, 1300, 1030, d, causal)}) {
        const AttentionCase c = IntegerScoresCase(p, seed++);
        ExpectEachWithinE4M3Bound(c, 0.0);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// The chunks above take a29's split path (the V^T pre-pass, the shares, the combine), or the tests
// above prove nothing new; 16k-token problems and a27's own test shapes that fill waves run a27's
// launch (the pre-pass and a27's kernel).
TEST_F(A27Fp8Gpu, A29SplitsShortChunksOnly) {
  for (int64_t d : {64, 128, 256}) {
    for (const AttentionProblem& p : SplitChunks(d, true)) {
      const auto fns = a29_->device_functions(Problem{p});
      ASSERT_EQ(fns.size(), 3u) << ProblemKey(p) << " was not split";
      EXPECT_NE(fns[1].name.find("AttnSm90Fp8SplitKernel"), std::string::npos) << fns[1].name;
      EXPECT_NE(fns[2].name.find("SplitKvCombineKernel"), std::string::npos) << fns[2].name;
    }
    const int64_t h = 2048 / d;  // H·D = 2048, 16k tokens at S = 512 and 8192
    for (const AttentionProblem& p :
         {Fp8Shape(32, h, 512, 512, d, false), Fp8Shape(2, h, 8192, 8192, d, true)}) {
      const auto fns = a29_->device_functions(Problem{p});
      const auto a27 = e_->device_functions(Problem{p});
      ASSERT_EQ(fns.size(), 2u) << ProblemKey(p) << " was split";
      ASSERT_EQ(a27.size(), 2u);
      EXPECT_EQ(fns[1].name, a27[1].name) << ProblemKey(p) << ": not a27's kernel";
    }
  }
}

// a27 takes E4M3 only and says so; the FP8 rungs (a27, a28, a29) are the only built-in kernels
// that accept FP8, and the Hopper bf16/fp16 rungs refuse an E4M3 problem even if asked.
TEST_F(A27Fp8Gpu, A27Fp8TakesE4M3OnlyAndTheOthersRefuseIt) {
  EXPECT_TRUE(e_->info.accepts_fp8);
  const AttentionProblem fp8 = Fp8Shape(1, 2, 256, 256, 128, false);
  AttentionProblem bf16 = fp8;
  bf16.dtype = DType::kBF16;
  EXPECT_EQ(e_->Supports(Problem{fp8}, 90), "");
  EXPECT_NE(e_->Supports(Problem{bf16}, 90).find("e4m3"), std::string::npos);
  const std::set<std::string> fp8_rungs = {"attn.a27_fp8", "attn.a28_fp8_overlap",
                                           "attn.a29_fp8_split_kv"};
  for (const KernelEntry& k : AllKernels()) {
    EXPECT_EQ(k.info.accepts_fp8, fp8_rungs.count(k.info.id) == 1) << k.info.id;
  }
  for (const char* id : {"attn.a24_prefetch128", "attn.a26_trim_warpgroups"}) {
    const KernelEntry* other = FindKernel(id);
    if (other == nullptr) continue;
    EXPECT_NE(other->Supports(Problem{fp8}, 90), "") << id;
  }
}

}  // namespace
}  // namespace flashscope::kernels
