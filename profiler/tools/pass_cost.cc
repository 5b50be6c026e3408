#include "profiler/tools/pass_cost.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
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

struct PassCostConfig {
  std::string name;
  std::string what;
  // The metrics: these hardware names, or (empty) the work counters' hardware scope.
  std::vector<std::string> hw;
  RangeMode ranges = RangeMode::kAuto;
  Replay replay = Replay::kUser;
  int launches_per_pass = 1;
  bool tensor_only = false;  // with hw empty: the work counters' tensor paths alone
};

constexpr char kDramRead[] = "dram__bytes_read.sum";
constexpr char kDramWrite[] = "dram__bytes_write.sum";
constexpr char kBf16[] = "sm__ops_path_tensor_src_bf16_dst_fp32.sum";
constexpr char kGpuTime[] = "gpu__time_duration.sum";
// GH100's work counters with mma.sync int8 counted by instructions (it shares the hmma path
// selector and takes two passes of its own as ops) and wgmma int8 by ops.
const std::vector<std::string>& WorkWithoutImmaOps() {
  static const std::vector<std::string> kNames = {
      "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum",
      "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16.sum",
      "sm__ops_path_tensor_op_hgmma_src_fp16.sum",
      "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
      "sm__ops_path_tensor_src_tf32_dst_fp32.sum",
      "sm__ops_path_tensor_src_fp8.sum",
      "sm__ops_path_tensor_op_igmma_src_int8.sum",
      "sm__inst_executed_pipe_tensor_op_imma.sum",
      kDramRead,
      kDramWrite};
  return kNames;
}

std::vector<PassCostConfig> Configs() {
  return {
      {"work_hw_auto", "work counters (hardware scope), auto ranges: what the trust check runs"},
      {"work_hw_user",
       "work counters (hardware scope), one user range per pass",
       {},
       RangeMode::kUser},
      {"work_no_imma_ops", "work counters, mma.sync int8 by instructions (4 passes)",
       WorkWithoutImmaOps()},
      {"imma_ops_only",
       "mma.sync int8 ops alone (2 passes)",
       {"sm__ops_path_tensor_op_imma_src_int8.sum"}},
      {"gpu_time_only", "gpu__time_duration alone (1 pass)", {kGpuTime}},
      {"dram_only", "DRAM bytes read and written (1 pass)", {kDramRead, kDramWrite}},
      {"bf16_only", "the bf16 tensor path alone (1 pass)", {kBf16}},
      {"bf16_dram", "the bf16 tensor path and DRAM bytes", {kBf16, kDramRead, kDramWrite}},
      {"tensor_paths", "every tensor path, no DRAM", {}, RangeMode::kAuto, Replay::kUser, 1, true},
      {"work_hw_user_x8",
       "work counters, one user range around 8 launches",
       {},
       RangeMode::kUser,
       Replay::kUser,
       8},
  };
}

std::vector<MetricDef> MetricsFor(const PassCostConfig& c, int cc) {
  std::vector<MetricDef> defs;
  for (const std::string& hw : c.hw) defs.push_back({hw, hw, "", "pass-cost probe", 0});
  if (!defs.empty()) return defs;
  const WorkCounterSet* work = WorkCountersFor(cc);
  if (work == nullptr) return defs;
  for (const std::string& hw : work->AllHwNames()) {
    const bool dram = hw == work->dram_read || hw == work->dram_write;
    if (!IsInstrumentedMetric(hw) && !(c.tensor_only && dram)) {
      defs.push_back({hw, hw, "", "work counter", 0});
    }
  }
  return defs;
}

json Medians(const std::vector<PassHostSeconds>& passes) {
  std::vector<double> before, drain, start, launch, stop, after, total;
  for (const PassHostSeconds& p : passes) {
    before.push_back(p.before);
    drain.push_back(p.drain);
    start.push_back(p.start);
    launch.push_back(p.launch);
    stop.push_back(p.stop);
    after.push_back(p.after);
    total.push_back(p.before + p.drain + p.start + p.launch + p.stop + p.after);
  }
  auto ms = [](const std::vector<double>& v) {
    return v.empty() ? 0.0 : Summarize(v).median * 1e3;
  };
  return {{"before_ms", ms(before)}, {"drain_ms", ms(drain)}, {"start_ms", ms(start)},
          {"launch_ms", ms(launch)}, {"stop_ms", ms(stop)},   {"after_ms", ms(after)},
          {"pass_ms", ms(total)}};
}

