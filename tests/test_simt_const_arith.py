"""Arithmetic on two constants (a loop counter ``d++``, ``(M7W/NRX)*i``, the offset of a local
``score[dy][i]``) is computed once per run and gives the shared constant array back, so that
the counter stays a constant and everything it feeds is computed once too (HeCBench
match-cuda/main.cu, 65536 threads: every such operation was a pass over all threads); a
division of non-negative operands is one numpy floor division. The results are those of the
element-wise computation on ordinary arrays."""
from __future__ import annotations

import numpy as np
import pytest

from cudalint.analyzer import cint
from cudalint.analyzer.simt import Simt
from cudalint.analyzer.simt_log import ThreadSet
from cudalint.analyzer.simt_values import V

N = 64
OPS = ("+", "-", "*", "/", "%", "<", ">", "<=", ">=", "==", "!=", "<<", ">>", "&", "|", "^")


def sim() -> Simt:
    return Simt(None, ThreadSet((N, 1, 1), None, [(0, 0, 0)]), {})


def test_counter_stays_constant():
    s = sim()
    d = s.const(0)
    for _ in range(5):  # d++
        d = s._arith("+", d, s.const(1))
    assert d.v is s.const(5).v and d.k is s._known
    # the same operation again is not recomputed: the same arrays
    off = s._arith("*", d, s.const(16))
    assert off.v is s._arith("*", d, s.const(16)).v is s.const(80).v


@pytest.mark.parametrize("op", OPS)
def test_const_arith_matches_elementwise(op):
    rng = np.random.default_rng(OPS.index(op))
    s = sim()
    vals = [0, 1, -1, 3, -7, 62, 63, 2**31 + 5, -(2**40), 0.5, -2.25, 0.0]
    for _ in range(60):
        x, y = rng.choice(len(vals), 2)
        a, b = s.const(vals[x]), s.const(vals[y])
        got = s._arith(op, a, b)
        # the same inputs as fresh (non-shared) arrays take the element-wise path
        ref = s._arith(op, V(a.v.copy(), a.k.copy()), V(b.v.copy(), b.k.copy()))
        assert got.v.dtype == ref.v.dtype
        assert np.array_equal(got.k, ref.k)
        assert np.array_equal(got.v[ref.k], ref.v[ref.k])


def test_nonnegative_division_skips_sign_handling(monkeypatch):
    calls = []
    orig = cint.div_array
    monkeypatch.setattr(cint, "div_array", lambda a, b: calls.append(1) or orig(a, b))
    s = sim()
    tid = s.arr(np.arange(N))
    q = s._arith("/", s._arith("*", tid, s.const(128)), s.const(4))  # ty*NDIM/4
    assert not calls
    assert np.array_equal(q.v, np.arange(N) * 32)
    r = s._arith("%", tid, s.const(5))
    assert np.array_equal(r.v, np.arange(N) % 5)
    # a negative operand keeps C's truncation toward zero
    neg = s._arith("-", tid, s.const(5))
    q = s._arith("/", neg, s.const(2))
    assert calls
    assert list(q.v[:6]) == [-2, -2, -1, -1, 0, 0]
    r = s._arith("%", neg, s.const(2))
    assert list(r.v[:6]) == [-1, 0, -1, 0, -1, 0]


def test_tokens_with_a_constant_operand_as_mix_tokens():
    from cudalint.analyzer.simt_values import OP_SALT, mix_tokens
    rng = np.random.default_rng(5)
    s = sim()
    for _ in range(20):
        x = V(rng.integers(-100, 100, size=N), rng.random(N) < 0.5, rng.integers(0, 3, size=N) * 7)
        c = s.const(int(rng.integers(-9, 9)))
        for a, b in ((x, c), (c, x)):
            r = s._arith("+", a, b)
            assert np.array_equal(r.t, mix_tokens(OP_SALT["+"], a, b, known=s._known))
