// Workspace's fresh inputs and the sampled check of one launch's output (workspace.h): what lets
// every launch of a case read inputs that no earlier launch read, and still be checked.
#include "absl/strings/str_cat.h"
#include "verify/input_generators.h"
#include "verify/sampled_rows.h"
#include "verify/workspace.h"

namespace flashscope::verify {

absl::Status Workspace::Redraw(uint64_t seed, cudaStream_t stream) {
  if (sets_.empty()) return absl::FailedPreconditionError("the workspace holds no input set");
  InputSet& set = sets_[0];
  set.seed = seed;
  set.baseline_stats_valid = false;
  if (absl::Status st = DrawSet(set, stream); !st.ok()) {
    return absl::Status(st.code(),
                        absl::StrCat("redrawing the inputs (seed ", seed, "): ", st.message()));
  }
  unread_ = true;
  return absl::OkStatus();
}

absl::Status Workspace::GenerateInputs(uint64_t seed, cudaStream_t stream) {
  if (sets_.empty()) return absl::FailedPreconditionError("the workspace holds no input set");
  InputSet& set = sets_[0];
  unread_ = false;  // the reference describes inputs that are gone
  const std::string kind(InputKindName(options_.input));
  if (const auto* a = std::get_if<AttentionProblem>(&problem_)) {
    return CudaStatus(GenerateAttentionInputs(*a, options_.input, seed, set.inputs[0].get(),
                                              set.inputs[1].get(), set.inputs[2].get(), stream),
                      "generating fresh " + kind + " attention inputs");
  }
  return CudaStatus(GenerateGemmInputs(std::get<GemmProblem>(problem_), options_.input, seed,
                                       set.inputs[0].get(), set.inputs[1].get(), stream),
                    "generating fresh " + kind + " gemm inputs");
}

absl::Status Workspace::EnqueueSampledCheck(int samples, uint64_t seed, const SampledBound& bound,
                                            SampledCheckCounts* counts, cudaStream_t stream) {
  if (sets_.empty()) return absl::FailedPreconditionError("the workspace holds no input set");
  const InputSet& set = sets_[0];
  if (const auto* a = std::get_if<AttentionProblem>(&problem_)) {
    return CudaStatus(
        LaunchAttentionRowCheck(*a, set.inputs[0].get(), set.inputs[1].get(), set.inputs[2].get(),
                                output_.get(), lse_.get() ? lse_.f32() : nullptr, samples, seed,
                                bound, counts, stream),
        "sampled-row check launch");
  }
  return CudaStatus(LaunchGemmEntryCheck(std::get<GemmProblem>(problem_), set.inputs[0].get(),
                                         set.inputs[1].get(), output_.f32(), samples, seed, bound,
                                         counts, stream),
                    "sampled-entry check launch");
}

}  // namespace flashscope::verify
