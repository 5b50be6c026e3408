// The demo plugin: the planted-bug kernels (demo_kernel_list.h) as a shared library that exports
// `flashscope_plugin_v1` through the same adapter as the built-in kernels. Installed into
// lib/flashscope/plugins, where the bare name "flashscope_demo_kernels" of suites/demo.json finds
// it (docs/plugins.md, "Loading plugins").
#include "git_revision.h"  // generated at build time: cmake/GitRevision.cmake
#include "kernels/abi_adapter.h"
#include "kernels/demo/demo_kernel_list.h"

namespace flashscope::kernels {

std::vector<KernelEntry> DemoKernels() {
  std::vector<KernelEntry> v = {MakeDemoBugGridFloor(),      MakeDemoBugKeyTileFloor(),
                                MakeDemoBugCausalDiagonal(), MakeDemoBugStaleRescale(),
                                MakeDemoBugLdmatrixTrans(),  MakeDemoBugFp16Accumulate()};
  SortInLadderOrder(&v);
  return v;
}

}  // namespace flashscope::kernels

extern "C" FLASHSCOPE_PLUGIN_EXPORT const fs_plugin* flashscope_plugin_v1(
    uint32_t host_abi_version) {
  if (host_abi_version != FLASHSCOPE_ABI_VERSION) return nullptr;
  static const flashscope::kernels::AbiTable table(
      "flashscope-demo-kernels", FLASHSCOPE_GIT_REVISION, flashscope::kernels::DemoKernels());
  return table.plugin();
}
