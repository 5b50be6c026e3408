#include "reports/tests/sample_reports.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

namespace flashscope::reports::testing {
namespace {

void ExpectSameDouble(double a, double b, const char* what) {
  if (std::isnan(a) && std::isnan(b)) return;
  EXPECT_EQ(a, b) << what;
}

void ExpectSameFloats(const std::vector<float>& a, const std::vector<float>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) && std::isnan(b[i])) continue;
    EXPECT_EQ(a[i], b[i]) << what << "[" << i << "]";
  }
}

#define FS_EQ(field) EXPECT_EQ(a.field, b.field) << #field
#define FS_DEQ(field) ExpectSameDouble(a.field, b.field, #field)

void ExpectSameTiming(const TimingRecord& a, const TimingRecord& b) {
  FS_EQ(mode);
  FS_EQ(warmup_runs);
  FS_EQ(samples_rejected_throttled);
  FS_DEQ(median_ms);
  FS_DEQ(mean_ms);
  FS_DEQ(min_ms);
  FS_DEQ(max_ms);
  FS_DEQ(stdev_ms);
  FS_DEQ(p10_ms);
  FS_DEQ(p90_ms);
  FS_DEQ(noise);
  FS_EQ(converged);
  FS_EQ(stop_reason);
  FS_DEQ(median_sm_clock_mhz);
  FS_EQ(samples_ms);
  ASSERT_EQ(a.interleaved.has_value(), b.interleaved.has_value());
  if (a.interleaved) {
    FS_EQ(interleaved->side);
    FS_EQ(interleaved->seed);
    FS_EQ(interleaved->order);
    FS_EQ(interleaved->rejected_pairs);
  }
}

void ExpectSameVerification(const VerificationRecord& a, const VerificationRecord& b) {
  FS_EQ(ran);
  FS_EQ(passed);
  FS_EQ(rule);
  FS_EQ(reference);
  FS_DEQ(atol);
  FS_DEQ(rtol);
  FS_EQ(stats.elements);
  FS_DEQ(stats.max_abs);
  FS_DEQ(stats.mean_abs);
  FS_DEQ(stats.nrmse);
  FS_DEQ(stats.max_rel);
  FS_EQ(stats.bad);
  FS_EQ(stats.nan);
  FS_EQ(stats.inf);
  FS_EQ(stats.never_written);
  FS_EQ(stats.worst_index);
  FS_DEQ(baseline_max_abs);
  FS_DEQ(ratio_to_baseline);
  FS_EQ(dump_dir);
  ASSERT_EQ(a.heatmaps.size(), b.heatmaps.size());
  for (size_t i = 0; i < a.heatmaps.size(); ++i) {
    FS_EQ(heatmaps[i].kind);
    FS_EQ(heatmaps[i].row_axis);
    FS_EQ(heatmaps[i].col_axis);
    FS_EQ(heatmaps[i].src_rows);
    FS_EQ(heatmaps[i].src_cols);
    FS_EQ(heatmaps[i].rows);
    FS_EQ(heatmaps[i].cols);
    ExpectSameFloats(a.heatmaps[i].max, b.heatmaps[i].max, "max");
    ExpectSameFloats(a.heatmaps[i].mean, b.heatmaps[i].mean, "mean");
  }
}

void ExpectSameProfile(const ProfileRecord& a, const ProfileRecord& b) {
  FS_EQ(available);
  FS_EQ(unavailable_reason);
  FS_EQ(passes);
  FS_DEQ(wall_s);
  FS_EQ(kernel_durations_ms);
  ASSERT_EQ(a.metrics.size(), b.metrics.size());
  for (size_t i = 0; i < a.metrics.size(); ++i) {
    FS_EQ(metrics[i].name);
    FS_EQ(metrics[i].hw_name);
    FS_EQ(metrics[i].unit);
    FS_DEQ(metrics[i].value);
    FS_EQ(metrics[i].description);
  }
}

}  // namespace

