#!/usr/bin/env python3
"""Times PyTorch's scaled_dot_product_attention backends and writes a flashscope report.

Each backend (flash = FlashAttention-2, cudnn = cuDNN's fused attention, efficient = xFormers'
memory-efficient kernel) runs as its own kernel id ("torch.sdpa_flash", "torch.sdpa_cudnn",
"torch.sdpa_efficient") over the ladder's problems, timed the way flashscope times its own kernels:
CUDA events around one call, L2 flushed before every sample (a memset of twice the L2 size), a
warm-up, at least --min-samples samples, median reported with the raw samples. Every case is also
verified: a slice of the output (first and last query rows of two heads) against an fp32 reference
and a naive same-precision implementation, with flashscope's rule (max error <= 2x the naive
one's + floor). The report's problem keys are those of common/problem.h, so `flashscope compare`
pairs these cases with our kernels problem by problem.

Runs on the GPU machine (torch with CUDA). `--self-test` checks the report writing and problem
keys without torch, anywhere.
"""

import argparse
import datetime
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

SCHEMA_NAME = "flashscope.report"
SCHEMA_VERSION = 1
BACKENDS = ("flash", "cudnn", "efficient")
# flashscope's tolerance policy (verify/tolerance.h): floor added to 2x the naive error.
FLOORS = {"fp16": 1e-5, "bf16": 1e-4, "fp32": 1e-6}
ATOL = {"fp16": 2e-3, "bf16": 1.6e-2, "fp32": 1e-4}


class Problem:
    """common/problem.h AttentionProblem, with the same defaults."""

    def __init__(self, batch=1, heads=1, seq_q=1, seq_k=1, head_dim=64, dtype="fp16",
                 causal=False, want_lse=False):
        self.batch, self.heads, self.seq_q, self.seq_k = batch, heads, seq_q, seq_k
        self.head_dim, self.dtype, self.causal, self.want_lse = head_dim, dtype, causal, want_lse

    def key(self):
        """Exactly ProblemKey(const AttentionProblem&) of common/problem.h."""
        k = "attention_fwd{B=%d,H=%d" % (self.batch, self.heads)
        if self.seq_q == self.seq_k:
            k += ",S=%d" % self.seq_q
        else:
            k += ",Sq=%d,Sk=%d" % (self.seq_q, self.seq_k)
        k += ",D=%d,%s" % (self.head_dim, self.dtype)
        if self.causal:
            k += ",causal"
        if self.want_lse:
            k += ",lse"
        return k + "}"

    def params(self):
        """suites/record_conversions.cc ProblemParams."""
        return {"B": str(self.batch), "H": str(self.heads), "Sq": str(self.seq_q),
                "Sk": str(self.seq_k), "D": str(self.head_dim), "dtype": self.dtype,
                "causal": "true" if self.causal else "false",
                "lse": "true" if self.want_lse else "false"}

    def flops(self):
        """4·B·H·Sq·Sk·D, halved when causal (FlashAttention's convention)."""
        f = 4.0 * self.batch * self.heads * self.seq_q * self.seq_k * self.head_dim
        return f / 2 if self.causal else f

    def minimal_bytes(self):
        """verify/problem_costs.cc MinimalBytes: Q, O, K, V once each (+ the LSE)."""
        e = 4 if self.dtype == "fp32" else 2
        q = self.batch * self.heads * self.seq_q * self.head_dim
        k = self.batch * self.heads * self.seq_k * self.head_dim
        b = e * (2.0 * q + 2.0 * k)
        if self.want_lse:
            b += 4.0 * self.batch * self.heads * self.seq_q
        return b


DTYPE_ALIASES = {"fp32": "fp32", "float32": "fp32", "f32": "fp32", "fp16": "fp16",
                 "float16": "fp16", "f16": "fp16", "half": "fp16", "bf16": "bf16",
                 "bfloat16": "bf16"}
AXIS_ORDER = ["dtype", "head_dim", "causal", "lse", "tokens", "batch", "heads", "seq", "seq_q",
              "seq_k"]


def problem_from_point(pt):
    """suites/suite.cc AttentionFromPoint, for the checks a valid suite already passed."""
    p = Problem()
    for name in ("batch", "heads", "head_dim"):
        if name in pt:
            setattr(p, name, int(pt[name]))
    if "seq" in pt:
        p.seq_q = p.seq_k = int(pt["seq"])
    else:
        p.seq_q, p.seq_k = int(pt["seq_q"]), int(pt["seq_k"])
    if "tokens" in pt:
        if int(pt["tokens"]) % p.seq_q:
            raise ValueError("tokens %s is not a multiple of seq %d" % (pt["tokens"], p.seq_q))
        p.batch = int(pt["tokens"]) // p.seq_q
    if "dtype" in pt:
        if pt["dtype"] not in DTYPE_ALIASES:
            raise ValueError("unknown dtype %r (expected fp32, fp16 or bf16)" % pt["dtype"])
        p.dtype = DTYPE_ALIASES[pt["dtype"]]
    p.causal = bool(pt.get("causal", False))
    p.want_lse = bool(pt.get("lse", False))
    return p


