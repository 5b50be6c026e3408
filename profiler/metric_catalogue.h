// The metric catalogue: friendly metric names mapped to the hardware metrics the CUPTI range
// profiler collects, per architecture, with units and a one-line explanation each.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/metric_catalogue.h"

namespace flashscope::profiler {

// The names, units and descriptions are common/metric_catalogue.h's, which the reports read too.
using MetricDef = MetricInfo;

// The catalogue entries that exist on compute capability `cc` (x 10: 80, 86, 90, ...), in display
// order. sm_80 and sm_90 are the architectures whose names were checked against CUPTI's host
// metric tables (GA100, GH100); newer GPUs get the sm_90 list, whose names CUPTI may reject
// there, which the range profiler then reports by name. Empty below sm_80.
const std::vector<MetricDef>& MetricCatalogue(int cc);

// The friendly names of the "basic" set (MetricInfo::basic): the columns of every case table.
const std::vector<std::string>& BasicMetricNames();

// Resolves a metric spec for compute capability `cc`:
//   "basic" | "full" | a comma list of friendly names, raw hardware metric names (anything
//   containing "__" is accepted as is) and the words basic/full.
// Order is kept and duplicates dropped. Errors: empty spec, a GPU older than sm_80
// (FailedPrecondition), a friendly name that is unknown (InvalidArgument naming it and the three
// closest known names) or that needs a newer architecture (InvalidArgument saying which).
absl::StatusOr<std::vector<MetricDef>> ResolveMetrics(const std::string& spec, int cc);

// The `count` catalogue names closest to `name` by edit distance (ties alphabetical), with
// common/closest_names.h, the one closest-name helper.
std::vector<std::string> ClosestMetricNames(const std::string& name, int cc, int count = 3);

}  // namespace flashscope::profiler
