// Calibration kernels: workloads whose hardware-counter signature is known in advance, so that
// the profiler (and its cross-check against Nsight Compute) can prove itself on the device.
//   mma loop     -> tensor pipe busy (>= 80 %), shared memory idle
//   shared loop  -> shared-memory data stage busy (>= 50 %), tensor pipe idle
//   copy         -> DRAM throughput high (>= 70 %) when the buffers are far larger than L2
//   exp loop     -> XU pipe (MUFU.EX2) busy, tensor pipe idle
//   spin         -> a kernel of known duration (%globaltimer), for the timing tests
//   increment    -> not idempotent (data += 1): proves kernel replay restores memory
// Plain functions returning the launch error (no Abseil: shared with nvcc).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace flashscope::profiler {

enum class CalibrationKernel { kMmaLoop, kSharedLoop, kCopy, kExpLoop, kSpin, kIncrement };

// Threads per block each launcher below uses.
constexpr int kCalibrationBlockThreads = 128;

// `blocks` blocks of 128 threads; each warp runs `iters` x 8 independent mma.sync.m16n8k16
// (fp16 in, fp32 accumulate) from registers. `out` needs blocks * 128 floats.
cudaError_t LaunchMmaLoop(float* out, int blocks, int iters, cudaStream_t stream);

// `blocks` blocks of 128 threads; each thread reads `iters` conflict-free 16-byte shared loads
// (LDS.128) from a 32 KiB tile. `out` needs blocks * 128 floats.
cudaError_t LaunchSharedLoop(float* out, int blocks, int iters, cudaStream_t stream);

// Copies `bytes` (a multiple of 16, 16-byte aligned pointers) with 16-byte vector loads/stores.
cudaError_t LaunchCopy(void* dst, const void* src, size_t bytes, int blocks, cudaStream_t stream);

// `blocks` blocks of 128 threads; each thread runs `iters` x 8 independent ex2.approx.ftz.f32.
// `out` needs blocks * 128 floats.
cudaError_t LaunchExpLoop(float* out, int blocks, int iters, cudaStream_t stream);

// `blocks` blocks of one thread each spin until `ns` nanoseconds of %globaltimer have passed
// since each block started; the kernel lasts about `ns` when all blocks are resident at once.
cudaError_t LaunchSpin(int64_t ns, int blocks, cudaStream_t stream);

// Adds 1 to each of `count` unsigned values: every launch changes its own input.
cudaError_t LaunchIncrement(unsigned* data, size_t count, cudaStream_t stream);

// The __global__ function behind each calibration kernel, for resource queries.
const void* CalibrationFunction(CalibrationKernel kernel);

}  // namespace flashscope::profiler
