// What the supervisor and the workers derive from a plan's cases, on any machine: a case's result
// before it runs (identity, kernel facts, provenance), and the plan in words for --dry_run.
#pragma once

#include <map>
#include <string>

#include "reports/plan.h"
#include "reports/report.h"
#include "suites/suite.h"

namespace flashscope::suites {

// Kernel, problem key and axes, input kind and seed, kernel facts and provenance; status unset.
reports::CaseResult NewCaseResult(const reports::PlanRecord& plan,
                                  const reports::PlannedCaseRecord& c, const Suite& suite);

// The plan as `flashscope run --dry_run` prints it: suite, filter, shard, every plugin with its
// provenance (and the lost ones with why), then every case with where its kernel comes from and,
// for a case key in `refusals`, what its kernel's supports() said (the case will be skipped).
std::string RenderPlan(const reports::PlanRecord& plan,
                       const std::map<std::string, std::string>& refusals = {});

}  // namespace flashscope::suites
