// The timing engine: CUDA-event timing per sample after warm-up, L2 flushed before each sample
// (cold, the default) or not (hot), samples until the noise of the median is under the target,
// and a throttle check that rejects samples taken while the SM clock had dropped.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "profiler/kernel_tracer.h"
#include "profiler/paired_sampling.h"
#include "profiler/profiler_kernels.h"
#include "profiler/sample_stats.h"
#include "profiler/timing_policy.h"

namespace flashscope::profiler {

// What the trust checks do around every timed launch, outside its two events (docs/trust.md).
// `i` counts timed launches from 0, throttled ones included: each launch answers for itself.
struct SampleHooks {
  // Before launch i's L2 flush: e.g. re-poison the output and choose the input set it reads.
  std::function<absl::Status(int i)> before;
  // After launch i's stop event and clock probe: e.g. enqueue a check of what it wrote.
  std::function<absl::Status(int i)> after;
  // Around warm-up launch w (untimed; warm-ups are not synchronised one by one): e.g. fresh
  // inputs before it and a check of its output after it, so that a warm-up is no different.
  std::function<absl::Status(int w)> before_warmup;
  std::function<absl::Status(int w)> after_warmup;
};

// One sample taken as Time() takes them, under CUPTI activity tracing of all work
// (TraceScope::kAllWork), with a marker kernel on the stream right before the start event and
// right after the stop event: what the launch caused, where and when.
struct TracedSample {
  std::vector<KernelRecord> records;   // everything CUPTI recorded, the two markers removed
  uint32_t launch_stream = kNoStream;  // CUPTI id of the stream launch() was given
  uint64_t window_begin_ns = 0;        // GPU: end of the marker before the start event
  uint64_t window_end_ns = 0;          // GPU: start of the marker after the stop event
  uint64_t launch_call_begin_ns = 0;   // host: launch() was called
  uint64_t launch_call_end_ns = 0;     // host: launch() returned
  double event_ms = 0;                 // the sample's start-to-stop event time
};

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
  absl::StatusOr<TimingResult> Time(const Launch& launch, const TimingPolicy& policy,
                                    const SampleHooks& hooks = {});

  // One more timed launch, number `i` for the hooks, traced (see TracedSample); `cold` as in
  // TimingPolicy. Errors: the tracer's, a launch error, or markers missing from the records.
  absl::StatusOr<TracedSample> TraceSample(const Launch& launch, KernelTracer& tracer,
                                           const SampleHooks& hooks, int i, bool cold);

  // Times two launches in interleaved pairs (flashscope ab): `warmup` launches of each, then per
  // pair a seeded coin (policy.seed) decides which goes first, and each sample is taken as in
  // Time() (hooks, L2 flush when cold, events, clock probe, synchronise), so that drift of the
  // clock or the temperature reaches both alike. `hooks[side]` run around that side's timed
  // launches as in Time(), `i` counting that side's launches. A pair is dropped when either
  // sample's clock fell below the throttle ratio. `on_launch(side)` (0 = a, 1 = b) is called
  // before each launch of that side, so that a crash inside it can be pinned on it. Never fails
  // as a whole: an error is returned in the result with the side it came from and the pairs
  // taken before it.
  PairTimingResult TimePair(const Launch& a, const Launch& b, const PairPolicy& policy,
                            const SampleHooks (&hooks)[2],
                            const std::function<void(int side)>& on_launch);

  // Enqueues a read of the whole flush buffer (>= 2 x L2) on the stream, so the next kernel
  // finds none of its data in L2 and no dirty line to write back: a write (memset) flush left
  // ~25 MB of dirty lines that the next kernel paid for (measured: dram_bytes 9.5 % above
  // ncu's on attention cases, results/device/20261122-h200/crosscheck.md).
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
  // One sample: EnqueueSample without markers, then synchronise on the clock probe and read the
  // events.
  absl::StatusOr<Sample> TakeSample(const Launch& launch, const SampleHooks& hooks, int i,
                                    bool cold);

  // Host timestamps (CUPTI's clock) around the launch() call of one sample.
  struct LaunchCall {
    uint64_t begin_ns = 0;
    uint64_t end_ns = 0;
  };
  // Enqueues sample i: hooks.before, [flush], [marker], start, launch, stop, [marker], clock probe,
  // hooks.after. Synchronizes nothing.
  absl::StatusOr<LaunchCall> EnqueueSample(const Launch& launch, const SampleHooks& hooks, int i,
                                           bool cold, bool markers);

  cudaStream_t stream_;
  void* flush_buffer_ = nullptr;
  size_t flush_bytes_ = 0;
  unsigned* flush_sink_ = nullptr;  // device memory the flush read never actually writes
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  ClockProbeResult* probe_ = nullptr;  // device memory
};

}  // namespace flashscope::profiler
