// flashscope-worker: the process that loads plugins and touches CUDA, started by `flashscope`
// (supervisor/supervisor.h) and never meant to be run by hand. Commands (protocol/worker_protocol.h):
//   plan     load the plugins, plan the suite, probe the device; write the planning result
//   run      run the cases of the plan in a journal that the journal does not hold yet
//   ab       run the pairs of a `flashscope ab` session (its two journals, one per side)
//   list     print the kernels of the built-in and the given plugins (`flashscope list`)
//   metrics  print the hardware-metric catalogue (`flashscope metrics`)
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/sha256.h"
#include "profiler/metric_catalogue.h"
#include "runner/kernel_listing.h"
#include "runner/kernel_loading.h"
#include "runner/planner.h"
#include "protocol/worker_protocol.h"

#if defined(FLASHSCOPE_HAVE_CUDA)
#include "profiler/device_info.h"
#include "runner/record_conversions.h"
#include "runner/worker_ab.h"
#include "runner/worker_run.h"
#endif

namespace flashscope::runner {
namespace {

namespace protocol = suites::protocol;

// CUDA's device 0 (a run without --devices uses it) and every GPU this process can see, for the
// supervisor to choose from (supervisor/device_selection.h). Reads properties only: no context.
void ProbeDevices(protocol::PlanningResult* result) {
  protocol::DeviceRecord& d = result->device;
#if defined(FLASHSCOPE_HAVE_CUDA)
  auto count = profiler::CountDevices();
  if (!count.ok()) {
    d.reason = std::string(count.status().message());
    return;
  }
  for (int i = 0; i < *count; ++i) {
    auto device = profiler::QueryDevice(i);
    if (!device.ok()) {
      if (i == 0) d.reason = std::string(device.status().message());
      continue;
    }
    if (i == 0) d.usable = true, d.name = device->name, d.cc = device->cc;
    result->devices.push_back(ToDevice(*device, i));
  }
#else
  d.reason = "this flashscope was built without CUDA (no nvcc, or -DFLASHSCOPE_CUDA=OFF)";
#endif
}

int Plan(const protocol::WorkerRequest& r) {
  auto suite = suites::LoadSuiteFile(r.suite_path);
  if (!suite.ok()) return protocol::TellFatal(r.progress_fd, std::string(suite.status().message()));
  auto sha = plugins::Sha256OfFile(r.suite_path);
  if (!sha.ok()) return protocol::TellFatal(r.progress_fd, std::string(sha.status().message()));
  plugins::PluginSet kernels;
  const bool ab = !r.ab_base.empty();
  if (absl::Status s = ab ? LoadAbKernels(r.ab_base, r.ab_new, r.progress_fd, &kernels)
                          : LoadKernels(r.plugins, r.progress_fd, &kernels);
      !s.ok()) {
    return protocol::TellFatal(r.progress_fd, std::string(s.message()), protocol::kExitBadPlugin);
  }
  PlanInputs in{&*suite, *sha, &kernels, r.kernels_filter, r.shard, r.lost_plugins};
  protocol::PlanningResult result;
  if (ab) {
    auto plan = MakeAbPlan(in);
    if (!plan.ok()) return protocol::TellFatal(r.progress_fd, std::string(plan.status().message()));
    result.plan = std::move(plan->base);
    result.ab_new = std::move(plan->next);
  } else {
    auto plan = MakePlan(in);
    if (!plan.ok()) return protocol::TellFatal(r.progress_fd, std::string(plan.status().message()));
    result.plan = *std::move(plan);
  }
  ProbeDevices(&result);
  std::ofstream out(r.plan_out, std::ios::binary | std::ios::trunc);
  out << protocol::PlanningResultToText(result);
  out.close();
  if (!out) return protocol::TellFatal(r.progress_fd, absl::StrCat("cannot write ", r.plan_out));
  return 0;
}

int List(const protocol::WorkerRequest& r) {
  plugins::PluginSet kernels;
  if (absl::Status s = LoadKernels(r.plugins, r.progress_fd, &kernels); !s.ok()) {
    return protocol::TellFatal(r.progress_fd, std::string(s.message()), protocol::kExitBadPlugin);
  }
#if !defined(FLASHSCOPE_HAVE_CUDA)
  std::printf(
      "(this flashscope was built without CUDA: only plugins' kernels are listed, and none can "
      "run; rebuild with the CUDA toolkit for flashscope's own)\n");
#endif
  std::printf("%s", ListKernels(kernels, r.all, r.progress_fd).c_str());
  return 0;
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
      return flashscope::runner::Plan(*request);
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
