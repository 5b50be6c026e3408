// What the supervisors' progress lines share (`run`: suites/worker_session.cc, `ab`:
// suites/ab_session.cc): seconds since a moment, and the elapsed time and ETA in m:ss.
#pragma once

#include <chrono>
#include <string>

namespace flashscope::suites {

double SecondsSince(std::chrono::steady_clock::time_point t);

// "(elapsed 1:05, ETA 3:10)": the ETA from the mean time of the `done` cases so far, for `left`.
std::string ElapsedAndEta(double elapsed_s, int done, int left);

}  // namespace flashscope::suites
