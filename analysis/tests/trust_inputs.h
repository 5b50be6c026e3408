// The evidence the trust checks' tests decide on (trust_checks_test.cc, trust_checks_fp8_test.cc):
// the H200's environment and the counters of attn.a10_fa2 at attention_fwd{B=2,H=8,S=2048,D=128,
// fp16} (results/device/20261124-h200-trust/call1).
#pragma once

#include <string>

#include "analysis/trust_checks.h"

namespace flashscope::reports::testing_inputs {

// attention_fwd{B=2,H=8,S=2048,D=128,fp16}: 4·B·H·S²·D FLOPs; Q, K, V of 8 MiB each.
constexpr double kFlops = 3.436e10;
constexpr double kInputBytes = 3.0 * 2 * 8 * 2048 * 128 * 2;

inline Environment H200() {
  Environment e;
  e.compute_capability = 90;
  e.sm_count = 132;
  e.sm_clock_mhz = 1980;
  e.memory_clock_mhz = 3201;
  e.memory_bus_bits = 6016;
  e.peaks.matmul_fp16_tflops = 761.4;
  e.peaks.matmul_bf16_tflops = 792.7;
  e.peaks.copy_gbps = 4208.9;
  return e;
}

inline const TrustValue* Value(const TrustCheckRecord& c, const std::string& name) {
  for (const TrustValue& v : c.values) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

inline WorkInput A10Work(double hmma_fp32, double hmma_fp16, double dram_read) {
  WorkInput w;
  w.available = true;
  w.kernels = 1;
  w.paths = {{"fp16 mma.sync, fp32 accumulate", "fp16", "fp32", hmma_fp32},
             {"fp16 mma.sync, fp16 accumulate", "fp16", "fp16", hmma_fp16},
             {"fp16 wgmma", "fp16", "fp16 or fp32", 0},
             {"fp32 FFMA", "fp32", "fp32", 2 * 7.301e7}};
  w.dram_counted = true;
  w.dram_read_bytes = dram_read;
  w.dram_write_bytes = 6.067e4;
  w.l2_flushed = true;
  w.problem_dtype = "fp16";
  w.minimal_flops = kFlops;
  w.minimal_input_bytes = kInputBytes;
  return w;
}

}  // namespace flashscope::reports::testing_inputs
