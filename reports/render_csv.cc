#include "reports/render_csv.h"

#include <cmath>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/render_util.h"
#include "reports/text_safety.h"

namespace flashscope::reports {
namespace {

// Shortest round-tripping form; "" for a value the case does not have (NaN).
std::string Num(double v) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return absl::StrFormat("%.17g", v);
}

std::string Row(const std::vector<std::string>& fields) {
  std::vector<std::string> quoted;
  for (const std::string& f : fields) quoted.push_back(CsvField(f));
  return absl::StrCat(absl::StrJoin(quoted, ","), "\r\n");
}

}  // namespace

std::string CsvField(const std::string& s) {
  // Controls other than tab and line breaks, and bytes that are not UTF-8, become U+FFFD: a NUL
  // ends the text for many readers.
  std::string clean;
  clean.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const text::Utf8Step step = text::DecodeUtf8(s, i);
    const char32_t cp = step.code_point;
    const bool control = cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r';
    if (!step.valid || control || cp == 0x7f) {
      clean += text::kReplacementCharacter;
    } else {
      clean.append(s, i, step.length);
    }
    i += step.length;
  }
  // A spreadsheet runs a cell that starts with = + - @ (or tab, CR) as a formula (OWASP "CSV
  // injection"); a leading ' keeps it text. Numbers ("-1.5", "-inf") stay numbers.
  double number;
  if (!clean.empty() && std::strchr("=+-@\t\r", clean[0]) != nullptr &&
      !absl::SimpleAtod(clean, &number)) {
    clean.insert(0, "'");
  }
  if (clean.find_first_of(",\"\r\n") == std::string::npos) return clean;
  std::string out = "\"";
  for (char ch : clean) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
  return out;
}

std::string RenderReportCsv(const Report& r) {
  const double kNaN = std::nan("");  // not constexpr: std::nan is not (clang refuses)
  std::string out = Row({"suite",
                         "gpu",
                         "synthetic",
                         "kernel_id",
                         "family",
                         "problem_key",
                         "status",
                         "median_ms",
                         "mean_ms",
                         "min_ms",
                         "max_ms",
                         "noise",
                         "samples",
                         "tflops",
                         "gbps",
                         "pct_peak_flops",
                         "pct_peak_bandwidth",
                         "verified",
                         "max_abs",
                         "nrmse",
                         "ratio_to_baseline",
                         "tensor_pipe_pct",
                         "shared_pct",
                         "registers",
                         "local_bytes",
                         "reason"});
  for (const CaseResult& c : r.cases) {
    const TimingRecord* t = c.timing ? &*c.timing : nullptr;
    const ThroughputRecord* th = c.throughput ? &*c.throughput : nullptr;
    const VerificationRecord* v =
        c.verification && c.verification->ran ? &*c.verification : nullptr;
    const ResourceRecord* res = c.resources.empty() ? nullptr : &c.resources.front();
    out += Row({r.suite.name,
                r.environment.gpu_name,
                r.environment.synthetic ? "true" : "false",
                c.kernel_id,
                c.family,
                c.problem_key,
                CaseStatusName(c.status),
                Num(render::MedianMs(c)),
                Num(t ? t->mean_ms : kNaN),
                Num(t ? t->min_ms : kNaN),
                Num(t ? t->max_ms : kNaN),
                Num(t ? t->noise : kNaN),
                t ? std::to_string(t->samples_ms.size()) : "",
                Num(th ? th->tflops : kNaN),
                Num(th ? th->gbps : kNaN),
                Num(th ? th->pct_peak_flops : kNaN),
                Num(th ? th->pct_peak_bandwidth : kNaN),
                v ? (v->passed ? "passed" : "failed") : "",
                Num(v ? v->stats.max_abs : kNaN),
                Num(v ? v->stats.nrmse : kNaN),
                Num(v ? v->ratio_to_baseline : kNaN),
                Num(render::TensorPct(c)),
                Num(render::SharedPct(c)),
                res ? std::to_string(res->registers) : "",
                res ? std::to_string(res->local_bytes) : "",
                render::CaseReason(c)});
  }
  return out;
}

std::string RenderComparisonCsv(const Comparison& c, const GateResult* gate) {
  const auto failures = render::FailuresByKey(gate);
  const std::string forced = c.forced ? c.ForcedBanner() : "";
  auto gate_cells = [&](const std::string& key) -> std::pair<std::string, std::string> {
    if (gate == nullptr) return {"", ""};
    for (const std::string& k : gate->ignored) {
      if (k == key) return {"ignored", ""};
    }
    auto it = failures.find(key);
    if (it == failures.end()) return {"pass", ""};
    std::vector<std::string> parts;
    for (const GateFailure* f : it->second)
      parts.push_back(absl::StrCat(f->rule, ": ", f->message));
    return {"fail", absl::StrJoin(parts, "; ")};
  };
  std::string out = Row({"side", "key", "kernel_id", "problem_key", "base_status", "next_status",
                         "base_median_ms", "next_median_ms", "delta_pct", "p_value", "test",
                         "verdict", "verdict_reason", "correctness_regression", "gate",
                         "gate_failures", "forced_environment"});
  for (const CaseDelta& d : c.paired) {
    auto [g, why] = gate_cells(d.key);
    out += Row({"both", d.key, d.kernel_id, d.problem_key, CaseStatusName(d.base->status),
                CaseStatusName(d.next->status), Num(d.base_median_ms), Num(d.next_median_ms),
                Num(d.delta_pct), Num(d.PValue()), d.tested ? d.test.Method() : "",
                VerdictName(d.verdict), d.verdict_reason,
                d.IsCorrectnessRegression() ? "true" : "false", g, why, forced});
  }
  auto one_side = [&](const std::vector<const CaseResult*>& cases, bool base) {
    for (const CaseResult* x : cases) {
      auto [g, why] = gate_cells(x->Key());
      const std::string status = CaseStatusName(x->status);
      const std::string median = Num(render::MedianMs(*x));
      out += Row({base ? "base" : "next", x->Key(), x->kernel_id, x->problem_key,
                  base ? status : "", base ? "" : status, base ? median : "", base ? "" : median,
                  "", "", "", "", "", "false", g, why, forced});
    }
  };
  one_side(c.only_base, true);
  one_side(c.only_next, false);
  return out;
}

}  // namespace flashscope::reports
