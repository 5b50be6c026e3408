// The hardware counters that measure how much arithmetic a launch did, by precision path, and how
// many bytes it moved through DRAM: the evidence of the trust checks' work conservation and
// precision contract (docs/trust.md). Per architecture, since the counter names differ; the names
// are checked against CUPTI's host tables for GA100 and GH100 (profiler/tests/cupti_host_test.cc).
//
// Units, measured on an H200 (results/device/20261124-h200-trust/call1): the sm__ops_path_tensor_*
// counters count FLOPs (2 per multiply-add: calib.mma_loop's 4,325,376 mma.sync.m16n8k16 counted
// 1.772e10 = 4096 each; attn.a10_fa2 at B=2 H=8 S=2048 D=128 counted exactly 4·B·H·S²·D); the
// scalar counters count thread instructions: FFMA 2 FLOPs, FADD and FMUL 1, HFMA 4 (the packed
// HFMA2 the compiler emits). The scalar counts are work evidence only, never precision evidence:
// the compiler also emits HFMA2 with zero operands to move constants (a02 and g03 show 5e7 and
// 2.7e8 of them with no fp16 arithmetic written), and FADD/FMUL include softmax and index math.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace flashscope::profiler {

struct WorkCounter {
  std::string hw_name;     // "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum"
  std::string path;        // "fp16 mma.sync, fp32 accumulate"
  std::string inputs;      // "fp16", "bf16", "tf32", "fp8", "int8", "fp32"
  std::string accumulate;  // "fp32", "fp16", "fp16 or fp32" (not told apart), "int32"
  double flops_per_count = 1;
  bool precision_evidence = true;  // the path's inputs and accumulator are what it says
};

// A cheaper first stage of the same evidence (docs/trust.md, "The screen"). CUPTI counts each
// mma.sync precision path of GH100 in a pass of its own (six passes for every path), but every
// wgmma path, the tensor pipe's instruction counts and the two in-contract dense mma.sync paths
// fit in three. The screen is complete, and stands for the full set, when an exact identity says
// that the mma.sync paths it did not collect did nothing: each mma.sync instruction of the
// counted dense paths does at most `max_flops_per_mma_sync` FLOPs (m16n8k16), every other one
// (fp16 accumulation, tf32, int8, fp8, sparse, a smaller shape) adds to the instruction count
// without adding to those FLOPs, so
//     max_flops_per_mma_sync x (tensor - wgmma - other instructions) == counted mma.sync FLOPs
// holds only when every mma.sync instruction was an m16n8k16 of a counted path. Otherwise the
// full set is collected (the screen's cost is then extra).
struct WorkScreen {
  std::string tensor_instructions;             // every warp instruction of the tensor pipe
  std::string wgmma_instructions;              // the wgmma ones among them
  std::vector<std::string> zero_instructions;  // instruction kinds that must not occur (imma, dmma)
  // Tensor-pipe instructions that are no matrix product (GH100: the HFMA2.MMA the compiler emits
  // for fp16 arithmetic and register moves), subtracted from the tensor instructions.
  std::vector<std::string> other_instructions;
  std::vector<std::string> mma_sync_flops;  // the counted dense mma.sync paths' FLOP counters
  double max_flops_per_mma_sync = 4096;
  // Each tensor path of the full set as the sum of screen counters (none: zero when complete).
  std::vector<std::pair<std::string, std::vector<std::string>>> path_terms;
  // Counted in hardware beside the tensor paths, for kernels whose tensor paths fall short (the
  // scalar rungs): the FMA pipe's warp instructions, FFMA, FMUL, FADD and IMAD alike. Each does at
  // most `scalar_flops_per_instruction` FLOPs (32 lanes x an FFMA's 2), so the product bounds the
  // FP32 arithmetic from above without the SASS-instrumented passes (docs/trust.md, check 2).
  std::string scalar_instructions;
  double scalar_flops_per_instruction = 64;
  std::string scalar_path = "fp32 FMA pipe (warp instructions x 64: an upper bound)";
};

struct WorkCounterSet {
  std::vector<WorkCounter> paths;
  std::string dram_read;   // bytes read from DRAM
  std::string dram_write;  // bytes written to DRAM
  // The first stage that may stand for the tensor paths (empty tensor_instructions: none known
  // for this architecture; every case collects the full set).
  WorkScreen screen;
  // Every hardware name above, in the order the profiler should collect them.
  std::vector<std::string> AllHwNames() const;
  // What the screen collects (empty without one): its counters, the scalar bound's and the DRAM
  // bytes.
  std::vector<std::string> ScreenHwNames() const;
  bool has_screen() const { return !screen.tensor_instructions.empty(); }
};

// What a screen's counts say: `complete` when the identity holds, `values` then every tensor path
// of the full set (by its hardware name) and the DRAM bytes, as the full set would have counted
// them, and the scalar bound's instructions (WorkScreen::scalar_instructions); otherwise `why` says
// which part of the identity failed, with the numbers.
struct ScreenOutcome {
  bool complete = false;
  std::string why;
  std::map<std::string, double> values;
};
ScreenOutcome ApplyScreen(const WorkCounterSet& set, const std::map<std::string, double>& counts);

// The set for compute capability `cc` (x 10), or nullptr where flashscope knows none (the
// trust checks then record work and precision as "off" with that reason).
const WorkCounterSet* WorkCountersFor(int cc);

}  // namespace flashscope::profiler