void ExpectSameCase(const CaseResult& a, const CaseResult& b) {
  FS_EQ(kernel_id);
  FS_EQ(kernel_revision);
  FS_EQ(kernel_title);
  FS_EQ(kernel_changed);
  FS_EQ(family);
  FS_EQ(problem_key);
  FS_EQ(params);
  FS_EQ(input_kind);
  FS_EQ(seed);
  FS_EQ(status);
  FS_EQ(reason);
  FS_DEQ(wall_s);
  ASSERT_EQ(a.timing.has_value(), b.timing.has_value());
  if (a.timing) ExpectSameTiming(*a.timing, *b.timing);
  ASSERT_EQ(a.throughput.has_value(), b.throughput.has_value());
  if (a.throughput) {
    FS_DEQ(throughput->flops);
    FS_DEQ(throughput->bytes);
    FS_DEQ(throughput->tflops);
    FS_DEQ(throughput->gbps);
    FS_DEQ(throughput->pct_peak_flops);
    FS_DEQ(throughput->pct_peak_bandwidth);
  }
  ASSERT_EQ(a.verification.has_value(), b.verification.has_value());
  if (a.verification) ExpectSameVerification(*a.verification, *b.verification);
  ASSERT_EQ(a.profile.has_value(), b.profile.has_value());
  if (a.profile) ExpectSameProfile(*a.profile, *b.profile);
  ASSERT_EQ(a.resources.size(), b.resources.size());
  for (size_t i = 0; i < a.resources.size(); ++i) {
    FS_EQ(resources[i].function);
    FS_EQ(resources[i].registers);
    FS_EQ(resources[i].static_smem_bytes);
    FS_EQ(resources[i].dynamic_smem_bytes);
    FS_EQ(resources[i].local_bytes);
    FS_EQ(resources[i].block_threads);
    FS_DEQ(resources[i].theoretical_occupancy);
  }
  ASSERT_EQ(a.provenance.has_value(), b.provenance.has_value());
  if (a.provenance) {
    FS_EQ(provenance->builtin);
    FS_EQ(provenance->plugin);
    FS_EQ(provenance->version);
    FS_EQ(provenance->path);
    FS_EQ(provenance->sha256);
  }
  ASSERT_EQ(a.prepare.has_value(), b.prepare.has_value());
  if (a.prepare) {
    FS_EQ(prepare->wall_s);
    FS_EQ(prepare->note);
  }
  ASSERT_EQ(a.tile.has_value(), b.tile.has_value());
  if (a.tile) {
    FS_EQ(tile->block_m);
    FS_EQ(tile->block_n);
  }
}

void ExpectSameReport(const Report& a, const Report& b) {
  FS_EQ(schema_version);
  FS_EQ(complete);
  FS_EQ(environment.gpu_name);
  FS_EQ(environment.synthetic);
  FS_EQ(environment.sm_count);
  FS_EQ(environment.compute_capability);
  FS_EQ(environment.l2_bytes);
  FS_EQ(environment.memory_bytes);
  FS_EQ(environment.sm_clock_mhz);
  FS_EQ(environment.memory_clock_mhz);
  FS_EQ(environment.driver_version);
  FS_EQ(environment.cuda_runtime_version);
  FS_DEQ(environment.peaks.matmul_fp16_tflops);
  FS_DEQ(environment.peaks.matmul_bf16_tflops);
  FS_DEQ(environment.peaks.copy_gbps);
  FS_EQ(environment.peaks.matmul_source);
  FS_EQ(environment.peaks.copy_source);
  FS_EQ(environment.git_revision);
  FS_EQ(environment.host);
  FS_EQ(environment.started_at);
  FS_EQ(environment.finished_at);
  FS_EQ(environment.flashscope_version);
  FS_EQ(environment.command_line);
  FS_EQ(suite.name);
  FS_EQ(suite.path);
  FS_EQ(suite.description);
  FS_EQ(suite.kernels_filter);
  FS_EQ(suite.sha256);
  FS_EQ(suite.shard);
  FS_EQ(suite.timing.cold);
  FS_EQ(suite.timing.warmup);
  FS_EQ(suite.timing.min_samples);
  FS_EQ(suite.timing.max_samples);
  FS_DEQ(suite.timing.noise_target);
  FS_DEQ(suite.timing.time_cap_s);
  ASSERT_EQ(a.cases.size(), b.cases.size());
  for (size_t i = 0; i < a.cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    ExpectSameCase(a.cases[i], b.cases[i]);
  }
}

#undef FS_EQ
#undef FS_DEQ

Environment SyntheticEnvironment() {
  Environment e;
  e.gpu_name = "Synthetic H200 (not measured)";
  e.synthetic = true;
  e.sm_count = 132;
  e.compute_capability = 90;
  e.l2_bytes = 50 * 1024 * 1024;
  e.memory_bytes = 150LL * 1024 * 1024 * 1024;
  e.sm_clock_mhz = 1980;
  e.memory_clock_mhz = 3201;
  e.driver_version = "580.00.00";
  e.cuda_runtime_version = "13.0";
  e.peaks.matmul_fp16_tflops = 760.5;
  e.peaks.matmul_bf16_tflops = 775.25;
  e.peaks.copy_gbps = 4100.0;
  e.peaks.matmul_source = "synthetic";
  e.peaks.copy_source = "synthetic";
  e.git_revision = "0123abc";
  e.host = "test-host";
  e.started_at = "2025-01-02T03:04:05Z";
  e.finished_at = "2025-01-02T03:04:17.5Z";
  e.flashscope_version = "0.1.0";
  e.command_line = "flashscope run smoke --out x.json";
  return e;
}

