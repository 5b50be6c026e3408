// How `flashscope` (the supervisor) and `flashscope-worker` talk, in one place: the worker's
// command line (a WorkerRequest, written by the supervisor and read by the worker), the progress
// lines the worker writes to a pipe while it works, the planning result it leaves in a file, and
// its exit codes. Neither side writes or parses these by hand anywhere else.
//
// Progress lines, one event each ("%" escapes newlines and "%" in the text):
//   LOAD <path>            about to load a plugin file (a crash now is that plugin's)
//   LOADED <path>          it loaded and passed validation
//   S <key>                case started
//   P <phase>              the case entered a phase (supports, inputs, launch, timing, ...)
//   P <phase><TAB><key>    case <key> entered a phase: the worker now runs that case's code (a
//                          parked case's later work, see below); the tab cannot occur in the
//                          escaped phase, so the two forms never read as each other
//   F <status> <key>       case finished with this status
//   SIDE <base|new>        ab: the kernel code about to run is this side's (a crash is its)
//   AB <text>              ab: the verdict of the pair just finished, in words
//   NOTE <text>            something worth a line on the terminal
//   FATAL <text>           the worker cannot go on (no GPU, a bad journal): do not restart it
//
// Commands, supervisor to worker, on the run's command channel (--command_fd), one per line:
//   RUN <key>              run this case of the journal's plan next (ab: this pair of the two
//                          journals' plans); end of input: exit
// so that the supervisor hands cases out to the workers of several GPUs as they free up
// (supervisor/device_scheduler.h). Up to the scheduler's window of RUN lines may be outstanding
// (sent, no F yet): a worker may start several cases, park them (everything done but the work
// counters), collect the counters of all of them at once and then finish them, saying `P phase
// key` for each step of a parked case's work and `F` for each in any order. A worker that dies
// costs the case its last S or keyed P named (when not finished); the others it held run again.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "reports/plan.h"

namespace flashscope::suites::protocol {

inline constexpr int kExitContextLost = 3;  // a kernel poisoned the CUDA context: start a new one
inline constexpr int kExitFatal = 4;        // no usable GPU or bad arguments: do not restart
inline constexpr int kExitBadPlugin = 5;    // a plugin was refused (message on stderr and FATAL)

enum class Command { kPlan, kRun, kList, kMetrics, kAb };

// A plugin file that crashed the process that loaded it: planned again without it.
struct LostPlugin {
  std::string path;
  std::string reason;
};

struct WorkerRequest {
  Command command = Command::kRun;
  int progress_fd = -1;  // where progress lines go; -1 = nowhere
  // plan, list
  std::vector<std::string> plugins;  // absolute paths, in load order
  // plan, ab: the two sides of a `flashscope ab` comparison (absolute paths); set = an ab plan
  std::string ab_base, ab_new;
  std::vector<LostPlugin> lost_plugins;
  // plan
  std::string suite_path;
  std::string kernels_filter;
  std::string shard;
  std::string plan_out;  // the planning result is written here (JSON, PlanningResult)
  // Ask each planned case's kernel whether it supports the problem (--dry_run marks the refused);
  // a real run asks in the worker that runs the case.
  bool check_supports = false;
  // list
  bool all = false;          // test-only kernels too
  bool plugin_only = false;  // only the kernels of plugin files (and kernels_filter narrows them)
  // run, ab: the plan is the journal header's
  std::string journal_path;
  int command_fd = -1;  // RUN lines come from here (see above); -1: the plan's cases, in order
  int device = 0;       // the GPU's index as the supervisor names it, recorded in each result
  std::string metrics;
  std::string dump_dir;
  std::vector<std::string> only_keys;  // run only these cases (the sanitizer's one-case reruns)
  bool sanitize_rerun = false;
  // ab: journal_path is the base side's journal, this the new side's; the coin's seed and the
  // verdict's thresholds (analysis/ab_verdict.h: the progress lines and when to stop sampling)
  std::string new_journal;
  uint64_t ab_seed = 0;
  double ab_alpha = 0.01, ab_min_effect = 0.005, ab_allowed_slowdown = 0.005;
  // metrics
  int cc = 0;
};

std::vector<std::string> WorkerArgv(const std::string& worker_exe, const WorkerRequest& request);
// argv as WorkerArgv wrote it (argv[0] is the program); errors say which argument is wrong.
absl::StatusOr<WorkerRequest> ParseWorkerArgv(const std::vector<std::string>& argv);

// ---- progress lines ----

enum class Event {
  kLoad,
  kLoaded,
  kCaseStarted,
  kPhase,
  kCaseFinished,
  kSide,
  kPairVerdict,
  kNote,
  kFatal
};

struct Message {
  Event event = Event::kNote;
  std::string key;     // kCaseStarted, kCaseFinished; kPhase: the case it is of ("" = current)
  std::string status;  // kCaseFinished
  std::string text;    // kLoad, kLoaded (the path), kPhase, kSide, kPairVerdict, kNote, kFatal
};

// The two sides of an ab comparison as SIDE lines name them: 0 base, 1 new.
inline constexpr const char* kSideNames[2] = {"base", "new"};
// The index of the side a SIDE line names; -1 for any other text.
int SideIndex(std::string_view name);

std::string FormatMessage(const Message& m);  // one line, without the newline
std::optional<Message> ParseMessage(std::string_view line);
// Writes the message and a newline to `fd` (nothing when fd < 0); a failed write only loses
// progress text, never a result (results go to the journal).
void Tell(int fd, const Message& m);
// The worker gives up: a FATAL line (the supervisor prints it), or the message on stderr when no
// one listens (fd < 0). Returns `exit_code`, for `return TellFatal(...)`.
int TellFatal(int fd, const std::string& message, int exit_code = kExitFatal);

// ---- commands (RUN lines) ----

std::string FormatRunCommand(const std::string& key);  // one line, without the newline
// The supervisor's word that its --deadline_s has passed: the worker finishes the case in hand and
// the cases it parked, records them, and runs no further RUN line (NextWithin says kEnd).
inline constexpr char kStopCommand[] = "STOP";
// The key of a RUN line; nullopt for anything else.
std::optional<std::string> ParseRunCommand(std::string_view line);

// What CommandReader::NextWithin found.
enum class CommandWait {
  kCommand,  // a RUN line: its key
  kNone,     // nothing within the time given: the channel is still open
  kEnd,      // the end of input: the supervisor has no more cases for this worker (or died)
};

// The worker's end of the command channel: the keys of the RUN lines, in order. A line that is
// not a command is said on stderr and skipped.
class CommandReader {
 public:
  explicit CommandReader(int fd) : fd_(fd) {}
  // The next case to run, waiting as long as it takes; nullopt at the end of input.
  std::optional<std::string> Next();
  // The next case to run if one is buffered or arrives within `timeout_ms` (< 0: no limit; 0:
  // only what is already there), in `key`. A parking worker asks this between cases: kNone says
  // that it may collect the counters of the cases it holds now.
  CommandWait NextWithin(int timeout_ms, std::string* key);

