#include "viewer/results_model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "viewer/case_values.h"

namespace flashscope::viewer {
namespace {

std::string Lower(std::string s) {
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::optional<double> NumericValue(const reports::CaseResult& c, Column col) {
  switch (col) {
    case Column::kMedianMs:
      return MedianMs(c);
    case Column::kTflops:
      return Tflops(c);
    case Column::kPctPeak:
      return PctPeak(c);
    case Column::kTensorPct:
      return FindMetric(c, MetricKind::kTensorPipe);
    case Column::kSharedPct:
      return FindMetric(c, MetricKind::kShared);
    case Column::kDramPct:
      return FindMetric(c, MetricKind::kDram);
    case Column::kOccupancy:
      return FindMetric(c, MetricKind::kOccupancy);
    case Column::kMaxError:
      return MaxAbsError(c);
    case Column::kVerdict:
      if (!c.verification || !c.verification->ran) return std::nullopt;
      return c.verification->ratio_to_baseline;
    default:
      return std::nullopt;
  }
}

bool IsTextColumn(Column col) {
  return col == Column::kKernel || col == Column::kProblem || col == Column::kStatus;
}

// -1, 0, 1 comparing a and b in ascending order for one column; absent values compare as
// "after everything", independent of direction (handled by the caller).
int CompareText(const reports::CaseResult& a, const reports::CaseResult& b, Column col) {
  switch (col) {
    case Column::kKernel:
      return a.kernel_id.compare(b.kernel_id);
    case Column::kProblem:
      return a.problem_key.compare(b.problem_key);
    case Column::kStatus:
      return int(a.status) - int(b.status);
    default:
      return 0;
  }
}

}  // namespace

const char* ColumnName(Column c) {
  static const char* kNames[] = {"Kernel", "Problem",  "Status",   "Median ms",
                                 "TFLOPS", "% peak",   "Tensor %", "Shared %",
                                 "DRAM %", "Occup. %", "Max err",  "Verdict"};
  int i = int(c);
  return i >= 0 && i < int(Column::kCount) ? kNames[i] : "?";
}

bool ResultsFilter::operator==(const ResultsFilter& o) const {
  return text == o.text && std::equal(show_status, show_status + 5, o.show_status);
}

bool CaseMatches(const reports::CaseResult& c, const ResultsFilter& f) {
  int s = int(c.status);
  if (s >= 0 && s < 5 && !f.show_status[s]) return false;
  if (f.text.empty()) return true;
  std::string hay = Lower(c.kernel_id + " " + c.problem_key + " " + CaseStatusName(c.status));
  std::istringstream words(Lower(f.text));
  std::string w;
  while (words >> w) {
    bool negate = w.size() > 1 && w[0] == '-';
    if (negate) w = w.substr(1);
    bool found = hay.find(w) != std::string::npos;
    if (found == negate) return false;
  }
  return true;
}

std::vector<int> FilterAndSort(const reports::Report& report, const ResultsFilter& filter,
                               const std::vector<SortKey>& keys) {
  std::vector<int> idx;
  idx.reserve(report.cases.size());
  for (size_t i = 0; i < report.cases.size(); ++i) {
    if (CaseMatches(report.cases[i], filter)) idx.push_back(int(i));
  }
  auto less = [&](int ia, int ib) {
    const auto& a = report.cases[ia];
    const auto& b = report.cases[ib];
    for (const SortKey& k : keys) {
      int cmp = 0;
      if (IsTextColumn(k.column)) {
        cmp = CompareText(a, b, k.column);
        if (k.descending) cmp = -cmp;
      } else {
        auto va = NumericValue(a, k.column), vb = NumericValue(b, k.column);
        bool ha = va && !std::isnan(*va), hb = vb && !std::isnan(*vb);
        if (ha != hb) return ha;  // present values first, whatever the direction
        if (ha && *va != *vb) cmp = (*va < *vb) ? -1 : 1;
        if (k.descending) cmp = -cmp;
      }
      if (cmp != 0) return cmp < 0;
    }
    return false;
  };
  std::stable_sort(idx.begin(), idx.end(), less);
  return idx;
}

std::string CellText(const reports::CaseResult& c, Column col) {
  switch (col) {
    case Column::kKernel:
      return c.kernel_id;
    case Column::kProblem:
      return c.problem_key;
    case Column::kStatus:
      return CaseStatusName(c.status);
    case Column::kVerdict:
      return VerdictText(c);
    default:
      break;
  }
  auto v = NumericValue(c, col);
  if (!v) return "-";
  char buf[48];
  if (col == Column::kMaxError) {
    std::snprintf(buf, sizeof buf, "%.3g", *v);
  } else if (col == Column::kMedianMs) {
    std::snprintf(buf, sizeof buf, "%.4f", *v);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f", *v);
  }
  return buf;
}

const std::vector<int>& ResultsOrder::Get(const reports::Report& report, uint64_t generation,
                                          const ResultsFilter& filter,
                                          const std::vector<SortKey>& keys) {
  std::vector<std::pair<int, bool>> k;
  for (const auto& s : keys) k.emplace_back(int(s.column), s.descending);
  if (valid_ && generation == generation_ && filter == filter_ && k == keys_) return order_;
  order_ = FilterAndSort(report, filter, keys);
  valid_ = true;
  generation_ = generation;
  filter_ = filter;
  keys_ = std::move(k);
  ++recomputations_;
  return order_;
}

}  // namespace flashscope::viewer
