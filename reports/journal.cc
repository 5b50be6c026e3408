#include "reports/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "reports/devices.h"
#include "reports/file_util.h"
#include "reports/input_file.h"
#include "reports/json_fields.h"
#include "reports/json_strict.h"
#include "reports/json_text.h"
#include "reports/report_json.h"

namespace flashscope::reports {
namespace {

using jsonio::Json;

// Whether the last byte of the open file is a newline (true for an empty file).
absl::StatusOr<bool> EndsWithNewline(int fd, const std::string& path) {
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    return absl::DataLossError(absl::StrCat(path, ": fstat failed: ", std::strerror(errno)));
  }
  if (st.st_size == 0) return true;
  char last = 0;
  if (::pread(fd, &last, 1, st.st_size - 1) != 1) {
    return absl::DataLossError(
        absl::StrCat(path, ": reading its last byte failed: ", std::strerror(errno)));
  }
  return last == '\n';
}

absl::Status LineError(const std::string& path, int line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ":", line, ": ", what));
}

// O_RDWR so that the last byte can be checked; O_APPEND makes each write() land at the end.
absl::StatusOr<int> OpenJournalFd(const std::string& path, int mode_flags) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | mode_flags, 0644);
  if (fd < 0) {
    int err = errno;
    if (err == EEXIST) {
      return absl::AlreadyExistsError(
          absl::StrCat("journal ", path, " exists already: a new run does not replace it"));
    }
    std::string hint;
    struct stat st;
    if (err == ENOENT && ::stat(DirectoryOf(path).c_str(), &st) != 0) {
      hint = absl::StrCat(" (directory \"", DirectoryOf(path), "\" does not exist; create it)");
    }
    return absl::FailedPreconditionError(
        absl::StrCat("cannot open journal ", path, ": ", std::strerror(err), hint));
  }
  return fd;
}

}  // namespace

absl::StatusOr<JournalWriter> JournalWriter::Create(const std::string& path) {
  auto fd = OpenJournalFd(path, O_EXCL);
  if (!fd.ok()) return fd.status();
  return JournalWriter(*fd, path);
}

absl::StatusOr<JournalWriter> JournalWriter::Open(const std::string& path, bool append) {
  auto fd = OpenJournalFd(path, append ? 0 : O_TRUNC);
  if (!fd.ok()) return fd.status();
  JournalWriter writer(*fd, path);
  if (append) {
    if (absl::Status s = writer.CloseCutLine(); !s.ok()) return s;
  }
  return writer;
}

absl::Status JournalWriter::CloseCutLine() {
  // Under the lock: a line another process is writing right now is not a cut line.
  ScopedFileLock lock(fd_, /*exclusive=*/true);
  absl::StatusOr<bool> clean = EndsWithNewline(fd_, path_);
  if (!clean.ok()) return clean.status();
  if (*clean) return absl::OkStatus();
  // A crash cut the last line short; close it so that our first line parses on its own.
  if (absl::Status s = WriteAllToFd(fd_, "\n", path_); !s.ok()) return s;
  return FsyncFd(fd_, path_);
}

JournalWriter::JournalWriter(JournalWriter&& other) noexcept
    : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

