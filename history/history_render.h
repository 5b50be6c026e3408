// The outputs of `flashscope history` (docs/history.md): `show` as markdown, CSV or a single-file
// HTML page (a chart per series, change points marked), `changes` as JSON, and `bisect-range`'s
// script. Strings from the database went through reports and are made inert per format with
// render/'s escapers.
#pragma once

#include <string>
#include <vector>

#include "history/changes.h"
#include "nlohmann/json.hpp"

namespace flashscope::history {

inline constexpr char kHistoryChangesSchemaName[] = "flashscope.history_changes";
inline constexpr int kHistoryChangesSchemaVersion = 1;

// A series' changes at or after `since` (its index in `revisions`; -1 keeps all).
std::vector<const HistoryChange*> ChangesSince(const SeriesChanges& s,
                                               const std::vector<std::string>& revisions,
                                               int since_index);

// `history changes --json`: every change point (after --since) with the fields of docs/history.md.
nlohmann::json ChangesJson(const std::vector<SeriesChanges>& all,
                           const std::vector<std::string>& revisions, int since_index,
                           const std::string& database, const std::string& since);

// The terminal summary of `history changes`: one line per change, regressions first marked.
std::string RenderChangesText(const std::vector<SeriesChanges>& all,
                              const std::vector<std::string>& revisions, int since_index);

std::string RenderHistoryMarkdown(const std::vector<SeriesChanges>& all,
                                  const std::string& database);
// One row per series and revision: kernel_id, problem_key, gpu, testbed, revision, seq, status,
// runs, samples, median_ms, change_point (1 on the first revision after a change), change,
// p_value.
std::string RenderHistoryCsv(const std::vector<SeriesChanges>& all);
// The range a chart of the series spans: its timed medians padded by a tenth of their spread (at
// least 0.5 % of the top), so that a flat series still shows its noise. (0, 1) with no timed point.
std::pair<double, double> ChartRange(const Series& s);

std::string RenderHistoryHtml(const std::vector<SeriesChanges>& all, const std::string& database);

// `history bisect-range`: a shell script that bisects the range of one change with
// `git bisect run` and `flashscope ab` (docs/ci.md).
struct BisectOptions {
  std::string suite;   // the suite file to run (its --kernels narrowed to the change's kernel)
  std::string build;   // the command that builds a revision (run in the checkout)
  std::string plugin;  // the plugin file the build produces ("" for built-in kernels)
  std::string flashscope = "flashscope";
};
std::string BisectScript(const HistoryChange& change, const BisectOptions& options);

}  // namespace flashscope::history
