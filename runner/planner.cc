#include "runner/planner.h"

#include <fnmatch.h>

#include <algorithm>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/closest_names.h"
#include "plugins/sha256.h"
#include "suites/shard.h"

namespace flashscope::runner {

bool GlobMatch(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

namespace {

using Kernels = std::vector<const plugins::Kernel*>;

std::vector<std::string> AllIds(const plugins::PluginSet& set) {
  std::vector<std::string> ids;
  for (const auto* k : set.kernels()) ids.push_back(k->info().id);
  return ids;
}

// The kernels of `candidates` each pattern matches; `unmatched` collects patterns that match
// none (an error unless some plugin was lost, which may be why).
absl::StatusOr<Kernels> Match(const std::vector<std::string>& patterns, const Kernels& candidates,
                              const plugins::PluginSet& set, const std::string& where,
                              bool tolerate_unmatched, std::vector<std::string>* unmatched) {
  Kernels out;
  for (const auto& pattern : patterns) {
    const bool test_only_ok = pattern.rfind("test.", 0) == 0;
    bool matched = false;
    for (const plugins::Kernel* k : candidates) {
      if (k->info().test_only && !test_only_ok) continue;
      if (!GlobMatch(pattern, k->info().id)) continue;
      matched = true;
      if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
    }
    if (matched) continue;
    if (!tolerate_unmatched) {
      return absl::NotFoundError(
          absl::StrCat(where, ": no kernel matches '", pattern,
                       "' (closest: ", absl::StrJoin(ClosestNames(pattern, AllIds(set), 3), ", "),
                       "; `flashscope list` shows them all, `--plugin FILE` adds a plugin's)"));
    }
    unmatched->push_back(pattern);
  }
  return out;
}

// The suite's kernels among `candidates` narrowed by --kernels, in the order of the plugin set.
// `tolerate`: a pattern that matches nothing is not an error.
absl::StatusOr<Kernels> SelectKernels(const PlanInputs& in, const Kernels& candidates,
                                      bool tolerate, std::vector<std::string>* lost) {
  std::vector<std::string> unmatched_suite, unmatched_filter;
  auto selected = Match(in.suite->kernel_patterns, candidates, *in.kernels,
                        in.suite->path + ": suite.kernels", tolerate, &unmatched_suite);
  if (!selected.ok()) return selected.status();
  *lost = unmatched_suite;
  if (!in.kernels_filter.empty()) {
    std::vector<std::string> filter = absl::StrSplit(in.kernels_filter, ',', absl::SkipEmpty());
    auto narrowed =
        Match(filter, candidates, *in.kernels, "--kernels", tolerate, &unmatched_filter);
    if (!narrowed.ok()) return narrowed.status();
    Kernels both;
    for (const auto* k : *selected) {
      if (std::find(narrowed->begin(), narrowed->end(), k) != narrowed->end()) both.push_back(k);
    }
    *selected = std::move(both);
    // A lost pattern stays when the filter names it (either may be the glob).
    lost->clear();
    for (const auto& pattern : unmatched_suite) {
      for (const auto& f : filter) {
        if (GlobMatch(f, pattern) || GlobMatch(pattern, f)) {
          lost->push_back(pattern);
          break;
        }
      }
    }
    if (selected->empty() && lost->empty()) {
      return absl::NotFoundError(absl::StrCat("--kernels ", in.kernels_filter,
                                              " selects none of the kernels of suite ",
                                              in.suite->name));
    }
  }
  Kernels ordered;
  for (const plugins::Kernel* k : in.kernels->kernels()) {
    if (std::find(selected->begin(), selected->end(), k) != selected->end()) ordered.push_back(k);
  }
  return ordered;
}

std::string LostReason(const PlanInputs& in, const std::string& pattern) {
  std::vector<std::string> reasons;
  for (const auto& l : in.lost_plugins) reasons.push_back(l.reason);
  return absl::StrCat(absl::StrJoin(reasons, "; "), "; no loaded plugin offers '", pattern, "'");
}

}  // namespace

absl::StatusOr<SuiteFile> ReadSuiteFile(const std::string& path) {
  std::string as_stored;
  auto suite = suites::LoadSuiteFile(path, &as_stored);
  if (!suite.ok()) return suite.status();
  return SuiteFile{*std::move(suite), plugins::Sha256Hex(as_stored)};
}

reports::ProvenanceRecord ToRecord(const plugins::Provenance& p) { return p; }

namespace {

// A plan's header: the suite, the filter, the shard and every loaded plugin.
reports::PlanRecord PlanHeader(const PlanInputs& in) {
  reports::PlanRecord plan;
  plan.suite_path = in.suite->path;
  plan.suite_sha256 = in.suite_sha256;
  plan.kernels_filter = in.kernels_filter;
  plan.shard = in.shard;
  for (const plugins::Provenance& p : in.kernels->plugins()) plan.plugins.push_back(ToRecord(p));
  return plan;
}

// `kernel` into the plan's kernels, pointing at its plugin.
void AddKernel(const PlanInputs& in, const plugins::Kernel* kernel, reports::PlanRecord* plan) {
  int index = 0;
  for (const plugins::Provenance& p : in.kernels->plugins()) {
    if (&p == &kernel->provenance()) break;
    ++index;
  }
  plan->kernels.push_back({kernel->info(), index});
}

reports::PlannedCaseRecord NewCase(const reports::PlanRecord& plan, const std::string& kernel_id,
                                   const Problem& problem, std::string error) {
  reports::PlannedCaseRecord c;
  c.index = static_cast<int>(plan.cases.size());
  c.kernel_id = kernel_id;
  c.problem = problem;
  c.key = kernel_id + " " + ProblemKey(problem);
  c.error = std::move(error);
  return c;
}

}  // namespace

absl::StatusOr<reports::PlanRecord> MakePlan(const PlanInputs& in) {
  std::vector<std::string> lost_patterns;
  auto kernels = SelectKernels(in, in.kernels->kernels(), !in.lost_plugins.empty(), &lost_patterns);
  if (!kernels.ok()) return kernels.status();
  reports::PlanRecord plan = PlanHeader(in);
  for (const auto& l : in.lost_plugins) plan.lost_plugins.push_back({l.path, l.reason});
  for (const plugins::Kernel* k : *kernels) AddKernel(in, k, &plan);
  for (const Problem& problem : in.suite->problems) {
    for (const plugins::Kernel* k : *kernels) {
      if (k->info().family == FamilyOf(problem)) {
        plan.cases.push_back(NewCase(plan, k->info().id, problem, ""));
      }
    }
    for (const auto& pattern : lost_patterns) {
      plan.cases.push_back(NewCase(plan, pattern, problem, LostReason(in, pattern)));
    }
  }
  if (plan.cases.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        in.suite->path, ": the suite's kernels and problems have no family in common: no cases"));
  }
  auto shard = suites::ParseShard(in.shard);
  if (!shard.ok()) return shard.status();
  plan.cases = suites::SelectShard(plan.cases, *shard, [](const reports::PlannedCaseRecord& c) {
    return ProblemKey(c.problem);
  });
  if (plan.cases.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--shard ", shard->Name(), ": the suite has fewer cases than shards"));
  }
  return plan;
}

