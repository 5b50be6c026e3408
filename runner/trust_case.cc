#include "runner/trust_case.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "verify/problem_costs.h"

namespace flashscope::runner {
namespace {

// Output checks held on the device before their results are copied back in one go.
constexpr int kSlots = 64;

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::string DTypeOf(const Problem& p) {
  return std::string(DTypeName(std::visit([](const auto& x) { return x.dtype; }, p)));
}

}  // namespace

reports::WorkInput WorkInputFrom(const profiler::WorkCounterSet& set,
                                 const std::map<std::string, double>& values, int kernels,
                                 bool l2_flushed, const Problem& problem) {
  reports::WorkInput w;
  w.available = true;
  w.kernels = kernels;
  for (const profiler::WorkCounter& c : set.paths) {
    auto it = values.find(c.hw_name);
    const double count = it == values.end() ? 0 : it->second;
    w.paths.push_back(
        {c.path, c.inputs, c.accumulate, count * c.flops_per_count, c.precision_evidence});
  }
  auto read = values.find(set.dram_read);
  auto write = values.find(set.dram_write);
  w.dram_counted = read != values.end() && write != values.end();
  if (w.dram_counted) {
    w.dram_read_bytes = read->second;
    w.dram_write_bytes = write->second;
  }
  w.l2_flushed = l2_flushed;
  w.problem_dtype = DTypeOf(problem);
  w.minimal_flops = verify::MinimalWorkFlops(problem);
  w.minimal_input_bytes = verify::MinimalInputBytes(problem);
  return w;
}

reports::TracedLaunch ToTracedLaunch(const profiler::TracedSample& t) {
  auto us = [&t](uint64_t ns) {
    return (static_cast<double>(ns) - static_cast<double>(t.window_begin_ns)) * 1e-3;
  };
  reports::TracedLaunch out;
  out.available = true;
  out.launch_stream = t.launch_stream;
  out.window_end_us = us(t.window_end_ns);
  out.call_begin_us = us(t.launch_call_begin_ns);
  out.call_end_us = us(t.launch_call_end_ns);
  for (const profiler::KernelRecord& r : t.records) {
    reports::ActivityRecord a;
    a.kind = profiler::ActivityKindName(r.kind);
    a.name = r.name;
    a.stream = r.stream_id == profiler::kNoStream ? -1 : static_cast<int64_t>(r.stream_id);
    a.start_us = us(r.start_ns);
    a.end_us = us(r.end_ns);
    a.bytes = static_cast<int64_t>(r.bytes);
    a.synchronous = r.synchronous;
    out.records.push_back(std::move(a));
  }
  return out;
}

TrustCase::TrustCase(const TrustSettings& settings, verify::Workspace& ws,
                     std::vector<LaunchFn> launches, cudaStream_t stream, uint64_t seed)
    : settings_(settings), ws_(ws), launches_(std::move(launches)), stream_(stream), seed_(seed) {
  bounds_.resize(launches_.size());
  verdicts_.resize(launches_.size());
  traced_.unavailable_reason =
      On("streams") ? "no traced launch (timing failed)" : settings_.off_reason;
  work_.unavailable_reason = On("work") ? "no profile of the launch" : settings_.off_reason;
}

LaunchFn TrustCase::launch() {
  return [this](cudaStream_t s) { return launches_[current_set_](s); };
}

bool TrustCase::PoisonBefore(int launch) const {
  return (Mix(seed_ ^ (0xD6E8FEB86659FD93ull * static_cast<uint64_t>(launch + 1))) & 1) != 0;
}

absl::Status TrustCase::AfterVerifiedLaunch(int set, const verify::VerificationResult& v) {
  bounds_[set] = verify::BoundFor(v.has_baseline ? &v.baseline : nullptr, v.policy);
  reports::InputSetVerdict& verdict = verdicts_[set];
  verdict.set = set;
  verdict.seed = ws_.seed_of(set);
  verdict.passed = v.verdict.passed;
  verdict.rule = v.verdict.rule;
  verdict.max_abs = v.stats.max_abs;
  verdict.ratio_to_baseline = v.ratio_to_baseline;
  return EnqueueCheck(-1 - set, set, /*poisoned=*/true);
}

absl::Status TrustCase::VerifyOtherSets(const verify::TolerancePolicy& policy) {
  const auto t0 = std::chrono::steady_clock::now();
  const verify::Tolerance tol{policy.atol, policy.rtol};
  for (int set = 1; set < static_cast<int>(launches_.size()); ++set) {
    // The first launch on the set, on a poisoned output, judged by the verification rule on the
    // GPU (the host copy and comparison of a full verification cost ~0.9 s per large case).
    if (absl::Status s = ws_.PoisonOutputs(stream_); !s.ok()) return s;
    if (cudaError_t e = launches_[set](stream_); e != cudaSuccess) {
      return verify::CudaStatus(e, absl::StrCat("launch on input set ", set));
    }
    const verify::ErrorStats& baseline = ws_.BaselineStats(set, tol);
    bounds_[set] = verify::BoundFor(&baseline, policy);
    if (absl::Status s = EnqueueCheck(-1 - set, set, /*poisoned=*/true); !s.ok()) return s;
    if (absl::Status s = CollectChecks(); !s.ok()) return s;
    const verify::ErrorStats& stats = verified_stats_[set];
    const verify::Verdict verdict = verify::Decide(stats, &baseline, policy);
    reports::InputSetVerdict& v = verdicts_[set];
    v.set = set;
    v.seed = ws_.seed_of(set);
    v.passed = verdict.passed;
    v.rule = absl::StrCat(verdict.rule, " (output checked on the GPU)");
    v.max_abs = stats.max_abs;
    v.ratio_to_baseline = baseline.max_abs > 0 ? stats.max_abs / baseline.max_abs : 0;
  }
  current_set_ = 0;
  cost_s_["input_sets"] += Since(t0);
  return absl::OkStatus();
}

absl::Status TrustCase::EnqueueCheck(int launch, int set, bool poisoned) {
  if (slots_.get() == nullptr) {
    if (absl::Status s =
            slots_.Allocate(kSlots * sizeof(verify::OutputCheckCounts), "output check results");
        !s.ok()) {
      return s;
    }
  }
  if (static_cast<int>(pending_.size()) == kSlots) {
    if (absl::Status s = CollectChecks(); !s.ok()) return s;
  }
  auto* slot = static_cast<verify::OutputCheckCounts*>(slots_.get()) + pending_.size();
  if (absl::Status s = ws_.EnqueueOutputCheck(set, bounds_[set], slot, stream_); !s.ok()) return s;
  pending_.push_back({launch, set, poisoned});
  return absl::OkStatus();
}

absl::Status TrustCase::CollectChecks() {
  if (pending_.empty()) return absl::OkStatus();
  std::vector<verify::OutputCheckCounts> host(pending_.size());
  if (absl::Status s = verify::CudaStatus(
          cudaMemcpyAsync(host.data(), slots_.get(), host.size() * sizeof(host[0]),
                          cudaMemcpyDeviceToHost, stream_),
          "copying output checks to the host");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = verify::CudaStatus(cudaStreamSynchronize(stream_), "output checks");
      !s.ok()) {
    return s;
  }
  for (size_t i = 0; i < host.size(); ++i) {
    reports::LaunchOutputCheck c;
    c.launch = pending_[i].launch;
    c.input_set = pending_[i].set;
    c.poisoned_before = pending_[i].poisoned;
    c.bad = static_cast<int64_t>(host[i].bad);
    c.never_written = static_cast<int64_t>(host[i].never_written);
    c.nonfinite = static_cast<int64_t>(host[i].nonfinite);
    const verify::ErrorStats stats = verify::StatsFromCheck(host[i], ws_.output_elements());
    c.max_abs = stats.max_abs;
    c.hash = host[i].hash;
    if (c.launch < 0) verified_stats_[c.input_set] = stats;
    checks_.push_back(c);
  }
  pending_.clear();
  return absl::OkStatus();
}

profiler::SampleHooks TrustCase::Hooks() {
  profiler::SampleHooks hooks;
  const bool check_outputs = On("timed_outputs");
  hooks.before = [this, check_outputs](int i) -> absl::Status {
    const auto t0 = std::chrono::steady_clock::now();
    timed_launches_ = std::max(timed_launches_, i + 1);
    current_set_ = i % static_cast<int>(launches_.size());
    current_ = {i, current_set_, check_outputs && PoisonBefore(i)};
    absl::Status s = absl::OkStatus();
    if (current_.poisoned) {
      ++poisoned_launches_;
      s = ws_.PoisonOutputs(stream_);
    }
    cost_s_["timed_outputs"] += Since(t0);
    return s;
  };
  hooks.after = [this, check_outputs](int) -> absl::Status {
    if (!check_outputs) return absl::OkStatus();
    const auto t0 = std::chrono::steady_clock::now();
    absl::Status s = EnqueueCheck(current_.launch, current_.set, current_.poisoned);
    cost_s_["timed_outputs"] += Since(t0);
    return s;
  };
  return hooks;
}

void TrustCase::Trace(profiler::Timer& timer, profiler::KernelTracer* tracer,
                      const std::string& tracer_unavailable, bool cold) {
  if (!On("streams")) return;
  if (tracer == nullptr) {
    traced_.unavailable_reason =
        absl::StrCat("CUPTI activity records unavailable: ", tracer_unavailable);
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<profiler::TracedSample> t =
      timer.TraceSample(launch(), *tracer, Hooks(), timed_launches_, cold);
  if (t.ok()) {
    traced_ = ToTracedLaunch(*t);
  } else {
    traced_.unavailable_reason = absl::StrCat("traced launch failed: ", t.status().message());
  }
  cost_s_["streams"] += Since(t0);
}

void TrustCase::SetWork(reports::WorkInput work, double cost_s) {
  if (!On("work")) return;
  work_ = std::move(work);
  cost_s_["work"] += cost_s;
}

absl::StatusOr<reports::TrustRecord> TrustCase::Finish(const Problem& problem,
                                                       const reports::Environment& env,
                                                       const reports::TimingRecord* timing,
                                                       bool cold) {
  const auto t0 = std::chrono::steady_clock::now();
  if (absl::Status s = CollectChecks(); !s.ok()) return s;
  reports::TrustRecord r;
  const std::string& off = settings_.off_reason;
  if (On("plausibility")) {
    reports::PlausibilityInput in{verify::MinimalWorkFlops(problem),
                                  verify::MinimalInputBytes(problem), timing ? timing->min_ms : 0,
                                  cold};
    r.checks.push_back(reports::CheckPlausibility(in, reports::CeilingsOf(env)));
  } else {
    r.checks.push_back(reports::CheckOff("plausibility", off));
  }
  r.checks.push_back(reports::CheckWork(work_));
  r.checks.push_back(reports::CheckPrecision(work_));
  if (On("timed_outputs")) {
    r.checks.push_back(reports::CheckTimedOutputs(checks_, timed_launches_, &r.failed_launches));
  } else {
    r.checks.push_back(reports::CheckOff("timed_outputs", off));
  }
  r.checks.push_back(reports::CheckInputSets(verdicts_));
  r.checks.push_back(reports::CheckStreams(traced_, &r.activity));
  r.checks.push_back(reports::CheckDeterminism(checks_));
  r.launch_stream = traced_.launch_stream;
  std::vector<std::string> seeds;
  for (int s = 0; s < ws_.num_input_sets(); ++s) seeds.push_back(absl::StrCat(ws_.seed_of(s)));
  r.input_sets = absl::StrCat(
      ws_.num_input_sets(), " input set(s) (seeds ", absl::StrJoin(seeds, ", "),
      "); timed launch i reads set i mod ", ws_.num_input_sets(), "; output re-poisoned before ",
      poisoned_launches_, " of ", timed_launches_, " timed launches, left stale before the rest");
  cost_s_["timed_outputs"] += Since(t0);
  double total = 0;
  for (reports::TrustCheckRecord& c : r.checks) {
    auto it = cost_s_.find(c.check);
    if (it == cost_s_.end()) continue;
    c.values.push_back({"cost_s", it->second, "s"});
    total += it->second;
  }
  r.wall_s = total;
  return r;
}

}  // namespace flashscope::runner
