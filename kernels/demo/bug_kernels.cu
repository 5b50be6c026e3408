// Variants of attn.a10_fa2 that make the mistakes kernel authors make (issue 18), the subjects of
// the demo suite (suites/demo.json; what each one's verdict and heatmaps show, and why, in
// docs/heatmaps.md). They ship as the installed demo plugin `flashscope_demo_kernels`
// (demo_plugin.cc), so that `flashscope run demo` works from an installed prefix. Each is a10's own code path with one attn_mma::kBug* bit set
// (attn_mma_softmax.cuh), so its output is what the mistake computes, not a corrupted a10 output:
//   demo.bug_grid_floor       grid of floor(Sq/BM) query blocks: the last partial query tile is
//                             never written ("never written" rule);
//   demo.bug_key_tile_floor   floor(n_end/BN) key tiles: the last partial key tile is skipped;
//   demo.bug_causal_diagonal  causal offset Sk - Sq - 1: every query masks its diagonal key;
//   demo.bug_stale_rescale    warp 1 never rescales O when its running max grows;
//   demo.bug_ldmatrix_trans   V's ldmatrix.trans with K's lane map in D's second quarter;
//   demo.bug_fp16_accumulate  O += P·V in mma.sync's fp16 accumulator (fp16 only).
// All but the first fail FlashAttention's rule (max|err| > 2 x the same-precision baseline's +
// floor). fp16 accumulation does so only on long key sequences, hence the demo's Sk = 16383: the
// accumulator is rounded to fp16 every 16 keys, an error that does not shrink as a row sees more
// keys (each rounding is relative to the unnormalised sum, which grows with the keys as the
// normaliser l does), while the naive fp16 baseline's does (like 1/sqrt(keys), as O averages more
// values) and its worst rows are those with the fewest keys. On causal fp16 Sq = Sk = 255 the bug
// stays within the rule (scripts/demo_bug_model.py: about 1e-3 against a limit of about 3e-3);
// with every row seeing >= 16129 keys it fails about 6x over.
#include <string>
#include <utility>

#include "kernels/attention/a10_fa2.cuh"
#include "kernels/demo/demo_kernel_list.h"

namespace flashscope::kernels {
namespace {

// Beside the test-only kernels' revisions (faulty 9001+, slowdown 9103+, cheats 9201+).
constexpr int kFirstRevision = 9301;

// a10 with the bug bit `kBug`; `extra_supports` adds the bug's own limits to a10's.
template <unsigned kBug>
KernelEntry MakeBug(std::string id, int index, std::string title, std::string changed,
                    std::string (*extra_supports)(const AttentionProblem&) = nullptr) {
  KernelInfo info;
  info.id = std::move(id);
  info.revision = kFirstRevision + index;
  info.title = "Demo bug: attn.a10_fa2 " + std::move(title);
  info.changed = std::move(changed);
  KernelEntry e =
      attn_mma::MakeEntry<a10::kFeatures | kBug, a10::TileD64, a10::TileD128>(std::move(info));
  if (extra_supports != nullptr) {
    e.attention_supports = [extra_supports](const AttentionProblem& p) {
      std::string why = attn_mma::Supports(p);
      return why.empty() ? extra_supports(p) : why;
    };
  }
  return e;
}

std::string GridFloorSupports(const AttentionProblem& p) {
  // Query tiles are 128 rows at D = 64 and 64 at D = 128 (a10_fa2.cuh).
  const int bm = p.head_dim == 64 ? a10::TileD64::BM : a10::TileD128::BM;
  if (p.seq_q < bm) {
    return "seq_q " + std::to_string(p.seq_q) + " < " + std::to_string(bm) +
           ": the floored grid would have no block at all, a launch error rather than the bug "
           "(use seq_q >= one query tile)";
  }
  return "";
}

std::string Fp16Supports(const AttentionProblem& p) {
  if (p.dtype != DType::kF16) {
    return "fp16 only: mma.sync has an fp16 accumulator for fp16 operands, none for bf16";
  }
  return "";
}

}  // namespace

KernelEntry MakeDemoBugGridFloor() {
  return MakeBug<attn_mma::kBugGridFloor>(
      "demo.bug_grid_floor", 0, "with a grid of floor(Sq/BM) query blocks",
      "grid = seq_q / BM rounded down: the last partial query tile is never computed or written",
      GridFloorSupports);
}

KernelEntry MakeDemoBugKeyTileFloor() {
  return MakeBug<attn_mma::kBugKeyTileFloor>(
      "demo.bug_key_tile_floor", 1, "with floor(Sk/BN) key tiles",
      "key-tile count = keys / BN rounded down: the last partial key tile is never visited");
}

KernelEntry MakeDemoBugCausalDiagonal() {
  return MakeBug<attn_mma::kBugDiagonal>(
      "demo.bug_causal_diagonal", 2, "with the causal diagonal shifted by one",
      "causal offset seq_k - seq_q - 1: every query masks its own diagonal key");
}

KernelEntry MakeDemoBugStaleRescale() {
  return MakeBug<attn_mma::kBugStaleRescale>(
      "demo.bug_stale_rescale", 3, "with a stale O rescale in warp 1",
      "warp 1 (rows 32..63 of each 128-row block at D = 64) skips O *= exp2(m_old - m_new) when "
      "its running max grows; l is rescaled");
}

KernelEntry MakeDemoBugLdmatrixTrans() {
  return MakeBug<attn_mma::kBugVLaneMap>(
      "demo.bug_ldmatrix_trans", 4, "with K's ldmatrix lane map for V in D's second quarter",
      "ldmatrix.trans of V takes the lane addresses of the non-transposed K loads for head dims "
      "D/4..D/2-1: two 8x8 blocks of V swapped per 16 keys");
}

KernelEntry MakeDemoBugFp16Accumulate() {
  return MakeBug<attn_mma::kBugF16Accumulate>(
      "demo.bug_fp16_accumulate", 5, "accumulating O in fp16",
      "O += P·V with mma.sync's fp16 accumulator (f16.f16.f16.f16) instead of fp32", Fp16Supports);
}

}  // namespace flashscope::kernels
