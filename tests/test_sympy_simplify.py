"""analyzer/sympy_simplify.py: sympy's results, without the work simplify repeats."""
from __future__ import annotations

import sympy as sp
from sympy.core.numbers import Integer
from sympy.core.sympify import _sympy_converter
from sympy.functions.elementary.miscellaneous import MinMaxBase

from cudalint.analyzer.sympy_simplify import simplify


def _window_ratio():
    # The shape of HeCBench lrn's counts: a window length Min(W, o + s/2 + 1/2) - Max(0, o - s/2
    # + 1/2), squared and expanded, over itself (the count of a loop nest over the window).
    s = sp.Symbol("size_", integer=True, positive=True)
    o = sp.Symbol("ow", integer=True, nonnegative=True)
    w = sp.Symbol("W_", integer=True, positive=True)
    span = sp.Min(w, o + s / 2 + sp.Rational(1, 2)) - sp.Max(0, o - s / 2 + sp.Rational(1, 2))
    return sp.expand(3 * span ** 2) / sp.expand(2 * span + 1)


def test_simplify_builds_min_max_once_and_converts_no_dict(monkeypatch):
    e = _window_ratio()
    built, converted = [], []
    find = MinMaxBase._find_localzeros.__func__
    monkeypatch.setattr(MinMaxBase, "_find_localzeros",
                        classmethod(lambda cls, values, **o: (built.append(1), find(cls, values, **o))[1]))
    to_dict = _sympy_converter[dict]
    monkeypatch.setitem(_sympy_converter, dict, lambda d: (converted.append(1), to_dict(d))[1])
    new, eq = MinMaxBase.__dict__["__new__"], Integer.__dict__["__eq__"]
    ours = simplify(e)
    # sympy alone rebuilds the two Min/Max 68 times (each time comparing their arguments) and
    # turns 6652 dicts into sympy Dicts (Factors' test `d in (None, S.One)`); here each distinct
    # Min/Max is built once, and Integer == dict answers without converting.
    assert len(built) <= 10 and converted == []
    # sympy's own methods are back, and its answer is the same
    assert MinMaxBase.__dict__["__new__"] is new and Integer.__dict__["__eq__"] is eq
    assert sp.srepr(ours) == sp.srepr(sp.simplify(e))
    assert len(built) > 20  # (sympy's own run, to show the counter counts)

