"""Test only: the red team's Python cheat (issue 29, docs/trust.md's exploit table), never installed
as a kernel. A Python module is as hostile as a shared library: it runs in the worker's interpreter
beside flashscope's own package.

test.cheat_py_address_cache keys a cache on the buffers' addresses: it runs SDPA only for buffers
it has not seen or when the same buffers come twice in a row (what a profiler's replay passes look
like), and otherwise writes the cached answer into `out` with an elementwise kernel (a copy would
be a memcpy, which the streams check counts as no kernel) and pads the time with torch.cuda._sleep
to look like 600 TFLOP/s. With two input sets read in turn every answer it serves is right; with
fresh inputs in fixed buffers it never serves (every launch is a repeat); with fresh inputs and
the buffers rotated through slots drawn per launch (runner/slot_rotation.h), a slot comes back
after another one within a few launches, the answer served is stale, and the output check of that
launch finds it.

Run: flashscope run suites/testing/trust_python.json (FLASHSCOPE_PYTHON names a python3 with torch).
"""

import torch
import torch.nn.functional as F

import flashscope

# Cycles of torch.cuda._sleep per nanosecond: at least the fastest SM clock (1.98 GHz on an
# H100/H200), so that the padding is never shorter than meant.
_CYCLES_PER_NS = 2.0
_PADDED_FLOPS_PER_S = 600e12

_cache = {}
_last = [None]


def _supports(problem):
    if problem.want_lse:
        return "SDPA does not return the log-sum-exp"
    if problem.causal and problem.seq_q != problem.seq_k:
        return "SDPA's is_causal is top-left aligned: causal with seq_q == seq_k only"
    if problem.dtype not in ("fp16", "bf16"):
        return "fp16 and bf16 only"
    return None


@flashscope.kernel(id="test.cheat_py_address_cache", family="attention_fwd", revision=9401,
                   test_only=True, min_sm=80, supports=_supports,
                   title="Test only: SDPA behind a cache keyed on the buffers' addresses",
                   changed="SDPA for new buffers or a repeat; else the cached answer, padded")
def address_cache(q, k, v, out, lse, scale, causal):
    key = (q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), tuple(q.shape),
           tuple(k.shape), q.dtype, causal)
    repeat = key == _last[0]
    _last[0] = key
    cached = _cache.get(key)
    if cached is not None and not repeat:
        torch.add(cached, 0, out=out)
        b, h, sq, d = q.shape
        flops = 4.0 * b * h * sq * k.shape[2] * d
        torch.cuda._sleep(int(flops / _PADDED_FLOPS_PER_S * 1e9 * _CYCLES_PER_NS))
        return
    answer = F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
    out.copy_(answer)
    _cache[key] = answer
