// KernelEntry's own behaviour, apart from the list of built-in kernels (registry.cc), so that the
// test plugin can link the entries it needs without pulling in every maker.
#include <algorithm>
#include <tuple>

#include "kernels/registry.h"

namespace flashscope::kernels {

std::string KernelEntry::Supports(const Problem& p, int device_sm) const {
  if (std::string why = FamilyMismatch(info, FamilyOf(p)); !why.empty()) return why;
  if (std::string why = ArchitectureMismatch(info, device_sm); !why.empty()) return why;
  if (const auto* a = std::get_if<AttentionProblem>(&p)) {
    return attention_supports ? attention_supports(*a) : "no attention entry point";
  }
  const auto& g = std::get<GemmProblem>(p);
  return gemm_supports ? gemm_supports(g) : "no gemm entry point";
}

void SortInLadderOrder(std::vector<KernelEntry>* entries) {
  std::stable_sort(entries->begin(), entries->end(),
                   [](const KernelEntry& a, const KernelEntry& b) {
                     auto rank = [](const KernelEntry& e) {
                       return std::make_tuple(e.info.test_only, e.info.is_peer,
                                              static_cast<int>(e.info.family), e.info.revision);
                     };
                     return rank(a) < rank(b);
                   });
}

}  // namespace flashscope::kernels
