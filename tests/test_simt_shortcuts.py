"""The per-thread interpreter's shortcuts (analyzer/simt*.py) give what the full computation
gives: provenance tokens hash exactly as the plain formula does, and selects and arithmetic
that skip values known for no thread agree with the element-wise result on every known entry.
The reference implementations below are the straightforward formulas the shortcuts replace."""
from __future__ import annotations

import numpy as np
import pytest

from cudalint.analyzer.simt import Simt
from cudalint.analyzer.simt_log import ThreadSet
from cudalint.analyzer.simt_values import Mask, V, mix_tokens

N = 64
_M1, _M2 = np.int64(-7046029254386353131), np.int64(0x2545F4914F6CDD1D)


def ref_part(x: V) -> np.ndarray:
    bits = x.v.view(np.int64) if x.is_float else x.v
    t = x.t if x.t is not None else np.zeros(len(x.v), dtype=np.int64)
    with np.errstate(over="ignore"):
        return np.where(x.k, bits * _M1 + 1, np.where(t != 0, t * _M2 + 2, 0))


def ref_mix(salt: int, *xs: V, force: bool = False):
    if not force and not any(x.t is not None for x in xs):
        return None
    h = np.full(len(xs[0].v), ((int(salt) & 0x7FFFFFFF) * 0x9E3779B1 + 7) & ((1 << 62) - 1), dtype=np.int64)
    ok = np.ones(len(h), dtype=bool)
    with np.errstate(over="ignore"):
        for x in xs:
            p = ref_part(x)
            ok &= p != 0
            h = (h ^ p) * _M1
            h ^= h >> 31
    return np.where(ok, (h & ((1 << 62) - 1)) | 1, 0).astype(np.int64)


def sim() -> Simt:
    return Simt(None, ThreadSet((N, 1, 1), None, [(0, 0, 0)]), {})


def rand_v(rng, s: Simt, kind: str) -> V:
    """kind: 'const' (every entry known, the shared mask), 'unknown' (the shared unknown),
    'mixed' (some entries known), 'sparse' (one or two known); floats or ints at random,
    tokens at random."""
    fl = rng.random() < 0.3
    v = rng.normal(size=N) * 1e3 if fl else rng.integers(-2**40, 2**40, size=N, dtype=np.int64)
    if kind == "const":
        k = s._known
    elif kind == "unknown":
        k = s._unknown_k
        v = s._fzeros if fl else s._zeros
    elif kind == "sparse":
        k = np.zeros(N, dtype=bool)
        k[rng.integers(0, N, size=rng.integers(1, 3))] = True
    else:
        k = rng.random(N) < 0.5
    t = None
    if kind != "const" and rng.random() < 0.5:
        t = np.where(rng.random(N) < 0.7, rng.integers(1, 50, size=N), 0).astype(np.int64)
    return V(v, k, t)


@pytest.mark.parametrize("seed", range(40))
def test_tokens_hash_as_the_formula(seed):
    rng = np.random.default_rng(seed)
    s = sim()
    xs = [rand_v(rng, s, rng.choice(["const", "unknown", "mixed"])) for _ in range(rng.integers(1, 4))]
    force = bool(rng.random() < 0.5)
    got = mix_tokens(7 + seed, *xs, force=force, known=s._known)
    want = ref_mix(7 + seed, *xs, force=force)
    if want is None:
        assert got is None
    else:
        assert got.dtype == np.int64 and np.array_equal(got, want)


def ref_where(m: Mask, new: V, old: V):
    """(values, known, tokens) of the plain per-thread select."""
    if new.v.dtype != old.v.dtype and (new.is_float or old.is_float):
        nv, ov = new.v.astype(np.float64), old.v.astype(np.float64)
    else:
        nv, ov = new.v, old.v
    v = np.where(m.must, nv, ov)
    k = np.where(m.must, new.k, old.k)
    unsure = m.may & ~m.must
    k = k & (~unsure | (new.k & old.k & (nv == ov)))
    t = None
    if new.t is not None or old.t is not None:
        z = np.zeros(N, dtype=np.int64)
        nt, ot = (new.t if new.t is not None else z), (old.t if old.t is not None else z)
        t = np.where(unsure & (nt != ot), 0, np.where(m.must, nt, ot))
    return v, k, t


@pytest.mark.parametrize("seed", range(100))
def test_select_agrees_on_known_entries(seed):
    rng = np.random.default_rng(100 + seed)
    s = sim()
    kinds = ["const", "unknown", "mixed", "sparse"]
    new = rand_v(rng, s, rng.choice(kinds))
    old = rand_v(rng, s, rng.choice(kinds))
    if rng.random() < 0.3:
        must = s._known if rng.random() < 0.5 else np.ones(N, dtype=bool)
        may = must
    else:
        must = rng.random(N) < 0.4
        may = must | (rng.random(N) < 0.3)
    m = Mask(must, may)
    got = s._where(m, new, old)
    v, k, t = ref_where(m, new, old)
    assert np.array_equal(got.k, k)
    assert got.v.dtype.kind == v.dtype.kind
    assert np.array_equal(got.v[k], v[k])
    if t is None or not (t != 0).any():
        assert got.t is None or not (got.t != 0).any()
    else:
        assert np.array_equal(got.t, t)


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "%", "<", "==", "<<", ">>", "&", "|", "^"])
@pytest.mark.parametrize("seed", range(8))
def test_arithmetic_with_an_unknown_operand(op, seed):
    """An operand known for no thread: nothing of the result is known, and the result has the
    kind (float or integer) the element-wise computation gives."""
    rng = np.random.default_rng(200 + seed)
    s = sim()
    a = rand_v(rng, s, "mixed")
    b = s.unknown() if seed % 2 else s._unknown_of(True)
    for x, y in ((a, b), (b, a)):
        got = s._arith(op, x, y)
        full = s._arith_values(op, V(x.v, x.k.copy()), V(y.v, y.k.copy()))  # not the shared mask
        assert not got.k.any() and not full.k.any()
        assert got.v.dtype.kind == full.v.dtype.kind