json ProfileConfig(const PassCostConfig& c, const DeviceInfo& device, const Workload& w, int repeat,
                   Timer& timer, cudaStream_t stream) {
  json entry = {{"workload", w.name}, {"config", c.name}, {"what", c.what}};
  std::vector<MetricDef> metrics = MetricsFor(c, device.cc);
  if (metrics.empty()) {
    entry["error"] = absl::StrCat("no work counters known for sm_", device.cc);
    return entry;
  }
  const auto t_create = std::chrono::steady_clock::now();
  auto rp = RangeProfiler::Create(metrics, 0);
  if (!rp.ok()) {
    entry["error"] = std::string(rp.status().message());
    return entry;
  }
  entry["create_s"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_create).count();
  (*rp)->set_range_mode(c.ranges);
  const int n = c.launches_per_pass;
  auto launch = [&](cudaStream_t s) -> cudaError_t {
    for (int i = 0; i < n; ++i) {
      if (cudaError_t e = w.launch(s); e != cudaSuccess) return e;
    }
    return cudaSuccess;
  };
  std::vector<PassHostSeconds> passes;
  std::vector<double> walls, configure, decode, passes_total, enable, set_config;
  int pass_count = 0;
  size_t host_entries = 0;  // pass_host entries per profile: one per launch we made (1 under
                            // kernel replay, where CUPTI runs every pass inside it)
  // The first call enables the profiler object; it is reported apart.
  for (int r = 0; r <= repeat; ++r) {
    auto result = (*rp)->Profile(
        launch, [&]() { return timer.FlushL2(); }, stream, c.replay);
    if (!result.ok()) {
      entry["error"] = std::string(result.status().message());
      return entry;
    }
    if (r == 0) {
      entry["first_call_s"] = result->wall_s;
      continue;
    }
    pass_count = result->passes;
    host_entries = result->pass_host.size();
    walls.push_back(result->wall_s);
    configure.push_back(result->configure_s);
    decode.push_back(result->decode_s);
    passes_total.push_back(result->passes_s);
    enable.push_back(result->enable_s);
    set_config.push_back(result->set_config_s);
    passes.insert(passes.end(), result->pass_host.begin(), result->pass_host.end());
    entry["ranges"] = result->ranges;
    entry["kernels"] = result->kernels;
  }
  entry["passes"] = pass_count;
  entry["launches_per_pass"] = n;
  entry["replay"] = ReplayName(c.replay);
  entry["profile_wall_ms_median"] = Summarize(walls).median * 1e3;
  entry["configure_ms_median"] = Summarize(configure).median * 1e3;
  entry["enable_ms_median"] = Summarize(enable).median * 1e3;
  entry["set_config_ms_median"] = Summarize(set_config).median * 1e3;
  entry["decode_ms_median"] = Summarize(decode).median * 1e3;
  entry["per_pass_median"] = Medians(passes);
  // By pass index (0 = the session's first pass): where a session's cost sits.
  json by_index = json::array();
  for (size_t i = 0; i < host_entries; ++i) {
    std::vector<PassHostSeconds> at;
    for (size_t j = i; j < passes.size(); j += host_entries) at.push_back(passes[j]);
    by_index.push_back(Medians(at));
  }
  entry["by_pass_index_median"] = by_index;
  entry["passes_ms_median"] = Summarize(passes_total).median * 1e3;
  return entry;
}

