// Planning, inside flashscope-worker: a suite's kernel patterns matched against the kernels of the
// loaded plugins (the built-in one included), times the suite's problems, in the order the runner
// takes them (problem-major, so that one problem's inputs and reference serve every kernel before
// the next problem), cut to a shard. The result is data (reports/plan.h): the supervisor stores it
// in the journal, and the workers that run cases bind it back to kernels by id.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/plugin_set.h"
#include "protocol/worker_protocol.h"
#include "reports/plan.h"
#include "suites/suite.h"

namespace flashscope::runner {

// A suite file as the worker takes it: one read, one parse, and the SHA-256 of the bytes of that
// same read (the plan's suite_sha256), so the suite planned or run is the one the hash names.
struct SuiteFile {
  suites::Suite suite;
  std::string sha256;
};
absl::StatusOr<SuiteFile> ReadSuiteFile(const std::string& path);

struct PlanInputs {
  const suites::Suite* suite = nullptr;
  std::string suite_sha256;
  const plugins::PluginSet* kernels = nullptr;
  std::string kernels_filter;  // --kernels: a comma list of ids or globs narrowing the suite's
  std::string shard;           // --shard K/N, "" = everything
  // Plugins that crashed the planner while loading: a pattern nobody else matches becomes one
  // error case per problem instead of an error of the whole plan.
  std::vector<suites::protocol::LostPlugin> lost_plugins;
};

// Test-only kernels take part only when a pattern starts with "test.". A pattern that matches
// no kernel is an error that names the closest ids (unless plugins were lost, see above).
absl::StatusOr<reports::PlanRecord> MakePlan(const PlanInputs& in);

// `flashscope ab`'s plans: one per side, for the kernels of the plugins loaded as the two sides
// (plugins::Side::kBase and kNew) that the suite's patterns and --kernels select, times the
// suite's problems, problem-major. A kernel both sides offer gives the same case key in both
// plans (a pair); one that only one side offers is planned on that side alone. Kernels of any
// other plugin (the built-in ones) take no part: they would be the same code on both sides. A
// suite pattern that matches no side's kernel is passed over (it may name a peer); an error only
// when nothing at all is selected. No shards.
struct AbPlan {
  reports::PlanRecord base, next;
};
absl::StatusOr<AbPlan> MakeAbPlan(const PlanInputs& in);

// A planned case and the kernel that runs it (nullptr for a case planned as an error).
struct BoundCase {
  const reports::PlannedCaseRecord* planned = nullptr;
  const plugins::Kernel* kernel = nullptr;
};

// The plan's cases bound to the kernels of `kernels`, each found in the plugin the plan says it
// comes from (so an ab side's plan binds to that side's kernels). Fails, saying what changed,
// when the loaded plugins are not the ones the plan was made with (a plugin file rebuilt since,
// another build of flashscope) or a planned kernel is missing.
absl::StatusOr<std::vector<BoundCase>> BindPlan(const reports::PlanRecord& plan,
                                                const plugins::PluginSet& kernels);

// The provenance record of a loaded plugin: its provenance without the side of an ab comparison.
reports::ProvenanceRecord ToRecord(const plugins::Provenance& p);

bool GlobMatch(const std::string& pattern, const std::string& text);

}  // namespace flashscope::runner