def expand_suite(suite):
    """The attention problems of a suite (JSON object), in the runner's order (last axis fastest)."""
    problems = []
    for group in suite.get("problems", []):
        if group.get("family") != "attention_fwd":
            continue
        axes = group.get("axes", {})
        dims = [(n, axes[n] if isinstance(axes[n], list) else [axes[n]])
                for n in AXIS_ORDER if n in axes]
        idx = [0] * len(dims)
        while True:
            problems.append(problem_from_point({n: v[i] for (n, v), i in zip(dims, idx)}))
            d = len(dims)
            while d > 0:
                d -= 1
                idx[d] += 1
                if idx[d] < len(dims[d][1]):
                    break
                idx[d] = 0
            else:
                break
    return problems


def builtin_problems():
    """The anchors table (bf16, B·S = 16k, D 64 with H 32 and D 128 with H 16, S 512..16384, causal
    and not) and the seeds' shape, as suites/ladder.json lists them."""
    out = [Problem(4, 12, 2048, 2048, 64, "fp16", True)]
    for d, h in ((64, 32), (128, 16)):
        for causal in (False, True):
            for s in (512, 1024, 2048, 4096, 8192, 16384):
                out.append(Problem(16384 // s, h, s, s, d, "bf16", causal))
    return out


def summarize(samples, target):
    """profiler/sample_stats.cc Summarize: median, percentiles, noise from the MAD."""
    xs = sorted(samples)
    n = len(xs)

    def pct(q):
        if n == 1:
            return xs[0]
        pos = q / 100.0 * (n - 1)
        lo = int(math.floor(pos))
        hi = min(lo + 1, n - 1)
        return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)

    med = pct(50)
    mad = statistics.median([abs(x - med) for x in xs])
    noise = 1.2533141373155 * 1.4826 * mad / math.sqrt(n) / med if n > 1 and med > 0 else math.inf
    return {"median_ms": med, "mean_ms": sum(xs) / n, "min_ms": xs[0], "max_ms": xs[-1],
            "stdev_ms": statistics.stdev(xs) if n > 1 else 0.0, "p10_ms": pct(10),
            "p90_ms": pct(90), "noise": noise if math.isfinite(noise) else 1e9,
            "converged": noise <= target}


def timing_record(samples, warmup, target, stop_reason):
    t = {"mode": "cold", "warmup_runs": warmup, "samples_rejected_throttled": 0}
    t.update(summarize(samples, target))
    t.update({"stop_reason": stop_reason, "median_sm_clock_mhz": 0, "samples_ms": list(samples)})
    return t


def throughput_record(p, median_ms, peaks):
    flops, nbytes = p.flops(), p.minimal_bytes()
    tflops = flops / (median_ms * 1e-3) / 1e12
    gbps = nbytes / (median_ms * 1e-3) / 1e9
    peak = peaks.get("matmul_bf16_tflops" if p.dtype == "bf16" else "matmul_fp16_tflops", 0)
    copy = peaks.get("copy_gbps", 0)
    return {"flops": flops, "bytes": nbytes, "tflops": tflops, "gbps": gbps,
            "pct_peak_flops": 100.0 * tflops / peak if peak else 0.0,
            "pct_peak_bandwidth": 100.0 * gbps / copy if copy else 0.0}


def verification_record(dtype, max_abs, mean_abs, nrmse, elements, baseline_max_abs, nonfinite):
    floor = FLOORS[dtype]
    limit = 2.0 * baseline_max_abs + floor
    passed = nonfinite == 0 and max_abs <= limit
    rule = ("max_abs %.3g <= 2 x naive %.3g + %.0e on a slice (first/last 64 query rows, 2 heads)"
            % (max_abs, baseline_max_abs, floor))
    if nonfinite:
        rule = "%d NaN/Inf elements in the output" % nonfinite
    elif not passed:
        rule = rule.replace("<=", ">")
    return {"ran": True, "passed": passed, "rule": rule, "reference": "torch fp32 math",
            "atol": ATOL[dtype], "rtol": ATOL[dtype],
            "stats": {"elements": elements, "max_abs": max_abs, "mean_abs": mean_abs,
                      "nrmse": nrmse, "max_rel": 0.0, "bad": 0, "nan": nonfinite, "inf": 0,
                      "never_written": 0, "worst_index": -1},
            "baseline_max_abs": baseline_max_abs,
            "ratio_to_baseline": max_abs / baseline_max_abs if baseline_max_abs > 0 else 0.0,
            "heatmaps": [], "dump_dir": ""}


def case_record(kernel_id, p, status, reason="", timing=None, throughput=None,
                verification=None, wall_s=0.0, seed=0):
    """reports/report_json.cc CaseToJson."""
    c = {"kernel_id": kernel_id, "family": "attention_fwd", "problem_key": p.key(),
         "params": p.params(), "input_kind": "normal", "seed": seed, "status": status,
         "reason": reason, "wall_s": wall_s}
    if timing is not None:
        c["timing"] = timing
    if throughput is not None:
        c["throughput"] = throughput
    if verification is not None:
        c["verification"] = verification
    c["resources"] = []
    return c


def make_report(environment, suite, cases):
    """reports/report_json.cc ToJson; missing environment keys get their empty values."""
    env = {"gpu_name": "", "synthetic": False, "sm_count": 0, "compute_capability": 0,
           "l2_bytes": 0, "memory_bytes": 0, "sm_clock_mhz": 0, "memory_clock_mhz": 0,
           "driver_version": "", "cuda_runtime_version": "",
           "peaks": {"matmul_fp16_tflops": 0, "matmul_bf16_tflops": 0, "copy_gbps": 0,
                     "matmul_source": "", "copy_source": ""},
           "git_revision": "", "host": "", "started_at": "", "finished_at": "",
           "flashscope_version": "torch_sdpa_report.py", "command_line": ""}
    env.update(environment)
    return {"schema": SCHEMA_NAME, "schema_version": SCHEMA_VERSION, "complete": True,
            "environment": env, "suite": suite, "cases": cases}


def write_report_atomic(path, report):
    """Writes to a temporary file beside `path`, then renames: a reader never sees half a file."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".torch_sdpa_", suffix=".json", dir=d)
    with os.fdopen(fd, "w") as f:
        json.dump(report, f, indent=1, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)


def format_table(cases):
    rows = [("kernel", "problem", "status", "median ms", "TFLOPS", "max err", "note")]
    for c in cases:
        t, th, v = c.get("timing"), c.get("throughput"), c.get("verification")
        rows.append((c["kernel_id"], c["problem_key"], c["status"],
                     "%.4f" % t["median_ms"] if t else "-",
                     "%.1f" % th["tflops"] if th else "-",
                     "%.2e" % v["stats"]["max_abs"] if v else "-",
                     (c["reason"] or "")[:60]))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip()
                     for r in rows)


def git_revision():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10, cwd=os.path.dirname(__file__)).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def self_test():
    """Checks what needs no GPU; returns the number of failures."""
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    check(Problem(4, 12, 2048, 2048, 64, "fp16", True).key()
          == "attention_fwd{B=4,H=12,S=2048,D=64,fp16,causal}", "square causal key")
    check(Problem(2, 3, 17, 128, 128, "bf16", False, True).key()
          == "attention_fwd{B=2,H=3,Sq=17,Sk=128,D=128,bf16,lse}", "Sq != Sk lse key")
    check(Problem(1, 32, 16384, 16384, 64, "bf16", True).flops() == 2.0 * 32 * 16384 ** 2 * 64,
          "causal flops halved")
    check(Problem(1, 1, 4, 4, 64, "fp16").minimal_bytes() == 2 * (2 * 256 + 2 * 256), "bytes")
    ladder = builtin_problems()
    check(len(ladder) == 25, "25 built-in problems, got %d" % len(ladder))
    check(ladder[1].key() == "attention_fwd{B=32,H=32,S=512,D=64,bf16}", "ladder order")
    suite_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "suites",
                              "ladder.json")
    if os.path.exists(suite_path):
        with open(suite_path) as f:
            from_suite = [p.key() for p in expand_suite(json.load(f))]
        check(sorted(from_suite) == sorted(p.key() for p in ladder),
              "suites/ladder.json expands to the built-in list")
    grid = expand_suite({"problems": [{"family": "attention_fwd", "axes": {
        "dtype": ["fp16", "bf16"], "causal": [False, True], "seq_q": 17, "seq_k": 128,
        "heads": 2}}, {"family": "gemm", "axes": {"size": 64}}]})
    check([p.key() for p in grid] == [
        "attention_fwd{B=1,H=2,Sq=17,Sk=128,D=64,fp16}",
        "attention_fwd{B=1,H=2,Sq=17,Sk=128,D=64,fp16,causal}",
        "attention_fwd{B=1,H=2,Sq=17,Sk=128,D=64,bf16}",
        "attention_fwd{B=1,H=2,Sq=17,Sk=128,D=64,bf16,causal}"], "grid order, gemm skipped")
    s = summarize([1.0, 2.0, 3.0, 4.0, 100.0], 0.005)
    check(s["median_ms"] == 3.0 and s["p10_ms"] == 1.4 and s["min_ms"] == 1.0, "summary")
    check(abs(s["noise"] - 1.2533141373155 * 1.4826 * 1.0 / math.sqrt(5) / 3.0) < 1e-12, "noise")
    p = ladder[0]
    t = timing_record([0.1, 0.1, 0.1], 5, 0.005, "noise_target")
    th = throughput_record(p, 0.1, {"matmul_fp16_tflops": 800.0})
    check(abs(th["tflops"] - p.flops() / 1e-4 / 1e12) < 1e-9, "tflops")
    v = verification_record("bf16", 1e-3, 1e-4, 1e-3, 100, 1e-3, 0)
    check(v["passed"], "verification passes within 2x naive")
    check(not verification_record("bf16", 1e-2, 1e-4, 1e-3, 100, 1e-3, 0)["passed"],
          "verification fails above 2x naive")
    cases = [case_record("torch.sdpa_flash", p, "passed", "", t, th, v, 1.0),
             case_record("torch.sdpa_cudnn", p, "skipped", "no kernel")]
    report = make_report({"gpu_name": "test"}, {"name": "t", "path": "", "description": "",
                                               "kernels_filter": "", "timing_policy": {}}, cases)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "sub", "r.json")
        write_report_atomic(path, report)
        with open(path) as f:
            back = json.load(f)
        check(os.listdir(os.path.dirname(path)) == ["r.json"], "no temporary file left")
    check(back["schema"] == "flashscope.report" and back["schema_version"] == 1, "schema")
    check(back["cases"][0]["problem_key"] == p.key(), "problem key round trip")
    check(back["cases"][0]["timing"]["median_ms"] == 0.1, "timing round trip")
    # The keys the C++ reader requires (reports/report_json.cc ReadCase / ReadTiming / ...).
    for key in ("kernel_id", "problem_key", "status"):
        check(key in back["cases"][1], "case key " + key)
    check("timing" not in back["cases"][1], "skipped case has no timing")
    for key in ("ran", "passed"):
        check(key in back["cases"][0]["verification"], "verification key " + key)
    check("name" in back["suite"] and "environment" in back, "suite and environment")
    table = format_table(cases)
    check("torch.sdpa_flash" in table and "skipped" in table, "table")
    for f in failures:
        print("self-test FAILED: " + f)
    print("self-test: %d checks failed" % len(failures) if failures else "self-test: all passed")
    return len(failures)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Example: python3 scripts/torch_sdpa_report.py --suite "
                                        "suites/ladder.json --out reports/runs/torch_sdpa.json")
    ap.add_argument("--suite", help="suite JSON whose attention problems to run (default: the "
                                    "built-in ladder list, same as suites/ladder.json)")
    ap.add_argument("--out", default="torch_sdpa_report.json", help="report path to write")
    ap.add_argument("--backends", default=",".join(BACKENDS),
                    help="comma list of %s" % ", ".join(BACKENDS))
    ap.add_argument("--min-samples", type=int, default=30)
    ap.add_argument("--max-samples", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--noise-target", type=float, default=0.005)
    ap.add_argument("--time-cap", type=float, default=2.0, help="seconds of sampling per case")
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--no-peaks", action="store_true", help="skip measuring the matmul and copy "
                    "peaks (then %% of peak is 0)")
    ap.add_argument("--limit", type=int, default=0, help="run only the first N problems")
    ap.add_argument("--self-test", action="store_true",
                    help="check report writing and problem keys without torch, then exit")
    args = ap.parse_args(argv)
    if args.self_test:
        return 1 if self_test() else 0
    for b in args.backends.split(","):
        if b not in BACKENDS:
            ap.error("unknown backend %r (expected %s)" % (b, ", ".join(BACKENDS)))
    try:
        import torch  # noqa: F401
    except ImportError:
        print("torch_sdpa_report: PyTorch is not installed here; run this on the GPU machine "
              "(or use --self-test)", file=sys.stderr)
        return 2
    from torch_sdpa_timing import run  # beside this file: the torch half
    return run(args, sys.modules[__name__])


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main())
