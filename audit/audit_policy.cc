#include "audit/audit_policy.h"

#include <algorithm>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"

namespace flashscope::audit {
namespace {

bool IsLadder(const KernelDescriptor& k) { return !k.is_peer && !k.test_only; }

// "attn.a10_fa2" -> "a10_" (ladder: files named after the revision tag);
// "peer.cublas_unfused" -> "cublas_unfused" (whole name).
std::string SourcePrefixOf(const KernelDescriptor& k) {
  std::string name = k.id.substr(k.id.find('.') + 1);
  if (IsLadder(k)) {
    size_t us = name.find('_');
    return us == std::string::npos ? name : name.substr(0, us + 1);
  }
  return name;
}

bool SourceMatches(const KernelDescriptor& k, const std::string& prefix, const std::string& stem) {
  return IsLadder(k) ? absl::StartsWith(stem, prefix) : stem == prefix;
}

std::string ShortName(const SassFunction& f) {
  std::string n = f.demangled.empty() ? f.name : f.demangled;
  // "ns::(anonymous namespace)::Kernel(args)": the first '(' is not the parameter list's.
  n = absl::StrReplaceAll(n, {{"(anonymous namespace)::", ""}});
  if (size_t paren = n.find('('); paren != std::string::npos) n = n.substr(0, paren);
  return n;
}

nlohmann::json MixToJson(const InstructionMix& m) {
  return {{"total", m.total}, {"hmma", m.hmma},
          {"hgmma", m.hgmma}, {"other_mma", m.other_mma},
          {"ldsm", m.ldsm},   {"ldgsts", m.ldgsts},
          {"tma", m.tma},     {"ldl", m.ldl},
          {"stl", m.stl},     {"lds", m.lds},
          {"sts", m.sts},     {"ldg", m.ldg},
          {"stg", m.stg},     {"hgmma_serialized", m.hgmma_serialized}};
}

void Accumulate(const InstructionMix& m, InstructionMix* sum) {
  sum->total += m.total;
  sum->hmma += m.hmma;
  sum->hgmma += m.hgmma;
  sum->other_mma += m.other_mma;
  sum->ldsm += m.ldsm;
  sum->ldgsts += m.ldgsts;
  sum->tma += m.tma;
  sum->ldl += m.ldl;
  sum->stl += m.stl;
  sum->hgmma_serialized += m.hgmma_serialized;
  sum->lds += m.lds;
  sum->sts += m.sts;
  sum->ldg += m.ldg;
  sum->stg += m.stg;
}

// Occurrences of `opcode` (a base mnemonic) in the functions.
int CountOpcode(const std::vector<const SassFunction*>& functions, const std::string& opcode) {
  int n = 0;
  for (const SassFunction* f : functions) n += f->Count(opcode);
  return n;
}

}  // namespace

InstructionMix MixOf(const SassFunction& f) {
  InstructionMix m;
  m.total = f.instructions;
  for (const auto& [op, n] : f.opcodes) {
    if (op == "HMMA") {
      m.hmma += n;
    } else if (op == "HGMMA") {
      m.hgmma += n;
    } else if (absl::EndsWith(op, "MMA") || absl::EndsWith(op, "GMMA")) {
      m.other_mma += n;  // IMMA, DMMA, BMMA, QGMMA, IGMMA, ...
    }
  }
  m.ldsm = f.Count("LDSM");
  m.ldgsts = f.Count("LDGSTS");
  m.tma = f.Count("UTMALDG") + f.Count("UTMASTG") + f.Count("UTMAREDG");
  m.ldl = f.Count("LDL");
  m.stl = f.Count("STL");
  m.hgmma_serialized = f.hgmma_serialized;
  m.lds = f.Count("LDS");
  m.sts = f.Count("STS");
  m.ldg = f.Count("LDG");
  m.stg = f.Count("STG");
  return m;
}

bool ExpectsTensorCores(const KernelDescriptor& k) {
  if (!IsLadder(k)) return false;
  if (k.family == "attention_fwd") return k.revision >= 3;  // a03 (wmma) and every later rung
  if (k.family == "gemm") return k.revision >= 4;           // g04 (mma.sync) and later
  return false;
}

std::vector<std::string> RequiredOpcodes(const KernelDescriptor& k) {
  std::vector<std::string> out;
  // A Hopper rung issues wgmma: HGMMA (fp16/bf16), or QGMMA when it declares FP8 wgmma itself
  // (a27_fp8, whose E4M3 operands run no HGMMA at all).
  const bool fp8 =
      std::find(k.required_sass.begin(), k.required_sass.end(), "QGMMA") != k.required_sass.end();
  if (IsLadder(k) && k.exact_sm == 90 && !fp8) out.push_back("HGMMA");
  for (const std::string& op : k.required_sass) {
    if (std::find(out.begin(), out.end(), op) == out.end()) out.push_back(op);
  }
  return out;
}

std::vector<KernelAudit> AuditKernels(const std::vector<KernelDescriptor>& kernels,
                                      const std::vector<SassFunction>& functions) {
  std::vector<KernelAudit> out;
  for (const KernelDescriptor& k : kernels) {
    KernelAudit a;
    a.kernel = k;
    a.expects_tensor_cores = ExpectsTensorCores(k);
    a.expects_device_code = IsLadder(k);
    const std::string prefix = SourcePrefixOf(k);
    std::map<std::string, ArchAudit> by_arch;
    for (const SassFunction& f : functions) {
      if (!SourceMatches(k, prefix, f.source)) continue;
      a.source = f.source;
      ArchAudit& arch = by_arch[f.arch];
      arch.arch = f.arch;
      arch.functions.push_back(&f);
    }
    for (auto& [name, arch] : by_arch) {
      for (const SassFunction* f : arch.functions) {
        const InstructionMix m = MixOf(*f);
        Accumulate(m, &arch.mix);
        arch.max_registers = std::max(arch.max_registers, f->registers);
        arch.max_shared_bytes = std::max(arch.max_shared_bytes, f->shared_bytes);
        arch.max_local_bytes = std::max(arch.max_local_bytes, f->local_bytes);
        if (f->local_bytes > 0 || m.ldl + m.stl > 0) {
          arch.violations.push_back(absl::StrFormat(
              "%s %s: %s uses local memory (%d bytes per thread, %d LDL, %d STL): register "
              "spills or a local array; the policy allows none",
              k.id, name, ShortName(*f), std::max(f->local_bytes, 0), m.ldl, m.stl));
        }
        if (m.hgmma_serialized > 0) {
          arch.violations.push_back(absl::StrFormat(
              "%s %s: %s has %d wgmma(s) that ptxas serialised (each waits for the previous one: "
              "its C7515 advisory, e.g. non-wgmma instructions defining accumulator registers "
              "inside the wgmma pipeline)",
              k.id, name, ShortName(*f), m.hgmma_serialized));
        }
      }
      if (a.expects_tensor_cores && arch.mix.Tensor() == 0) {
        arch.violations.push_back(absl::StrFormat(
            "%s %s: a tensor-core rung (revision %d) but its %d function(s) hold no HMMA/HGMMA "
            "instruction",
            k.id, name, k.revision, static_cast<int>(arch.functions.size())));
      }
      for (const std::string& op : RequiredOpcodes(k)) {
        if (CountOpcode(arch.functions, op) > 0) continue;
        arch.violations.push_back(absl::StrFormat(
            "%s %s: its %d function(s) hold no %s instruction, which the rung's technique "
            "requires (%s)",
            k.id, name, static_cast<int>(arch.functions.size()), op,
            op == "HGMMA" && k.exact_sm == 90 ? "a Hopper rung issues wgmma"
                                              : "KernelInfo::required_sass"));
      }
      a.violations.insert(a.violations.end(), arch.violations.begin(), arch.violations.end());
      a.arches.push_back(std::move(arch));
    }
    if (a.expects_device_code && a.arches.empty()) {
      a.violations.push_back(absl::StrCat(
          k.id, ": no device function found in a source named ", prefix,
          "*: was the file compiled into the audited binary, for a real architecture?"));
    }
    out.push_back(std::move(a));
  }
  return out;
}

nlohmann::json AuditToJson(const std::vector<KernelAudit>& audits, const std::string& input,
                           const std::string& tool) {
  nlohmann::json j;
  j["schema"] = "flashscope.audit";
  j["schema_version"] = 1;
  j["input"] = input;
  j["tool"] = tool;
  nlohmann::json kernels = nlohmann::json::array();
  nlohmann::json violations = nlohmann::json::array();
  bool passed = true;
  for (const KernelAudit& a : audits) {
    nlohmann::json k;
    k["id"] = a.kernel.id;
    k["family"] = a.kernel.family;
    k["revision"] = a.kernel.revision;
    k["source"] = a.source;
    k["expects_tensor_cores"] = a.expects_tensor_cores;
    k["required_opcodes"] = RequiredOpcodes(a.kernel);
    k["passed"] = a.passed();
    k["violations"] = a.violations;
    nlohmann::json arches = nlohmann::json::array();
    for (const ArchAudit& arch : a.arches) {
      nlohmann::json fns = nlohmann::json::array();
      for (const SassFunction* f : arch.functions) {
        fns.push_back({{"name", f->name},
                       {"demangled", f->demangled},
                       {"registers", f->registers},
                       {"stack_bytes", f->stack_bytes},
                       {"shared_bytes", f->shared_bytes},
                       {"local_bytes", f->local_bytes},
                       {"instructions", MixToJson(MixOf(*f))}});
      }
      arches.push_back({{"arch", arch.arch},
                        {"max_registers", arch.max_registers},
                        {"max_shared_bytes", arch.max_shared_bytes},
                        {"max_local_bytes", arch.max_local_bytes},
                        {"instructions", MixToJson(arch.mix)},
                        {"functions", fns}});
    }
    k["arches"] = arches;
    for (const auto& v : a.violations) violations.push_back(v);
    passed = passed && a.passed();
    kernels.push_back(k);
  }
  j["passed"] = passed;
  j["violations"] = violations;
  j["kernels"] = kernels;
  return j;
}

std::string RenderAuditTable(const std::vector<KernelAudit>& audits) {
  std::string out = absl::StrFormat("%-28s %-7s %4s %5s %7s %5s %6s %6s %6s %6s %5s  %s\n",
                                    "kernel", "arch", "fns", "regs", "smem", "local", "HMMA",
                                    "HGMMA", "LDSM", "LDGSTS", "TMA", "verdict");
  for (const KernelAudit& a : audits) {
    if (a.arches.empty()) {
      out += absl::StrFormat("%-28s %-7s %s\n", a.kernel.id, "-",
                             a.expects_device_code ? "FAIL no device code found"
                             : a.kernel.test_only  ? "test-only kernel: not audited"
                                                   : "no device code of ours (library peer)");
      continue;
    }
    for (const ArchAudit& arch : a.arches) {
      out += absl::StrFormat("%-28s %-7s %4d %5d %7d %5d %6d %6d %6d %6d %5d  %s\n", a.kernel.id,
                             arch.arch, static_cast<int>(arch.functions.size()), arch.max_registers,
                             arch.max_shared_bytes, arch.max_local_bytes, arch.mix.hmma,
                             arch.mix.hgmma, arch.mix.ldsm, arch.mix.ldgsts, arch.mix.tma,
                             arch.violations.empty() ? "ok" : "FAIL");
    }
  }
  return out;
}

}  // namespace flashscope::audit
