#include "reports/merge.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "reports/devices.h"
#include "reports/shard_set.h"

namespace flashscope::reports {
namespace {

// Names at most this many duplicate keys in the error, then counts the rest.
constexpr size_t kMaxNamedDuplicates = 10;

// One environment or suite field that must agree across the inputs: how to read it and, for a
// forced merge, how to write the joined value back.
struct Field {
  const char* name;
  std::function<std::string(const Report&)> get;
  std::function<void(Report&, const std::string&)> set;
};

std::string PolicyText(const TimingPolicyRecord& t) {
  return absl::StrCat(t.cold ? "cold" : "hot", " warmup ", t.warmup, " samples ", t.min_samples,
                      "..", t.max_samples, " noise ", t.noise_target, " cap ", t.time_cap_s, " s");
}

std::vector<Field> FieldsThatMustAgree() {
  return {
      {"environment.gpu_name", [](const Report& r) { return r.environment.gpu_name; },
       [](Report& r, const std::string& v) { r.environment.gpu_name = v; }},
      {"environment.compute_capability",
       [](const Report& r) { return std::to_string(r.environment.compute_capability); }, nullptr},
      {"environment.sm_count",
       [](const Report& r) { return std::to_string(r.environment.sm_count); }, nullptr},
      {"environment.driver_version", [](const Report& r) { return r.environment.driver_version; },
       [](Report& r, const std::string& v) { r.environment.driver_version = v; }},
      {"environment.cuda_runtime_version",
       [](const Report& r) { return r.environment.cuda_runtime_version; },
       [](Report& r, const std::string& v) { r.environment.cuda_runtime_version = v; }},
      {"environment.git_revision", [](const Report& r) { return r.environment.git_revision; },
       [](Report& r, const std::string& v) { r.environment.git_revision = v; }},
      {"environment.synthetic",
       [](const Report& r) { return std::string(r.environment.synthetic ? "true" : "false"); },
       nullptr},
      {"suite.name", [](const Report& r) { return r.suite.name; },
       [](Report& r, const std::string& v) { r.suite.name = v; }},
      {"suite.kernels_filter", [](const Report& r) { return r.suite.kernels_filter; },
       [](Report& r, const std::string& v) { r.suite.kernels_filter = v; }},
      {"suite.timing_policy", [](const Report& r) { return PolicyText(r.suite.timing); }, nullptr},
      // Shards of different suite files are different plans (an edited file deals out its
      // cases differently). Reports from before the hash was recorded have "" (said below).
      {"suite.sha256", [](const Report& r) { return r.suite.sha256; },
       [](Report& r, const std::string& v) { r.suite.sha256 = v; }},
  };
}

// Peaks are measured by each run, so two runs on one GPU model differ by noise; beyond this they
// are different GPUs (or clocks), and a case's "% of peak" would mean different things in one
// report.
constexpr double kPeakTolerance = 0.05;

// "matmul_bf16_tflops 775 (a.json) vs 650 (b.json)" for each peak that differs by more than the
// tolerance from the first report's; empty when they agree (or either side did not measure).
std::vector<std::string> PeakDifferences(const std::vector<MergeInput>& inputs) {
  struct Peak {
    const char* name;
    double MeasuredPeaks::*value;
  };
  const Peak peaks[] = {
      {"environment.peaks.matmul_fp16_tflops", &MeasuredPeaks::matmul_fp16_tflops},
      {"environment.peaks.matmul_bf16_tflops", &MeasuredPeaks::matmul_bf16_tflops},
      {"environment.peaks.copy_gbps", &MeasuredPeaks::copy_gbps}};
  std::vector<std::string> out;
  const MergeInput& first = inputs.front();
  for (const Peak& p : peaks) {
    const double a = first.report.environment.peaks.*p.value;
    for (const MergeInput& in : inputs) {
      const double b = in.report.environment.peaks.*p.value;
      if (!(a > 0) || !(b > 0) || std::fabs(b - a) <= kPeakTolerance * a) continue;
      out.push_back(absl::StrCat(p.name, ": ", a, " (", first.path, ") vs ", b, " (", in.path,
                                 "), more than ", kPeakTolerance * 100, "% apart"));
      break;
    }
  }
  return out;
}

// Whether the inputs are the complete set of one plan's shards. Refusals (another split, a shard
// twice, shards missing) go to `refusals`, the merged report's suite.shard is set, and `notes`
// say what could not be checked. Returns whether the set is complete.
bool CheckShards(const std::vector<MergeInput>& inputs, const MergeOptions& options,
                 std::vector<std::string>* refusals, std::vector<std::string>* notes,
                 Report* merged) {
  std::vector<std::string> unrecorded;
  ShardSet all;
  std::map<int, std::string> split;   // N -> first file
  std::map<int, std::string> holder;  // shard -> file
  for (const MergeInput& in : inputs) {
    if (in.report.suite.sha256.empty()) unrecorded.push_back(in.path);
    auto set = ParseShardSet(in.report.suite.shard);
    if (!set.ok()) {
      refusals->push_back(absl::StrCat(in.path, ": suite.", set.status().message()));
      continue;
    }
    split.emplace(set->n, in.path);
    all.n = set->n;
    for (int k : set->shards) {
      auto [it, fresh] = holder.emplace(k, in.path);
      if (!fresh) {
        refusals->push_back(
            absl::StrCat("shard ", k, "/", set->n, " is in both ", it->second, " and ", in.path));
      }
      all.shards.insert(k);
    }
  }
  if (!unrecorded.empty()) {
    notes->push_back(absl::StrCat(
        absl::StrJoin(unrecorded, ", "),
        " did not record which shard of which suite file it holds (written by an older "
        "flashscope): whether the set is complete cannot be checked, so the merged report says "
        "complete: false"));
  }
  if (split.size() > 1) {
    std::vector<std::string> shown;
    for (const auto& [n, path] : split) shown.push_back(absl::StrCat("N=", n, " (", path, ")"));
    refusals->push_back(absl::StrCat("the reports come from different splits of the plan: ",
                                     absl::StrJoin(shown, " vs ")));
    return false;
  }
  if (!all.Whole()) {
    const std::string line =
        absl::StrCat("shards ", all.MissingNames(), " are missing (the reports hold ", all.Name(),
                     "): give every shard's report, or pass --force to write an incomplete report "
                     "(complete: false, suite.shard \"",
                     all.Name(), "\")");
    if (options.force) {
      notes->push_back(line);
    } else {
      refusals->push_back(line);
    }
  }
  merged->suite.shard = all.Name();
  return all.Whole() && unrecorded.empty();
}

}  // namespace

absl::StatusOr<MergeResult> MergeReports(const std::vector<MergeInput>& inputs,
                                         const MergeOptions& options) {
  if (inputs.size() < 2) {
    return absl::InvalidArgumentError(
        "give at least two reports (the shards of one suite, e.g. from run --shard K/N)");
  }
  MergeResult result;
  Report& merged = result.report;
  merged = inputs[0].report;
  merged.cases.clear();

  // Every field that must agree: the distinct values in input order, each with its first file.
  std::vector<std::string> refusals;
  for (const Field& f : FieldsThatMustAgree()) {
    std::vector<std::pair<std::string, std::string>> distinct;  // value, first path
    for (const auto& in : inputs) {
      const std::string v = f.get(in.report);
      if (std::none_of(distinct.begin(), distinct.end(),
                       [&](const auto& d) { return d.first == v; })) {
        distinct.emplace_back(v, in.path);
      }
    }
    if (distinct.size() < 2) continue;
    std::vector<std::string> shown, values;
    for (const auto& [v, path] : distinct) {
      shown.push_back(absl::StrCat("\"", v, "\" (", path, ")"));
      values.push_back(v);
    }
    const std::string line = absl::StrCat(f.name, ": ", absl::StrJoin(shown, " vs "));
    refusals.push_back(line);
    if (f.set) f.set(merged, absl::StrJoin(values, " + "));
  }
  for (std::string& d : PeakDifferences(inputs)) refusals.push_back(std::move(d));
  if (!refusals.empty() && !options.force) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the reports differ, so their cases are not one run's: ", absl::StrJoin(refusals, "; "),
        ". Merge reports of one suite run on one GPU and build; --force merges anyway and keeps "
        "every differing value in the merged environment"));
  }
  result.differences = refusals;
  std::vector<std::string> shard_refusals;
  const bool shards_complete =
      CheckShards(inputs, options, &shard_refusals, &result.notes, &merged);
  if (!shard_refusals.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("the reports are not one plan's shards: ",
                                                      absl::StrJoin(shard_refusals, "; ")));
  }

  // Cases: in input order; a key seen twice is an error naming both files.
  std::map<std::string, std::string> first_file;
  std::vector<std::string> duplicates;
  size_t duplicate_count = 0;
  for (const auto& in : inputs) {
    for (const CaseResult& c : in.report.cases) {
      auto [it, inserted] = first_file.emplace(c.Key(), in.path);
      if (!inserted) {
        if (++duplicate_count <= kMaxNamedDuplicates) {
          duplicates.push_back(absl::StrCat("'", c.Key(), "' in ", it->second,
                                            it->second == in.path ? " twice" : " and " + in.path));
        }
        continue;
      }
      merged.cases.push_back(c);
    }
  }
  if (duplicate_count > 0) {
    std::string more = duplicate_count > duplicates.size()
                           ? absl::StrCat(" and ", duplicate_count - duplicates.size(), " more")
                           : "";
    return absl::InvalidArgumentError(absl::StrCat(
        "", duplicate_count, " case(s) appear more than once: ", absl::StrJoin(duplicates, "; "),
        more,
        ". Each case must come from exactly one report (were the same shard's reports given "
        "twice, or two overlapping runs?)"));
  }

  // The merged run spans its inputs; it is complete only when every input is. Shards may have run
  // at once, so their active seconds do not add up: the span stands for the wall time.
  merged.complete = shards_complete;
  merged.environment.active_s = 0;
  for (const auto& in : inputs) {
    const Environment& e = in.report.environment;
    merged.complete = merged.complete && in.report.complete;
    if (!e.started_at.empty() &&
        (merged.environment.started_at.empty() || e.started_at < merged.environment.started_at)) {
      merged.environment.started_at = e.started_at;  // ISO 8601 UTC sorts as text
    }
    if (e.finished_at > merged.environment.finished_at) {
      merged.environment.finished_at = e.finished_at;
    }
    AddDevices(e.devices, &merged.environment.devices);  // every GPU that ran a merged case
  }
  std::vector<std::string> hosts;
  for (const auto& in : inputs) {
    const std::string& h = in.report.environment.host;
    if (!h.empty() && std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  }
  merged.environment.host = absl::StrJoin(hosts, " + ");
  merged.environment.command_line = options.command_line;
  return result;
}

}  // namespace flashscope::reports
