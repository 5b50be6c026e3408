// The per-problem verification facade the runner uses: owns a problem's device inputs and output,
// generates the inputs, computes the reference and the same-precision baseline once, and turns a
// kernel's output into a VerificationResult (statistics, verdict, heatmaps) or a .npy dump.
//
//   auto ws = Workspace::Create(problem, {InputKind::kNormal, seed}, stream);   // once per problem
//   ws->PoisonOutputs(stream);                                                  // per kernel
//   launch(kernel, ws->input(0), ws->input(1), ws->input(2), ws->output(), ws->lse());
//   auto result = ws->Verify(DefaultTolerance(family, dtype), {}, stream);
//
// The trust checks give every launch inputs no launch has read (docs/trust.md): Redraw draws set
// 0 again with its full reference (the verified launch of each later kernel), GenerateInputs
// regenerates the inputs alone before every other launch, and EnqueueSampledCheck checks that
// launch's output on sampled rows against a reference computed for them (workspace_fresh.cc).
// With `input_sets` > 1 the workspace holds several input sets (seeds seed, seed + 1, ...), each
// with its own reference, sharing one output buffer (the runner no longer uses them: fresh
// inputs replaced the rotation of sets).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/problem.h"
#include "verify/device_buffer.h"
#include "verify/error_stats.h"
#include "verify/gpu_reference.h"
#include "verify/heatmap.h"
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
  // Input sets drawn with seeds seed, seed + 1, ... (>= 1).
  int input_sets = 1;
};

struct HeatmapOptions {
  int block_m = 64;  // the kernel's tile (KernelInfo::tile), for the tile-fold maps
  int block_n = 64;
  int max_side = 256;
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
  // Device bytes Create() needs at its peak: per input set its inputs and fp32 reference (kept
  // for CheckOutput), the output and lse, and the baseline and reference lse while they are
  // computed (copied to the host, then freed).
  static int64_t DeviceBytesNeeded(const Problem& p, int input_sets = 1);

  // Allocates, generates the inputs and computes reference and baseline (synchronises `stream`).
  // ResourceExhausted (naming the bytes needed and free) when the device cannot hold the problem;
  // InvalidArgument for a problem the references do not support (e.g. head_dim > 256).
  static absl::StatusOr<std::unique_ptr<Workspace>> Create(const Problem& p,
                                                           const WorkspaceOptions& options,
                                                           cudaStream_t stream);

  const Problem& problem() const { return problem_; }
  const WorkspaceOptions& options() const { return options_; }
  int num_input_sets() const { return static_cast<int>(sets_.size()); }
  uint64_t seed_of(int set) const { return sets_[set].seed; }
  // Device inputs of input set `set`: q, k, v (attention) or a, b (gemm); nullptr past the last.
  const void* input(int i, int set = 0) const;
  int num_inputs() const { return std::holds_alternative<AttentionProblem>(problem_) ? 3 : 2; }
  // The kernel's output: O in the problem's dtype (attention) or C in fp32 (gemm).
  void* output() { return output_.get(); }
  DType output_dtype() const;
  int64_t output_elements() const;
  // The kernel's log-sum-exp output (fp32), or nullptr unless the problem asks for it.
  float* lse() { return lse_.f32(); }

  // The device copy (fp32) of input set `set`'s reference, which the GPU output checks read, and
  // its size: the harness's own buffer, which integrity checks watch (runner/buffer_integrity.h).
  const void* reference_device(int set = 0) const { return sets_[set].reference_device.get(); }
  size_t reference_device_bytes(int set = 0) const { return sets_[set].reference_device.bytes(); }

  // Host copies, fp32, of input set `set`: the reference output (and lse), and the baseline.
  const std::vector<float>& reference(int set = 0) const { return sets_[set].reference; }
  const std::vector<float>& reference_lse(int set = 0) const { return sets_[set].reference_lse; }
  const std::vector<float>& baseline(int set = 0) const { return sets_[set].baseline; }
  std::string reference_name() const;

