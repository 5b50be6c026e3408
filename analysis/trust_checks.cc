#include "analysis/trust_checks.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace flashscope::reports {
namespace {

constexpr size_t kMaxFailedLaunches = 16;
constexpr size_t kMaxFindings = 8;

TrustCheckRecord NewCheck(const std::string& name) {
  TrustCheckRecord c;
  c.check = name;
  c.status = "passed";
  return c;
}

void Fail(TrustCheckRecord* c, std::string finding) {
  c->status = "failed";
  if (c->findings.size() < kMaxFindings) c->findings.push_back(std::move(finding));
}

std::string Pct(double share) { return absl::StrFormat("%.1f %%", 100.0 * share); }

std::string Mib(double bytes) { return absl::StrFormat("%.2f MiB", bytes / (1 << 20)); }

bool HostBlockingSync(const std::string& name) {
  return name == "cudaStreamSynchronize" || name == "cudaEventSynchronize" ||
         name == "cudaDeviceSynchronize";
}

// Whether a path with `inputs` holds every value of a problem of `dtype`: its own type or fp32
// upcasts; for an E4M3 problem also the FP8 tensor path ("fp8": E4M3 is the problem's own type)
// and the 16-bit paths, which hold every E4M3 value exactly. The FP8 path is in the contract of
// E4M3 problems only: an fp16/bf16/fp32 problem computed in FP8 fails.
bool InputsHold(const std::string& inputs, const std::string& dtype) {
  if (inputs == dtype || inputs == "fp32") return true;
  return dtype == "e4m3" && (inputs == "fp8" || inputs == "fp16" || inputs == "bf16");
}

// Inputs and accumulation the family contract allows for a problem of `dtype`: the problem's own
// type (or exact upcasts, InputsHold) in, fp32 accumulation. The paths whose accumulator the
// counters cannot tell (Hopper's fp16 wgmma; the FP8 path) are allowed and said so in the rule.
bool InContract(const WorkPath& p, const std::string& dtype) {
  const bool inputs_ok = InputsHold(p.inputs, dtype);
  const bool accumulate_ok = p.accumulate == "fp32" || p.accumulate == "fp16 or fp32";
  return inputs_ok && accumulate_ok;
}

}  // namespace

TrustCheckRecord CheckOff(const std::string& check, const std::string& reason) {
  TrustCheckRecord c = NewCheck(check);
  c.status = "off";
  c.rule = reason;
  return c;
}

double TensorFlopsPerSmClock(int cc) {
  // Dense datasheet rate / (SMs × boost clock), rounded to the power of two it is: V100 125 TF
  // (80 SMs, 1530 MHz), T4 65 TF (40, 1590), A100 312 TF (108, 1410), RTX 3090 142 TF fp16
  // accumulate (82, 1695), RTX 4090 330 TF fp16 accumulate (128, 2520), H100 SXM 989 TF (132,
  // 1830), B200 2250 TF (148 SMs).
  switch (cc) {
    case 70:
    case 75:
    case 86:
    case 89:
      return 1024;
    case 80:
      return 2048;
    case 90:
      return 4096;
    case 100:
      return 8192;
    default:
      return 0;
  }
}

double Fp8PerSmClockFactor(int cc) { return cc == 89 || cc == 90 || cc == 100 ? 2 : 1; }