JournalWriter& JournalWriter::operator=(JournalWriter&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

JournalWriter::~JournalWriter() {
  if (fd_ >= 0) ::close(fd_);
}

absl::Status JournalWriter::AppendLine(const std::string& line) {
  if (fd_ < 0) {
    return absl::FailedPreconditionError("journal writer is closed (moved from)");
  }
  // One write() per line: with O_APPEND the line lands whole at the end (short writes to a
  // regular file happen only when the disk is full, and WriteAllToFd finishes them). The lock
  // keeps other writers' lines out of ours and readers away until it is whole and synced.
  std::string data = line + "\n";
  ScopedFileLock lock(fd_, /*exclusive=*/true);
  if (absl::Status s = WriteAllToFd(fd_, data, path_); !s.ok()) return s;
  return FsyncFd(fd_, path_);
}

absl::Status JournalWriter::WriteHeader(const SuiteRecord& suite, const std::string& command_line,
                                        const std::string& started_at, const PlanRecord* plan) {
  Json j = {{"type", "header"},
            {"schema", kJournalSchemaName},
            {"schema_version", kJournalSchemaVersion},
            {"suite", SuiteToJson(suite)},
            {"command_line", command_line},
            {"started_at", started_at}};
  if (plan != nullptr) j["plan"] = PlanToJson(*plan);
  return AppendLine(jsonio::Dump(j));
}

absl::Status JournalWriter::WriteEnvironment(const Environment& environment) {
  Json j = {{"type", "environment"}, {"environment", EnvironmentToJson(environment)}};
  return AppendLine(jsonio::Dump(j));
}

absl::Status JournalWriter::WriteDevice(const DeviceRecord& device) {
  Json j = {{"type", "device"}, {"device", DeviceToJson(device)}};
  return AppendLine(jsonio::Dump(j));
}

absl::Status JournalWriter::WriteSession(double started_at_s) {
  Json j = {{"type", "session"}, {"started_at_s", started_at_s}};
  return AppendLine(jsonio::Dump(j));
}

absl::Status JournalWriter::CaseStarted(int index, const std::string& key) {
  Json j = {{"type", "case_started"}, {"index", index}, {"key", key}, {"at_s", UnixSecondsNow()}};
  return AppendLine(jsonio::Dump(j));
}

absl::Status JournalWriter::CaseFinished(int index, const CaseResult& result) {
  Json j = {{"type", "case"},
            {"index", index},
            {"result", CaseToJson(result)},
            {"at_s", UnixSecondsNow()}};
  return AppendLine(jsonio::Dump(j));
}

double UnixSecondsNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

double JournalContents::ActiveSeconds(double now_s) const {
  double total = 0;
  for (size_t i = 0; i < sessions.size(); ++i) {
    const double end = i + 1 == sessions.size() && now_s > 0 ? now_s : sessions[i].end_s;
    total += std::max(0.0, end - sessions[i].start_s);
  }
  return total;
}

namespace {

// One header line: schema and version checked, suite, command line and plan read. A resumed run
// appends a second header: the suite and plan follow the latest, the run's start stays the first.
// `st` is the status `f` reads into.
absl::Status ReadHeader(jsonio::Fields& f, const absl::Status& st, const std::string& path,
                        int line_no, bool first, JournalContents* out) {
  std::string schema;
  int version = 0;
  f.Get("schema", &schema, jsonio::Need::kRequired);
  f.Get("schema_version", &version, jsonio::Need::kRequired);
  if (st.ok() && schema != kJournalSchemaName) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a flashscope journal (schema \"", schema, "\")"));
  }
  if (st.ok() && version != kJournalSchemaVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ":", line_no, ": journal schema_version ", version,
                     version > kJournalSchemaVersion ? " is newer than" : " is older than",
                     " this flashscope reads (", kJournalSchemaVersion, ")"));
  }
  std::string started_at;
  f.Get("command_line", &out->command_line);
  f.Get("started_at", &started_at);
  if (const Json* s = f.Object("suite", jsonio::Need::kRequired)) {
    absl::StatusOr<SuiteRecord> suite = SuiteFromJson(*s);
    if (!suite.ok()) {
      return LineError(path, line_no, absl::StrCat("suite.", suite.status().message()));
    }
    out->suite = *suite;
  }
  if (const Json* plan = f.Object("plan")) {
    absl::StatusOr<PlanRecord> p = PlanFromJson(*plan);
    if (!p.ok()) return LineError(path, line_no, absl::StrCat("plan.", p.status().message()));
    out->plan = *std::move(p);
  }
  if (!st.ok()) return LineError(path, line_no, st.message());
  if (first) out->started_at = started_at;
  return absl::OkStatus();
}

