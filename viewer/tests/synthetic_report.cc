#include "viewer/tests/synthetic_report.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "reports/tests/sample_reports.h"

namespace flashscope::viewer::testing {
namespace {

reports::HeatmapRecord MakeHeatmap(const std::string& kind, int rows, int cols, int64_t src_rows,
                                   int64_t src_cols, std::mt19937_64& rng) {
  const bool per_head = kind == "per_head";
  reports::HeatmapRecord h = reports::testing::HeatmapOfShape(kind, src_rows, src_cols, rows, cols,
                                                              per_head ? "head" : "query position",
                                                              per_head ? "batch" : "head dim");
  std::lognormal_distribution<float> noise(0.f, 0.6f);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      // Error growing along the sequence with a hot band, as a rescaling bug would make.
      float base = 1e-4f * (1.f + 4.f * float(r) / float(rows));
      if (c % 16 == 3) base *= 20.f;
      float m = base * noise(rng);
      h.max.push_back(m);
      h.mean.push_back(m * 0.3f);
    }
  }
  return h;
}

// 40 cold samples around `ms` (1 % noise), with their summary.
reports::TimingRecord SyntheticTiming(double ms, std::mt19937_64& rng) {
  reports::TimingRecord t;
  t.mode = "cold";
  t.warmup_runs = 5;
  std::normal_distribution<double> sample(ms, ms * 0.01);
  for (int s = 0; s < 40; ++s) t.samples_ms.push_back(std::max(ms * 0.9, sample(rng)));
  std::vector<double> sorted = t.samples_ms;
  std::sort(sorted.begin(), sorted.end());
  t.median_ms = sorted[sorted.size() / 2];
  t.min_ms = sorted.front();
  t.max_ms = sorted.back();
  t.p10_ms = sorted[4];
  t.p90_ms = sorted[35];
  t.mean_ms = ms;
  t.noise = 0.003;
  t.converged = true;
  t.stop_reason = "noise 0.30% <= 0.50% after 40 samples";
  return t;
}

// Metrics that track the rung's speed; peers are not profiled.
reports::ProfileRecord SyntheticProfile(bool peer, double tf, int k) {
  reports::ProfileRecord prof;
  prof.available = !peer;
  if (peer) prof.unavailable_reason = "library kernels are not profiled in this run";
  double tensor = std::min(90.0, tf / 6.0);
  prof.metrics = {
      {"tensor_pipe_pct", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
       "%", tensor},
      {"shared_pct", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed",
       "%", 70 - tensor / 2},
      {"dram_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "%", 20 + k * 3},
      {"achieved_occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", "%", 35 + k},
      {"bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "count",
       1000.0 * (8 - k)}};
  prof.passes = 9;
  prof.wall_s = 0.4;
  return prof;
}

// A verification that passed (or failed), with the four heatmap kinds when `heatmaps`.
reports::VerificationRecord SyntheticVerification(bool failed, int64_t elements, bool heatmaps,
                                                  int64_t S, int64_t D, int64_t H, int64_t B,
                                                  std::mt19937_64& rng) {
  reports::VerificationRecord v;
  v.ran = true;
  v.passed = !failed;
  v.reference = "gpu fp32";
  v.atol = 1e-3;
  v.rtol = 1e-3;
  v.baseline_max_abs = 1.2e-3;
  v.stats.elements = elements;
  v.stats.max_abs = failed ? 4.1e-2 : 1.5e-3;
  v.stats.mean_abs = v.stats.max_abs / 20;
  v.stats.nrmse = v.stats.max_abs / 5;
  v.stats.max_rel = v.stats.max_abs * 10;
  v.stats.bad = failed ? 1234 : 0;
  v.stats.worst_index = 4242;
  v.ratio_to_baseline = v.stats.max_abs / v.baseline_max_abs;
  v.rule = std::string("max abs error ") + (failed ? "4.1e-02 > " : "1.5e-03 <= ") +
           "2 x naive fp16 error 1.2e-03 + floor 1e-05";
  if (heatmaps) {
    v.heatmaps.push_back(MakeHeatmap("position_x_dim", 64, std::min<int>(64, int(D)), S, D, rng));
    v.heatmaps.push_back(MakeHeatmap("sequence_profile", 128, 1, S, D, rng));
    v.heatmaps.push_back(MakeHeatmap("tile_fold", 64, std::min<int>(64, int(D)), 64, D, rng));
    v.heatmaps.push_back(MakeHeatmap("per_head", int(H), int(B), H, B, rng));
  }
  return v;
}

}  // namespace

