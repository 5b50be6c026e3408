// One build of ab's quality fixture (kernels/testing/ab_fixture.h): compiled once per variant
// with FS_AB_PERCENT (the slowdown) and FS_AB_BUILD (1 or 2: two 0 % builds, two files for A/A).
#include <string>

#include "kernels/abi_adapter.h"
#include "kernels/testing/ab_fixture.h"

#if !defined(FS_AB_PERCENT) || !defined(FS_AB_BUILD)
#error "build with -DFS_AB_PERCENT=N -DFS_AB_BUILD=N (kernels/CMakeLists.txt)"
#endif

extern "C" FLASHSCOPE_PLUGIN_EXPORT const fs_plugin* flashscope_plugin_v1(
    uint32_t host_abi_version) {
  if (host_abi_version != FLASHSCOPE_ABI_VERSION) return nullptr;
  static const flashscope::kernels::AbiTable table(
      "flashscope-ab-fixture",
      "a10 + " + std::to_string(FS_AB_PERCENT) + " % spin, build " + std::to_string(FS_AB_BUILD),
      flashscope::kernels::AbFixtureKernels(FS_AB_PERCENT));
  return table.plugin();
}
