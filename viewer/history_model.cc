#include "viewer/history_model.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "history/history_render.h"
#include "viewer/session.h"

namespace flashscope::viewer {

bool HistoryModel::Load(const std::string& db, const reports::GatePolicy& policy) {
  db_ = db;
  store_.reset();
  series_.clear();
  auto store = history::HistoryStore::Open(db);
  if (!store.ok()) {
    error_ = std::string(store.status().message());
    return false;
  }
  auto series = store->LoadSeries({});
  if (!series.ok()) {
    error_ = std::string(series.status().message());
    return false;
  }
  store_ = std::make_unique<history::HistoryStore>(std::move(*store));
  auto changes = history::FindHistoryChanges(*store_, std::move(*series), policy);
  if (!changes.ok()) {
    error_ = std::string(changes.status().message());
    store_.reset();
    return false;
  }
  series_ = std::move(*changes);
  error_.clear();
  return true;
}

int HistoryModel::FirstSeriesToShow() const {
  for (size_t i = 0; i < series_.size(); ++i) {
    if (!series_[i].changes.empty()) return int(i);
  }
  return 0;
}

std::optional<std::pair<int, int>> HistoryModel::AddChangeReports(
    const history::HistoryChange& change, Session& session) {
  if (!store_) return std::nullopt;
  auto before = store_->LoadReport(change.before_report);
  auto after = store_->LoadReport(change.after_report);
  if (!before.ok() || !after.ok()) {
    error_ = std::string((before.ok() ? after : before).status().message());
    return std::nullopt;
  }
  const int base = int(session.reports().size());
  session.AddInMemory(change.previous_revision + " (history)", std::move(*before));
  session.AddInMemory(change.revision + " (history)", std::move(*after));
  return std::make_pair(base, base + 1);
}

SeriesChartScale ChartScaleOf(const history::Series& s) {
  SeriesChartScale sc;
  sc.n = s.points.size();
  std::tie(sc.lo, sc.hi) = history::ChartRange(s);
  return sc;
}

int ChangeNearX(const history::SeriesChanges& s, const SeriesChartScale& scale, double x,
                double tolerance) {
  int best = -1;
  double best_distance = tolerance;
  for (size_t i = 0; i < s.changes.size(); ++i) {
    const int at = s.changes[i].point_index;
    const double marker = (scale.X(size_t(at - 1)) + scale.X(size_t(at))) / 2;
    if (std::fabs(marker - x) <= best_distance) {
      best_distance = std::fabs(marker - x);
      best = int(i);
    }
  }
  return best;
}

}  // namespace flashscope::viewer
