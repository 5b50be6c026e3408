// The report's records, each described once (jsonio::Reader reads and jsonio::Writer writes from
// the same list; reports/json_record.h). Internal to the report JSON code (report_json.cc, the
// journal, the plan); the public entry points are in report_json.h. docs/report-schema.md holds
// the keys' meanings; to add a field, add one line to its record's Describe below.
#pragma once

#include <algorithm>

#include "absl/strings/str_format.h"
#include "reports/json_record.h"
#include "reports/report.h"
#include "reports/report_checks.h"

// The records that live in common/ (shared with verify/ and profiler/: measured peaks, the timing
// policy, error statistics, resource usage, error heatmaps, plugin provenance) are described in
// their own namespace, where argument-dependent lookup (jsonio::IsRecord) finds them; declared
// before the report's records, which nest them.
namespace flashscope {

template <class V>
void Describe(V& v, MeasuredPeaks& p) {
  v("matmul_fp16_tflops", p.matmul_fp16_tflops);
  v("matmul_bf16_tflops", p.matmul_bf16_tflops);
  v("copy_gbps", p.copy_gbps);
  v("matmul_source", p.matmul_source);
  v("copy_source", p.copy_source);
}

template <class V>
void Describe(V& v, TimingPolicy& t) {
  v("cold", t.cold);
  v("warmup", t.warmup, reports::jsonio::AtLeast(0));
  v("min_samples", t.min_samples, reports::jsonio::AtLeast(0));
  v("max_samples", t.max_samples, reports::jsonio::AtLeast(0));
  v("noise_target", t.noise_target);
  v("time_cap_s", t.time_cap_s);
}

template <class V>
void Describe(V& v, ErrorStats& s) {
  v("elements", s.elements, reports::jsonio::AtLeast(0));
  v("max_abs", s.max_abs);
  v("mean_abs", s.mean_abs);
  v("nrmse", s.nrmse);
  v("max_rel", s.max_rel);
  v("bad", s.bad, reports::jsonio::AtLeast(0));
  v("nan", s.nan, reports::jsonio::AtLeast(0));
  v("inf", s.inf, reports::jsonio::AtLeast(0));
  v("never_written", s.never_written, reports::jsonio::AtLeast(0));
  v("worst_index", s.worst_index, reports::jsonio::AtLeast(-1));
  v.Check([&](reports::jsonio::Fields& f) {
    // Counts of elements add up: none can exceed the elements compared.
    for (auto [key, n] : {std::pair{"bad", s.bad}, std::pair{"nan", s.nan}, std::pair{"inf", s.inf},
                          std::pair{"never_written", s.never_written}}) {
      if (s.elements > 0 && n > s.elements) {
        f.Fail(f.PathOf(key), absl::StrCat(n, " of ", s.elements,
                                           " elements: a count cannot exceed \"elements\""));
        return;
      }
    }
  });
}

template <class V>
void Describe(V& v, ResourceUsage& r) {
  v("function", r.function);
  v("registers", r.registers, reports::jsonio::AtLeast(0));
  v("static_smem_bytes", r.static_smem_bytes, reports::jsonio::AtLeast(0));
  v("dynamic_smem_bytes", r.dynamic_smem_bytes, reports::jsonio::AtLeast(0));
  v("local_bytes", r.local_bytes, reports::jsonio::AtLeast(0));
  v("block_threads", r.block_threads, reports::jsonio::AtLeast(0));
  v("theoretical_occupancy", r.theoretical_occupancy);
}

template <class V>
void Describe(V& v, Heatmap& h) {
  v("kind", h.kind, reports::jsonio::Required());
  v("row_axis", h.row_axis);
  v("col_axis", h.col_axis);
  v("src_rows", h.src_rows, reports::jsonio::AtLeast(0));
  v("src_cols", h.src_cols, reports::jsonio::AtLeast(0));
  v("rows", h.rows, reports::jsonio::Required());
  v("cols", h.cols, reports::jsonio::Required());
  v("max", h.max, reports::jsonio::Required());
  v("mean", h.mean);
  v.Check([&](reports::jsonio::Fields& f) {
    // A viewer indexes max[r * cols + c]: a size mismatch must fail here, not there.
    if (h.rows < 0 || h.cols < 0) {
      f.Fail(f.path(), absl::StrCat("negative shape ", h.rows, " x ", h.cols));
      return;
    }
    const int64_t cells = static_cast<int64_t>(h.rows) * h.cols;
    for (auto [key, values] : {std::pair{"max", &h.max}, std::pair{"mean", &h.mean}}) {
      if (values->empty() && std::string(key) == "mean") continue;
      if (static_cast<int64_t>(values->size()) != cells) {
        f.Fail(f.PathOf(key), absl::StrCat("expected ", cells, " values (rows ", h.rows, " x cols ",
                                           h.cols, "), got ", values->size()));
        return;
      }
    }
  });
}

// A case's provenance; also each plugin of a plan (plan_json.cc).
template <class V>
void Describe(V& v, PluginProvenance& p) {
  v("builtin", p.builtin);
  v("plugin", p.plugin, reports::jsonio::Required());
  v("version", p.version);
  v("path", p.path);
  v("sha256", p.sha256);
}

}  // namespace flashscope

