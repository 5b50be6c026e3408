// The static audit's policy, per kernel (registry id) and architecture:
//   - no spills: no function of the kernel uses local memory (LOCAL > 0 in the resource usage, or
//     any LDL/STL instruction);
//   - a tensor-core rung (attention revision >= 3, gemm revision >= 4) contains tensor-core
//     instructions (HMMA, HGMMA, or another *MMA/*GMMA);
//   - a Hopper rung (arch-specific sm_90a code, KernelInfo::exact_sm = 90) contains HGMMA: mma.sync
//     alone would be the Ampere path on a Hopper-only build;
//   - no function has wgmmas that ptxas serialised (SassFunction::hgmma_serialized);
//   - every opcode a rung declares in KernelInfo::required_sass (UTMALDG for TMA loads, SYNCS for
//     mbarriers, USETMAXREG for setmaxnreg, ...) occurs in its functions for each architecture;
//   - a ladder rung has device code for the architecture at all.
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
  int exact_sm = 0;                        // 90: sm_90a-only code (a Hopper rung)
  std::vector<std::string> required_sass;  // opcodes its technique must compile to
};

// The instruction groups the audit reports, in this order.
struct InstructionMix {
  int total = 0;
  int hmma = 0;       // mma.sync (Ampere-style tensor cores)
  int hgmma = 0;      // wgmma (Hopper warpgroup tensor cores)
  int other_mma = 0;  // IMMA, QGMMA, DMMA, ...
  int ldsm = 0;       // ldmatrix
  int ldgsts = 0;     // cp.async
  int tma = 0;        // bulk-tensor copies (UTMALDG loads, UTMASTG stores, UTMAREDG reductions)
  int ldl = 0;        // local loads (spill reloads, local arrays)
  int stl = 0;        // local stores
  int hgmma_serialized = 0;  // wgmmas ptxas made wait for the previous one (SassFunction)
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
// The opcodes the policy requires of the kernel's functions on one architecture: HGMMA for Hopper
// rungs, plus the kernel's own required_sass (each once, in declaration order).
std::vector<std::string> RequiredOpcodes(const KernelDescriptor& k);

// Audits every kernel against the parsed functions (which must outlive the result).
std::vector<KernelAudit> AuditKernels(const std::vector<KernelDescriptor>& kernels,
                                      const std::vector<SassFunction>& functions);

// {"schema": "flashscope.audit", "schema_version": 1, "input": ..., "tool": ..., "passed": ...,
//  "violations": [...], "kernels": [...]}; docs/audit.md documents every key.
nlohmann::json AuditToJson(const std::vector<KernelAudit>& audits, const std::string& input,
                           const std::string& tool);

// One line per kernel and architecture: registers, shared, local, tensor/LDSM/LDGSTS/TMA counts.
std::string RenderAuditTable(const std::vector<KernelAudit>& audits);

}  // namespace flashscope::audit
