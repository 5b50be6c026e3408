#include "supervisor/device_scheduler.h"

#include <poll.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/seconds_since.h"
#include "protocol/worker_process.h"
#include "reports/devices.h"
#include "supervisor/case_queue.h"

namespace flashscope::suites {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kInterruptPollS = 0.25;  // how often job.interrupted is asked
// After --deadline_s, how long workers get at most to finish the case in hand and record the cases
// they parked before they are killed (each ends as soon as it has). A settle of 512 smoke cases
// takes ~2-4 s on an H200 (session 8); larger cases settle fewer at a time (2 GiB of parked
// workspaces), but a settle of a few hundred mid-sized cases can take several times that.
constexpr double kDeadlineDrainS = 20.0;

// A case handed to a worker (RUN sent) that it has not finished (no F yet).
struct InFlight {
  QueuedCase queued;
  Clock::time_point since;  // when it was handed out, then when the worker started it (S)
};

// One GPU of the run and the worker on it.
struct Slot {
  int id = 0;  // position in the job's devices: the queue's name for this GPU
  const DeviceSlot* device = nullptr;
  std::optional<WorkerProcess> worker;
  std::vector<InFlight> in_flight;  // in the order handed out
  bool commands_closed = false;     // the worker was told that no more cases come
  // The case whose code the worker runs now: the key of its last S or keyed P line. It stays set
  // after that case's F (then the worker is between cases: a death blames none).
  std::string current;
  // When the worker last made progress: a case handed out, started, finished, or a step of a
  // parked case begun (keyed P); or the worker was told to stop. The time limits count from it.
  Clock::time_point since;
  std::string phase;  // the phase of `current`
  std::string loading, fatal;
  int side = -1;              // ab: whose kernel code runs in the case in flight (SIDE)
  std::string summary;        // ab: the verdict of the pair just finished (AB)
  bool ran_any = false;       // this worker started a case (S, or a keyed P)
  bool finished_any = false;  // this worker finished a case (F)
  int failed_starts = 0;      // workers in a row that ended with nothing finished nor blamed
  bool retired = false;
};

std::vector<InFlight>::iterator FindInFlight(Slot& s, const std::string& key) {
  return std::find_if(s.in_flight.begin(), s.in_flight.end(),
                      [&](const InFlight& c) { return c.queued.key == key; });
}

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
  void OnStarted(Slot& s, const std::string& key);
  void OnFinished(Slot& s, const protocol::Message& m);
  void OnEnd(Slot& s, bool timed_out);
  void RecordDeath(Slot& s, const InFlight& c, int wait_status, bool timed_out);
  bool RecordLoadCrash(Slot& s, int wait_status, bool timed_out);
  void PutBackInFlight(Slot& s);
  void AfterEnd(Slot& s, bool had_case, bool recorded, int wait_status, bool timed_out);
  void Record(Slot& s, const LostCase& lost);
  size_t LiveSlots() const;
  std::vector<const reports::ProvenanceRecord*> PluginsOf(
      const reports::PlannedCaseRecord& c) const;
  void Retire(Slot& s, const std::string& why);
  double SecondsLeft(const Slot& s) const;
  double DeadlineLeft() const;
  void KillAll();
  bool DrainForDeadline();

  const ScheduleJob& job_;
  CaseQueue queue_;
  std::vector<Slot> slots_;
  std::map<std::string, const reports::PlannedCaseRecord*> by_key_;
  std::string last_retired_;  // why the last GPU left the run
  ScheduleResult result_;
  bool draining_ = false;  // the deadline passed: workers told to stop, none started
  Clock::time_point drain_end_;
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
  s.in_flight.clear();
  s.commands_closed = false;
  s.current.clear(), s.phase.clear(), s.loading.clear(), s.fatal.clear(), s.summary.clear();
  s.side = -1;
  s.ran_any = s.finished_any = false;
  Assign(s);
}

size_t Scheduler::LiveSlots() const {
  return static_cast<size_t>(
      std::count_if(slots_.begin(), slots_.end(), [](const Slot& o) { return !o.retired; }));
}

// Cases to the worker up to its window (EffectiveWindow), or, when it holds none and none is left
// for it, the end of its commands.
void Scheduler::Assign(Slot& s) {
  if (s.commands_closed) return;
  s.since = Clock::now();
  const size_t window =
      static_cast<size_t>(EffectiveWindow(job_.window, queue_.size(), LiveSlots()));
  while (s.in_flight.size() < window) {
    std::optional<QueuedCase> next = queue_.Next(s.id);
    if (!next) break;
    s.in_flight.push_back({*next, s.since});
    // A worker that died cannot be told; its end (read next) puts the case back.
    s.worker->Send(protocol::FormatRunCommand(next->key));
  }
  if (s.in_flight.empty()) {
    s.worker->CloseCommands();
    s.commands_closed = true;
  }
}