namespace flashscope::reports {

using jsonio::AtLeast;
using jsonio::OmitEmpty;
using jsonio::OmitUnless;
using jsonio::Required;

// Declared first so that each can nest the others (IsRecord finds them by name).
template <class V>
void Describe(V& v, DeviceRecord& d);
template <class V>
void Describe(V& v, Environment& e);
template <class V>
void Describe(V& v, SuiteRecord& s);
template <class V>
void Describe(V& v, InterleavingRecord& r);
template <class V>
void Describe(V& v, TimingRecord& t);
template <class V>
void Describe(V& v, ThroughputRecord& t);
template <class V>
void Describe(V& v, VerificationRecord& r);
template <class V>
void Describe(V& v, MetricRecord& m);
template <class V>
void Describe(V& v, ProfileRecord& p);
template <class V>
void Describe(V& v, SanitizerFinding& f);
template <class V>
void Describe(V& v, SanitizerRecord& r);
template <class V>
void Describe(V& v, TileRecord& t);
template <class V>
void Describe(V& v, PrepareRecord& p);
template <class V>
void Describe(V& v, CaseResult& c);
template <class V>
void Describe(V& v, Report& r);

template <class V>
void Describe(V& v, DeviceRecord& d) {
  v("index", d.index, AtLeast(0));
  v("uuid", d.uuid);
  v("pci_bus_id", d.pci_bus_id);
  v("name", d.name);
  v("compute_capability", d.compute_capability, AtLeast(0));
  v("sm_count", d.sm_count, AtLeast(0));
  v("memory_bytes", d.memory_bytes, AtLeast(0));
  v("sm_clock_mhz", d.sm_clock_mhz, AtLeast(0));
  v("driver_version", d.driver_version);
  v("peaks", d.peaks);
}

template <class V>
void Describe(V& v, Environment& e) {
  v("gpu_name", e.gpu_name);
  v("synthetic", e.synthetic);
  v("sm_count", e.sm_count, AtLeast(0));
  v("compute_capability", e.compute_capability, AtLeast(0));
  v("l2_bytes", e.l2_bytes, AtLeast(0));
  v("memory_bytes", e.memory_bytes, AtLeast(0));
  v("sm_clock_mhz", e.sm_clock_mhz, AtLeast(0));
  v("memory_clock_mhz", e.memory_clock_mhz, AtLeast(0));
  v("memory_bus_bits", e.memory_bus_bits, AtLeast(0));
  v("driver_version", e.driver_version);
  v("cuda_runtime_version", e.cuda_runtime_version);
  v("peaks", e.peaks);
  v("git_revision", e.git_revision);
  v("host", e.host);
  v("started_at", e.started_at);
  v("finished_at", e.finished_at);
  v("active_s", e.active_s, OmitUnless(e.active_s > 0));
  v("flashscope_version", e.flashscope_version);
  v("command_line", e.command_line);
  v("devices", e.devices, OmitEmpty());
}

template <class V>
void Describe(V& v, SuiteRecord& s) {
  v("name", s.name, Required());
  v("path", s.path);
  v("description", s.description);
  v("kernels_filter", s.kernels_filter);
  v("timing_policy", s.timing);
  // Written when known, so that reports of runs without them read and write as before.
  v("sha256", s.sha256, OmitEmpty());
  v("shard", s.shard, OmitEmpty());
}

template <class V>
void Describe(V& v, InterleavingRecord& r) {
  v("side", r.side, Required());
  v("seed", r.seed);
  v("order", r.order, Required());
  v("rejected_pairs", r.rejected_pairs, AtLeast(0));
  v.Check([&](jsonio::Fields& f) {
    if (r.side != "base" && r.side != "new") {
      f.Fail(f.PathOf("side"), absl::StrCat("expected \"base\" or \"new\", got \"", r.side, "\""));
    } else if (r.order.find_first_not_of("bn") != std::string::npos) {
      f.Fail(f.PathOf("order"),
             "expected one letter per pair, 'b' (base first) or 'n' (new first)");
    }
  });
}

template <class V>
void Describe(V& v, TimingRecord& t) {
  v("mode", t.mode);
  v("warmup_runs", t.warmup_runs, AtLeast(0));
  v("samples_rejected_throttled", t.samples_rejected_throttled, AtLeast(0));
  v("median_ms", t.median_ms, Required());
  v("mean_ms", t.mean_ms);
  v("min_ms", t.min_ms);
  v("max_ms", t.max_ms);
  v("stdev_ms", t.stdev_ms);
  v("p10_ms", t.p10_ms);
  v("p90_ms", t.p90_ms);
  v("noise", t.noise);
  v("converged", t.converged);
  v("stop_reason", t.stop_reason);
  v("median_sm_clock_mhz", t.median_sm_clock_mhz);
  v("samples_ms", t.samples_ms);
  v("interleaved", t.interleaved);
  v.Check([&](jsonio::Fields& f) {
    if (!t.mode.empty() && t.mode != "cold" && t.mode != "hot") {
      f.Fail(f.PathOf("mode"), absl::StrCat("expected \"cold\" or \"hot\", got \"", t.mode, "\""));
    } else if (t.interleaved && t.interleaved->order.size() != t.samples_ms.size()) {
      f.Fail(jsonio::JoinPath(f.PathOf("interleaved"), "order"),
             absl::StrCat(t.interleaved->order.size(), " pairs for ", t.samples_ms.size(),
                          " samples: one letter per sample of samples_ms"));
    } else if (std::string why = TimingContradiction(t); !why.empty()) {
      f.Fail(f.path(), why);
    }
  });
}

template <class V>
void Describe(V& v, ThroughputRecord& t) {
  v("flops", t.flops);
  v("bytes", t.bytes);
  v("tflops", t.tflops);
  v("gbps", t.gbps);
  v("pct_peak_flops", t.pct_peak_flops);
  v("pct_peak_bandwidth", t.pct_peak_bandwidth);
}

template <class V>
void Describe(V& v, VerificationRecord& r) {
  v("ran", r.ran, Required());
  v("passed", r.passed, Required());
  v("rule", r.rule);
  v("reference", r.reference);
  v("atol", r.atol);
  v("rtol", r.rtol);
  v("stats", r.stats);
  v("baseline_max_abs", r.baseline_max_abs);
  v("ratio_to_baseline", r.ratio_to_baseline);
  v("heatmaps", r.heatmaps);
  v("dump_dir", r.dump_dir);
}

template <class V>
void Describe(V& v, MetricRecord& m) {
  v("name", m.name, Required());
  v("hw_name", m.hw_name);
  v("unit", m.unit);
  v("value", m.value, Required());
  // Absent in reports written before descriptions were recorded, which stay as they were.
  v("description", m.description, OmitEmpty());
}

template <class V>
void Describe(V& v, ProfileRecord& p) {
  v("available", p.available, Required());
  v("unavailable_reason", p.unavailable_reason);
  v("metrics", p.metrics);
  v("passes", p.passes, AtLeast(0));
  v("replay", p.replay);
  v("kernels", p.kernels, AtLeast(0));
  v("ranges", p.ranges);
  v("wall_s", p.wall_s);
  v.Pairs("kernel_durations_ms", p.kernel_durations_ms, "kernel", "ms");
}

template <class V>
void Describe(V& v, SanitizerFinding& f) {
  v("kind", f.kind, Required());
  v("kernel", f.kernel);
  v("message", f.message);
}

template <class V>
void Describe(V& v, SanitizerRecord& r) {
  v("tool", r.tool, Required());
  v("ran", r.ran, Required());
  v("note", r.note);
  v("errors", r.errors, AtLeast(0));
  v.Counts("kinds", r.kinds, "kind", "count");
  v("findings", r.findings);
  v("case_status", r.case_status);
  v("case_reason", r.case_reason);
  v("wall_s", r.wall_s);
}

template <class V>
void Describe(V& v, TileRecord& t) {
  v("block_m", t.block_m, Required());
  v("block_n", t.block_n, Required());
  v.Check([&](jsonio::Fields& f) {
    if (t.block_m < 1 || t.block_n < 1) {
      f.Fail(f.PathOf("block_m"),
             absl::StrCat("a tile of ", t.block_m, " x ", t.block_n, " (both must be >= 1)"));
    }
  });
}

template <class V>
void Describe(V& v, PrepareRecord& p) {
  v("wall_s", p.wall_s, Required());
  v("note", p.note);
}

// The trust checks (docs/trust.md, docs/report-schema.md "trust").
template <class V>
void Describe(V& v, TrustValue& t) {
  v("name", t.name, Required());
  v("value", t.value, Required());
  v("unit", t.unit);
}

template <class V>
void Describe(V& v, TrustCheckRecord& c) {
  v("check", c.check, Required());
  v("status", c.status, Required());
  v.Check([&](jsonio::Fields& f) {
    if (c.status != "passed" && c.status != "failed" && c.status != "off" && c.status != "info") {
      f.Fail(f.PathOf("status"), absl::StrCat("unknown trust check status \"", c.status,
                                              "\" (expected passed, failed, off or info)"));
    }
  });
  v("rule", c.rule);
  v("values", c.values);
  v("findings", c.findings);
}

template <class V>
void Describe(V& v, TimedLaunchRecord& l) {
  v("launch", l.launch, Required().AtLeast(0));
  v("input_set", l.input_set, AtLeast(0));
  v("poisoned_before", l.poisoned_before);
  v("bad", l.bad, AtLeast(0));
  v("never_written", l.never_written, AtLeast(0));
  v("max_abs", l.max_abs);
  v("kind", l.kind);
  v("rows", l.rows, AtLeast(0));
  v("bad_rows", l.bad_rows, AtLeast(0));
  v("lse_bad", l.lse_bad, AtLeast(0));
  v("input_seed", l.input_seed);
}

template <class V>
void Describe(V& v, ActivityRecord& a) {
  v("kind", a.kind, Required());
  v("name", a.name);
  v("stream", a.stream, AtLeast(-1));
  v("start_us", a.start_us);
  v("end_us", a.end_us);
  v("bytes", a.bytes, AtLeast(0));
  v("synchronous", a.synchronous);
}

template <class V>
void Describe(V& v, TrustRecord& t) {
  v("checks", t.checks, Required());
  v("input_sets", t.input_sets);
  v("failed_launches", t.failed_launches);
  v("launch_stream", t.launch_stream, AtLeast(-1));
  v("activity", t.activity);
  v("wall_s", t.wall_s);
}

template <class V>
void Describe(V& v, CaseResult& c) {
  v("kernel_id", c.kernel_id, Required());
  // The registry's story, written only for kernels that have one (older reports lack it).
  const bool revised = c.kernel_revision != 0 || !c.kernel_title.empty();
  v("kernel_revision", c.kernel_revision, OmitUnless(revised));
  v("kernel_title", c.kernel_title, OmitUnless(revised));
  v("kernel_changed", c.kernel_changed, OmitUnless(revised));
  v("family", c.family);
  v("problem_key", c.problem_key, Required());
  v("params", c.params);
  v("input_kind", c.input_kind);
  v("seed", c.seed);
  v.Text("status", c.status, ParseCaseStatus, CaseStatusName,
         "passed, failed, skipped, error or timeout", Required());
  v("reason", c.reason);
  v("wall_s", c.wall_s);
  v("timing", c.timing);
  v("throughput", c.throughput);
  v("verification", c.verification);
  v("profile", c.profile);
  v("resources", c.resources);
  v("sanitizer", c.sanitizer);
  v("provenance", c.provenance);
  v("tile", c.tile);
  v("trust", c.trust);
  v("prepare", c.prepare);
  v("device", c.device);
  v("device_uuid", c.device_uuid, OmitEmpty());
}

// The top level without "schema" and "schema_version", which report_json.cc checks first.
template <class V>
void Describe(V& v, Report& r) {
  v("complete", r.complete);
  // Only when there is something to say: older readers ignore the key, newer ones read it.
  v("unreadable_journal_lines", r.unreadable_journal_lines,
    AtLeast(0).OmitUnless(r.unreadable_journal_lines > 0));
  v("environment", r.environment, Required());
  v("suite", r.suite, Required());
  v("cases", r.cases, Required());
}

}  // namespace flashscope::reports
