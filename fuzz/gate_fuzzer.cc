// Fuzzes the gate policy reader (reports::ReadGatePolicyFile on the input as a file,
// docs/gating.md): strict about keys and types, so any text must give a policy or an error naming
// the bad field.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_util.h"
#include "analysis/gate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = flashscope::fuzz::WriteInputFile(data, size, ".policy.json");
  auto policy = flashscope::reports::ReadGatePolicyFile(path);
  flashscope::fuzz::CheckErrorIsExplained(policy.status(), "ReadGatePolicyFile");
  return 0;
}
