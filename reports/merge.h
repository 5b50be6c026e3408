// `flashscope merge`: joins the reports of one suite's shards (`flashscope run --shard K/N`), or
// of several runs, into one report. Reports from different GPUs, drivers, CUDA versions, builds,
// suites or timing policies are refused unless forced, because their cases would then look
// comparable when they are not; a forced merge keeps every differing value in the merged
// environment ("NVIDIA H200 + NVIDIA H100"), so any later compare against a single-GPU report
// sees the mix and refuses too. A case key (kernel id + problem) found twice is an error naming
// the key and both files: a shard run twice, or two overlapping runs.
//
// Completeness (issue 23): each report says which shards of its plan it holds and the suite
// file's sha256 (suite.shard, suite.sha256). A merge of shards of different files, of different
// splits (2/4 with 1/3), or of one shard twice is refused; a set with shards missing is refused
// naming them unless forced, and then written with complete: false and suite.shard naming the
// shards it holds ("1,3/4"), so that a later merge with the rest completes it. Measured peaks more
// than 5% apart are refused unless forced, like the environment fields.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "reports/report.h"

namespace flashscope::reports {

struct MergeInput {
  std::string path;  // named in messages
  Report report;
};

struct MergeOptions {
  bool force = false;
  std::string command_line;  // recorded as the merged report's environment.command_line
};

struct MergeResult {
  Report report;
  // What differed between the inputs, one line each ("gpu_name: \"A\" (a.json) vs \"B\" (b.json)");
  // empty unless forced (otherwise such a difference is the error).
  std::vector<std::string> differences;
  // What the merge could not vouch for, one line each: inputs that do not record their shard and
  // suite file (older reports), shards missing from a forced merge. Each makes complete false.
  std::vector<std::string> notes;
};

absl::StatusOr<MergeResult> MergeReports(const std::vector<MergeInput>& inputs,
                                         const MergeOptions& options);

}  // namespace flashscope::reports
