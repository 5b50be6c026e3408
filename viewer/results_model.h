// The results table's model: which cases pass the filter and in which order, computed only when
// the report, the filter or the sort changes (a 2,000-case report is then drawn through a list
// clipper at no per-frame cost beyond the visible rows).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/report.h"

namespace flashscope::viewer {

enum class Column {
  kKernel,
  kProblem,
  kStatus,
  kMedianMs,
  kTflops,
  kPctPeak,
  kTensorPct,
  kSharedPct,
  kDramPct,
  kOccupancy,
  kMaxError,
  kVerdict,
  kCount
};

const char* ColumnName(Column c);

struct SortKey {
  Column column = Column::kKernel;
  bool descending = false;
};

struct ResultsFilter {
  // Space-separated words, all of which must occur (case-insensitive) in the kernel id, the
  // problem key or the status name; a word starting with '-' must not occur.
  std::string text;
  bool show_status[5] = {true, true, true, true, true};  // indexed by CaseStatus

  bool operator==(const ResultsFilter& o) const;
};

bool CaseMatches(const reports::CaseResult& c, const ResultsFilter& f);

// Indices into report.cases of the cases that pass the filter, stably sorted by the keys in
// order; cases missing a numeric value sort last in either direction.
std::vector<int> FilterAndSort(const reports::Report& report, const ResultsFilter& filter,
                               const std::vector<SortKey>& keys);

// The cell text of a column for a case ("-" when the value is absent).
std::string CellText(const reports::CaseResult& c, Column col);

// Keeps the current order and recomputes it when the inputs change; `generation` identifies the
// loaded report (it changes on every reload).
class ResultsOrder {
 public:
  const std::vector<int>& Get(const reports::Report& report, uint64_t generation,
                              const ResultsFilter& filter, const std::vector<SortKey>& keys);
  int recomputations() const { return recomputations_; }

 private:
  bool valid_ = false;
  uint64_t generation_ = 0;
  ResultsFilter filter_;
  std::vector<std::pair<int, bool>> keys_;
  std::vector<int> order_;
  int recomputations_ = 0;
};

}  // namespace flashscope::viewer
