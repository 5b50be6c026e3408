// g10_row_bands — intent: no round of the persistent grid mostly idle where the tile grid does not
// divide into whole waves. g06 runs ceil(cluster tiles / clusters) rounds of one tile width; at
// 5000^3 its 128 x 256 tiles in clusters of two make 400 cluster tiles over 66 clusters: six full
// rounds and a seventh 6 % full that costs a whole tile's time (SM active 0.85 against cuBLAS's
// 0.97, session 6; the tensor pipe inside the active time matches cuBLAS's since g06 v5). g07
// split that last round along K and measured level (its short split units and serial
// hand-overs cost what the idle SMs gained). cuBLAS (ncu, session 11 call 2) runs 256 x 152
// tiles there: 20 x 33 = 660 = exactly five waves of 132.
// Changed vs g06: C is computed as two row bands, one launch each on the same stream, each with
// the tile width g06's wave-time model (g06::PredictedTime: rounds x width x the narrower tile's
// cost per FLOP) prices lowest for its rows; the split row (a multiple of 128) and the two widths
// are the model's best, taken only where it predicts at least kBandGain over g06's single launch
// after the second launch's cost (~5 us, in the model's units through K), with widths 256, 192
// and 128. The bottom band reads A and writes C
// from row m1 on (pointer offsets: m1 x K x 2 and m1 x N x 4 bytes, both 16-byte aligned); every
// other shape is g06's launch, unchanged.
// Prediction (written before its first device run; bf16 and fp16): 5000^3 splits as 1792 rows of
// 128 x 192 tiles (3 rounds, 95 % full) over 3208 rows of 128 x 256 (4 rounds, 98 %), 1,660
// model units (3 us a launch) against g06's 1,792: +6..+9 % (0.87-0.88 -> 0.93-0.96x cuBLAS); the
// other target shapes (4096^3, 8192^3, 3000^3, 6000^3, 16384x1024x4096, 8192x8192x1024) do not
// split (the model finds < 3 %) and run g06's launch (within noise).
// Measured (one H200, session 11, results/device/20261129-h200-session11/): 5000^3 +7..+8 % over
// g06 (0.86-0.87 -> 0.93x cuBLAS, call 6, the README's table), unsplit shapes within 0.7 %;
// held out (call 5) 1800 x 3296 x 2048 +8 %, 3600 x 3400 x 1024 +10 %, 3900 x 3088 x 1024 +7.5 %.
// The first rule (64-wide bands, a 3 us launch) split 2200 x 1840 x 2048 with a 128 x 64 band:
// -8 % (call 4), hence kBandWidths and the 5 us launch.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "kernels/gemm/gemm_common.cuh"
#include "kernels/hopper/g06_tma_ws_entry.cuh"
#include "kernels/hopper/g06_tma_ws_host.cuh"
#include "kernels/hopper/g10_row_bands.cuh"
#include "kernels/kernel_list.h"

namespace flashscope::kernels {

KernelEntry MakeG10RowBands() {
  KernelEntry e;
  e.info.id = "gemm.g10_row_bands";
  e.info.revision = 10;
  e.info.title =
      "g06 in two row bands, each with the tile width whose rounds its rows fill best (g06's "
      "wave-time model), where that beats one launch by 3 %; g06 elsewhere";
  e.info.changed =
      "a second launch for the rows whose tiles would leave the last round mostly idle: C's row "
      "split and both widths chosen by the wave-time model";
  e = g06::TmaWsEntry</*kSplitTail=*/false, g06::ShapePlan<g06::PredictedBestWidth>>(std::move(e),
                                                                                     "g10");
  e.gemm_launch = [id = e.info.id](const GemmProblem& p, const GemmArgs& a, cudaStream_t stream) {
    return g10::LaunchBands(p, a, stream, id.c_str());
  };
  const auto describe_single = e.device_functions;
  e.device_functions = [describe_single](const Problem& pr) {
    const auto* p = std::get_if<GemmProblem>(&pr);
    std::vector<DeviceFunction> out = describe_single(pr);
    if (p == nullptr || out.empty() || !g06::ShapePlan<g06::PredictedBestWidth>(*p).tma) return out;
    return g10::DescribeBands(*p);
  };
  return e;
}

}  // namespace flashscope::kernels