HeatmapRecord HeatmapOfShape(const std::string& kind, int64_t src_rows, int64_t src_cols, int rows,
                             int cols, const std::string& row_axis, const std::string& col_axis) {
  return HeatmapRecord{kind, row_axis, col_axis, src_rows, src_cols, rows, cols, {}, {}};
}

CaseResult SimpleCase(const std::string& kernel_id, const std::string& problem_key,
                      CaseStatus status, double median_ms) {
  CaseResult c;
  c.kernel_id = kernel_id;
  c.family = "attention_fwd";
  c.problem_key = problem_key;
  c.input_kind = "normal";
  c.seed = 7;
  c.status = status;
  c.wall_s = 0.5;
  if (status == CaseStatus::kPassed || status == CaseStatus::kFailed) {
    TimingRecord t;
    t.mode = "cold";
    t.median_ms = median_ms;
    t.samples_ms = {median_ms, median_ms * 1.01, median_ms * 0.99};
    c.timing = t;
    ThroughputRecord th;
    th.flops = 1e9;
    th.tflops = th.flops / (median_ms * 1e-3) / 1e12;
    th.pct_peak_flops = th.tflops / 760.5 * 100;
    c.throughput = th;
    VerificationRecord v;
    v.ran = true;
    v.passed = status == CaseStatus::kPassed;
    v.rule = v.passed ? "max_abs 1.2e-03 <= 2 x baseline 9.0e-04 + 1e-05"
                      : "max_abs 4.1e-01 > 2 x baseline 9.0e-04 + 1e-05";
    v.stats.max_abs = v.passed ? 1.2e-3 : 0.41;
    v.baseline_max_abs = 9e-4;
    v.ratio_to_baseline = v.stats.max_abs / v.baseline_max_abs;
    c.verification = v;
  } else if (status == CaseStatus::kSkipped) {
    c.reason = "head_dim 96 not supported (64 or 128)";
  } else {
    c.reason = "cudaErrorIllegalAddress: an illegal memory access was encountered";
  }
  return c;
}

namespace {

// A profile with every field set (FullReport's first case).
ProfileRecord FullProfile() {
  ProfileRecord p;
  p.available = true;
  p.unavailable_reason = "";
  p.metrics = {
      {"tensor_pipe_pct", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
       "%", 42.5, "tensor pipe busy, as the runner described it"},
      {"shared_pct", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed",
       "%", 17.4}};
  p.passes = 9;
  p.wall_s = 0.75;
  p.kernel_durations_ms = {{"attn_a02_kernel", 0.0121}, {"flush_l2", 0.002}};
  return p;
}

// A timing with every field set (FullReport's case).
TimingRecord FullTiming() {
  TimingRecord t;
  t.mode = "hot";
  t.warmup_runs = 5;
  t.samples_rejected_throttled = 2;
  t.median_ms = 0.0123;
  t.mean_ms = 0.0125;
  t.min_ms = 1e-9;  // the smallest of samples_ms: a report's minimum agrees with its samples
  t.max_ms = 0.0141;
  t.stdev_ms = 0.0004;
  t.p10_ms = 0.0120;
  t.p90_ms = 0.0131;
  t.noise = 0.0031;
  t.converged = true;
  t.stop_reason = "noise 0.31% <= 0.50% after 40 samples";
  t.median_sm_clock_mhz = 1980;
  t.samples_ms = {0.0123, 0.0119, 0.1 + 0.2, 1e-9};
  t.interleaved = InterleavingRecord{"new", 18446744073709551557ull, "bnnb", 3};
  return t;
}

}  // namespace

