// The Python project of `flashscope new-plugin --python` (cli/new_plugin.h): CMakeLists.txt (the
// installed flashscope found, the module installed beside the plugins, its test registered), the
// module with one kernel written with torch in fp32, and its CPU test. torch is imported inside
// the kernel, so the module is listed and planned on a machine without torch.
#include "cli/new_plugin.h"

namespace flashscope::cli {
namespace {

constexpr char kCMakeLists[] = R"T(# @NAME@: a flashscope Python kernel module (README.md).
cmake_minimum_required(VERSION 3.25)
project(@NAME@ LANGUAGES NONE)

# Found through -DCMAKE_PREFIX_PATH=<the prefix flashscope was installed to>.
find_package(flashscope @VERSION@ CONFIG REQUIRED)
find_package(Python3 3.10 REQUIRED COMPONENTS Interpreter)

# `cmake --install` puts the module where flashscope looks up "@NAME@.py" by its bare name.
install(FILES @NAME@.py DESTINATION ${flashscope_PLUGIN_DIR})

# The module's declaration and supports() rules, and its output where torch is installed (ctest),
# with the `flashscope` Python package of the installed flashscope.
enable_testing()
add_test(NAME @NAME@_test
         COMMAND Python3::Interpreter ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_@NAME@.py)
set_tests_properties(@NAME@_test PROPERTIES
                     ENVIRONMENT "PYTHONPATH=${flashscope_PLUGIN_DIR}/python")
)T";

constexpr char kGemmModule[] =
    R"T("""@ID@: c = a @ b for flashscope (made by `flashscope new-plugin`; README.md).

flashscope calls the kernel with torch tensors over its own GPU buffers, on its stream: a [m, k]
and b [k, n] in the problem's dtype, c [m, n] float32 (every element must be written). torch is
imported inside the kernel, so that `flashscope list` shows the module where torch is missing.
"""
import flashscope

__version__ = "@NAME@ 0.1"  # recorded in every case, beside the python and torch versions

MAX_ELEMENTS = 1 << 31  # per matrix: beyond, one torch.matmul call is not what to measure


def supports(problem):
    """None when the kernel can run `problem`, else the reason in words."""
    if problem.dtype not in ("fp16", "bf16", "fp32"):
        return "dtype %s not supported: fp16, bf16 and fp32 only" % problem.dtype
    largest = max(problem.m * problem.k, problem.k * problem.n, problem.m * problem.n)
    if largest >= MAX_ELEMENTS:
        return "a matrix of %d elements: at most 2^31 - 1" % largest
    return None


@flashscope.kernel(id="@ID@", family="gemm", title="torch.matmul of the inputs widened to fp32",
                   changed="first revision", revision=1, supports=supports)
def gemm_v1(a, b, c):
    import torch

    torch.matmul(a.float(), b.float(), out=c)
)T";

constexpr char kAttentionModule[] =
    R"T("""@ID@: attention forward for flashscope (made by `flashscope new-plugin`; README.md).

flashscope calls the kernel with torch tensors over its own GPU buffers, on its stream: q, out
[B, H, Sq, D] and k, v [B, H, Sk, D] in the problem's dtype, lse None or float32 [B, H, Sq]
(natural log), scale = 1/sqrt(D), causal bottom-right aligned (query i sees keys
j <= i + Sk - Sq; a row that sees none writes zeros and an lse of -inf). Every element of out
(and lse) must be written. torch is imported inside the kernel, so that `flashscope list` shows
the module where torch is missing.
"""
import flashscope

__version__ = "@NAME@ 0.1"  # recorded in every case, beside the python and torch versions

MAX_SCORES = 1 << 28  # B·H·Sq·Sk scores in fp32 at once: 1 GiB


def supports(problem):
    """None when the kernel can run `problem`, else the reason in words."""
    if problem.dtype not in ("fp16", "bf16", "fp32"):
        return "dtype %s not supported: fp16, bf16 and fp32 only" % problem.dtype
    scores = problem.batch * problem.heads * problem.seq_q * problem.seq_k
    if scores > MAX_SCORES:
        return ("B·H·Sq·Sk = %d scores held at once in fp32: at most 2^28 (fewer or shorter "
                "sequences)" % scores)
    return None


@flashscope.kernel(id="@ID@", family="attention_fwd",
                   title="softmax(Q·Kᵀ·scale)·V with torch, scores in fp32",
                   changed="first revision", revision=1, supports=supports)
def attn_v1(q, k, v, out, lse, scale, causal):
    import torch

    scores = torch.matmul(q.float(), k.float().transpose(-1, -2)) * scale
    if causal:
        seq_q, seq_k = q.shape[-2], k.shape[-2]
        seen = torch.ones(seq_q, seq_k, dtype=torch.bool, device=q.device)
        scores = scores.masked_fill(~seen.tril(diagonal=seq_k - seq_q), float("-inf"))
    row_lse = torch.logsumexp(scores, dim=-1)  # -inf for a row that sees no key
    # exp(-inf - -inf) is NaN on such a row: its weights, and so its output, are zeros.
    weights = torch.nan_to_num(torch.exp(scores - row_lse.unsqueeze(-1)), nan=0.0)
    out.copy_(torch.matmul(weights, v.float()))
    if lse is not None:
        lse.copy_(row_lse)
)T";

constexpr char kTestHead[] =
    R"T("""CPU test of @NAME@.py (ctest): its declaration as flashscope reads it, its supports() rules
and, where torch is installed, its output against a float64 reference. Exit code 1 on a failure."""
import importlib.util
import math
import os
import sys

import flashscope  # the package of the installed flashscope (ctest sets PYTHONPATH)

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


spec = importlib.util.spec_from_file_location("@NAME@", os.path.join(HERE, "..", "@NAME@.py"))
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
declared = [k for k in flashscope._declared if k.declared_in == "@NAME@"]
check(len(declared) == 1, "declares one kernel (%d)" % len(declared))
kernel = declared[0]
check(kernel.id == "@ID@" and kernel.family == "@FAMILY@" and kernel.revision == 1,
      "its kernel is @ID@, @FAMILY@, revision 1")
check(isinstance(module.__version__, str) and module.__version__, "has a __version__")
)T";

constexpr char kGemmTest[] = R"T(
for dtype in ("fp16", "bf16", "fp32"):
    why = kernel.supports(flashscope.GemmProblem(1000, 17, 333, dtype))
    check(why is None, "supports %s 1000x17x333 (%s)" % (dtype, why))
why = kernel.supports(flashscope.GemmProblem(1 << 16, 1 << 16, 16, "fp16"))
check(why is not None and "2^31" in why, "refuses a matrix too large (%s)" % why)

try:
    import torch
except ImportError:
    torch = None
    print("skip the output check: torch is not installed for %s" % sys.executable)
if torch is not None:
    torch.manual_seed(0)
    for dtype in (torch.float16, torch.bfloat16, torch.float32):
        a = torch.randn(37, 19).to(dtype)
        b = torch.randn(19, 23).to(dtype)
        c = torch.full((37, 23), float("nan"), dtype=torch.float32)
        kernel.fn(a, b, c)
        want = a.double() @ b.double()
        err = (c.double() - want).abs().max().item()
        check(err < 1e-4, "c = a @ b in %s (max |error| %.2e against float64)" % (dtype, err))

sys.exit(1 if failures else 0)
)T";

constexpr char kAttentionTest[] = R"T(
for dtype in ("fp16", "bf16", "fp32"):
    problem = flashscope.AttentionProblem(2, 4, 17, 1000, 64, dtype, True, True)
    why = kernel.supports(problem)
    check(why is None, "supports %s (%s)" % (problem.key(), why))
why = kernel.supports(flashscope.AttentionProblem(8, 16, 8192, 8192, 64, "bf16", False, False))
check(why is not None and "2^28" in why, "refuses scores too many to hold (%s)" % why)


def reference(q, k, v, scale, causal):
    """Row by row in float64: the output and the log-sum-exp."""
    batch, heads, seq_q, dim = q.shape
    seq_k = k.shape[2]
    out = [[[[0.0] * dim for _ in range(seq_q)] for _ in range(heads)] for _ in range(batch)]
    lse = [[[-math.inf] * seq_q for _ in range(heads)] for _ in range(batch)]
    for b in range(batch):
        for h in range(heads):
            for i in range(seq_q):
                end = min(seq_k, i + seq_k - seq_q + 1) if causal else seq_k
                s = [scale * sum(float(q[b, h, i, d]) * float(k[b, h, j, d]) for d in range(dim))
                     for j in range(max(end, 0))]
                if not s:
                    continue
                top = max(s)
                total = sum(math.exp(x - top) for x in s)
                lse[b][h][i] = top + math.log(total)
                for d in range(dim):
                    out[b][h][i][d] = sum(math.exp(x - top) / total * float(v[b, h, j, d])
                                          for j, x in enumerate(s))
    return out, lse


try:
    import torch
except ImportError:
    torch = None
    print("skip the output check: torch is not installed for %s" % sys.executable)
if torch is not None:
    torch.manual_seed(0)
    for seq_q, seq_k, causal in ((5, 9, False), (5, 9, True), (9, 5, True)):
        q, k, v = (torch.randn(1, 2, n, 8, dtype=torch.float32) for n in (seq_q, seq_k, seq_k))
        out = torch.full_like(q, float("nan"))
        lse = torch.full((1, 2, seq_q), float("nan"))
        kernel.fn(q, k, v, out, lse, 1 / math.sqrt(8), causal)
        want_out, want_lse = reference(q, k, v, 1 / math.sqrt(8), causal)
        err = (out.double() - torch.tensor(want_out, dtype=torch.float64)).abs().max().item()
        same_lse = all(
            (math.isinf(w) and math.isinf(g) and g < 0) or abs(w - g) < 1e-4
            for w, g in zip(torch.tensor(want_lse).flatten().tolist(), lse.flatten().tolist()))
        check(err < 1e-4 and same_lse, "Sq=%d Sk=%d causal=%s: max |error| %.2e, lse %s"
              % (seq_q, seq_k, causal, err, "right" if same_lse else "WRONG"))

sys.exit(1 if failures else 0)
)T";

}  // namespace

std::vector<ProjectFile> PythonProjectTemplates(bool attention) {
  return {
      {"CMakeLists.txt", kCMakeLists},
      {"@NAME@.py", attention ? kAttentionModule : kGemmModule},
      {"tests/test_@NAME@.py", std::string(kTestHead) + (attention ? kAttentionTest : kGemmTest)}};
}

}  // namespace flashscope::cli
