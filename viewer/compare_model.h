// The compare view's model: the comparison, the gate's decision and their summary, made by the
// same code as `flashscope compare` and `flashscope gate` (analysis/compare.h, analysis/gate.h,
// analysis/comparison_summary.h) with the same policy, so the view shows per pair the verdict the
// CLI gives; and which pairs pass the view's filter in which order. No ImGui, no GL: unit-tested.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/comparison_summary.h"

namespace flashscope::viewer {

enum class CompareColumn {
  kKernel,
  kProblem,
  kStatus,
  kBaseMs,
  kNextMs,
  kDelta,
  kPValue,
  kVerdict,
  kGate,
  kRule,
  kCount
};
const char* CompareColumnName(CompareColumn c);
const char* CompareColumnHelp(CompareColumn c);  // the header's tooltip

struct CompareSortKey {
  CompareColumn column = CompareColumn::kVerdict;
  bool descending = false;
  bool operator==(const CompareSortKey& o) const {
    return column == o.column && descending == o.descending;
  }
};

struct CompareFilter {
  std::string text;  // words in the key (results view's rules: all must occur, '-' excludes)
  bool show_verdict[5] = {true, true, true, true, true};  // indexed by reports::Verdict
  bool changes_only = false;        // a status change, a confirmed or unconfirmed change, a failure
  bool gate_failures_only = false;  // only pairs the gate failed
  bool operator==(const CompareFilter& o) const;
};

bool PairMatches(const reports::PairSummary& p, const CompareFilter& f);

// Indices into summary.pairs that pass the filter, stably sorted by the keys. Verdicts sort by
// severity (failures, slower, ambiguous, faster, same, not timed); absent numbers sort last.
std::vector<int> FilterAndSortPairs(const reports::ComparisonSummary& summary,
                                    const CompareFilter& filter,
                                    const std::vector<CompareSortKey>& keys);

// The comparison of two loaded reports with everything that points into it, rebuilt only when
// either report is reloaded.
struct ComparedReports {
  std::shared_ptr<const reports::Report> base, next;  // kept alive: the comparison points into them
  reports::GatePolicy policy;
  reports::Comparison comparison;
  reports::GateResult gate;
  reports::ComparisonSummary summary;
};

class CompareCache {
 public:
  // The comparison of `base` and `next` under `policy` (the built-in defaults of `flashscope gate`
  // unless the viewer was given --policy); forced, because the viewer shows what differs rather
  // than refusing.
  const ComparedReports& Get(std::shared_ptr<const reports::Report> base, uint64_t base_gen,
                             std::shared_ptr<const reports::Report> next, uint64_t next_gen,
                             const reports::GatePolicy& policy);
  int rebuilds() const { return rebuilds_; }

 private:
  std::unique_ptr<ComparedReports> data_;
  uint64_t base_gen_ = 0, next_gen_ = 0;
  std::string policy_source_;
  int rebuilds_ = 0;
};

}  // namespace flashscope::viewer
