#include "profiler/work_counters.h"

#include <cmath>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

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

// GH100's screen (WorkScreen): the _sparsity_off counters of the two dense in-contract mma.sync
// paths fit in the passes of the wgmma paths and the instruction counts, where the plain ones
// would add a third; a sparse mma.sync then counts nowhere in the identity and breaks it.
// Measured on an H200 (results/device/20261128-h200x2-session4/call7-tensor-ops-per-
// instruction-fp16.json): 4,096 FLOPs per mma.sync instruction (a03, a05, a10, g04), and the
// tensor pipe's instruction count holds the wgmma instructions (a12, a17, g05, g06).
WorkScreen HopperScreen() {
  WorkScreen w;
  w.tensor_instructions = "sm__inst_executed_pipe_tensor.sum";
  w.wgmma_instructions = "sm__inst_executed_pipe_tensor_op_gmma.sum";
  w.zero_instructions = {"sm__inst_executed_pipe_tensor_op_imma.sum",
                         "sm__inst_executed_pipe_tensor_op_dmma.sum"};
  // Measured (4 x H200, session 6, call 2): the scalar rungs a01, a02 and g01-g03 showed 752 to
  // 1.1 M tensor-pipe instructions with no FLOPs on any tensor path: HFMA2.MMA.
  w.other_instructions = {"sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum"};
  const std::string fp16_sync = "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_off.sum";
  const std::string bf16_sync = "sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_off.sum";
  w.mma_sync_flops = {fp16_sync, bf16_sync};
  w.path_terms = {
      {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum", {fp16_sync}},
      {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16.sum", {}},
      {"sm__ops_path_tensor_op_hgmma_src_fp16.sum", {"sm__ops_path_tensor_op_hgmma_src_fp16.sum"}},
      {"sm__ops_path_tensor_src_bf16_dst_fp32.sum",
       {"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum", bf16_sync}},
      {"sm__ops_path_tensor_src_tf32_dst_fp32.sum",
       {"sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum"}},
      {"sm__ops_path_tensor_src_fp8.sum", {"sm__ops_path_tensor_src_fp8.sum"}},
      {"sm__ops_path_tensor_src_int8.sum", {"sm__ops_path_tensor_op_igmma_src_int8.sum"}},
  };
  // Measured on an H200 (session 8, call 1: flashscope-metric-probe on a01, a02, g01-g03): 4.3-13
  // M FMA-pipe instructions against 4.2-4.5 M warps' worth of FFMA (SASS-counted lanes / 32).
  w.scalar_instructions = "sm__inst_executed_pipe_fma.sum";
  return w;
}

WorkCounterSet HopperWithoutScreen() {
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

WorkCounterSet Hopper() {
  WorkCounterSet s = HopperWithoutScreen();
  s.screen = HopperScreen();
  return s;
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

std::vector<std::string> WorkCounterSet::ScreenHwNames() const {
  if (!has_screen()) return {};
  std::vector<std::string> out = {screen.tensor_instructions, screen.wgmma_instructions};
  std::set<std::string> seen(out.begin(), out.end());
  auto add = [&](const std::string& n) {
    if (seen.insert(n).second) out.push_back(n);
  };
  for (const std::string& n : screen.zero_instructions) add(n);
  for (const std::string& n : screen.other_instructions) add(n);
  for (const std::string& n : screen.mma_sync_flops) add(n);
  for (const auto& [path, terms] : screen.path_terms) {
    for (const std::string& n : terms) add(n);
  }
  if (!screen.scalar_instructions.empty()) add(screen.scalar_instructions);
  add(dram_read);
  add(dram_write);
  return out;
}

ScreenOutcome ApplyScreen(const WorkCounterSet& set, const std::map<std::string, double>& counts) {
  ScreenOutcome out;
  const WorkScreen& w = set.screen;
  if (!set.has_screen()) {
    out.why = "no screen is known for this GPU";
    return out;
  }
  for (const std::string& n : set.ScreenHwNames()) {
    auto it = counts.find(n);
    if (it == counts.end() || !std::isfinite(it->second) || it->second < 0) {
      out.why = absl::StrCat("the screen did not count ", n);
      return out;
    }
  }
  for (const std::string& n : w.zero_instructions) {
    if (counts.at(n) != 0) {
      out.why = absl::StrFormat("%s counted %.0f instructions", n, counts.at(n));
      return out;
    }
  }
  const double tensor = counts.at(w.tensor_instructions);
  const double wgmma = counts.at(w.wgmma_instructions);
  double other = 0, sync_flops = 0;
  for (const std::string& n : w.other_instructions) other += counts.at(n);
  for (const std::string& n : w.mma_sync_flops) sync_flops += counts.at(n);
  const double sync = tensor - wgmma - other;
  // Exact: the counts are integers far below 2^53, their products too.
  if (sync < 0 || w.max_flops_per_mma_sync * sync != sync_flops) {
    out.why = absl::StrFormat(
        "%.0f mma.sync instructions (%.0f tensor-pipe instructions, %.0f wgmma, %.0f other) did "
        "%.0f FLOPs on the counted paths, not %.0f (%.0f each): some ran on a path the screen "
        "does not count",
        sync, tensor, wgmma, other, sync_flops, w.max_flops_per_mma_sync * sync,
        w.max_flops_per_mma_sync);
    return out;
  }
  out.complete = true;
  for (const auto& [path, terms] : w.path_terms) {
    double sum = 0;
    for (const std::string& n : terms) sum += counts.at(n);
    out.values[path] = sum;
  }
  if (!w.scalar_instructions.empty()) {
    out.values[w.scalar_instructions] = counts.at(w.scalar_instructions);
  }
  out.values[set.dram_read] = counts.at(set.dram_read);
  out.values[set.dram_write] = counts.at(set.dram_write);
  return out;
}

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
