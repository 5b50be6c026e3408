// `flashscope merge`: joins the reports of one suite's shards (`flashscope run --shard K/N`), or
// of several runs, into one report. Reports from different GPUs, drivers, CUDA versions, builds,
// suites or timing policies are refused unless forced, because their cases would then look
// comparable when they are not; a forced merge keeps every differing value in the merged
// environment ("NVIDIA H200 + NVIDIA H100"), so any later compare against a single-GPU report
// sees the mix and refuses too. A case key (kernel id + problem) found twice is an error naming
// the key and both files: a shard run twice, or two overlapping runs.
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
};

absl::StatusOr<MergeResult> MergeReports(const std::vector<MergeInput>& inputs,
                                         const MergeOptions& options);

}  // namespace flashscope::reports