Report FullReport() {
  Report r;
  r.complete = true;
  r.environment = SyntheticEnvironment();
  r.suite.name = "smoke";
  r.suite.path = "suites/smoke.json";
  r.suite.description = "every kernel, small shapes";
  r.suite.kernels_filter = "attn.*";
  r.suite.sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
  r.suite.shard = "2/4";
  r.suite.timing = {false, 3, 10, 200, 0.005, 2.5};

  CaseResult c;
  c.kernel_id = "attn.a02_smem_tiled";
  c.kernel_revision = 2;
  c.kernel_title = "K/V tiles in shared memory";
  c.kernel_changed = "K/V tiles loaded once per block and reused by 64 rows";
  c.family = "attention_fwd";
  c.problem_key = "attention_fwd{B=1,H=2,Sq=17,Sk=17,D=64,fp16,causal}";
  c.params = {{"B", "1"}, {"H", "2"}, {"S", "17"}, {"causal", "true"}};
  c.input_kind = "local_band";
  c.seed = 18446744073709551557ULL;  // > 2^63: seeds are unsigned 64-bit
  c.status = CaseStatus::kPassed;
  c.reason = "note kept for round trip";
  c.wall_s = 1.25;
  c.timing = FullTiming();
  c.throughput = ThroughputRecord{4.5e9, 1.1e6, 0.366, 89.4, 0.048, 2.18};
  VerificationRecord v;
  v.ran = true;
  v.passed = true;
  v.rule = "FlashAttention rule: max_abs 9.8e-04 <= 2 x 6.1e-04 + 1e-05";
  v.reference = "gpu fp32";
  v.atol = 1e-3;
  v.rtol = 1e-2;
  v.stats = {2176, 9.8e-4, 1.2e-4, 3.3e-4, 0.02, 3, 0, 0, 0, 1234};
  v.baseline_max_abs = 6.1e-4;
  v.ratio_to_baseline = std::numeric_limits<double>::infinity();  // JSON needs "inf"
  HeatmapRecord h = HeatmapOfShape("position_x_dim", 17, 64, 2, 3, "query position", "head dim");
  h.max = {0.1f, 0.2f, 1e-7f, 3.4e38f, 0.0f, 1.0f / 3.0f};
  h.mean = {0.05f, 0.1f, 1e-8f, 1.0f, 0.0f, std::numeric_limits<float>::quiet_NaN()};
  v.heatmaps.push_back(h);
  h.kind = "sequence_profile";
  h.rows = 1;
  h.cols = 1;
  h.max = {0.5f};
  h.mean = {};
  v.heatmaps.push_back(h);
  v.dump_dir = "dumps/case3";
  c.verification = v;
  c.profile = FullProfile();
  c.resources = {{"attn_a02_kernel", 96, 16384, 32768, 8, 128, 0.5}};
  c.provenance = ProvenanceRecord{false, "my-attention", "3f2c1ab-dirty", "/opt/k/libmy.so",
                                  std::string(64, 'a')};
  c.prepare = PrepareRecord{1.93, "compiled and autotuned in 1.93 s; then 0.41 ms a call"};
  c.tile = TileRecord{64, 32};
  r.cases.push_back(c);

  r.cases.push_back(
      SimpleCase("gemm.g01_naive", "gemm{M=17,N=33,K=65,fp32}", CaseStatus::kFailed, 2.5));
  r.cases.back().family = "gemm";
  r.cases.push_back(SimpleCase("attn.a01_scalar", "attention_fwd{B=1,H=1,Sq=1,Sk=1,D=96,fp16}",
                               CaseStatus::kSkipped, 0));
  r.cases.push_back(SimpleCase("attn.a01_scalar", "attention_fwd{B=1,H=1,Sq=8,Sk=8,D=64,bf16}",
                               CaseStatus::kError, 0));
  CaseResult timeout = SimpleCase("attn.a01_scalar", "attention_fwd{B=9,H=9,Sq=9,Sk=9,D=64,bf16}",
                                  CaseStatus::kTimeout, 0);
  timeout.reason = "case exceeded 60 s";
  r.cases.push_back(timeout);
  return r;
}

std::string TestdataPath(const std::string& name) {
  return std::string(FS_REPORTS_TESTDATA) + "/" + name;
}

std::string CommittedReport(const std::string& path) {
  static std::map<std::string, std::string> decompressed;
  if (access(path.c_str(), R_OK) == 0) return path;
  auto known = decompressed.find(path);
  if (known != decompressed.end()) return known->second;
  const std::string xz = path + ".xz";
  if (access(xz.c_str(), R_OK) != 0) {
    ADD_FAILURE() << "neither " << path << " nor " << xz << " can be read";
    return "";
  }
  const std::string out = MakeTempDir() + "/" + path.substr(path.rfind('/') + 1);
  const std::string cmd = "xz -dc '" + xz + "' > '" + out + "'";
  if (std::system(cmd.c_str()) != 0) {
    ADD_FAILURE() << "could not decompress " << xz << " (" << cmd << "): is xz installed?";
    return "";
  }
  decompressed[path] = out;
  return out;
}

std::string MakeTempDir() {
  const char* base = getenv("TEST_TMPDIR");
  std::string tmpl = std::string(base && base[0] ? base : "/tmp") + "/fs_reports_test.XXXXXX";
  char* dir = mkdtemp(tmpl.data());
  EXPECT_NE(dir, nullptr) << "mkdtemp " << tmpl;
  return dir ? std::string(dir) : std::string("/tmp");
}

std::set<std::string> ListDir(const std::string& dir) {
  std::set<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.insert(n);
  }
  closedir(d);
  return names;
}

}  // namespace flashscope::reports::testing
