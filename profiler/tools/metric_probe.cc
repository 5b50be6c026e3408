// flashscope-metric-probe: the same workloads measured by our range profiler and by Nsight
// Compute, for issue 3's cross-check (scripts/device/ncu-crosscheck.sh drives it on the GPU).
//   --mode ours   our RangeProfiler (user replay, L2 flushed before each pass) over every
//                 workload, --repeat times; prints a JSON of metric values per workload.
//   --mode plain  launches each workload exactly once inside an NVTX range named after it
//                 (domain "flashscope") with the stream drained before and after, and creates no
//                 profiler, so that `ncu --nvtx --nvtx-include flashscope@NAME/` sees that one
//                 launch and nothing of ours is collecting counters at the same time.
//   --mode list-metrics   the hardware names of --metrics for this GPU, comma separated
//   --mode list-workloads the names --workloads=default expands to, one per line
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "profiler/cupti_profiler.h"
#include "profiler/device_info.h"
#include "profiler/metric_catalogue.h"
#include "profiler/nvtx_ranges.h"
#include "profiler/sample_stats.h"
#include "profiler/timing.h"
#include "profiler/tools/pass_cost.h"
#include "profiler/tools/probe_workloads.h"
#include "profiler/tools/range_cost.h"

ABSL_FLAG(std::string, mode, "",
          "ours | plain | pass-cost | range-cost | list-metrics | list-workloads");
ABSL_FLAG(std::string, workloads, "default",
          "comma list: calib.mma_loop, calib.shared_loop, calib.copy, calib.exp_loop, any kernel "
          "id of `flashscope list`; or the words default (calibration + a05, a09, a10) and calib");
ABSL_FLAG(std::string, metrics, "full", "ours/list-metrics: basic, full or a comma list");
ABSL_FLAG(std::string, configs, "",
          "pass-cost: comma list of configurations to run (default: all; a wrong name lists them)");
ABSL_FLAG(int, repeat, 3, "ours: profile each workload this many times (median reported)");
ABSL_FLAG(std::string, out, "", "write the JSON here instead of stdout");
ABSL_FLAG(int, batch, 4, "attention problem: batch");
ABSL_FLAG(int, heads, 16, "attention problem: heads");
ABSL_FLAG(int, seq, 4096, "attention problem: sequence length (queries = keys)");
ABSL_FLAG(int, head_dim, 128, "attention problem: head dimension");
ABSL_FLAG(std::string, dtype, "bf16", "attention problem: fp16 | bf16");
ABSL_FLAG(bool, causal, false, "attention problem: causal mask");
ABSL_FLAG(int, gemm_m, 4096, "gemm problem: M");
ABSL_FLAG(int, gemm_n, 4096, "gemm problem: N");
ABSL_FLAG(int, gemm_k, 4096, "gemm problem: K");
ABSL_FLAG(std::string, gemm_dtype, "fp16", "gemm problem: fp32 | fp16 | bf16");
ABSL_FLAG(uint64_t, seed, 1, "input seed");

namespace flashscope::profiler {
namespace {

using nlohmann::json;

constexpr const char* kUsage =
    R"(our range profiler and Nsight Compute on the same launches.

usage:
  flashscope-metric-probe --mode ours  [--workloads LIST] [--metrics full] [--repeat 3] [--out F]
  flashscope-metric-probe --mode plain [--workloads LIST] [--out F]
  flashscope-metric-probe --mode pass-cost [--workloads LIST] [--repeat 3] [--out F]
  flashscope-metric-probe --mode range-cost [--workloads ONE] [--configs hw:A+B,...] [--out F]
  flashscope-metric-probe --mode list-metrics [--metrics basic]
  flashscope-metric-probe --mode list-workloads

workloads: calib.mma_loop calib.shared_loop calib.copy calib.exp_loop (the calibration kernels)
and any kernel id, run on --batch/--heads/--seq/--head_dim/--dtype/--causal (attention,
default attention_fwd{B=4,H=16,S=4096,D=128,bf16}) or --gemm_m/n/k/--gemm_dtype.
Pass-cost mode times each step of a counter pass (hooks, CUPTI Start/Stop, the launch) for
the work counters with auto and user ranges, one metric, 8 launches per pass and kernel replay.
Range-cost mode times CUPTI's Push/PopRange per range of a batched session (the trust check
`work`'s) for each screen counter alone (DRAM bytes among them), the whole screen and each --configs
"hw:A+B" set, in sessions of 1, 16 and 512 launches (the most one session holds) of the first
workload.
Plain mode creates no profiler: run it under ncu, e.g.
  ncu --nvtx --nvtx-include "flashscope@calib.mma_loop/" --metrics ... \
      flashscope-metric-probe --mode plain --workloads calib.mma_loop
exit codes: 0 success; 1 a workload or the profiler failed; 2 bad usage.
see docs/profiler.md and scripts/device/ncu-crosscheck.sh)";

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "flashscope-metric-probe: %s\n", message.c_str());
  return code;
}

