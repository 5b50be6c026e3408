#include "profiler/timing.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "common/seconds_since.h"
#include "profiler/cuda_check.h"

namespace flashscope::profiler {
namespace {

// The probe spins this long: long enough that a 1 us %globaltimer tick is a 5 % error at most
// (the probe starts and ends on a tick, so it is usually far less), short enough to add little
// to each sample.
constexpr int kProbeSpinNs = 20000;

absl::Status LaunchStatus(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, " returned ", CudaErrorText(e)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Timer>> Timer::Create(cudaStream_t stream) {
  std::unique_ptr<Timer> t(new Timer(stream));
  int device = 0;
  FS_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device), "cudaGetDevice");
  int l2 = 0;
  FS_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device),
                          "cudaDeviceGetAttribute(L2CacheSize)");
  // Twice L2, and at least 64 MiB in case the attribute under-reports (partitioned L2s); a
  // multiple of 16 bytes for the flush kernel's 16-byte loads.
  t->flush_bytes_ = std::max<size_t>(2 * static_cast<size_t>(l2), size_t{64} << 20) & ~size_t{15};
  FS_CUDA_RETURN_IF_ERROR(
      cudaMalloc(&t->flush_buffer_, t->flush_bytes_),
      absl::StrCat("cudaMalloc of the ", t->flush_bytes_ >> 20, " MiB L2 flush buffer"));
  // Initialised once (the flush reads it; never reading uninitialised memory keeps
  // compute-sanitizer's initcheck quiet), then only read.
  FS_CUDA_RETURN_IF_ERROR(cudaMemset(t->flush_buffer_, 0x5A, t->flush_bytes_),
                          "cudaMemset of the L2 flush buffer");
  FS_CUDA_RETURN_IF_ERROR(cudaMalloc(reinterpret_cast<void**>(&t->flush_sink_), sizeof(unsigned)),
                          "cudaMalloc of the L2 flush sink");
  FS_CUDA_RETURN_IF_ERROR(cudaEventCreate(&t->start_), "cudaEventCreate");
  FS_CUDA_RETURN_IF_ERROR(cudaEventCreate(&t->stop_), "cudaEventCreate");
  FS_CUDA_RETURN_IF_ERROR(
      cudaMalloc(reinterpret_cast<void**>(&t->probe_), sizeof(ClockProbeResult)),
      "cudaMalloc of the clock probe result");
  return t;
}

Timer::~Timer() {
  // Errors cannot be returned from here; a failed free at exit changes no measurement.
  if (flush_buffer_) cudaFree(flush_buffer_);
  if (flush_sink_) cudaFree(flush_sink_);
  if (probe_) cudaFree(probe_);
  if (start_) cudaEventDestroy(start_);
  if (stop_) cudaEventDestroy(stop_);
}

absl::Status Timer::FlushL2() {
  return LaunchStatus(LaunchL2FlushRead(flush_buffer_, flush_bytes_, flush_sink_, stream_),
                      "L2 flush (read) launch");
}

absl::StatusOr<double> Timer::ReadProbeMhz() {
  ClockProbeResult r{};
  FS_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(&r, probe_, sizeof(r), cudaMemcpyDeviceToHost, stream_),
                          "cudaMemcpyAsync (clock probe result)");
  FS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  if (r.ns == 0) return absl::InternalError("clock probe measured 0 ns of %globaltimer");
  return static_cast<double>(r.cycles) * 1000.0 / static_cast<double>(r.ns);
}

absl::StatusOr<double> Timer::MeasureSmClockMhz() {
  if (absl::Status s =
          LaunchStatus(LaunchClockProbe(probe_, kProbeSpinNs, stream_), "clock probe launch");
      !s.ok()) {
    return s;
  }
  return ReadProbeMhz();
}

absl::StatusOr<Timer::LaunchCall> Timer::EnqueueSample(const Launch& launch,
                                                       const SampleHooks& hooks, int i, bool cold,
                                                       bool markers) {
  if (hooks.before) {
    if (absl::Status s = hooks.before(i); !s.ok()) return s;
  }
  if (cold) {
    if (absl::Status s = FlushL2(); !s.ok()) return s;
  }
  if (markers) {
    if (absl::Status s = LaunchStatus(LaunchTraceMarker(stream_), "trace marker launch"); !s.ok()) {
      return s;
    }
  }
  FS_CUDA_RETURN_IF_ERROR(cudaEventRecord(start_, stream_), "cudaEventRecord(start)");
  LaunchCall call;
  call.begin_ns = markers ? HostTimestampNs() : 0;
  const cudaError_t launch_error = launch(stream_);
  call.end_ns = markers ? HostTimestampNs() : 0;
  if (absl::Status s = LaunchStatus(launch_error, "kernel launch"); !s.ok()) return s;
  FS_CUDA_RETURN_IF_ERROR(cudaEventRecord(stop_, stream_), "cudaEventRecord(stop)");
  if (markers) {
    if (absl::Status s = LaunchStatus(LaunchTraceMarker(stream_), "trace marker launch"); !s.ok()) {
      return s;
    }
  }
  if (absl::Status s =
          LaunchStatus(LaunchClockProbe(probe_, kProbeSpinNs, stream_), "clock probe launch");
      !s.ok()) {
    return s;
  }
  if (hooks.after) {
    if (absl::Status s = hooks.after(i); !s.ok()) return s;
  }
  return call;
}

