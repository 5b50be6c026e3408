// g08_shared_a — intent: g06's speed on matrices whose rows are off the 32-byte grid (K or N not
// a multiple of 16 elements, e.g. 3000 or 5000). A pitch study (session 9, device call 1:
// kernels/perf/gemm_sweep.cu --pitch, the same M x N x K with only the rows' padding changed,
// results/device/20261128-h200-session9/) measured g06 at 3000^3 bf16 at 522 TFLOPS with A's rows
// as packed (6000 bytes apart) and 629 with them padded to 32 bytes (+20 %; B's rows padded +10 %;
// both 638), and at 5000^3 +6 % for A; cuBLAS moved 0-3 % on the same pitches. ncu at 5000^3:
// A's rows off the grid double g06's L2 read requests (18.6 M -> 38.3 M) and add 18 % sectors;
// cuBLAS (nvjet 256x152, clusters 2x1) pays the same extra sectors but shares our A across its
// cluster, and its time does not move.
// Changed vs g06: where A's rows are off the 32-byte grid and g06 would cluster, the cluster of two
// lies along N instead of M: its CTAs own neighbouring tile columns of one tile row and share the
// A tile, each loading 64 of its 128 rows by TMA (a box of 64 rows) multicast to both; each loads
// its own B boxes. A's L2 requests per CTA halve, B's double (B's rows are read whole 128-byte
// boxes per k-row, which the pitch study priced at half of A's penalty). A CTA whose tile column
// falls past N (odd column count) computes zeros, stores nothing and still multicasts its A half.
// Tile widths, schedule order, pipeline and epilogue are g06's; everywhere else g08 is g06.
// Prediction (written before its first device run, H200): 3000^3 +10..+18 % over g06 (0.88-0.94x
// cuBLAS), 5000^3 +2..+6 % (0.82-0.85x: its 7th round of tiles is 94 % idle either way), shapes
// with rows on the grid (4096^3, 8192^3, 6000^3, the MLP shapes) g06's kernel exactly.
// Measured (session 9, device call 2, one H200, results/device/20261128-h200-session9/): refuted.
// 3000^3 469 TFLOPS against g06's 520 (-10 %, bf16 and fp16 alike), 5000^3 467-470 against
// 557-564 (-17 %); the pitch study with B's rows padded and A's packed: sharing A 592 against g06's
// 575 (+3 %), but with both packed 472 against 523. What costs is every misaligned 128-byte row a
// CTA loads, not which operand is shared: sharing A halves A's rows per CTA and doubles B's. Kept
// registered as the measured negative (correct: its GPU test, memcheck and racecheck clean), not
// in suites/shapes.json. Rows on the grid run g06's kernel, so g08 is g06 there.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "kernels/gemm/gemm_common.cuh"
#include "kernels/hopper/g06_tma_ws_entry.cuh"
#include "kernels/hopper/g06_tma_ws_host.cuh"
#include "kernels/kernel_list.h"

namespace flashscope::kernels {
namespace {

// g06's plan, with its clusters of two sharing A where A's rows (K 2-byte elements) are not a
// whole number of 32-byte sectors and there are two tile columns to pair.
g06::Plan PlanG08(const GemmProblem& p) {
  g06::Plan plan = g06::ShapePlan<g06::PredictedBestWidth>(p);
  plan.share_a = plan.tma && plan.cluster == 2 && (p.k * 2) % 32 != 0 && p.n > plan.bn;
  return plan;
}

}  // namespace

KernelEntry MakeG08SharedA() {
  KernelEntry e;
  e.info.id = "gemm.g08_shared_a";
  e.info.revision = 8;
  e.info.title =
      "g06 + clusters of two along N sharing the A tile (64 rows each, multicast) where A's rows "
      "are off the 32-byte grid; g06 elsewhere";
  e.info.changed =
      "the cluster shares A instead of B when A's rows straddle L2 sectors (K*2 not a multiple "
      "of 32): half the A requests per CTA";
  return g06::TmaWsEntry</*kSplitTail=*/false, PlanG08>(std::move(e), "g08");
}

}  // namespace flashscope::kernels