Ceilings CeilingsOf(const Environment& env, const std::string& problem_dtype) {
  Ceilings c;
  // An E4M3 problem's ceiling is the FP8 rate where the tensor cores have one (twice the 16-bit
  // rate), the 16-bit rate elsewhere (an FP8 problem there runs on 16-bit upcasts).
  const double fp8_factor =
      problem_dtype == "e4m3" ? Fp8PerSmClockFactor(env.compute_capability) : 1;
  const double measured_flops =
      fp8_factor * 1e12 * std::max(env.peaks.matmul_fp16_tflops, env.peaks.matmul_bf16_tflops);
  const double per_clock = fp8_factor * TensorFlopsPerSmClock(env.compute_capability);
  const double theoretical_flops = per_clock * env.sm_count * env.sm_clock_mhz * 1e6;
  if (theoretical_flops > 0 && theoretical_flops >= measured_flops) {
    c.flops_per_s = theoretical_flops * kCeilingMargin;
    c.flops_source = absl::StrFormat(
        "theoretical dense %s tensor rate: %d SMs x %d MHz x %.0f FLOP/clock/SM (sm_%d) = "
        "%.1f TFLOP/s, x %.2f for timer resolution",
        fp8_factor > 1 ? "FP8" : "16-bit", env.sm_count, env.sm_clock_mhz, per_clock,
        env.compute_capability, theoretical_flops / 1e12, kCeilingMargin);
  } else if (measured_flops > 0) {
    c.flops_per_s = measured_flops * kMeasuredPeakMargin;
    c.flops_source = absl::StrFormat(
        "measured matmul peak %.1f TFLOP/s%s x %.2f (%s)", measured_flops / 1e12,
        fp8_factor > 1 ? " (the 16-bit peak x 2 for FP8)" : "", kMeasuredPeakMargin,
        per_clock > 0 ? "the measured peak exceeds the architecture's datasheet rate"
                      : absl::StrCat("no datasheet rate known for sm_", env.compute_capability));
  }
  const double theoretical_bytes =
      2.0 * env.memory_clock_mhz * 1e6 * static_cast<double>(env.memory_bus_bits) / 8.0;
  const double measured_bytes = env.peaks.copy_gbps * 1e9;
  if (theoretical_bytes > 0 && theoretical_bytes >= measured_bytes) {
    c.bytes_per_s = theoretical_bytes * kCeilingMargin;
    c.bytes_source = absl::StrFormat(
        "theoretical DRAM bandwidth: 2 x %d MHz x %d bits / 8 = %.0f GB/s, x %.2f",
        env.memory_clock_mhz, env.memory_bus_bits, theoretical_bytes / 1e9, kCeilingMargin);
  } else if (measured_bytes > 0) {
    c.bytes_per_s = measured_bytes * kMeasuredPeakMargin;
    c.bytes_source = absl::StrFormat("measured copy bandwidth %.0f GB/s x %.2f",
                                     measured_bytes / 1e9, kMeasuredPeakMargin);
  }
  return c;
}

TrustCheckRecord CheckPlausibility(const PlausibilityInput& in, const Ceilings& ceilings) {
  if (in.best_ms <= 0) return CheckOff("plausibility", "no timed launch");
  if (ceilings.flops_per_s <= 0) {
    return CheckOff("plausibility", "no ceiling: neither a datasheet rate nor a measured peak");
  }
  TrustCheckRecord c = NewCheck("plausibility");
  const double seconds = in.best_ms * 1e-3;
  const double flops_rate = in.minimal_flops / seconds;
  c.values = {{"best_launch_ms", in.best_ms, "ms"},
              {"minimal_flops", in.minimal_flops, "FLOP"},
              {"achieved_tflops", flops_rate / 1e12, "TFLOP/s"},
              {"ceiling_tflops", ceilings.flops_per_s / 1e12, "TFLOP/s"},
              {"share_of_ceiling_flops", flops_rate / ceilings.flops_per_s, "ratio"}};
  c.rule = absl::StrCat("minimal FLOPs / fastest launch <= ", ceilings.flops_source);
  if (flops_rate > ceilings.flops_per_s) {
    Fail(&c, absl::StrFormat("%.1f TFLOP/s is %s of what this GPU can do (%.1f TFLOP/s)",
                             flops_rate / 1e12, Pct(flops_rate / ceilings.flops_per_s),
                             ceilings.flops_per_s / 1e12));
  }
  if (!in.cold) {
    absl::StrAppend(&c.rule, "; bandwidth rule off: hot timing lets inputs sit in L2");
  } else if (ceilings.bytes_per_s > 0) {
    const double bytes_rate = in.minimal_input_bytes / seconds;
    c.values.push_back({"achieved_input_gbps", bytes_rate / 1e9, "GB/s"});
    c.values.push_back({"ceiling_gbps", ceilings.bytes_per_s / 1e9, "GB/s"});
    absl::StrAppend(&c.rule, "; input bytes / fastest launch <= ", ceilings.bytes_source,
                    " (L2 flushed: inputs come from DRAM)");
    if (bytes_rate > ceilings.bytes_per_s) {
      Fail(&c, absl::StrFormat("read its inputs at %.0f GB/s, %s of the DRAM ceiling (%.0f GB/s)",
                               bytes_rate / 1e9, Pct(bytes_rate / ceilings.bytes_per_s),
                               ceilings.bytes_per_s / 1e9));
    }
  }
  return c;
}

