#include "runner/case_binding.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/abi_convert.h"
#include "verify/host_memory.h"

namespace flashscope::runner {
namespace {

std::string Gib(double bytes) { return absl::StrFormat("%.2f GiB", bytes / (1ull << 30)); }

// Whether the problem's workspace fits: device memory for inputs, output, reference and
// baseline, and host memory for their copies (verify/host_memory.h).
absl::Status CheckFits(const Problem& problem, const WorkspaceSpec& spec) {
  if (auto available = verify::MemAvailableBytes(); available.ok()) {
    absl::Status host = verify::CheckHostMemory(
        verify::HostBytesNeeded(problem, spec.heatmaps, spec.dumps), *available);
    if (!host.ok()) return absl::ResourceExhaustedError(absl::StrCat("problem ", host.message()));
  }
  size_t free_bytes = 0, total_bytes = 0;
  cudaMemGetInfo(&free_bytes, &total_bytes);
  // One buffer slot: the others are kept only when they fit (verify/buffer_slots.h).
  const double need = static_cast<double>(verify::Workspace::DeviceBytesNeeded(problem));
  if (need > 0.9 * static_cast<double>(free_bytes)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "problem needs ", Gib(need), " of device memory for inputs, output and reference; ",
        Gib(free_bytes), " of ", Gib(total_bytes), " free"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string CudaErrorText(cudaError_t e) {
  return absl::StrCat(cudaGetErrorName(e), ": ", cudaGetErrorString(e));
}

absl::StatusOr<verify::Workspace*> ProblemWorkspaces::For(const Problem& problem,
                                                          const WorkspaceSpec& spec,
                                                          cudaStream_t stream) {
  const std::string key = ProblemKey(problem);
  if (key != key_) {
    workspace_.reset();
    key_ = key;
    status_ = CheckFits(problem, spec);
    if (status_.ok()) {
      auto ws = verify::Workspace::Create(problem, spec.options, stream);
      if (ws.ok()) {
        workspace_ = *std::move(ws);
      } else {
        status_ = ws.status();
      }
    }
  }
  if (!status_.ok()) return status_;
  return workspace_.get();
}

void ProblemWorkspaces::Reset() {
  workspace_.reset();
  key_.clear();
  status_ = absl::OkStatus();
}

fs_buffers BuffersFor(const Problem& problem, verify::Workspace& ws, int slot) {
  fs_buffers b{};
  if (const auto* a = std::get_if<AttentionProblem>(&problem)) {
    b.attention.q = ws.input(0, slot);
    b.attention.k = ws.input(1, slot);
    b.attention.v = ws.input(2, slot);
    b.attention.o = ws.output(slot);
    b.attention.lse = a->want_lse ? ws.lse(slot) : nullptr;
    b.attention.softmax_scale =
        static_cast<float>(1.0 / std::sqrt(static_cast<double>(a->head_dim)));
  } else {
    b.gemm.a = ws.input(0, slot);
    b.gemm.b = ws.input(1, slot);
    b.gemm.c = static_cast<float*>(ws.output(slot));
  }
  return b;
}

BoundLaunch::BoundLaunch(const plugins::Kernel& kernel, const Problem& problem,
                         verify::Workspace& ws)
    : kernel_(&kernel),
      problem_(abi::ToAbi(problem)),
      ws_(&ws),
      plugin_error_(std::make_shared<std::string>()) {
  for (int slot = 0; slot < ws.num_slots(); ++slot) {
    slots_.push_back(BuffersFor(problem, ws, slot));
  }
}

cudaError_t BoundLaunch::operator()(cudaStream_t stream) const {
  const plugins::LaunchOutcome out = kernel_->Launch(problem_, slots_[ws_->slot()], stream);
  if (out.code == FS_LAUNCH_PLUGIN_ERROR) {
    *plugin_error_ = out.plugin_error;
    return cudaErrorUnknown;
  }
  return static_cast<cudaError_t>(out.code);
}

cudaError_t BoundLaunch::Prepare(cudaStream_t stream, std::string* note) const {
  const plugins::LaunchOutcome out = kernel_->Prepare(problem_, slots_[0], stream, note);
  if (out.code == FS_LAUNCH_PLUGIN_ERROR) {
    *plugin_error_ = out.plugin_error;
    return cudaErrorUnknown;
  }
  return static_cast<cudaError_t>(out.code);
}

std::function<cudaError_t(cudaStream_t)> BoundLaunch::AsFunction() const {
  return [self = *this](cudaStream_t s) { return self(s); };
}

std::string BoundLaunch::Describe(cudaError_t e) const {
  if (e == cudaErrorUnknown && !plugin_error_->empty()) {
    return absl::StrCat("the plugin failed: ", *plugin_error_);
  }
  return CudaErrorText(e);
}

}  // namespace flashscope::runner
