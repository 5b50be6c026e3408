// What the test kernels that are slower by a known fraction share (slowdown_kernels.cu for the
// gate's quality, ab_fixture_kernels.cu for ab's): a one-warp kernel that waits a given time on
// the GPU, and the cold median time of a launch, measured as the runner's cold timing does it.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

#include "kernels/registry.h"

namespace flashscope::kernels {

// Enqueues a one-warp kernel on `stream` that spins on %globaltimer for `ns` nanoseconds (0: it
// returns at once, costing only its launch). Returns the launch error.
cudaError_t LaunchSpin(unsigned long long ns, cudaStream_t stream);
// Adds the spin kernel to what `entry`'s device_functions report (an entry that launches it
// after its own kernels).
void AddSpinToDeviceFunctions(KernelEntry* entry);

// Median time in ms of `launch` over 9 samples after 3 warm-up launches, L2 flushed (by writing
// twice its size) before each, like the runner's cold timing. Synchronises `stream`.
cudaError_t ColdMedianMs(cudaStream_t stream, const std::function<cudaError_t()>& launch,
                         float* median_ms);

}  // namespace flashscope::kernels
