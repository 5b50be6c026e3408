#include "suites/plan_cases.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/problem_params.h"
#include "reports/text_safety.h"

namespace flashscope::suites {

reports::CaseResult NewCaseResult(const reports::PlanRecord& plan,
                                  const reports::PlannedCaseRecord& c, const Suite& suite) {
  reports::CaseResult r;
  r.kernel_id = c.kernel_id;
  if (const reports::PlannedKernelRecord* k = plan.FindKernel(c.kernel_id)) {
    r.kernel_revision = k->info.revision;
    r.kernel_title = k->info.title;
    r.kernel_changed = k->info.changed;
    // A tile of one element is no tile (library peers pick their own kernels): nothing to draw.
    if (k->info.tile.block_m > 1 || k->info.tile.block_n > 1) {
      r.tile = reports::TileRecord{k->info.tile.block_m, k->info.tile.block_n};
    }
  }
  if (const reports::ProvenanceRecord* p = plan.ProvenanceOf(c.kernel_id)) r.provenance = *p;
  r.family = std::string(FamilyName(FamilyOf(c.problem)));
  r.problem_key = ProblemKey(c.problem);
  r.params = ProblemParams(c.problem);
  r.input_kind = suite.input_kind;
  r.seed = suite.seed;
  return r;
}

// Plugin names, versions, paths and reasons come from files anyone can write: shown inert.
std::string RenderPlan(const reports::PlanRecord& plan,
                       const std::map<std::string, std::string>& refusals) {
  auto safe = [](const std::string& s) { return reports::text::TerminalSafe(s); };
  std::string out =
      absl::StrCat("plan: ", plan.cases.size(), plan.cases.size() == 1 ? " case" : " cases",
                   " of suite file ", safe(plan.suite_path), " (sha256 ", plan.suite_sha256, ")");
  if (!plan.kernels_filter.empty())
    absl::StrAppend(&out, ", --kernels ", safe(plan.kernels_filter));
  if (!plan.shard.empty()) absl::StrAppend(&out, ", shard ", safe(plan.shard));
  absl::StrAppend(&out, "\nkernels come from:\n");
  for (const auto& p : plan.plugins) {
    if (p.builtin) {
      absl::StrAppend(&out, "  built-in                 flashscope ", safe(p.version), "\n");
    } else {
      absl::StrAppendFormat(&out, "  %-24s version %s\n      file %s\n      sha256 %s\n",
                            safe(p.plugin), p.version.empty() ? "(none given)" : safe(p.version),
                            safe(p.path), safe(p.sha256));
    }
  }
  for (const auto& l : plan.lost_plugins) {
    absl::StrAppend(&out, "  LOST ", safe(l.path), ": ", safe(l.reason), "\n");
  }
  absl::StrAppend(&out, "cases (in the order they run):\n");
  for (const auto& c : plan.cases) {
    const reports::ProvenanceRecord* p = plan.ProvenanceOf(c.kernel_id);
    absl::StrAppendFormat(&out, "  %4d  %s", c.index, safe(c.key));
    if (!c.error.empty()) {
      absl::StrAppend(&out, "  ERROR: ", safe(c.error));
    } else if (p != nullptr && !p->builtin) {
      absl::StrAppend(&out, "  [", safe(p->plugin), "]");
    }
    if (auto refused = refusals.find(c.key); refused != refusals.end()) {
      absl::StrAppend(&out, "  SKIP: supports() says: ", safe(refused->second));
    }
    absl::StrAppend(&out, "\n");
  }
  if (!refusals.empty()) {
    absl::StrAppend(&out, refusals.size(), " of ", plan.cases.size(),
                    plan.cases.size() == 1 ? " case" : " cases",
                    " will be skipped: their kernel's supports() refuses the problem (marked SKIP "
                    "above)\n");
  }
  return out;
}

}  // namespace flashscope::suites