TrustCheckRecord CheckWork(const WorkInput& in) {
  if (!in.available) return CheckOff("work", in.unavailable_reason);
  TrustCheckRecord c = NewCheck("work");
  c.rule = absl::StrCat("a launch enqueues a kernel; counted FLOPs >= ", Pct(kWorkFloor),
                        " of the minimal FLOPs");
  double counted = 0;
  for (const WorkPath& p : in.paths) {
    counted += p.flops;
    if (p.flops > 0) c.values.push_back({p.name, p.flops, "FLOP"});
  }
  if (!in.counted_by.empty()) absl::StrAppend(&c.rule, " (", in.counted_by, ")");
  const double share = in.minimal_flops > 0 ? counted / in.minimal_flops : 0;
  // Counted over one user range per launch (a batched session), the kernels are not counted
  // one by one: the streams check's traced launch counts them.
  if (in.kernels >= 0) c.values.push_back({"kernels", static_cast<double>(in.kernels), "count"});
  c.values.push_back({"counted_flops", counted, "FLOP"});
  c.values.push_back({"minimal_flops", in.minimal_flops, "FLOP"});
  c.values.push_back({"share_of_minimal_flops", share, "ratio"});
  if (in.kernels == 0) Fail(&c, "the launch enqueued no kernel");
  if (in.minimal_flops < kWorkRuleMinFlops) {
    absl::StrAppend(&c.rule, " (FLOP rule off: the problem needs under ",
                    absl::StrFormat("%.0e", kWorkRuleMinFlops), " FLOPs)");
  } else if (share < kWorkFloor) {
    Fail(&c, absl::StrFormat("did %s of the problem's minimal FLOPs (%.4g of %.4g)", Pct(share),
                             counted, in.minimal_flops));
  }
  if (!in.dram_counted) return c;
  c.values.push_back({"dram_read_bytes", in.dram_read_bytes, "bytes"});
  c.values.push_back({"dram_write_bytes", in.dram_write_bytes, "bytes"});
  c.values.push_back({"minimal_input_bytes", in.minimal_input_bytes, "bytes"});
  if (!in.l2_flushed) {
    absl::StrAppend(&c.rule, "; DRAM rule off: CUPTI's kernel replay does not flush L2");
  } else if (in.minimal_input_bytes < kDramRuleMinBytes) {
    absl::StrAppend(&c.rule, "; DRAM rule off: inputs under ", Mib(kDramRuleMinBytes));
  } else {
    absl::StrAppend(&c.rule, "; with L2 flushed, DRAM reads >= ", Pct(kDramReadFloor),
                    " of the input bytes");
    const double read_share = in.dram_read_bytes / in.minimal_input_bytes;
    if (read_share < kDramReadFloor) {
      Fail(&c, absl::StrFormat("read %s from DRAM, %s of its %s of inputs", Mib(in.dram_read_bytes),
                               Pct(read_share), Mib(in.minimal_input_bytes)));
    }
  }
  return c;
}

TrustCheckRecord CheckPrecision(const WorkInput& in) {
  if (!in.available) return CheckOff("precision", in.unavailable_reason);
  TrustCheckRecord c = NewCheck("precision");
  c.rule =
      absl::StrCat(in.problem_dtype,
                   in.problem_dtype == "e4m3" ? " inputs (the fp8 path, or fp16/bf16/fp32 "
                                                "upcasts), fp32 accumulation; "
                                              : " inputs (or fp32 upcasts), fp32 accumulation; ",
                   "other arithmetic <= ", Pct(kPrecisionTolerance), " of the minimal FLOPs");
  if (in.minimal_flops < kWorkRuleMinFlops) {
    c.rule = absl::StrCat("off: the problem needs under ",
                          absl::StrFormat("%.0e", kWorkRuleMinFlops), " FLOPs");
    c.status = "off";
    return c;
  }
  if (!in.counted_by.empty()) absl::StrAppend(&c.rule, " (", in.counted_by, ")");
  double outside = 0;
  bool unknown_accumulator = false;
  for (const WorkPath& p : in.paths) {
    if (p.flops <= 0 || !p.judged) continue;
    if (p.accumulate == "fp16 or fp32") unknown_accumulator = true;
    if (InContract(p, in.problem_dtype)) continue;
    outside += p.flops;
    c.values.push_back({absl::StrCat("outside contract: ", p.name), p.flops, "FLOP"});
    if (in.minimal_flops > 0 && p.flops > kPrecisionTolerance * in.minimal_flops) {
      Fail(&c, absl::StrFormat("%s of the minimal FLOPs ran as %s (%s in, %s accumulate)",
                               Pct(p.flops / in.minimal_flops), p.name, p.inputs, p.accumulate));
    }
  }
  c.values.push_back({"outside_contract_flops", outside, "FLOP"});
  if (unknown_accumulator) {
    absl::StrAppend(&c.rule,
                    "; the accumulator of fp16 wgmma and of the fp8 path is not counted apart on "
                    "this GPU (allowed, verification judges its accuracy)");
  }
  return c;
}

