// "Why" a case got slower or faster: the hardware counters and resource records of its two sides
// set beside each other, ranked by how much each moved, in one line:
//   "+4.1%: DRAM bytes +38%, L2 hit -20 pp; registers 128 -> 168, occupancy 50% -> 25%
//    (correlation: these moved with the time; not proven causes)"
// Only what was collected on both sides is shown: a metric of one side alone, or a side run
// without --metrics, says nothing. Used for the change points of a history (docs/history.md) and
// for the slower/faster cases of `flashscope ab` (docs/gating.md).
#pragma once

#include <string>
#include <vector>

#include "reports/report.h"

namespace flashscope::reports {

struct MovedQuantity {
  std::string label;  // "DRAM bytes", "registers"
  std::string text;   // "DRAM bytes +38%", "L2 hit -20 pp", "registers 128 -> 168"
  double before = 0, after = 0;
  // How much it moved, for ranking: |after - before| / 100 for a percentage (percentage points),
  // else |after - before| / max(|before|, |after|) (a symmetric relative change in [0, 1]).
  double moved = 0;
};

struct ChangeExplanation {
  double change = 0;                     // the time's relative change this explains
  std::vector<MovedQuantity> counters;   // hardware counters on both sides, most moved first
  std::vector<MovedQuantity> resources;  // registers, shared memory, spills, occupancy, threads
  bool counters_on_both = false;         // both sides were profiled
  bool resources_on_both = false;        // both sides have resource records
  // The one line; says what was not available when nothing could be compared.
  std::string Line() const;
};

// Counters that moved less than this (relative, or in percentage points / 100) are left out:
// profiler noise between two runs of the same binary is about that size.
inline constexpr double kExplainMinMoved = 0.02;
// The most counters the line names.
inline constexpr int kExplainMaxCounters = 5;

// `change` is the time's relative change (after / before - 1) decided elsewhere (a change point,
// an ab verdict).
ChangeExplanation ExplainChange(const CaseResult& before, const CaseResult& after, double change);

}  // namespace flashscope::reports