// One line of a journal (ReadJournal).
absl::Status JournalLine(const std::string& path, int line_no, absl::string_view line,
                         bool* have_header, JournalContents* out) {
  if (line.find_first_not_of(" \t\r") == absl::string_view::npos) return absl::OkStatus();
  if (size_t deep = jsonio::TooDeepAt(line); deep != absl::string_view::npos) {
    return LineError(path, line_no, absl::StrCat("column ", deep + 1, ": ", jsonio::TooDeepText()));
  }
  Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    ++out->bad_lines;  // cut short by a crash (or corrupted): skip it, keep the rest
    return absl::OkStatus();
  }
  // A line that parses but names a key twice was not cut short: it is wrong, and refused.
  if (std::string dup = jsonio::FindDuplicateKey(line); !dup.empty()) {
    return LineError(path, line_no, absl::StrCat("column ", dup.substr(dup.find(':') + 1)));
  }
  absl::Status st;
  jsonio::Fields f(j, "", &st);
  std::string type;
  // Before the header, anything else means this file is not a journal at all.
  f.Get("type", &type, *have_header ? jsonio::Need::kRequired : jsonio::Need::kOptional);
  if (!*have_header && (!st.ok() || type != "header")) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a flashscope journal (line ", line_no,
                     " is not a {\"type\": \"header\"} line; a journal starts with one)"));
  }
  if (!st.ok()) return LineError(path, line_no, st.message());
  if (type == "header") {
    if (absl::Status h = ReadHeader(f, st, path, line_no, !*have_header, out); !h.ok()) {
      return h;
    }
    *have_header = true;
  } else if (type == "environment") {
    const Json* e = f.Object("environment", jsonio::Need::kRequired);
    if (!st.ok()) return LineError(path, line_no, st.message());
    absl::StatusOr<Environment> env = EnvironmentFromJson(*e);
    if (!env.ok()) {
      return LineError(path, line_no, absl::StrCat("environment.", env.status().message()));
    }
    // The first wins: workers on several GPUs may each write one when they start together.
    if (!out->environment) out->environment = *env;
  } else if (type == "device") {
    const Json* d = f.Object("device", jsonio::Need::kRequired);
    if (!st.ok()) return LineError(path, line_no, st.message());
    absl::StatusOr<DeviceRecord> device = DeviceFromJson(*d);
    if (!device.ok()) {
      return LineError(path, line_no, absl::StrCat("device.", device.status().message()));
    }
    AddDevices({*device}, &out->devices);
  } else if (type == "session") {
    double start = 0;
    f.Get("started_at_s", &start, jsonio::Need::kRequired);
    if (!st.ok()) return LineError(path, line_no, st.message());
    out->sessions.push_back({start, start});
  } else if (type == "case_started" || type == "case") {
    int index = -1;
    double at = 0;
    f.Get("index", &index, jsonio::Need::kRequired);
    f.Get("at_s", &at);
    if (st.ok() && at > 0 && !out->sessions.empty()) {
      out->sessions.back().end_s = std::max(out->sessions.back().end_s, at);
    }
    if (st.ok() && index < 0) f.Fail("index", absl::StrCat("negative case index ", index));
    if (type == "case_started") {
      std::string key;
      f.Get("key", &key);
      if (!st.ok()) return LineError(path, line_no, st.message());
      out->started_unfinished.insert(index);
      out->started_keys[index] = key;
      return absl::OkStatus();
    }
    const Json* r = f.Object("result", jsonio::Need::kRequired);
    if (!st.ok()) return LineError(path, line_no, st.message());
    absl::StatusOr<CaseResult> result = CaseFromJson(*r);
    if (!result.ok()) {
      return LineError(path, line_no, absl::StrCat("result.", result.status().message()));
    }
    out->finished[index] = *std::move(result);
    out->started_unfinished.erase(index);
  }
  // Other types come from newer writers: ignored, as unknown keys are.
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<JournalContents> ReadJournal(const std::string& path) {
  JournalContents out;
  bool have_header = false;
  absl::Status read = ReadLines(
      path, kMaxJournalLineBytes,
      [&](int line_no, absl::string_view line) {
        return JournalLine(path, line_no, line, &have_header, &out);
      },
      [&](int line_no, uint64_t bytes) {
        // Never held whole: a line this long is no case result flashscope writes (a crash
        // cannot make one either); counted with the lines cut short, the rest is kept.
        ++out.bad_lines;
        out.long_lines.push_back(line_no);
        (void)bytes;
      });
  if (!read.ok()) return read;
  if (!have_header) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": not a flashscope journal (no \"header\" line",
        out.bad_lines > 0 ? absl::StrCat("; ", out.bad_lines, " lines are not JSON") : "", ")"));
  }
  return out;
}

