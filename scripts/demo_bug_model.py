#!/usr/bin/env python3
"""Predicts, without a GPU, what the demo suite's bug kernels do (docs/heatmaps.md).

A NumPy model of attn.a10_fa2's online softmax at D = 64 (causal, bottom-right aligned): key tiles
of 64, fp32 scores, running max in log2 units, P rounded to the input type for the P·V product,
O and l in fp32, O / l rounded to the input type at the end; then each kernels/demo/bug_kernels.cu
mistake planted the same way, and FlashAttention's rule (max |err| <= 2 x the naive same-precision
baseline's + floor, verify/tolerance.h) applied. The inputs are standard normals like the suite's
"normal" kind, but not the same numbers: the model predicts where the error is and how large it is,
not the report's digits. Needs numpy (pip install numpy); about a minute.

  scripts/demo_bug_model.py    the two demo problems, then fp16 Sq = Sk = 255 (not in the demo:
                               fp16 accumulation passes there), every bug on each
"""
import numpy as np

F32 = np.float32
BN, BM, WARP_ROWS = 64, 128, 32  # a10 at D = 64: Tile<128, 64, 2, 2>, 4 warps x 32 rows


def bf16(x):
    bits = np.asarray(x, dtype=F32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return np.where(np.isfinite(x), rounded.astype(np.uint32).view(F32), x)


def rounder(dtype):
    if dtype == "fp16":
        return lambda x: np.asarray(x, dtype=F32).astype(np.float16).astype(F32)
    return bf16


def visible(nq, nk, shift=0):  # query i sees keys j <= i + (nk - nq) + shift
    return np.arange(nk)[None, :] <= np.arange(nq)[:, None] + nk - nq + shift


def reference(q, k, v):
    s = q.astype(np.float64) @ k.T.astype(np.float64) / np.sqrt(q.shape[1])
    s = np.where(visible(len(q), len(k)), s, -np.inf)
    p = np.exp(s - s.max(1, keepdims=True))
    return (p / p.sum(1, keepdims=True)) @ v.astype(np.float64)


def baseline(q, k, v, rnd):  # verify/gpu_reference.h: S and P rounded, fp32 sums
    s = rnd((q @ k.T) * F32(1 / np.sqrt(q.shape[1])))
    s = np.where(visible(len(q), len(k)), s, -np.inf)
    p = np.exp(s - s.max(1, keepdims=True))
    return rnd(rnd(p / p.sum(1, keepdims=True)) @ v)


def swap_v_blocks(v_tile):  # K's ldmatrix lane map on V, dims 16..31 (D's second quarter)
    out = v_tile.copy()
    for c in range(0, len(v_tile), 16):
        blk = np.zeros((16, 16), F32)
        blk[: len(v_tile[c:c + 16])] = v_tile[c:c + 16, 16:32]
        new = blk.copy()
        new[8:16, 0:8], new[0:8, 8:16] = blk[0:8, 8:16], blk[8:16, 0:8]
        out[c:c + 16, 16:32] = new[: len(v_tile[c:c + 16])]
    return out


def kernel(q, k, v, rnd, bug=None):
    nq, d = q.shape
    nk = len(k)
    sl2 = F32(1 / np.sqrt(d) * 1.4426950408889634)
    scores = q @ k.T
    vis = visible(nq, nk, -1 if bug == "causal_diagonal" else 0)
    m = np.full((nq, 1), -np.inf, F32)
    l = np.zeros((nq, 1), F32)
    o = np.zeros((nq, d), F32)
    n_tiles = nk // BN if bug == "key_tile_floor" else (nk + BN - 1) // BN
    warp1 = ((np.arange(nq) % BM) // WARP_ROWS == 1)[:, None]
    for n0 in range(0, n_tiles * BN, BN):
        s = np.where(vis[:, n0:n0 + BN], scores[:, n0:n0 + BN], -np.inf).astype(F32)
        m_new = np.maximum(m, s.max(1, keepdims=True) * sl2)
        m_fin = np.where(np.isinf(m_new), 0, m_new).astype(F32)
        alpha = np.exp2(m - m_fin).astype(F32)
        m, l = m_new, l * alpha
        o = np.where(warp1, o, o * alpha) if bug == "stale_rescale" else o * alpha
        p = np.exp2(s * sl2 - m_fin).astype(F32)
        l = l + p.sum(1, keepdims=True)
        pv, vt = rnd(p), v[n0:n0 + BN]
        if bug == "ldmatrix_trans":
            vt = swap_v_blocks(vt)
        if bug == "fp16_accumulate":  # the accumulator rounded to fp16 after every k16 mma
            o = rnd(o)
            for c in range(0, pv.shape[1], 16):
                o = rnd(o + pv[:, c:c + 16] @ vt[c:c + 16])
        else:
            o = o + pv @ vt
    out = np.where(l > 0, o / np.where(l > 0, l, 1), 0)
    if bug == "grid_floor":
        out[(nq // BM) * BM:] = np.inf  # never written: the maps show these cells saturated
    return rnd(out)


def ranges(mask):
    idx, out = np.where(mask)[0], []
    for i in idx:
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return ",".join(f"{a}..{b}" for a, b in out) or "none"


def predict(dtype, nq, nk, heads=8, seed=18):
    rnd = rounder(dtype)
    rng = np.random.default_rng(seed)
    bugs = ["grid_floor", "key_tile_floor", "causal_diagonal", "stale_rescale", "ldmatrix_trans"]
    bugs += ["fp16_accumulate"] if dtype == "fp16" else []
    err = {b: [] for b in [None] + bugs}
    base = 0.0
    for _ in range(heads):
        q, k, v = (rnd(rng.standard_normal((n, 64))) for n in (nq, nk, nk))
        ref = reference(q, k, v)
        base = max(base, np.abs(baseline(q, k, v, rnd) - ref).max())
        for b in err:
            err[b].append(np.abs(kernel(q, k, v, rnd, b) - ref))
    limit = 2 * base + (1e-5 if dtype == "fp16" else 1e-4)
    print(f"\n{dtype} Sq={nq} Sk={nk}: baseline {base:.1e}, limit {limit:.1e}")
    for b, e in err.items():
        e = np.array(e)  # heads x rows x dims
        rows, dims = e.max(axis=(0, 2)), e.max(axis=(0, 1))
        fold = np.array([rows[r::BM].max() for r in range(BM)])
        finite = e[np.isfinite(e)].max()
        print(f"  {b or 'a10':16s} max {finite:.1e} ({'FAIL' if e.max() > limit else 'pass'});"
              f" rows > limit {ranges(rows > limit)}; dims {ranges(dims > limit)};"
              f" fold rows {ranges(fold > limit)}")
        print("    row max: " + " ".join(f"{r}:{rows[r]:.1e}" for r in
                                         (0, 1, 4, 8, 16, 32, 64, 127, 160, 192, 200, 254)))


if __name__ == "__main__":
    predict("bf16", 255, 255)
    predict("fp16", 255, 16383)
    predict("fp16", 255, 255)  # why fp16 accumulation needs the long problem: it passes here
