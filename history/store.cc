#include "history/store.h"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "analysis/change_points.h"
#include "history/schema.h"
#include "nlohmann/json.hpp"
#include "plugins/sha256.h"
#include "reports/report_json.h"

namespace flashscope::history {
namespace {

using reports::CaseResult;
using reports::Report;

bool Glob(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

std::string Now() {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
}

// The GPU model a case ran on: its device's name (multi-GPU runs), else the run's GPU.
std::string GpuOf(const Report& r, const CaseResult& c) {
  if (c.device) {
    for (const reports::DeviceRecord& d : r.environment.devices) {
      if (d.index == *c.device && !d.name.empty()) return d.name;
    }
  }
  return r.environment.gpu_name.empty() ? "unknown GPU" : r.environment.gpu_name;
}

SqlValue MedianValue(const CaseResult& c) {
  if (!c.timing || !std::isfinite(c.timing->median_ms)) return std::nullopt;
  return absl::StrFormat("%.17g", c.timing->median_ms);
}

std::string SamplesText(const CaseResult& c) {
  return nlohmann::json(c.timing ? c.timing->samples_ms : std::vector<double>{}).dump();
}

// Gives the revision its place in the history when it is new (the next number).
absl::Status EnsureRevision(SqlConnection& db, const std::string& name, const std::string& branch) {
  auto known = db.Query("SELECT name FROM revisions WHERE name = ?", {name});
  if (!known.ok()) return known.status();
  if (!known->empty()) return absl::OkStatus();
  auto last = db.Query("SELECT COALESCE(MAX(seq), 0) FROM revisions", {});
  if (!last.ok()) return last.status();
  int64_t seq = 0;
  if (last->empty() || !(*last)[0][0] || !absl::SimpleAtoi(*(*last)[0][0], &seq)) {
    return absl::InternalError("history database: cannot read the last revision number");
  }
  return db.Exec("INSERT INTO revisions (name, branch, seq, added_at) VALUES (?, ?, ?, ?)",
                 {name, branch, absl::StrCat(seq + 1), Now()});
}

// Adds one point to the revision of its series, pooling runs of the same revision.
void AddToPoint(const SqlRow& row, RevisionPoint* p) {
  const std::string status = row[8].value_or("");
  const bool passed = status == "passed";
  if (p->report_hashes.empty() || passed || p->status != "passed") p->status = status;
  p->report_hashes.push_back(row[7].value_or(""));
  if (!passed) return;
  std::vector<double> samples;
  const nlohmann::json j = nlohmann::json::parse(row[10].value_or("[]"), nullptr, false);
  if (j.is_array()) {
    for (const nlohmann::json& v : j) {
      if (v.is_number()) samples.push_back(v.get<double>());
    }
  }
  double median = NAN;
  if (row[9] && absl::SimpleAtod(*row[9], &median) && samples.empty()) samples.push_back(median);
  p->samples_ms.insert(p->samples_ms.end(), samples.begin(), samples.end());
  p->median_ms = reports::MedianOf(p->samples_ms);
}

}  // namespace

bool SeriesKey::operator<(const SeriesKey& o) const {
  return std::tie(kernel_id, problem_key, gpu, testbed) <
         std::tie(o.kernel_id, o.problem_key, o.gpu, o.testbed);
}
bool SeriesKey::operator==(const SeriesKey& o) const {
  return std::tie(kernel_id, problem_key, gpu, testbed) ==
         std::tie(o.kernel_id, o.problem_key, o.gpu, o.testbed);
}
std::string SeriesKey::Name() const {
  return absl::StrCat(kernel_id, " ", problem_key, " on ", gpu, " @ ", testbed);
}

std::string ReportContentHash(const Report& report) {
  return plugins::Sha256Hex(reports::ReportToText(report));
}

std::string DefaultRevision(const Report& report, const CaseResult& c) {
  if (c.provenance && !c.provenance->version.empty()) return c.provenance->version;
  return report.environment.git_revision;
}

absl::StatusOr<HistoryStore> HistoryStore::Open(const std::string& spec) {
  auto db = OpenConnection(spec);
  if (!db.ok()) return db.status();
  if (absl::Status s = MigrateTo(**db); !s.ok()) return s;
  return HistoryStore(std::move(*db));
}

absl::StatusOr<AddOutcome> HistoryStore::Add(const Report& report, const AddOptions& options) {
  AddOutcome out;
  out.hash = ReportContentHash(report);
  std::vector<std::string> revisions;
  for (const CaseResult& c : report.cases) {
    revisions.push_back(options.revision.empty() ? DefaultRevision(report, c) : options.revision);
    if (revisions.back().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("case ", c.Key(),
                       " records no revision (no plugin version, no git revision in the "
                       "report's environment): pass --revision REV"));
    }
  }
  Transaction t(*db_);
  if (absl::Status s = t.Begin(); !s.ok()) return s;
  auto known = db_->Query("SELECT hash FROM reports WHERE hash = ?", {out.hash});
  if (!known.ok()) return known.status();
  if (!known->empty()) return out;  // the same content: nothing to do
  const std::string testbed = !options.testbed.empty()           ? options.testbed
                              : !report.environment.host.empty() ? report.environment.host
                                                                 : "default";
  if (absl::Status s =
          db_->Exec("INSERT INTO reports (hash, source, branch, testbed, gpu, flashscope_revision, "
                    "started_at, added_at, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    {out.hash, options.source, options.branch, testbed, report.environment.gpu_name,
                     report.environment.git_revision, report.environment.started_at, Now(),
                     reports::ReportToText(report)});
      !s.ok()) {
    return s;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < report.cases.size(); ++i) {
    const CaseResult& c = report.cases[i];
    // A report holding a case twice (refused by the gate) keeps its first copy, as compare does.
    if (!seen.insert(c.Key()).second) continue;
    if (absl::Status s = EnsureRevision(*db_, revisions[i], options.branch); !s.ok()) return s;
    if (absl::Status s = db_->Exec(
            "INSERT INTO points (report_hash, kernel_id, problem_key, gpu, testbed, revision, "
            "status, median_ms, samples_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            {out.hash, c.kernel_id, c.problem_key, GpuOf(report, c), testbed, revisions[i],
             reports::CaseStatusName(c.status), MedianValue(c), SamplesText(c)});
        !s.ok()) {
      return s;
    }
    ++out.cases;
    if (std::find(out.revisions.begin(), out.revisions.end(), revisions[i]) ==
        out.revisions.end()) {
      out.revisions.push_back(revisions[i]);
    }
  }
  if (absl::Status s = t.Commit(); !s.ok()) return s;
  out.added = true;
  return out;
}

