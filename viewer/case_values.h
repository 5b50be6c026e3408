// Facts of a case the charts need beyond its summary values (analysis/summary.h, which holds every
// number the tables and tooltips show): whether it is a library peer, its dtype and that dtype's
// measured peak.
#pragma once

#include <string>

#include "reports/report.h"

namespace flashscope::viewer {

// Kernel ids of library implementations start with "peer." (analysis/chart_model.h's IsPeerKernel).
bool IsPeer(const std::string& kernel_id);

// The dtype axis of a case's problem ("fp16", "bf16", "fp32", "e4m3"), from params or the key.
std::string DtypeOf(const reports::CaseResult& c);

// The measured matmul peak (TFLOPS) that applies to a dtype, 0 when not measured.
double PeakTflopsFor(const reports::Environment& env, const std::string& dtype);

}  // namespace flashscope::viewer
