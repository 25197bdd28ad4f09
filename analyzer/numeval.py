"""Numeric evaluation of sympy expressions with plain Python numbers, compiled.

:func:`lanes.num` evaluates one expression for many lanes, blocks and iterations. Walking the
sympy tree for each of them dominated the access analysis, so an expression seen more than
once is turned into one Python function (source generated from the tree, compiled once) that
does the same operations in the same order: the same int / Fraction / float results, and the
same cases without a number (a missing value, division by zero, an unmodelled function),
which raise and read as None. Expressions the generator does not handle keep the tree walk.
"""
from __future__ import annotations

import math
from fractions import Fraction

import sympy as sp

from . import symbolic_values as SV

ERRORS = (ZeroDivisionError, TypeError, ValueError, OverflowError)
_BITOPS = {SV.BitAnd: "&", SV.BitOr: "|", SV.BitXor: "^", SV.ShiftLeft: "<<", SV.ShiftRight: ">>"}
_RELOPS = ("<", "<=", ">", ">=", "==", "!=")
_MAX_CACHE = 50_000
_COMPILE_AFTER = 2  # uses: a one-off expression is cheaper to walk than to compile


_MISS = object()  # a symbol without a value in ``extra``


class Unknown(Exception):
    """Something in the expression has no value."""


def _unk():
    raise Unknown


def as_int(v) -> int:
    """A number that is an integer, as an int (C integer operators need one); else Unknown."""
    if isinstance(v, int):
        return v
    if isinstance(v, Fraction) and v.denominator == 1:
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    raise Unknown


def _pow(b, x):
    if isinstance(x, int):
        return b ** x if x >= 0 else Fraction(1, b ** -x) if isinstance(b, int) else b ** x
    return b ** x


def _safe(f, vals):
    try:
        return f(vals)
    except (Unknown,) + ERRORS:
        return None


def _and(fs, vals):
    unknown = False
    for f in fs:
        b = _safe(f, vals)
        if b is False:
            return False
        if b is None:
            unknown = True
    if unknown:
        raise Unknown
    return True


def _or(fs, vals):
    unknown = False
    for f in fs:
        b = _safe(f, vals)
        if b is True:
            return True
        if b is None:
            unknown = True
    if unknown:
        raise Unknown
    return False


