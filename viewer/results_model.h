// The results table's model: its columns are the summary model's (analysis/summary.h: kernel,
// problem, status, then every headline value some case has, each with its description for the
// header's tooltip), and which cases pass the filter in which order, computed only when the
// report, the filter or the sort changes (a 2,000-case report is then drawn through a list clipper
// at no per-frame cost beyond the visible rows).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/summary.h"

namespace flashscope::viewer {

struct TableColumn {
  std::string key;          // "kernel", "problem", "status", or a summary value's key
  std::string label;        // the header
  std::string description;  // the header's tooltip
  int value = -1;           // index into ReportSummary::columns; -1 for kernel, problem, status
};

// Kernel, problem, status, then the headline columns of the summary that some case has.
std::vector<TableColumn> ResultsColumns(const reports::ReportSummary& summary);

struct SortKey {
  std::string column = "kernel";  // TableColumn::key
  bool descending = false;
  bool operator==(const SortKey& o) const {
    return column == o.column && descending == o.descending;
  }
};

struct ResultsFilter {
  // Space-separated words, all of which must occur (case-insensitive) in the kernel id, the
  // problem key or the status name; a word starting with '-' must not occur.
  std::string text;
  bool show_status[5] = {true, true, true, true, true};  // indexed by CaseStatus

  bool operator==(const ResultsFilter& o) const;
};

// Whether `haystack` holds every word of `words` and none of the '-' words (case-insensitive);
// the compare view's filter uses it too.
bool WordsMatch(const std::string& haystack, const std::string& words);

bool CaseMatches(const reports::CaseSummary& c, const ResultsFilter& f);

// Indices into summary.cases of the cases that pass the filter, stably sorted by the keys in
// order; cases missing a value sort last in either direction.
std::vector<int> FilterAndSort(const reports::ReportSummary& summary, const ResultsFilter& filter,
                               const std::vector<SortKey>& keys);

// The cell text of a column for a case ("-" when the value is absent), as the terminal shows it.
std::string CellText(const reports::CaseSummary& c, const TableColumn& column);

// Keeps the summary, the columns and the current order of the loaded report, and recomputes
// them when the inputs change; `generation` identifies the loaded report (it changes on every
// reload).
class ResultsOrder {
 public:
  const std::vector<int>& Get(const reports::Report& report, uint64_t generation,
                              const ResultsFilter& filter, const std::vector<SortKey>& keys);
  const reports::ReportSummary& summary() const { return summary_; }
  const std::vector<TableColumn>& columns() const { return columns_; }
  int recomputations() const { return recomputations_; }

 private:
  bool valid_ = false;
  uint64_t generation_ = 0;
  reports::ReportSummary summary_;
  std::vector<TableColumn> columns_;
  ResultsFilter filter_;
  std::vector<SortKey> keys_;
  std::vector<int> order_;
  int recomputations_ = 0;
};

}  // namespace flashscope::viewer
