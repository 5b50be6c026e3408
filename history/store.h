// The history store (docs/history.md): every report ever added, kept whole, and one point per case,
// so that a case's timings over revisions form a series. One interface over two databases
// (history/sql_connection.h): an SQLite file by default, a PostgreSQL server for a team.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "history/sql_connection.h"
#include "reports/report.h"

namespace flashscope::history {

// A series: one kernel on one problem, on one GPU model and testbed, over revisions.
struct SeriesKey {
  std::string kernel_id, problem_key, gpu, testbed;
  bool operator<(const SeriesKey& o) const;
  bool operator==(const SeriesKey& o) const;
  std::string Name() const;  // "KERNEL PROBLEM on GPU @ TESTBED"
};

// One revision of a series: every run of it pooled.
struct RevisionPoint {
  std::string revision;
  int64_t seq = 0;  // the revision's place in the history (order of first addition)
  std::string branch;
  std::vector<std::string> report_hashes;  // the runs, in the order added
  // "passed" when any run passed (its timing counts), else the last run's status.
  std::string status;
  double median_ms = 0;            // median of `samples_ms`; meaningful when Timed()
  std::vector<double> samples_ms;  // raw samples of the passed runs (a run's median if it had none)
  bool Timed() const { return status == "passed" && !samples_ms.empty(); }
};

struct Series {
  SeriesKey key;
  std::vector<RevisionPoint> points;  // in revision order
};

struct AddOptions {
  std::string revision;  // "" -> per case: its plugin version, else the report's git revision
  std::string branch = "main";
  std::string testbed;  // "" -> the report's host
  std::string source;   // the file it came from, kept for people reading the database
};

struct AddOutcome {
  bool added = false;  // false: a report of the same content was already there (a no-op)
  std::string hash;    // SHA-256 of the report's canonical JSON: the report's key
  int cases = 0;
  std::vector<std::string> revisions;  // the revisions its cases went to
};

struct SeriesFilter {
  std::string kernels = "*";   // shell glob on the kernel id
  std::string problems = "*";  // shell glob on the problem key
};

class HistoryStore {
 public:
  // Opens (creating an SQLite file if missing) and migrates the schema (history/schema.h).
  static absl::StatusOr<HistoryStore> Open(const std::string& spec);

  absl::StatusOr<AddOutcome> Add(const reports::Report& report, const AddOptions& options);
  absl::StatusOr<std::vector<Series>> LoadSeries(const SeriesFilter& filter);
  // A report as it was added, by its hash.
  absl::StatusOr<reports::Report> LoadReport(const std::string& hash);
  // Every revision, in history order.
  absl::StatusOr<std::vector<std::string>> Revisions();

  SqlConnection& connection() { return *db_; }

 private:
  explicit HistoryStore(std::unique_ptr<SqlConnection> db) : db_(std::move(db)) {}
  std::unique_ptr<SqlConnection> db_;
};

// The report's key: SHA-256 of its canonical JSON text (reports::ReportToText), so the same
// report re-added, compressed or not, is recognised.
std::string ReportContentHash(const reports::Report& report);

// The revision a case goes to when --revision is not given (AddOptions::revision): the plugin's
// version (flashscope's revision for built-in kernels), else the report's git revision; "" when
// neither is recorded.
std::string DefaultRevision(const reports::Report& report, const reports::CaseResult& c);

}  // namespace flashscope::history
