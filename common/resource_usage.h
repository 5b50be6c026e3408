// The resource usage of one __global__ function: one struct for what profiler/ reads
// (profiler/resources.h) and what a report records (reports/report.h's ResourceRecord), so that a
// field added here reaches the report without a copy in between.
#pragma once

#include <string>

namespace flashscope {

struct ResourceUsage {
  std::string function;  // kernel (device function) name
  int registers = 0;     // per thread
  int static_smem_bytes = 0;
  int dynamic_smem_bytes = 0;
  int local_bytes = 0;  // per thread: spills and stack arrays; > 0 means spills or stack
  int block_threads = 0;
  double theoretical_occupancy = 0;  // resident warps / the SM's maximum warps, 0..1
};

}  // namespace flashscope
