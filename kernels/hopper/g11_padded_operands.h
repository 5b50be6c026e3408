// g11's padded operands (g11_padded_operands.cu has the rung, its intent and measurements), for the
// rungs that build on it: where K or N is off the 8-element grid (or an operand is not
// TMA-addressable), A and B copied into zero-padded scratch, the bands of a g10-style launch on the
// padded problem, C's columns copied out; elsewhere the bands alone. g11 passes g10's bands, g12
// its staged ones.
#pragma once

#include <cuda_runtime_api.h>

#include <vector>

#include "kernels/registry.h"

namespace flashscope::kernels::g11 {

using BandsLaunch = cudaError_t (*)(const GemmProblem&, const GemmArgs&, cudaStream_t,
                                    const char* id);
using BandsDescribe = std::vector<DeviceFunction> (*)(const GemmProblem&);

cudaError_t Launch(const GemmProblem& p, const GemmArgs& a, cudaStream_t stream, const char* id,
                   BandsLaunch bands);

// The device functions Launch runs for `p` on the runner's (TMA-addressable) buffers.
std::vector<DeviceFunction> Describe(const GemmProblem& p, BandsDescribe bands);

// A rung's entry from `e` with its facts: g06's TMA entry for `rung` ("g11", a literal) with
// Launch and Describe over `bands` and `describe`.
KernelEntry PaddedEntry(KernelEntry e, const char* rung, BandsLaunch bands, BandsDescribe describe);

}  // namespace flashscope::kernels::g11