std::vector<std::string> ExpandWorkloads(const std::string& spec) {
  std::vector<std::string> out;
  for (absl::string_view piece : absl::StrSplit(spec, ',', absl::SkipWhitespace())) {
    std::string item(piece);
    const std::vector<std::string>* group = nullptr;
    if (item == "default") group = &DefaultWorkloadNames();
    if (item == "calib") group = &CalibrationWorkloadNames();
    if (group == nullptr) {
      out.push_back(item);
    } else {
      out.insert(out.end(), group->begin(), group->end());
    }
  }
  return out;
}

absl::StatusOr<ProbeProblems> ProblemsFromFlags() {
  ProbeProblems p;
  AttentionProblem& a = p.attention;
  a.batch = absl::GetFlag(FLAGS_batch);
  a.heads = absl::GetFlag(FLAGS_heads);
  a.seq_q = a.seq_k = absl::GetFlag(FLAGS_seq);
  a.head_dim = absl::GetFlag(FLAGS_head_dim);
  a.causal = absl::GetFlag(FLAGS_causal);
  auto dtype = ParseDType(absl::GetFlag(FLAGS_dtype));
  if (!dtype || *dtype == DType::kF32 || *dtype == DType::kE4M3) {
    return absl::InvalidArgumentError(
        "--dtype must be fp16 or bf16 (the probe workloads have no "
        "fp32 or e4m3 attention)");
  }
  a.dtype = *dtype;
  p.gemm.m = absl::GetFlag(FLAGS_gemm_m);
  p.gemm.n = absl::GetFlag(FLAGS_gemm_n);
  p.gemm.k = absl::GetFlag(FLAGS_gemm_k);
  auto gdtype = ParseDType(absl::GetFlag(FLAGS_gemm_dtype));
  if (!gdtype || *gdtype == DType::kE4M3) {
    return absl::InvalidArgumentError("--gemm_dtype must be fp32, fp16 or bf16");
  }
  p.gemm.dtype = *gdtype;
  if (a.batch < 1 || a.heads < 1 || a.seq_q < 1 || a.head_dim < 1 || p.gemm.m < 1 || p.gemm.n < 1 ||
      p.gemm.k < 1) {
    return absl::InvalidArgumentError("problem sizes must be positive");
  }
  p.seed = absl::GetFlag(FLAGS_seed);
  return p;
}

json DeviceJson(const DeviceInfo& d) {
  return {{"name", d.name},
          {"cc", d.cc},
          {"sm_count", d.sm_count},
          {"sm_clock_mhz", d.sm_clock_mhz},
          {"memory_clock_mhz", d.memory_clock_mhz},
          {"memory_bus_bits", d.memory_bus_bits},
          {"driver", d.driver_version},
          {"runtime", d.runtime_version}};
}