std::map<std::string, const CaseResult*> JournalContents::FinishedByKey() const {
  std::map<std::string, const CaseResult*> out;
  for (const auto& [index, c] : finished) out[c.Key()] = &c;
  return out;
}

std::vector<std::string> JournalContents::MissingKeys() const {
  std::vector<std::string> out;
  if (!plan) return out;
  const auto done = FinishedByKey();
  for (const auto& c : plan->cases) {
    if (!done.count(c.key)) out.push_back(c.key);
  }
  return out;
}

std::vector<std::string> JournalContents::UnplannedKeys() const {
  std::vector<std::string> out;
  if (!plan) return out;
  std::set<std::string> planned;
  for (const auto& c : plan->cases) planned.insert(c.key);
  for (const auto& [key, c] : FinishedByKey()) {
    if (!planned.count(key)) out.push_back(key);
  }
  return out;
}

namespace {

// A case that started and never finished: the run died inside it.
CaseResult DiedInside(int index, const std::string& key) {
  CaseResult c;
  // The key is "KERNEL_ID PROBLEM_KEY" (CaseResult::Key); kernel ids have no spaces.
  size_t space = key.find(' ');
  c.kernel_id = key.substr(0, space);
  if (space != std::string::npos) c.problem_key = key.substr(space + 1);
  c.status = CaseStatus::kError;
  c.reason = absl::StrCat("case ", index,
                          " started but never finished: the run stopped inside it (crash, "
                          "kill or time limit)");
  return c;
}

}  // namespace

Report ReportFromJournal(const JournalContents& journal) {
  Report r;
  r.complete = false;
  r.unreadable_journal_lines = journal.bad_lines;
  r.suite = journal.suite;
  if (journal.environment) r.environment = *journal.environment;
  AddDevices(journal.devices, &r.environment.devices);
  if (r.environment.command_line.empty()) r.environment.command_line = journal.command_line;
  if (r.environment.started_at.empty()) r.environment.started_at = journal.started_at;
  r.environment.active_s = journal.ActiveSeconds();
  if (journal.plan) {
    r.suite.sha256 = journal.plan->suite_sha256;  // what `merge` checks shards by
    r.suite.shard = journal.plan->shard;
    const auto done = journal.FinishedByKey();
    std::set<std::string> started;
    for (int index : journal.started_unfinished) {
      auto key = journal.started_keys.find(index);
      if (key != journal.started_keys.end()) started.insert(key->second);
    }
    for (const PlannedCaseRecord& c : journal.plan->cases) {
      auto it = done.find(c.key);
      if (it != done.end()) {
        r.cases.push_back(*it->second);
      } else if (started.count(c.key)) {
        r.cases.push_back(DiedInside(c.index, c.key));
      }
    }
    return r;
  }
  std::set<int> indices = journal.started_unfinished;
  for (const auto& [index, c] : journal.finished) indices.insert(index);
  for (int index : indices) {
    auto it = journal.finished.find(index);
    if (it != journal.finished.end()) {
      r.cases.push_back(it->second);
      continue;
    }
    auto key = journal.started_keys.find(index);
    r.cases.push_back(DiedInside(index, key != journal.started_keys.end() ? key->second : ""));
  }
  return r;
}

}  // namespace flashscope::reports
