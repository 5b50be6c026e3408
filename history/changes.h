// The change points of a history (docs/history.md): per series, analysis/change_points.h over its
// timed revisions, each change named by the revisions around it and explained from the counters
// of the two runs either side (analysis/change_explanation.h). What `history changes`, `show`,
// `bisect-range`, the HTML page and the viewer's history view all read.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/change_points.h"
#include "analysis/gate_override.h"
#include "history/store.h"

namespace flashscope::history {

struct HistoryChange {
  SeriesKey key;
  std::string previous_revision;  // the last revision before the change
  std::string revision;           // the first revision after it
  int64_t previous_seq = 0, seq = 0;
  int point_index = 0;  // index of `revision` in the series' points
  reports::ChangePoint point;
  std::string method;
  // The run of `previous_revision` and of `revision` whose cases were compared for the
  // explanation (the last run of each).
  std::string before_report, after_report;
  std::string explanation;
  // A slowdown beyond the policy's allowance for this kernel (max(allowed_slowdown, min_effect),
  // a kernel's override included): what fails `history changes`.
  bool regression = false;
  double allowance = 0;
};

struct SeriesChanges {
  Series series;
  reports::ChangePointResult detection;
  std::vector<HistoryChange> changes;
};

// Change points of every series, judged with the policy's alpha and min_effect (kernels the
// policy ignores are not analysed). `explain` loads the two runs around each change from the
// store (a report read per change) for the explanation.
absl::StatusOr<std::vector<SeriesChanges>> FindHistoryChanges(HistoryStore& store,
                                                              std::vector<Series> series,
                                                              const reports::GatePolicy& policy,
                                                              bool explain = true);

// The index of `revision` in the store's revision order, or -1.
int RevisionIndex(const std::vector<std::string>& revisions, const std::string& revision);

}  // namespace flashscope::history
