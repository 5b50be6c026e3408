// The profile phase of a case (CaseRunner::Profile, case_runner.h): the hardware counters of the
// metrics asked for and of the trust checks' work evidence, collected over passes that read fresh
// inputs and are checked like every other launch (runner/trust_case.h, ProfileHooks).
//
// Two stages keep the cost down (docs/trust.md, "cost"): first only the counters the hardware
// counts (tensor FLOPs by path, DRAM bytes, metrics asked for that are not instrumented), whose
// passes run the kernel at its own speed and so are also the profiled launches whose durations
// the profiled_duration check compares with the timed ones; then, only when the tensor paths fall
// short of the work floor (scalar kernels) or an instrumented metric was asked for, everything,
// SASS-instrumented scalar counters included (with instrumented metrics asked for, both always
// run, and the one the CUPTI object is enabled for goes first: one re-enable per case, not two).
#include <algorithm>
#include <map>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/trust_checks.h"
#include "profiler/nvtx_ranges.h"
#include "protocol/worker_protocol.h"
#include "runner/case_runner.h"
#include "runner/case_runner_state.h"
#include "runner/record_conversions.h"
#include "runner/trust_case.h"
#include "verify/problem_costs.h"

namespace flashscope::runner {
namespace {

namespace phase = suites::protocol::phase;
using case_runner_internal::ByHwName;

// The profiles of one case: where their time went, for the work check's values (what to cut
// next), and the profiled_duration check's evidence: the first profile whose passes compare with
// timed launches (counted in hardware, user replay), else the first profile's, with its reason.
struct ProfileTally {
  TrustCase* trust = nullptr;
  double wall_s = 0, configure_s = 0, passes_s = 0, decode_s = 0;
  profiler::PassHostSeconds host;  // the passes' host time by step, summed
  int passes = 0;
  bool durations_set = false, durations_comparable = false;
  void Add(const profiler::ProfileResult& r);
  std::vector<reports::TrustValue> Values() const {
    return {{"profile_configure_s", configure_s, "s"},
            {"profile_passes_s", passes_s, "s"},
            {"profile_decode_s", decode_s, "s"},
            {"profile_passes", static_cast<double>(passes), "count"},
            {"profile_hooks_before_s", host.before, "s"},
            {"profile_hooks_after_s", host.after, "s"},
            {"profile_cupti_s", host.start + host.stop, "s"},
            {"profile_launches_s", host.drain + host.launch, "s"}};
  }
};

// The kernels a profile counted one by one (its auto ranges); -1 for one user range around the
// launch, which does not count them (a launch that enqueued none is NotFound before this).
int KernelsCounted(const profiler::ProfileResult& r) { return r.kernels > 0 ? r.kernels : -1; }

bool AnyInstrumented(const std::vector<profiler::MetricDef>& defs) {
  return std::any_of(defs.begin(), defs.end(), [](const profiler::MetricDef& d) {
    return profiler::IsInstrumentedMetric(d.hw_name);
  });
}

// Why a profile's passes cannot be compared with timed launches, or "" when they can.
std::string NotComparable(const profiler::ProfileResult& r) {
  if (r.replay == profiler::Replay::kKernel) {
    return "CUPTI kernel replay (a launch that is not idempotent): one launch holds every pass";
  }
  if (r.instrumented) {
    return "every counter pass collected SASS-instrumented counters, which slow the kernel";
  }
  return "";
}

void ProfileTally::Add(const profiler::ProfileResult& r) {
  wall_s += r.wall_s;
  configure_s += r.configure_s;
  passes_s += r.passes_s;
  decode_s += r.decode_s;
  passes += r.passes;
  for (const profiler::PassHostSeconds& p : r.pass_host) {
    host.before += p.before, host.after += p.after, host.start += p.start, host.stop += p.stop;
    host.drain += p.drain, host.launch += p.launch;
  }
  if (durations_comparable || trust == nullptr) return;
  const std::string why = NotComparable(r);
  if (!why.empty() && durations_set) return;
  trust->SetProfiledDurations(r.pass_ms, r.kernel_ms, why, r.kernel_ms_basis);
  durations_set = true;
  durations_comparable = why.empty();
}

using ScopeProfile =
    std::function<absl::StatusOr<profiler::ProfileResult>(profiler::MetricScope scope)>;

// The hardware-counted metrics (every tensor path, the DRAM bytes) first, then everything,
// SASS-instrumented scalar counters included, when the tensor paths fall short of the work floor
// or an instrumented metric was asked for; with `staged` false, everything at once (a scalar
// kernel, or a GPU where CUPTI refused the smaller config: `hardware_usable` turns false then).
// With an instrumented metric asked for, both scopes run whatever the counts say: the one the
// profiler object is enabled for (`all_enabled`: kAll, the previous case's last) goes first, so
// that consecutive cases change scope once, not twice (each change re-enables the object).
absl::StatusOr<profiler::ProfileResult> ProfileHardwareThenAll(
    const ScopeProfile& profile, bool staged, bool* hardware_usable,
    const std::function<bool(const profiler::ProfileResult&)>& tensor_short,
    bool instrumented_asked, bool all_enabled, ProfileTally* tally) {
  if (staged && instrumented_asked && all_enabled) {
    auto all = profile(profiler::MetricScope::kAll);
    if (!all.ok()) return all;
    tally->Add(*all);
    auto hardware = profile(profiler::MetricScope::kHardware);
    if (hardware.ok()) {
      tally->Add(*hardware);
    } else if (!absl::IsNotFound(hardware.status())) {
      *hardware_usable = false;  // as below: CUPTI refused the smaller config, the full one ran
    }
    return all;
  }
  auto result = profile(staged ? profiler::MetricScope::kHardware : profiler::MetricScope::kAll);
  if (staged && !result.ok() && !absl::IsNotFound(result.status())) {
    result = profile(profiler::MetricScope::kAll);
    // The full config worked where the smaller one did not: collect everything at once from now
    // on (a kernel's own failure fails both).
    if (result.ok()) *hardware_usable = false;
  }
  if (!result.ok()) return result;
  tally->Add(*result);
  if (result->scope != profiler::MetricScope::kHardware) return result;
  if (!instrumented_asked && !tensor_short(*result)) return result;
  // The scalar (instrumented) counters: their passes are checked too, not compared.
  auto all = profile(profiler::MetricScope::kAll);
  if (all.ok()) tally->Add(*all);
  return all;
}

}  // namespace

namespace case_runner_internal {
std::map<std::string, double> ByHwName(const profiler::ProfileResult& r) {
  std::map<std::string, double> out;
  for (const auto& [def, value] : r.values) out[def.hw_name] = value;
  return out;
}
}  // namespace case_runner_internal

void CaseRunner::Profile(Case& k) {
  State& s = *state_;
  const std::string no_counters = absl::StrCat("no work counters known for sm_", s.device.cc);
  if (s.profiled_defs.empty()) {
    k.trust->SetWork({false, no_counters}, 0);
    return;
  }
  // The FLOP and precision rules are off below kWorkRuleMinFlops: unless metrics were asked for,
  // the counter passes buy nothing there.
  if (s.metric_defs.empty() &&
      verify::MinimalWorkFlops(k.c->problem) < reports::kWorkRuleMinFlops) {
    k.trust->SetWork(
        {false, absl::StrFormat("the problem needs under %.0e FLOPs: no counters collected (a "
                                "launch without kernels still fails the streams check)",
                                reports::kWorkRuleMinFlops)},
        0);
    k.trust->SetProfiledDurations({}, 0,
                                  "no counters collected (problem under the work rule's size)");
    return;
  }
  Enter(phase::kProfiling);
  profiler::NvtxRange range("profile");
  RangeProfilerOrNull();
  reports::ProfileRecord pr;
  reports::WorkInput work{
      false, s.work_counters == nullptr
                 ? no_counters
                 : absl::StrCat("hardware counters unavailable: ", s.metrics_unavailable)};
  const TrustCase::PassHooks hooks = k.trust->ProfileHooks([&]() { return s.timer->FlushL2(); });
  double profile_s = 0;
  if (s.range_profiler) {
    profile_s = CollectCounters(k, hooks.before, hooks.after, &pr, &work);
  } else {
    pr.unavailable_reason = s.metrics_unavailable;
  }
  k.trust->SetWork(std::move(work), profile_s);
  if (s.metric_defs.empty()) return;
  // One more launch under CUPTI's activity records: the exact duration of every kernel the
  // implementation launches (several for the unfused peer); fresh inputs, L2 flushed and checked
  // like a counter pass.
  if (profiler::KernelTracer* tracer = Tracer(); tracer != nullptr && hooks.before().ok()) {
    auto records = tracer->Trace(k.trust->launch(), s.stream);
    if (records.ok()) {
      for (const auto& r : *records) pr.kernel_durations_ms.emplace_back(r.name, r.ms);
    }
    if (absl::Status st = hooks.after(); !st.ok()) {
      pr.kernel_durations_ms.clear();
      pr.unavailable_reason = absl::StrCat("traced launch's output check: ", st.message());
    }
  }
  k.r.profile = pr;
}

profiler::RangeProfiler* CaseRunner::RangeProfilerOrNull() {
  State& s = *state_;
  if (s.metrics_unavailable.empty() && !s.range_profiler) {
    auto rp = profiler::RangeProfiler::Create(s.profiled_defs, 0, s.screen_defs);
    if (rp.ok()) {
      s.range_profiler = *std::move(rp);
      s.range_profiler->set_step_observer(counter_steps_);
    } else {
      s.metrics_unavailable = std::string(rp.status().message());
    }
  }
  return s.range_profiler.get();
}

bool CaseRunner::TensorShort(Case& k, const profiler::ProfileResult& r) {
  return TensorShort(k, ByHwName(r));
}

bool CaseRunner::TensorShort(Case& k, const std::map<std::string, double>& values) {
  State& s = *state_;
  if (s.work_counters == nullptr) return false;
  const reports::WorkInput hw = WorkInputFrom(*s.work_counters, values, -1, true, k.c->problem);
  const double flops =
      std::accumulate(hw.paths.begin(), hw.paths.end(), 0.0,
                      [](double sum, const reports::WorkPath& p) { return sum + p.flops; });
  const bool is_short = flops < reports::kWorkFloor * hw.minimal_flops;
  if (is_short) s.scalar_first.insert(case_runner_internal::KernelDTypeKey(*k.c));
  return is_short;
}

std::map<std::string, double> CaseRunner::BatchedWorkValues(
    const std::vector<profiler::ProfileResult>& profiles, std::string* counted_by) const {
  const State& s = *state_;
  std::map<std::string, double> values;
  for (const profiler::ProfileResult& r : profiles) {
    if (r.scope != profiler::MetricScope::kScreen) {
      // A later session's counts (the full set, or the scalar counters) join or replace them.
      for (const auto& [name, value] : ByHwName(r)) values[name] = value;
      continue;
    }
    const profiler::ScreenOutcome o = profiler::ApplyScreen(*s.work_counters, ByHwName(r));
    if (o.complete) {
      values = o.values;
      *counted_by = absl::StrFormat(
          "tensor paths counted by the screen (%d passes): the mma.sync paths it leaves out did "
          "nothing, since %.0f FLOPs x (tensor-pipe - wgmma - HFMA2.MMA instructions) equals the "
          "counted mma.sync FLOPs (docs/trust.md, \"The screen\")",
          r.passes, s.work_counters->screen.max_flops_per_mma_sync);
    } else {
      *counted_by = absl::StrCat("every path counted: the screen was not complete (", o.why, ")");
    }
  }
  return values;
}

void CaseRunner::TakeBatchedCounters(Case& k, const std::vector<profiler::ProfileResult>& profiles,
                                     const std::string& failure) {
  State& s = *state_;
  ProfileTally tally;
  tally.trust = k.trust.get();
  for (const profiler::ProfileResult& r : profiles) tally.Add(r);
  k.trust->SetWorkCosts(tally.Values());
  reports::WorkInput work;
  if (failure == case_runner_internal::kNoKernelLaunched) {
    work = WorkInputFrom(*s.work_counters, {}, 0, true, k.c->problem);
  } else if (!failure.empty() || profiles.empty()) {
    work.unavailable_reason = absl::StrCat(
        "hardware counters: ", failure.empty() ? "no batched profile was collected" : failure);
  } else {
    std::string counted_by;
    work = WorkInputFrom(*s.work_counters, BatchedWorkValues(profiles, &counted_by),
                         KernelsCounted(profiles.back()), true, k.c->problem);
    work.counted_by = std::move(counted_by);
  }
  if (profiles.empty()) {
    k.trust->SetProfiledDurations({}, 0, absl::StrCat("no counters collected: ", failure));
  }
  k.trust->SetWork(std::move(work), tally.wall_s);
}

double CaseRunner::CollectCounters(Case& k, const std::function<absl::Status()>& before_pass,
                                   const std::function<absl::Status()>& after_pass,
                                   reports::ProfileRecord* pr, reports::WorkInput* work) {
  State& s = *state_;
  // A launch that is not idempotent cannot be relaunched per pass: CUPTI replays each of its
  // kernels and restores the memory they touch instead.
  const profiler::Replay replay =
      k.c->kernel->info().idempotent ? profiler::Replay::kUser : profiler::Replay::kKernel;
  const bool user = replay == profiler::Replay::kUser;
  auto profile = [&](profiler::MetricScope scope) {
    return s.range_profiler->Profile(k.trust->launch(), before_pass, s.stream, replay, after_pass,
                                     scope);
  };
  ProfileTally tally;
  tally.trust = k.trust.get();
  auto work_from = [&](const profiler::ProfileResult& r) {
    return WorkInputFrom(*s.work_counters, ByHwName(r), KernelsCounted(r), user, k.c->problem);
  };
  // A kernel whose tensor paths fell short before (a scalar kernel) collects everything at once:
  // its hardware-only profile would only say so again (6 passes of 13, on an H200).
  const std::string kernel_key = case_runner_internal::KernelDTypeKey(*k.c);
  auto tensor_short = [&](const profiler::ProfileResult& r) { return TensorShort(k, r); };
  const bool staged = s.hardware_scope_usable && s.range_profiler->has_hardware_subset() &&
                      s.scalar_first.count(kernel_key) == 0;
  absl::StatusOr<profiler::ProfileResult> result = ProfileHardwareThenAll(
      profile, staged, &s.hardware_scope_usable, tensor_short, AnyInstrumented(s.metric_defs),
      s.range_profiler->enabled_for(profiler::MetricScope::kAll, replay), &tally);
  if (!result.ok()) {
    if (absl::IsNotFound(result.status()) && s.work_counters != nullptr) {
      // The launch enqueued no kernel: evidence, not a profiler failure.
      *work = WorkInputFrom(*s.work_counters, {}, 0, true, k.c->problem);
    } else {
      work->unavailable_reason = absl::StrCat("hardware counters: ", result.status().message());
    }
    pr->unavailable_reason = std::string(result.status().message());
    k.trust->SetWorkCosts(tally.Values());
    return tally.wall_s;
  }
  k.trust->SetWorkCosts(tally.Values());
  *pr = ToProfileRecord(*result);
  pr->passes = tally.passes;
  pr->wall_s = tally.wall_s;
  std::vector<reports::MetricRecord> asked;
  for (const reports::MetricRecord& m : pr->metrics) {
    if (std::any_of(s.metric_defs.begin(), s.metric_defs.end(),
                    [&](const profiler::MetricDef& d) { return d.hw_name == m.hw_name; })) {
      asked.push_back(m);
    }
  }
  pr->metrics = std::move(asked);
  if (s.work_counters != nullptr) *work = work_from(*result);
  return tally.wall_s;
}

}  // namespace flashscope::runner