absl::StatusOr<AbPlan> MakeAbPlan(const PlanInputs& in) {
  if (!in.shard.empty()) {
    return absl::InvalidArgumentError("flashscope ab takes no --shard: it plans every case");
  }
  Kernels sides;
  for (const plugins::Kernel* k : in.kernels->kernels()) {
    if (k->provenance().side != plugins::Side::kShared) sides.push_back(k);
  }
  std::vector<std::string> unmatched;
  auto kernels = SelectKernels(in, sides, /*tolerate=*/true, &unmatched);
  if (!kernels.ok()) return kernels.status();
  std::vector<std::string> ids;  // in plugin order: the base side's first
  for (const plugins::Kernel* k : *kernels) {
    if (std::find(ids.begin(), ids.end(), k->info().id) == ids.end()) ids.push_back(k->info().id);
  }
  if (ids.empty()) {
    std::vector<std::string> offered;  // each id once (both sides usually offer it)
    for (const plugins::Kernel* k : sides) {
      if (std::find(offered.begin(), offered.end(), k->info().id) == offered.end()) {
        offered.push_back(k->info().id);
      }
    }
    return absl::NotFoundError(absl::StrCat(
        "neither --base nor --new offers a kernel that suite ", in.suite->name,
        (in.kernels_filter.empty() ? ""
                                   : absl::StrCat(" narrowed by --kernels ", in.kernels_filter)),
        " selects (its kernels: ", absl::StrJoin(in.suite->kernel_patterns, ", "),
        "; the sides offer: ", absl::StrJoin(offered, ", "),
        "; test-only ids need a pattern starting with \"test.\")"));
  }
  AbPlan plan{PlanHeader(in), PlanHeader(in)};
  for (const std::string& id : ids) {
    if (const plugins::Kernel* k = in.kernels->Find(id, plugins::Side::kBase)) {
      AddKernel(in, k, &plan.base);
    }
    if (const plugins::Kernel* k = in.kernels->Find(id, plugins::Side::kNew)) {
      AddKernel(in, k, &plan.next);
    }
  }
  for (const Problem& problem : in.suite->problems) {
    for (const std::string& id : ids) {
      for (reports::PlanRecord* side : {&plan.base, &plan.next}) {
        const reports::PlannedKernelRecord* k = side->FindKernel(id);
        if (k != nullptr && k->info.family == FamilyOf(problem)) {
          side->cases.push_back(NewCase(*side, id, problem, ""));
        }
      }
    }
  }
  if (plan.base.cases.empty() && plan.next.cases.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        in.suite->path, ": the sides' kernels and the suite's problems have no family in common"));
  }
  return plan;
}

absl::StatusOr<std::vector<BoundCase>> BindPlan(const reports::PlanRecord& plan,
                                                const plugins::PluginSet& kernels) {
  std::vector<reports::ProvenanceRecord> loaded;
  for (const plugins::Provenance& p : kernels.plugins()) loaded.push_back(ToRecord(p));
  reports::PlanRecord now;
  now.plugins = loaded;
  reports::PlanRecord before;
  before.plugins = plan.plugins;
  if (std::string why = reports::PlanDifference(before, now); !why.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the loaded kernels are not the plan's: ", why));
  }
  std::vector<BoundCase> out;
  for (const reports::PlannedCaseRecord& c : plan.cases) {
    BoundCase b;
    b.planned = &c;
    if (c.error.empty()) {
      // The plan's plugins are the loaded ones, in order (checked above): the planned kernel's
      // plugin index says which side of an ab comparison, if any, it belongs to.
      const reports::PlannedKernelRecord* planned = plan.FindKernel(c.kernel_id);
      const int plugin = planned != nullptr ? planned->plugin : -1;
      const plugins::Side side = plugin >= 0 && plugin < static_cast<int>(kernels.plugins().size())
                                     ? kernels.plugins()[static_cast<size_t>(plugin)].side
                                     : plugins::Side::kShared;
      b.kernel = kernels.Find(c.kernel_id, side);
      if (b.kernel == nullptr) {
        return absl::FailedPreconditionError(absl::StrCat("the plan's kernel ", c.kernel_id,
                                                          " is not offered by the loaded plugins"));
      }
    }
    out.push_back(b);
  }
  return out;
}

}  // namespace flashscope::runner