double EscapeProbability(double skipped_fraction, int64_t samples_per_launch, int64_t launches) {
  if (skipped_fraction <= 0) return 1;
  if (skipped_fraction >= 1) return samples_per_launch * launches > 0 ? 0 : 1;
  const double draws = static_cast<double>(samples_per_launch) * static_cast<double>(launches);
  return std::exp(draws * std::log1p(-skipped_fraction));
}

TrustCheckRecord CheckLaunchOutputs(const std::vector<LaunchOutputCheck>& checks,
                                    const LaunchCounts& launches, int samples_per_launch,
                                    std::vector<TimedLaunchRecord>* failed) {
  if (launches.total() == 0) return CheckOff("timed_outputs", "no launch");
  TrustCheckRecord c = NewCheck("timed_outputs");
  const int64_t n = samples_per_launch;
  c.rule = absl::StrFormat(
      "every launch (verified, warm-up, timed, traced, profiled) read fresh inputs and its output "
      "meets the verification's element bound on %d rows drawn after it ran, against a reference "
      "for those rows; a kernel wrong on 1 %% of rows escapes all %d launches' checks with "
      "probability %.1e, on 10 %% with %.1e",
      n, launches.total(), EscapeProbability(0.01, n, launches.total()),
      EscapeProbability(0.1, n, launches.total()));
  int bad_launches = 0, poisoned = 0;
  std::map<std::string, int> checked;
  int64_t rows = 0;
  for (const LaunchOutputCheck& k : checks) {
    ++checked[k.kind];
    rows += k.rows;
    poisoned += k.poisoned_before ? 1 : 0;
    if (k.bad_rows == 0 && k.bad == 0 && k.lse_bad == 0) continue;
    ++bad_launches;
    if (failed->size() < kMaxFailedLaunches) {
      TimedLaunchRecord r;
      r.launch = k.launch;
      r.kind = k.kind;
      r.poisoned_before = k.poisoned_before;
      r.bad = k.bad;
      r.never_written = k.never_written;
      r.max_abs = k.max_abs;
      r.rows = k.rows;
      r.bad_rows = k.bad_rows;
      r.lse_bad = k.lse_bad;
      r.input_seed = k.input_seed;
      failed->push_back(r);
    }
    if (bad_launches <= 3) {
      Fail(&c, absl::StrFormat(
                   "%s launch %d (output %s before it): %d of %d sampled rows wrong (%d bad "
                   "elements, %d never written, %d bad lse; max |err| %.3g)",
                   k.kind, k.launch, k.poisoned_before ? "re-poisoned" : "stale", k.bad_rows,
                   k.rows, k.bad, k.never_written, k.lse_bad, k.max_abs));
    }
  }
  c.values = {{"launches", static_cast<double>(launches.total()), "count"},
              {"checked_launches", static_cast<double>(checks.size()), "count"},
              {"rows_checked", static_cast<double>(rows), "count"},
              {"poisoned_before", static_cast<double>(poisoned), "count"},
              {"failed_launches", static_cast<double>(bad_launches), "count"}};
  if (bad_launches > 3) Fail(&c, absl::StrCat(bad_launches - 3, " more failing launches"));
  const std::pair<const char*, int> kinds[] = {{"verified", launches.verified},
                                               {"warm-up", launches.warmup},
                                               {"timed", launches.timed},
                                               {"traced", launches.traced},
                                               {"profiled", launches.profiled}};
  for (const auto& [kind, made] : kinds) {
    const int seen = checked.count(kind) ? checked[kind] : 0;
    c.values.push_back({absl::StrCat(kind, "_launches"), static_cast<double>(made), "count"});
    if (seen < made) {
      Fail(&c, absl::StrCat(made - seen, " of ", made, " ", kind, " launches went unchecked"));
    }
  }
  return c;
}

