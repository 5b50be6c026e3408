// Workspace's fresh inputs and the sampled check of one launch's output (workspace.h): what lets
// every launch of a case read inputs that no earlier launch read, and still be checked.
#include "absl/strings/str_cat.h"
#include "verify/input_generators.h"
#include "verify/sampled_rows.h"
#include "verify/workspace.h"

namespace flashscope::verify {

absl::Status Workspace::Redraw(uint64_t seed, cudaStream_t stream) {
  if (slots_.empty()) return absl::FailedPreconditionError("the workspace holds no buffers");
  seed_ = seed;
  if (absl::Status st = Draw(stream); !st.ok()) {
    return absl::Status(st.code(),
                        absl::StrCat("redrawing the inputs (seed ", seed, "): ", st.message()));
  }
  unread_ = true;
  return absl::OkStatus();
}

absl::Status Workspace::GenerateInputs(uint64_t seed, cudaStream_t stream) {
  if (slots_.empty()) return absl::FailedPreconditionError("the workspace holds no buffers");
  Slot& slot = slots_[current_];
  if (current_ == 0) unread_ = false;  // the reference describes inputs that are gone
  const std::string kind(InputKindName(options_.input));
  if (const auto* a = std::get_if<AttentionProblem>(&problem_)) {
    return CudaStatus(GenerateAttentionInputs(*a, options_.input, seed, slot.inputs[0].get(),
                                              slot.inputs[1].get(), slot.inputs[2].get(), stream),
                      "generating fresh " + kind + " attention inputs");
  }
  return CudaStatus(GenerateGemmInputs(std::get<GemmProblem>(problem_), options_.input, seed,
                                       slot.inputs[0].get(), slot.inputs[1].get(), stream),
                    "generating fresh " + kind + " gemm inputs");
}

absl::Status Workspace::EnqueueSampledCheck(int samples, uint64_t seed, const SampledBound& bound,
                                            SampledCheckCounts* counts, cudaStream_t stream) {
  if (slots_.empty()) return absl::FailedPreconditionError("the workspace holds no buffers");
  Slot& slot = slots_[current_];
  if (const auto* a = std::get_if<AttentionProblem>(&problem_)) {
    return CudaStatus(LaunchAttentionRowCheck(*a, slot.inputs[0].get(), slot.inputs[1].get(),
                                              slot.inputs[2].get(), slot.output.get(),
                                              slot.lse.get() ? slot.lse.f32() : nullptr, samples,
                                              seed, bound, counts, stream),
                      "sampled-row check launch");
  }
  return CudaStatus(LaunchGemmEntryCheck(std::get<GemmProblem>(problem_), slot.inputs[0].get(),
                                         slot.inputs[1].get(), slot.output.f32(), samples, seed,
                                         bound, counts, stream),
                    "sampled-entry check launch");
}

}  // namespace flashscope::verify
