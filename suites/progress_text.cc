#include "suites/progress_text.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace flashscope::suites {
namespace {

std::string MinSec(double s) {
  const int total = static_cast<int>(s + 0.5);
  return absl::StrFormat("%d:%02d", total / 60, total % 60);
}

}  // namespace

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string ElapsedAndEta(double elapsed_s, int done, int left) {
  const double eta = elapsed_s / std::max(done, 1) * left;
  return absl::StrFormat("(elapsed %s, ETA %s)", MinSec(elapsed_s), MinSec(eta));
}

}  // namespace flashscope::suites
