// The error statistics of a kernel's output against the reference: one struct for what verify/
// computes (verify/error_stats.h) and what a report records (reports/report.h's
// ErrorStatsRecord), so that a statistic added here reaches the report without a copy in between.
#pragma once

#include <cstdint>

namespace flashscope {

struct ErrorStats {
  int64_t elements = 0;
  double max_abs = 0;
  double mean_abs = 0;
  double nrmse = 0;  // ||out - ref||_2 / ||ref||_2
  double max_rel = 0;
  int64_t bad = 0;  // |out - ref| > atol + rtol·|ref|
  int64_t nan = 0;
  int64_t inf = 0;
  int64_t never_written = 0;  // still holding the poison pattern after the launch
  int64_t worst_index = -1;   // flat index of max_abs
};

}  // namespace flashscope
