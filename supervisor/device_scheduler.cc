#include "supervisor/device_scheduler.h"

#include <poll.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "protocol/worker_process.h"
#include "reports/devices.h"
#include "supervisor/case_queue.h"

namespace flashscope::suites {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kInterruptPollS = 0.25;  // how often job.interrupted is asked

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// One GPU of the run and the worker on it.
struct Slot {
  int id = 0;  // position in the job's devices: the queue's name for this GPU
  const DeviceSlot* device = nullptr;
  std::optional<WorkerProcess> worker;
  std::optional<QueuedCase> assigned;  // handed to the worker (RUN sent)
  bool started = false;                // ... and it said S for it
  Clock::time_point since;  // when it was handed out, started, or the worker told to stop
  std::string phase, loading, fatal;
  int side = -1;         // ab: whose kernel code runs in the case in flight (SIDE)
  std::string summary;   // ab: the verdict of the pair just finished (AB)
  bool ran_any = false;  // this worker started a case
  int failed_starts = 0;
  bool retired = false;
};

class Scheduler {
 public:
  explicit Scheduler(const ScheduleJob& job) : job_(job), queue_(Queued(job)) {
    for (const auto* c : job.cases) by_key_[c->key] = c;
    for (size_t i = 0; i < job.devices.size(); ++i) {
      slots_.emplace_back();
      slots_.back().id = static_cast<int>(i);
      slots_.back().device = &job.devices[i];
    }
  }

  ScheduleResult Run();

 private:
  static std::vector<QueuedCase> Queued(const ScheduleJob& job) {
    std::vector<QueuedCase> cases;
    for (const auto* c : job.cases) cases.push_back({c->key, ProblemKey(c->problem)});
    return cases;
  }
  void Start(Slot& s);
  void Assign(Slot& s);
  void Drain(Slot& s);
  void OnMessage(Slot& s, const protocol::Message& m);
  void OnEnd(Slot& s, bool timed_out);
  bool RecordLoadCrash(Slot& s, int wait_status, bool timed_out);
  void Record(Slot& s, const LostCase& lost);
  std::vector<const reports::ProvenanceRecord*> PluginsOf(
      const reports::PlannedCaseRecord& c) const;
  void Retire(Slot& s, const std::string& why);
  double SecondsLeft(const Slot& s) const;
  double DeadlineLeft() const;
  void KillAll();

