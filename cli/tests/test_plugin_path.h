// The small C plugins of plugins/tests (good, refused, crashing variants) by variant name, for the
// end-to-end tests of `list` and `run --dry_run` (FLASHSCOPE_TEST_PLUGIN_DIR is their build
// folder).
#pragma once

#include <filesystem>
#include <string>

namespace flashscope::testing {

inline std::string TestPlugin(const std::string& variant) {
  return std::filesystem::canonical(std::string(FLASHSCOPE_TEST_PLUGIN_DIR) + "/libtest_plugin_" +
                                    variant + ".so")
      .string();
}

}  // namespace flashscope::testing
