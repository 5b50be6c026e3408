#include "supervisor/run_journal.h"

#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "git_revision.h"  // generated at build time: cmake/GitRevision.cmake
#include "reports/journal.h"
#include "reports/report_json.h"
#include "suites/plan_cases.h"

namespace flashscope::suites {
namespace {

constexpr char kJournalSuffix[] = ".journal.jsonl";

reports::SuiteRecord ToSuiteRecord(const Suite& s, const std::string& kernels_filter) {
  reports::SuiteRecord r;
  r.name = s.name;
  r.path = s.path;
  r.description = s.description;
  r.kernels_filter = kernels_filter;
  r.timing = s.timing;
  return r;
}

// The report beside a journal: "x.json.journal.jsonl" -> "x.json".
std::string ReportPathOf(const std::string& journal) {
  const std::string suffix = kJournalSuffix;
  if (journal.size() > suffix.size() &&
      journal.compare(journal.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return journal.substr(0, journal.size() - suffix.size());
  }
  return journal + ".json";
}

absl::Status Refuse(const std::string& journal, const std::string& why, const std::string& how) {
  return absl::FailedPreconditionError(absl::StrCat(
      "--resume ", journal, ": ", why, ". ", how,
      " (the journal is left as it is; `flashscope show ", journal, "` reads what it holds)"));
}

// The journal's run must be this plan's: same suite file, filter, shard, plugins and cases.
absl::Status CheckSamePlan(const std::string& path, const reports::JournalContents& journal,
                           const reports::PlanRecord& plan) {
  if (!journal.plan) {
    return Refuse(path, "it was written by a flashscope without run plans (before plugins)",
                  "Finish it with the flashscope that started it, or start a new run without "
                  "--resume");
  }
  if (std::string why = reports::PlanDifference(*journal.plan, plan); !why.empty()) {
    return Refuse(path, absl::StrCat("it belongs to another plan: ", why),
                  absl::StrCat("Resume it with the arguments that started it (`",
                               journal.command_line, "`), or start a new run without --resume"));
  }
  if (auto extra = journal.UnplannedKeys(); !extra.empty()) {
    return Refuse(path,
                  absl::StrCat("it holds results of ", extra.size(),
                               " cases its plan does not have (first: '", extra[0], "')"),
                  "It was edited or mixed with another run's journal: start a new run");
  }
  return absl::OkStatus();
}

// Cases planned as errors are recorded once, by whoever opens the journal first; `journal` (what
// the file holds) learns them too.
absl::Status RecordPlannedErrors(const std::string& path, const reports::PlanRecord& plan,
                                 const Suite& suite, reports::JournalContents* journal) {
  const auto done = journal->FinishedByKey();
  std::optional<reports::JournalWriter> writer;
  for (const auto& c : plan.cases) {
    if (c.error.empty() || done.count(c.key)) continue;
    if (!writer) {
      auto opened = reports::JournalWriter::Open(path, /*append=*/true);
      if (!opened.ok()) return opened.status();
      writer.emplace(*std::move(opened));
    }
    reports::CaseResult r = NewCaseResult(plan, c, suite);
    r.status = reports::CaseStatus::kError;
    r.reason = c.error;
    if (absl::Status s = writer->CaseFinished(c.index, r); !s.ok()) return s;
    journal->finished[c.index] = std::move(r);
  }
  return absl::OkStatus();
}

// The command that resumes `journal`: the command line that started it, with --resume.
std::string ResumeCommand(const std::string& started_by, const std::string& journal) {
  std::vector<std::string> words;
  bool skip_next = false;
  for (absl::string_view w : absl::StrSplit(started_by, ' ', absl::SkipEmpty())) {
    if (skip_next) {
      skip_next = false;
    } else if (w == "--resume" || w == "-resume") {
      skip_next = true;  // the journal given to an earlier --resume
    } else if (!absl::StartsWith(w, "--resume=") && !absl::StartsWith(w, "-resume=")) {
      words.emplace_back(w);
    }
  }
  return absl::StrCat(words.empty() ? "flashscope run SUITE" : absl::StrJoin(words, " "),
                      " --resume ", journal);
}

// A new run whose journal is already there: the journal of a run that did not finish (a
// report is only final once its journal is gone). Truncating it would lose its results.
absl::Status RefuseUnfinished(const RunJournal& claimed) {
  const std::string& path = claimed.journal_path;
  auto journal = reports::ReadJournal(path);
  std::string what, resume;
  if (journal.ok()) {
    what = absl::StrCat("holds the journal of an earlier run that did not finish (",
                        journal->finished.size(), " finished cases, started ",
                        journal->started_at.empty() ? "?" : journal->started_at, ")");
    resume = absl::StrCat("Continue that run with `", ResumeCommand(journal->command_line, path),
                          "`, or ");
  } else {
    what =
        absl::StrCat("exists but cannot be read as a journal (", journal.status().message(), ")");
  }
  return absl::FailedPreconditionError(absl::StrCat(
      path, " ", what, ", and a new run would replace it. ", resume,
      "give this run another --out FILE (its journal is FILE", kJournalSuffix,
      "). The journal is left as it is; `flashscope show ", path, "` reads what it holds"));
}

}  // namespace

MadeFolders::~MadeFolders() {
  std::error_code ec;
  if (folders_.empty() || std::filesystem::exists(journal_path_, ec)) return;
  // Innermost first; a folder that holds anything (another file written since) stays.
  for (auto it = folders_.rbegin(); it != folders_.rend(); ++it) {
    if (::rmdir(it->c_str()) != 0) break;
  }
}

std::string UtcNow(const char* format) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

absl::StatusOr<reports::Report> WriteReportFromJournal(const std::string& journal_path,
                                                       const std::string& out_path,
                                                       bool remove_journal,
                                                       const reports::JournalContents* given,
                                                       const reports::WriteOptions& options) {
  absl::StatusOr<reports::JournalContents> read;
  if (given == nullptr) {
    read = reports::ReadJournal(journal_path);
    if (!read.ok()) return read.status();
  }
  const reports::JournalContents* contents = given != nullptr ? given : &*read;
  reports::Report report = reports::ReportFromJournal(*contents);
  report.complete = contents->MissingKeys().empty() && contents->UnplannedKeys().empty();
  reports::Environment& env = report.environment;
  env.finished_at = UtcNow("%Y-%m-%dT%H:%M:%SZ");
  env.active_s = contents->ActiveSeconds(reports::UnixSecondsNow());  // this session ends now
  env.git_revision = FLASHSCOPE_GIT_REVISION;
  env.flashscope_version = FLASHSCOPE_VERSION;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) env.host = host;
  if (auto s = reports::WriteReportFileAtomic(report, out_path, options); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(s.message(), " (the journal ", journal_path,
                                               " still holds every result; `flashscope show` "
                                               "reads it)"));
  }
  if (report.complete || remove_journal) std::filesystem::remove(journal_path);
  return report;
}

