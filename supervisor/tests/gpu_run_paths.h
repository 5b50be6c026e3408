// Where the GPU tests of the real `flashscope run` find the command and the faults suite.
#pragma once

#include <string>

namespace flashscope::testing {

inline std::string Flashscope() { return std::string(FLASHSCOPE_BINARY_DIR) + "/cli/flashscope"; }
inline std::string FaultSuite() {
  return std::string(FLASHSCOPE_TEST_SOURCE_DIR) + "/suites/testing/faults.json";
}

}  // namespace flashscope::testing
