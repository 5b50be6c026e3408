"""Declare Python kernels that flashscope verifies, times and profiles like its own.

    import flashscope

    @flashscope.kernel(id="my.attn_v1", family="attention_fwd", title="my attention, 128x64 tiles")
    def attn(q, k, v, out, lse, scale, causal):
        ...  # enqueue the work on torch.cuda.current_stream(); write every element of `out`
             # (and of `lse` when it is not None); no host synchronisation

then `flashscope run SUITE --plugin path/to/this_module.py`. Every call of the kernel gets torch
tensors over flashscope's own device buffers (no copy) and runs on flashscope's stream.

An attention_fwd kernel is called as fn(q, k, v, out, lse, scale, causal): q, out
[batch, heads, seq_q, head_dim]; k, v [batch, heads, seq_k, head_dim]; all contiguous in the
problem's dtype (torch.float16, torch.bfloat16 or torch.float32; for an "e4m3" problem q, k, v are
torch.float8_e4m3fn, unscaled, and out is torch.bfloat16); lse None or float32
[batch, heads, seq_q] (natural log); scale a float (1/sqrt(head_dim)); causal a bool (bottom-right
aligned: query i sees keys j <= i + seq_k - seq_q). A gemm kernel is called as fn(a, b, c):
a [m, k] and b [k, n] in the problem's dtype (torch.float8_e4m3fn for "e4m3"), c [m, n] float32,
c = a @ b. "e4m3" problems reach only kernels declared with accepts_fp8=True.

Nothing here imports torch: a module can be loaded (listed, planned) where torch is missing as long
as the module itself does not import it. docs/python.md is the guide.
"""

import sys
from typing import Callable, NamedTuple, Optional, Tuple

__all__ = ["kernel", "AttentionProblem", "GemmProblem", "ATTENTION_FWD", "GEMM"]

ATTENTION_FWD = "attention_fwd"
GEMM = "gemm"


class AttentionProblem(NamedTuple):
    """What supports() and prepare() are given for an attention_fwd kernel."""
    batch: int
    heads: int
    seq_q: int
    seq_k: int
    head_dim: int
    dtype: str  # "fp16", "bf16", "fp32" or "e4m3" (offered only with accepts_fp8; out is bf16)
    causal: bool
    want_lse: bool

    @property
    def family(self) -> str:
        return ATTENTION_FWD

    def key(self) -> str:
        """The problem's key as flashscope's reports write it."""
        k = "attention_fwd{B=%d,H=%d" % (self.batch, self.heads)
        k += (",S=%d" % self.seq_q if self.seq_q == self.seq_k
              else ",Sq=%d,Sk=%d" % (self.seq_q, self.seq_k))
        k += ",D=%d,%s" % (self.head_dim, self.dtype)
        return k + (",causal" if self.causal else "") + (",lse" if self.want_lse else "") + "}"


class GemmProblem(NamedTuple):
    """What supports() and prepare() are given for a gemm kernel."""
    m: int
    n: int
    k: int
    dtype: str  # of a and b ("fp16", "bf16", "fp32" or "e4m3"); c is always fp32

    @property
    def family(self) -> str:
        return GEMM

    def key(self) -> str:
        return "gemm{M=%d,N=%d,K=%d,%s}" % (self.m, self.n, self.k, self.dtype)


class KernelSpec(NamedTuple):
    """One declared kernel, as kernel() recorded it (checked when flashscope loads the module)."""
    fn: Callable
    id: str
    family: str
    title: str
    changed: str
    revision: int
    peer: bool
    not_idempotent: bool
    test_only: bool
    min_sm: int
    exact_sm: int
    tile: Tuple[int, int, int, int]
    supports: Optional[Callable]
    prepare: Optional[Callable]
    declared_in: str  # __name__ of the module whose code declared it
    accepts_fp8: bool = False  # FS_KERNEL_ACCEPTS_FP8: may be asked about "e4m3" problems


# Kernels declared since flashscope last collected them: flashscope empties this list, imports a
# module, and takes what that module's own code declared (not what modules it imports declare),
# so two modules with the same ids (the two sides of `flashscope ab`) stay two plugins.
_declared = []


def kernel(*, id: str, family: str, title: str, changed: str = "", revision: int = 1,
           peer: bool = False, not_idempotent: bool = False, test_only: bool = False,
           min_sm: int = 0, exact_sm: int = 0, tile: Tuple[int, int, int, int] = (1, 1, 1, 1),
           supports: Optional[Callable] = None, prepare: Optional[Callable] = None,
           accepts_fp8: bool = False):
    """Declares the decorated function a flashscope kernel; returns it unchanged.

    id: unique across a run, letters, digits and ._- ("triton.fa_fwd"); family: "attention_fwd" or
    "gemm"; title / changed: one line each (what it is; what this revision changed); revision:
    order in the ladder (peers use 1000+); peer: a library implementation (torch SDPA) rather than
    your rung; not_idempotent: relaunching changes the output or touches more than the outputs;
    test_only: a deliberately broken kernel for testing flashscope (id "test.…"); min_sm /
    exact_sm: compute capability × 10; tile: (block_m, block_n, block_k, threads), the work of one
    program (the error heatmap folds onto block_m rows); supports(problem): None when supported,
    else the reason in words; prepare(problem, *tensors): one-time work before anything is
    timed (default: one call of the kernel, which compiles and autotunes a Triton kernel);
    accepts_fp8: the kernel may be asked about "e4m3" (FP8 E4M3) problems (FS_KERNEL_ACCEPTS_FP8;
    supports() still decides which). Without it flashscope never offers the kernel one, so a
    supports() written for fp16/bf16/fp32 never sees "e4m3".
    """
    def register(fn):
        declared_in = sys._getframe(1).f_globals.get("__name__", "")
        _declared.append(KernelSpec(fn, id, family, title, changed, revision, peer,
                                    not_idempotent, test_only, min_sm, exact_sm, tuple(tile)
                                    if isinstance(tile, (list, tuple)) else tile, supports,
                                    prepare, declared_in, accepts_fp8))
        return fn
    return register