  // Fills output and lse with kPoisonByte (enqueued on `stream`).
  absl::Status PoisonOutputs(cudaStream_t stream);

  // Copies the output back (synchronising `stream`) and verifies it against the reference of
  // input set `set`.
  absl::StatusOr<VerificationResult> Verify(const TolerancePolicy& policy,
                                            const HeatmapOptions& heatmaps, cudaStream_t stream,
                                            int set = 0);

  // The baseline's error statistics against input set `set`'s reference under `tol`, computed
  // once per set and tolerance (reference and baseline never change).
  const ErrorStats& BaselineStats(int set, Tolerance tol);

  // Enqueues on `stream` the GPU check of the output against input set `set`'s reference under
  // `bound` (output_check.h); the counts land in `counts` (device memory). The lse is not checked.
  absl::Status EnqueueOutputCheck(int set, const ElementBound& bound, OutputCheckCounts* counts,
                                  cudaStream_t stream);

  // ---- fresh inputs (docs/trust.md): every launch reads inputs no earlier launch read ----
  // (workspace_fresh.cc; input set 0.)
  // Draws input set 0 again from `seed`: new inputs, reference and baseline, in the same device
  // buffers (a bound launch keeps its pointers; synchronises).
  absl::Status Redraw(uint64_t seed, cudaStream_t stream);
  // Regenerates set 0's inputs from `seed` on the GPU (enqueued on `stream`, nothing else): the
  // full reference no longer describes them until the next Redraw.
  absl::Status GenerateInputs(uint64_t seed, cudaStream_t stream);
  // True until a launch read the inputs drawn last (MarkRead) or GenerateInputs replaced them.
  bool unread() const { return unread_; }
  void MarkRead() { unread_ = false; }
  // Enqueues the sampled check (sampled_rows.h) of the output against the inputs now in set 0:
  // `samples` rows (attention) or entries (gemm) drawn from `seed`, counts into `counts`
  // (device memory).
  absl::Status EnqueueSampledCheck(int samples, uint64_t seed, const SampledBound& bound,
                                   SampledCheckCounts* counts, cudaStream_t stream);

  // Writes output, reference, baseline, inputs (and lse) of input set `set` as float32 .npy
  // files into `dir` (created if missing) with problem.json describing them.
  absl::Status DumpNpy(const std::string& dir, cudaStream_t stream, int set = 0);

 private:
  // One input set: its inputs and device reference, and the host copies verification reads.
  struct InputSet {
    uint64_t seed = 0;
    DeviceBuffer inputs[3];
    DeviceBuffer reference_device;  // fp32
    std::vector<float> reference, reference_lse, baseline;
    // BaselineStats' cache: the tolerance it was computed for, and the statistics.
    bool baseline_stats_valid = false;
    Tolerance baseline_tol{0, 0};
    ErrorStats baseline_stats;
  };

  Workspace(const Problem& p, const WorkspaceOptions& o) : problem_(p), options_(o) {}
  absl::Status Initialise(cudaStream_t stream);
  absl::Status InitialiseSet(InputSet& set, cudaStream_t stream);
  // Generates the set's inputs from its seed and computes its reference and baseline, into the
  // buffers InitialiseSet allocated (whose addresses a bound launch holds).
  absl::Status DrawSet(InputSet& set, cudaStream_t stream);
  // Device buffer `buf` of `n` elements of `t`, copied to the host as floats.
  static absl::StatusOr<std::vector<float>> ToHostFloat(const void* buf, DType t, int64_t n,
                                                        cudaStream_t stream);

  Problem problem_;
  WorkspaceOptions options_;
  std::vector<InputSet> sets_;
  DeviceBuffer output_;
  DeviceBuffer lse_;
  bool unread_ = true;
};

}  // namespace flashscope::verify
