// Terminal renderings of a report: the case table and the summary that `flashscope show` and
// `flashscope run` print. Colour is ANSI and only on request (StdoutIsTty / UseColorByDefault).
#pragma once

#include <string>

#include "reports/report.h"

namespace flashscope::reports {

// One row per case: kernel, problem, status, median ms, TFLOPS, % of measured peak, max error,
// error ratio to the same-precision baseline, then tensor-pipe % and shared-memory % when any
// case has profile metrics, then the reason of skipped/error/timeout cases (and the deciding
// rule of failed ones). Column widths follow the contents; a long problem key widens its column
// instead of being cut. "-" marks a value the case does not have.
std::string RenderCaseTable(const Report& report, bool color);

// The environment (GPU name, SMs, architecture, driver, CUDA, measured peaks), the suite name,
// case counts per status and the total wall time; says loudly when the report is synthetic or
// incomplete (recovered from a journal).
std::string RenderSummary(const Report& report, bool color);

bool StdoutIsTty();
// StdoutIsTty(), unless NO_COLOR is set (https://no-color.org) or TERM is "dumb".
bool UseColorByDefault();

// The value of the tensor-pipe / shared-memory metric of a case's profile, if it was measured.
// Matched by hardware metric name (the profiler's friendly names may change), then by friendly
// name.
const MetricRecord* FindTensorPipeMetric(const CaseResult& c);
const MetricRecord* FindSharedMemoryMetric(const CaseResult& c);

}  // namespace flashscope::reports
