#include "kernels/registry.h"

#include <algorithm>
#include <tuple>

#include "kernels/kernel_list.h"

namespace flashscope::kernels {

std::string KernelEntry::Supports(const Problem& p, int device_sm) const {
  if (FamilyOf(p) != info.family) {
    return std::string("kernel is for ") + std::string(FamilyName(info.family)) +
           " problems, not " + std::string(FamilyName(FamilyOf(p)));
  }
  if (device_sm > 0 && info.exact_sm > 0 && device_sm != info.exact_sm) {
    return "built for sm_" + std::to_string(info.exact_sm) +
           "a only (arch-specific instructions); "
           "this GPU is sm_" +
           std::to_string(device_sm);
  }
  if (device_sm > 0 && device_sm < info.min_sm) {
    return "needs sm_" + std::to_string(info.min_sm) + " or newer; this GPU is sm_" +
           std::to_string(device_sm);
  }
  if (const auto* a = std::get_if<AttentionProblem>(&p)) {
    return attention_supports ? attention_supports(*a) : "no attention entry point";
  }
  const auto& g = std::get<GemmProblem>(p);
  return gemm_supports ? gemm_supports(g) : "no gemm entry point";
}

const std::vector<KernelEntry>& AllKernels(bool include_test_only) {
  static const std::vector<KernelEntry> all = [] {
    std::vector<KernelEntry> v;
    for (auto make : kKernelMakers) {
      if (make != nullptr) v.push_back(make());
    }
    // Ladders in revision order, family by family; peers after, test-only kernels last.
    std::stable_sort(v.begin(), v.end(), [](const KernelEntry& a, const KernelEntry& b) {
      auto rank = [](const KernelEntry& e) {
        return std::make_tuple(e.info.test_only, e.info.is_peer, static_cast<int>(e.info.family),
                               e.info.revision);
      };
      return rank(a) < rank(b);
    });
    return v;
  }();
  static const std::vector<KernelEntry> without_test_only = [] {
    std::vector<KernelEntry> v;
    for (const auto& e : all) {
      if (!e.info.test_only) v.push_back(e);
    }
    return v;
  }();
  return include_test_only ? all : without_test_only;
}

const KernelEntry* FindKernel(std::string_view id) {
  for (const auto& e : AllKernels(/*include_test_only=*/true)) {
    if (e.info.id == id) return &e;
  }
  return nullptr;
}

}  // namespace flashscope::kernels