namespace {

absl::StatusOr<reports::JournalContents> ReadResumed(const std::string& journal_path) {
  auto journal = reports::ReadJournal(journal_path);
  if (!journal.ok()) {
    return absl::Status(journal.status().code(),
                        absl::StrCat("--resume ", journal.status().message()));
  }
  return journal;
}

}  // namespace

absl::Status CheckResumable(const std::string& journal_path, const reports::PlanRecord& plan) {
  auto journal = ReadResumed(journal_path);
  if (!journal.ok()) return journal.status();
  return CheckSamePlan(journal_path, *journal, plan);
}

absl::Status CheckResumableSuite(const std::string& journal_path, const Suite& suite) {
  auto journal = ReadResumed(journal_path);
  if (!journal.ok()) return journal.status();
  if (journal->suite.name != suite.name) {
    return Refuse(
        journal_path,
        absl::StrCat("it is the journal of suite '", journal->suite.name, "' (",
                     journal->suite.path, "), not of '", suite.name, "' (", suite.path, ")"),
        absl::StrCat("Resume it with the arguments that started it (`", journal->command_line,
                     "`), or start a new run without --resume"));
  }
  return absl::OkStatus();
}

absl::StatusOr<RunJournal> ClaimRunJournal(const JournalRequest& request, const Suite& suite) {
  RunJournal out;
  out.out_path = request.out_path;
  out.journal_path = request.resume_journal;
  if (out.journal_path.empty()) {
    if (out.out_path.empty()) {
      out.out_path =
          absl::StrCat("results/runs/", UtcNow("%Y%m%d-%H%M%S"), "-", suite.name, ".json");
    }
    out.journal_path = out.out_path + kJournalSuffix;
    std::error_code ec;  // a folder that cannot be made fails below, naming the path
    const std::filesystem::path parent = std::filesystem::path(out.out_path).parent_path();
    std::vector<std::string> missing;
    for (auto p = parent; !p.empty() && !std::filesystem::exists(p, ec); p = p.parent_path()) {
      missing.insert(missing.begin(), p.string());
      if (p == p.parent_path()) break;
    }
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    out.made_folders = std::make_unique<MadeFolders>(out.journal_path, std::move(missing));
  } else if (out.out_path.empty()) {
    out.out_path = ReportPathOf(out.journal_path);
  }
  auto lock = RunLock::Take(out.journal_path, request.command_line, &out.lock_note);
  if (!lock.ok()) return lock.status();
  out.lock = *std::move(lock);
  if (request.resume_journal.empty() && std::filesystem::exists(out.journal_path)) {
    return RefuseUnfinished(out);
  }
  return out;
}

