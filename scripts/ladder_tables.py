#!/usr/bin/env python3
"""Markdown tables of the attention and GEMM ladders from committed flashscope reports.

Every number is read from the reports given (nothing typed by hand), so docs/ladder.md and the
README can be regenerated after each run:

    scripts/ladder_tables.py LADDER_REPORT [--peers TORCH_REPORT] [--problem KEY ...]
    scripts/ladder_tables.py GEMM_LADDER_REPORT --gemm [--problem KEY ...]
                             [--vs PEER_ID]   (every problem x kernel, TFLOPS and x PEER_ID)
    scripts/ladder_tables.py REPORT --best [--summary-only] --vs PEER_ID[,PEER_ID...]
                             (per problem: the fastest of our kernels against the peer of its
                              family in the same report; then min and geometric mean by group)
"""
import argparse
import lzma
import math
import re
import sys

from report_file import load_report

HEADLINE = [
    "attention_fwd{B=4,H=16,S=4096,D=128,bf16}",
    "attention_fwd{B=4,H=32,S=4096,D=64,bf16}",
    "attention_fwd{B=4,H=12,S=2048,D=64,fp16,causal}",
]


def metric(case, name):
    for m in (case.get("profile") or {}).get("metrics", []):
        if m["name"] == name:
            return m["value"]
    return None


def revision(case):
    """The registry revision; reports older than the kernel_revision field: from the id (aNN_)."""
    if case.get("kernel_revision"):
        return case["kernel_revision"]
    m = re.match(r"^[a-z]+\.[a-z](\d+)_", case["kernel_id"])
    return int(m.group(1)) if m else 1000


def fmt(v, spec="{:.1f}"):
    return "–" if v is None else spec.format(v)


def rung_table(cases, key):
    rows = [c for c in cases if c["problem_key"] == key and c["status"] == "passed"]
    rows.sort(key=lambda c: (revision(c), c["kernel_id"]))
    out = [f"**{key}**", "",
           "| kernel | median ms | TFLOPS | × prev | % peak | tensor % | shared % | bank conflicts (ld+st) | XU % | occupancy % | regs | spill B |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    # "x prev" is against the last rung of a lower revision (the a11 variants all against a10).
    prev_rev, prev, cur_rev, cur = -1, None, -1, None
    for c in rows:
        t = c.get("throughput") or {}
        tf = t.get("tflops")
        rev = revision(c)
        if rev != cur_rev:
            prev_rev, prev, cur_rev = cur_rev, cur, rev
        step = (tf / prev) if (prev and tf and not c["kernel_id"].startswith("peer.")) else None
        conflicts = None
        ld, st = metric(c, "shared_bank_conflicts_ld"), metric(c, "shared_bank_conflicts_st")
        if ld is not None or st is not None:
            conflicts = (ld or 0) + (st or 0)
        res = c.get("resources") or [{}]
        regs = max((r.get("registers", 0) for r in res), default=None)
        spill = max((r.get("local_bytes", 0) for r in res), default=None)
        out.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            c["kernel_id"], fmt(c["timing"]["median_ms"], "{:.3f}"), fmt(tf), fmt(step, "{:.2f}"),
            fmt(t.get("pct_peak_flops")), fmt(metric(c, "tensor_pipe_pct")),
            fmt(metric(c, "shared_pct")), fmt(conflicts, "{:.3g}"), fmt(metric(c, "xu_pipe_pct")),
            fmt(metric(c, "achieved_occupancy")), regs if regs else "–",
            spill if spill is not None else "–"))
        if not c["kernel_id"].startswith("peer."):
            cur = tf
    return "\n".join(out)


GEMM_HEADLINE = [
    "gemm{M=4096,N=4096,K=4096,fp16}",
    "gemm{M=8192,N=8192,K=8192,bf16}",
]