  const ScheduleJob& job_;
  CaseQueue queue_;
  std::vector<Slot> slots_;
  std::map<std::string, const reports::PlannedCaseRecord*> by_key_;
  std::string last_retired_;  // why the last GPU left the run
  ScheduleResult result_;
};

void Scheduler::Start(Slot& s) {
  protocol::WorkerRequest request = job_.request(*s.device);
  request.device = s.device->device.index;
  WorkerStartOptions options;
  options.commands = true;
  options.environment = PinningEnvironment(*s.device);
  options.cpus = s.device->cpus;
  auto worker = WorkerProcess::Start(job_.worker_exe, request, options);
  if (!worker.ok()) {
    result_.failure = std::string(worker.status().message());
    return;
  }
  s.worker.emplace(*std::move(worker));
  s.phase.clear(), s.loading.clear(), s.fatal.clear(), s.summary.clear();
  s.side = -1;
  s.ran_any = false;
  Assign(s);
}

// The next case to the worker, or, when none is left for it, the end of its commands.
void Scheduler::Assign(Slot& s) {
  s.started = false;
  s.since = Clock::now();
  s.assigned = queue_.Next(s.id);
  if (!s.assigned) {
    s.worker->CloseCommands();
    return;
  }
  // A worker that died cannot be told; its end (read next) puts the case back.
  s.worker->Send(protocol::FormatRunCommand(s.assigned->key));
}

void Scheduler::OnMessage(Slot& s, const protocol::Message& m) {
  switch (m.event) {
    case protocol::Event::kCaseStarted:
      s.started = true, s.ran_any = true, s.phase.clear(), s.since = Clock::now();
      s.side = -1, s.summary.clear();
      break;
    case protocol::Event::kSide:
      s.side = protocol::SideIndex(m.text);
      break;
    case protocol::Event::kPairVerdict:
      s.summary = m.text;
      break;
    case protocol::Event::kPhase:
      s.phase = m.text;
      break;
    case protocol::Event::kCaseFinished: {
      auto it = by_key_.find(m.key);
      if (it != by_key_.end() && job_.ended) {
        job_.ended({it->second, s.device, m.status, "", SecondsSince(s.since), s.summary});
      }
      s.failed_starts = 0;
      Assign(s);
      break;
    }
    case protocol::Event::kLoad:
      s.loading = m.text;
      break;
    case protocol::Event::kLoaded:
      s.loading.clear();
      break;
    case protocol::Event::kNote:
      if (job_.note) {
        // "measuring device peaks" once per GPU: say which.
        job_.note(*s.device, slots_.size() > 1
                                 ? absl::StrCat("gpu ", s.device->device.index, ": ", m.text)
                                 : m.text);
      }
      break;
    case protocol::Event::kFatal:
      s.fatal = m.text;
      break;
  }
}

void Scheduler::Drain(Slot& s) {
  protocol::Message m;
  while (s.worker) {
    const auto read = s.worker->Next(0, &m);
    if (read == WorkerProcess::Read::kMessage) {
      OnMessage(s, m);
      continue;
    }
    if (read == WorkerProcess::Read::kEnded) OnEnd(s, /*timed_out=*/false);
    return;
  }
}

void Scheduler::Record(Slot& s, const LostCase& lost) {
  if (absl::Status st = job_.record(lost); !st.ok()) {
    result_.failure = std::string(st.message());
    return;
  }
  if (job_.ended) {
    job_.ended({lost.planned, s.device, reports::CaseStatusName(lost.status), lost.reason,
                lost.wall_s, "", lost.side});
  }
}

std::vector<const reports::ProvenanceRecord*> Scheduler::PluginsOf(
    const reports::PlannedCaseRecord& c) const {
  if (job_.plugins_of) return job_.plugins_of(c);
  return {job_.plan->ProvenanceOf(c.kernel_id)};
}

// The worker died (or hung) loading a plugin: every case of that plugin's kernels still queued is
// an error (the next worker would only crash the same way). Returns whether it recorded any.
bool Scheduler::RecordLoadCrash(Slot& s, int wait_status, bool timed_out) {
  const std::string reason =
      timed_out ? absl::StrCat("plugin ", s.loading, " hung while loading (killed after ",
                               kWorkerStartupLimitS, " s)")
                : absl::StrCat("plugin ", s.loading,
                               " crashed while loading: ", CauseOfDeath(wait_status));
  std::set<std::string> keys;
  for (const auto& [key, c] : by_key_) {
    for (const reports::ProvenanceRecord* from : PluginsOf(*c)) {
      if (from != nullptr && from->path == s.loading) keys.insert(key);
    }
  }
  std::vector<QueuedCase> cases = queue_.Remove(keys);
  if (s.assigned && keys.count(s.assigned->key)) {
    cases.push_back(*s.assigned);
  } else if (s.assigned) {
    queue_.PutBack(*s.assigned);
  }
  s.assigned.reset();
  for (const QueuedCase& c : cases) {
    LostCase lost{by_key_.at(c.key), s.device, reports::CaseStatus::kError, reason, 0};
    lost.loading_plugin = s.loading;
    Record(s, lost);
  }
  return !cases.empty();
}

void Scheduler::OnEnd(Slot& s, bool timed_out) {
  const int status = s.worker->Wait();
  const bool had_case = s.assigned.has_value();
  bool recorded = false;
  if (s.assigned && s.started) {
    const reports::PlannedCaseRecord& c = *by_key_.at(s.assigned->key);
    // Whose code ran: the case's plugin, or for ab the side the worker last named (none: the
    // process's fault, not a plugin's).
    const std::vector<const reports::ProvenanceRecord*> plugins = PluginsOf(c);
    const reports::ProvenanceRecord* from =
        plugins.size() == 1 ? plugins[0]
        : s.side >= 0 && s.side < static_cast<int>(plugins.size())
            ? plugins[static_cast<size_t>(s.side)]
            : nullptr;
    const std::string reason =
        timed_out ? absl::StrFormat("exceeded the %s time limit of %.0f s and was killed (%s)",
                                    job_.unit, job_.case_limit_s, job_.limit_hint)
                  : protocol::CrashReason(s.phase, from, CauseOfDeath(status));
    LostCase lost{&c, s.device,
                  timed_out ? reports::CaseStatus::kTimeout : reports::CaseStatus::kError, reason,
                  timed_out ? job_.case_limit_s : SecondsSince(s.since)};
    lost.side = s.side;
    Record(s, lost);
    recorded = true;
  } else if (s.assigned && !s.loading.empty() && (DiedOfSignal(status) || timed_out)) {
    recorded = RecordLoadCrash(s, status, timed_out);
  } else if (s.assigned) {
    queue_.PutBack(*s.assigned);  // it never started: another worker runs it
  }
  queue_.Leave(s.id);
  s.worker.reset();
  s.assigned.reset();
  s.started = false;
  if (!s.fatal.empty()) {
    Retire(s, s.fatal);  // the worker said not to start it again
  } else if (s.ran_any || recorded || !had_case) {
    s.failed_starts = 0;
  } else if (timed_out) {
    Retire(s, absl::StrCat("the worker did not start a case within ", kWorkerStartupLimitS, " s"));
  } else if (++s.failed_starts >= 2) {
    Retire(s, absl::StrCat("flashscope-worker ", DescribeExit(status),
                           " before running any case, twice; giving up"));
  }
}

void Scheduler::Retire(Slot& s, const std::string& why) {
  s.retired = true;
  last_retired_ = why;
  const bool others =
      std::any_of(slots_.begin(), slots_.end(), [](const Slot& o) { return !o.retired; });
  if (others && job_.note) {
    job_.note(*s.device, absl::StrCat(reports::DeviceText(s.device->device),
                                      " is taken out of the run: ", why, "; the other GPUs go on"));
  }
}

double Scheduler::SecondsLeft(const Slot& s) const {
  const double limit =
      s.assigned && !s.started && !s.ran_any ? kWorkerStartupLimitS : job_.case_limit_s;
  return limit - SecondsSince(s.since);
}

double Scheduler::DeadlineLeft() const {
  return job_.deadline_s > 0 ? job_.deadline_s - SecondsSince(job_.start) : 1e9;
}

// The cases in flight stay unrecorded: --resume runs them again.
void Scheduler::KillAll() {
  for (Slot& s : slots_) {
    if (!s.worker) continue;
    s.worker->Kill();
    s.worker->Wait();
    s.worker.reset();
  }
}

ScheduleResult Scheduler::Run() {
  while (result_.failure.empty()) {
    for (Slot& s : slots_) {
      // Only for a case it can take: the last case of another GPU's problem is that GPU's.
      if (!s.retired && !s.worker && queue_.HasCaseFor(s.id) && result_.failure.empty()) Start(s);
    }
    std::vector<pollfd> fds;
    double wait_s = DeadlineLeft();
    for (const Slot& s : slots_) {
      if (!s.worker) continue;
      fds.push_back({s.worker->progress_fd(), POLLIN, 0});
      wait_s = std::min(wait_s, SecondsLeft(s));
    }
    if (fds.empty()) {
      if (!queue_.empty() && result_.failure.empty()) result_.failure = last_retired_;
      break;
    }
    if (DeadlineLeft() <= 0) {
      KillAll();
      result_.stopped_by_deadline = true;
      break;
    }
    if (job_.interrupted) wait_s = std::min(wait_s, kInterruptPollS);
    poll(fds.data(), fds.size(), static_cast<int>(std::clamp(wait_s, 0.0, 3600.0) * 1000) + 1);
    if (job_.interrupted && job_.interrupted()) {
      KillAll();
      result_.interrupted = true;
      break;
    }
    for (Slot& s : slots_) {
      if (s.worker) Drain(s);
      if (s.worker && SecondsLeft(s) <= 0) {
        s.worker->Kill();
        OnEnd(s, /*timed_out=*/true);
      }
    }
  }
  if (!result_.failure.empty()) KillAll();
  return result_;
}

}  // namespace

ScheduleResult RunOnDevices(const ScheduleJob& job) { return Scheduler(job).Run(); }

}  // namespace flashscope::suites
