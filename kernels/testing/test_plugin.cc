// The test plugin: the test-only kernels (test_kernel_list.h) as a shared library that exports
// `flashscope_plugin_v1` through the same adapter as the built-in kernels, so that loading it is
// exactly what loading a user's plugin is.
#include "git_revision.h"  // generated at build time: cmake/GitRevision.cmake
#include "kernels/abi_adapter.h"
#include "kernels/testing/test_kernel_list.h"

extern "C" FLASHSCOPE_PLUGIN_EXPORT const fs_plugin* flashscope_plugin_v1(
    uint32_t host_abi_version) {
  if (host_abi_version != FLASHSCOPE_ABI_VERSION) return nullptr;
  static const flashscope::kernels::AbiTable table(
      "flashscope-test-kernels", FLASHSCOPE_GIT_REVISION, flashscope::kernels::TestKernels());
  return table.plugin();
}
