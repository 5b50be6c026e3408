// Runs a plan's cases on the GPUs of a run (docs/devices.md): one flashscope-worker per GPU,
// pinned to it when the run names devices (supervisor/device_selection.h), each fed cases from one
// problem-major queue (supervisor/case_queue.h) over its command channel, up to a window of them
// at a time (ScheduleJob::window), so that every GPU stays busy and each problem's inputs and
// reference are made once per GPU that takes it. A worker that faults, crashes or hangs costs the
// case it was running (recorded through `record`, with the phase and, for a plugin's kernel, the
// plugin) and is replaced on its own GPU; the other cases it held run again; the other GPUs go
// on. A GPU whose worker says FATAL, or dies twice before starting a case, is
// taken out of the run; the run fails only when no GPU is left. `flashscope run` schedules
// through this; `flashscope ab` can too, with its own requests and recorders.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "protocol/worker_protocol.h"
#include "reports/plan.h"
#include "supervisor/device_selection.h"

namespace flashscope::suites {

// A case that ended, for progress lines.
struct CaseEnded {
  const reports::PlannedCaseRecord* planned = nullptr;
  const DeviceSlot* device = nullptr;
  std::string status;   // as recorded: passed, failed, skipped, error, timeout (ab: "base/new")
  std::string reason;   // set for a case recorded here (its worker died or hung in it)
  double wall_s = 0;    // from its start to its end, as seen by the supervisor
  std::string summary;  // ab: the pair's verdict in words (its worker's AB line)
  int side = -1;        // ab, a case recorded here: the side whose code ran (-1: none said)
};

// A case its worker could not record: it died or hung in it, or died loading a plugin it needs.
struct LostCase {
  const reports::PlannedCaseRecord* planned = nullptr;
  const DeviceSlot* device = nullptr;
  reports::CaseStatus status = reports::CaseStatus::kError;  // error, or timeout
  std::string reason;
  double wall_s = 0;
  int side = -1;               // ab: whose kernel code ran (the worker's last SIDE line); -1: none
  std::string loading_plugin;  // the plugin file the worker died or hung loading, if it did
};

struct ScheduleJob {
  std::string worker_exe;
  const reports::PlanRecord* plan = nullptr;
  std::vector<const reports::PlannedCaseRecord*> cases;  // to run, in plan order
  std::vector<DeviceSlot> devices;
  // The limit applies to each step the worker reports for a case: from its S to its next keyed P
  // line (a parked case's later work) or its F.
  double case_limit_s = 300;
  double deadline_s = 0;  // counted from `start`; 0 = none
  // The most cases a worker may hold at once (RUN sent, F not yet received): 1 hands out one case
  // at a time; more lets a worker park several cases and collect their hardware counters in one
  // session (`flashscope run`: supervisor/run_window.h). Each refill narrows it so that the GPUs
  // still finish together: EffectiveWindow below.
  int window = 1;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  // What a case is called in a timeout's reason ("pair" for ab) and how to raise its limit.
  std::string unit = "case";
  std::string limit_hint = "raise it with --case_timeout_s or the suite's case_timeout_s";
  // The request of a worker on `device` (its command, journal, options); the scheduler adds the
  // command channel and the device index, and pins the process.
  std::function<protocol::WorkerRequest(const DeviceSlot& device)> request;
  // The plugins whose code a case runs, by side: one for `run` (unset: its kernel's provenance in
  // `plan`), the base and the new side's for `ab`, whose worker says which side's code runs
  // (SIDE lines). A worker that dies loading one of them cannot run the case.
  std::function<std::vector<const reports::ProvenanceRecord*>(const reports::PlannedCaseRecord& c)>
      plugins_of;
  // Records a case its worker could not: it died or hung in it, or a plugin crashed the worker
  // while loading.
  std::function<absl::Status(const LostCase& lost)> record;
  // Told of every case that ended, whoever recorded it.
  std::function<void(const CaseEnded& ended)> ended;
  // A line for the terminal: a worker's NOTE, a GPU taken out of the run.
  std::function<void(const DeviceSlot& device, const std::string& text)> note;
  // Polled a few times a second when set; true: every worker is killed and the run stops, the
  // cases in flight unrecorded (ab stops so on a signal).
  std::function<bool()> interrupted;
};

struct ScheduleResult {
  bool stopped_by_deadline = false;  // the cases in flight were killed, unrecorded
  bool interrupted = false;          // stopped because job.interrupted() said so; likewise
  // Why the run could not go on, "" when it ran every case: no GPU is left (the last one's
  // reason), or a case could not be recorded.
  std::string failure;
};

ScheduleResult RunOnDevices(const ScheduleJob& job);

// The window a worker is refilled up to when `cases_left` cases are queued and `live_gpus` GPUs
// are still in the run: min(window, max(1, cases_left / (2 * live_gpus))). No GPU holds more than
// half of an even share of what is left, so that as the queue drains the windows shrink to one
// case and no GPU sits on a batch while another idles; window 1 stays 1. With one GPU (or none
// left) the window stays whole: there is no other GPU to wait for.
int EffectiveWindow(int window, size_t cases_left, size_t live_gpus);

// The time limit for a worker's first case: it covers the process's start, loading plugins and
// measuring the GPU's peaks.
inline constexpr double kWorkerStartupLimitS = 900;

}  // namespace flashscope::suites
