#include "history/tests/synthetic_history.h"

#include "absl/strings/str_format.h"
#include "analysis/change_points.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::history::testing {

std::string RevisionName(int index) { return absl::StrFormat("rev%02d", index); }

reports::Report SyntheticHistoryReport(int index, const std::vector<PlantedSeries>& series,
                                       double noise, std::mt19937_64& rng) {
  std::normal_distribution<double> gauss(0, noise);
  reports::Report r;
  r.environment = reports::testing::SyntheticEnvironment();
  r.environment.git_revision = RevisionName(index);
  r.environment.host = "synthetic-runner";
  r.environment.started_at = absl::StrFormat("2026-11-%02dT03:00:00Z", 1 + index % 28);
  r.complete = true;
  for (const PlantedSeries& s : series) {
    double level = 1.0;
    int slowdowns = 0;
    for (const auto& [at, size] : s.steps) {
      if (index < at) continue;
      level *= 1 + size;
      slowdowns += size > 0;
    }
    reports::CaseResult c =
        reports::testing::SimpleCase(s.kernel_id, "attention_fwd{B=4,H=8,S=1024,D=64,fp16}",
                                     reports::CaseStatus::kPassed, level);
    c.provenance.reset();
    const double run = level * (1 + gauss(rng));
    c.timing->samples_ms.clear();
    for (int k = 0; k < 20; ++k) c.timing->samples_ms.push_back(run * (1 + gauss(rng)));
    c.timing->median_ms = reports::MedianOf(c.timing->samples_ms);
    reports::ProfileRecord p;
    p.available = true;
    p.metrics = {{"dram_bytes", "dram__bytes.sum", "bytes", 1e9 * level * level, ""},
                 {"l2_hit_rate", "lts__t_sector_hit_rate.pct", "%", 90 - 100 * (level - 1), ""}};
    c.profile = p;
    reports::ResourceRecord res;
    res.function = s.kernel_id + "_kernel";
    res.registers = 128 + 40 * slowdowns;
    res.block_threads = 128;
    res.theoretical_occupancy = slowdowns > 0 ? 0.25 : 0.5;
    c.resources = {res};
    r.cases.push_back(std::move(c));
  }
  return r;
}

}  // namespace flashscope::history::testing