def gemm_table(cases, dtype):
    """TFLOPS of every gemm kernel (rows, by id) on every `dtype` problem (columns), and the top
    rung's ratio to cuBLAS on the last row."""
    keys, kernels, tf = [], [], {}
    for c in cases:
        if c["family"] != "gemm" or not c["problem_key"].endswith("," + dtype + "}"):
            continue
        if c["problem_key"] not in keys:
            keys.append(c["problem_key"])
        if c["kernel_id"] not in kernels:
            kernels.append(c["kernel_id"])
        if c["status"] == "passed":
            tf[(c["kernel_id"], c["problem_key"])] = (c.get("throughput") or {}).get("tflops")
    kernels = [k for k in kernels if any(tf.get((k, p)) for p in keys)]
    kernels.sort(key=lambda k: (k.startswith("peer."), k))
    short = [re.sub(r"^gemm\{(.*)," + dtype + r"\}$", r"\1", k) for k in keys]
    out = [f"**gemm, {dtype} in, fp32 out** (TFLOPS)", "",
           "| kernel | " + " | ".join(short) + " |", "|---|" + "---:|" * len(keys)]
    for k in kernels:
        out.append(f"| `{k}` | " + " | ".join(fmt(tf.get((k, p))) for p in keys) + " |")
    peer = "peer.cublas_gemm"
    ours = [k for k in kernels if not k.startswith("peer.")]
    if ours:  # the top rung against the yardstick
        k = ours[-1]
        ratios = [tf[(k, p)] / tf[(peer, p)] if tf.get((k, p)) and tf.get((peer, p)) else None
                  for p in keys]
        out.append(f"| `{k}` / cuBLAS | " + " | ".join(fmt(r, "{:.3f}") for r in ratios) + " |")
    return "\n".join(out)