class _Gen:
    """Python source for one expression; constants go to ``env``. ``lanes``: the source reads
    ``{**tv, **extra}`` without building it (one value per ``tv`` of a list)."""

    def __init__(self, lanes: bool = False):
        self.lanes = lanes
        self.prologue: list[str] = []  # lanes: each symbol's value in ``extra``, looked up once
        self._extra: dict = {}
        self._n = 0
        self.env = {"_MISS": _MISS, "_unk": _unk, "_as_int": as_int, "_pow": _pow, "_and": _and, "_or": _or,
                    "_sum": sum, "_min": min, "_max": max, "_abs": abs, "_floor": math.floor,
                    "_ceil": math.ceil}

    def const(self, v) -> str:
        name = f"_k{len(self.env)}"
        self.env[name] = v
        return name

    def num(self, e) -> str:
        if e.is_Integer:
            return f"({int(e)!r})"
        if e.is_Rational:
            return self.const(Fraction(int(e.p), int(e.q)))
        if e.is_Float:
            return self.const(float(e))
        if e.is_Symbol:
            if self.lanes:
                # ``extra`` is the same for every lane: one lookup per call, not per lane
                x = self._extra.get(e)
                if x is None:
                    k = self.const(e)
                    x = self._extra[e] = (f"_x{len(self._extra)}", k)
                    self.prologue.append(f"{x[0]} = extra.get({k}, _MISS)")
                get = f"({x[0]} if {x[0]} is not _MISS else tv.get({x[1]}))"
            else:
                get = f"vals.get({self.const(e)})"
            return f"(_t if (_t := {get}) is not None else _unk())"
        f = e.func
        a = e.args
        if f is sp.Add:
            return f"_sum(({''.join(self.num(x) + ', ' for x in a)}))"
        if f is sp.Mul:
            return "(1" + "".join(" * " + self.num(x) for x in a) + ")"
        if f is sp.Pow:
            return f"_pow({self.num(a[0])}, {self.num(a[1])})"
        if f is sp.floor or f is sp.ceiling:
            fast = self._int_round(a[0], f is sp.floor)
            if fast is not None:
                return fast
            return f"{'_floor' if f is sp.floor else '_ceil'}({self.num(a[0])})"
        if f is sp.Mod:
            return f"({self.num(a[0])} % {self.num(a[1])})"
        if f is sp.Min or f is sp.Max:
            return f"{'_min' if f is sp.Min else '_max'}(({''.join(self.num(x) + ', ' for x in a)}))"
        if f is sp.Abs:
            return f"_abs({self.num(a[0])})"
        if f is sp.Piecewise:
            out = "_unk()"
            for ex, c in reversed(a):
                out = f"({self.num(ex)} if {self.bool(c)} else {out})"
            return out
        op = _BITOPS.get(f)
        if op is not None:
            return f"(_as_int({self.num(a[0])}) {op} _as_int({self.num(a[1])}))"
        return "_unk()"

    def _int_round(self, e, down: bool):
        """``floor``/``ceiling`` of ``c0 + sum(c_i * x_i)`` with rational ``c_i``: when every
        ``x_i`` is an int, ``N // L`` over the common denominator ``L`` (exactly the floor of
        the Fraction sum, without building Fractions); otherwise the Fraction/float code as
        written, each ``x_i`` still evaluated once. None: not of that form."""
        terms = e.args if e.func is sp.Add else (e,)
        if not any(t.is_Rational and not t.is_Integer or t.func is sp.Mul and t.args[0].is_Rational
                   and not t.args[0].is_Integer for t in terms):
            return None  # no fraction to avoid
        coeffs, xs, const = [], [], sp.Integer(0)
        for t in terms:
            if t.is_Rational:
                const = t
            elif t.func is sp.Mul and len(t.args) == 2 and t.args[0].is_Rational and not t.args[1].is_number:
                coeffs.append(t.args[0])
                xs.append(t.args[1])
            elif not t.is_number and t.func is not sp.Mul:
                coeffs.append(sp.Integer(1))
                xs.append(t)
            else:
                return None
        if len(xs) + (const != 0) != len(terms) or not xs:
            return None
        den = int(sp.ilcm(*[int(c.q) for c in coeffs + [const]]))
        names = []
        for x in xs:
            self._n += 1
            names.append(f"_v{self._n}")
        # the slow path repeats the generated code of the term, reading the value of x_i
        slow_terms, it = [], iter(names)
        for t in terms:
            if t.is_Rational:
                slow_terms.append(self.num(t))
            elif t.func is sp.Mul:
                slow_terms.append(f"(1 * {self.num(t.args[0])} * {next(it)})")
            else:
                slow_terms.append(next(it))
        slow = f"_sum(({''.join(x + ', ' for x in slow_terms)}))" if e.func is sp.Add else slow_terms[0]
        fn = "_floor" if down else "_ceil"
        n = " + ".join([f"{int(c * den)} * {v}" for c, v in zip(coeffs, names)]
                       + ([str(int(const * den))] if const != 0 else []))
        fast = f"({n}) // {den}" if down else f"-((-({n})) // {den})"
        # every x_i is evaluated (in order, once) before either branch is taken
        bind = "".join(f"({v} := {self.num(x)}), " for v, x in zip(names, xs))
        ints = " and ".join(f"{v}.__class__ is int" for v in names)
        return f"(({fast}) if ({bind}) and {ints} else {fn}({slow}))"

    def bool(self, c) -> str:
        if c is sp.true or c is True:
            return "True"
        if c is sp.false or c is False:
            return "False"
        if isinstance(c, sp.core.relational.Relational):
            if c.rel_op in _RELOPS:
                return f"({self.num(c.lhs)} {c.rel_op} {self.num(c.rhs)})"
            return "_unk()"
        f = getattr(c, "func", None)
        if f is sp.And or f is sp.Or:
            fs = tuple(_build(x, "bool") for x in c.args)
            vals = "{**tv, **extra}" if self.lanes else "vals"
            return f"{'_and' if f is sp.And else '_or'}({self.const(fs)}, {vals})"
        if f is sp.Not:
            return f"(not {self.bool(c.args[0])})"
        return "_unk()"


def _build(e, kind: str, lanes: bool = False):
    g = _Gen(lanes)
    body = g.num(e) if kind == "num" else g.bool(e)
    if lanes:
        # ``_f`` for every lane at once; its ``safe`` twin, when some lane raises, gives that
        # lane None and goes on (what evaluating each lane alone gives, without a dict per lane)
        pro = "".join(f"    {line}\n" for line in g.prologue)
        g.env["_ERRS"] = (Unknown,) + ERRORS
        src = (f"def _f(tvs, extra):\n{pro}    return [{body} for tv in tvs]\n"
               f"def _g(tvs, extra):\n{pro}    out = []\n    for tv in tvs:\n        try:\n"
               f"            out.append({body})\n        except _ERRS:\n            out.append(None)\n"
               f"    return out\n")
    else:
        src = f"def _f(vals):\n    return {body}\n"
    exec(compile(src, "<numeval>", "exec"), g.env)
    if lanes:
        g.env["_f"].safe = g.env["_g"]
    return g.env["_f"]


_WALK = object()  # too deep for the compiler: walk the tree every time


class Compiled:
    """expression -> function(vals), compiled on its second use; None: walk the tree."""

    def __init__(self, kind: str, lanes: bool = False):
        self.kind = kind
        self.lanes = lanes
        self.cache: dict = {}

    def get(self, e):
        if not isinstance(e, sp.Basic):
            return None
        hit = self.cache.get(e)
        if hit is not None and hit.__class__ is not int:
            return None if hit is _WALK else hit
        n = (hit or 0) + 1
        if len(self.cache) >= _MAX_CACHE:
            self.cache.clear()
        if n < _COMPILE_AFTER:
            self.cache[e] = n
            return None
        try:
            hit = _build(e, self.kind, self.lanes)
        except (RecursionError, SyntaxError, MemoryError):
            hit = _WALK
        self.cache[e] = hit
        return None if hit is _WALK else hit
