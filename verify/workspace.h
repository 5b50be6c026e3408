// The per-problem verification facade the runner uses: owns a problem's device inputs and output,
// generates the inputs, computes the reference and the same-precision baseline once, and turns a
// kernel's output into a VerificationResult (statistics, verdict, heatmaps) or a .npy dump.
//
//   auto ws = Workspace::Create(problem, {InputKind::kNormal, seed}, stream);   // once per problem
//   ws->PoisonOutputs(stream);                                                  // per kernel
//   launch(kernel, ws->input(0), ws->input(1), ws->input(2), ws->output(), ws->lse());
//   auto result = ws->Verify(DefaultTolerance(family, dtype), {}, stream);
//
// The trust checks give every launch inputs no launch has read (docs/trust.md): Redraw draws the
// inputs of slot 0 again with their full reference (the verified launch of each later kernel),
// GenerateInputs regenerates the current slot's inputs alone before every other launch, and
// EnqueueSampledCheck checks that launch's output on sampled rows against a reference computed for
// them (workspace_fresh.cc).
// With `slots` > 1 the workspace holds that many buffer slots, each its own inputs, output and
// lse; UseSlot picks the one the next launch reads and writes (the runner draws it per launch:
// rotated buffers, docs/trust.md). The full reference describes slot 0.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/problem.h"
#include "verify/buffer_slots.h"
#include "verify/device_buffer.h"
#include "verify/error_stats.h"
#include "verify/gpu_reference.h"
#include "verify/heatmap.h"
#include "verify/host_buffer.h"
#include "verify/input_kind.h"
#include "verify/output_check.h"
#include "verify/sampled_check_counts.h"
#include "verify/tolerance.h"

namespace flashscope::verify {

struct WorkspaceOptions {
  InputKind input = InputKind::kNormal;
  uint64_t seed = 0;
  // Attention's reference accumulation. Gemm ignores it: its reference is always fp64, because
  // its baseline is the plain fp32 sum.
  ReferencePrecision precision = ReferencePrecision::kFp32;
  // Buffer slots wanted (>= 1). Create keeps fewer, down to one, when they would not fit in the
  // rotation budget (buffer_slots.h, PlanSlots), and says so in slots_note().
  int slots = 1;
};

struct HeatmapOptions {
  int block_m = 64;  // the kernel's tile (KernelInfo::tile), for the tile-fold maps
  int block_n = 64;
  int max_side = kFullHeatmapSide;
  bool enabled = true;
};

struct VerificationResult {
  ErrorStats stats;
  bool has_baseline = false;
  ErrorStats baseline;  // the same-precision baseline against the reference
  Verdict verdict;
  TolerancePolicy policy;
  std::string reference_name;  // "gpu fp32" / "gpu fp64"
  double lse_max_abs = 0;      // over rows where both lse values are finite
  std::vector<Heatmap> heatmaps;
  // stats.max_abs / baseline.max_abs; 0 when the baseline is exact (the ratio is undefined).
  double ratio_to_baseline = 0;
  bool lse_checked = false;  // problem.want_lse
  LseStats lse;
};

class Workspace {
 public:
  // Device bytes Create() needs at its peak with one slot: the inputs, output and lse, the fp32
  // reference (kept for the output checks), and the baseline and reference lse while they are
  // computed (copied to the host, then freed). Each further slot needs BufferSizes::SlotBytes().
  static int64_t DeviceBytesNeeded(const Problem& p);

  // Allocates, generates the inputs and computes reference and baseline (synchronises `stream`).
  // ResourceExhausted (naming the bytes needed and free) when the device cannot hold the problem;
  // InvalidArgument for a problem the references do not support (e.g. head_dim > 256).
  static absl::StatusOr<std::unique_ptr<Workspace>> Create(const Problem& p,
                                                           const WorkspaceOptions& options,
                                                           cudaStream_t stream);

  const Problem& problem() const { return problem_; }
  const WorkspaceOptions& options() const { return options_; }
  // The seed of the inputs the full reference describes (slot 0's, as last drawn).
  uint64_t seed() const { return seed_; }

  // ---- buffer slots: what a launch is given ----
  int num_slots() const { return static_cast<int>(slots_.size()); }
  // How many slots were kept and why (fewer than wanted: the sizes and the budget).
  const std::string& slots_note() const { return slots_note_; }
  // The slot the next launch reads and writes (0 until UseSlot).
  int slot() const { return current_; }
  absl::Status UseSlot(int slot);
  // Device inputs of the current slot (or of `slot`): q, k, v (attention) or a, b (gemm); nullptr
  // past the last input or slot.
  const void* input(int i) const { return input(i, current_); }
  const void* input(int i, int slot) const;
  int num_inputs() const { return std::holds_alternative<AttentionProblem>(problem_) ? 3 : 2; }
  // The kernel's output of the current slot (or of `slot`): O in AttentionOutputDType (the
  // problem's dtype; BF16 for E4M3) for attention, or C in fp32 (gemm).
  void* output() { return output(current_); }
  void* output(int slot);
  DType output_dtype() const;
  int64_t output_elements() const;
  // The kernel's log-sum-exp output (fp32) of the current slot (or of `slot`), or nullptr unless
  // the problem asks for it.
  float* lse() { return lse(current_); }
  float* lse(int slot);

