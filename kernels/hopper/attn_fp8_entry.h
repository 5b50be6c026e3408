// The registry entry of the FP8 attention rungs (kernels/hopper/a27_fp8.cu holds the host side):
// a27_fp8's serial schedule, or with `overlap` a28_fp8_overlap's intra-warpgroup overlap at head
// dims 64 and 128 (a27's kernel at 256). `info` brings the id, revision, title and changed; the
// rest (family, sm_90a, tile, accepts_fp8, required SASS) is the FP8 body's.
#pragma once

#include "kernels/registry.h"

namespace flashscope::kernels {

KernelEntry MakeFp8AttentionEntry(KernelInfo info, bool overlap);

}  // namespace flashscope::kernels
