#include "supervisor/run_journal.h"

#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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

}  // namespace

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
                                                       const reports::JournalContents* given) {
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
  if (auto s = reports::WriteReportFileAtomic(report, out_path); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(s.message(), " (the journal ", journal_path,
                                               " still holds every result; `flashscope show` "
                                               "reads it)"));
  }
  if (report.complete || remove_journal) std::filesystem::remove(journal_path);
  return report;
}

absl::StatusOr<RunJournal> OpenRunJournal(const JournalRequest& request, const Suite& suite,
                                          const reports::PlanRecord& plan) {
  RunJournal out;
  out.out_path = request.out_path;
  out.journal_path = request.resume_journal;
  if (out.journal_path.empty()) {
    if (out.out_path.empty()) {
      out.out_path =
          absl::StrCat("results/runs/", UtcNow("%Y%m%d-%H%M%S"), "-", suite.name, ".json");
    }
    std::error_code ec;
    auto parent = std::filesystem::path(out.out_path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    out.journal_path = out.out_path + kJournalSuffix;
    auto writer = reports::JournalWriter::Open(out.journal_path, /*append=*/false);
    if (!writer.ok()) return writer.status();
    if (absl::Status s =
            writer->WriteHeader(ToSuiteRecord(suite, request.kernels_filter), request.command_line,
                                UtcNow("%Y-%m-%dT%H:%M:%SZ"), &plan);
        !s.ok()) {
      return s;
    }
    out.contents.suite = ToSuiteRecord(suite, request.kernels_filter);
    out.contents.command_line = request.command_line;
    out.contents.plan = plan;
  } else {
    if (request.resumed != nullptr) {
      out.contents = *request.resumed;
    } else {
      auto existing = reports::ReadJournal(out.journal_path);
      if (!existing.ok()) return existing.status();
      out.contents = *std::move(existing);
    }
    if (absl::Status s = CheckSamePlan(out.journal_path, out.contents, plan); !s.ok()) return s;
    if (out.out_path.empty()) out.out_path = ReportPathOf(out.journal_path);
  }
  if (absl::Status s = RecordPlannedErrors(out.journal_path, plan, suite, &out.contents); !s.ok()) {
    return s;
  }
  // A session starts: the wall time of a resumed run counts each session, not the pause
  // between them (reports::JournalContents::ActiveSeconds).
  auto writer = reports::JournalWriter::Open(out.journal_path, /*append=*/true);
  if (!writer.ok()) return writer.status();
  if (absl::Status s = writer->WriteSession(reports::UnixSecondsNow()); !s.ok()) return s;
  return out;
}

}  // namespace flashscope::suites
