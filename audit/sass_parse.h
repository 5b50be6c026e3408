// Reads the text of `cuobjdump -sass -res-usage` (run on a static library, an object file or an
// executable) into per-function records: resource usage (registers, stack, shared, local memory)
// and the SASS instruction mix, per architecture. Pure text processing: no CUDA, runs in CI.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace flashscope::audit {

struct SassFunction {
  std::string name;       // mangled, as cuobjdump prints it
  std::string demangled;  // "" when it does not demangle
  std::string source;     // the compiled file's stem ("a10_fa2"), from `identifier =` or the member
  std::string arch;       // "sm_90", "sm_90a", "sm_80"
  // From the "Resource usage" block (REG, STACK, SHARED, LOCAL); -1 when cuobjdump printed none.
  int registers = -1;
  int stack_bytes = -1;
  int shared_bytes = -1;               // static shared memory
  int local_bytes = -1;                // per thread: spills and local arrays
  std::map<std::string, int> opcodes;  // base mnemonic ("HMMA", "LDSM", "LDGSTS") -> count
  int instructions = 0;
  // wgmmas ptxas serialised (its C7515 advisory): a "WARPGROUP.DEPBAR.LE gsb0, 0x0" (wait for every
  // wgmma) directly followed by "WARPGROUP.ARRIVE" and an HGMMA, i.e. one wgmma waits for the one
  // before it to finish although the source queued them together.
  int hgmma_serialized = 0;

  int Count(const std::string& opcode) const;
};

// Parses the whole output. Fails (naming the line) on text that is not cuobjdump's: no
// "Function :" section at all, or a resource line it cannot read.
absl::StatusOr<std::vector<SassFunction>> ParseCuobjdumpSass(const std::string& text);

// The base mnemonic of one SASS line's instruction ("@!P0 HMMA.16816.F32.BF16 R4, ..." -> "HMMA"),
// or "" when the line holds no instruction.
std::string OpcodeOfLine(const std::string& line);

// The whole instruction of one SASS line without its predicate guard and the ';'
// ("@!P0 HMMA.16816.F32 R4, R8, R12, R4 ;" -> "HMMA.16816.F32 R4, R8, R12, R4"), or "".
std::string InstructionOfLine(const std::string& line);

}  // namespace flashscope::audit
