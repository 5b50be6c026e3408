#include "viewer/case_values.h"

#include "analysis/chart_model.h"

namespace flashscope::viewer {
namespace {

bool Contains(const std::string& s, const char* needle) {
  return s.find(needle) != std::string::npos;
}

}  // namespace

bool IsPeer(const std::string& kernel_id) { return reports::IsPeerKernel(kernel_id); }

std::string DtypeOf(const reports::CaseResult& c) {
  auto it = c.params.find("dtype");
  if (it != c.params.end()) return it->second;
  for (const char* d : {"bf16", "fp16", "fp32", "e4m3"}) {
    if (Contains(c.problem_key, d)) return d;
  }
  return "";
}

double PeakTflopsFor(const reports::Environment& env, const std::string& dtype) {
  if (dtype == "bf16") return env.peaks.matmul_bf16_tflops;
  if (dtype == "fp16") return env.peaks.matmul_fp16_tflops;
  return 0;  // no fp32 or e4m3 peak is measured; the roofline then shows no compute ceiling
}

}  // namespace flashscope::viewer
