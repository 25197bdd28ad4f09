"""The request model's aliasing questions scale with the distinct (array, offset) classes of a
kernel, not with the pairs of its accesses (analyzer/requests.py: _Index, _difference).

HeCBench sw4ck-cuda (a 3-D stencil: hundreds of loads of a few arrays through long index
products) spent a minute expanding ``offset_a - offset_b`` for every pair of offsets, and
secp256k1-cuda (7,737 accesses to local arrays) as long in list comprehensions over every
pair of accesses. The kernels below have the same shapes, small.
"""
from __future__ import annotations

import types

import sympy

from cudalint.analyzer import requests as R
from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file

# A 5x5x5 star stencil (with the centre) over arrays that may alias (no __restrict__).
_STENCIL = """
#define IX(a, b, c) ((a) + ni * ((b) + nj * (c)))
#define T(di, dj, dk) (u[IX(i + di, j + dj, k + dk)] * m[IX(i + di, j + dj, k + dk)])
__global__ void stencil(double *out, const double *u, const double *m, int ni, int nj, int nk)
{
    int i = 2 + blockIdx.x * blockDim.x + threadIdx.x;
    int j = 2 + blockIdx.y * blockDim.y + threadIdx.y;
    for (int k = 2; k < nk - 2; k++) {
        double r = T(0, 0, 0);
        r += T(1, 0, 0) + T(-1, 0, 0) + T(2, 0, 0) + T(-2, 0, 0);
        r += T(0, 1, 0) + T(0, -1, 0) + T(0, 2, 0) + T(0, -2, 0);
        r += T(0, 0, 1) + T(0, 0, -1) + T(0, 0, 2) + T(0, 0, -2);
        r += T(1, 1, 0) + T(-1, -1, 0) + T(1, 0, 1) + T(-1, 0, -1);
        out[IX(i, j, k)] = r;
        out[IX(i, j, k) + 1] += r * T(0, 1, 1);
    }
}

#define STEP(c) t[w] = t[w] * s[w] + (c); s[w] = s[w] ^ t[w] ^ q;
#define STEP8(c) STEP(c) STEP(c + 1) STEP(c + 2) STEP(c + 3) STEP(c + 4) STEP(c + 5) STEP(c + 6) STEP(c + 7)
__global__ void limbs(unsigned *out, const unsigned *in, int n)
{
    unsigned t[8], s[8];
    int g = blockIdx.x * blockDim.x + threadIdx.x, w = g & 7;
    for (int q = 0; q < 8; q++) { t[q] = in[8 * g + q]; s[q] = t[q] ^ q; }
    for (int q = 0; q < n; q++) {
        STEP8(0) STEP8(8) STEP8(16) STEP8(24) STEP8(32) STEP8(40) STEP8(48) STEP8(56)
    }
    for (int q = 0; q < 8; q++) out[8 * g + q] = t[q];
}
"""


def _classes(k) -> int:
    return len({(a.event.pointer.base and id(a.event.pointer.base), a.event.offset,
                 a.event.space) for a in k.accesses if a.event is not None})


def test_aliasing_work_follows_the_distinct_offsets(tmp_path, monkeypatch):
    src = tmp_path / "stencil.cu"
    src.write_text(_STENCIL)
    calls = {"expand": 0, "same": 0, "alias": 0}
    # sympy's expand as requests.py sees it, counted (a fresh memo: no earlier test's pairs)
    proxy = types.SimpleNamespace(**{n: getattr(sympy, n) for n in dir(sympy) if not n.startswith("__")})

    def expand(*a, **kw):
        calls["expand"] += 1
        return sympy.expand(*a, **kw)

    proxy.expand = expand
    monkeypatch.setattr(R, "sp", proxy)
    for memo in ("_DIFFERENCES", "_TERMS", "_TERM_IDS"):
        if hasattr(R, memo):
            monkeypatch.setattr(R, memo, {})
    same, alias, in_loop = R._same_address, R.may_alias, getattr(R, "_in_loop", None)

    def count_same(a, b):
        calls["same"] += 1
        return same(a, b)

    def count_alias(a, b):
        calls["alias"] += 1
        return alias(a, b)

    monkeypatch.setattr(R, "_same_address", count_same)
    monkeypatch.setattr(R, "may_alias", count_alias)
    if in_loop is not None:
        def count_in_loop(e, li):
            calls["in_loop"] = calls.get("in_loop", 0) + 1
            return in_loop(e, li)
        monkeypatch.setattr(R, "_in_loop", count_in_loop)
    fa = analyze_file(str(src), AnalysisOptions(arch="sm_90", block=(32, 4, 1), grid=(4, 4, 1),
                                                use_ptxas=False))
    assert fa.error is None, fa.error
    ks = {k.function.name: k for k in fa.kernels}
    st, lb = ks["stencil"], ks["limbs"]
    n_st = len([a for a in st.accesses if a.event is not None])
    n_lb = len([a for a in lb.accesses if a.event is not None])
    c_st, c_lb = _classes(st), _classes(lb)
    assert n_st >= 39 and n_lb >= 390 and c_lb <= 8  # the shapes meant above
    # one expansion per distinct offset, not one per pair of offsets (the old code: 158)
    assert calls["expand"] <= c_st + c_lb
    # the aliasing questions once per pair of classes, not per pair of accesses (the old code:
    # 83,874 _same_address, 188,032 may_alias, 249,216 _in_loop)
    assert sum(calls.values()) - calls["expand"] <= 2 * (c_st ** 2 + c_lb ** 2)

    # and the answers are the rules': in the first loop the load of `t[q]` reuses the value
    # just stored (`s` is another local array: it cannot alias); in the STEP loop the
    # address `[w]` does not change and only same-address stores of `t` and stores to `s`
    # are in it, so every access there is moved out of it (loads before, stores after)
    first = [a for a in lb.accesses if a.array == "t" and a.kind == "load"
             and "4*q" == str(a.event.offset) and a.event.loops]
    assert first and first[0].issued is False and "stored at line" in first[0].request_note
    step = [a for a in lb.accesses if a.array in ("t", "s") and a.event.loops
            and "Mod" in str(a.event.offset)]
    assert len(step) == 384
    assert all(a.issued and "once" in a.request_note and "the loop at line" in a.request_note
               for a in step)
    # the stencil: nothing is moved out of the k loop (every address changes with k) and no
    # address repeats within an iteration (the load of `out[IX(i, j, k) + 1]` follows a store
    # to another element): every access issues
    assert all(a.issued for a in st.accesses)
