// The explicit list of kernel makers; each revision file defines one `Make…()`.
// Add a line here (declaration and list entry) when adding a revision.
#pragma once

#include "kernels/registry.h"

namespace flashscope::kernels {

using KernelMaker = KernelEntry (*)();

// --- attention_fwd ladder ---
// --- gemm ladder ---
// --- peers ---
// --- test-only ---

inline constexpr KernelMaker kKernelMakers[] = {
    nullptr,  // placeholder removed once the first kernel is listed
};

}  // namespace flashscope::kernels
