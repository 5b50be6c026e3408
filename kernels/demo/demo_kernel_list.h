// The demo plugin's kernels: attn.a10_fa2 with one planted bug each (bug_kernels.cu), the subjects
// of suites/demo.json (docs/heatmaps.md). They are no test fixture but something a user runs
// (`flashscope run demo`), so they ship as an installed plugin, `flashscope_demo_kernels`
// (demo_plugin.cc), in lib/flashscope/plugins beside flashscope-worker.
#pragma once

#include <vector>

#include "kernels/registry.h"

namespace flashscope::kernels {

KernelEntry MakeDemoBugGridFloor();
KernelEntry MakeDemoBugKeyTileFloor();
KernelEntry MakeDemoBugCausalDiagonal();
KernelEntry MakeDemoBugStaleRescale();
KernelEntry MakeDemoBugLdmatrixTrans();
KernelEntry MakeDemoBugFp16Accumulate();

// All of them, in ladder order.
std::vector<KernelEntry> DemoKernels();

}  // namespace flashscope::kernels
