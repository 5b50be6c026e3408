#include "profiler/tools/range_cost.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "profiler/cupti_profiler.h"
#include "profiler/sample_stats.h"
#include "profiler/timing.h"
#include "profiler/work_counters.h"

namespace flashscope::profiler {
namespace {

using nlohmann::json;

struct CounterSet {
  std::string name;
  std::vector<std::string> hw;
};

std::vector<CounterSet> SetsFor(int cc, const std::vector<std::string>& extra) {
  std::vector<CounterSet> sets;
  // A session always counts the busiest SM's cycles and the clock (ProfileBatch's time): alone,
  // they are the floor every other set is measured against.
  sets.push_back({"cycles_only", {"sm__cycles_active.max"}});
  if (const WorkCounterSet* work = WorkCountersFor(cc)) {
    const std::vector<std::string> screen = work->ScreenHwNames();
    for (const std::string& hw : screen) sets.push_back({hw, {hw}});
    sets.push_back({"screen", screen});
  }
  for (const std::string& e : extra) {
    if (e.rfind("hw:", 0) != 0) continue;
    sets.push_back({e, absl::StrSplit(e.substr(3), '+', absl::SkipEmpty())});
  }
  return sets;
}

// One counter set's sessions of `launches` launches, `repeat` times (after one that enables the
// object): per range and pass, CUPTI's Push+Pop and the launch with its waits; per pass, Start
// and Stop.
json MeasureSet(const CounterSet& set, const Workload& w, int launches, int repeat, Timer& timer,
                cudaStream_t stream) {
  json entry = {{"set", set.name}, {"metrics", set.hw}, {"launches", launches}};
  std::vector<MetricDef> defs;
  for (const std::string& hw : set.hw) defs.push_back({hw, hw, "", "range-cost probe", 0});
  auto rp = RangeProfiler::Create(defs, 0);
  if (!rp.ok()) {
    entry["error"] = std::string(rp.status().message());
    return entry;
  }
  std::vector<BatchLaunch> batch(static_cast<size_t>(launches));
  for (BatchLaunch& l : batch) {
    l.before = [&timer]() { return timer.FlushL2(); };
    l.launch = w.launch;
  }
  std::vector<double> range_ms, launch_ms, wall_ms;
  for (int r = 0; r <= repeat; ++r) {
    BatchProfile b = (*rp)->ProfileBatch(batch, stream, MetricScope::kAll);
    if (!b.status.ok()) {
      entry["error"] = std::string(b.status.message());
      return entry;
    }
    if (r == 0) continue;  // the first enables the object
    const double ranges = static_cast<double>(b.passes) * launches;
    // host.start and host.stop hold each pass's Start/Stop and each range's Push/Pop: a session
    // of one launch shows the per-pass part, which the larger sessions share out.
    range_ms.push_back((b.host.start + b.host.stop) / ranges * 1e3);
    launch_ms.push_back(b.host.launch / ranges * 1e3);
    wall_ms.push_back(b.wall_s * 1e3);
    entry["passes"] = b.passes;
  }
  entry["push_pop_ms_per_range_median"] = Summarize(range_ms).median;
  entry["launch_ms_per_range_median"] = Summarize(launch_ms).median;
  entry["session_wall_ms_median"] = Summarize(wall_ms).median;
  return entry;
}

}  // namespace

int RunRangeCost(const DeviceInfo& device, const WorkloadSet& set, int repeat,
                 const std::vector<std::string>& extra, cudaStream_t stream, json& out) {
  if (set.workloads().empty()) {
    out["error"] = "no workload to launch";
    return 2;
  }
  auto timer = Timer::Create(stream);
  if (!timer.ok()) {
    out["error"] = absl::StrCat("L2 flush buffer: ", timer.status().message());
    return 1;
  }
  const Workload& w = set.workloads().front();
  int rc = 0;
  json entries = json::array();
  for (const CounterSet& s : SetsFor(device.cc, extra)) {
    for (int launches : {1, 16, RangeProfiler::kMaxBatchLaunches}) {
      json e = MeasureSet(s, w, launches, repeat, **timer, stream);
      e["workload"] = w.name;
      if (e.contains("error")) rc = 1;
      std::fprintf(
          stderr, "flashscope-metric-probe: range-cost %s x%d: %s\n", s.name.c_str(), launches,
          e.contains("error") ? e["error"].get<std::string>().c_str()
                              : absl::StrCat(e["passes"].get<int>(), " passes, push+pop ",
                                             e["push_pop_ms_per_range_median"].get<double>(),
                                             " ms a range, launch ",
                                             e["launch_ms_per_range_median"].get<double>(), " ms")
                                    .c_str());
      entries.push_back(std::move(e));
    }
  }
  out["range_cost"] = entries;
  out["repeat"] = repeat;
  return rc;
}

}  // namespace flashscope::profiler
