"""The torch half of torch_sdpa_report.py: environment, peaks, timing and verification on the GPU.

Imported only where torch is installed; torch_sdpa_report.py holds everything that needs no torch
(problem keys, report writing, the self-test).
"""

import os
import socket
import statistics
import subprocess
import sys
import time
import warnings

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKEND_ENUM = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
                "efficient": SDPBackend.EFFICIENT_ATTENTION}
TORCH_DTYPE = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}
SLICE_ROWS = 64  # verification: this many first and last query rows ...
SLICE_HEADS = 2  # ... of this many heads of batch 0


def driver_version():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20).stdout.strip()
        return out.splitlines()[0] if out else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def median_ms(fn, reps):
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def measure_peaks():
    """Dense GEMM 8192³ per dtype (torch.matmul = cuBLAS, fp32 accumulate) and a 1 GiB copy."""
    peaks = {}
    n = 8192
    for name, dt in (("matmul_fp16_tflops", torch.float16), ("matmul_bf16_tflops", torch.bfloat16)):
        a = torch.randn(n, n, device="cuda", dtype=dt)
        b = torch.randn(n, n, device="cuda", dtype=dt)
        for _ in range(3):
            a @ b
        ms = median_ms(lambda: a @ b, 20)
        peaks[name] = 2.0 * n ** 3 / (ms * 1e-3) / 1e12
        del a, b
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    dst.copy_(src)
    ms = median_ms(lambda: dst.copy_(src), 20)
    peaks["copy_gbps"] = 2.0 * src.numel() / (ms * 1e-3) / 1e9
    peaks["matmul_source"] = "torch.matmul 8192x8192x8192, random data, median of 20 (hot)"
    peaks["copy_source"] = "torch copy_ of 1 GiB device to device, bytes read + written, median of 20"
    del src, dst
    torch.cuda.empty_cache()
    return peaks


def environment(peaks, argv):
    props = torch.cuda.get_device_properties(0)
    return {"gpu_name": props.name, "sm_count": props.multi_processor_count,
            "compute_capability": props.major * 10 + props.minor,
            "l2_bytes": int(getattr(props, "L2_cache_size", 0)),
            "memory_bytes": int(props.total_memory), "driver_version": driver_version(),
            "cuda_runtime_version": str(torch.version.cuda),
            "peaks": peaks, "host": socket.gethostname(),
            "flashscope_version": "torch_sdpa_report.py (torch %s, cuDNN %s)"
                                  % (torch.__version__, torch.backends.cudnn.version()),
            "command_line": " ".join(argv)}


def call_sdpa(p, q, k, v):
    if p.causal and p.seq_q != p.seq_k:
        # is_causal=True is top-left aligned in torch; the contract is bottom-right.
        from torch.nn.attention.bias import causal_lower_right
        return F.scaled_dot_product_attention(q, k, v,
                                              attn_mask=causal_lower_right(p.seq_q, p.seq_k))
    return F.scaled_dot_product_attention(q, k, v, is_causal=p.causal)


def slice_attention(p, qs, ks, vs, rows, compute_dtype):
    """Attention of the query rows `rows` (heads already sliced), computed in `compute_dtype`."""
    scale = 1.0 / (p.head_dim ** 0.5)
    s = (qs.to(compute_dtype) @ ks.to(compute_dtype).transpose(-1, -2)) * scale
    if p.causal:
        cols = torch.arange(p.seq_k, device=s.device)
        hidden = cols[None, :] > (rows[:, None] + (p.seq_k - p.seq_q))
        s = s.masked_fill(hidden, float("-inf"))
    w = torch.softmax(s, dim=-1).nan_to_num(0.0)  # a row with no visible key gives zeros
    return w @ vs.to(compute_dtype)


def verify(core, p, q, k, v, out):
    n = min(SLICE_ROWS, p.seq_q)
    rows = torch.unique(torch.cat([torch.arange(n), torch.arange(p.seq_q - n, p.seq_q)])).cuda()
    h = min(SLICE_HEADS, p.heads)
    qs, ks, vs = q[0, :h, rows], k[0, :h], v[0, :h]
    ref = slice_attention(p, qs, ks, vs, rows, torch.float32)
    naive = slice_attention(p, qs, ks, vs, rows, q.dtype).float()
    got = out[0, :h, rows].float()
    nonfinite = int((~torch.isfinite(got)).sum())
    diff = (got - ref).abs().nan_to_num(0.0)
    base = (naive - ref).abs().max().item()
    nrmse = (torch.linalg.vector_norm(got.nan_to_num(0.0) - ref)
             / torch.linalg.vector_norm(ref).clamp_min(1e-30)).item()
    return core.verification_record(p.dtype, diff.max().item(), diff.mean().item(), nrmse,
                                    got.numel(), base, nonfinite)


