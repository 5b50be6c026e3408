// Where a worker's wall time goes, case by case (issue 28: why two GPUs ran a suite only 1.23x as
// fast as one). With FLASHSCOPE_PHASE_TRACE=FILE in the environment of `flashscope run` (workers
// inherit it), every worker appends one JSON line per case to FILE:
//   {"key":…, "device":0, "pid":…, "start_unix_s":…, "total_s":…,
//    "segments":{"wait":…, "journal_started":…, "supports":…, "inputs":…, …, "journal_finished":…}}
// "wait" is the time the worker waited for the supervisor's RUN line before the case; the other
// segments are the case's phases (protocol/worker_protocol.h) and its two journal writes, each
// measured from its start to the start of the next. scripts/device/phase_trace.py sums them per
// run, so that a phase whose total grows with the number of GPUs shows what serialises. A worker
// that parks cases (runner/case_settle.cc) ends a parked case's line at "parked" and writes one
// more line per settle, keyed "settle of N cases": the wait before it (the worker's 20 ms of
// silence from the supervisor, when that is what started the settle), "settle_setup" (grouping
// the cases, up to the counter session's first step), the counter sessions' steps
// ("counters_sync", "counters_enable", …, "counters_decode": profiler::RangeProfiler's
// set_step_observer; "profiling" is then the launches' own hooks: fresh inputs, integrity, the
// L2 flush) and "concluding".
// Unset (the default), nothing is measured or written.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>

namespace flashscope::runner {

class PhaseTrace {
 public:
  // nullptr when FLASHSCOPE_PHASE_TRACE is unset or empty. A file that cannot be opened is said
  // once on stderr and nothing is traced: a diagnostic never fails a run.
  static std::unique_ptr<PhaseTrace> FromEnvironment(int device);
  ~PhaseTrace();
  PhaseTrace(const PhaseTrace&) = delete;
  PhaseTrace& operator=(const PhaseTrace&) = delete;

  // Closes the segment in progress (if any) and starts the one named `segment`.
  void Mark(const std::string& segment);
  // The case `key` begins: the segment in progress (the wait for its RUN line) becomes its first.
  void CaseBegins(const std::string& key);
  // The case ends: its line is appended (one write(), O_APPEND, so workers' lines never mix).
  void CaseEnds();

  // The JSON line of a case, for the test.
  static std::string FormatLine(const std::string& key, int device, long pid, double start_unix_s,
                                double total_s, const std::map<std::string, double>& segments);

 private:
  PhaseTrace(int fd, int device) : fd_(fd), device_(device) {}

  using Clock = std::chrono::steady_clock;
  int fd_;
  int device_;
  std::string key_;
  std::string segment_;
  Clock::time_point segment_start_{};
  Clock::time_point case_start_{};
  double case_start_unix_s_ = 0;
  std::map<std::string, double> segments_;
};

}  // namespace flashscope::runner
