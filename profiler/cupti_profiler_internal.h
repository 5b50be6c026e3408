// Internal to the range profiler's two files (cupti_profiler.cc: set-up, configuration and
// decoding; cupti_profiler_session.cc: the replay passes). Not for other code.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "profiler/cupti_host.h"

namespace flashscope::profiler::cupti_internal {

// Each kernel's (or range's) GPU time, collected beside every scope's metrics: the weights that
// combine ratios over the kernels of one launch, and the profiled launch's own duration.
inline constexpr char kGpuTimeMetric[] = "gpu__time_duration.sum";
// The busiest SM's active cycles and the SMs' clock over a range: its kernels' own time without
// the host gaps a user range around a launch holds (batched sessions, cupti_profiler_batch.cc).
inline constexpr char kBusyCyclesMetric[] = "sm__cycles_active.max";
inline constexpr char kSmClockMetric[] = "sm__cycles_elapsed.avg.per_second";

// FLASHSCOPE_CUPTI_TRACE=1 prints each CUPTI call before it is made: where a crash inside CUPTI
// happened, when there is no debugger on the GPU machine.
inline bool TraceCupti() {
  static const bool on = [] {
    const char* v = std::getenv("FLASHSCOPE_CUPTI_TRACE");
    return v != nullptr && v[0] == '1';
  }();
  return on;
}

}  // namespace flashscope::profiler::cupti_internal

#define FS_CUPTI_RETURN_IF_ERROR(expr, what)                                                 \
  do {                                                                                       \
    if (::flashscope::profiler::cupti_internal::TraceCupti()) {                              \
      std::fprintf(stderr, "[cupti] %s\n", std::string(what).c_str());                       \
    }                                                                                        \
    if (absl::Status fs_s_ = ::flashscope::profiler::CuptiStatus((expr), what); !fs_s_.ok()) \
      return fs_s_;                                                                          \
  } while (0)
