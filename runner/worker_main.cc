// flashscope-worker: the process that loads plugins and touches CUDA, started by `flashscope`
// (supervisor/supervisor.h) and never meant to be run by hand. Commands
// (protocol/worker_protocol.h):
//   plan     load the plugins, plan the suite, probe the device; write the planning result
//   run      run the cases of the plan in a journal that the journal does not hold yet
//   ab       run the pairs of a `flashscope ab` session (its two journals, one per side)
//   list     print the kernels of the built-in and the given plugins (`flashscope list`)
//   metrics  print the hardware-metric catalogue (`flashscope metrics`)
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "profiler/metric_catalogue.h"
#include "protocol/worker_protocol.h"
#include "reports/text_safety.h"
#include "runner/kernel_listing.h"
#include "runner/kernel_loading.h"
#include "runner/worker_plan.h"

#if defined(FLASHSCOPE_HAVE_CUDA)
#include "runner/worker_ab.h"
#include "runner/worker_run.h"
#endif

namespace flashscope::runner {
namespace {

namespace protocol = suites::protocol;

// A Python module whose import stopped at a package this interpreter does not have (torch on a
// machine without a GPU): not a defect of the module, so the listing says what it needs and
// still succeeds. The bridge's message starts with Python's own "ModuleNotFoundError".
bool NeedsAbsentPythonPackage(const RefusedPlugin& r) {
  return absl::EndsWith(r.path, ".py") &&
         absl::StrContains(r.reason, "ModuleNotFoundError: No module named");
}

// What could not be listed, after the listing (last, so that it is not scrolled away). Returns
// the worker's exit code: a refused plugin fails the command, a missing Python package does not.
int PrintWhatWasNotListed(const std::vector<RefusedPlugin>& refused,
                          const std::vector<std::string>& unmatched, const std::string& filter) {
  int code = 0;
  if (!refused.empty()) std::printf("\nplugins not listed (%zu):\n", refused.size());
  for (const RefusedPlugin& r : refused) {
    const bool absent_package = NeedsAbsentPythonPackage(r);
    if (!absent_package) code = protocol::kExitBadPlugin;
    std::string reason = reports::text::TerminalSafeLines(r.reason);
    absl::StrReplaceAll({{"\n", "\n      "}}, &reason);
    std::printf("  %s\n    %s: %s\n", reports::text::TerminalSafe(r.path).c_str(),
                absent_package ? "needs a Python package this interpreter lacks (its kernels can "
                                 "be listed and run where it is installed)"
                               : "REFUSED",
                reason.c_str());
  }
  if (!unmatched.empty()) {
    std::printf("\n--kernels %s: no kernel matches %s\n",
                reports::text::TerminalSafe(filter).c_str(),
                absl::StrJoin(unmatched, "; ").c_str());
    code = code != 0 ? code : protocol::kExitFatal;
  }
  return code;
}

int List(const protocol::WorkerRequest& r) {
  plugins::PluginSet kernels;
  const std::vector<RefusedPlugin> refused = LoadKernelsListing(r.plugins, r.progress_fd, &kernels);
#if !defined(FLASHSCOPE_HAVE_CUDA)
  if (!r.plugin_only) {
    std::printf(
        "(this flashscope was built without CUDA: only plugins' kernels are listed, and none can "
        "run; rebuild with the CUDA toolkit for flashscope's own)\n");
  }
#endif
  const Listing listing =
      ListKernels(kernels, {r.all, r.kernels_filter, r.plugin_only, r.progress_fd});
  std::printf("%s", listing.text.c_str());
  return PrintWhatWasNotListed(refused, listing.unmatched, r.kernels_filter);
}

int Metrics(const protocol::WorkerRequest& r) {
  int cc = r.cc;
  std::string source = "--cc";
  if (cc == 0) {
    protocol::PlanningResult probe;
    ProbeDevices(&probe);
    if (probe.device.usable) {
      cc = probe.device.cc;
      source = probe.device.name;
    }
  }
  if (cc == 0) {
    cc = 90;
    source = "no GPU here; showing sm_90 (use --cc 80 for Ampere)";
  }
  std::printf(
      "hardware metrics for sm_%d (%s)\nsets: basic, full; any raw metric name with '__' "
      "is accepted too\n\n",
      cc, source.c_str());
  for (const auto& m : profiler::MetricCatalogue(cc)) {
    std::printf("  %-24s %-6s %s\n      %s\n", m.name.c_str(), m.unit.c_str(),
                m.description.c_str(), m.hw_name.c_str());
  }
  return 0;
}

// What list and metrics print is the command's output: a write that failed (a full disk behind
// `> file`) is said, with its cause, and fails the command.
int FinishStandardOutput(int rc) {
  errno = 0;
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout);
  if (!failed) return rc;
  std::fprintf(stderr,
               "flashscope-worker: writing to standard output failed: %s; the output is "
               "incomplete\n",
               std::strerror(errno != 0 ? errno : EIO));
  return rc == 0 ? protocol::kExitFatal : rc;
}

}  // namespace
}  // namespace flashscope::runner

int main(int argc, char** argv) {
  namespace protocol = flashscope::suites::protocol;
  auto request = protocol::ParseWorkerArgv(std::vector<std::string>(argv, argv + argc));
  if (!request.ok()) {
    std::fprintf(stderr, "%s\n", std::string(request.status().message()).c_str());
    return protocol::kExitFatal;
  }
  switch (request->command) {
    case protocol::Command::kPlan:
      return flashscope::runner::PlanSuite(*request);
    case protocol::Command::kList:
      return flashscope::runner::FinishStandardOutput(flashscope::runner::List(*request));
    case protocol::Command::kMetrics:
      return flashscope::runner::FinishStandardOutput(flashscope::runner::Metrics(*request));
    case protocol::Command::kRun:
    case protocol::Command::kAb:
#if defined(FLASHSCOPE_HAVE_CUDA)
      return request->command == protocol::Command::kAb ? flashscope::runner::RunAbPairs(*request)
                                                        : flashscope::runner::RunCases(*request);
#else
      return protocol::TellFatal(
          request->progress_fd,
          "this flashscope was built without CUDA (no nvcc, or -DFLASHSCOPE_CUDA=OFF), so it "
          "cannot run kernels; rebuild it with the CUDA toolkit on a machine with a GPU");
#endif
  }
  return protocol::kExitFatal;
}
