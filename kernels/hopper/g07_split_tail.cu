// g07_split_tail — intent: no SMs idle in the last wave of a GEMM whose tiles do not divide into
// whole waves (sizes off the tile grid). g06's persistent grid runs ceil(tiles / clusters) rounds
// of whole tiles: at 5000^3 (128x256 tiles, clusters of two) 400 cluster tiles over 66 clusters
// are 6 full rounds and a 7th with 4 tiles (94 % of the grid idle for a whole tile's time: 0.80x
// cuBLAS measured); at 3000^3, 144 over 66: a third round of 12.
// Changed: the tiles of the last, partial wave are split along K into up to resident/tail units
// (<= 6, >= 4 k-steps each: the hand-overs below are serial), dealt round-robin after the whole
// tiles, so the last round takes about 1/splits of a tile's time plus the hand-overs. The
// partial sums reach C in split order: split 0 stores, each later split waits (an acquire load
// of a per-tile counter in global memory) for its turn, adds its part to C (read through L2) and
// passes the turn on with a release store; the last split resets the counter. No extra launch and
// no atomics: the sum order, and so the result, is the same on every launch. Everything else is
// g06's (TMA, warp specialisation, clusters sharing B, grouped tile order); tile widths 256 and 128
// only (the split fills small problems, where g06 fell back to 128x64). Prediction (before
// measuring, H100/H200): 5000^3 (tile ~60 us, 6 splits, ~2.5 us a hand-over) 7 rounds -> 6 + 0.37:
// +8-11 % over g06 (0.80 -> 0.87-0.89x cuBLAS); 3000^3 (~36 us, 5 splits) 3 rounds -> 2 + 0.55:
// +15-20 %; shapes whose tiles fill whole waves, or whose tail is too large to split (8192^3,
// 6000^3, 16384x1024x4096): g06 within 1 %.
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

using g06::SmCount;
using g06::Tiles;

// g06's rule without the 128x64 tiles: 128x256 unless they would leave more than half of the SMs
// idle. Clusters and the element-copy path for shapes TMA cannot describe (K or N not a multiple
// of 8, misaligned operands) are g06's (g06::ShapePlan), the latter unsplit.
int ChooseBN(const GemmProblem& p) { return Tiles(p, 256) >= SmCount() / 2 ? 256 : 128; }

}  // namespace

KernelEntry MakeG07SplitTail() {
  KernelEntry e;
  e.info.id = "gemm.g07_split_tail";
  e.info.revision = 7;
  e.info.title =
      "g06 + the last partial wave of tiles split along K over the idle SMs, partial sums added "
      "to C in a fixed split order (no atomics); 128x256 or 128x128 tiles";
  e.info.changed =
      "split-K for the tail wave only (stream-K's idea without a second kernel), deterministic "
      "order through acquire/release counters; no 128x64 tiles";
  return g06::TmaWsEntry</*kSplitTail=*/true, g06::ShapePlan<ChooseBN>>(std::move(e), "g07");
}

}  // namespace flashscope::kernels
