#include "supervisor/run_progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "absl/strings/str_format.h"
#include "common/seconds_since.h"
#include "reports/text_safety.h"

namespace flashscope::suites {

double EtaSeconds(double case_seconds, int cases, int remaining, int gpus) {
  if (cases <= 0 || remaining <= 0) return 0;
  const double waves = std::ceil(static_cast<double>(remaining) / std::max(gpus, 1));
  return case_seconds / cases * waves;
}

std::string MinSec(double s) {
  const int total = static_cast<int>(s + 0.5);
  return absl::StrFormat("%d:%02d", total / 60, total % 60);
}

void RunProgress::Ended(const CaseEnded& e) {
  ++finished_;
  if (e.wall_s > 0) ++timed_, case_seconds_ += e.wall_s;
  const std::string gpu =
      e.device == nullptr ? "" : absl::StrFormat("  on gpu %d", e.device->device.index);
  if (!e.reason.empty()) {
    std::fprintf(stderr, "[%d/%d] %-8s %s%s: %s\n", finished_, total_, e.status.c_str(),
                 reports::text::TerminalSafe(e.planned->key).c_str(), gpu.c_str(),
                 reports::text::TerminalSafe(e.reason).c_str());
    return;
  }
  if (quiet_) return;
  const double elapsed = SecondsSince(start_);
  const double eta = EtaSeconds(case_seconds_, timed_, total_ - finished_, gpus_);
  std::fprintf(stderr, "[%d/%d] %-8s %s%s  (elapsed %s, ETA %s)\n", finished_, total_,
               e.status.c_str(), reports::text::TerminalSafe(e.planned->key).c_str(), gpu.c_str(),
               MinSec(elapsed).c_str(), MinSec(eta).c_str());
}

}  // namespace flashscope::suites
