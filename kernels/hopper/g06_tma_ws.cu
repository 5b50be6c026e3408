// g06_tma_ws — intent: the GEMM ladder's Hopper rung built the way Hopper wants to be fed: the
// copy engine (TMA) loads the tiles, a warp-specialised mbarrier pipeline keeps the tensor cores
// busy, and a persistent grid walks the tiles in an L2-friendly order. fp16 and bf16 in, fp32 out.
//
// Changed vs g05 (every thread copies with cp.async, then all meet at __syncthreads; one CTA per
// 128x128 tile): one producer thread issues cp.async.bulk.tensor (TMA) boxes of A (128 rows x 64
// k, K-major) and B (64 k x 64 n boxes, N-major as in memory) into 128-byte-swizzled shared
// memory, each stage completing on its "full" mbarrier by transaction bytes; two consumer
// warpgroups wait on it and issue wgmma.m64nNk16 (N = 256; 192, 128 or 64 where the narrower
// tile's rounds of the grid are predicted to finish sooner, g06::PredictedBestWidth) on their 64
// rows, then hand the stage back through its "empty" mbarrier once wgmma.wait_group has retired the
// reads. No __syncthreads in the main loop. setmaxnreg moves registers from the producer
// warpgroup (40) to the consumers (232: 128 accumulators each). Clusters of two CTAs along M share
// the B tile: each loads half of its boxes and multicasts them to both. Persistent: as many
// clusters as fit at once, cluster c takes cluster tiles c, c + clusters, ..., walked in groups
// of 8 cluster rows, down a column first, so the clusters running at once share A rows and B
// columns in L2. The producer runs ahead into the next tile while the consumers store the last
// one (straight from registers to global memory). Device code: g06_tma_ws_kernel.cuh.
//
// Paths, one kernel entry: TMA needs 16-byte-aligned rows, so K and N multiples of 8 (2-byte
// elements) and 16-byte-aligned A and B take the TMA path (edges zero-filled by the copy engine);
// any other shape runs the same pipeline with the whole producer warpgroup copying element by
// element (zero fill at the edges, fence.proxy.async, one arrival per thread) and 128x128 tiles.
// The profiler's device function name says which ("G06TmaWsKernel<bf16, 256, tma, cluster 2>").
//
// Prediction (written before the first device run): with loads off the consumers' issue slots,
// no block-wide barriers and a 128x256 tile (B read once per 128 rows, A once per 256 columns),
// the tensor pipe should be busy 75-85 % of the time at 4096^3 and 8192^3: 560-660 TFLOPS on an
// H200 (g05: 375; cuBLAS 726-741), i.e. 0.78-0.9x cuBLAS, fp16 and bf16 alike; the MLP shapes the
// same. The fp32 epilogue (64 MB at 4096^2) stalls the tensor cores only while the 128 floats per
// thread are issued: ~2-4 %. Small problems (1024^3: 32 tiles of 128x256 for 132 SMs) stay far
// from cuBLAS. Measured (H200, gemm_ladder, same run as cuBLAS): 704 / 741 TFLOPS fp16 and 722 /
// 770 bf16 at 4096^3 / 8192^3, 0.96-1.0x cuBLAS, tensor pipe 87-95 %: above the prediction.
// v5 (session 10): an operand whose rows are off the 32-byte grid gets 128-byte L2 promotion in its
// tensor map (256 elsewhere; hopper::PromotionForRows, set by MatrixTensor): 3000^3 0.78 -> 0.89x
// cuBLAS, 5000^3 -> 0.88x. History and later versions: docs/perf-notes.md ("gemm.g06_tma_ws").
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/gemm/gemm_common.cuh"
#include "kernels/hopper/g06_tma_ws_entry.cuh"
#include "kernels/hopper/g06_tma_ws_host.cuh"
#include "kernels/hopper/g06_tma_ws_kernel.cuh"
#include "kernels/kernel_list.h"

namespace flashscope::kernels {
namespace {

// kernels/perf/gemm_sweep.cu includes this file and launches instantiations through these.
using g06::LaunchTyped;
using g06::Maps;
using g06::MapsFor;

}  // namespace

KernelEntry MakeG06TmaWs() {
  KernelEntry e;
  e.info.id = "gemm.g06_tma_ws";
  e.info.revision = 6;
  e.info.title =
      "TMA + mbarrier pipeline, producer warp / 2 wgmma warpgroups (setmaxnreg), persistent "
      "128x256 tiles (192/128/64 where predicted faster), clusters of 2 multicasting B; K, N not "
      "multiples of "
      "8: element-copy producer";
  e.info.changed =
      "TMA bulk-tensor loads completing on mbarriers, warp specialisation, persistent grouped "
      "tile order, B multicast in clusters of two, fp16 and bf16";
  return g06::TmaWsEntry</*kSplitTail=*/false, g06::ShapePlan<g06::PredictedBestWidth>>(
      std::move(e), "g06");
}

}  // namespace flashscope::kernels