def first_line(e):
    return (str(e).strip().splitlines() or [type(e).__name__])[0]


def run_case(core, p, backend, args, flush, seed):
    t0 = time.time()
    kid = "torch.sdpa_" + backend
    if p.want_lse:
        return core.case_record(kid, p, "skipped", "torch's scaled_dot_product_attention does not "
                                "return the log-sum-exp", seed=seed)
    torch.manual_seed(seed)
    dt = TORCH_DTYPE[p.dtype]
    q = torch.randn(p.batch, p.heads, p.seq_q, p.head_dim, device="cuda", dtype=dt)
    k = torch.randn(p.batch, p.heads, p.seq_k, p.head_dim, device="cuda", dtype=dt)
    v = torch.randn(p.batch, p.heads, p.seq_k, p.head_dim, device="cuda", dtype=dt)
    with sdpa_kernel([BACKEND_ENUM[backend]]):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = call_sdpa(p, q, k, v)
                torch.cuda.synchronize()
            except RuntimeError as e:
                why = [str(w.message).strip().splitlines()[0] for w in caught][:3]
                return core.case_record(kid, p, "skipped", "; ".join([first_line(e)] + why),
                                        wall_s=time.time() - t0, seed=seed)
        verification = verify(core, p, q, k, v, out)
        try:
            for _ in range(args.warmup):
                call_sdpa(p, q, k, v)
            samples, start_s, stop = [], time.time(), "max_samples"
            while len(samples) < args.max_samples:
                flush.zero_()  # cold: the inputs are not in L2
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                call_sdpa(p, q, k, v)
                end.record()
                end.synchronize()
                samples.append(start.elapsed_time(end))
                if len(samples) >= args.min_samples:
                    if core.summarize(samples, args.noise_target)["converged"]:
                        stop = "noise_target"
                        break
                    if time.time() - start_s > args.time_cap:
                        stop = "time_cap"
                        break
        except RuntimeError as e:
            return core.case_record(kid, p, "error", first_line(e), verification=verification,
                                    wall_s=time.time() - t0, seed=seed)
    timing = core.timing_record(samples, args.warmup, args.noise_target, stop)
    throughput = core.throughput_record(p, timing["median_ms"], run_case.peaks)
    status = "passed" if verification["passed"] else "failed"
    return core.case_record(kid, p, status, "" if status == "passed" else verification["rule"],
                            timing, throughput, verification, time.time() - t0, seed)


def run(args, core):
    import json
    if args.suite:
        with open(args.suite) as f:
            suite_json = json.load(f)
        problems = core.expand_suite(suite_json)
        suite = {"name": suite_json.get("name", os.path.basename(args.suite)), "path": args.suite,
                 "description": suite_json.get("description", "")}
    else:
        problems = core.builtin_problems()
        suite = {"name": "torch_sdpa_builtin", "path": "",
                 "description": "the anchors table and the seeds' shape (built-in list)"}
    if args.limit:
        problems = problems[:args.limit]
    suite["kernels_filter"] = "torch.sdpa_*"
    suite["timing_policy"] = {"cold": True, "warmup": args.warmup,
                              "min_samples": args.min_samples, "max_samples": args.max_samples,
                              "noise_target": args.noise_target, "time_cap_s": args.time_cap}
    started = core.now_iso()
    peaks = {} if args.no_peaks else measure_peaks()
    run_case.peaks = peaks
    env = environment(peaks, sys.argv)
    env.update({"started_at": started, "git_revision": core.git_revision()})
    props = torch.cuda.get_device_properties(0)
    flush = torch.empty(2 * max(int(getattr(props, "L2_cache_size", 0)), 1 << 20),
                        dtype=torch.uint8, device="cuda")
    print("torch %s, %s, %d problems x %s" % (torch.__version__, props.name, len(problems),
                                              args.backends), flush=True)
    cases = []
    backends = args.backends.split(",")
    for i, p in enumerate(problems):
        for b in backends:
            c = run_case(core, p, b, args, flush, args.seed * 1000003 + i)
            cases.append(c)
            t = c.get("throughput")
            print("%-20s %-48s %-8s %s" % (c["kernel_id"], c["problem_key"], c["status"],
                                           "%.1f TFLOPS" % t["tflops"] if t else c["reason"][:80]),
                  flush=True)
            torch.cuda.empty_cache()
    env["finished_at"] = core.now_iso()
    report = core.make_report(env, suite, cases)
    core.write_report_atomic(args.out, report)
    print()
    print(core.format_table(cases))
    print("\nwrote %s (%d cases)" % (args.out, len(cases)))
    return 1 if any(c["status"] in ("failed", "error") for c in cases) else 0
