// Consistency of a record with itself, checked when a report is loaded (docs/report-schema.md,
// "Checks on load") and again by compare before a timing is judged, so that a report built in
// memory is held to the same rule as one read from a file.
#pragma once

#include <string>

#include "reports/report.h"

namespace flashscope::reports {

// "" when the timing agrees with its own raw samples, else what contradicts what. A median
// outside the samples' range, or a min_ms that is not the smallest sample, cannot come from those
// samples (every committed report agrees exactly; only an edited or damaged file disagrees).
// Without samples, or with a non-finite sample, there is nothing to check here (compare refuses
// to judge such a timing for its own reasons).
std::string TimingContradiction(const TimingRecord& t);

}  // namespace flashscope::reports
