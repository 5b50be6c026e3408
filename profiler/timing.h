// The timing engine: CUDA-event timing per sample after warm-up, L2 flushed before each sample
// (cold, the default) or not (hot), samples until the noise of the median is under the target,
// and a throttle check that rejects samples taken while the SM clock had dropped.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "profiler/paired_sampling.h"
#include "profiler/profiler_kernels.h"
#include "profiler/sample_stats.h"
#include "profiler/timing_policy.h"

namespace flashscope::profiler {

class Timer {
 public:
  // Allocates the L2 flush buffer (2 x L2 size of the current device), events and the clock
  // probe's result buffer. Errors name the CUDA call that failed.
  static absl::StatusOr<std::unique_ptr<Timer>> Create(cudaStream_t stream);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // Times `launch` (which enqueues the work on the stream it is given and returns its launch
  // error). Per sample: [L2 flush], event, launch, event, clock probe, synchronize. A launch
  // error or a CUDA error ends timing with a Status naming the CUDA error.
  using Launch = std::function<cudaError_t(cudaStream_t)>;
  absl::StatusOr<TimingResult> Time(const Launch& launch, const TimingPolicy& policy);

  // Times two launches in interleaved pairs (flashscope ab): `warmup` launches of each, then per
  // pair a seeded coin (policy.seed) decides which goes first, and each sample is taken as in
  // Time() (L2 flush when cold, events, clock probe, synchronise), so that drift of the clock or
  // the temperature reaches both alike. A pair is dropped when either sample's clock fell below
  // the throttle ratio. `on_launch(side)` (0 = a, 1 = b) is called before each launch of that
  // side, so that a crash inside it can be pinned on it. Never fails as a whole: an error is
  // returned in the result with the side it came from and the pairs taken before it.
  PairTimingResult TimePair(const Launch& a, const Launch& b, const PairPolicy& policy,
                            const std::function<void(int side)>& on_launch);

  // Enqueues a read of the whole flush buffer (>= 2 x L2) on the stream, so the next kernel
  // finds none of its data in L2 and no dirty line to write back: a write (memset) flush left
  // ~25 MB of dirty lines that the next kernel paid for (measured: dram_bytes 9.5 % above
  // ncu's on attention cases, reports/device/20261122-h200/crosscheck.md).
  absl::Status FlushL2();

  // Runs the clock probe alone and returns the SM clock in MHz (synchronizes the stream).
  absl::StatusOr<double> MeasureSmClockMhz();

  size_t flush_bytes() const { return flush_bytes_; }

 private:
  explicit Timer(cudaStream_t stream) : stream_(stream) {}
  absl::StatusOr<double> ReadProbeMhz();
  struct Sample {
    double ms = 0;
    double sm_clock_mhz = 0;
  };
  // One sample: [L2 flush], event, launch, event, clock probe, synchronise.
  absl::StatusOr<Sample> TakeSample(const Launch& launch, bool cold);

  cudaStream_t stream_;
  void* flush_buffer_ = nullptr;
  size_t flush_bytes_ = 0;
  unsigned* flush_sink_ = nullptr;  // device memory the flush read never actually writes
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  ClockProbeResult* probe_ = nullptr;  // device memory
};

}  // namespace flashscope::profiler
