#include "reports/provenance.h"

#include "absl/strings/str_cat.h"

namespace flashscope::reports {
namespace {

std::string Hash(const ProvenanceRecord& p, bool full) {
  if (p.sha256.empty()) return "";
  return full || p.sha256.size() <= 12 ? p.sha256 : p.sha256.substr(0, 12) + "...";
}

// Name and version, without the file: what changes between two builds of one plugin.
std::string Short(const ProvenanceRecord& p) {
  if (p.builtin) return absl::StrCat("built-in (flashscope ", p.version, ")");
  return absl::StrCat(p.plugin, " ", p.version.empty() ? "(no version)" : p.version, " (sha256 ",
                      Hash(p, false), ")");
}

}  // namespace

std::string DescribeProvenance(const ProvenanceRecord& p, bool full_hash) {
  if (p.builtin) return absl::StrCat("built-in (flashscope ", p.version, ")");
  return absl::StrCat(p.plugin, " ", p.version.empty() ? "(no version)" : p.version, " (", p.path,
                      ", sha256 ", Hash(p, full_hash), ")");
}

std::vector<PluginUse> PluginsOf(const Report& report) {
  std::vector<PluginUse> out;
  for (const CaseResult& c : report.cases) {
    if (!c.provenance) continue;
    bool found = false;
    for (PluginUse& u : out) {
      if (u.provenance == *c.provenance) {
        ++u.cases;
        found = true;
        break;
      }
    }
    if (!found) out.push_back({*c.provenance, 1});
  }
  return out;
}

std::string ProvenanceChange(const CaseResult& base, const CaseResult& next) {
  if (!base.provenance || !next.provenance) return "";
  const ProvenanceRecord& b = *base.provenance;
  const ProvenanceRecord& n = *next.provenance;
  if (b.builtin == n.builtin && b.sha256 == n.sha256 && b.version == n.version &&
      b.plugin == n.plugin) {
    return "";
  }
  return absl::StrCat(Short(b), " -> ", Short(n));
}

}  // namespace flashscope::reports
