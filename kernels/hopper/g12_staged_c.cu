// g12_staged_c — intent: a GEMM tile's main loop should not wait for the previous tile's C to
// reach memory. g06-g11 store C (fp32) from the accumulator registers: both consumer warpgroups of
// every CTA end their tiles together and store 128 KiB each, 17 MB from 132 SMs at once, and
// while those stores drain the tensor cores idle. Timed (session 12, device call 2): 8192 x 8192 x
// 1024 runs 16 rounds of tiles in 231 us against a main loop of ~11 us per round at g06's
// 8192^3 rate, ~3 us a round beyond it, about what 17 MB take through L2; cuBLAS, which stages
// its epilogue through shared memory (its shared-memory stores in g06's first profile,
// docs/perf-notes.md), keeps g06 at 0.96x there against 1.00x at K = 8192.
// Changed vs g11: the consumer warpgroups write C into shared memory (parts of 64 columns of their
// 64 rows, 16 KiB each, 128-byte swizzled) and one thread per warpgroup stores each part with TMA
// (cp.async.bulk.tensor, bulk groups); the warpgroup waits only until the TMA has read its staging
// area before writing the next part, and not at all before its next tile's main loop. The staging
// area (32 KiB) takes shared memory from the operand stages: 4 instead of 5 at 128 x 192, the
// others keep theirs. Padding, bands and tile widths as g11 (a C that TMA cannot address, off 16
// bytes, keeps g11's register stores).
// Prediction (written before its first device run, for halves of a tile: 64 KiB, one stage fewer
// at 128 x 256; H200, bf16 and fp16): 8192 x 8192 x 1024 +4..+8 % over g11 (about half of the ~3
// us a round); 4096^3 and 16384 x 1024 x 4096 +1..+3 %; 3000^3, 5000^3, 6000^3 0..+3 %; 8192^3
// -1..+1 % (its rounds are long; one stage fewer).
// Measured (one H200, session 12, results/device/20261129-h200-session12/; every case passed every
// trust check): halves (call 3) +1.6..+2.4 % at 8192 x 8192 x 1024, +1.2..+1.9 % at 4096^3 and
// 16384 x 1024 x 4096, +4 % at 3000^3, but -1..-2 % at 5000^3 (three stages at 128 x 256). Parts of
// 64 columns, four stages (call 4, same run as halves): 8192 x 8192 x 1024 +5.7..+5.9 % (0.96 ->
// 1.015x cuBLAS), 4096^3 +2.5..+2.7 % (0.99x), 16384 x 1024 x 4096 +2.7..+2.9 % (0.99x), 5000^3
// +2 %, 6000^3 +1.7..+2.1 %, 3000^3 +3..+3.5 %, 8192^3 +0.6..+0.9 %; held out 12288 x 4096 x 1536
// +4.2 %, 4096 x 14336 x 4096 +2.3 %, 2048^3 +5.2 %, 5000 x 5000 x 2000 +4.6 %. Hence 64 columns.
#include <cuda_runtime.h>

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "kernels/hopper/g06_tma_ws_entry.cuh"
#include "kernels/hopper/g06_tma_ws_host.cuh"
#include "kernels/hopper/g10_row_bands.cuh"
#include "kernels/hopper/g11_padded_operands.h"
#include "kernels/kernel_list.h"

namespace flashscope::kernels {
namespace {

// TMA stores need C 16-byte aligned with rows a multiple of 16 bytes apart (N a multiple of 4):
// g11's padding gives every N off the 8-element grid a padded C; a C the caller placed off 16
// bytes takes g10's register stores.
cudaError_t StagedBands(const GemmProblem& p, const GemmArgs& a, cudaStream_t stream,
                        const char* id) {
  if (!hopper::TmaAddressable(a.c, static_cast<uint64_t>(p.n) * 4).empty()) {
    return g10::LaunchBands<false>(p, a, stream, id);
  }
  return g10::LaunchBands<true>(p, a, stream, id);
}

}  // namespace

KernelEntry MakeG12StagedC() {
  KernelEntry e;
  e.info.id = "gemm.g12_staged_c";
  e.info.revision = 12;
  e.info.title =
      "g11 + C staged in shared memory and stored by TMA, so that the next tile's main loop runs "
      "while it drains";
  e.info.changed =
      "the epilogue: accumulators to a swizzled shared-memory staging area (64-column parts of a "
      "warpgroup's rows), TMA bulk-tensor stores, no wait before the next tile";
  e = g11::PaddedEntry(std::move(e), "g12", &StagedBands, &g10::DescribeBands<true>);
  e.info.required_sass.push_back("UTMASTG");
  return e;
}

}  // namespace flashscope::kernels
