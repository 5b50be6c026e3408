// NVTX ranges in the `flashscope` domain (suite › case › phase), so Nsight Systems and Nsight
// Compute users see where each case and phase begins. Without CUDA the ranges compile to nothing.
#pragma once

#include <string>

namespace flashscope::profiler {

class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name);
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

 private:
  bool pushed_ = false;
};

}  // namespace flashscope::profiler
