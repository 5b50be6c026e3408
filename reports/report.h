// The report model: what a run measured, free of CUDA and of the other libraries, so that the CLI,
// the renderers and the viewer read reports on any machine. The JSON form is documented in
// docs/report-schema.md; every field here has a key there.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/error_heatmap.h"
#include "common/error_stats.h"
#include "common/measured_peaks.h"
#include "common/plugin_provenance.h"
#include "common/resource_usage.h"
#include "common/timing_policy.h"
#include "reports/trust_record.h"

namespace flashscope::reports {

inline constexpr int kSchemaVersion = 1;

// Measured once per run on the GPU; `*_source` says how each peak was measured
// (common/measured_peaks.h: the profiler measures the same struct).
using MeasuredPeaks = ::flashscope::MeasuredPeaks;

// One GPU that ran cases of the run (`flashscope run --devices`, docs/devices.md): which one it
// is, the facts that say whether two GPUs are the same model, and the peaks measured on it (the
// cases it ran compare against these).
struct DeviceRecord {
  int index = 0;           // CUDA device ordinal as flashscope saw it: what --devices names
  std::string uuid;        // "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6", as nvidia-smi prints it
  std::string pci_bus_id;  // "0000:3B:00.0"
  std::string name;
  int compute_capability = 0;
  int sm_count = 0;
  int64_t memory_bytes = 0;
  int sm_clock_mhz = 0;
  std::string driver_version;
  MeasuredPeaks peaks;
};

struct Environment {
  std::string gpu_name;  // "" when no GPU was used (e.g. a merged or synthetic report)
  // True for reports made up by hand or by tests (reports/testdata/): never a GPU measurement.
  // Renderers say so on every output so that such a file is never mistaken for a real run.
  bool synthetic = false;
  int sm_count = 0;
  int compute_capability = 0;  // 90 for sm_90
  int64_t l2_bytes = 0;
  int64_t memory_bytes = 0;
  int sm_clock_mhz = 0;              // maximum SM clock the device reports
  int memory_clock_mhz = 0;          // 0 when the runtime no longer reports it
  int memory_bus_bits = 0;           // memory bus width; 0 when not recorded (older reports)
  std::string driver_version;        // "580.159.04" or the CUDA driver API version "13.0"
  std::string cuda_runtime_version;  // "13.0"
  MeasuredPeaks peaks;
  std::string git_revision;
  std::string host;
  std::string started_at;  // ISO 8601 UTC
  std::string finished_at;
  // Seconds the run was running: the sum of its sessions (the first and each `run --resume`),
  // each from its start to its last recorded result, the session that wrote the report to its
  // end; the pauses between sessions are not counted (docs/report-schema.md). 0: not known (a
  // report of a journal from before sessions were recorded, or a merge of shards that may have
  // run at once): finished_at - started_at is the run's span then.
  double active_s = 0;
  std::string flashscope_version;
  std::string command_line;
  // Every GPU that ran a case, by index (the fields above describe the first). Empty in reports
  // written before `--devices` existed.
  std::vector<DeviceRecord> devices;
};

// The suite's timing policy as a report records it: the one timing policy
// (common/timing_policy.h); throttle_ratio is not written.
using TimingPolicyRecord = ::flashscope::TimingPolicy;

// How `flashscope ab` took a case's samples: in pairs, one sample of each side per pair, the side
// that goes first decided by a seeded coin, L2 flushed before each sample (docs/gating.md).
struct InterleavingRecord {
  std::string side;        // "base" or "new": which side of the comparison this report is
  uint64_t seed = 0;       // the coin's seed for this case
  std::string order;       // one letter per accepted pair: 'b' base first, 'n' new first
  int rejected_pairs = 0;  // pairs dropped because either sample's SM clock had dropped
};

struct TimingRecord {
  std::string mode;  // "cold" or "hot"
  int warmup_runs = 0;
  int samples_rejected_throttled = 0;
  double median_ms = 0;
  double mean_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  double stdev_ms = 0;
  double p10_ms = 0;
  double p90_ms = 0;
  double noise = 0;                // relative standard error of the median (0.005 = 0.5 %)
  bool converged = false;          // stopped because noise <= target (not by cap)
  std::string stop_reason;         // "noise 0.31% <= 0.50% after 40 samples", "time cap 2.0 s", ...
  double median_sm_clock_mhz = 0;  // SM clock measured beside the samples (throttle check)
  std::vector<double> samples_ms;  // accepted samples, in order taken
  // Set when the samples were taken interleaved with another build's (`flashscope ab`): then
  // samples_ms[i] of this report and of the other side's form pair i.
  std::optional<InterleavingRecord> interleaved;
};

struct ThroughputRecord {
  double flops = 0;  // FLOPs of the problem (attention: 4·B·H·Sq·Sk·D, halved when causal)
  double bytes = 0;  // minimal bytes: each input read once, each output written once
  double tflops = 0;
  double gbps = 0;
  double pct_peak_flops = 0;      // against the measured matmul peak of the problem's dtype
  double pct_peak_bandwidth = 0;  // against the measured copy bandwidth
};

struct MetricRecord {
  std::string name;     // friendly name ("tensor_pipe_pct")
  std::string hw_name;  // hardware metric ("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_...")
  std::string unit;     // "%", "bytes", "count", ...
  double value = 0;
  // What the metric means, in plain words (the catalogue's, common/metric_catalogue.h). Empty in
  // reports written before it was recorded: readers fall back to the catalogue
  // (reports::MetricDescription).
  std::string description;
};

struct ProfileRecord {
  bool available = false;
  std::string unavailable_reason;  // when !available: why, and the fix
  std::vector<MetricRecord> metrics;
  int passes = 0;
  std::string replay;  // "user" (we relaunched per pass) or "kernel" (CUPTI's kernel replay)
  int kernels = 0;     // kernels profiled, one auto range each (0: one range for the launch)
  std::string ranges;  // how the ranges were taken, in words
  double wall_s = 0;
  std::vector<std::pair<std::string, double>> kernel_durations_ms;  // CUPTI activity records
};

// common/resource_usage.h: a kernel's registers, memory and occupancy as the profiler reads them.
using ResourceRecord = ::flashscope::ResourceUsage;

// common/error_stats.h: the statistics verify/ computes, recorded as they are.
using ErrorStatsRecord = ::flashscope::ErrorStats;

// common/error_heatmap.h: error downsampled onto a grid, as verify/ builds it.
using HeatmapRecord = ::flashscope::Heatmap;

struct VerificationRecord {
  bool ran = false;
  bool passed = false;
  std::string rule;       // the rule that decided the verdict, in words with its numbers
  std::string reference;  // "gpu fp32", "gpu fp64"
  double atol = 0;
  double rtol = 0;
  ErrorStatsRecord stats;
  double baseline_max_abs = 0;   // naive same-precision implementation against the reference
  double ratio_to_baseline = 0;  // stats.max_abs / baseline_max_abs
  std::vector<HeatmapRecord> heatmaps;
  std::string dump_dir;  // where .npy files were written, if asked
};

// One error compute-sanitizer printed: its kind ("Invalid __global__ write"), the kernel it was
// attributed to, and its first lines as printed (location, thread, address).
struct SanitizerFinding {
  std::string kind;
  std::string kernel;
  std::string message;
};

// The case rerun under `compute-sanitizer --tool TOOL` (flashscope run --sanitize): how many
// errors the tool counted, by kind, and the first few in full. `ran` is false when the tool could
// not be used for this case; `note` then says why (and otherwise anything worth knowing).
struct SanitizerRecord {
  std::string tool;  // "memcheck", "racecheck", "initcheck", "synccheck"
  bool ran = false;
  std::string note;
  int64_t errors = 0;                      // the tool's own summary count
  std::map<std::string, int64_t> kinds;    // kind -> errors printed of that kind
  std::vector<SanitizerFinding> findings;  // the first few, in the order printed
  std::string case_status;                 // the case's status in the rerun ("error", ...)
  std::string case_reason;                 // and its reason
  double wall_s = 0;                       // the rerun, tool start-up included
};

// common/plugin_provenance.h: where a case's kernel came from, as the plugin host loaded it (the
// plugin's version is kept apart from flashscope's revision in `environment`).
using ProvenanceRecord = ::flashscope::PluginProvenance;

// A kernel's one-time work before anything was verified or timed (fs_kernel.prepare: a Triton
// kernel's JIT compilation and autotuning), kept out of every timing and recorded here.
struct PrepareRecord {
  double wall_s = 0;  // prepare() and the synchronisation after it
  std::string note;   // what the plugin said it did ("compiled and autotuned in 1.9 s")
};

// The kernel's tile (common/kernel_info.h TileShape): attention: block_m query rows per thread
// block, block_n keys per step; gemm: block_m × block_n of C. Heatmap views draw its boundaries and
// the last partial tile over the error, so that error and structure line up.
struct TileRecord {
  int block_m = 0;
  int block_n = 0;
  bool operator==(const TileRecord& o) const {
    return block_m == o.block_m && block_n == o.block_n;
  }
};

enum class CaseStatus { kPassed, kFailed, kSkipped, kError, kTimeout };
const char* CaseStatusName(CaseStatus s);
std::optional<CaseStatus> ParseCaseStatus(const std::string& s);

struct CaseResult {
  std::string kernel_id;
  // From the kernel registry, so that readers without the registry (viewer, renderers) can tell
  // the ladder's story: revision order, title and what the revision changed. Optional in JSON.
  int kernel_revision = 0;
  std::string kernel_title;
  std::string kernel_changed;
  std::string family;                         // "attention_fwd" | "gemm"
  std::string problem_key;                    // common/problem.h ProblemKey
  std::map<std::string, std::string> params;  // the problem's axes, for filtering and tables
  std::string input_kind;                     // "normal", "uniform", "local_band", ...
  uint64_t seed = 0;
  CaseStatus status = CaseStatus::kSkipped;
  std::string reason;  // skipped: why; error/timeout: the message (CUDA error name etc.)
  std::optional<TimingRecord> timing;
  std::optional<ThroughputRecord> throughput;
  std::optional<VerificationRecord> verification;
  std::optional<ProfileRecord> profile;
  std::vector<ResourceRecord> resources;
  std::optional<SanitizerRecord> sanitizer;  // only with `flashscope run --sanitize`
  // Absent in reports written before plugins existed (every kernel was built in then).
  std::optional<ProvenanceRecord> provenance;
  // Absent in reports written before it was recorded, and for kernels without a tile of their own
  // (library peers: cuBLAS picks its kernels).
  std::optional<TileRecord> tile;
  std::optional<TrustRecord> trust;      // the trust checks (absent in reports made before them)
  std::optional<PrepareRecord> prepare;  // only for kernels with a prepare() callback
  double wall_s = 0;                     // wall time spent on the case, all phases
  // The GPU it ran on: DeviceRecord::index and ::uuid of environment.devices. Absent in reports
  // written before `--devices` existed, and for a case recorded without running (a planned error).
  std::optional<int> device;
  std::string device_uuid;

  std::string Key() const { return kernel_id + " " + problem_key; }
};

struct SuiteRecord {
  std::string name;
  std::string path;
  std::string description;
  std::string kernels_filter;  // --kernels GLOB if any
  TimingPolicyRecord timing;
  // The suite file's sha256 (the plan's), so that `merge` refuses shards of different files;
  // "" in reports written before it was recorded.
  std::string sha256;
  // Which shards of the plan the report holds (reports/shard_set.h): "2/4" for `run --shard 2/4`,
  // "1,3/4" for a merge of two of four, "" for the whole plan.
  std::string shard;
};

struct Report {
  int schema_version = kSchemaVersion;
  Environment environment;
  SuiteRecord suite;
  std::vector<CaseResult> cases;
  bool complete = false;  // false for a report recovered from a journal of an interrupted run
  // Lines of the run's journal that could not be read (cut short by a crash, or corrupted) when
  // this report was made from it: a case whose lines were all unreadable is missing here, and
  // every output says so. 0 for a report written by a run that finished.
  int unreadable_journal_lines = 0;
};

}  // namespace flashscope::reports
