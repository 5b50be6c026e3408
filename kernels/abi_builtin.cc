// The built-in plugin's entry: our ladder and peers as one fs_plugin table (kernels/abi_adapter.h).
#include "git_revision.h"  // generated at build time: cmake/GitRevision.cmake
#include "kernels/abi_adapter.h"

extern "C" const fs_plugin* flashscope_builtin_plugin_v1(uint32_t host_abi_version) {
  if (host_abi_version != FLASHSCOPE_ABI_VERSION) return nullptr;
  static const flashscope::kernels::AbiTable table("built-in", FLASHSCOPE_GIT_REVISION,
                                                   flashscope::kernels::AllKernels());
  return table.plugin();
}