 private:
  // A complete line from the buffer, if one is there.
  std::optional<std::string> BufferedLine();
  // One read of the channel, waiting up to `wait_ms` (< 0: no limit) for it to hold something;
  // false when nothing came in that time. The end of input (or a failed read) ends the channel.
  bool Fill(int wait_ms);
  // True when a complete STOP line is among the buffered lines.
  bool StopBuffered() const;

  int fd_;
  std::string buffer_;
  bool ended_ = false;  // end of input seen: every later call says so at once
};

// ---- phases of a case (P lines) ----

// The phases a case goes through, in order. Those that run the kernel's own code (a plugin's)
// are marked: a worker that dies in one of them died in that code.
namespace phase {
inline constexpr char kSupports[] = "supports";                 // kernel code: supports()
inline constexpr char kInputs[] = "inputs";                     // inputs and reference
inline constexpr char kPrepare[] = "prepare";                   // kernel code: prepare()
inline constexpr char kLaunch[] = "launch";                     // kernel code: verified launch
inline constexpr char kVerify[] = "verify";                     // comparing with the reference
inline constexpr char kTiming[] = "timing";                     // kernel code: relaunches
inline constexpr char kDeviceFunctions[] = "device_functions";  // kernel code
inline constexpr char kProfiling[] = "profiling";               // kernel code: relaunches
inline constexpr char kConcluding[] = "concluding";  // deciding the trust checks on the counters
}  // namespace phase

// The reason recorded for a case whose worker died (`cause`: "signal 11 (Segmentation fault)")
// in `phase` (empty: before any) running a kernel of `provenance` (nullptr: unknown), e.g.
// "plugin /x/libfoo.so (foo 1.2) crashed in supports(): signal 11 (Segmentation fault)".
std::string CrashReason(const std::string& phase, const reports::ProvenanceRecord* provenance,
                        const std::string& cause);

// ---- the planning result (`plan` writes it to plan_out) ----

struct DeviceRecord {
  bool usable = false;
  std::string name;
  int cc = 0;          // compute capability × 10
  std::string reason;  // why not usable
};

struct PlanningResult {
  reports::PlanRecord plan;  // an ab plan: the base side's
  DeviceRecord device;       // CUDA's device 0 (the one a run without --devices uses), or why none
  // Every GPU the planning worker could see, by index, without peaks (docs/devices.md).
  std::vector<reports::DeviceRecord> devices;
  std::optional<reports::PlanRecord> ab_new;  // an ab plan: the new side's
  // With WorkerRequest::check_supports: case key -> what its kernel's supports() said, for each
  // case it refuses (on this machine's GPU, when there is one; the architecture is not checked
  // without one).
  std::map<std::string, std::string> refusals;
};

std::string PlanningResultToText(const PlanningResult& result);
absl::StatusOr<PlanningResult> PlanningResultFromText(const std::string& text);

}  // namespace flashscope::suites::protocol