  // The device copy (fp32) of the reference, which the GPU output checks read, and its size: the
  // harness's own buffer, which integrity checks watch (runner/buffer_integrity.h).
  const void* reference_device() const { return reference_device_.get(); }
  size_t reference_device_bytes() const { return reference_device_.bytes(); }

  // Host copies, fp32, of the reference output (and lse) and the baseline for slot 0's inputs:
  // valid until the next Redraw, which copies the new ones into the same memory.
  absl::Span<const float> reference() const { return reference_.floats(); }
  absl::Span<const float> reference_lse() const { return reference_lse_.floats(); }
  absl::Span<const float> baseline() const { return baseline_.floats(); }
  std::string reference_name() const;

  // Fills the current slot's output and lse with kPoisonByte (enqueued on `stream`).
  absl::Status PoisonOutputs(cudaStream_t stream);

  // Copies slot 0's output back (synchronising `stream`) and verifies it against the reference.
  absl::StatusOr<VerificationResult> Verify(const TolerancePolicy& policy,
                                            const HeatmapOptions& heatmaps, cudaStream_t stream);

  // The baseline's error statistics against the reference under `tol`, computed once per draw
  // and tolerance.
  const ErrorStats& BaselineStats(Tolerance tol);

  // Enqueues on `stream` the GPU check of slot 0's output against the reference under `bound`
  // (output_check.h); the counts land in `counts` (device memory). The lse is not checked.
  absl::Status EnqueueOutputCheck(const ElementBound& bound, OutputCheckCounts* counts,
                                  cudaStream_t stream);

  // ---- fresh inputs (docs/trust.md): every launch reads inputs no earlier launch read ----
  // (workspace_fresh.cc)
  // Draws slot 0's inputs again from `seed`: new inputs, reference and baseline, in the same
  // device buffers (a bound launch keeps its pointers; synchronises).
  absl::Status Redraw(uint64_t seed, cudaStream_t stream);
  // Regenerates the current slot's inputs from `seed` on the GPU (enqueued on `stream`, nothing
  // else): in slot 0 the full reference no longer describes them until the next Redraw.
  absl::Status GenerateInputs(uint64_t seed, cudaStream_t stream);
  // True until a launch read slot 0's inputs drawn last (MarkRead) or GenerateInputs replaced
  // them.
  bool unread() const { return unread_; }
  void MarkRead() { unread_ = false; }
  // Enqueues the sampled check (sampled_rows.h) of the current slot's output against the inputs
  // now in that slot: `samples` rows (attention) or entries (gemm) drawn from `seed`, counts into
  // `counts` (device memory).
  absl::Status EnqueueSampledCheck(int samples, uint64_t seed, const SampledBound& bound,
                                   SampledCheckCounts* counts, cudaStream_t stream);

  // Writes slot 0's output, the reference, baseline, inputs (and lse) as float32 .npy files into
  // `dir` (created if missing) with problem.json describing them.
  absl::Status DumpNpy(const std::string& dir, cudaStream_t stream);

 private:
  // What one launch is given: its inputs, output and lse.
  struct Slot {
    DeviceBuffer inputs[3];
    DeviceBuffer output;
    DeviceBuffer lse;
  };

  Workspace(const Problem& p, const WorkspaceOptions& o) : problem_(p), options_(o) {}
  absl::Status Initialise(int slots, cudaStream_t stream);
  absl::Status AllocateSlot(Slot& slot);
  // The host buffers that the reference, baseline and outputs are copied into, for the
  // workspace's life (pinned where possible: host_buffer.h).
  absl::Status AllocateHost();
  // Generates slot 0's inputs from seed_ and computes the reference and baseline, into the
  // buffers Initialise allocated (whose addresses a bound launch holds).
  absl::Status Draw(cudaStream_t stream);
  // Device buffer `buf` of `n` elements of `t`, copied to the host as floats.
  static absl::StatusOr<std::vector<float>> ToHostFloat(const void* buf, DType t, int64_t n,
                                                        cudaStream_t stream);

  Problem problem_;
  WorkspaceOptions options_;
  std::vector<Slot> slots_;
  int current_ = 0;
  std::string slots_note_;
  uint64_t seed_ = 0;
  DeviceBuffer reference_device_;                    // fp32
  HostBuffer reference_, reference_lse_, baseline_;  // fp32, slot 0's as last drawn
  HostBuffer output_host_, lse_host_;                // what Verify copies back
  // BaselineStats' cache: the tolerance it was computed for, and the statistics.
  bool baseline_stats_valid_ = false;
  Tolerance baseline_tol_{0, 0};
  ErrorStats baseline_stats_;
  bool unread_ = true;
};

}  // namespace flashscope::verify
