// A run's journal: JSON Lines, one line per event, each appended with one write() and fsync'd
// before the call returns, so that a crash (even SIGKILL, even a power loss) loses nothing that
// was already measured. A run that died can be turned into a report (complete = false) or
// resumed from it. Format: docs/report-schema.md, "Journal".
//
// Several processes append to one journal at once (the supervisor and one worker per GPU,
// docs/devices.md): each line is written under an exclusive flock() of the file and read under a
// shared one, so that lines never interleave (not even on NFS, where O_APPEND alone is not
// atomic, nor after a short write) and a reader never sees a line that is still being written.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "reports/plan.h"
#include "reports/report.h"

namespace flashscope::reports {

inline constexpr char kJournalSchemaName[] = "flashscope.journal";
inline constexpr int kJournalSchemaVersion = 1;

class JournalWriter {
 public:
  // Creates `path` (truncating it unless `append`). With `append`, a last line cut short by a
  // crash is closed with a newline first, so the new lines parse.
  static absl::StatusOr<JournalWriter> Open(const std::string& path, bool append);
  // Creates `path` as a new journal and never touches an existing file: AlreadyExists names it
  // (a run's journal holds results nothing else keeps; issue 23).
  static absl::StatusOr<JournalWriter> Create(const std::string& path);

  JournalWriter(JournalWriter&& other) noexcept;
  JournalWriter& operator=(JournalWriter&& other) noexcept;
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;
  ~JournalWriter();

  // {"type":"header","schema":"flashscope.journal","schema_version":1,"suite":{...},
  //  "command_line":...,"started_at":...[,"plan":{...}]}
  absl::Status WriteHeader(const SuiteRecord& suite, const std::string& command_line,
                           const std::string& started_at, const PlanRecord* plan = nullptr);
  // {"type":"environment","environment":{...}}
  absl::Status WriteEnvironment(const Environment& environment);
  // {"type":"device","device":{...}}: a GPU that runs cases, with the peaks measured on it.
  absl::Status WriteDevice(const DeviceRecord& device);
  // {"type":"session","started_at_s":T}: a supervisor starts running the plan (a new run, or a
  // --resume), T in seconds since the Unix epoch.
  absl::Status WriteSession(double started_at_s);
  // {"type":"case_started","index":i,"key":"KERNEL PROBLEM","at_s":T}
  absl::Status CaseStarted(int index, const std::string& key);
  // {"type":"case","index":i,"result":{...},"at_s":T}; T: when the line was written, in seconds
  // since the Unix epoch (it ends the session's active span so far).
  absl::Status CaseFinished(int index, const CaseResult& result);

  const std::string& path() const { return path_; }

 private:
  JournalWriter(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  absl::Status AppendLine(const std::string& line);
  // Closes a last line that a crash cut short with a newline, so that new lines parse.
  absl::Status CloseCutLine();

  int fd_ = -1;
  std::string path_;
};

// Seconds since the Unix epoch, now (the journal's clock: session starts, "at_s" of case lines).
double UnixSecondsNow();

// One session of a run (its first, or a --resume): from its session line to the last case line
// written after it.
struct ActiveSpan {
  double start_s = 0;
  double end_s = 0;
};

struct JournalContents {
  SuiteRecord suite;
  std::string command_line, started_at;
  std::optional<Environment> environment;   // the first environment line's
  std::vector<DeviceRecord> devices;        // device lines, one per GPU (reports/devices.h)
  std::map<int, CaseResult> finished;       // by case index; the last line for an index wins
  std::set<int> started_unfinished;         // started, never finished: the run died in these
  std::map<int, std::string> started_keys;  // index -> key of its latest case_started line
  int bad_lines = 0;                 // lines that are not JSON (a write cut short by a crash)
  std::vector<int> long_lines;       // of those, lines over kMaxJournalLineBytes (never read whole)
  std::vector<ActiveSpan> sessions;  // in order; empty in journals written before sessions
  // The run's plan (the latest header's): absent in journals written before plans existed.
  std::optional<PlanRecord> plan;

  // The latest result of each case, by key (kernel id + " " + problem key).
  std::map<std::string, const CaseResult*> FinishedByKey() const;
  // Keys of the plan's cases that have no result yet; empty when there is no plan.
  std::vector<std::string> MissingKeys() const;
  // Keys of results that are not cases of the plan (a journal of another plan, or edited).
  std::vector<std::string> UnplannedKeys() const;
  // The run's active seconds: the sum of its sessions' spans, the pauses between them left out;
  // with `now_s` > 0 the last session (the one writing the report) ends then. 0 without sessions.
  double ActiveSeconds(double now_s = 0) const;
};

// A journal line longer than this is skipped unread (counted in bad_lines, its number in
// long_lines): a case result with every heatmap is a few MB; 64 MiB is no line flashscope wrote.
inline constexpr uint64_t kMaxJournalLineBytes = uint64_t{64} << 20;

// Reads a journal, line by line (never the whole file at once), at most MaxInputBytes() kept. A
// line that is not JSON (typically the last one, cut short by a crash) is counted in bad_lines and
// skipped; a line that is JSON but malformed (wrong types, a newer schema_version) is an error
// naming the path and line number; lines of an unknown "type" are ignored. A file without a header
// line is refused as "not a flashscope journal".
absl::StatusOr<JournalContents> ReadJournal(const std::string& path);

// The journal as a report (complete = false): each finished case's last result, and each
// started-but-unfinished case (without a result) as status "error" with a reason saying that the
// run stopped inside it. With a plan, cases follow the plan's order, matched by key (results of
// keys the plan does not hold are left out); without one, index order. The environment's
// command_line and started_at come from the header when the environment line is missing them.
Report ReportFromJournal(const JournalContents& journal);

}  // namespace flashscope::reports
