"""Kernels for the bridge's CPU tests (python_bridge_test.cc): each records what it was given, one
JSON line per call, in $FLASHSCOPE_TEST_RECORD. Run with the stand-in torch (../fake_torch)."""
import json
import os

import torch

import flashscope

__version__ = "recorder-1"
SIDE = "recorder"


def describe(t):
    if t is None:
        return None
    return {"ptr": t.data_ptr(), "shape": list(t.shape), "dtype": repr(t.dtype),
            "strides": list(t.stride())}


def record(kernel, tensors, **extra):
    entry = {"side": SIDE, "kernel": kernel, "tensors": [describe(t) for t in tensors],
             "stream": torch.cuda.current_stream().cuda_stream}
    entry.update(extra)
    with open(os.environ["FLASHSCOPE_TEST_RECORD"], "a") as f:
        f.write(json.dumps(entry) + "\n")


def head_dim_64_only(problem):
    if problem.head_dim != 64:
        return "head_dim %d not supported: 64 only" % problem.head_dim
    return None


@flashscope.kernel(id="pytest.attn_v1", family="attention_fwd", title="records its arguments",
                   changed="the first revision", revision=3, min_sm=80, tile=(128, 64, 1, 128),
                   supports=head_dim_64_only)
def attn_v1(q, k, v, out, lse, scale, causal):
    record("pytest.attn_v1", [q, k, v, out, lse], scale=scale, causal=causal)


@flashscope.kernel(id="pytest.attn_peer", family="attention_fwd", title="a library peer",
                   revision=1000, peer=True, not_idempotent=True, exact_sm=90)
def attn_peer(q, k, v, out, lse, scale, causal):
    record("pytest.attn_peer", [q, k, v, out, lse], scale=scale, causal=causal)


@flashscope.kernel(id="pytest.attn_fp8", family="attention_fwd", title="an FP8 attention",
                   accepts_fp8=True)
def attn_fp8(q, k, v, out, lse, scale, causal):
    record("pytest.attn_fp8", [q, k, v, out, lse], scale=scale, causal=causal)


@flashscope.kernel(id="pytest.gemm_v1", family="gemm", title="records its arguments")
def gemm_v1(a, b, c):
    record("pytest.gemm_v1", [a, b, c])


def fails_here():
    raise ValueError("boom from the kernel")


@flashscope.kernel(id="pytest.raises", family="attention_fwd", title="raises when called")
def raises(q, k, v, out, lse, scale, causal):
    fails_here()


@flashscope.kernel(id="pytest.supports_raises", family="attention_fwd", title="supports() raises",
                   supports=lambda problem: problem.no_such_field)
def supports_raises(q, k, v, out, lse, scale, causal):
    pass


@flashscope.kernel(id="pytest.supports_int", family="attention_fwd", title="supports() says 42",
                   supports=lambda problem: 42)
def supports_int(q, k, v, out, lse, scale, causal):
    pass


def prepare_records(problem, q, k, v, out, lse, scale, causal):
    record("pytest.prepared", [out], key=problem.key())


@flashscope.kernel(id="pytest.own_prepare", family="attention_fwd", title="has its own prepare()",
                   prepare=prepare_records)
def own_prepare(q, k, v, out, lse, scale, causal):
    record("pytest.own_prepare", [out])


# flashscope-worker answers `flashscope list` on its standard output: what a module prints must
# go to standard error instead (python_cli_test.cc checks it).
print("recorder.py prints this while it is imported")
