#include "runner/trust_case.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "common/seconds_since.h"
#include "common/split_mix.h"
#include "profiler/cupti_profiler.h"
#include "verify/problem_costs.h"
#include "verify/sampled_check_counts.h"

namespace flashscope::runner {

std::string DTypeOf(const Problem& p) {
  return std::string(DTypeName(std::visit([](const auto& x) { return x.dtype; }, p)));
}

namespace {

// The screen's upper bound on FP32 arithmetic (WorkScreen::scalar_instructions) stands in for the
// SASS-instrumented scalar counters where those were not collected; where they were (a session
// after the screen), they count alone: the two together would count the same FFMA twice. Never
// precision evidence: the FMA pipe runs FMUL, FADD and IMAD too.
void AddScalarBound(const profiler::WorkCounterSet& set,
                    const std::map<std::string, double>& values, reports::WorkInput* w) {
  const profiler::WorkScreen& screen = set.screen;
  auto bound = values.find(screen.scalar_instructions);
  if (screen.scalar_instructions.empty() || bound == values.end()) return;
  for (const profiler::WorkCounter& c : set.paths) {
    if (profiler::IsInstrumentedMetric(c.hw_name) && values.count(c.hw_name)) return;
  }
  w->paths.push_back({screen.scalar_path, "fp32", "fp32",
                      bound->second * screen.scalar_flops_per_instruction, false});
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
    // A counter not collected (the hardware-only stage leaves the instrumented scalar counters
    // out when the tensor paths alone reach the work floor) is no evidence either way; with no
    // values at all (a launch without kernels) every path shows its zero.
    if (it == values.end() && !values.empty()) continue;
    const double count = it == values.end() ? 0 : it->second;
    w.paths.push_back(
        {c.path, c.inputs, c.accumulate, count * c.flops_per_count, c.precision_evidence});
  }
  AddScalarBound(set, values, &w);
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

TrustCase::TrustCase(const TrustSettings& settings, verify::Workspace& ws, LaunchFn launch,
                     cudaStream_t stream, uint64_t seed, SecretSeeds& seeds)
    : settings_(settings),
      ws_(ws),
      launch_(std::move(launch)),
      stream_(stream),
      seed_(seed),
      fresh_(ws, seeds, stream,
             std::holds_alternative<AttentionProblem>(ws.problem())
                 ? reports::kSampledRowsPerLaunch
                 : reports::kSampledEntriesPerLaunch) {
  traced_.unavailable_reason =
      On("streams") ? "no traced launch (timing failed)" : settings_.off_reason;
  work_.unavailable_reason = On("work") ? "no profile of the launch" : settings_.off_reason;
  durations_.not_comparable_reason =
      On("work") ? "no profiled launch" : settings_.off_reason + " (with work)";
}

bool TrustCase::PoisonBefore(int launch) const {
  return (SplitMix64(seed_ ^ (0xD6E8FEB86659FD93ull * static_cast<uint64_t>(launch + 1))) & 1) != 0;
}

absl::Status TrustCase::FreshBefore(const char* kind, int index, bool poison) {
  if (!Fresh()) return absl::OkStatus();
  const auto t0 = std::chrono::steady_clock::now();
  absl::Status s = fresh_.Before(kind, index, poison);
  cost_s_["timed_outputs"] += SecondsSince(t0);
  return s;
}

absl::Status TrustCase::FreshAfter() {
  if (!Fresh()) return absl::OkStatus();
  const auto t0 = std::chrono::steady_clock::now();
  absl::Status s = fresh_.After();
  cost_s_["timed_outputs"] += SecondsSince(t0);
  return s;
}

absl::Status TrustCase::BeforeVerifiedLaunch() {
  if (!Fresh()) return absl::OkStatus();
  const auto t0 = std::chrono::steady_clock::now();
  absl::Status s = fresh_.BeforeVerified();
  cost_s_["timed_outputs"] += SecondsSince(t0);
  return s;
}

absl::Status TrustCase::AfterVerifiedLaunch(const verify::VerificationResult& v) {
  if (!Fresh()) return absl::OkStatus();
  const verify::ElementBound e = verify::BoundFor(v.has_baseline ? &v.baseline : nullptr, v.policy);
  fresh_.SetBound(
      {e.absolute ? 1 : 0, e.max_abs, e.atol, e.rtol, v.policy.lse_atol, v.policy.lse_rtol},
      verify::SampledRuleFor(v.has_baseline ? &v.baseline : nullptr, v.policy));
  return FreshAfter();
}

profiler::SampleHooks TrustCase::Hooks() {
  profiler::SampleHooks hooks;
  hooks.before = [this](int i) -> absl::Status {
    if (tracing_) return FreshBefore("traced", 0, Fresh() && PoisonBefore(i));
    timed_launches_ = std::max(timed_launches_, i + 1);
    return FreshBefore("timed", i, Fresh() && PoisonBefore(i));
  };
  hooks.after = [this](int) { return FreshAfter(); };
  hooks.before_warmup = [this](int w) { return FreshBefore("warm-up", w, false); };
  hooks.after_warmup = [this](int) { return FreshAfter(); };
  return hooks;
}

TrustCase::PassHooks TrustCase::ProfileHooks(std::function<absl::Status()> flush) {
  PassHooks h;
  h.before = [this, flush = std::move(flush)]() -> absl::Status {
    const int pass = profiled_launches_++;
    // The coin of a launch number no timed launch uses: a profiled pass looks like a timed one.
    if (absl::Status s = FreshBefore("profiled", pass, Fresh() && PoisonBefore(1000000 + pass));
        !s.ok()) {
      return s;
    }
    return flush();  // after the generation: the launch starts from a cold L2 like a timed one
  };
  h.after = [this]() { return FreshAfter(); };
  return h;
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
  tracing_ = true;
  absl::StatusOr<profiler::TracedSample> t =
      timer.TraceSample(launch(), *tracer, Hooks(), timed_launches_, cold);
  tracing_ = false;
  if (t.ok()) {
    traced_ = ToTracedLaunch(*t);
  } else {
    traced_.unavailable_reason = absl::StrCat("traced launch failed: ", t.status().message());
  }
  cost_s_["streams"] += SecondsSince(t0);
}

void TrustCase::SetWork(reports::WorkInput work, double cost_s) {
  if (!On("work")) return;
  work_ = std::move(work);
  cost_s_["work"] += cost_s;
}

void TrustCase::SetProfiledDurations(std::vector<double> pass_ms, double kernel_ms,
                                     std::string not_comparable_reason,
                                     std::string kernel_ms_basis) {
  if (!On("work")) return;
  durations_.kernel_ms = kernel_ms;
  if (!kernel_ms_basis.empty()) durations_.kernel_ms_basis = std::move(kernel_ms_basis);
  durations_.comparable = not_comparable_reason.empty();
  durations_.not_comparable_reason = std::move(not_comparable_reason);
  durations_.pass_ms = std::move(pass_ms);
}

absl::StatusOr<reports::TrustRecord> TrustCase::Finish(const Problem& problem,
                                                       const reports::Environment& env,
                                                       const reports::TimingRecord* timing,
                                                       bool cold) {
  const auto t0 = std::chrono::steady_clock::now();
  if (absl::Status s = fresh_.Collect(); !s.ok()) return s;
  reports::TrustRecord r;
  const std::string& off = settings_.off_reason;
  if (On("plausibility")) {
    reports::PlausibilityInput in{verify::MinimalWorkFlops(problem),
                                  verify::MinimalInputBytes(problem), timing ? timing->min_ms : 0,
                                  cold};
    r.checks.push_back(reports::CheckPlausibility(in, reports::CeilingsOf(env, DTypeOf(problem))));
  } else {
    r.checks.push_back(reports::CheckOff("plausibility", off));
  }
  r.checks.push_back(reports::CheckWork(work_));
  r.checks.push_back(reports::CheckPrecision(work_));
  if (Fresh()) {
    // The warm-up and timed launches as timing counted them, not as the hooks saw them: a launch
    // whose hooks did not run (a wrapper that dropped them) is then an unchecked launch.
    reports::LaunchCounts made = fresh_.launches();
    if (timing != nullptr) {
      made.warmup = timing->warmup_runs;
      made.timed = static_cast<int>(timing->samples_ms.size()) + timing->samples_rejected_throttled;
    }
    r.checks.push_back(
        reports::CheckLaunchOutputs(fresh_.checks(), made, fresh_.samples(), &r.failed_launches));
    r.input_sets = fresh_.Describe();
  } else {
    r.checks.push_back(reports::CheckOff("timed_outputs", off));
    r.input_sets = absl::StrCat("one input set (seed ", ws_.seed(),
                                ") read by every launch: fresh inputs are off with timed_outputs");
  }
  r.checks.push_back(reports::CheckStreams(traced_, &r.activity));
  reports::ProfiledDurationInput durations = durations_;
  durations.timed_median_ms = timing ? timing->median_ms : 0;
  if (!cold && durations.comparable) {
    durations.comparable = false;
    durations.not_comparable_reason =
        "hot timing: the timed launches find their inputs in L2, the profiled ones (L2 flushed "
        "for the DRAM rule) do not";
  }
  r.checks.push_back(reports::CheckProfiledDuration(durations));
  r.launch_stream = traced_.launch_stream;
  cost_s_["timed_outputs"] += SecondsSince(t0);
  double total = 0;
  for (reports::TrustCheckRecord& c : r.checks) {
    auto it = cost_s_.find(c.check);
    if (it == cost_s_.end()) continue;
    c.values.push_back({"cost_s", it->second, "s"});
    total += it->second;
    if (c.check == "work") c.values.insert(c.values.end(), work_costs_.begin(), work_costs_.end());
  }
  r.wall_s = total;
  return r;
}

}  // namespace flashscope::runner
