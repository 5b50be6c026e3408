#include "kernels/registry.h"

#include "kernels/kernel_list.h"

namespace flashscope::kernels {

const std::vector<KernelEntry>& AllKernels() {
  static const std::vector<KernelEntry> all = [] {
    std::vector<KernelEntry> v;
    for (auto make : kKernelMakers) {
      if (make != nullptr) v.push_back(make());
    }
    SortInLadderOrder(&v);
    return v;
  }();
  return all;
}

const KernelEntry* FindKernel(std::string_view id) {
  for (const auto& e : AllKernels()) {
    if (e.info.id == id) return &e;
  }
  return nullptr;
}

}  // namespace flashscope::kernels
