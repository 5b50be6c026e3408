// A run's plan as data: which kernels (with their facts and the plugin each comes from) run on
// which problems, in which order, under which suite file, kernel filter, shard and plugins.
// flashscope-worker makes it (it is the only process that loads plugins); the supervisor writes it
// into the journal's header, compares it when a run is resumed, and the workers run its cases by
// key. JSON form: docs/report-schema.md, "Journal".
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/kernel_info.h"
#include "common/problem.h"
#include "nlohmann/json.hpp"
#include "reports/report.h"

namespace flashscope::reports {

struct PlannedKernelRecord {
  KernelInfo info;
  int plugin = 0;  // index into PlanRecord::plugins
};

struct PlannedCaseRecord {
  int index = 0;    // position in the plan (0-based; within the shard)
  std::string key;  // kernel id + " " + problem key: what the journal and reports match on
  std::string kernel_id;
  Problem problem;
  // Set when the case cannot run at all (a kernel id the suite names that no plugin could offer
  // because its plugin crashed while loading): the case is recorded as `error` with this reason.
  std::string error;
};

// A plugin file that killed the process that loaded it; its kernels could not be planned.
struct LostPluginRecord {
  std::string path;
  std::string reason;  // "crashed while loading: signal 11 (Segmentation fault)"
};

struct PlanRecord {
  std::string suite_path;
  std::string suite_sha256;  // of the suite file's bytes
  std::string kernels_filter;
  std::string shard;                      // "" = the whole plan, else "K/N"
  std::vector<ProvenanceRecord> plugins;  // the built-in kernels first, then files as loaded
  std::vector<LostPluginRecord> lost_plugins;
  std::vector<PlannedKernelRecord> kernels;  // the kernels the cases use, in plan order
  std::vector<PlannedCaseRecord> cases;

  const PlannedKernelRecord* FindKernel(const std::string& id) const;
  // The provenance of `kernel_id`'s plugin; nullptr for an id the plan has no kernel for.
  const ProvenanceRecord* ProvenanceOf(const std::string& kernel_id) const;
};

nlohmann::json PlanToJson(const PlanRecord& plan);
// Strict like the report reader: a bad field is named by its JSON path ("cases[3].problem: ...").
absl::StatusOr<PlanRecord> PlanFromJson(const nlohmann::json& j);

// "" when `now` is the plan `before` was; else the first difference, in words ("the kernel filter
// was 'attn.a1*', now 'attn.*'"), for a refusal to resume.
std::string PlanDifference(const PlanRecord& before, const PlanRecord& now);

}  // namespace flashscope::reports
