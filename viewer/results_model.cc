#include "viewer/results_model.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace flashscope::viewer {
namespace {

std::string Lower(std::string s) {
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

const TableColumn* FindColumn(const std::vector<TableColumn>& columns, const std::string& key) {
  for (const TableColumn& c : columns) {
    if (c.key == key) return &c;
  }
  return nullptr;
}

// -1, 0, 1 comparing a and b in ascending order of a text column.
int CompareText(const reports::CaseSummary& a, const reports::CaseSummary& b,
                const std::string& key) {
  if (key == "kernel") return a.kernel_id.compare(b.kernel_id);
  if (key == "problem") return a.problem_key.compare(b.problem_key);
  if (key == "status") return int(a.status) - int(b.status);
  return 0;
}

}  // namespace

std::vector<TableColumn> ResultsColumns(const reports::ReportSummary& summary) {
  std::vector<TableColumn> out = {
      {"kernel", "Kernel", "The kernel's id: family, revision and name"},
      {"problem", "Problem", "The problem's key: its shape, dtype and flags"},
      {"status", "Status", "passed, failed (verification), skipped, error or timeout"}};
  for (size_t k : reports::HeadlineColumns(summary)) {
    const reports::ValueSpec& spec = summary.columns[k];
    out.push_back({spec.key, spec.label, spec.description, int(k)});
  }
  return out;
}

bool ResultsFilter::operator==(const ResultsFilter& o) const {
  return text == o.text && std::equal(show_status, show_status + 5, o.show_status);
}

bool WordsMatch(const std::string& haystack, const std::string& words) {
  const std::string hay = Lower(haystack);
  std::istringstream in(Lower(words));
  std::string w;
  while (in >> w) {
    const bool negate = w.size() > 1 && w[0] == '-';
    if (negate) w = w.substr(1);
    if ((hay.find(w) != std::string::npos) == negate) return false;
  }
  return true;
}

bool CaseMatches(const reports::CaseSummary& c, const ResultsFilter& f) {
  const int s = int(c.status);
  if (s >= 0 && s < 5 && !f.show_status[s]) return false;
  return WordsMatch(c.kernel_id + " " + c.problem_key + " " + CaseStatusName(c.status), f.text);
}

std::vector<int> FilterAndSort(const reports::ReportSummary& summary, const ResultsFilter& filter,
                               const std::vector<SortKey>& keys) {
  const std::vector<TableColumn> columns = ResultsColumns(summary);
  std::vector<int> idx;
  for (size_t i = 0; i < summary.cases.size(); ++i) {
    if (CaseMatches(summary.cases[i], filter)) idx.push_back(int(i));
  }
  auto less = [&](int ia, int ib) {
    const reports::CaseSummary& a = summary.cases[size_t(ia)];
    const reports::CaseSummary& b = summary.cases[size_t(ib)];
    for (const SortKey& k : keys) {
      const TableColumn* col = FindColumn(columns, k.column);
      if (col == nullptr) continue;  // a column this report does not have
      int cmp = 0;
      if (col->value < 0) {
        cmp = CompareText(a, b, k.column);
      } else {
        const reports::SummaryValue& va = a.values[size_t(col->value)];
        const reports::SummaryValue& vb = b.values[size_t(col->value)];
        if (va.Has() != vb.Has()) return va.Has();  // present values first, whatever the direction
        if (va.spec.hint == reports::Hint::kText) {
          cmp = va.text.compare(vb.text);
        } else if (va.Has() && va.value != vb.value) {
          cmp = va.value < vb.value ? -1 : 1;
        }
      }
      if (k.descending) cmp = -cmp;
      if (cmp != 0) return cmp < 0;
    }
    return false;
  };
  std::stable_sort(idx.begin(), idx.end(), less);
  return idx;
}

std::string CellText(const reports::CaseSummary& c, const TableColumn& column) {
  if (column.key == "kernel") return c.kernel_id;
  if (column.key == "problem") return c.problem_key;
  if (column.key == "status") return CaseStatusName(c.status);
  if (column.value < 0 || size_t(column.value) >= c.values.size()) return "-";
  return reports::FormatValue(c.values[size_t(column.value)]);
}

const std::vector<int>& ResultsOrder::Get(const reports::Report& report, uint64_t generation,
                                          const ResultsFilter& filter,
                                          const std::vector<SortKey>& keys) {
  if (valid_ && generation == generation_ && filter == filter_ && keys == keys_) return order_;
  if (!valid_ || generation != generation_) {
    summary_ = reports::SummarizeReport(report);
    columns_ = ResultsColumns(summary_);
  }
  order_ = FilterAndSort(summary_, filter, keys);
  valid_ = true;
  generation_ = generation;
  filter_ = filter;
  keys_ = keys;
  ++recomputations_;
  return order_;
}

}  // namespace flashscope::viewer
