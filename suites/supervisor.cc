#include "suites/supervisor.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "git_revision.h"  // generated at build time: cmake/GitRevision.cmake
#include "reports/journal.h"
#include "reports/render_terminal.h"
#include "reports/report_json.h"
#include "suites/plan.h"
#include "suites/record_conversions.h"
#include "suites/sanitize.h"
#include "suites/sanitizer_output.h"
#include "suites/shard.h"
#include "suites/worker.h"

namespace flashscope::suites {
namespace {

using Clock = std::chrono::steady_clock;

// Waiting for the worker's first case covers its start-up and the peak measurement.
constexpr double kStartupLimitS = 900;

std::string UtcNow(const char* format) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

std::string Clock_(double s) {
  int total = static_cast<int>(s + 0.5);
  return absl::StrFormat("%d:%02d", total / 60, total % 60);
}

struct Worker {
  pid_t pid = -1;
  int fd = -1;
  std::string buffer;
};

absl::StatusOr<Worker> Spawn(const SuperviseArgs& args, const std::string& journal) {
  int fds[2];
  if (pipe(fds) != 0) return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  std::vector<std::string> argv = {args.worker_exe,
                                   "__worker",
                                   "--suite=" + args.suite_path,
                                   "--journal=" + journal,
                                   "--kernels=" + args.kernels_filter,
                                   "--metrics=" + args.metrics,
                                   "--dump=" + args.dump_dir,
                                   "--shard=" + args.shard,
                                   "--progress_fd=" + std::to_string(fds[1])};
  pid_t pid = fork();
  if (pid < 0) return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  if (pid == 0) {
    close(fds[0]);
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    execv(args.worker_exe.c_str(), cargv.data());
    std::fprintf(stderr, "flashscope: cannot start worker %s: %s\n", args.worker_exe.c_str(),
                 std::strerror(errno));
    _exit(127);
  }
  close(fds[1]);
  return Worker{pid, fds[0], ""};
}

// Reads one line from the worker, waiting at most `limit_s`. Returns false on end of stream;
// sets *timed_out when the limit passed first.
bool ReadLine(Worker& w, double limit_s, std::string* line, bool* timed_out) {
  *timed_out = false;
  const auto deadline = Clock::now() + std::chrono::duration<double>(limit_s);
  while (true) {
    size_t nl = w.buffer.find('\n');
    if (nl != std::string::npos) {
      *line = w.buffer.substr(0, nl);
      w.buffer.erase(0, nl + 1);
      return true;
    }
    double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (left <= 0) {
      *timed_out = true;
      return false;
    }
    pollfd p{w.fd, POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(std::min(left, 3600.0) * 1000) + 1);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) continue;
    char buf[4096];
    ssize_t got = read(w.fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    w.buffer.append(buf, static_cast<size_t>(got));
  }
}

std::string DescribeExit(int status) {
  if (WIFSIGNALED(status)) {
    return absl::StrCat("the worker process was killed by signal ", WTERMSIG(status), " (",
                        strsignal(WTERMSIG(status)), ")");
  }
  if (WIFEXITED(status)) {
    return absl::StrCat("the worker process exited with code ", WEXITSTATUS(status));
  }
  return "the worker process ended";
}

reports::SuiteRecord ToSuiteRecord(const Suite& s, const std::string& kernels_filter) {
  reports::SuiteRecord r;
  r.name = s.name;
  r.path = s.path;
  r.description = s.description;
  r.kernels_filter = kernels_filter;
  r.timing.cold = s.timing.cold;
  r.timing.warmup = s.timing.warmup;
  r.timing.min_samples = s.timing.min_samples;
  r.timing.max_samples = s.timing.max_samples;
  r.timing.noise_target = s.timing.noise_target;
  r.timing.time_cap_s = s.timing.time_cap_s;
  return r;
}

SuperviseResult Fail(int code, const std::string& message) {
  std::fprintf(stderr, "flashscope run: %s\n", message.c_str());
  SuperviseResult r;
  r.exit_code = code;
  return r;
}

}  // namespace

SuperviseResult Supervise(const SuperviseArgs& args) {
  auto suite = LoadSuiteFile(args.suite_path);
  if (!suite.ok()) return Fail(2, std::string(suite.status().message()));
  auto plan = BuildPlan(*suite, args.kernels_filter);
  if (!plan.ok()) return Fail(2, std::string(plan.status().message()));
  auto shard = ParseShard(args.shard);
  if (!shard.ok()) return Fail(2, std::string(shard.status().message()));
  *plan = SelectShard(*plan, *shard, [](const PlannedCase& c) { return ProblemKey(c.problem); });
  if (plan->empty()) {
    return Fail(2,
                absl::StrCat("--shard ", shard->Name(), ": the suite has fewer cases than shards"));
  }
  const double case_limit_s = args.case_timeout_s > 0 ? args.case_timeout_s : suite->case_timeout_s;
  // --sanitize: refuse at once, before the run, when the tool cannot be used.
  std::string sanitizer_path;
  if (!args.sanitize_tool.empty()) {
    if (auto s = CheckSanitizerTool(args.sanitize_tool); !s.ok()) {
      return Fail(2, std::string(s.message()));
    }
    auto found = FindComputeSanitizer();
    if (!found.ok()) return Fail(2, absl::StrCat("--sanitize: ", found.status().message()));
    sanitizer_path = *found;
  }

  // The journal: a fresh one beside the report, or the one being resumed.
  std::string out_path = args.out_path;
  std::string journal_path = args.resume_journal;
  if (journal_path.empty()) {
    if (out_path.empty()) {
      out_path = absl::StrCat("reports/runs/", UtcNow("%Y%m%d-%H%M%S"), "-", suite->name, ".json");
    }
    std::error_code ec;
    auto parent = std::filesystem::path(out_path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    journal_path = out_path + ".journal.jsonl";
    auto writer = reports::JournalWriter::Open(journal_path, /*append=*/false);
    if (!writer.ok()) return Fail(2, std::string(writer.status().message()));
    if (auto s = writer->WriteHeader(ToSuiteRecord(*suite, args.kernels_filter), args.command_line,
                                     UtcNow("%Y-%m-%dT%H:%M:%SZ"));
        !s.ok()) {
      return Fail(2, std::string(s.message()));
    }
  } else {
    auto existing = reports::ReadJournal(journal_path);
    if (!existing.ok()) return Fail(2, std::string(existing.status().message()));
    if (existing->suite.name != suite->name) {
      return Fail(2, absl::StrCat("--resume ", journal_path, " belongs to suite '",
                                  existing->suite.name, "', not '", suite->name, "'"));
    }
    if (out_path.empty()) {
      const std::string suffix = ".journal.jsonl";
      out_path = journal_path.size() > suffix.size() &&
                         journal_path.compare(journal_path.size() - suffix.size(), suffix.size(),
                                              suffix) == 0
                     ? journal_path.substr(0, journal_path.size() - suffix.size())
                     : journal_path + ".json";
    }
  }
  auto writer = reports::JournalWriter::Open(journal_path, /*append=*/true);
  if (!writer.ok()) return Fail(2, std::string(writer.status().message()));

  const int total = static_cast<int>(plan->size());
  const auto run_start = Clock::now();
  int done_this_run = 0;
  int failed_starts = 0;
  std::fprintf(stderr, "flashscope run: suite %s, %d cases; journal %s\n", suite->name.c_str(),
               total, journal_path.c_str());

  auto deadline_left = [&]() {
    if (args.deadline_s <= 0) return 1e18;
    return args.deadline_s - std::chrono::duration<double>(Clock::now() - run_start).count();
  };
  bool stopped_by_deadline = false;
  while (!stopped_by_deadline) {
    auto journal = reports::ReadJournal(journal_path);
    if (!journal.ok()) return Fail(2, std::string(journal.status().message()));
    const int finished = static_cast<int>(journal->finished.size());
    if (finished >= total) break;

    auto worker = Spawn(args, journal_path);
    if (!worker.ok()) return Fail(2, std::string(worker.status().message()));
    int current = -1;
    auto case_start = Clock::now();
    bool progressed = false, timed_out = false;
    std::string fatal, line;
    int finished_now = finished;
    while (true) {
      double limit =
          current >= 0
              ? case_limit_s - std::chrono::duration<double>(Clock::now() - case_start).count()
              : kStartupLimitS;
      // --deadline_s: stop waiting when the run's own time is up (the case in flight is killed
      // below and stays unrecorded, so --resume runs it again).
      if (deadline_left() < limit) {
        if (!ReadLine(*worker, std::max(deadline_left(), 0.0), &line, &timed_out)) {
          stopped_by_deadline = timed_out;
          break;
        }
      } else if (!ReadLine(*worker, limit, &line, &timed_out)) {
        break;
      }
      std::istringstream in(line);
      std::string tag;
      in >> tag;
      if (tag == "S") {
        in >> current;
        case_start = Clock::now();
      } else if (tag == "F") {
        int index = -1;
        std::string status;
        in >> index >> status;
        current = -1;
        progressed = true;
        ++done_this_run;
        ++finished_now;
        if (!args.quiet && index >= 0 && index < total) {
          double elapsed = std::chrono::duration<double>(Clock::now() - run_start).count();
          double eta = elapsed / done_this_run * (total - finished_now);
          std::fprintf(stderr, "[%d/%d] %-8s %s  (elapsed %s, ETA %s)\n", finished_now, total,
                       status.c_str(), (*plan)[index].key.c_str(), Clock_(elapsed).c_str(),
                       Clock_(eta).c_str());
        }
      } else if (tag == "ENV") {
        std::fprintf(stderr, "flashscope run: %s\n", line.substr(4).c_str());
      } else if (tag == "FATAL") {
        fatal = line.substr(6);
      }
    }
    if (timed_out) kill(worker->pid, SIGKILL);
    if (stopped_by_deadline) {
      // The case in flight is simply unfinished: --resume runs it again.
      close(worker->fd);
      int ignored = 0;
      while (waitpid(worker->pid, &ignored, 0) < 0 && errno == EINTR) {
      }
      std::fprintf(stderr,
                   "flashscope run: stopped at the --deadline_s limit of %.0f s; continue with: "
                   "flashscope run %s --resume %s\n",
                   args.deadline_s, args.suite_path.c_str(), journal_path.c_str());
      break;
    }
    close(worker->fd);
    int status = 0;
    while (waitpid(worker->pid, &status, 0) < 0 && errno == EINTR) {
    }

    if (current >= 0) {
      // The case in flight has no result: the worker hung or died inside it.
      reports::CaseResult r = NewCaseResult((*plan)[current], *suite);
      if (timed_out) {
        r.status = reports::CaseStatus::kTimeout;
        r.reason = absl::StrFormat(
            "exceeded the case time limit of %.0f s and was killed (raise it with "
            "--case_timeout_s or the suite's case_timeout_s)",
            case_limit_s);
        r.wall_s = case_limit_s;
      } else {
        r.status = reports::CaseStatus::kError;
        r.reason = DescribeExit(status) + " while running this case";
      }
      if (auto s = writer->CaseFinished(current, r); !s.ok()) {
        return Fail(2, std::string(s.message()));
      }
      std::fprintf(stderr, "[%d/%d] %-8s %s: %s\n", finished_now + 1, total,
                   reports::CaseStatusName(r.status), (*plan)[current].key.c_str(),
                   r.reason.c_str());
      ++done_this_run;
      progressed = true;
    }
    if (!fatal.empty() && !progressed) return Fail(2, fatal);
    if (timed_out && current < 0) {
      return Fail(2,
                  absl::StrFormat("the worker did not start a case within %.0f s", kStartupLimitS));
    }
    if (!progressed) {
      // Guard against a loop of workers that die before they run anything.
      if (++failed_starts >= 2) {
        return Fail(2, DescribeExit(status) + " before running any case, twice; giving up");
      }
    } else {
      failed_starts = 0;
    }
  }

  if (!sanitizer_path.empty()) {
    auto so_far = reports::ReadJournal(journal_path);
    if (!so_far.ok()) return Fail(2, std::string(so_far.status().message()));
    if (static_cast<int>(so_far->finished.size()) < total) {
      std::fprintf(stderr,
                   "flashscope run: --sanitize: not started, the run is incomplete; resume it "
                   "with --sanitize to check its cases\n");
    } else {
      SanitizeArgs sa;
      sa.tool = args.sanitize_tool;
      sa.sanitizer_path = sanitizer_path;
      sa.worker_exe = args.worker_exe;
      sa.suite_path = args.suite_path;
      sa.kernels_filter = args.kernels_filter;
      // Without it the rerun's worker would plan the whole suite and --only_cases would pick
      // another shard's case of the same index.
      sa.shard = args.shard;
      sa.journal_path = journal_path;
      sa.case_limit_s = case_limit_s;
      sa.quiet = args.quiet;
      if (auto s = RunSanitizePass(sa, *plan); !s.ok()) return Fail(2, std::string(s.message()));
    }
  }

  auto contents = reports::ReadJournal(journal_path);
  if (!contents.ok()) return Fail(2, std::string(contents.status().message()));
  SuperviseResult result;
  result.report = reports::ReportFromJournal(*contents);
  result.report.complete = static_cast<int>(contents->finished.size()) >= total;
  reports::Environment& env = result.report.environment;
  env.finished_at = UtcNow("%Y-%m-%dT%H:%M:%SZ");
  env.git_revision = FLASHSCOPE_GIT_REVISION;
  env.flashscope_version = FLASHSCOPE_VERSION;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) env.host = host;
  if (auto s = reports::WriteReportFileAtomic(result.report, out_path); !s.ok()) {
    return Fail(2, absl::StrCat(s.message(), " (the journal ", journal_path,
                                " still holds every result; `flashscope show` reads it)"));
  }
  if (result.report.complete) std::filesystem::remove(journal_path);
  result.report_path = out_path;
  result.exit_code = result.report.complete ? 0 : 1;
  for (const auto& c : result.report.cases) {
    if (c.status == reports::CaseStatus::kFailed || c.status == reports::CaseStatus::kError ||
        c.status == reports::CaseStatus::kTimeout) {
      result.exit_code = 1;
    }
    if (c.sanitizer && c.sanitizer->errors > 0) result.exit_code = 1;  // a finding is a failure
  }
  return result;
}

}  // namespace flashscope::suites
