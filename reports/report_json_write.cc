// Writing the report's JSON form (docs/report-schema.md); reading is in report_json.cc.
#include "reports/report_json.h"

#include <utility>

#include "reports/json_fields.h"
#include "reports/provenance_json.h"
#include "reports/trust_json.h"

namespace flashscope::reports {
namespace {

using jsonio::DoubleArray;
using jsonio::FloatArray;
using jsonio::Json;
using jsonio::Number;

// ---- writing ----

Json PeaksToJson(const MeasuredPeaks& p) {
  return {{"matmul_fp16_tflops", Number(p.matmul_fp16_tflops)},
          {"matmul_bf16_tflops", Number(p.matmul_bf16_tflops)},
          {"copy_gbps", Number(p.copy_gbps)},
          {"matmul_source", p.matmul_source},
          {"copy_source", p.copy_source}};
}

Json TimingPolicyToJson(const TimingPolicyRecord& t) {
  return {{"cold", t.cold},
          {"warmup", t.warmup},
          {"min_samples", t.min_samples},
          {"max_samples", t.max_samples},
          {"noise_target", Number(t.noise_target)},
          {"time_cap_s", Number(t.time_cap_s)}};
}

Json TimingToJson(const TimingRecord& t) {
  Json j = {{"mode", t.mode},
            {"warmup_runs", t.warmup_runs},
            {"samples_rejected_throttled", t.samples_rejected_throttled},
            {"median_ms", Number(t.median_ms)},
            {"mean_ms", Number(t.mean_ms)},
            {"min_ms", Number(t.min_ms)},
            {"max_ms", Number(t.max_ms)},
            {"stdev_ms", Number(t.stdev_ms)},
            {"p10_ms", Number(t.p10_ms)},
            {"p90_ms", Number(t.p90_ms)},
            {"noise", Number(t.noise)},
            {"converged", t.converged},
            {"stop_reason", t.stop_reason},
            {"median_sm_clock_mhz", Number(t.median_sm_clock_mhz)},
            {"samples_ms", DoubleArray(t.samples_ms)}};
  if (const auto& i = t.interleaved) {
    j["interleaved"] = {{"side", i->side},
                        {"seed", i->seed},
                        {"order", i->order},
                        {"rejected_pairs", i->rejected_pairs}};
  }
  return j;
}

Json ThroughputToJson(const ThroughputRecord& t) {
  return {{"flops", Number(t.flops)},
          {"bytes", Number(t.bytes)},
          {"tflops", Number(t.tflops)},
          {"gbps", Number(t.gbps)},
          {"pct_peak_flops", Number(t.pct_peak_flops)},
          {"pct_peak_bandwidth", Number(t.pct_peak_bandwidth)}};
}

Json StatsToJson(const ErrorStatsRecord& s) {
  return {{"elements", s.elements},
          {"max_abs", Number(s.max_abs)},
          {"mean_abs", Number(s.mean_abs)},
          {"nrmse", Number(s.nrmse)},
          {"max_rel", Number(s.max_rel)},
          {"bad", s.bad},
          {"nan", s.nan},
          {"inf", s.inf},
          {"never_written", s.never_written},
          {"worst_index", s.worst_index}};
}

Json HeatmapToJson(const HeatmapRecord& h) {
  return {{"kind", h.kind},         {"row_axis", h.row_axis},   {"col_axis", h.col_axis},
          {"src_rows", h.src_rows}, {"src_cols", h.src_cols},   {"rows", h.rows},
          {"cols", h.cols},         {"max", FloatArray(h.max)}, {"mean", FloatArray(h.mean)}};
}

Json VerificationToJson(const VerificationRecord& v) {
  Json heatmaps = Json::array();
  for (const HeatmapRecord& h : v.heatmaps) heatmaps.push_back(HeatmapToJson(h));
  return {{"ran", v.ran},
          {"passed", v.passed},
          {"rule", v.rule},
          {"reference", v.reference},
          {"atol", Number(v.atol)},
          {"rtol", Number(v.rtol)},
          {"stats", StatsToJson(v.stats)},
          {"baseline_max_abs", Number(v.baseline_max_abs)},
          {"ratio_to_baseline", Number(v.ratio_to_baseline)},
          {"heatmaps", std::move(heatmaps)},
          {"dump_dir", v.dump_dir}};
}

Json ProfileToJson(const ProfileRecord& p) {
  Json metrics = Json::array();
  for (const MetricRecord& m : p.metrics) {
    Json metric = {
        {"name", m.name}, {"hw_name", m.hw_name}, {"unit", m.unit}, {"value", Number(m.value)}};
    // Optional: absent in reports written before descriptions were recorded, which stay as they
    // were when re-written.
    if (!m.description.empty()) metric["description"] = m.description;
    metrics.push_back(std::move(metric));
  }
  Json durations = Json::array();
  for (const auto& [kernel, ms] : p.kernel_durations_ms) {
    durations.push_back({{"kernel", kernel}, {"ms", Number(ms)}});
  }
  return {{"available", p.available},
          {"unavailable_reason", p.unavailable_reason},
          {"metrics", std::move(metrics)},
          {"passes", p.passes},
          {"replay", p.replay},
          {"kernels", p.kernels},
          {"ranges", p.ranges},
          {"wall_s", Number(p.wall_s)},
          {"kernel_durations_ms", std::move(durations)}};
}

Json ResourceToJson(const ResourceRecord& r) {
  return {{"function", r.function},
          {"registers", r.registers},
          {"static_smem_bytes", r.static_smem_bytes},
          {"dynamic_smem_bytes", r.dynamic_smem_bytes},
          {"local_bytes", r.local_bytes},
          {"block_threads", r.block_threads},
          {"theoretical_occupancy", Number(r.theoretical_occupancy)}};
}

Json SanitizerToJson(const SanitizerRecord& r) {
  Json kinds = Json::array();
  for (const auto& [kind, count] : r.kinds) kinds.push_back({{"kind", kind}, {"count", count}});
  Json findings = Json::array();
  for (const SanitizerFinding& f : r.findings) {
    findings.push_back({{"kind", f.kind}, {"kernel", f.kernel}, {"message", f.message}});
  }
  return {{"tool", r.tool},
          {"ran", r.ran},
          {"note", r.note},
          {"errors", r.errors},
          {"kinds", std::move(kinds)},
          {"findings", std::move(findings)},
          {"case_status", r.case_status},
          {"case_reason", r.case_reason},
          {"wall_s", Number(r.wall_s)}};
}

}  // namespace

Json ToJson(const Report& report) {
  Json cases = Json::array();
  for (const CaseResult& c : report.cases) cases.push_back(CaseToJson(c));
  Json j = {
      {"schema", kReportSchemaName},        {"schema_version", report.schema_version},
      {"complete", report.complete},        {"environment", EnvironmentToJson(report.environment)},
      {"suite", SuiteToJson(report.suite)}, {"cases", std::move(cases)}};
  // Only when there is something to say: older readers ignore the key, newer ones read it.
  if (report.unreadable_journal_lines > 0) {
    j["unreadable_journal_lines"] = report.unreadable_journal_lines;
  }
  return j;
}

Json CaseToJson(const CaseResult& c) {
  Json j = {{"kernel_id", c.kernel_id},           {"family", c.family},
            {"problem_key", c.problem_key},       {"params", c.params},
            {"input_kind", c.input_kind},         {"seed", c.seed},
            {"status", CaseStatusName(c.status)}, {"reason", c.reason},
            {"wall_s", Number(c.wall_s)}};
  if (c.kernel_revision != 0 || !c.kernel_title.empty()) {
    j["kernel_revision"] = c.kernel_revision;
    j["kernel_title"] = c.kernel_title;
    j["kernel_changed"] = c.kernel_changed;
  }
  if (c.timing) j["timing"] = TimingToJson(*c.timing);
  if (c.throughput) j["throughput"] = ThroughputToJson(*c.throughput);
  if (c.verification) j["verification"] = VerificationToJson(*c.verification);
  if (c.profile) j["profile"] = ProfileToJson(*c.profile);
  Json resources = Json::array();
  for (const ResourceRecord& r : c.resources) resources.push_back(ResourceToJson(r));
  j["resources"] = std::move(resources);
  if (c.sanitizer) j["sanitizer"] = SanitizerToJson(*c.sanitizer);
  if (c.trust) j["trust"] = TrustToJson(*c.trust);
  if (c.provenance) j["provenance"] = ProvenanceToJson(*c.provenance);
  if (c.prepare) j["prepare"] = {{"wall_s", c.prepare->wall_s}, {"note", c.prepare->note}};
  if (c.device) j["device"] = *c.device;
  if (!c.device_uuid.empty()) j["device_uuid"] = c.device_uuid;
  if (c.tile) j["tile"] = {{"block_m", c.tile->block_m}, {"block_n", c.tile->block_n}};
  return j;
}

Json DeviceToJson(const DeviceRecord& d) {
  return {{"index", d.index},
          {"uuid", d.uuid},
          {"pci_bus_id", d.pci_bus_id},
          {"name", d.name},
          {"compute_capability", d.compute_capability},
          {"sm_count", d.sm_count},
          {"memory_bytes", d.memory_bytes},
          {"sm_clock_mhz", d.sm_clock_mhz},
          {"driver_version", d.driver_version},
          {"peaks", PeaksToJson(d.peaks)}};
}

Json EnvironmentToJson(const Environment& e) {
  Json j = {{"gpu_name", e.gpu_name},
            {"synthetic", e.synthetic},
            {"sm_count", e.sm_count},
            {"compute_capability", e.compute_capability},
            {"l2_bytes", e.l2_bytes},
            {"memory_bytes", e.memory_bytes},
            {"sm_clock_mhz", e.sm_clock_mhz},
            {"memory_clock_mhz", e.memory_clock_mhz},
            {"memory_bus_bits", e.memory_bus_bits},
            {"driver_version", e.driver_version},
            {"cuda_runtime_version", e.cuda_runtime_version},
            {"peaks", PeaksToJson(e.peaks)},
            {"git_revision", e.git_revision},
            {"host", e.host},
            {"started_at", e.started_at},
            {"finished_at", e.finished_at},
            {"flashscope_version", e.flashscope_version},
            {"command_line", e.command_line}};
  if (e.active_s > 0) j["active_s"] = e.active_s;
  if (!e.devices.empty()) {
    Json devices = Json::array();
    for (const DeviceRecord& d : e.devices) devices.push_back(DeviceToJson(d));
    j["devices"] = std::move(devices);
  }
  return j;
}

Json SuiteToJson(const SuiteRecord& s) {
  Json j = {{"name", s.name},
            {"path", s.path},
            {"description", s.description},
            {"kernels_filter", s.kernels_filter},
            {"timing_policy", TimingPolicyToJson(s.timing)}};
  // Written when known, so that reports of runs without them read as before.
  if (!s.sha256.empty()) j["sha256"] = s.sha256;
  if (!s.shard.empty()) j["shard"] = s.shard;
  return j;
}

}  // namespace flashscope::reports
