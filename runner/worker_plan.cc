#include "runner/worker_plan.h"

#include <fstream>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runner/kernel_loading.h"
#include "runner/planner.h"

#if defined(FLASHSCOPE_HAVE_CUDA)
#include "profiler/device_info.h"
#include "runner/record_conversions.h"
#endif

namespace flashscope::runner {
namespace {

namespace protocol = suites::protocol;

// --dry_run's marks: what each planned case's kernel says about its problem, on this machine's GPU
// when there is one. A phase line before each call pins a crash in supports() on its kernel.
void AskSupports(const plugins::PluginSet& kernels, int progress_fd,
                 protocol::PlanningResult* result) {
  const int device_sm = result->device.usable ? result->device.cc : 0;
  for (const reports::PlannedCaseRecord& c : result->plan.cases) {
    const plugins::Kernel* k = c.error.empty() ? kernels.Find(c.kernel_id) : nullptr;
    if (k == nullptr) continue;
    protocol::Tell(
        progress_fd,
        {protocol::Event::kPhase, "", "",
         absl::StrCat(
             "supports() of ", c.key,
             k->provenance().builtin ? "" : absl::StrCat(" (plugin ", k->provenance().path, ")"))});
    std::string why = k->Supports(c.problem, device_sm);
    if (!why.empty()) result->refusals[c.key] = std::move(why);
  }
}

}  // namespace

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

int PlanSuite(const protocol::WorkerRequest& r) {
  auto suite = ReadSuiteFile(r.suite_path);
  if (!suite.ok()) return protocol::TellFatal(r.progress_fd, std::string(suite.status().message()));
  plugins::PluginSet kernels;
  const bool ab = !r.ab_base.empty();
  if (absl::Status s = ab ? LoadAbKernels(r.ab_base, r.ab_new, r.progress_fd, &kernels)
                          : LoadKernels(r.plugins, r.progress_fd, &kernels);
      !s.ok()) {
    return protocol::TellFatal(r.progress_fd, std::string(s.message()), protocol::kExitBadPlugin);
  }
  PlanInputs in{&suite->suite, suite->sha256, &kernels, r.kernels_filter, r.shard, r.lost_plugins};
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
  if (r.check_supports) AskSupports(kernels, r.progress_fd, &result);
  std::ofstream out(r.plan_out, std::ios::binary | std::ios::trunc);
  out << protocol::PlanningResultToText(result);
  out.close();
  if (!out) return protocol::TellFatal(r.progress_fd, absl::StrCat("cannot write ", r.plan_out));
  return 0;
}
}  // namespace flashscope::runner
