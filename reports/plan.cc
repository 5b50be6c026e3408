#include "reports/plan.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace flashscope::reports {
namespace {

std::string Quoted(const std::string& s) { return s.empty() ? "(none)" : "'" + s + "'"; }

std::string Short(const std::string& sha256) { return sha256.substr(0, 12); }

std::string PluginName(const ProvenanceRecord& p) {
  return p.builtin ? "the built-in kernels" : "plugin " + p.path;
}

std::string PluginList(const PlanRecord& plan) {
  std::vector<std::string> names;
  for (const auto& p : plan.plugins) {
    if (!p.builtin) names.push_back(p.path);
  }
  for (const auto& l : plan.lost_plugins) names.push_back(l.path + " (lost: " + l.reason + ")");
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

std::string PluginDifference(const PlanRecord& before, const PlanRecord& now) {
  if (before.plugins.size() != now.plugins.size() ||
      before.lost_plugins.size() != now.lost_plugins.size()) {
    return absl::StrCat("the plugins were ", PluginList(before), "; now ", PluginList(now));
  }
  for (size_t i = 0; i < before.plugins.size(); ++i) {
    const ProvenanceRecord& b = before.plugins[i];
    const ProvenanceRecord& n = now.plugins[i];
    if (b.builtin != n.builtin || b.path != n.path) {
      return absl::StrCat("the plugins were ", PluginList(before), "; now ", PluginList(now));
    }
    if (b.builtin && b.version != n.version) {
      return absl::StrCat("the built-in kernels were flashscope ", b.version, ", now ", n.version,
                          " (its results were measured by another build)");
    }
    if (b.sha256 != n.sha256 || b.version != n.version) {
      return absl::StrCat(PluginName(b), " changed since the run was planned (", b.plugin, " ",
                          b.version, ", SHA-256 ", Short(b.sha256), "... -> ", n.plugin, " ",
                          n.version, ", SHA-256 ", Short(n.sha256), "...)");
    }
  }
  for (size_t i = 0; i < before.lost_plugins.size(); ++i) {
    if (before.lost_plugins[i].path != now.lost_plugins[i].path) {
      return absl::StrCat("the plugins were ", PluginList(before), "; now ", PluginList(now));
    }
  }
  return "";
}

}  // namespace

const PlannedKernelRecord* PlanRecord::FindKernel(const std::string& id) const {
  for (const auto& k : kernels) {
    if (k.info.id == id) return &k;
  }
  return nullptr;
}

const ProvenanceRecord* PlanRecord::ProvenanceOf(const std::string& kernel_id) const {
  const PlannedKernelRecord* k = FindKernel(kernel_id);
  if (k == nullptr || k->plugin < 0 || k->plugin >= static_cast<int>(plugins.size())) {
    return nullptr;
  }
  return &plugins[static_cast<size_t>(k->plugin)];
}

std::string PlanDifference(const PlanRecord& before, const PlanRecord& now) {
  if (before.suite_path != now.suite_path) {
    return absl::StrCat("the suite file was ", before.suite_path, ", now ", now.suite_path);
  }
  if (before.suite_sha256 != now.suite_sha256) {
    return absl::StrCat("the suite file ", now.suite_path, " changed since the run was planned ",
                        "(SHA-256 ", Short(before.suite_sha256), "... -> ", Short(now.suite_sha256),
                        "...)");
  }
  if (before.kernels_filter != now.kernels_filter) {
    return absl::StrCat("the kernel filter (--kernels) was ", Quoted(before.kernels_filter),
                        ", now ", Quoted(now.kernels_filter));
  }
  if (before.shard != now.shard) {
    return absl::StrCat("the shard (--shard) was ", Quoted(before.shard), ", now ",
                        Quoted(now.shard));
  }
  if (std::string why = PluginDifference(before, now); !why.empty()) return why;
  if (before.cases.size() != now.cases.size()) {
    return absl::StrCat("the plan had ", before.cases.size(), " cases, now ", now.cases.size());
  }
  for (size_t i = 0; i < before.cases.size(); ++i) {
    if (before.cases[i].key != now.cases[i].key) {
      return absl::StrCat("case ", i, " was '", before.cases[i].key, "', now '", now.cases[i].key,
                          "'");
    }
  }
  return "";
}

}  // namespace flashscope::reports
