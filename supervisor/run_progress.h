// The progress lines of a run, one per case on stderr, with the GPU that ran it and an ETA that
// counts the GPUs working at once:
//   [12/48] passed   attn.a07_direct_rescale attention_fwd{...}  on gpu 1  (elapsed 1:02, ETA 3:10)
//   [13/48] error    test.oob_write attention_fwd{...}  on gpu 0: kernel: cudaErrorIllegalAddress
//   ...
#pragma once

#include <chrono>
#include <string>

#include "supervisor/device_scheduler.h"

namespace flashscope::suites {

// Seconds left for `remaining` cases when `cases` took `case_seconds` in all and `gpus` run at
// once: the mean case time per wave of `gpus` cases (0 when nothing was timed yet).
double EtaSeconds(double case_seconds, int cases, int remaining, int gpus);

// "1:02".
std::string MinSec(double seconds);

class RunProgress {
 public:
  // `finished` cases of `total` were in the journal before this run started.
  RunProgress(int total, int finished, int gpus, bool quiet,
              std::chrono::steady_clock::time_point start)
      : total_(total), finished_(finished), gpus_(gpus), quiet_(quiet), start_(start) {}

  // Prints the case's line (always for a case with a reason; else unless quiet).
  void Ended(const CaseEnded& ended);

 private:
  int total_, finished_, gpus_;
  bool quiet_;
  std::chrono::steady_clock::time_point start_;
  int timed_ = 0;  // cases of this run with a wall time
  double case_seconds_ = 0;
};

}  // namespace flashscope::suites