absl::Status StartRunJournal(const JournalRequest& request, const Suite& suite,
                             const reports::PlanRecord& plan, RunJournal* journal) {
  if (request.resume_journal.empty()) {
    auto writer = reports::JournalWriter::Create(journal->journal_path);
    if (writer.status().code() == absl::StatusCode::kAlreadyExists) {
      return RefuseUnfinished(*journal);  // it appeared since the claim
    }
    if (!writer.ok()) return writer.status();
    if (absl::Status s =
            writer->WriteHeader(ToSuiteRecord(suite, request.kernels_filter), request.command_line,
                                UtcNow("%Y-%m-%dT%H:%M:%SZ"), &plan);
        !s.ok()) {
      return s;
    }
    journal->contents.suite = ToSuiteRecord(suite, request.kernels_filter);
    journal->contents.command_line = request.command_line;
    journal->contents.plan = plan;
  } else {
    if (request.resumed != nullptr) {
      journal->contents = *request.resumed;
    } else {
      auto existing = reports::ReadJournal(journal->journal_path);
      if (!existing.ok()) return existing.status();
      journal->contents = *std::move(existing);
    }
    if (absl::Status s = CheckSamePlan(journal->journal_path, journal->contents, plan); !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = RecordPlannedErrors(journal->journal_path, plan, suite, &journal->contents);
      !s.ok()) {
    return s;
  }
  // A session starts: the wall time of a resumed run counts each session, not the pause
  // between them (reports::JournalContents::ActiveSeconds).
  auto writer = reports::JournalWriter::Open(journal->journal_path, /*append=*/true);
  if (!writer.ok()) return writer.status();
  return writer->WriteSession(reports::UnixSecondsNow());
}

absl::StatusOr<RunJournal> OpenRunJournal(const JournalRequest& request, const Suite& suite,
                                          const reports::PlanRecord& plan) {
  auto journal = ClaimRunJournal(request, suite);
  if (!journal.ok()) return journal.status();
  if (absl::Status s = StartRunJournal(request, suite, plan, &*journal); !s.ok()) return s;
  return journal;
}

}  // namespace flashscope::suites
