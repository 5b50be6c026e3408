"""The same kernel id as recorder.py, from another file: the other side of `flashscope ab`."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recorder  # noqa: E402  (a plain import: its kernels are not this module's)

import flashscope  # noqa: E402

__version__ = "twin-1"


@flashscope.kernel(id="pytest.attn_v1", family="attention_fwd", title="the twin of recorder's",
                   revision=4)
def attn_v1(q, k, v, out, lse, scale, causal):
    recorder.SIDE = "twin"
    recorder.record("pytest.attn_v1", [out])
