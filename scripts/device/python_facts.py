#!/usr/bin/env python3
"""What docs/python.md's cost table leaves open, measured on the GPU machine with its python3:
the import times of torch and triton and torch's CUDA start, whether the interpreter has the shared
libpython the bridge loads, and what the torch.sdpa_* peers pay for copying SDPA's new output into
flashscope's buffer (SDPA alone against SDPA + copy_, bf16, hot, 20 calls between two events).
Step `python-facts` of scripts/device/session.sh; prints one line per fact."""

import os
import sys
import sysconfig
import time

t0 = time.perf_counter()
import torch  # noqa: E402
t_torch = time.perf_counter() - t0
t0 = time.perf_counter()
torch.zeros(1, device="cuda")
torch.cuda.synchronize()
t_cuda = time.perf_counter() - t0
t0 = time.perf_counter()
import triton  # noqa: E402
t_triton = time.perf_counter() - t0
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

v = sysconfig.get_config_var
libs = [os.path.join(d, n) for d in (v("LIBDIR"), os.path.join(v("LIBDIR") or "", v("MULTIARCH") or ""))
        for n in (v("INSTSONAME"), v("LDLIBRARY")) if d and n and ".so" in n]
print("python %s at %s; shared libpython: %s" % (sys.version.split()[0], sys.executable,
      ", ".join(p for p in libs if os.path.isfile(p)) or "none of " + ", ".join(libs)))
print("import torch %.2f s, first CUDA tensor %.2f s, import triton %.2f s"
      % (t_torch, t_cuda, t_triton))
print("torch %s (CUDA %s, cuDNN %s), triton %s, numpy %s, %s"
      % (torch.__version__, torch.version.cuda, torch.backends.cudnn.version(), triton.__version__,
         getattr(sys.modules.get("numpy"), "__version__", "not imported"),
         torch.cuda.get_device_name(0)))


def per_call_ms(fn, calls=20):
    fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(calls):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / calls


BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}
for b, h, s, d, causal in [(4, 16, 4096, 128, False), (4, 16, 4096, 128, True),
                           (8, 32, 2048, 64, False), (2, 3, 256, 64, False)]:
    q, k, w = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    out = torch.empty_like(q)
    for name, backend in BACKENDS.items():
        try:
            with sdpa_kernel([backend]):
                alone = per_call_ms(lambda: F.scaled_dot_product_attention(q, k, w, is_causal=causal))
                copied = per_call_ms(lambda: out.copy_(
                    F.scaled_dot_product_attention(q, k, w, is_causal=causal)))
            print("sdpa %-9s B=%d H=%d S=%d D=%d causal=%d: %.4f ms alone, %.4f ms with the copy "
                  "(+%.1f %%)" % (name, b, h, s, d, causal, alone, copied,
                                  100.0 * (copied / alone - 1.0)))
        except RuntimeError as e:
            print("sdpa %-9s B=%d H=%d S=%d D=%d causal=%d: %s"
                  % (name, b, h, s, d, causal, str(e).splitlines()[0]))