void Scheduler::OnStarted(Slot& s, const std::string& key) {
  s.since = Clock::now();
  if (auto c = FindInFlight(s, key); c != s.in_flight.end()) c->since = s.since;
  s.current = key;
  s.ran_any = true, s.phase.clear();
  s.side = -1, s.summary.clear();
}

// A case finished (the worker recorded it): out of the worker's hands, and the worker refilled.
// A parking worker may say F for several cases in a row, and S for the next case before the F
// of those it parked.
void Scheduler::OnFinished(Slot& s, const protocol::Message& m) {
  const Clock::time_point now = Clock::now();
  Clock::time_point from = s.since;
  if (auto c = FindInFlight(s, m.key); c != s.in_flight.end()) {
    from = c->since;
    s.in_flight.erase(c);
  }
  auto it = by_key_.find(m.key);
  if (it != by_key_.end() && job_.ended) {
    job_.ended({it->second, s.device, m.status, "",
                std::chrono::duration<double>(now - from).count(), s.summary});
  }
  s.since = now;
  s.finished_any = true;
  s.failed_starts = 0;
  Assign(s);
}

void Scheduler::OnMessage(Slot& s, const protocol::Message& m) {
  switch (m.event) {
    case protocol::Event::kCaseStarted:
      OnStarted(s, m.key);
      break;
    case protocol::Event::kSide:
      s.side = protocol::SideIndex(m.text);
      break;
    case protocol::Event::kPairVerdict:
      s.summary = m.text;
      break;
    case protocol::Event::kPhase:
      // Keyed: a step of that case's work (a parked one's); its limit starts now.
      if (!m.key.empty()) s.current = m.key, s.ran_any = true, s.since = Clock::now();
      s.phase = m.text;
      break;
    case protocol::Event::kCaseFinished:
      OnFinished(s, m);
      break;
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

// The worker died (or hung) loading a plugin: every case of that plugin's kernels still queued or
// in the worker's hands is an error (the next worker would only crash the same way); the other
// cases it held go back to the queue (OnEnd). Returns whether it recorded any.
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
  for (const InFlight& c : s.in_flight) {
    if (keys.count(c.queued.key)) cases.push_back(c.queued);
  }
  s.in_flight.erase(std::remove_if(s.in_flight.begin(), s.in_flight.end(),
                                   [&](const InFlight& c) { return keys.count(c.queued.key); }),
                    s.in_flight.end());
  for (const QueuedCase& c : cases) {
    LostCase lost{by_key_.at(c.key), s.device, reports::CaseStatus::kError, reason, 0};
    lost.loading_plugin = s.loading;
    Record(s, lost);
  }
  return !cases.empty();
}

// The worker died or hung running case `c`: recorded with the phase and whose code ran.
void Scheduler::RecordDeath(Slot& s, const InFlight& c, int wait_status, bool timed_out) {
  const reports::PlannedCaseRecord& planned = *by_key_.at(c.queued.key);
  // Whose code ran: the case's plugin, or for ab the side the worker last named (none: the
  // process's fault, not a plugin's).
  const std::vector<const reports::ProvenanceRecord*> plugins = PluginsOf(planned);
  const reports::ProvenanceRecord* from = plugins.size() == 1 ? plugins[0]
                                          : s.side >= 0 && s.side < static_cast<int>(plugins.size())
                                              ? plugins[static_cast<size_t>(s.side)]
                                              : nullptr;
  const std::string reason =
      timed_out ? absl::StrFormat("exceeded the %s time limit of %.0f s and was killed (%s)",
                                  job_.unit, job_.case_limit_s, job_.limit_hint)
                : protocol::CrashReason(s.phase, from, CauseOfDeath(wait_status));
  LostCase lost{&planned, s.device,
                timed_out ? reports::CaseStatus::kTimeout : reports::CaseStatus::kError, reason,
                timed_out ? job_.case_limit_s : SecondsSince(c.since)};
  lost.side = s.side;
  Record(s, lost);
}

// The cases the worker held and did not finish go back to the front of the queue, in the order
// they were handed out: the worker records a case only when it finishes it, so their work is lost
// and another worker runs them.
void Scheduler::PutBackInFlight(Slot& s) {
  for (auto c = s.in_flight.rbegin(); c != s.in_flight.rend(); ++c) queue_.PutBack(c->queued);
  s.in_flight.clear();
}

// The worker ended: the case its code was running (`current`, when not finished) alone is
// blamed; a worker that died loading a plugin costs that plugin's cases; everything else it held
// runs again elsewhere.
void Scheduler::OnEnd(Slot& s, bool timed_out) {
  const int status = s.worker->Wait();
  const bool had_case = !s.in_flight.empty();
  bool recorded = false;
  if (auto blamed = FindInFlight(s, s.current); blamed != s.in_flight.end()) {
    const InFlight lost = *blamed;
    s.in_flight.erase(blamed);
    RecordDeath(s, lost, status, timed_out);
    recorded = true;
  } else if (had_case && !s.loading.empty() && (DiedOfSignal(status) || timed_out)) {
    recorded = RecordLoadCrash(s, status, timed_out);
  }
  PutBackInFlight(s);
  queue_.Leave(s.id);
  s.worker.reset();
  s.current.clear();
  AfterEnd(s, had_case, recorded, status, timed_out);
}

// Whether the GPU gets another worker: not after FATAL, nor after two workers in a row that ended
// with work in hand and neither finished a case nor could be blamed for one (a worker that cannot
// start; without this, their cases would be put back for ever).
void Scheduler::AfterEnd(Slot& s, bool had_case, bool recorded, int status, bool timed_out) {
  if (draining_) return;  // told to stop: its unstarted cases wait for --resume
  if (!s.fatal.empty()) {
    Retire(s, s.fatal);  // the worker said not to start it again
  } else if (s.finished_any || recorded || !had_case) {
    s.failed_starts = 0;
  } else if (timed_out && !s.ran_any) {
    Retire(s, absl::StrCat("the worker did not start a case within ", kWorkerStartupLimitS, " s"));
  } else if (++s.failed_starts >= 2) {
    Retire(s, absl::StrCat("flashscope-worker ", DescribeExit(status),
                           s.ran_any ? " without finishing a case, twice; giving up"
                                     : " before running any case, twice; giving up"));
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

// The start-up limit while the worker holds cases and has started none (its process's start,
// loading plugins, measuring peaks), else the case limit for the step in progress.
double Scheduler::SecondsLeft(const Slot& s) const {
  const double limit =
      !s.in_flight.empty() && !s.ran_any ? kWorkerStartupLimitS : job_.case_limit_s;
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

// The deadline has passed: each worker is told to stop (it finishes the case in hand, records
// the cases it parked and ends), and given kDeadlineDrainS to do so; false once that is over.
bool Scheduler::DrainForDeadline() {
  if (!draining_) {
    draining_ = true;
    drain_end_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(kDeadlineDrainS));
    for (Slot& s : slots_) {
      if (!s.worker || s.commands_closed) continue;
      s.worker->Send(protocol::kStopCommand);
      s.worker->CloseCommands();
      s.commands_closed = true;
    }
  }
  return Clock::now() < drain_end_;
}

ScheduleResult Scheduler::Run() {
  while (result_.failure.empty()) {
    for (Slot& s : slots_) {
      // Only for a case it can take: the last case of another GPU's problem is that GPU's.
      if (!s.retired && !s.worker && !draining_ && queue_.HasCaseFor(s.id) &&
          result_.failure.empty()) {
        Start(s);
      }
    }
    std::vector<pollfd> fds;
    double wait_s = draining_ ? std::chrono::duration<double>(drain_end_ - Clock::now()).count()
                              : DeadlineLeft();
    for (const Slot& s : slots_) {
      if (!s.worker) continue;
      fds.push_back({s.worker->progress_fd(), POLLIN, 0});
      wait_s = std::min(wait_s, SecondsLeft(s));
    }
    if (fds.empty()) {
      if (draining_) {
        result_.stopped_by_deadline = true;  // every worker stopped in time
      } else if (!queue_.empty() && result_.failure.empty()) {
        result_.failure = last_retired_;
      }
      break;
    }
    if (DeadlineLeft() <= 0 && !DrainForDeadline()) {
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

int EffectiveWindow(int window, size_t cases_left, size_t live_gpus) {
  // One GPU has no other to finish with: each narrower refill would only add a settle, whose
  // counter sessions cost ~0.2-0.5 s each (session 8, call 1: 14 of smoke's 24 settles were the
  // tail's, of 1-22 cases).
  if (live_gpus <= 1) return std::max(1, window);
  const size_t share = cases_left / (2 * std::max<size_t>(1, live_gpus));
  return static_cast<int>(
      std::min<size_t>(static_cast<size_t>(std::max(1, window)), std::max<size_t>(1, share)));
}

}  // namespace flashscope::suites
