"""The calls libflashscope_python.so makes per case: supports(), prepare() and launch().

flashscope's buffers become torch tensors without a copy (__cuda_array_interface__; bf16 through
an int16 view and e4m3 through a uint8 view, which torch reinterprets in place), cached per buffer set (a launch is given one of
the problem's rotated buffer slots; with a warm-up launch each is seen before any timed one) so that a
timed launch pays only the Python call; the kernel runs under torch.cuda.stream(ExternalStream(flashscope's
stream)), so torch and Triton enqueue on the stream flashscope times.
"""

import sys
import time

import flashscope

DTYPE_NAMES = {1: "fp32", 2: "fp16", 3: "bf16", 4: "e4m3"}  # fs_dtype
# fs_dtype name -> (__cuda_array_interface__ typestr, torch dtype to view it as, or None)
TYPESTR = {"fp32": ("<f4", None), "fp16": ("<f2", None), "bf16": ("<i2", "bfloat16"),
           "e4m3": ("|u1", "float8_e4m3fn")}
# An attention problem's O: its input dtype, except e4m3, whose O is bf16 (AttentionOutputDType).
OUTPUT_DTYPE = {"e4m3": "bf16"}
# Buffer sets kept per kernel: one per buffer slot of the problem in flight (the trust checks
# rotate launches through 2 slots, runner/slot_rotation.h) is enough; 8 also keeps earlier ones.
BOUND_PER_KERNEL = 8
_streams = {}  # stream handle -> torch.cuda.ExternalStream


def problem_of(family, batch, heads, seq_q, seq_k, head_dim, dtype, causal, want_lse,
               m, n, k, gemm_dtype):
    if family == 1:
        return flashscope.AttentionProblem(batch, heads, seq_q, seq_k, head_dim,
                                           DTYPE_NAMES.get(dtype, "?"), bool(causal),
                                           bool(want_lse))
    return flashscope.GemmProblem(m, n, k, DTYPE_NAMES.get(gemm_dtype, "?"))


def supports(kernel, problem_args):
    """None when the kernel runs the problem, else the reason (what the C side returns)."""
    if kernel.spec.supports is None:
        return None
    reason = kernel.spec.supports(problem_of(*problem_args))
    if reason is not None and not isinstance(reason, str):
        raise TypeError("supports() of %s must return None or a reason (a string), returned %r"
                        % (kernel.id, reason))
    return reason or None


class _DeviceBuffer:
    """A device pointer described by the CUDA Array Interface (version 3)."""
    __slots__ = ("__cuda_array_interface__",)

    def __init__(self, pointer, shape, typestr):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr,
                                         "data": (pointer, False), "strides": None,
                                         "stream": None, "version": 3}


def device_tensor(torch, pointer, shape, dtype_name):
    """A torch tensor over `pointer` (no copy), row-major `shape`, elements of `dtype_name`."""
    if pointer == 0:
        return None
    typestr, view = TYPESTR[dtype_name]
    tensor = torch.as_tensor(_DeviceBuffer(pointer, shape, typestr))
    if view is not None:
        tensor = tensor.view(getattr(torch, view))
    if tensor.data_ptr() != pointer:
        raise RuntimeError("torch copied flashscope's buffer at 0x%x instead of wrapping it"
                           % pointer)
    return tensor


def tensors_of(torch, p, q, k, v, o, lse, scale, a, b, c):
    """The kernel's arguments over the buffers, in the order its family calls it with."""
    if isinstance(p, flashscope.AttentionProblem):
        bhq = (p.batch, p.heads, p.seq_q)
        bhk = (p.batch, p.heads, p.seq_k)
        return (device_tensor(torch, q, bhq + (p.head_dim,), p.dtype),
                device_tensor(torch, k, bhk + (p.head_dim,), p.dtype),
                device_tensor(torch, v, bhk + (p.head_dim,), p.dtype),
                device_tensor(torch, o, bhq + (p.head_dim,), OUTPUT_DTYPE.get(p.dtype, p.dtype)),
                device_tensor(torch, lse, bhq, "fp32") if p.want_lse else None,
                float(scale), p.causal)
    return (device_tensor(torch, a, (p.m, p.k), p.dtype),
            device_tensor(torch, b, (p.k, p.n), p.dtype),
            device_tensor(torch, c, (p.m, p.n), "fp32"))


def stream_of(torch, handle):
    stream = _streams.get(handle)
    if stream is None:
        stream = (torch.cuda.ExternalStream(handle) if handle else torch.cuda.default_stream())
        _streams[handle] = stream
    return stream


class BoundCall:
    """A kernel bound to one problem's buffers and stream: what every launch of a case repeats."""

    def __init__(self, kernel, problem_args, buffer_args):
        import torch
        self.torch = torch
        self.problem = problem_of(*problem_args)
        self.args = tensors_of(torch, self.problem, *buffer_args[:9])
        self.stream = stream_of(torch, buffer_args[9])
        self.fn = kernel.spec.fn

    def __call__(self):
        with self.torch.cuda.stream(self.stream):
            self.fn(*self.args)


def bound(kernel, problem_args, buffer_args):
    key = (problem_args, buffer_args)
    call = kernel.bound.get(key)
    if call is None:
        if len(kernel.bound) >= BOUND_PER_KERNEL:
            kernel.bound.pop(next(iter(kernel.bound)))  # the oldest: its buffers are gone
        call = kernel.bound[key] = BoundCall(kernel, problem_args, buffer_args)
    return call


def _autotuned(module):
    """What Triton's autotuners in the module chose last (after a call: for this problem)."""
    out = []
    for name, value in sorted(vars(module).items()):
        best = getattr(value, "best_config", None) if type(value).__name__ == "Autotuner" else None
        if best is not None:
            tuned = getattr(value, "bench_time", None)
            out.append("%s autotuned%s: %s" % (name, " in %.2f s" % tuned if tuned else "", best))
    return "; ".join(out)


def prepare(kernel, problem_args, buffer_args):
    """One-time work before anything is timed: the module's prepare(problem, *args), or a first
    call (Triton compiles and autotunes, cuDNN builds its plan), then a second call to show what
    is left per call. Both synchronised. Returns the note for the case's report."""
    call = bound(kernel, problem_args, buffer_args)
    t0 = time.perf_counter()
    with call.torch.cuda.stream(call.stream):
        if kernel.spec.prepare is not None:
            kernel.spec.prepare(call.problem, *call.args)
        else:
            call.fn(*call.args)
    call.stream.synchronize()
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    call()
    call.stream.synchronize()
    again = time.perf_counter() - t0
    kernel.prepared.add(problem_args)
    tuned = _autotuned(kernel.module)
    return ("%s %.3f s, then %.3f ms a synchronised call%s"
            % ("prepare()" if kernel.spec.prepare else "first call", first, again * 1e3,
               "; " + tuned if tuned else ""))


def launch(kernel, problem_args, buffer_args):
    """One launch; the first of a problem in this process prepares it (when flashscope did not
    call prepare() itself) and says so on stderr: that launch is the verified one, never timed."""
    if problem_args not in kernel.prepared:
        note = prepare(kernel, problem_args, buffer_args)
        print("flashscope-python: %s %s prepared at its first launch: %s"
              % (kernel.id, problem_of(*problem_args).key(), note), file=sys.stderr, flush=True)
    bound(kernel, problem_args, buffer_args)()
