// Translations from the measuring libraries' results (verify/, profiler/) into the report model,
// which depends on neither of them.
#pragma once

#include <string>

#include "profiler/cupti_profiler.h"
#include "profiler/device_info.h"
#include "profiler/timing.h"
#include "reports/report.h"
#include "verify/workspace.h"

namespace flashscope::runner {

reports::Environment ToEnvironment(const profiler::DeviceInfo& d);
// The GPU as a run's device list holds it: `index` is what the supervisor calls it (its own
// CUDA ordinal, not this process's, which sees a pinned GPU as device 0).
reports::DeviceRecord ToDevice(const profiler::DeviceInfo& d, int index);
reports::VerificationRecord ToVerificationRecord(const verify::VerificationResult& v);
reports::TimingRecord ToTimingRecord(const profiler::TimingResult& t);
// TFLOPS and GB/s at the median time, and the share of the measured peaks (0 when the problem's
// dtype has no measured matmul peak, e.g. fp32).
reports::ThroughputRecord ToThroughput(const Problem& p, double median_ms,
                                       const reports::MeasuredPeaks& peaks);
reports::ProfileRecord ToProfileRecord(const profiler::ProfileResult& p);
// A file-system-safe folder name for a case's .npy dump.
std::string CaseDirName(int index, const std::string& key);

}  // namespace flashscope::runner
