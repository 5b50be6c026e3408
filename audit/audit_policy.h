// The static audit's policy, per kernel (registry id) and architecture:
//   - no spills: no function of the kernel uses local memory (LOCAL > 0 in the resource usage, or
//     any LDL/STL instruction);
//   - a tensor-core rung (attention revision >= 3, gemm revision >= 4) contains tensor-core
//     instructions (HMMA, HGMMA, or another *MMA/*GMMA);
//   - a ladder rung has device code for the architecture at all;
//   - every opcode a kernel lists as required (its technique: HGMMA, UTMALDG, USETMAXREG...)
//     occurs in its functions for each architecture.
// Functions are attributed to kernels by their source file: "attn.a10_fa2" -> the file whose stem
// starts with "a10_" (the ladder's one-file-per-revision rule); peers and test kernels by their
// whole id after the dot ("peer.cublas_unfused" -> cublas_unfused). Kernels whose revisions share
// a file (a11's three variants) therefore share its functions in the audit.
#pragma once

#include <string>
#include <vector>

#include "audit/sass_parse.h"
#include "nlohmann/json.hpp"

namespace flashscope::audit {

// What the audit needs to know of a registry entry (kernels::KernelInfo, without CUDA).
struct KernelDescriptor {
  std::string id;
  std::string family;  // "attention_fwd" | "gemm"
  int revision = 0;
  bool is_peer = false;
  bool test_only = false;
  // SASS opcodes the kernel's technique must compile to (KernelInfo::required_sass), e.g.
  // "HGMMA", "UTMALDG" (TMA loads), "USETMAXREG"; each must occur in its functions, per arch.
  std::vector<std::string> required_sass;
};

// The instruction groups the audit reports, in this order.
struct InstructionMix {
  int total = 0;
  int hmma = 0;       // mma.sync (Ampere-style tensor cores)
  int hgmma = 0;      // wgmma (Hopper warpgroup tensor cores)
  int other_mma = 0;  // IMMA, QGMMA, DMMA, ...
  int ldsm = 0;       // ldmatrix
  int ldgsts = 0;     // cp.async
  int ldl = 0;        // local loads (spill reloads, local arrays)
  int stl = 0;        // local stores
  int lds = 0, sts = 0, ldg = 0, stg = 0;
  int Tensor() const { return hmma + hgmma + other_mma; }
};
InstructionMix MixOf(const SassFunction& f);

struct ArchAudit {
  std::string arch;
  std::vector<const SassFunction*> functions;
  InstructionMix mix;  // summed over the functions
  int max_registers = 0;
  int max_shared_bytes = 0;
  int max_local_bytes = 0;
  std::vector<std::string> violations;  // each a sentence naming the function and the numbers
};

struct KernelAudit {
  KernelDescriptor kernel;
  std::string source;  // the file stem its functions come from; "" when none was found
  bool expects_tensor_cores = false;
  bool expects_device_code = false;  // ladder rungs do; library peers launch no kernel of ours
  std::vector<ArchAudit> arches;
  std::vector<std::string> violations;  // kernel-level (no device code found) and every arch's
  bool passed() const { return violations.empty(); }
};

bool ExpectsTensorCores(const KernelDescriptor& k);

// Audits every kernel against the parsed functions (which must outlive the result).
std::vector<KernelAudit> AuditKernels(const std::vector<KernelDescriptor>& kernels,
                                      const std::vector<SassFunction>& functions);

// {"schema": "flashscope.audit", "schema_version": 1, "input": ..., "tool": ..., "passed": ...,
//  "violations": [...], "kernels": [...]}; docs/audit.md documents every key.
nlohmann::json AuditToJson(const std::vector<KernelAudit>& audits, const std::string& input,
                           const std::string& tool);

// One line per kernel and architecture: registers, shared, local, tensor/LDSM/LDGSTS counts.
std::string RenderAuditTable(const std::vector<KernelAudit>& audits);

}  // namespace flashscope::audit