absl::StatusOr<std::vector<Series>> HistoryStore::LoadSeries(const SeriesFilter& filter) {
  auto rows = db_->Query(
      "SELECT p.kernel_id, p.problem_key, p.gpu, p.testbed, p.revision, r.seq, r.branch, "
      "p.report_hash, p.status, p.median_ms, p.samples_ms FROM points p JOIN revisions r ON "
      "r.name = p.revision JOIN reports d ON d.hash = p.report_hash ORDER BY p.kernel_id, "
      "p.problem_key, p.gpu, p.testbed, r.seq, d.added_at, p.report_hash",
      {});
  if (!rows.ok()) return rows.status();
  std::vector<Series> out;
  for (const SqlRow& row : *rows) {
    SeriesKey key{row[0].value_or(""), row[1].value_or(""), row[2].value_or(""),
                  row[3].value_or("")};
    if (!Glob(filter.kernels, key.kernel_id) || !Glob(filter.problems, key.problem_key)) continue;
    if (out.empty() || !(out.back().key == key)) out.push_back({key, {}});
    std::vector<RevisionPoint>& points = out.back().points;
    if (points.empty() || points.back().revision != row[4].value_or("")) {
      RevisionPoint p;
      p.revision = row[4].value_or("");
      absl::SimpleAtoi(row[5].value_or("0"), &p.seq);
      p.branch = row[6].value_or("");
      points.push_back(p);
    }
    AddToPoint(row, &points.back());
  }
  return out;
}

absl::StatusOr<Report> HistoryStore::LoadReport(const std::string& hash) {
  auto rows = db_->Query("SELECT body FROM reports WHERE hash = ?", {hash});
  if (!rows.ok()) return rows.status();
  if (rows->empty() || !(*rows)[0][0]) {
    return absl::NotFoundError(absl::StrCat("no report ", hash, " in the history ", db_->where()));
  }
  nlohmann::json j = nlohmann::json::parse(*(*rows)[0][0], nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return absl::DataLossError(absl::StrCat("report ", hash, " in ", db_->where(),
                                            " is not valid JSON: the database was damaged"));
  }
  return reports::ReportFromJson(j);
}

absl::StatusOr<std::vector<std::string>> HistoryStore::Revisions() {
  auto rows = db_->Query("SELECT name FROM revisions ORDER BY seq", {});
  if (!rows.ok()) return rows.status();
  std::vector<std::string> out;
  for (const SqlRow& r : *rows) out.push_back(r[0].value_or(""));
  return out;
}

}  // namespace flashscope::history
