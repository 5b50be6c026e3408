#include "profiler/work_counters.h"

#include <utility>

namespace flashscope::profiler {
namespace {

// An architecture's tensor paths, then what is named alike on GA100 and GH100: the scalar
// arithmetic (counted as work everywhere) and DRAM bytes.
WorkCounterSet WithScalarAndDram(std::vector<WorkCounter> tensor_paths) {
  WorkCounterSet s;
  s.paths = std::move(tensor_paths);
  s.paths.push_back(
      {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "fp32 FFMA", "fp32", "fp32", 2});
  s.paths.push_back(
      {"sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "fp32 FADD", "fp32", "fp32", 1, false});
  s.paths.push_back(
      {"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", "fp32 FMUL", "fp32", "fp32", 1, false});
  s.paths.push_back({"sm__sass_thread_inst_executed_op_hfma_pred_on.sum",
                     "fp16 HFMA2 (register moves included)", "fp16", "fp16", 4, false});
  s.dram_read = "dram__bytes_read.sum";
  s.dram_write = "dram__bytes_write.sum";
  return s;
}

WorkCounterSet Hopper() {
  return WithScalarAndDram({
      {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum", "fp16 mma.sync, fp32 accumulate",
       "fp16", "fp32", 1},
      {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16.sum", "fp16 mma.sync, fp16 accumulate",
       "fp16", "fp16", 1},
      // GH100 has no destination split for fp16 wgmma (HGMMA): fp16 and fp32 accumulation count
      // alike.
      {"sm__ops_path_tensor_op_hgmma_src_fp16.sum", "fp16 wgmma", "fp16", "fp16 or fp32", 1},
      {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", "bf16 tensor, fp32 accumulate", "bf16", "fp32",
       1},
      {"sm__ops_path_tensor_src_tf32_dst_fp32.sum", "tf32 tensor", "tf32", "fp32", 1},
      {"sm__ops_path_tensor_src_fp8.sum", "fp8 tensor", "fp8", "fp16 or fp32", 1},
      {"sm__ops_path_tensor_src_int8.sum", "int8 tensor", "int8", "int32", 1},
  });
}

// GA100's tensor counters split by destination type for every source (no wgmma there). Their
// unit is taken to be Hopper's (both are CUPTI "math_op" counters); not yet measured on an A100.
WorkCounterSet Ampere() {
  return WithScalarAndDram({
      {"sm__ops_path_tensor_src_fp16_dst_fp32.sum", "fp16 tensor, fp32 accumulate", "fp16", "fp32",
       1},
      {"sm__ops_path_tensor_src_fp16_dst_fp16.sum", "fp16 tensor, fp16 accumulate", "fp16", "fp16",
       1},
      {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", "bf16 tensor, fp32 accumulate", "bf16", "fp32",
       1},
      {"sm__ops_path_tensor_src_tf32_dst_fp32.sum", "tf32 tensor", "tf32", "fp32", 1},
      {"sm__ops_path_tensor_src_int8.sum", "int8 tensor", "int8", "int32", 1},
  });
}

}  // namespace

std::vector<std::string> WorkCounterSet::AllHwNames() const {
  std::vector<std::string> out;
  for (const WorkCounter& c : paths) out.push_back(c.hw_name);
  out.push_back(dram_read);
  out.push_back(dram_write);
  return out;
}

const WorkCounterSet* WorkCountersFor(int cc) {
  static const WorkCounterSet kAmpere = Ampere();
  static const WorkCounterSet kHopper = Hopper();
  if (cc == 80) return &kAmpere;
  if (cc == 90) return &kHopper;
  return nullptr;
}

}  // namespace flashscope::profiler
