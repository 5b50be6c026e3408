#include "supervisor/sanitize.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "protocol/worker_process.h"
#include "protocol/worker_protocol.h"
#include "reports/journal.h"
#include "supervisor/sanitizer_output.h"

namespace flashscope::suites {
namespace {

using Clock = std::chrono::steady_clock;

std::string ReadWholeFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Starts argv[0] with argv in its own process group (so that a kill reaches the worker that
// compute-sanitizer starts below it), its stdout and stderr into `output_path`.
absl::StatusOr<pid_t> Start(const std::vector<std::string>& argv, const std::string& output_path,
                            const std::vector<std::pair<std::string, std::string>>& environment) {
  std::vector<std::string> env = ChildEnvironment(environment);
  std::vector<char*> cenv;
  for (auto& e : env) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  if (pid == 0) {
    setpgid(0, 0);
    if (FILE* out = std::fopen(output_path.c_str(), "w")) {
      dup2(fileno(out), STDOUT_FILENO);
      dup2(fileno(out), STDERR_FILENO);
    }
    std::vector<char*> cargv;
    for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);
    execve(argv[0].c_str(), cargv.data(), cenv.data());
    std::fprintf(stderr, "cannot start %s: %s\n", argv[0].c_str(), std::strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);  // also here: whichever runs first, the group exists before a kill
  return pid;
}

// Waits for `pid` at most `limit_s`; on time-out kills its whole process group. Returns the wait
// status, and sets *timed_out.
int WaitWithLimit(pid_t pid, double limit_s, bool* timed_out) {
  *timed_out = false;
  const auto deadline = Clock::now() + std::chrono::duration<double>(limit_s);
  int status = 0;
  while (true) {
    pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid) return status;
    if (got < 0 && errno != EINTR) return status;
    if (Clock::now() >= deadline) {
      *timed_out = true;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string Summary(const reports::SanitizerRecord& r) {
  if (!r.ran) return "not checked: " + r.note;
  if (r.errors == 0) return "0 errors";
  std::string s = absl::StrCat(r.errors, r.errors == 1 ? " error" : " errors");
  if (!r.findings.empty()) {
    absl::StrAppend(&s, ": ", r.findings[0].kind);
    if (!r.findings[0].kernel.empty()) absl::StrAppend(&s, " in ", r.findings[0].kernel);
  }
  return s;
}

// compute-sanitizer's kernel filter (kns: a substring of the kernel's name, mangled or not) for
// every kernel in flashscope's harness namespaces; the kernels under test live elsewhere
// (flashscope::kernels, plugins, libraries).
constexpr char kHarnessKernelFilter[] =
    "kns=10flashscope6verify,kns=10flashscope6runner,kns=10flashscope8profiler,"
    "kns=flashscope::verify::,kns=flashscope::runner::,kns=flashscope::profiler::";

}  // namespace

std::vector<std::string> SanitizeRerunArgv(const SanitizeArgs& args, const std::string& journal,
                                           const std::string& log, const std::string& key) {
  protocol::WorkerRequest request;
  request.command = protocol::Command::kRun;
  request.journal_path = journal;
  request.only_keys = {key};
  request.sanitize_rerun = true;
  // Our own code's expected API errors (probes that may fail) are not the kernel's: only
  // device-side findings. The harness's own kernels (inputs, references, sampled rows, integrity
  // hashes, profiler probes) still run but are not checked: they are not what the user asked
  // about, they have sanitizer runs of their own (their GPU tests), and with them checked racecheck
  // did not finish the first case of shapes_tiny in 170 s (2026-11-28, session 3).
  std::vector<std::string> argv = {
      args.sanitizer_path,   "--tool", args.tool,       "--log-file", log,
      "--report-api-errors", "no",     "--print-limit", "100",        "--kernel-name-exclude",
      kHarnessKernelFilter};
  for (auto& a : protocol::WorkerArgv(args.worker_exe, request)) argv.push_back(std::move(a));
  return argv;
}

namespace {

// One case under the tool: a scratch journal holding the run's header and environment (so the
// worker neither measures peaks nor touches the run's journal), the tool's log in a file.
reports::SanitizerRecord RerunOne(const SanitizeArgs& args, const reports::JournalContents& run,
                                  int index, const std::string& key,
                                  const std::string& scratch_dir) {
  const auto start = Clock::now();
  reports::SanitizerRecord failed;
  failed.tool = args.tool;
  const std::string stem = absl::StrCat(scratch_dir, "/case-", index);
  const std::string journal = stem + ".jsonl";
  const std::string log = stem + "." + args.tool + ".log";
  const std::string output = stem + ".out";
  {
    auto w = reports::JournalWriter::Open(journal, /*append=*/false);
    absl::Status s = w.ok() ? w->WriteHeader(run.suite, "flashscope run --sanitize", run.started_at,
                                             run.plan ? &*run.plan : nullptr)
                            : w.status();
    if (s.ok()) s = w->WriteEnvironment(run.environment.value_or(reports::Environment{}));
    // The GPUs' peaks: the rerun's worker finds its own and measures nothing.
    for (const auto& d : run.devices) {
      if (s.ok()) s = w->WriteDevice(d);
    }
    if (!s.ok()) {
      failed.note = absl::StrCat("cannot write the scratch journal: ", s.message());
      return failed;
    }
  }
  std::filesystem::remove(log);
  const std::vector<std::string> argv = SanitizeRerunArgv(args, journal, log, key);
  auto pid = Start(argv, output, args.environment);
  if (!pid.ok()) {
    failed.note = std::string(pid.status().message());
    return failed;
  }
  bool timed_out = false;
  const double limit_s = SanitizeLimitS(args.case_limit_s);
  const int status = WaitWithLimit(*pid, limit_s, &timed_out);

  reports::SanitizerRecord r = ParseSanitizerOutput(args.tool, ReadWholeFile(log));
  r.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  // The worker runs cases by key: the result, if any, is this case's.
  auto rerun = reports::ReadJournal(journal);
  if (rerun.ok()) {
    const auto results = rerun->FinishedByKey();
    if (auto it = results.find(key); it != results.end()) {
      r.case_status = reports::CaseStatusName(it->second->status);
      r.case_reason = it->second->reason;
    }
  }
  std::string why;
  if (timed_out) {
    why = absl::StrFormat("the rerun under %s passed its limit of %.0f s and was killed", args.tool,
                          limit_s);
  } else if (!r.ran) {
    const std::string tail = ReadWholeFile(output);
    why = absl::StrCat("compute-sanitizer ended (",
                       WIFEXITED(status) ? absl::StrCat("exit code ", WEXITSTATUS(status))
                                         : absl::StrCat("signal ", WTERMSIG(status)),
                       ") without a summary; its output ends: ",
                       tail.size() > 400 ? tail.substr(tail.size() - 400) : tail);
  }
  if (!why.empty()) absl::StrAppend(&r.note, r.note.empty() ? "" : "; ", why);
  if (timed_out) r.ran = false;
  return r;
}

}  // namespace

double SanitizeLimitS(double case_limit_s) { return std::max(120.0, 3 * case_limit_s); }

absl::Status RunSanitizePass(const SanitizeArgs& args, const reports::PlanRecord& plan) {
  absl::StatusOr<reports::JournalContents> read;
  if (args.journal == nullptr) {
    read = reports::ReadJournal(args.journal_path);
    if (!read.ok()) return read.status();
  }
  const reports::JournalContents* run = args.journal != nullptr ? args.journal : &*read;
  auto writer = reports::JournalWriter::Open(args.journal_path, /*append=*/true);
  if (!writer.ok()) return writer.status();
  const std::string scratch_dir = args.journal_path + ".sanitize";
  std::error_code ec;
  std::filesystem::create_directories(scratch_dir, ec);
  if (ec) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create ", scratch_dir, " for the sanitizer's logs: ", ec.message()));
  }

  // In plan order, by key: only the plan's cases, each once.
  std::vector<const reports::PlannedCaseRecord*> todo;
  const auto results = run->FinishedByKey();
  for (const reports::PlannedCaseRecord& planned : plan.cases) {
    auto it = results.find(planned.key);
    if (it == results.end() || !planned.error.empty()) continue;
    const reports::CaseResult& c = *it->second;
    if (c.status == reports::CaseStatus::kSkipped) continue;
    if (c.sanitizer && c.sanitizer->tool == args.tool) continue;  // done before a --resume
    todo.push_back(&planned);
  }
  std::fprintf(stderr, "flashscope run: --sanitize=%s: rerunning %zu cases one by one under %s\n",
               args.tool.c_str(), todo.size(), args.sanitizer_path.c_str());
  int done = 0, with_errors = 0;
  for (const reports::PlannedCaseRecord* planned : todo) {
    reports::CaseResult c = *results.at(planned->key);
    reports::SanitizerRecord r;
    if (c.status == reports::CaseStatus::kTimeout) {
      r.tool = args.tool;
      r.note = "not rerun: the case timed out in the normal run and would only hang again, slower";
    } else {
      r = RerunOne(args, *run, planned->index, planned->key, scratch_dir);
    }
    if (r.errors > 0) ++with_errors;
    ++done;
    if (!args.quiet) {
      std::fprintf(stderr, "[sanitize %d/%zu] %-9s %s: %s\n", done, todo.size(), args.tool.c_str(),
                   planned->key.c_str(), Summary(r).c_str());
    }
    c.sanitizer = std::move(r);
    if (absl::Status s = writer->CaseFinished(planned->index, c); !s.ok()) return s;
  }
  std::fprintf(stderr, "flashscope run: --sanitize=%s: %d of %d cases with errors; logs in %s\n",
               args.tool.c_str(), with_errors, done, scratch_dir.c_str());
  return absl::OkStatus();
}

}  // namespace flashscope::suites
