// How many cases `flashscope run` lets one worker hold at once (ScheduleJob::window,
// supervisor/device_scheduler.h). A worker that collects no hardware metrics for the report parks
// each case once all but its work counters are measured (the trust check `work`), and collects
// the counters of every case it holds in one CUPTI session: its fixed cost, about six passes of
// ~12 ms of host work, is then paid once per batch instead of once per case. A worker that must
// collect the run's metrics profiles each case on its own, so it gets one case at a time.
#pragma once

#include <string>

#include "suites/suite.h"

namespace flashscope::suites {

// The window of a run whose worker parks its cases. The supervisor sends that many RUN lines at
// most (a few tens of kB: far below a socket's buffer) and narrows it as the queue drains.
inline constexpr int kRunWindow = 1024;

// Whether the workers of a run with `metrics` (--metrics; "" = the suite's) park their cases: no
// metric is asked (the run's spec is empty or "none", as the worker reads it) and the suite does
// not switch the trust check `work` off (then there are no counters to collect at all).
bool WorkerParksCases(const std::string& metrics, const Suite& suite);

// kRunWindow when the workers park their cases, else 1.
int RunWindow(const std::string& metrics, const Suite& suite);

}  // namespace flashscope::suites