def peer_table(ladder, torch_cases):
    torch = {(c["kernel_id"], c["problem_key"]): c for c in torch_cases}
    keys = []
    for c in ladder:
        if c["kernel_id"] == "attn.a10_fa2" and c["problem_key"] not in keys:
            keys.append(c["problem_key"])

    def tf(kernel, key, source):
        c = source.get((kernel, key))
        return (c.get("throughput") or {}).get("tflops") if c and c["status"] == "passed" else None

    ours = {(c["kernel_id"], c["problem_key"]): c for c in ladder}
    out = ["| problem | a10_fa2 | a11 best | FA2 (torch flash) | a10 / FA2 | cuDNN (ours) | torch cuDNN |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for k in keys:
        a10 = tf("attn.a10_fa2", k, ours)
        a11 = max([v for v in (tf(i, k, ours) for i in ("attn.a11_fa4_cond_rescale",
                   "attn.a11_fa4_poly_exp", "attn.a11_fa4_softmax")) if v] or [0]) or None
        fa2 = tf("torch.sdpa_flash", k, torch)
        ratio = a10 / fa2 if a10 and fa2 else None
        out.append("| {} | {} | {} | {} | {} | {} | {} |".format(
            k, fmt(a10), fmt(a11), fmt(fa2), fmt(ratio, "{:.2f}"),
            fmt(tf("peer.cudnn_sdpa", k, ours)), fmt(tf("torch.sdpa_cudnn", k, torch))))
    return "\n".join(out)


def short_problem(key):
    """attention_fwd{B=4,H=16,S=4096,D=128,fp16,causal} -> 'D=128 S=4096 causal fp16' (bf16 and
    the batch/heads that 16k tokens per batch imply are left out: the README's headline table)."""
    m = re.match(r"^attention_fwd\{B=\d+,H=\d+,S=(\d+),D=(\d+),(\w+)(,causal)?\}$", key)
    if not m:
        return key
    seq, dim, dtype, causal = m.groups()
    return f"D={dim} S={seq}" + (" causal" if causal else "") + ("" if dtype == "bf16" else f" {dtype}")


def vs_peer_table(cases, peer, only=None, short=False):
    """TFLOPS of every passed case, problem by problem, each with its ratio to `peer` on the same
    problem in the same report; `only`: these kernels, in this order (the peer last)."""
    kernels, rows = [], {}
    for c in sorted(cases, key=lambda c: (revision(c), c["kernel_id"])):
        if c["status"] != "passed" or (only and c["kernel_id"] not in only + [peer]):
            continue
        if c["kernel_id"] not in kernels:
            kernels.append(c["kernel_id"])
        rows.setdefault(c["problem_key"], {})[c["kernel_id"]] = c["throughput"]["tflops"]
    if only:
        kernels = [k for k in only if k in kernels]
    kernels = [k for k in kernels if k != peer] + ([peer] if any(peer in r for r in rows.values()) else [])
    out = ["| problem | " + " | ".join(k.split(".", 1)[1] for k in kernels) + " |",
           "|---|" + "---:|" * len(kernels)]
    for key, row in rows.items():
        ref = row.get(peer)
        if only and ref is None:
            continue
        cells = []
        for k in kernels:
            v = row.get(k)
            if v is not None and ref and k != peer:
                cells.append(f"{v:.1f} ({v / ref:.2f})")
            else:
                cells.append(fmt(v))
        out.append(f"| {short_problem(key) if short else key} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def best_group(case):
    """The summary row a case counts in: attention by head dim and dtype, GEMM by dtype."""
    m = re.search(r"D=(\d+),(\w+)", case["problem_key"])
    if case["family"] == "attention_fwd" and m:
        return f"attention D={m.group(1)} {m.group(2)}"
    m = re.search(r",(\w+)\}$", case["problem_key"])
    return f"{case['family']} {m.group(1) if m else ''}".strip()


OUR_RUNGS = ("attn.", "gemm.")  # the ladders' ids; peer.*, torch.*, triton.* are not ours


def same_shape_in(key, dtype):
    """The problem key of the same shape in `dtype`: 'attention_fwd{...,D=128,e4m3}' ->
    '...,D=128,bf16}' (the dtype is the key's only element-type field)."""
    return re.sub(r",(fp32|fp16|bf16|e4m3)([,}])", lambda m: f",{dtype}{m.group(2)}", key, count=1)


def best_rows(cases, peers, peer_dtype=None):
    """(problem, family, best kernel id, its TFLOPS, peer id, peer TFLOPS) for every problem where
    one of `peers` passed and at least one of our rungs (OUR_RUNGS) passed, in report order.
    With `peer_dtype`, a problem is set against the peer's case of the same shape in that dtype
    (an FP8 rung against a BF16 library) and problems already in that dtype are left out."""
    tf, order, family = {}, [], {}
    for c in cases:
        if c["status"] != "passed":
            continue
        key = c["problem_key"]
        if key not in family:
            order.append(key)
            family[key] = c
        tf[(c["kernel_id"], key)] = c["throughput"]["tflops"]
    rows = []
    for key in order:
        peer_key = same_shape_in(key, peer_dtype) if peer_dtype else key
        if peer_dtype and peer_key == key:
            continue
        peer = next((p for p in peers if (p, peer_key) in tf), None)
        ours = [(v, k) for (k, pk), v in tf.items() if pk == key and k.startswith(OUR_RUNGS)]
        if peer is None or not ours:
            continue
        v, k = max(ours)
        rows.append((key, family[key], k, v, peer, tf[(peer, peer_key)]))
    return rows


def best_table(cases, peers, summary_only=False, peer_dtype=None):
    """The fastest of our kernels against the peer on every problem, and per group the count at or
    above 1.0x, the minimum ratio (with its problem) and the geometric mean of the ratios."""
    rows = best_rows(cases, peers, peer_dtype)
    out = []
    if not summary_only:
        out += ["| problem | best rung | TFLOPS | peer | peer TFLOPS | × peer |",
                "|---|---|---:|---|---:|---:|"]
        for key, _, k, v, peer, ref in rows:
            out.append(f"| {key} | {k.split('.', 1)[1]} | {v:.1f} | {peer.split('.', 1)[1]} | "
                       f"{ref:.1f} | {v / ref:.2f} |")
        out.append("")
    groups = {}
    for r in rows:
        groups.setdefault(best_group(r[1]), []).append(r)
    groups["all"] = rows
    out += ["| group | problems | ≥ 1.0× | min × peer | at | geometric mean × peer |",
            "|---|---:|---:|---:|---|---:|"]
    for name, rs in groups.items():
        if not rs:
            continue
        ratios = [(v / ref, key) for key, _, _, v, _, ref in rs]
        low = min(ratios)
        gmean = math.exp(sum(math.log(x) for x, _ in ratios) / len(ratios))
        at_least = sum(1 for x, _ in ratios if x >= 1.0)
        out.append(f"| {name} | {len(rs)} | {at_least} | {low[0]:.2f} | {low[1]} | {gmean:.3f} |")
    return "\n".join(out)


# The hardware metrics of the profile table: (column, metric name) from a report made with the
# metrics of suites/shapes_misses.json; "SM active" is sm__cycles_active / sm__cycles_elapsed.
PROFILE_COLUMNS = (("tensor pipe %", "tensor_pipe_pct"), ("exp unit (XU) %", "xu_pipe_pct"),
                   ("shared %", "shared_pct"), ("DRAM %", "dram_pct"))


def sm_active(case):
    active, elapsed = metric(case, "sm__cycles_active.avg"), metric(case, "sm__cycles_elapsed.avg")
    return active / elapsed if active is not None and elapsed else None


def profile_table(cases, peers, profiled_cases):
    """Every problem of `profiled_cases` (a report with hardware metrics) where the best of our
    rungs in `cases` is below the peer: the rung and its ratio from `cases`, then that rung's and
    the peer's metrics from the profiled run ('rung / peer'), so each miss stands beside the
    counters that say why."""
    profiled = {(c["kernel_id"], c["problem_key"]): c for c in profiled_cases
                if c["status"] == "passed"}
    out = ["| problem | best rung | × peer | SM active | " +
           " | ".join(name for name, _ in PROFILE_COLUMNS) + " |",
           "|---|---|---:|---:|" + "---:|" * len(PROFILE_COLUMNS)]
    for key, _, k, v, peer, ref in best_rows(cases, peers):
        if v / ref >= 1.0:
            continue
        ours, theirs, name = profiled.get((k, key)), profiled.get((peer, key)), k.split(".", 1)[1]
        if ours is None:  # the best rung was not profiled: the fastest one that was stands in
            ran = [c for (kid, pk), c in profiled.items() if pk == key and kid.startswith(OUR_RUNGS)]
            ours = max(ran, key=lambda c: c["throughput"]["tflops"], default=None)
            if ours is not None:
                name += f" (profiled: {ours['kernel_id'].split('.', 1)[1]})"
        if ours is None or theirs is None:
            continue
        cells = [f"{fmt(sm_active(ours), '{:.2f}')} / {fmt(sm_active(theirs), '{:.2f}')}"]
        cells += [f"{fmt(metric(ours, m))} / {fmt(metric(theirs, m))}" for _, m in PROFILE_COLUMNS]
        out.append(f"| {key} | {name} | {v / ref:.2f} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def update_between_markers(path, table, command, marker="best"):
    """Replaces what stands between the lines '<!-- MARKER table -->' and '<!-- /MARKER table -->'
    of `path` with `table` and the line naming the command that made it (the form
    scripts/tests/readme_tables_test.py checks)."""
    begin_marker, end_marker = f"<!-- {marker} table -->", f"<!-- /{marker} table -->"
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print(f"ladder_tables: --update {path}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    begin, end = text.find(begin_marker), text.find(end_marker)
    if begin < 0 or end < begin:
        print(f"ladder_tables: {path} has no '{begin_marker}' ... '{end_marker}' section to update; "
              "add the two marker lines where the table belongs", file=sys.stderr)
        sys.exit(2)
    body = f"\n(generated by `{command}`)\n\n{table}\n"
    text = text[:begin + len(begin_marker)] + body + text[end:]
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ladder")
    ap.add_argument("--peers", help="a report with the torch.sdpa_* peers from the same session "
                                    "(a run of suites/python_peers.json)")
    ap.add_argument("--problem", action="append", help="problem keys for rung tables")
    ap.add_argument("--gemm", action="store_true",
                    help="the GEMM ladder: a kernel x problem table per input type")
    ap.add_argument("--vs", help="a peer id: also print every problem x kernel against it")
    ap.add_argument("--only", help="with --vs: a comma list of kernel ids, the table's columns "
                                   "(problems the peer did not run are left out)")
    ap.add_argument("--short", action="store_true",
                    help="with --vs: problems named by D, S, causal and a non-bf16 dtype only")
    ap.add_argument("--rows-only", action="store_true",
                    help="print only the --vs table's data rows (what tests compare)")
    ap.add_argument("--best", action="store_true",
                    help="with --vs (a comma list of peers, one per family): per problem the "
                         "fastest of our kernels against the peer, then min and geometric mean")
    ap.add_argument("--summary-only", action="store_true",
                    help="with --best: only the summary by group")
    ap.add_argument("--update", metavar="FILE",
                    help="with --best: write the table into FILE between the lines '<!-- best "
                         "table -->' and '<!-- /best table -->', with the command that made it")
    ap.add_argument("--marker", default="best",
                    help="with --update: the marker name ('<!-- NAME table -->'), 'best' unless "
                         "given")
    ap.add_argument("--profile", metavar="REPORT",
                    help="with --best: instead of the ratios, the problems where our best rung is "
                         "below the peer with both kernels' hardware metrics from REPORT (a run "
                         "of suites/shapes_misses.json)")
    ap.add_argument("--peer-dtype", choices=("fp32", "fp16", "bf16", "e4m3"),
                    help="with --best: set each problem against the peer's case of the same shape "
                         "in this dtype (an FP8 rung against cuDNN in bf16); problems already in it "
                         "are left out")
    a = ap.parse_args()
    if a.peer_dtype and not a.best:
        ap.error("--peer-dtype changes the --best table: give --best too")
    if a.best and not a.vs:
        ap.error("--best needs --vs PEER_ID[,PEER_ID...] (e.g. peer.cudnn_sdpa,peer.cublas_gemm)")
    if a.profile and not a.best:
        ap.error("--profile replaces the --best table: give --best too")
    if a.update and not a.best:
        ap.error("--update writes the --best table: give --best too")
    try:
        ladder = load_report(a.ladder)
        torch = load_report(a.peers) if a.peers else {"cases": []}
        profiled = load_report(a.profile)["cases"] if a.profile else None
    except (OSError, ValueError, lzma.LZMAError) as e:
        sys.exit(f"ladder_tables: {e}")
    if a.best and profiled is not None:
        vs_table = profile_table(ladder["cases"], a.vs.split(","), profiled)
    elif a.best:
        vs_table = best_table(ladder["cases"], a.vs.split(","), a.summary_only, a.peer_dtype)
    else:
        vs_table = (vs_peer_table(ladder["cases"], a.vs, a.only.split(",") if a.only else None,
                                  a.short) if a.vs else None)
    if a.rows_only and vs_table:
        print("\n".join(r for r in vs_table.splitlines()
                        if r.startswith("| ") and not r.startswith(("| problem |", "| group |"))))
        return
    env = ladder["environment"]
    print(f"Source: `{a.ladder}` ({env['gpu_name']}, driver {env['driver_version']}, "
          f"revision {env.get('git_revision', '?')}, measured bf16 peak "
          f"{env['peaks']['matmul_bf16_tflops']:.0f} TFLOPS)" +
          (f" and `{a.peers}`." if a.peers else "."))
    print()
    if a.best:
        print(vs_table)
        if a.update:
            command = f"scripts/ladder_tables.py {a.ladder} --best" + \
                (" --summary-only" if a.summary_only else "") + \
                (f" --peer-dtype {a.peer_dtype}" if a.peer_dtype else "") + \
                (f" --profile {a.profile}" if a.profile else "") + f" --vs {a.vs}"
            update_between_markers(a.update, vs_table, command, a.marker)
        return
    if a.gemm:
        for dtype in ("fp16", "bf16"):
            print(gemm_table(ladder["cases"], dtype))
            print()
    for key in a.problem or (GEMM_HEADLINE if a.gemm else HEADLINE):
        print(rung_table(ladder["cases"], key))
        print()
    if a.peers:
        print(peer_table(ladder["cases"], torch["cases"]))
    if a.vs:
        print(vs_table)


if __name__ == "__main__":
    main()
