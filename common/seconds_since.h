// Seconds of the steady clock since `t`: how long a step took, for the records that say where a
// run's time went (phase costs, a parked case's own wall time, the supervisor's limits).
#pragma once

#include <chrono>

namespace flashscope {

inline double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace flashscope