absl::StatusOr<Timer::Sample> Timer::TakeSample(const Launch& launch, const SampleHooks& hooks,
                                                int i, bool cold) {
  absl::StatusOr<LaunchCall> call = EnqueueSample(launch, hooks, i, cold, /*markers=*/false);
  if (!call.ok()) return call.status();
  absl::StatusOr<double> mhz = ReadProbeMhz();  // synchronizes: kernel errors surface here
  if (!mhz.ok()) return mhz.status();
  float ms = 0;
  FS_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  return Sample{ms, *mhz};
}

absl::StatusOr<TimingResult> Timer::Time(const Launch& launch, const TimingPolicy& policy,
                                         const SampleHooks& hooks) {
  if (policy.min_samples < 1 || policy.max_samples < policy.min_samples) {
    return absl::InvalidArgumentError(absl::StrCat(
        "timing policy needs 1 <= min_samples <= max_samples, got min_samples=", policy.min_samples,
        " max_samples=", policy.max_samples));
  }
  TimingResult result;
  result.mode = policy.cold ? "cold" : "hot";

  for (int i = 0; i < policy.warmup; ++i) {
    if (hooks.before_warmup) {
      if (absl::Status s = hooks.before_warmup(i); !s.ok()) return s;
    }
    if (absl::Status s = LaunchStatus(launch(stream_), "kernel launch (warm-up)"); !s.ok()) {
      return s;
    }
    if (hooks.after_warmup) {
      if (absl::Status s = hooks.after_warmup(i); !s.ok()) return s;
    }
    ++result.warmup_runs;
  }
  FS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_), "cudaStreamSynchronize after warm-up");

  std::vector<double> clocks;
  double max_clock = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (true) {
    absl::StatusOr<Sample> sample = TakeSample(launch, hooks, result.launches, policy.cold);
    if (!sample.ok()) return sample.status();
    ++result.launches;
    // Throttle check: the clock right after the sample against the highest clock seen so far.
    max_clock = std::max(max_clock, sample->sm_clock_mhz);
    if (sample->sm_clock_mhz < policy.throttle_ratio * max_clock) {
      ++result.rejected_throttled;
    } else {
      result.samples_ms.push_back(sample->ms);
      clocks.push_back(sample->sm_clock_mhz);
    }

    const double elapsed = SecondsSince(t0);
    result.summary = Summarize(result.samples_ms);
    if (ShouldStop(result.summary, policy, elapsed, &result.converged, &result.stop_reason)) {
      break;
    }
  }
  if (!clocks.empty()) result.median_sm_clock_mhz = Summarize(clocks).median;
  return result;
}

absl::StatusOr<TracedSample> Timer::TraceSample(const Launch& launch, KernelTracer& tracer,
                                                const SampleHooks& hooks, int i, bool cold) {
  if (absl::Status s = tracer.Start(TraceScope::kAllWork); !s.ok()) return s;
  absl::StatusOr<LaunchCall> call = EnqueueSample(launch, hooks, i, cold, /*markers=*/true);
  // Stop synchronizes the device: all the launch caused, on any stream, is recorded.
  absl::StatusOr<std::vector<KernelRecord>> records = tracer.Stop();
  if (!call.ok()) return call.status();
  if (!records.ok()) return records.status();
  TracedSample out;
  out.launch_call_begin_ns = call->begin_ns;
  out.launch_call_end_ns = call->end_ns;
  std::vector<const KernelRecord*> markers;
  for (const KernelRecord& r : *records) {
    if (r.kind == ActivityKind::kKernel && r.name.find(kTraceMarkerName) != std::string::npos) {
      markers.push_back(&r);
    }
  }
  if (markers.size() != 2 || markers[0]->stream_id != markers[1]->stream_id) {
    return absl::InternalError(absl::StrCat(
        "traced sample: expected the two trace markers on one stream in CUPTI's kernel records, "
        "found ",
        markers.size()));
  }
  out.launch_stream = markers[0]->stream_id;
  out.window_begin_ns = markers[0]->end_ns;
  out.window_end_ns = markers[1]->start_ns;
  for (const KernelRecord& r : *records) {
    if (&r != markers[0] && &r != markers[1]) out.records.push_back(r);
  }
  float ms = 0;
  FS_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  out.event_ms = ms;
  return out;
}

}  // namespace flashscope::profiler
