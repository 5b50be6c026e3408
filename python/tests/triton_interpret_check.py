#!/usr/bin/env python3
"""Checks triton.fa_fwd's arithmetic on the CPU with Triton's interpreter (TRITON_INTERPRET=1),
against a float64 reference: causal and not, seq_q = seq_k and not (rows that see no key), lengths
that are not multiples of the blocks, the log-sum-exp. Needs triton and numpy, no torch and no GPU:
the interpreter reads host memory through data_ptr(), which a numpy array provides. fp16 only
(numpy has no bf16; bf16 is the same code with another element type). Not part of CI (CI has no
triton); run it after changing the kernel: python3 python/tests/triton_interpret_check.py
"""

import os
import sys

os.environ["TRITON_INTERPRET"] = "1"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, ".."), os.path.join(HERE, "..", "kernels")]

import numpy as np  # noqa: E402
import triton  # noqa: E402

import triton_fa_fwd  # noqa: E402


class HostTensor:
    """What Triton's interpreter needs of a tensor, over a contiguous numpy array."""

    def __init__(self, array):
        self.array = np.ascontiguousarray(array)
        self.dtype = self.array.dtype

    def data_ptr(self):
        return self.array.ctypes.data

    # The interpreter copies a tensor's storage to the host and back: it already is there.
    def untyped_storage(self):
        return self

    def cpu(self):
        return self

    def new_empty(self, *args, **kwargs):
        return self

    def set_(self, *args):
        return self

    def storage_offset(self):
        return 0

    def size(self):
        return self.array.shape

    def stride(self):
        return tuple(s // self.array.itemsize for s in self.array.strides)

    def copy_(self, other):
        return self


def reference(q, k, v, scale, causal):
    """float64 attention and natural-log log-sum-exp; rows that see no key: zeros and -inf."""
    s = np.einsum("bhqd,bhkd->bhqk", q.astype(np.float64), k.astype(np.float64)) * scale
    sq, sk = q.shape[2], k.shape[2]
    if causal:
        visible = np.arange(sk)[None, :] <= np.arange(sq)[:, None] + (sk - sq)
        s = np.where(visible, s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    m_safe = np.where(np.isfinite(m), m, 0.0)
    p = np.exp(s - m_safe)
    l = p.sum(axis=-1, keepdims=True)
    out = np.einsum("bhqk,bhkd->bhqd", p / np.where(l == 0, 1, l), v.astype(np.float64))
    lse = np.where(l[..., 0] == 0, -np.inf, np.log(np.where(l[..., 0] == 0, 1, l[..., 0])) +
                   m_safe[..., 0])
    return out, lse


def run_case(b, h, sq, sk, d, causal, block_m, block_n, rng):
    q, k, v = (rng.standard_normal((b, h, n, d)).astype(np.float16) for n in (sq, sk, sk))
    out = HostTensor(np.full((b, h, sq, d), np.nan, np.float16))  # poisoned: all must be written
    lse = HostTensor(np.full((b, h, sq), np.nan, np.float32))
    scale = 1.0 / np.sqrt(d)
    grid = (triton.cdiv(sq, block_m), b * h)
    triton_fa_fwd.fa_fwd_kernel[grid](HostTensor(q), HostTensor(k), HostTensor(v), out, lse,
                                      scale * triton_fa_fwd.LOG2E, sq, sk, HEAD_DIM=d,
                                      CAUSAL=causal, WRITE_LSE=True, BLOCK_M=block_m,
                                      BLOCK_N=block_n)
    want_out, want_lse = reference(q, k, v, scale, causal)
    got_out, got_lse = out.array.astype(np.float64), lse.array.astype(np.float64)
    err = np.abs(got_out - want_out).max() if got_out.size else 0.0
    lse_ok = np.allclose(got_lse, want_lse, atol=1e-3, rtol=1e-3, equal_nan=False) and np.array_equal(
        np.isneginf(got_lse), np.isneginf(want_lse))
    ok = np.isfinite(got_out).all() and err < 4e-3 and lse_ok
    print("%-6s B=%d H=%d Sq=%-3d Sk=%-3d D=%-3d causal=%-5s blocks %dx%d: max |err| %.2e, lse %s"
          % ("ok" if ok else "FAILED", b, h, sq, sk, d, causal, block_m, block_n, err,
             "ok" if lse_ok else "WRONG"))
    return ok


def main():
    rng = np.random.default_rng(7)
    cases = [(1, 2, 64, 64, 64, False, 32, 16), (1, 2, 64, 64, 64, True, 32, 16),
             (2, 1, 50, 70, 64, False, 32, 16), (2, 1, 50, 70, 64, True, 32, 16),
             (1, 1, 70, 40, 128, True, 16, 16),  # seq_q > seq_k: the first 30 rows see no key
             (1, 1, 33, 33, 128, True, 16, 32)]
    failed = sum(not run_case(*c, rng) for c in cases)
    print("%d passed, %d failed" % (len(cases) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