TrustCheckRecord CheckProfiledDuration(const ProfiledDurationInput& in) {
  if (!in.comparable) return CheckOff("profiled_duration", in.not_comparable_reason);
  if (in.pass_ms.empty()) return CheckOff("profiled_duration", "no profiled launch");
  if (in.timed_median_ms <= 0) return CheckOff("profiled_duration", "no timed median");
  TrustCheckRecord c = NewCheck("profiled_duration");
  const double median = in.timed_median_ms;
  const double kernel_limit = kProfiledSlowdownMax * median + kProfiledSlackMs;
  c.rule = absl::StrFormat(
      "the profiled launches (hardware counters, fresh inputs, L2 flushed) look like the timed "
      "ones: %s <= %.1f x the timed median of %.4f ms + %.2f ms = %.4f ms (each launch's own "
      "event time, which holds CUPTI's host work per pass, is recorded, not judged)",
      in.kernel_ms_basis, kProfiledSlowdownMax, median, kProfiledSlackMs, kernel_limit);
  if (in.kernel_ms > kernel_limit) {
    Fail(&c, absl::StrFormat("the profiled launch's kernels ran %.4f ms on the GPU, %.2f x the "
                             "timed median of %.4f ms",
                             in.kernel_ms, in.kernel_ms / median, median));
  }
  double slowest = 0;
  for (double ms : in.pass_ms) slowest = std::max(slowest, ms);
  c.values = {{"profiled_launches", static_cast<double>(in.pass_ms.size()), "count"},
              {"profiled_kernel_ms", in.kernel_ms, "ms"},
              {"slowest_profiled_ms", slowest, "ms"},
              {"timed_median_ms", median, "ms"},
              {"kernel_ratio", in.kernel_ms / median, "ratio"},
              {"slowest_ratio", slowest / median, "ratio"}};
  return c;
}

TrustCheckRecord CheckStreams(const TracedLaunch& in, std::vector<ActivityRecord>* activity) {
  if (!in.available) return CheckOff("streams", in.unavailable_reason);
  TrustCheckRecord c = NewCheck("streams");
  c.rule =
      "all GPU work of a launch runs on its stream, between its start and stop events, with no "
      "host synchronisation inside launch()";
  int kernels = 0;
  for (const ActivityRecord& r : in.records) {
    const bool on_stream = r.stream == in.launch_stream;
    if (r.kind == "sync") {
      if (r.start_us < in.call_begin_us || r.start_us > in.call_end_us) continue;  // harness
      activity->push_back(r);
      if (HostBlockingSync(r.name)) {
        Fail(&c, absl::StrFormat("%s inside launch(): the host waited %.1f us", r.name,
                                 r.end_us - r.start_us));
      }
      continue;
    }
    // The harness's own work (poison, L2 flush, clock probe, output check) runs on the launch's
    // stream outside the window between the two marker kernels.
    if (on_stream && (r.end_us <= 0 || r.start_us >= in.window_end_us)) continue;
    activity->push_back(r);
    if (r.kind == "kernel") ++kernels;
    const std::string what =
        r.kind == "kernel" ? absl::StrCat("kernel ", r.name) : absl::StrCat(r.kind, " ", r.name);
    if (!on_stream) {
      Fail(&c, absl::StrFormat("%s ran on stream %d, not the launch's stream %d", what, r.stream,
                               in.launch_stream));
      if (r.end_us > in.window_end_us) {
        Fail(&c, absl::StrFormat("%s ended %.1f us after the stop event", what,
                                 r.end_us - in.window_end_us));
      }
    }
    if (r.kind == "memcpy" && r.synchronous) {
      Fail(&c, absl::StrFormat("synchronous %s copy of %d bytes: the host waited inside launch()",
                               r.name, r.bytes));
    }
  }
  if (kernels == 0) Fail(&c, "the launch enqueued no kernel");
  c.values = {{"launch_stream", static_cast<double>(in.launch_stream), "id"},
              {"kernels", static_cast<double>(kernels), "count"},
              {"records", static_cast<double>(activity->size()), "count"},
              {"window_us", in.window_end_us, "us"},
              {"launch_call_us", in.call_end_us - in.call_begin_us, "us"}};
  return c;
}

void ApplyTrustVerdict(CaseResult* c) {
  if (!c->trust || (c->status != CaseStatus::kPassed && c->status != CaseStatus::kFailed)) return;
  std::vector<std::string> failed;
  for (const TrustCheckRecord& k : c->trust->checks) {
    if (k.status != "failed") continue;
    failed.push_back(absl::StrCat("trust check ", k.check, " failed: ",
                                  k.findings.empty() ? k.rule : absl::StrJoin(k.findings, "; ")));
  }
  if (failed.empty()) return;
  std::string reason = c->status == CaseStatus::kFailed && !c->reason.empty()
                           ? absl::StrCat(c->reason, "; ")
                           : std::string();
  c->status = CaseStatus::kFailed;
  c->reason = absl::StrCat(reason, absl::StrJoin(failed, "; "));
}

}  // namespace flashscope::reports
