#include "audit/audit_policy.h"

#include <algorithm>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

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
  if (size_t paren = n.find('('); paren != std::string::npos) n = n.substr(0, paren);
  return n;
}

nlohmann::json MixToJson(const InstructionMix& m) {
  return {{"total", m.total}, {"hmma", m.hmma},     {"hgmma", m.hgmma}, {"other_mma", m.other_mma},
          {"ldsm", m.ldsm},   {"ldgsts", m.ldgsts}, {"ldl", m.ldl},     {"stl", m.stl},
          {"lds", m.lds},     {"sts", m.sts},       {"ldg", m.ldg},     {"stg", m.stg}};
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
  m.ldl = f.Count("LDL");
  m.stl = f.Count("STL");
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
        arch.mix.total += m.total;
        arch.mix.hmma += m.hmma;
        arch.mix.hgmma += m.hgmma;
        arch.mix.other_mma += m.other_mma;
        arch.mix.ldsm += m.ldsm;
        arch.mix.ldgsts += m.ldgsts;
        arch.mix.ldl += m.ldl;
        arch.mix.stl += m.stl;
        arch.mix.lds += m.lds;
        arch.mix.sts += m.sts;
        arch.mix.ldg += m.ldg;
        arch.mix.stg += m.stg;
        arch.max_registers = std::max(arch.max_registers, f->registers);
        arch.max_shared_bytes = std::max(arch.max_shared_bytes, f->shared_bytes);
        arch.max_local_bytes = std::max(arch.max_local_bytes, f->local_bytes);
        if (f->local_bytes > 0 || m.ldl + m.stl > 0) {
          arch.violations.push_back(absl::StrFormat(
              "%s %s: %s uses local memory (%d bytes per thread, %d LDL, %d STL): register "
              "spills or a local array; the policy allows none",
              k.id, name, ShortName(*f), std::max(f->local_bytes, 0), m.ldl, m.stl));
        }
      }
      for (const std::string& op : k.required_sass) {
        int count = 0;
        for (const SassFunction* f : arch.functions) count += f->Count(op);
        if (count == 0) {
          arch.violations.push_back(absl::StrFormat(
              "%s %s: its technique needs %s instructions but its %d function(s) hold none", k.id,
              name, op, static_cast<int>(arch.functions.size())));
        }
      }
      if (a.expects_tensor_cores && arch.mix.Tensor() == 0) {
        arch.violations.push_back(absl::StrFormat(
            "%s %s: a tensor-core rung (revision %d) but its %d function(s) hold no HMMA/HGMMA "
            "instruction",
            k.id, name, k.revision, static_cast<int>(arch.functions.size())));
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
  std::string out =
      absl::StrFormat("%-28s %-7s %4s %5s %7s %5s %6s %6s %6s %6s  %s\n", "kernel", "arch", "fns",
                      "regs", "smem", "local", "HMMA", "HGMMA", "LDSM", "LDGSTS", "verdict");
  for (const KernelAudit& a : audits) {
    if (a.arches.empty()) {
      out += absl::StrFormat("%-28s %-7s %s\n", a.kernel.id, "-",
                             a.expects_device_code ? "FAIL no device code found"
                             : a.kernel.test_only  ? "test-only kernel: not audited"
                                                   : "no device code of ours (library peer)");
      continue;
    }
    for (const ArchAudit& arch : a.arches) {
      out += absl::StrFormat("%-28s %-7s %4d %5d %7d %5d %6d %6d %6d %6d  %s\n", a.kernel.id,
                             arch.arch, static_cast<int>(arch.functions.size()), arch.max_registers,
                             arch.max_shared_bytes, arch.max_local_bytes, arch.mix.hmma,
                             arch.mix.hgmma, arch.mix.ldsm, arch.mix.ldgsts,
                             arch.violations.empty() ? "ok" : "FAIL");
    }
  }
  return out;
}

}  // namespace flashscope::audit
