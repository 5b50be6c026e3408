#include "plugins/kernel.h"

#include "absl/strings/str_cat.h"
#include "common/abi_convert.h"

namespace flashscope::plugins {
namespace {

// A plugin that asks for more device functions than this is broken, not ambitious.
constexpr int32_t kMaxDeviceFunctions = 1024;

}  // namespace

const char* SideName(Side side) {
  switch (side) {
    case Side::kBase:
      return "base";
    case Side::kNew:
      return "new";
    case Side::kShared:
      break;
  }
  return "";
}

Kernel::Kernel(const fs_kernel& abi, const Provenance* provenance)
    : abi_(abi), info_(abi::InfoFromAbi(abi)), provenance_(provenance) {}

std::string Kernel::Supports(const Problem& problem, int device_sm) const {
  if (std::string why = FamilyMismatch(info_, FamilyOf(problem)); !why.empty()) return why;
  if (std::string why = ArchitectureMismatch(info_, device_sm); !why.empty()) return why;
  // E4M3 came after ABI 1: a kernel that does not set FS_KERNEL_ACCEPTS_FP8 is never asked.
  const DType dtype = std::visit([](const auto& x) { return x.dtype; }, problem);
  if (std::string why = DTypeMismatch(info_, dtype); !why.empty()) return why;
  const fs_problem p = abi::ToAbi(problem);
  const char* reason = abi_.supports(abi_.user, &p);
  return reason == nullptr ? std::string() : std::string(reason);
}

LaunchOutcome Kernel::Outcome(int32_t code) const {
  LaunchOutcome out;
  out.code = code;
  if (out.code == FS_LAUNCH_PLUGIN_ERROR) {
    const char* message = abi_.last_error != nullptr ? abi_.last_error(abi_.user) : nullptr;
    out.plugin_error = message != nullptr && message[0] != '\0'
                           ? std::string(message)
                           : "(no message: the plugin has no last_error callback or it gave none)";
  }
  return out;
}

LaunchOutcome Kernel::Launch(const fs_problem& problem, const fs_buffers& buffers,
                             void* stream) const {
  return Outcome(abi_.launch(abi_.user, &problem, &buffers, stream));
}

LaunchOutcome Kernel::Prepare(const fs_problem& problem, const fs_buffers& buffers, void* stream,
                              std::string* note) const {
  note->clear();
  if (abi_.prepare == nullptr) return LaunchOutcome{};
  const char* said = nullptr;
  LaunchOutcome out = Outcome(abi_.prepare(abi_.user, &problem, &buffers, stream, &said));
  if (out.ok() && said != nullptr) *note = said;
  return out;
}

absl::StatusOr<std::vector<DeviceFunction>> Kernel::DeviceFunctions(const Problem& problem) const {
  std::vector<DeviceFunction> out;
  if (abi_.device_functions == nullptr) return out;
  const fs_problem p = abi::ToAbi(problem);
  std::vector<fs_device_function> buffer(8);
  int32_t count =
      abi_.device_functions(abi_.user, &p, buffer.data(), static_cast<int32_t>(buffer.size()));
  if (count > static_cast<int32_t>(buffer.size()) && count <= kMaxDeviceFunctions) {
    buffer.assign(static_cast<size_t>(count), fs_device_function{});
    count = abi_.device_functions(abi_.user, &p, buffer.data(), count);
  }
  if (count < 0 || count > static_cast<int32_t>(buffer.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        info_.id, ": device_functions() returned ", count, " for ", ProblemKey(problem),
        " (expected 0..", kMaxDeviceFunctions, ", and the same count when called again)"));
  }
  for (int32_t i = 0; i < count; ++i) {
    const fs_device_function& f = buffer[static_cast<size_t>(i)];
    out.push_back({f.cu_function, f.name != nullptr ? f.name : "(unnamed)", f.block_threads,
                   f.dynamic_smem_bytes});
  }
  return out;
}

}  // namespace flashscope::plugins