// Profiles with the hardware scope and with every metric in turn on one profiler, without (or
// with) enabling the object afresh at each change: whether CUPTI then runs the passes each
// config says and counts the same, and what a change costs.
json AlternateScopes(const Workload& w, int cc, int repeat, bool reenable, Timer& timer,
                     cudaStream_t stream) {
  json entry = {{"workload", w.name},
                {"config", reenable ? "alternate_scopes_reenable" : "alternate_scopes"},
                {"what", "hardware scope and every work counter in turn on one profiler"}};
  const WorkCounterSet* work = WorkCountersFor(cc);
  if (work == nullptr) {
    entry["error"] = absl::StrCat("no work counters known for sm_", cc);
    return entry;
  }
  std::vector<MetricDef> defs;
  for (const std::string& hw : work->AllHwNames()) defs.push_back({hw, hw, "", "work", 0});
  auto rp = RangeProfiler::Create(defs, 0);
  if (!rp.ok()) {
    entry["error"] = std::string(rp.status().message());
    return entry;
  }
  (*rp)->set_reenable_on_scope_change(reenable);
  entry["passes_needed"] = {{"hardware", (*rp)->PassesNeeded(MetricScope::kHardware)},
                            {"all", (*rp)->PassesNeeded(MetricScope::kAll)}};
  json calls = json::array();
  for (int r = 0; r < 2 * repeat; ++r) {
    const MetricScope scope = r % 2 == 0 ? MetricScope::kHardware : MetricScope::kAll;
    auto result = (*rp)->Profile(
        w.launch, [&]() { return timer.FlushL2(); }, stream, Replay::kUser, {}, scope);
    json call = {{"scope", scope == MetricScope::kHardware ? "hardware" : "all"}};
    if (!result.ok()) {
      call["error"] = std::string(result.status().message());
      entry["error"] = call["error"];
      calls.push_back(call);
      break;
    }
    call["passes"] = result->passes;
    call["wall_ms"] = result->wall_s * 1e3;
    call["enable_ms"] = result->enable_s * 1e3;
    json values = json::object();
    for (const auto& [def, v] : result->values) values[def.hw_name] = v;
    call["values"] = values;
    calls.push_back(call);
  }
  entry["calls"] = calls;
  return entry;
}

}  // namespace

int RunPassCost(const DeviceInfo& device, const WorkloadSet& set, int repeat,
                const std::vector<std::string>& only, cudaStream_t stream, json& out) {
  std::vector<PassCostConfig> configs;
  for (const std::string& name : only) {
    // "hw:A+B": hardware metrics A and B, auto ranges (for bisecting a costly pass group).
    if (name.rfind("hw:", 0) != 0) continue;
    PassCostConfig c{name, "the named hardware metrics, auto ranges"};
    c.hw = absl::StrSplit(name.substr(3), '+', absl::SkipEmpty());
    configs.push_back(c);
  }
  for (const PassCostConfig& c : Configs()) {
    if (only.empty() || std::find(only.begin(), only.end(), c.name) != only.end()) {
      configs.push_back(c);
    }
  }
  const size_t special = std::count(only.begin(), only.end(), "alternate_scopes");
  if (configs.size() + special < only.size() || (configs.empty() && special == 0)) {
    std::vector<std::string> names;
    for (const PassCostConfig& c : Configs()) names.push_back(c.name);
    out["error"] = absl::StrCat("--configs names an unknown configuration; known: ",
                                absl::StrJoin(names, ", "));
    std::fprintf(stderr, "flashscope-metric-probe: %s\n", out["error"].get<std::string>().c_str());
    return 2;
  }
  auto timer = Timer::Create(stream);
  if (!timer.ok()) {
    out["error"] = absl::StrCat("L2 flush buffer: ", timer.status().message());
    return 1;
  }
  int rc = 0;
  json entries = json::array();
  for (const Workload& w : set.workloads()) {
    for (const PassCostConfig& c : configs) {
      // One profiler at a time: CUPTI allows one range profiler per context.
      json e = ProfileConfig(c, device, w, repeat, **timer, stream);
      if (e.contains("error")) rc = 1;
      std::fprintf(stderr, "flashscope-metric-probe: pass-cost %s %s: %s\n", w.name.c_str(),
                   c.name.c_str(),
                   e.contains("error") ? e["error"].get<std::string>().c_str()
                                       : e["per_pass_median"].dump().c_str());
      entries.push_back(std::move(e));
    }
  }
  for (const Workload& w : set.workloads()) {
    if (!only.empty() && std::find(only.begin(), only.end(), "alternate_scopes") == only.end()) {
      break;
    }
    for (bool reenable : {false, true}) {
      json e = AlternateScopes(w, device.cc, repeat, reenable, **timer, stream);
      if (e.contains("error")) rc = 1;
      entries.push_back(std::move(e));
    }
  }
  out["pass_cost"] = entries;
  out["repeat"] = repeat;
  return rc;
}

}  // namespace flashscope::profiler
