// Reports of a synthetic history with planted steps, for the history tests (cli/tests,
// history/tests, viewer/tests): revision i of every series is a report "rev%02d" whose cases
// carry 20 noisy samples around their level, a profile whose DRAM bytes and L2 hit rate move with
// the level, and a resource record whose registers grow at every slowdown. All marked synthetic.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "reports/report.h"

namespace flashscope::history::testing {

struct PlantedSeries {
  std::string kernel_id;
  std::vector<std::pair<int, double>> steps;  // (first revision at the new level, relative size)
};

// "rev07".
std::string RevisionName(int index);

// The report of revision `index`: one case per series on problem "attention_fwd{B=4,H=8,S=1024,
// D=64,fp16}", level 1 ms times every step reached, run-to-run and sample noise `noise`. The
// report's git revision is RevisionName(index) and its cases record no plugin, so `history add`
// files them under that revision.
reports::Report SyntheticHistoryReport(int index, const std::vector<PlantedSeries>& series,
                                       double noise, std::mt19937_64& rng);

}  // namespace flashscope::history::testing
