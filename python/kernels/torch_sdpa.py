"""PyTorch's scaled_dot_product_attention backends as flashscope peers: torch.sdpa_flash
(FlashAttention-2), torch.sdpa_cudnn (cuDNN's fused attention) and torch.sdpa_efficient (the
memory-efficient kernel), each pinned to its backend with torch.nn.attention.sdpa_kernel, so a
backend that cannot run a problem fails instead of falling back to another.

They go through the same harness as every kernel (poisoned outputs, the FP32 reference, cold
timing, CUPTI metrics), which replaces scripts/torch_sdpa_report.py's own timing and slice check.
What they pay that a C++ peer does not: SDPA returns a new tensor, so the output is copied into
flashscope's buffer (a device copy inside the timed span, docs/python.md says how much), and each
launch goes through Python and torch's dispatcher on the host.

For E4M3 problems (Q, K, V in FP8, O in BF16) torch's SDPA has no FP8 path; what PyTorch offers
such inputs is to upcast them (exact: every E4M3 number is a BF16 one) and run its BF16 attention:
torch.sdpa_flash_e4m3_upcast and torch.sdpa_cudnn_e4m3_upcast do that, the upcast inside the
timed launch, as the baseline an FP8 kernel must beat to be worth having (suites/fp8_python.json).

Run: flashscope run suites/python_peers.json (FLASHSCOPE_PYTHON names a python3 with torch).
"""

import warnings

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import flashscope

BACKENDS = (
    ("flash", SDPBackend.FLASH_ATTENTION, "PyTorch SDPA, flash backend (FlashAttention-2)",
     ("fp16", "bf16")),
    ("cudnn", SDPBackend.CUDNN_ATTENTION, "PyTorch SDPA, cuDNN fused attention backend",
     ("fp16", "bf16")),
    ("efficient", SDPBackend.EFFICIENT_ATTENTION,
     "PyTorch SDPA, memory-efficient backend (xFormers' kernel)", ("fp16", "bf16", "fp32")),
)


def _supports_for(name, dtypes):
    def supports(problem):
        if problem.want_lse:
            return ("torch's scaled_dot_product_attention does not return the log-sum-exp")
        if problem.causal and problem.seq_q != problem.seq_k:
            return ("causal with seq_q != seq_k: torch's is_causal is top-left aligned, and its "
                    "bottom-right bias chooses its own backend")
        if problem.dtype not in dtypes:
            return "dtype %s not supported by the %s backend (%s)" % (problem.dtype, name,
                                                                       ", ".join(dtypes))
        return None
    return supports


def _failure(backend, q, k, v, causal, scale, error):
    """torch's reasons for refusing (its warnings), added to the error."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with sdpa_kernel([backend]):
                F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
        except RuntimeError:
            pass
    why = "; ".join(str(w.message).strip().splitlines()[0] for w in caught[:4])
    return RuntimeError("%s%s" % (error, (" (torch says: %s)" % why) if why else ""))


def _peer(name, backend, title, dtypes):
    def sdpa(q, k, v, out, lse, scale, causal):
        try:
            with sdpa_kernel([backend]):
                out.copy_(F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale))
        except RuntimeError as e:
            raise _failure(backend, q, k, v, causal, scale, e) from None

    sdpa.__name__ = "sdpa_" + name
    flashscope.kernel(id="torch.sdpa_" + name, family="attention_fwd", revision=1000, peer=True,
                      title=title, changed="torch " + torch.__version__, min_sm=80,
                      supports=_supports_for(name, dtypes))(sdpa)


for _name, _backend, _title, _dtypes in BACKENDS:
    _peer(_name, _backend, _title, _dtypes)


def _e4m3_supports_for(name):
    """E4M3 only, then what the BF16 backend it upcasts to supports."""
    bf16 = _supports_for(name, ("bf16",))

    def supports(problem):
        if problem.dtype != "e4m3":
            return ("the E4M3 upcast peer takes e4m3 only (torch.sdpa_%s runs %s itself)" %
                    (name, problem.dtype))
        return bf16(problem._replace(dtype="bf16"))
    return supports


def _e4m3_upcast_peer(name, backend, title):
    def sdpa(q, k, v, out, lse, scale, causal):
        # Exact: E4M3's 3 mantissa bits and exponents 2^-9..2^8 all fit BF16.
        qb, kb, vb = (t.to(torch.bfloat16) for t in (q, k, v))
        try:
            with sdpa_kernel([backend]):
                out.copy_(F.scaled_dot_product_attention(qb, kb, vb, is_causal=causal, scale=scale))
        except RuntimeError as e:
            raise _failure(backend, qb, kb, vb, causal, scale, e) from None

    sdpa.__name__ = "sdpa_%s_e4m3_upcast" % name
    flashscope.kernel(id="torch.sdpa_%s_e4m3_upcast" % name, family="attention_fwd",
                      revision=1000, peer=True, accepts_fp8=True,
                      title=title + ", on E4M3 inputs upcast to BF16 (exact) inside the launch",
                      changed="torch " + torch.__version__, min_sm=80,
                      supports=_e4m3_supports_for(name))(sdpa)


for _name, _backend, _title, _dtypes in BACKENDS:
    if "bf16" in _dtypes and _name != "efficient":
        _e4m3_upcast_peer(_name, _backend, _title)
