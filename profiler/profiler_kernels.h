// Small device helpers of the profiler itself (no Abseil: this header is shared with nvcc).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace flashscope::profiler {

// What the clock probe measured: SM cycles (clock64) over a span of %globaltimer nanoseconds.
struct ClockProbeResult {
  unsigned long long cycles;
  unsigned long long ns;
};

// One thread spins for about `spin_ns` of %globaltimer time, starting and ending on a timer tick,
// and writes the clock64 cycles counted over the measured nanoseconds to `*out` (device memory).
cudaError_t LaunchClockProbe(ClockProbeResult* out, int spin_ns, cudaStream_t stream);

// Reads all `bytes` of `buffer` (a multiple of 16) so that L2 then holds only clean lines of it:
// whatever a previous launch left dirty is written back now, not during the next measured
// kernel. `*sink` is written only if the data hash to an impossible value (keeps the loads).
cudaError_t LaunchL2FlushRead(const void* buffer, size_t bytes, unsigned* sink,
                              cudaStream_t stream);

// An empty one-thread kernel whose CUPTI activity record marks a point in `stream`; its name in
// activity records contains kTraceMarkerName.
cudaError_t LaunchTraceMarker(cudaStream_t stream);
extern const char* const kTraceMarkerName;

// Fills `count` 16-bit values (fp16 when !bf16, else bf16) with uniform values in [-1, 1) drawn
// from a counter-based hash of (seed, index): random, never zero-filled, reproducible.
cudaError_t LaunchFillUniform16(void* data, size_t count, bool bf16, uint64_t seed,
                                cudaStream_t stream);

}  // namespace flashscope::profiler