reports::Report MakeSyntheticReport(int cases, uint64_t seed, double speedup, int heatmap_stride) {
  std::mt19937_64 rng(seed);
  reports::Report r;
  r.complete = true;
  r.environment = reports::testing::SyntheticEnvironment();
  r.suite.name = "synthetic-viewer";

  const char* rungs[] = {
      "attn.a01_scalar",   "attn.a02_tiled",    "attn.a03_online_softmax", "attn.a04_mma",
      "attn.a05_ldmatrix", "attn.a06_cp_async", "attn.a07_direct_rescale", "attn.a08_wgmma"};
  const char* peers[] = {"peer.cudnn_fa", "peer.sdpa_flash"};
  const char* changed[] = {"one thread per query row",
                           "K/V tiles in shared memory",
                           "online softmax",
                           "mma.sync on the tensor cores",
                           "ldmatrix operand loads",
                           "cp.async double buffering",
                           "rescale the accumulator once",
                           "Hopper wgmma"};
  const double rung_tflops[] = {2, 9, 30, 120, 190, 260, 330, 520};
  const double peer_tflops[] = {650, 350};
  std::uniform_real_distribution<double> jitter(0.97, 1.03);
  for (int i = 0; i < cases; ++i) {
    int k = i % 10;
    int p = i / 10;
    bool peer = k >= 8;
    reports::CaseResult c;
    c.kernel_id = peer ? peers[k - 8] : rungs[k];
    c.family = "attention_fwd";
    int64_t S = 512 << (p % 4), D = (p / 4) % 2 ? 128 : 64, B = 1 + (p / 8) % 4;
    int64_t H = 16 * (1 + p / 128);  // keeps problem keys unique beyond the 128-point grid
    bool causal = (p / 32) % 2;
    std::string dtype = (p / 64) % 2 ? "bf16" : "fp16";
    c.problem_key = "attention_fwd{B=" + std::to_string(B) + ",H=" + std::to_string(H) +
                    ",S=" + std::to_string(S) + ",D=" + std::to_string(D) + "," + dtype +
                    (causal ? ",causal" : "") + "}";
    c.params = {{"dtype", dtype},
                {"Sq", std::to_string(S)},
                {"Sk", std::to_string(S)},
                {"D", std::to_string(D)},
                {"causal", causal ? "true" : "false"}};
    c.kernel_revision = peer ? 1000 + k : k + 1;
    c.kernel_title = peer ? "library peer" : std::string("rung ") + std::to_string(k + 1);
    c.kernel_changed = peer ? "" : changed[k];
    if (!peer) c.tile = reports::TileRecord{64, 64};
    c.input_kind = "normal";
    c.seed = seed + uint64_t(i);
    c.status = reports::CaseStatus::kPassed;
    if (i % 15 == 1) {
      c.status = reports::CaseStatus::kSkipped;
      c.reason = "needs sm_90a";
      r.cases.push_back(std::move(c));
      continue;
    }
    if (i % 40 == 13) {
      c.status = reports::CaseStatus::kError;
      c.reason = "cudaErrorIllegalAddress after launch";
      r.cases.push_back(std::move(c));
      continue;
    }
    bool failed = !peer && i % 12 == 5;
    if (failed) c.status = reports::CaseStatus::kFailed;

    double flops =
        4.0 * double(B) * double(H) * double(S) * double(S) * double(D) * (causal ? 0.5 : 1);
    double bytes = 4.0 * double(B) * double(H) * double(S) * double(D) * 2;
    double tf = (peer ? peer_tflops[k - 8] : rung_tflops[k]) * jitter(rng) * speedup;
    double ms = flops / (tf * 1e12) * 1e3;
    const reports::TimingRecord t = SyntheticTiming(ms, rng);
    c.timing = t;
    reports::ThroughputRecord th;
    th.flops = flops;
    th.bytes = bytes;
    th.tflops = flops / (t.median_ms * 1e-3) / 1e12;
    th.gbps = bytes / (t.median_ms * 1e-3) / 1e9;
    const reports::MeasuredPeaks& peaks = r.environment.peaks;
    th.pct_peak_flops =
        th.tflops / (dtype == "bf16" ? peaks.matmul_bf16_tflops : peaks.matmul_fp16_tflops) * 100;
    th.pct_peak_bandwidth = th.gbps / peaks.copy_gbps * 100;
    c.throughput = th;

    c.profile = SyntheticProfile(peer, tf, k);
    if (!peer) {
      c.resources.push_back(
          {"attention_fwd_kernel<" + std::to_string(k) + ">", 96 + 8 * k, 0, 49152, 0, 128, 0.5});
    }

    c.verification = SyntheticVerification(failed, B * H * S * D,
                                           p % std::max(1, heatmap_stride) == 0, S, D, H, B, rng);
    c.wall_s = 1.5;
    r.cases.push_back(std::move(c));
  }
  return r;
}

}  // namespace flashscope::viewer::testing
