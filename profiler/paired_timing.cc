// Timer::TimePair: two launches timed in interleaved pairs (profiler/timing.h says how; the coin,
// the stopping rule and the result are in profiler/paired_sampling.h).
#include <algorithm>
#include <chrono>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "profiler/cuda_check.h"
#include "profiler/timing.h"

namespace flashscope::profiler {
namespace {

// Summaries and clocks of what each side accepted, and the shared stop.
void Finish(const std::vector<double> (&clocks)[2], PairTimingResult* r) {
  for (int s = 0; s < 2; ++s) {
    TimingResult& t = s == 0 ? r->a : r->b;
    t.summary = Summarize(t.samples_ms);
    t.rejected_throttled = r->rejected_pairs;
    t.converged = r->converged;
    t.stop_reason = r->stop_reason;
    if (!clocks[s].empty()) t.median_sm_clock_mhz = Summarize(clocks[s]).median;
  }
}

}  // namespace

PairTimingResult Timer::TimePair(const Launch& a, const Launch& b, const PairPolicy& policy,
                                 const SampleHooks (&hooks)[2],
                                 const std::function<void(int side)>& on_launch) {
  PairTimingResult r;
  const TimingPolicy& p = policy.timing;
  r.a.mode = r.b.mode = p.cold ? "cold" : "hot";
  std::vector<double> clocks[2];
  auto fail = [&](int side, absl::Status status) {
    r.failed_side = side;
    r.status = std::move(status);
    r.stop_reason = "error";
    Finish(clocks, &r);
    return r;
  };
  if (p.min_samples < 1 || p.max_samples < p.min_samples) {
    return fail(-1, absl::InvalidArgumentError(absl::StrCat(
                        "pair timing needs 1 <= min_samples <= max_samples, got min_samples=",
                        p.min_samples, " max_samples=", p.max_samples)));
  }
  const Launch* side[2] = {&a, &b};
  // Warm-up, each launch synchronised on its own so that a fault is pinned on its side.
  for (int i = 0; i < p.warmup; ++i) {
    for (int s = 0; s < 2; ++s) {
      if (hooks[s].before_warmup) {
        if (absl::Status st = hooks[s].before_warmup(i); !st.ok()) return fail(s, st);
      }
      on_launch(s);
      cudaError_t e = (*side[s])(stream_);
      if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
      if (e != cudaSuccess) return fail(s, CudaStatus(e, "kernel launch (warm-up)"));
      if (hooks[s].after_warmup) {
        if (absl::Status st = hooks[s].after_warmup(i); !st.ok()) return fail(s, st);
      }
      ++(s == 0 ? r.a : r.b).warmup_runs;
    }
  }
  PairOrder coin(policy.seed);
  std::vector<double> log_ratios;
  double max_clock = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (true) {
    const bool a_first = coin.AFirst();
    Sample got[2];
    for (int k = 0; k < 2; ++k) {
      const int s = (k == 0) == a_first ? 0 : 1;
      on_launch(s);
      TimingResult& mine = s == 0 ? r.a : r.b;
      absl::StatusOr<Sample> sample = TakeSample(*side[s], hooks[s], mine.launches, p.cold);
      if (!sample.ok()) return fail(s, sample.status());
      ++mine.launches;
      got[s] = *sample;
    }
    max_clock = std::max({max_clock, got[0].sm_clock_mhz, got[1].sm_clock_mhz});
    if (std::min(got[0].sm_clock_mhz, got[1].sm_clock_mhz) < p.throttle_ratio * max_clock) {
      ++r.rejected_pairs;  // both samples go: a pair is only worth anything whole
    } else {
      for (int s = 0; s < 2; ++s) {
        (s == 0 ? r.a : r.b).samples_ms.push_back(got[s].ms);
        clocks[s].push_back(got[s].sm_clock_mhz);
      }
      r.order += a_first ? 'a' : 'b';
      if (got[0].ms > 0 && got[1].ms > 0) log_ratios.push_back(std::log(got[1].ms / got[0].ms));
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (ShouldStopPairs(log_ratios, policy, elapsed, &r.converged, &r.stop_reason)) break;
  }
  Finish(clocks, &r);
  return r;
}

}  // namespace flashscope::profiler
