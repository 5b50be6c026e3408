#include "analysis/trust_checks.h"

#include <algorithm>
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

// Inputs and accumulation the family contract allows for a problem of `dtype`: the problem's own
// 16-bit type (or fp32 upcasts) in, fp32 accumulation. The one fp16 path whose accumulator the
// counters cannot tell (Hopper's fp16 wgmma) is allowed and said so in the rule.
bool InContract(const WorkPath& p, const std::string& dtype) {
  const bool inputs_ok = p.inputs == dtype || p.inputs == "fp32";
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

Ceilings CeilingsOf(const Environment& env) {
  Ceilings c;
  const double measured_flops =
      1e12 * std::max(env.peaks.matmul_fp16_tflops, env.peaks.matmul_bf16_tflops);
  const double per_clock = TensorFlopsPerSmClock(env.compute_capability);
  const double theoretical_flops = per_clock * env.sm_count * env.sm_clock_mhz * 1e6;
  if (theoretical_flops > 0 && theoretical_flops >= measured_flops) {
    c.flops_per_s = theoretical_flops * kCeilingMargin;
    c.flops_source = absl::StrFormat(
        "theoretical dense 16-bit tensor rate: %d SMs x %d MHz x %.0f FLOP/clock/SM (sm_%d) = "
        "%.1f TFLOP/s, x %.2f for timer resolution",
        env.sm_count, env.sm_clock_mhz, per_clock, env.compute_capability, theoretical_flops / 1e12,
        kCeilingMargin);
  } else if (measured_flops > 0) {
    c.flops_per_s = measured_flops * kMeasuredPeakMargin;
    c.flops_source = absl::StrFormat(
        "measured matmul peak %.1f TFLOP/s x %.2f (%s)", measured_flops / 1e12, kMeasuredPeakMargin,
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
  const double share = in.minimal_flops > 0 ? counted / in.minimal_flops : 0;
  c.values.push_back({"kernels", static_cast<double>(in.kernels), "count"});
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
  c.rule = absl::StrCat(in.problem_dtype, " inputs (or fp32 upcasts), fp32 accumulation; ",
                        "other arithmetic <= ", Pct(kPrecisionTolerance), " of the minimal FLOPs");
  if (in.minimal_flops < kWorkRuleMinFlops) {
    c.rule = absl::StrCat("off: the problem needs under ",
                          absl::StrFormat("%.0e", kWorkRuleMinFlops), " FLOPs");
    c.status = "off";
    return c;
  }
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
                    "; fp16 wgmma's accumulator is not counted apart on this GPU (allowed, "
                    "verification judges its accuracy)");
  }
  return c;
}

TrustCheckRecord CheckTimedOutputs(const std::vector<LaunchOutputCheck>& checks, int launches,
                                   std::vector<TimedLaunchRecord>* failed) {
  if (launches == 0) return CheckOff("timed_outputs", "no timed launch");
  TrustCheckRecord c = NewCheck("timed_outputs");
  c.rule =
      "the output of every timed launch meets the verification rule of the input set it read "
      "(outputs re-poisoned or left stale before each launch, in a seeded order)";
  int checked = 0, bad_launches = 0, poisoned = 0;
  for (const LaunchOutputCheck& k : checks) {
    if (k.launch < 0) continue;
    ++checked;
    poisoned += k.poisoned_before ? 1 : 0;
    if (k.bad == 0) continue;
    ++bad_launches;
    if (failed->size() < kMaxFailedLaunches) {
      failed->push_back(TimedLaunchRecord{k.launch, k.input_set, k.poisoned_before, k.bad,
                                          k.never_written, k.max_abs});
    }
    if (bad_launches <= 3) {
      Fail(&c, absl::StrFormat("timed launch %d (input set %d, output %s before it): %d bad "
                               "elements, %d never written",
                               k.launch, k.input_set, k.poisoned_before ? "re-poisoned" : "stale",
                               k.bad, k.never_written));
    }
  }
  c.values = {{"timed_launches", static_cast<double>(launches), "count"},
              {"checked_launches", static_cast<double>(checked), "count"},
              {"poisoned_before", static_cast<double>(poisoned), "count"},
              {"failed_launches", static_cast<double>(bad_launches), "count"}};
  if (bad_launches > 3) Fail(&c, absl::StrCat(bad_launches - 3, " more failing launches"));
  if (checked != launches) {
    Fail(&c, absl::StrCat(launches - checked, " of ", launches, " timed launches went unchecked"));
  }
  return c;
}

TrustCheckRecord CheckInputSets(const std::vector<InputSetVerdict>& sets) {
  TrustCheckRecord c = NewCheck("input_sets");
  c.rule =
      absl::StrCat("the first launch on each of ", sets.size(), " input sets passes verification");
  if (sets.size() < 2) {
    c.status = "off";
    c.rule = "one input set only (suite verify.input_sets = 1)";
  }
  for (const InputSetVerdict& s : sets) {
    c.values.push_back({absl::StrCat("set ", s.set, " seed"), static_cast<double>(s.seed), ""});
    c.values.push_back({absl::StrCat("set ", s.set, " max_abs"), s.max_abs, "abs"});
    c.values.push_back(
        {absl::StrCat("set ", s.set, " ratio_to_baseline"), s.ratio_to_baseline, "ratio"});
    if (!s.passed) Fail(&c, absl::StrCat("input set ", s.set, " (seed ", s.seed, "): ", s.rule));
  }
  return c;
}

TrustCheckRecord CheckDeterminism(const std::vector<LaunchOutputCheck>& checks) {
  TrustCheckRecord c = NewCheck("determinism");
  c.status = "info";
  std::map<int, std::set<uint64_t>> hashes;
  std::map<int, int> launches;
  for (const LaunchOutputCheck& k : checks) {
    if (k.bad != 0) continue;  // a wrong output says nothing about run-to-run determinism
    hashes[k.input_set].insert(k.hash);
    ++launches[k.input_set];
  }
  std::vector<std::string> parts;
  bool deterministic = true;
  for (const auto& [set, distinct] : hashes) {
    c.values.push_back(
        {absl::StrCat("set ", set, " launches"), static_cast<double>(launches[set]), "count"});
    c.values.push_back({absl::StrCat("set ", set, " distinct outputs"),
                        static_cast<double>(distinct.size()), "count"});
    if (distinct.size() > 1) deterministic = false;
    parts.push_back(absl::StrCat(distinct.size(), " distinct of ", launches[set]));
  }
  c.rule = absl::StrCat(
      deterministic ? "bitwise identical outputs" : "outputs differ bitwise between launches",
      " on each input set (", absl::StrJoin(parts, "; "), "); informative, never fails");
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