int Emit(const json& j) {
  const std::string text = j.dump(2) + "\n";
  const std::string path = absl::GetFlag(FLAGS_out);
  if (path.empty()) {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  std::ofstream f(path);
  f << text;
  f.close();
  if (!f) return Fail(1, absl::StrCat("cannot write ", path));
  std::fprintf(stderr, "flashscope-metric-probe: wrote %s\n", path.c_str());
  return 0;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Our range profiler over every workload. One RangeProfiler serves all of them (as in the
// runner); its creation time is reported apart from the per-workload profiling time.
int RunOurs(const std::vector<MetricDef>& metrics, const WorkloadSet& set, cudaStream_t stream,
            json& out) {
  const int repeat = absl::GetFlag(FLAGS_repeat);
  if (repeat < 1) return Fail(2, "--repeat must be >= 1");
  auto timer = Timer::Create(stream);
  if (!timer.ok()) return Fail(1, absl::StrCat("L2 flush buffer: ", timer.status().message()));
  const auto t0 = std::chrono::steady_clock::now();
  auto rp = RangeProfiler::Create(metrics, 0);
  if (!rp.ok()) return Fail(1, absl::StrCat("range profiler: ", rp.status().message()));
  out["create_wall_s"] = Seconds(t0);
  out["chip"] = (*rp)->chip();
  out["passes_needed"] = (*rp)->PassesNeeded();
  out["repeat"] = repeat;
  out["replay"] = "user replay: the workload relaunched once per pass, L2 flushed before each";
  json metric_list = json::array();
  for (const auto& m : metrics) {
    metric_list.push_back({{"name", m.name},
                           {"hw_name", m.hw_name},
                           {"unit", m.unit},
                           {"description", m.description}});
  }
  out["metrics"] = metric_list;
  int rc = 0;
  json workloads = json::array();
  for (const Workload& w : set.workloads()) {
    json jw = {{"name", w.name}, {"description", w.description}};
    std::vector<std::vector<double>> samples(metrics.size());
    json passes = json::array(), walls = json::array(), kernels = json::array();
    for (int r = 0; r < repeat; ++r) {
      auto result = (*rp)->Profile(
          w.launch, [&]() { return (*timer)->FlushL2(); }, stream);
      if (!result.ok()) {
        jw["error"] = std::string(result.status().message());
        std::fprintf(stderr, "flashscope-metric-probe: %s: %s\n", w.name.c_str(),
                     jw["error"].get<std::string>().c_str());
        rc = 1;
        break;
      }
      passes.push_back(result->passes);
      walls.push_back(result->wall_s);
      kernels.push_back(result->kernels);
      jw["ranges"] = result->ranges;
      for (size_t i = 0; i < result->values.size(); ++i) {
        samples[i].push_back(result->values[i].second);
      }
    }
    jw["passes"] = passes;
    jw["wall_s"] = walls;
    jw["kernels"] = kernels;
    json values = json::object();
    for (size_t i = 0; i < metrics.size() && !samples[i].empty(); ++i) {
      const SampleSummary s = Summarize(samples[i]);
      values[metrics[i].hw_name] = {{"name", metrics[i].name},
                                    {"unit", metrics[i].unit},
                                    {"median", s.median},
                                    {"min", s.min},
                                    {"max", s.max},
                                    {"samples", samples[i]}};
    }
    jw["values"] = values;
    std::fprintf(stderr, "flashscope-metric-probe: %-24s %zu run(s)\n", w.name.c_str(),
                 passes.size());
    workloads.push_back(jw);
  }
  out["workloads"] = workloads;
  return rc;
}

// One launch per workload inside its NVTX range; the stream is drained before the range opens
// and before it closes, so the range holds that launch alone.
int RunPlain(const WorkloadSet& set, cudaStream_t stream, json& out) {
  int rc = 0;
  json workloads = json::array();
  for (const Workload& w : set.workloads()) {
    json jw = {{"name", w.name}, {"description", w.description}, {"nvtx_range", w.name}};
    if (cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) {
      return Fail(1, absl::StrCat("cudaStreamSynchronize: ", cudaGetErrorName(e)));
    }
    cudaError_t launch_error = cudaSuccess, sync_error = cudaSuccess;
    {
      NvtxRange range(w.name);
      launch_error = w.launch(stream);
      sync_error = cudaStreamSynchronize(stream);
    }
    if (launch_error != cudaSuccess || sync_error != cudaSuccess) {
      const cudaError_t e = launch_error != cudaSuccess ? launch_error : sync_error;
      jw["error"] =
          absl::StrCat(launch_error != cudaSuccess ? "launch: " : "kernel: ", cudaGetErrorName(e),
                       " (", cudaGetErrorString(e), ")");
      rc = 1;
    }
    workloads.push_back(jw);
  }
  out["workloads"] = workloads;
  return rc;
}

int Main(int argc, char** argv) {
  absl::FlagsUsageConfig config;
  config.contains_help_flags = [](absl::string_view file) {
    return absl::StrContains(file, "metric_probe");
  };
  config.contains_helpshort_flags = config.contains_help_flags;
  absl::SetFlagsUsageConfig(config);
  absl::SetProgramUsageMessage(kUsage);
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() > 1) {
    return Fail(2, absl::StrCat("unexpected argument '", positional[1], "'\n", kUsage));
  }
  const std::string mode = absl::GetFlag(FLAGS_mode);
  if (mode == "list-workloads") {
    const std::vector<std::string> names = ExpandWorkloads(absl::GetFlag(FLAGS_workloads));
    if (absl::Status st = ValidateWorkloadNames(names); !st.ok()) {
      return Fail(2, std::string(st.message()));
    }
    for (const auto& n : names) std::printf("%s\n", n.c_str());
    return 0;
  }
  if (mode != "ours" && mode != "plain" && mode != "pass-cost" && mode != "range-cost" &&
      mode != "list-metrics") {
    return Fail(2,
                absl::StrCat("--mode must be ours, plain, pass-cost, range-cost, list-metrics or "
                             "list-workloads (got '",
                             mode, "')\n", kUsage));
  }
  // The cost modes' own flags, checked before the GPU is touched.
  const int repeat = absl::GetFlag(FLAGS_repeat);
  if ((mode == "pass-cost" || mode == "range-cost") && repeat < 1) {
    return Fail(2, "--repeat must be >= 1");
  }
  const std::vector<std::string> configs =
      absl::StrSplit(absl::GetFlag(FLAGS_configs), ',', absl::SkipWhitespace());
  auto devices = CountDevices();
  if (!devices.ok()) {
    return Fail(
        1, absl::StrCat(devices.status().message(),
                        "; this mode needs the GPU machine (scripts/device/ncu-crosscheck.sh)"));
  }
  auto device = QueryDevice(0);
  if (!device.ok()) return Fail(1, std::string(device.status().message()));
  std::vector<MetricDef> metrics;
  if (mode != "plain" && mode != "pass-cost" && mode != "range-cost") {
    auto resolved = ResolveMetrics(absl::GetFlag(FLAGS_metrics), device->cc);
    if (!resolved.ok()) return Fail(2, std::string(resolved.status().message()));
    metrics = *std::move(resolved);
  }
  if (mode == "list-metrics") {
    std::vector<std::string> hw;
    for (const auto& m : metrics) hw.push_back(m.hw_name);
    std::printf("%s\n", absl::StrJoin(hw, ",").c_str());
    return 0;
  }
  auto problems = ProblemsFromFlags();
  if (!problems.ok()) return Fail(2, std::string(problems.status().message()));
  cudaStream_t stream = nullptr;
  if (cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking); e != cudaSuccess) {
    return Fail(1, absl::StrCat("cudaStreamCreate: ", cudaGetErrorName(e)));
  }
  auto set = WorkloadSet::Create(ExpandWorkloads(absl::GetFlag(FLAGS_workloads)), *problems,
                                 *device, stream);
  if (!set.ok()) {
    return Fail(absl::IsInvalidArgument(set.status()) ? 2 : 1, std::string(set.status().message()));
  }
  json out = {{"schema", "flashscope.metric_probe"},
              {"schema_version", 1},
              {"mode", mode},
              {"device", DeviceJson(*device)},
              {"attention_problem", ProblemKey(problems->attention)},
              {"gemm_problem", ProblemKey(problems->gemm)}};
  std::vector<std::string> args(argv, argv + argc);
  out["command_line"] = absl::StrJoin(args, " ");
  int rc = 0;
  if (mode == "ours") {
    rc = RunOurs(metrics, **set, stream, out);
  } else if (mode == "pass-cost") {
    rc = RunPassCost(*device, **set, repeat, configs, stream, out);
  } else if (mode == "range-cost") {
    rc = RunRangeCost(*device, **set, repeat, configs, stream, out);
  } else {
    rc = RunPlain(**set, stream, out);
  }
  set->reset();
  cudaStreamDestroy(stream);
  const int emit_rc = Emit(out);
  return rc != 0 ? rc : emit_rc;
}

}  // namespace
}  // namespace flashscope::profiler

int main(int argc, char** argv) { return flashscope::profiler::Main(argc, argv); }
