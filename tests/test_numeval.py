"""The compiled evaluation of ``lanes.num``/``num_bool`` (analyzer/numeval.py) gives what the
tree walk gives: the same numbers and types, and None in the same cases."""
from fractions import Fraction

import sympy as sp

from cudalint.analyzer import lanes, numeval
from cudalint.analyzer.symbolic_values import BitAnd, MemLoad, ShiftLeft

x, y, k = sp.symbols("x y k", integer=True)


def both(e, vals, kind="num"):
    """(compiled result, walked result); None for 'no value'."""
    f = numeval._build(e, kind)
    walk = lanes._num if kind == "num" else lanes._bool
    out = []
    for fn in (lambda: f(vals), lambda: walk(e, vals)):
        try:
            out.append(fn())
        except (lanes._Unknown, ZeroDivisionError, TypeError, ValueError, OverflowError):
            out.append(None)
    return out


def test_local_memory_address():
    # word 7 of a lane-5 frame: floor(7/4)*128 + 4*5 + 7 mod 4 = 128 + 20 + 3
    e = sp.floor(x / 4) * 128 + 4 * y + sp.Mod(x, 4)
    assert both(e, {x: 7, y: 5}) == [151, 151]


def test_rational_and_float_keep_their_types():
    r = both(x / 3, {x: 2})
    assert r == [Fraction(2, 3)] * 2 and all(type(v) is Fraction for v in r)
    f = both(sp.Float(0.5) * x, {x: 3})
    assert f == [1.5, 1.5] and all(type(v) is float for v in f)


def test_no_value_cases():
    assert both(x + y, {x: 1}) == [None, None]  # y unknown
    assert both(x + y, {x: 1, y: None}) == [None, None]
    assert both(sp.floor(x / y), {x: 1, y: 0}) == [None, None]  # division by zero
    assert both(MemLoad(sp.Symbol("a"), x) + 1, {x: 1}) == [None, None]  # read at run time
    assert both(ShiftLeft(x, y), {x: 1, y: -1}) == [None, None]  # negative shift


def test_piecewise_only_evaluates_the_branch_taken():
    e = sp.Piecewise((x, y < 4), (k, True))
    assert both(e, {x: 10, y: 1}) == [10, 10]  # k has no value but is not needed
    assert both(e, {x: 10, y: 5}) == [None, None]
    assert both(e, {x: 10, y: 5, k: 3}) == [3, 3]


def test_conditions():
    c = sp.And(x < 4, sp.Eq(BitAnd(y, 3), 1))
    assert both(c, {x: 1, y: 5}, "bool") == [True, True]
    assert both(c, {x: 9}, "bool") == [False, False]  # false whatever y is
    assert both(c, {x: 1}, "bool") == [None, None]  # depends on y
    assert both(sp.Or(x < 4, y < 0), {x: 1}, "bool") == [True, True]
    assert both(sp.Not(sp.Ne(x, 2)), {x: 2}, "bool") == [True, True]


def test_num_compiles_on_second_use():
    e = 3 * x + 2 * y + 1
    lanes._NUM.cache.pop(e, None)
    assert lanes.num(e, {x: 1, y: 2}) == 8  # walked
    assert lanes.num(e, {x: 2, y: 2}) == 11  # compiled
    assert callable(lanes._NUM.cache[e])
    assert lanes.num(e, {x: 2}) is None


def test_floor_of_a_rational_sum_in_integers():
    # floor/ceiling of c0 + sum(c_i * x_i) run as N // L when every x_i is an int (no
    # Fractions); any other value takes the written Fraction/float code: same value and type.
    t, i = sp.symbols("t i", integer=True)
    exprs = [sp.Max(0, sp.ceiling(-i / 4 - t / 1024) + 4), sp.floor(-t / 4),
             sp.ceiling(sp.Rational(3, 7) + t / 3 - 5 * i / 6), sp.floor(sp.floor(t / 2) / 3 + i)]
    # by hand: ceil(-5/4 - 1000/1024) = ceil(-2.226...) = -2, so max(0, 2) = 2
    assert both(exprs[0], {i: 5, t: 1000}) == [2, 2]
    assert both(exprs[1], {t: 7}) == [-2, -2]  # floor(-1.75)
    for e in exprs:
        for vals in ({t: 5, i: -3}, {t: 2 ** 70, i: 1}, {t: Fraction(3, 2), i: 2}, {t: 2.5, i: 1},
                     {t: True, i: 1}, {t: 4}):
            got = both(e, vals)
            assert got[0] == got[1] and type(got[0]) is type(got[1]), (e, vals, got)
            lane = numeval._build(e, "num", lanes=True)
            try:
                lv = lane([{t: vals[t]}], {s: v for s, v in vals.items() if s is not t})[0]
            except (lanes._Unknown, ZeroDivisionError, TypeError, ValueError, OverflowError):
                lv = None
            assert lv == got[1] and type(lv) is type(got[1]), (e, vals, lv)


def test_lanes_where_some_lanes_have_no_value():
    # lane 2 divides by zero, lane 3 lacks y, an Or is decided by x alone in lane 0: the
    # lane-by-lane twin of the compiled loop answers each lane as evaluating it alone does
    e = sp.floor(k / (x - 2)) + y
    c = sp.Or(x < 1, y > 3)
    tvs = [{x: 0, y: 1}, {x: 1, y: 5}, {x: 2, y: 0}, {x: 3}]
    extra = {k: 12}
    assert lanes.num_lanes(e, tvs, extra) == lanes.num_lanes(e, tvs, extra) == [-5, -7, None, None]
    assert lanes.num_bool_lanes(c, tvs, extra) == lanes.num_bool_lanes(c, tvs, extra) == [True, True, False, None]
    f = numeval._build(e, "num", lanes=True)
    assert f.safe(tvs, extra) == [lanes.num(e, {**tv, **extra}) for tv in tvs]
    g = numeval._build(c, "bool", lanes=True)
    assert g.safe(tvs, extra) == [lanes.num_bool(c, {**tv, **extra}) for tv in tvs]
