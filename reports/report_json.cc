// Reading the report's JSON form (docs/report-schema.md); writing: report_json_write.cc.
#include "reports/report_json.h"

#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "reports/json_fields.h"
#include "reports/provenance_json.h"
#include "reports/trust_json.h"

namespace flashscope::reports {
namespace {

using jsonio::Fields;
using jsonio::IndexPath;
using jsonio::Json;
using jsonio::Need;

// ---- reading (all share one sticky status; see jsonio::Fields) ----

void ReadPeaks(const Json& j, const std::string& path, absl::Status* st, MeasuredPeaks* p) {
  Fields f(j, path, st);
  f.Get("matmul_fp16_tflops", &p->matmul_fp16_tflops);
  f.Get("matmul_bf16_tflops", &p->matmul_bf16_tflops);
  f.Get("copy_gbps", &p->copy_gbps);
  f.Get("matmul_source", &p->matmul_source);
  f.Get("copy_source", &p->copy_source);
}

void ReadDevice(const Json& j, const std::string& path, absl::Status* st, DeviceRecord* d) {
  Fields f(j, path, st);
  f.Get("index", &d->index);
  f.Get("uuid", &d->uuid);
  f.Get("pci_bus_id", &d->pci_bus_id);
  f.Get("name", &d->name);
  f.Get("compute_capability", &d->compute_capability);
  f.Get("sm_count", &d->sm_count);
  f.Get("memory_bytes", &d->memory_bytes);
  f.Get("sm_clock_mhz", &d->sm_clock_mhz);
  f.Get("driver_version", &d->driver_version);
  if (const Json* p = f.Object("peaks")) ReadPeaks(*p, f.PathOf("peaks"), st, &d->peaks);
}

void ReadEnvironment(const Json& j, const std::string& path, absl::Status* st, Environment* e) {
  Fields f(j, path, st);
  f.Get("gpu_name", &e->gpu_name);
  f.Get("synthetic", &e->synthetic);
  f.Get("sm_count", &e->sm_count);
  f.Get("compute_capability", &e->compute_capability);
  f.Get("l2_bytes", &e->l2_bytes);
  f.Get("memory_bytes", &e->memory_bytes);
  f.Get("sm_clock_mhz", &e->sm_clock_mhz);
  f.Get("memory_clock_mhz", &e->memory_clock_mhz);
  f.Get("memory_bus_bits", &e->memory_bus_bits);
  f.Get("driver_version", &e->driver_version);
  f.Get("cuda_runtime_version", &e->cuda_runtime_version);
  if (const Json* p = f.Object("peaks")) ReadPeaks(*p, f.PathOf("peaks"), st, &e->peaks);
  f.Get("git_revision", &e->git_revision);
  f.Get("host", &e->host);
  f.Get("started_at", &e->started_at);
  f.Get("finished_at", &e->finished_at);
  f.Get("active_s", &e->active_s);
  f.Get("flashscope_version", &e->flashscope_version);
  f.Get("command_line", &e->command_line);
  if (const Json* a = f.Array("devices")) {
    for (size_t i = 0; i < a->size() && st->ok(); ++i) {
      ReadDevice((*a)[i], IndexPath(f.PathOf("devices"), i), st, &e->devices.emplace_back());
    }
  }
}

void ReadTimingPolicy(const Json& j, const std::string& path, absl::Status* st,
                      TimingPolicyRecord* t) {
  Fields f(j, path, st);
  f.Get("cold", &t->cold);
  f.Get("warmup", &t->warmup);
  f.Get("min_samples", &t->min_samples);
  f.Get("max_samples", &t->max_samples);
  f.Get("noise_target", &t->noise_target);
  f.Get("time_cap_s", &t->time_cap_s);
}

void ReadSuite(const Json& j, const std::string& path, absl::Status* st, SuiteRecord* s) {
  Fields f(j, path, st);
  f.Get("name", &s->name, Need::kRequired);
  f.Get("path", &s->path);
  f.Get("description", &s->description);
  f.Get("kernels_filter", &s->kernels_filter);
  f.Get("sha256", &s->sha256);
  f.Get("shard", &s->shard);
  if (const Json* t = f.Object("timing_policy")) {
    ReadTimingPolicy(*t, f.PathOf("timing_policy"), st, &s->timing);
  }
}

void ReadInterleaving(const Json& j, const std::string& path, absl::Status* st,
                      InterleavingRecord* r, size_t samples) {
  Fields f(j, path, st);
  f.Get("side", &r->side, Need::kRequired);
  f.Get("seed", &r->seed);
  f.Get("order", &r->order, Need::kRequired);
  f.Get("rejected_pairs", &r->rejected_pairs);
  if (!f.ok()) return;
  if (r->side != "base" && r->side != "new") {
    f.Fail(f.PathOf("side"), absl::StrCat("expected \"base\" or \"new\", got \"", r->side, "\""));
  } else if (r->order.find_first_not_of("bn") != std::string::npos) {
    f.Fail(f.PathOf("order"), "expected one letter per pair, 'b' (base first) or 'n' (new first)");
  } else if (r->order.size() != samples) {
    f.Fail(f.PathOf("order"), absl::StrCat(r->order.size(), " pairs for ", samples,
                                           " samples: one letter per sample of samples_ms"));
  }
}

void ReadTiming(const Json& j, const std::string& path, absl::Status* st, TimingRecord* t) {
  Fields f(j, path, st);
  f.Get("mode", &t->mode);
  f.Get("warmup_runs", &t->warmup_runs);
  f.Get("samples_rejected_throttled", &t->samples_rejected_throttled);
  f.Get("median_ms", &t->median_ms, Need::kRequired);
  f.Get("mean_ms", &t->mean_ms);
  f.Get("min_ms", &t->min_ms);
  f.Get("max_ms", &t->max_ms);
  f.Get("stdev_ms", &t->stdev_ms);
  f.Get("p10_ms", &t->p10_ms);
  f.Get("p90_ms", &t->p90_ms);
  f.Get("noise", &t->noise);
  f.Get("converged", &t->converged);
  f.Get("stop_reason", &t->stop_reason);
  f.Get("median_sm_clock_mhz", &t->median_sm_clock_mhz);
  f.Get("samples_ms", &t->samples_ms);
  if (const Json* i = f.Object("interleaved")) {
    ReadInterleaving(*i, f.PathOf("interleaved"), st, &t->interleaved.emplace(),
                     t->samples_ms.size());
  }
  if (f.ok() && !t->mode.empty() && t->mode != "cold" && t->mode != "hot") {
    f.Fail(f.PathOf("mode"), absl::StrCat("expected \"cold\" or \"hot\", got \"", t->mode, "\""));
  }
}

void ReadThroughput(const Json& j, const std::string& path, absl::Status* st, ThroughputRecord* t) {
  Fields f(j, path, st);
  f.Get("flops", &t->flops);
  f.Get("bytes", &t->bytes);
  f.Get("tflops", &t->tflops);
  f.Get("gbps", &t->gbps);
  f.Get("pct_peak_flops", &t->pct_peak_flops);
  f.Get("pct_peak_bandwidth", &t->pct_peak_bandwidth);
}

void ReadStats(const Json& j, const std::string& path, absl::Status* st, ErrorStatsRecord* s) {
  Fields f(j, path, st);
  f.Get("elements", &s->elements);
  f.Get("max_abs", &s->max_abs);
  f.Get("mean_abs", &s->mean_abs);
  f.Get("nrmse", &s->nrmse);
  f.Get("max_rel", &s->max_rel);
  f.Get("bad", &s->bad);
  f.Get("nan", &s->nan);
  f.Get("inf", &s->inf);
  f.Get("never_written", &s->never_written);
  f.Get("worst_index", &s->worst_index);
}

void ReadHeatmap(const Json& j, const std::string& path, absl::Status* st, HeatmapRecord* h) {
  Fields f(j, path, st);
  f.Get("kind", &h->kind, Need::kRequired);
  f.Get("row_axis", &h->row_axis);
  f.Get("col_axis", &h->col_axis);
  f.Get("src_rows", &h->src_rows);
  f.Get("src_cols", &h->src_cols);
  f.Get("rows", &h->rows, Need::kRequired);
  f.Get("cols", &h->cols, Need::kRequired);
  f.Get("max", &h->max, Need::kRequired);
  f.Get("mean", &h->mean);
  if (!f.ok()) return;
  // A viewer indexes max[r * cols + c]: a size mismatch must fail here, not there.
  const int64_t cells = static_cast<int64_t>(h->rows) * h->cols;
  if (h->rows < 0 || h->cols < 0) {
    f.Fail(path, absl::StrCat("negative shape ", h->rows, " x ", h->cols));
    return;
  }
  for (auto [key, values] : {std::pair{"max", &h->max}, std::pair{"mean", &h->mean}}) {
    if (values->empty() && std::string(key) == "mean") continue;
    if (static_cast<int64_t>(values->size()) != cells) {
      f.Fail(f.PathOf(key), absl::StrCat("expected ", cells, " values (rows ", h->rows, " x cols ",
                                         h->cols, "), got ", values->size()));
      return;
    }
  }
}

void ReadVerification(const Json& j, const std::string& path, absl::Status* st,
                      VerificationRecord* v) {
  Fields f(j, path, st);
  f.Get("ran", &v->ran, Need::kRequired);
  f.Get("passed", &v->passed, Need::kRequired);
  f.Get("rule", &v->rule);
  f.Get("reference", &v->reference);
  f.Get("atol", &v->atol);
  f.Get("rtol", &v->rtol);
  if (const Json* s = f.Object("stats")) ReadStats(*s, f.PathOf("stats"), st, &v->stats);
  f.Get("baseline_max_abs", &v->baseline_max_abs);
  f.Get("ratio_to_baseline", &v->ratio_to_baseline);
  if (const Json* a = f.Array("heatmaps")) {
    for (size_t i = 0; i < a->size() && st->ok(); ++i) {
      HeatmapRecord h;
      ReadHeatmap((*a)[i], IndexPath(f.PathOf("heatmaps"), i), st, &h);
      v->heatmaps.push_back(std::move(h));
    }
  }
  f.Get("dump_dir", &v->dump_dir);
}

void ReadProfile(const Json& j, const std::string& path, absl::Status* st, ProfileRecord* p) {
  Fields f(j, path, st);
  f.Get("available", &p->available, Need::kRequired);
  f.Get("unavailable_reason", &p->unavailable_reason);
  if (const Json* a = f.Array("metrics")) {
    for (size_t i = 0; i < a->size() && st->ok(); ++i) {
      Fields m((*a)[i], IndexPath(f.PathOf("metrics"), i), st);
      MetricRecord r;
      m.Get("name", &r.name, Need::kRequired);
      m.Get("hw_name", &r.hw_name);
      m.Get("unit", &r.unit);
      m.Get("value", &r.value, Need::kRequired);
      m.Get("description", &r.description);
      p->metrics.push_back(std::move(r));
    }
  }
  f.Get("passes", &p->passes);
  f.Get("replay", &p->replay);
  f.Get("kernels", &p->kernels);
  f.Get("ranges", &p->ranges);
  f.Get("wall_s", &p->wall_s);
  if (const Json* a = f.Array("kernel_durations_ms")) {
    for (size_t i = 0; i < a->size() && st->ok(); ++i) {
      Fields d((*a)[i], IndexPath(f.PathOf("kernel_durations_ms"), i), st);
      std::pair<std::string, double> entry;
      d.Get("kernel", &entry.first, Need::kRequired);
      d.Get("ms", &entry.second, Need::kRequired);
      p->kernel_durations_ms.push_back(std::move(entry));
    }
  }
}

void ReadResource(const Json& j, const std::string& path, absl::Status* st, ResourceRecord* r) {
  Fields f(j, path, st);
  f.Get("function", &r->function);
  f.Get("registers", &r->registers);
  f.Get("static_smem_bytes", &r->static_smem_bytes);
  f.Get("dynamic_smem_bytes", &r->dynamic_smem_bytes);
  f.Get("local_bytes", &r->local_bytes);
  f.Get("block_threads", &r->block_threads);
  f.Get("theoretical_occupancy", &r->theoretical_occupancy);
}

void ReadSanitizer(const Json& j, const std::string& path, absl::Status* st, SanitizerRecord* r) {
  Fields f(j, path, st);
  f.Get("tool", &r->tool, Need::kRequired);
  f.Get("ran", &r->ran, Need::kRequired);
  f.Get("note", &r->note);
  f.Get("errors", &r->errors);
  if (const Json* a = f.Array("kinds")) {
    for (size_t i = 0; i < a->size() && st->ok(); ++i) {
      Fields k((*a)[i], IndexPath(f.PathOf("kinds"), i), st);
      std::string kind;
      int64_t count = 0;
      k.Get("kind", &kind, Need::kRequired);
      k.Get("count", &count, Need::kRequired);
      if (k.ok()) r->kinds[kind] += count;
    }
  }
  if (const Json* a = f.Array("findings")) {
    for (size_t i = 0; i < a->size() && st->ok(); ++i) {
      Fields e((*a)[i], IndexPath(f.PathOf("findings"), i), st);
      SanitizerFinding finding;
      e.Get("kind", &finding.kind, Need::kRequired);
      e.Get("kernel", &finding.kernel);
      e.Get("message", &finding.message);
      r->findings.push_back(std::move(finding));
    }
  }
  f.Get("case_status", &r->case_status);
  f.Get("case_reason", &r->case_reason);
  f.Get("wall_s", &r->wall_s);
}

void ReadCase(const Json& j, const std::string& path, absl::Status* st, CaseResult* c) {
  Fields f(j, path, st);
  f.Get("kernel_id", &c->kernel_id, Need::kRequired);
  f.Get("kernel_revision", &c->kernel_revision);
  f.Get("kernel_title", &c->kernel_title);
  f.Get("kernel_changed", &c->kernel_changed);
  f.Get("family", &c->family);
  f.Get("problem_key", &c->problem_key, Need::kRequired);
  f.Get("params", &c->params);
  f.Get("input_kind", &c->input_kind);
  f.Get("seed", &c->seed);
  std::string status;
  f.Get("status", &status, Need::kRequired);
  if (f.ok()) {
    std::optional<CaseStatus> parsed = ParseCaseStatus(status);
    if (!parsed) {
      f.Fail(f.PathOf("status"),
             absl::StrCat("unknown status \"", status,
                          "\" (expected passed, failed, skipped, error or timeout)"));
    } else {
      c->status = *parsed;
    }
  }
  f.Get("reason", &c->reason);
  f.Get("wall_s", &c->wall_s);
  if (const Json* t = f.Object("timing")) {
    ReadTiming(*t, f.PathOf("timing"), st, &c->timing.emplace());
  }
  if (const Json* t = f.Object("throughput")) {
    ReadThroughput(*t, f.PathOf("throughput"), st, &c->throughput.emplace());
  }
  if (const Json* v = f.Object("verification")) {
    ReadVerification(*v, f.PathOf("verification"), st, &c->verification.emplace());
  }
  if (const Json* p = f.Object("profile")) {
    ReadProfile(*p, f.PathOf("profile"), st, &c->profile.emplace());
  }
  if (const Json* a = f.Array("resources")) {
    for (size_t i = 0; i < a->size() && st->ok(); ++i) {
      ResourceRecord r;
      ReadResource((*a)[i], IndexPath(f.PathOf("resources"), i), st, &r);
      c->resources.push_back(std::move(r));
    }
  }
  if (const Json* z = f.Object("sanitizer")) {
    ReadSanitizer(*z, f.PathOf("sanitizer"), st, &c->sanitizer.emplace());
  }
  if (const Json* p = f.Object("provenance")) {
    ReadProvenance(*p, f.PathOf("provenance"), st, &c->provenance.emplace());
  }
  if (const Json* t = f.Object("tile")) {
    Fields tile(*t, f.PathOf("tile"), st);
    TileRecord& r = c->tile.emplace();
    tile.Get("block_m", &r.block_m, Need::kRequired);
    tile.Get("block_n", &r.block_n, Need::kRequired);
    if (tile.ok() && (r.block_m < 1 || r.block_n < 1)) {
      tile.Fail(tile.PathOf("block_m"),
                absl::StrCat("a tile of ", r.block_m, " x ", r.block_n, " (both must be >= 1)"));
    }
  }
  if (const Json* t = f.Object("trust")) ReadTrust(*t, f.PathOf("trust"), st, &c->trust.emplace());
  if (const Json* p = f.Object("prepare")) {
    Fields pf(*p, f.PathOf("prepare"), st);
    PrepareRecord& prepare = c->prepare.emplace();
    pf.Get("wall_s", &prepare.wall_s, Need::kRequired);
    pf.Get("note", &prepare.note);
  }
  f.Get("device", &c->device);
  f.Get("device_uuid", &c->device_uuid);
}

// Names the JSON that is not a flashscope report when it is recognisably something else.
std::string WhatElseItIs(const Json& j) {
  if (!j.is_object()) return absl::StrCat("the top level is ", jsonio::TypeName(j));
  if (j.contains("context") && j.contains("benchmarks")) {
    return "it looks like Google Benchmark JSON (\"context\" + \"benchmarks\")";
  }
  auto schema = j.find("schema");
  if (schema != j.end() && schema->is_string()) {
    return absl::StrCat("its \"schema\" is \"", schema->get<std::string>(), "\"");
  }
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end() && keys.size() < 6; ++it) keys.push_back(it.key());
  return absl::StrCat("no \"schema\" key; top-level keys: ",
                      keys.empty() ? "(none)" : absl::StrJoin(keys, ", "));
}

absl::Status CheckSchema(const Json& j) {
  auto schema = j.is_object() ? j.find("schema") : j.end();
  if (!j.is_object() || schema == j.end() || !schema->is_string() ||
      schema->get<std::string>() != kReportSchemaName) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a flashscope report (expected \"schema\": \"", kReportSchemaName, "\"; ",
                     WhatElseItIs(j), ")"));
  }
  auto version = j.find("schema_version");
  if (version == j.end()) {
    return absl::InvalidArgumentError("schema_version: missing (required beside \"schema\")");
  }
  if (!version->is_number_integer()) {
    return absl::InvalidArgumentError(
        absl::StrCat("schema_version: expected integer, got ", jsonio::TypeName(*version)));
  }
  // An unsigned value past int64 would read as negative: it is newer than anything we know.
  if (version->is_number_unsigned() && version->get<uint64_t>() > uint64_t{INT64_MAX}) {
    return absl::FailedPreconditionError(
        absl::StrCat("report schema_version ", version->get<uint64_t>(),
                     " is newer than this flashscope reads (", kSchemaVersion,
                     "); update flashscope to read it"));
  }
  const int64_t v = version->get<int64_t>();
  if (v > kSchemaVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat("report schema_version ", v, " is newer than this flashscope reads (",
                     kSchemaVersion, "); update flashscope to read it"));
  }
  if (v < kSchemaVersion) {
    return absl::FailedPreconditionError(absl::StrCat(
        "report schema_version ", v, " is older than this flashscope reads (", kSchemaVersion,
        "); re-run the suite, or read it with the flashscope release that wrote it"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Report> ReportFromJson(const Json& j) {
  if (absl::Status s = CheckSchema(j); !s.ok()) return s;
  Report r;
  absl::Status st;
  Fields f(j, "", &st);
  r.schema_version = kSchemaVersion;
  f.Get("complete", &r.complete);
  f.Get("unreadable_journal_lines", &r.unreadable_journal_lines);
  if (const Json* e = f.Object("environment", Need::kRequired)) {
    ReadEnvironment(*e, "environment", &st, &r.environment);
  }
  if (const Json* s = f.Object("suite", Need::kRequired)) ReadSuite(*s, "suite", &st, &r.suite);
  if (const Json* a = f.Array("cases", Need::kRequired)) {
    r.cases.reserve(a->size());
    for (size_t i = 0; i < a->size() && st.ok(); ++i) {
      CaseResult c;
      ReadCase((*a)[i], IndexPath("cases", i), &st, &c);
      r.cases.push_back(std::move(c));
    }
  }
  if (!st.ok()) return st;
  return r;
}

absl::StatusOr<CaseResult> CaseFromJson(const Json& j) {
  CaseResult c;
  absl::Status st;
  ReadCase(j, "", &st, &c);
  if (!st.ok()) return st;
  return c;
}

absl::StatusOr<Environment> EnvironmentFromJson(const Json& j) {
  Environment e;
  absl::Status st;
  ReadEnvironment(j, "", &st, &e);
  if (!st.ok()) return st;
  return e;
}

absl::StatusOr<DeviceRecord> DeviceFromJson(const Json& j) {
  DeviceRecord d;
  absl::Status st;
  ReadDevice(j, "", &st, &d);
  if (!st.ok()) return st;
  return d;
}

absl::StatusOr<SuiteRecord> SuiteFromJson(const Json& j) {
  SuiteRecord s;
  absl::Status st;
  ReadSuite(j, "", &st, &s);
  if (!st.ok()) return st;
  return s;
}

}  // namespace flashscope::reports
