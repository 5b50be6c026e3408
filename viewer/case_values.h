// Reading the numbers the viewer shows out of a CaseResult. Metric names are matched loosely
// (friendly name or hardware name) because the profiler's catalogue names them per architecture.
#pragma once

#include <optional>
#include <string>

#include "reports/report.h"

namespace flashscope::viewer {

enum class MetricKind { kTensorPipe, kShared, kDram, kOccupancy };

// The value of the first metric of that kind, or nullopt when the case was not profiled or the
// metric is absent. Occupancy is reported in percent (0..100) whatever the source unit.
std::optional<double> FindMetric(const reports::CaseResult& c, MetricKind kind);

std::optional<double> MedianMs(const reports::CaseResult& c);
std::optional<double> Tflops(const reports::CaseResult& c);
std::optional<double> PctPeak(const reports::CaseResult& c);
std::optional<double> MaxAbsError(const reports::CaseResult& c);

// "pass 1.3x", "FAIL 4.2x", "not verified".
std::string VerdictText(const reports::CaseResult& c);

// Kernel ids of library implementations start with "peer." (kernels/registry.h), and their
// revision is not stored in reports, so rungs are ordered by id (ids carry a zero-padded number).
bool IsPeer(const std::string& kernel_id);

// The dtype axis of a case's problem ("fp16", "bf16", "fp32"), from params or the problem key.
std::string DtypeOf(const reports::CaseResult& c);

// The measured matmul peak (TFLOPS) that applies to a dtype, 0 when not measured.
double PeakTflopsFor(const reports::Environment& env, const std::string& dtype);

}  // namespace flashscope::viewer
