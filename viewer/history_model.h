// The viewer's history (flashscope-view --history DB, docs/history.md): the series of a history
// database with their change points, read through history/ (the same store, detection and
// explanations as `flashscope history`), and the step from a change point to the compare view of
// the two runs around it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/gate.h"
#include "history/changes.h"

namespace flashscope::viewer {

class Session;

class HistoryModel {
 public:
  // Opens the database and finds every series' change points; false with error() set when the
  // database cannot be read.
  bool Load(const std::string& db, const reports::GatePolicy& policy);
  bool loaded() const { return store_ != nullptr; }
  const std::string& db() const { return db_; }
  const std::string& error() const { return error_; }
  const std::vector<history::SeriesChanges>& series() const { return series_; }
  // The series the view opens on: the first with a change point, else the first.
  int FirstSeriesToShow() const;

  // Adds the runs before and after `change` to the session (held in memory, named by revision)
  // and returns their indexes there: (base, new). nullopt with error() set when a report cannot
  // be read back.
  std::optional<std::pair<int, int>> AddChangeReports(const history::HistoryChange& change,
                                                      Session& session);

 private:
  std::string db_, error_;
  std::unique_ptr<history::HistoryStore> store_;
  std::vector<history::SeriesChanges> series_;
};

// Where a series' chart puts revision i of n and a median: x in [0, 1] left to right, y in [0, 1]
// bottom to top over the timed medians' range (padded). Non-timed revisions have no y.
struct SeriesChartScale {
  double lo = 0, hi = 1;
  size_t n = 1;
  double X(size_t i) const { return n <= 1 ? 0.5 : double(i) / double(n - 1); }
  double Y(double ms) const { return (ms - lo) / (hi - lo); }
};
SeriesChartScale ChartScaleOf(const history::Series& s);

// The change point whose marker (halfway between its two revisions) is nearest to x in [0, 1],
// within `tolerance`; -1 when none.
int ChangeNearX(const history::SeriesChanges& s, const SeriesChartScale& scale, double x,
                double tolerance);

}  // namespace flashscope::viewer
