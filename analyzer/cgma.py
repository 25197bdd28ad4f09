"""CGMA, roofline and tiling opportunities of a kernel (seed sections 5.1, 5.3, 5.4).

Two facts of every kernel, which the pipeline stores in ``KernelFacts``:

``cgma`` (:func:`analyze_cgma` -> :class:`CgmaFacts`)
    ``flops`` and ``global_accesses`` of one thread (counted by :mod:`.flops`: loads + stores +
    atomics), and their ratio:

    - ``kernel``: all flops over all global accesses, a number when every trip count is known
      or bound (``--param``, launch-site constants), else the expression as a string, with
      ``limit``, its value as the symbolic sizes grow (all together);
    - ``hot_loop``: for the outermost loop whose body does global accesses (the one with the
      most accesses in total when several), the flops of one iteration of its body, inner loops
      included, over the global accesses of that iteration (``hot_loop_info`` says which loop).

    The seed's CGMA counts every access to global memory, loads and stores, and so does
    ``kernel``. The ground truth of ``shared/groundtruth`` measures flops per *load*
    instruction (Nsight Compute: FP flops, FFMA = 2, over 32 x warp-level global loads); the
    same ratio is given as ``kernel_loads_only`` (and ``limit_loads_only``) for comparison. The
    two differ only by the stores: for the naive matrix product ``kernel = 2n/(2n+1)`` (limit
    1) while ``kernel_loads_only = 1`` as measured; for the 16x16 tiled one ``kernel =
    2n/(n/8+1)`` (limit 16), ``kernel_loads_only = 16``; the hot loops do no stores, so
    ``hot_loop`` is 1 and 16 either way.

    ``tiling`` lists the global arrays read inside a loop at an index that does not depend on
    one of the block's thread dimensions (extent > 1): the threads of a block along that
    dimension re-read the same element, ``reuse`` times (the block extent). ``cgma_if_tiled``
    is the CGMA of the loop if that array were staged through shared memory (its loads divided
    by ``reuse``), ``cgma_all_tiled`` if every such array of the loop were.

``roofline`` (:func:`kernel_roofline` -> :class:`RooflineFacts`)
    The kernel placed on a device's roofline (:func:`cudalint.analyzer.roofline.roofline`):
    ``device``, ``balance_cgma`` (peak FLOPS / words per second), ``bound``,
    ``attainable_gflops`` = min(peak, CGMA x bandwidth / bytes per word), ``peak_gflops``,
    ``fraction_of_peak``. The device is ``--device NAME`` (figures overridden by
    ``--peak-gflops``/``--bandwidth-gbs`` when given too), else a custom device from
    ``--peak-gflops`` and ``--bandwidth-gbs``, else the preset for ``--arch``
    (:func:`~cudalint.analyzer.devices.default_device_for_arch`); ``device_source`` says
    which. The CGMA is ``cgma.kernel`` when it is a number, else its limit. The word is the
    average size of the kernel's global accesses (4 for float, 8 for double or float2, 16 for
    float4) and the precision is fp64 when most flops are in double precision.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Optional

import sympy as sp

from . import constprop, ir
from .target import DEFAULT_ARCH
from .texture_counts import texel_map
from .flop_counts import simplified
from .flops import (Counts, GlobalAccess, KernelCounts, LoopCount, count_function, kept_loads, probe,
                    to_number)

__all__ = [
    "CgmaFacts",
    "RooflineFacts",
    "TilingCandidate",
    "analyze_cgma",
    "kernel_roofline",
    "resolve_roofline_device",
    "thread_dependence",
]

_DIMS = ("x", "y", "z")


# --------------------------------------------------------------------------- numbers


def _limit(x) -> Optional[float]:
    """``x`` as every free symbol grows together (None when it does not converge to a
    finite number; ``math.inf`` when it diverges to +oo)."""
    n = to_number(x)
    if n is not None:
        return float(n)
    return _symbolic_limit(sp.sympify(x))


@functools.lru_cache(maxsize=2048)
def _symbolic_limit(x) -> Optional[float]:
    """The limit of :func:`_limit` (memoised: sp.limit is slow and the ratios recur)."""
    t = sp.Symbol("_t", positive=True)
    try:
        y = x.subs({s: t for s in x.free_symbols})
        if y == 0 and sp.expand(x.as_numer_denom()[0]) != 0:
            # A count that vanishes when every size is the same (the n - m trips of
            # `for (j = m; j < n; j++)`, SHOC QTC's `j = last_index_checked; j < max_degree`):
            # its limit depends on how the sizes grow apart, so there is no one number.
            return None
        lim = _rational_limit(y, t)
        if lim is None:
            lim = sp.limit(y, t, sp.oo)
    except Exception:  # sympy can fail on exotic expressions
        return None
    if lim is sp.oo:
        return math.inf
    if lim.is_number and lim.is_finite:
        return float(lim)
    return None


def _vanishes_together(x, keep=frozenset()) -> bool:
    """Whether the numerator of ``x`` is 0 when every size (every free symbol but ``keep``) is
    the same, and not otherwise."""
    if not isinstance(x, sp.Basic) or not x.free_symbols:
        return False
    n = sp.expand(x.as_numer_denom()[0])
    t = sp.Symbol("_t", positive=True)
    return n != 0 and sp.expand(n.subs({s: t for s in n.free_symbols - set(keep)})) == 0


def _rational_limit(y, t):
    """The limit of ``y`` as ``t`` -> oo when ``y`` is a ratio of polynomials in ``t`` with
    rational coefficients (most count ratios): from the degrees and leading coefficients, as
    ``sp.limit`` finds it, in a fraction of its time. None for anything else (then ask sympy)."""
    n, d = y.as_numer_denom()
    try:
        pn, pd = sp.Poly(n, t), sp.Poly(d, t)
    except sp.PolynomialError:
        return None
    if pn.is_zero or pd.is_zero or pn.domain not in (sp.ZZ, sp.QQ) or pd.domain not in (sp.ZZ, sp.QQ):
        return None
    q = pn.LC() / pd.LC()
    if pn.degree() > pd.degree():
        return sp.oo if q > 0 else -sp.oo
    if pn.degree() < pd.degree():
        return sp.Integer(0)
    return sp.Rational(q)




def _ratio_limit(num, den) -> Optional[float]:
    """``_limit(_ratio(num, den))`` for a ratio of which only the limit is reported (the loads-only
    and hot-loop expressions, the bytes per access), without simplifying the ratio when num and
    den become polynomials with rational coefficients once every size is the same ``t``: the
    limit then follows from their degrees and leading coefficients (:func:`_rational_limit`),
    and is the one of the simplified ratio, the same function of ``t``. ``sp.simplify`` of a
    ratio of counts with hundreds of terms (HeCBench qtclustering, lrn) takes seconds; the
    substitution a fraction of that. Anything else (a numerator vanishing for equal sizes, Min
    or Max that do not resolve, floats) takes the old route."""
    if den == 0:
        return None
    if isinstance(num, sp.Basic) or isinstance(den, sp.Basic):
        found, lim = _diagonal_limit(sp.sympify(num), sp.sympify(den))
        if found:
            return lim
    r = _ratio(num, den)
    return _limit(r) if r is not None else None


def _diagonal_limit(num, den) -> tuple[bool, Optional[float]]:
    """(True, the limit of num/den as every free symbol grows together) when both are nonzero
    polynomials in that common size with rational coefficients, as :func:`_symbolic_limit`
    gives it (None for -oo); (False, None) for anything else."""
    t = sp.Symbol("_t", positive=True)
    same = {s: t for s in num.free_symbols | den.free_symbols}
    try:
        lim = _rational_limit(num.xreplace(same) / den.xreplace(same), t)
    except Exception:  # sympy can fail on exotic expressions: the old route decides
        return False, None
    if lim is None:
        return False, None
    if lim is sp.oo:
        return True, math.inf
    return True, (float(lim) if lim.is_Rational else None)  # -oo: no finite limit


_TRIP_DESCRIPTION = "trip count of the loop at line "


def _unknown_trips(counts: KernelCounts, hot: Optional[LoopCount]) -> dict:
    """{symbol: loop line} of the trip counts the count could not express (``trips(line 57)``:
    a loop that is not a counted for-loop, or whose bound cannot be written), except the hot
    loop's own: that one grows with the problem like a size, the others are constants of
    unknown value."""
    own = hot.trip.free_symbols if hot is not None and isinstance(hot.trip, sp.Basic) else set()
    out = {}
    for name, desc in counts.symbols.items():
        if desc.startswith(_TRIP_DESCRIPTION):
            sym = sp.Symbol(name, positive=True)
            if sym not in own:
                out[sym] = int(desc[len(_TRIP_DESCRIPTION):].split()[0])
    return out


def _limit_holding(x, fixed) -> Optional[float]:
    """:func:`_limit` of ``x`` with the symbols ``fixed`` held: they are constants of unknown
    value (trip counts cudalint cannot count), not sizes that grow. None when the limit depends
    on them: 2048 flops per ``trips(line 57) + trips(line 67)`` accesses is no number, and
    letting the trip counts grow like sizes would make it 0."""
    x = sp.sympify(x)
    held = x.free_symbols & set(fixed)
    if not held:
        return _limit(x)
    t = sp.Symbol("_t", positive=True)
    y = x.subs({s: t for s in x.free_symbols - held})
    if _vanishes_together(x, keep=held):
        return None  # as in _symbolic_limit: the sizes must grow apart for the count to count
    try:
        lim = sp.limit(y, t, sp.oo) if t in y.free_symbols else y
    except Exception:  # sympy can fail on exotic expressions
        return None
    if lim.free_symbols or lim is sp.oo or not lim.is_finite:
        return None
    return float(lim)


def _probe_resolved(counts: KernelCounts, x) -> float:
    """``probe(counts.resolve(x))``: the count at every size 1024, the parameter values
    substituted, without simplifying the substituted count first (:func:`substitute` does):
    its value there is the same exact rational. A count with floats, or one that is not a
    finite rational there, takes the old route."""
    if isinstance(x, sp.Basic) and x.free_symbols:
        r = x.subs(counts.values)
        if r.free_symbols and not r.has(sp.Float):
            v = r.subs({s: 1024 for s in r.free_symbols})
            if v.is_Rational:
                return float(v)
    return probe(counts.resolve(x))


def _ratio(num, den):
    """num/den simplified; None when den is 0; a Python number when symbol-free."""
    if den == 0:
        return None
    if isinstance(num, (int, float)) and isinstance(den, (int, float)):
        return num / den
    r = simplified(sp.sympify(num) / sp.sympify(den))
    n = to_number(r)
    return float(n) if n is not None else r


def _jval(x):
    """JSON form of a count or ratio: a number, or the expression as a string."""
    if x is None:
        return None
    if isinstance(x, float) and math.isinf(x):
        return None
    n = to_number(x)
    if n is not None:
        if isinstance(n, float):
            return round(n, 6) if abs(n) < 1e15 else n
        return n
    return str(x)


# --------------------------------------------------------------------------- thread dependence


_THREAD_VARYING_CALLS = ("__shfl", "__ballot", "__activemask", "__lanemask", "__lane_id", "clock",
                         "thread_rank", "thread_index", "meta_group_rank",  # cooperative groups
                         "curand", "__any", "__all", "__match", "__reduce")


class thread_dependence:  # noqa: N801 - used like a function: thread_dependence(fn).of(expr)
    """Which thread dimensions (``x``, ``y``, ``z`` of ``threadIdx``) a value depends on.

    A variable depends on whatever any of its definitions depends on, including the
    conditions that control the definition (``if (threadIdx.x == 0) v = 1;``). A value read
    from memory depends on its address, except a read of a per-thread (automatic) array, which
    also depends on what was stored into it. Calls of device functions depend on their
    arguments and on the ``threadIdx`` components their bodies use; warp shuffles, votes,
    ``clock`` and random numbers depend on every dimension.
    """

    def __init__(self, fn: ir.Function):
        self.fn = fn
        self.deps: dict = {}  # Variable -> frozenset of dims
        self.var_deps: dict = {}  # Variable -> set of Variables it is computed from (transitive)
        self._defs: list[tuple[ir.Variable, Optional[ir.Expr], frozenset, frozenset]] = []
        if fn.body is not None:
            self._collect(fn.body, [])
        self._solve()

    # definitions: (variable, value or None, control dims, control vars).
    # ``regions`` is the stack of enclosing conditions: [dims, vars, variables declared inside].
    # A definition is control-dependent on the conditions of the regions it sits in, up to the
    # one that declares the variable: a variable declared inside a bounds check
    # (``if (row < n) { float v = ...; }``) does not vary with the check.
    def _control(self, v: ir.Variable, regions: list) -> tuple[frozenset, frozenset]:
        d, vs = set(), set()
        for dims, vars_, declared in reversed(regions):
            if v in declared:
                break
            d |= dims
            vs |= vars_
        return frozenset(d), frozenset(vs)

    def _collect(self, s: ir.Stmt, regions: list) -> None:
        if isinstance(s, ir.Block):
            for c in s.stmts:
                self._collect(c, regions)
            return
        if isinstance(s, ir.DeclStmt):
            if regions:
                regions[-1][2].add(s.var)
            cd, cv = self._control(s.var, regions)
            self._defs.append((s.var, s.init, cd, cv))
            if s.init is not None:
                self._expr_defs(s.init, regions)
            return
        if isinstance(s, ir.If):
            self._expr_defs(s.cond, regions)
            d, v = self._raw(s.cond)
            for b in s.child_blocks():
                self._collect(b, regions + [(d, v, set())])
            return
        if isinstance(s, ir.Loop):
            for i in s.init:
                self._collect(i, regions)
            d, v = self._raw(s.cond) if s.cond is not None else (frozenset(), frozenset())
            for e in (s.cond, s.step):
                if e is not None:
                    self._expr_defs(e, regions)
            self._collect(s.body, regions + [(d, v, set())])
            return
        if isinstance(s, ir.Switch):
            self._expr_defs(s.cond, regions)
            d, v = self._raw(s.cond)
            self._collect(s.body, regions + [(d, v, set())])
            return
        for e in s.exprs():
            self._expr_defs(e, regions)

    def _expr_defs(self, e: ir.Expr, regions: list) -> None:
        for x in e.walk():
            if isinstance(x, ir.Assign):
                root = _root_var(x.target)
                if root is None:
                    continue
                if isinstance(_strip(x.target), ir.VarRef) or (not root.file_scope and
                                                               root.storage == "auto"):
                    val = x.value if x.op == "=" else ir.BinOp(x.range, x.type, x.op[:-1], x.target, x.value)
                    cd, cv = self._control(root, regions)
                    if not isinstance(_strip(x.target), ir.VarRef):
                        # a[i] = v of a per-thread array: the element depends on i too
                        d2, v2 = self._raw(x.target)
                        cd, cv = cd | d2, cv | v2
                    self._defs.append((root, val, cd, cv))
            elif isinstance(x, ir.UnaryOp) and x.op in ("pre++", "pre--", "post++", "post--"):
                root = _root_var(x.operand)
                if root is not None:
                    cd, cv = self._control(root, regions)
                    self._defs.append((root, x.operand, cd, cv))

    def _raw(self, e: Optional[ir.Expr]) -> tuple[frozenset, frozenset]:
        """(dims, variables) an expression mentions directly (before solving)."""
        dims, vs = set(), set()
        if e is None:
            return frozenset(), frozenset()
        for x in e.walk():
            if isinstance(x, ir.Builtin) and x.name == "threadIdx" and x.component in _DIMS:
                dims.add(x.component)
            elif isinstance(x, ir.VarRef):
                vs.add(x.var)
            elif isinstance(x, ir.Call):
                dims |= self._call_dims(x)
        return frozenset(dims), frozenset(vs)

    def _call_dims(self, c: ir.Call) -> set:
        if c.callee.startswith(_THREAD_VARYING_CALLS):
            return set(_DIMS)
        out: set = set()
        if c.function is not None:
            seen: set = set()
            stack = [c.function]
            while stack:
                f = stack.pop()
                if id(f) in seen:
                    continue
                seen.add(id(f))
                for x in f.expressions():
                    if isinstance(x, ir.Builtin) and x.name == "threadIdx" and x.component in _DIMS:
                        out.add(x.component)
                    elif isinstance(x, ir.Call) and x.callee.startswith(_THREAD_VARYING_CALLS):
                        out |= set(_DIMS)
                stack.extend(f.callees)
        return out

    def _solve(self) -> None:
        raw = [(v, self._raw(val), cd, cv) for v, val, cd, cv in self._defs]
        deps: dict = {}
        vdeps: dict = {}
        for _ in range(50):
            changed = False
            for v, (d, vs), cd, cv in raw:
                nd = set(deps.get(v, frozenset())) | d | cd
                nv = set(vdeps.get(v, frozenset())) | vs | cv
                for u in vs | cv:
                    if u is v:
                        continue
                    nd |= deps.get(u, frozenset())
                    nv |= vdeps.get(u, frozenset())
                if nd != deps.get(v, frozenset()) or nv != vdeps.get(v, frozenset()):
                    deps[v] = frozenset(nd)
                    vdeps[v] = frozenset(nv)
                    changed = True
            if not changed:
                break
        self.deps = deps
        self.var_deps = vdeps

    def of(self, e: ir.Expr) -> frozenset:
        """The thread dimensions ``e`` depends on."""
        d, vs = self._raw(e)
        out = set(d)
        for v in vs:
            out |= self.deps.get(v, frozenset())
        return frozenset(out)

    def variables(self, e: ir.Expr) -> frozenset:
        """Every variable ``e`` is computed from (transitively)."""
        _, vs = self._raw(e)
        out = set(vs)
        for v in vs:
            out |= self.var_deps.get(v, frozenset())
        return frozenset(out)


def _strip(e: ir.Expr) -> ir.Expr:
    while isinstance(e, ir.Cast):
        e = e.operand
    return e


def _root_var(e: ir.Expr) -> Optional[ir.Variable]:
    e = _strip(e)
    while isinstance(e, (ir.Index, ir.Member, ir.Cast, ir.UnaryOp)):
        if isinstance(e, ir.UnaryOp):
            if e.op != "*":
                return None
            e = e.operand
        elif isinstance(e, ir.Cast):
            e = e.operand
        else:
            e = e.base
    return e.var if isinstance(e, ir.VarRef) else None


# --------------------------------------------------------------------------- facts


@dataclass
class TilingCandidate:
    """A global array re-read by the threads of a block (seed section 5.3)."""

    array: str
    access: GlobalAccess
    index_text: str
    dimensions: tuple[str, ...]  # thread dimensions the index does not depend on
    reuse: int  # product of the block extents of those dimensions
    loop: LoopCount  # the outermost loop around the read
    per_iteration: Any  # executions of the read per iteration of ``loop``
    cgma_now: Any
    cgma_if_tiled: Any
    cgma_all_tiled: Any
    arrays_all_tiled: tuple[str, ...]

    @property
    def line(self) -> int:
        return self.access.line

    def to_json(self) -> dict:
        return {
            "array": self.array,
            "line": self.access.line,
            "column": self.access.column,
            "index": self.index_text,
            "dimensions": list(self.dimensions),
            "reuse": self.reuse,
            "loop_line": self.loop.line,
            "cgma_loop": _jval(self.cgma_now),
            "cgma_if_tiled": _jval(self.cgma_if_tiled),
            "cgma_all_tiled": _jval(self.cgma_all_tiled),
            "arrays_all_tiled": list(self.arrays_all_tiled),
        }


@dataclass
class CgmaFacts:
    counts: KernelCounts
    kernel: Any  # number, sympy expression, or None (no global access)
    limit: Optional[float]
    expression: Any  # the kernel ratio before parameter values are substituted
    kernel_loads_only: Any
    limit_loads_only: Optional[float]
    hot_loop: Any
    hot_loop_limit: Optional[float]
    hot: Optional[LoopCount]
    hot_counts: Optional[Counts]  # per iteration, parameters substituted
    resolved: Counts
    bytes_per_access: Optional[float]
    precision: str
    tiling: list[TilingCandidate] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    unknown_trip_lines: list[int] = field(default_factory=list)  # loops whose trips the ratio needs

    @property
    def kernel_number(self) -> Optional[float]:
        """``kernel`` as a number, else its limit (``math.inf`` without global accesses)."""
        if self.kernel is None:
            return math.inf if to_number(self.resolved.flops) != 0 else None
        return None if self.unknowable() else self._kernel_value()

    def _kernel_value(self) -> Optional[float]:
        n = to_number(self.kernel)
        return float(n) if n is not None else self.limit

    def unknowable(self) -> bool:
        """Whether the kernel's ratio or one of its counts went below zero (see :meth:`negative`)."""
        return self.kernel is not None and (self.negative(self._kernel_value()) or self.negative_counts())

    def negative_counts(self) -> bool:
        """Whether a count resolved to a number below zero (two negative counts would hide
        in a positive ratio)."""
        r = self.resolved
        for x in (r.flops, r.accesses) + ((self.hot_counts.flops, self.hot_counts.accesses,
                                          self.counts.resolve(self.hot.trip))
                                         if self.hot is not None and self.hot_counts is not None else ()):
            if self.negative(to_number(x)):
                return True
        return False

    @staticmethod
    def negative(n) -> bool:
        """A negative ratio means a trip-count formula (``b - a`` of ``for (i = a; i < b; ...)``)
        went below zero for the sizes assumed, where the loop would simply not run: the count
        is not known, and no number is better than a wrong one."""
        return n is not None and n < 0

    @property
    def hot_loop_scales(self) -> bool:
        """Whether the hot loop's work grows with the problem: its trip count is not a
        compile-time constant and it is not a grid-stride loop (``i += blockDim.x *
        gridDim.x``, an element-wise kernel in a loop)."""
        if self.hot is None or self.hot.trip_source == "constant":
            return False
        return not _grid_stride(self.hot.loop, self.counts.function)

    @property
    def hot_loop_grid_stride(self) -> bool:
        """Whether the hot loop is a grid-stride loop (written to spread its work over the
        whole grid, whatever its size)."""
        return self.hot is not None and _grid_stride(self.hot.loop, self.counts.function)

    @property
    def hot_loop_trips(self) -> Optional[int]:
        """The hot loop's trip count for the launch (thread 0 of block 0), when a number."""
        if self.hot is None:
            return None
        n = to_number(self.counts.resolve(self.hot.trip))
        return int(n) if n is not None and not self.negative(n) and float(n).is_integer() else None

    @property
    def hot_loop_number(self) -> Optional[float]:
        if self.hot_loop is None:
            return None
        n = to_number(self.hot_loop)
        n = float(n) if n is not None else self.hot_loop_limit
        return None if self.negative(n) or self.negative_counts() else n

    def to_json(self) -> dict:
        r = self.resolved
        hot = None
        if self.hot is not None:
            hc = self.hot_counts
            hot = {
                "line": self.hot.line,
                "variable": self.hot.variable,
                "trip_count": _jval(self.counts.resolve(self.hot.trip)),
                "flops": _jval(hc.flops),
                "global_accesses": _jval(hc.accesses),
                "loads": _jval(hc.loads),
                "stores": _jval(hc.stores),
                "atomics": _jval(hc.atomics),
                "limit": _jval(self.hot_loop_limit),
            }
        values = {n: {"value": v, "source": self.counts.value_sources.get(n, "")}
                  for n, v in ((str(s), v) for s, v in self.counts.values.items())}
        return {
            "kernel": _jval(self.kernel),
            "limit": _jval(self.limit),
            "expression": _jval(self.expression),
            "kernel_loads_only": _jval(self.kernel_loads_only),
            "limit_loads_only": _jval(self.limit_loads_only),
            "hot_loop": _jval(self.hot_loop),
            "hot_loop_info": hot,
            "flops": _jval(r.flops),
            "flops_fp64": _jval(r.flops_fp64),
            "global_accesses": _jval(r.accesses),
            "global_loads": _jval(r.loads),
            "global_stores": _jval(r.stores),
            "global_atomics": _jval(r.atomics),
            "bytes_per_access": _jval(self.bytes_per_access),
            "precision": self.precision,
            "symbols": {n: d for n, d in self.counts.symbols.items()},
            "values": values,
            "tiling": [t.to_json() for t in self.tiling],
            "assumptions": list(self.assumptions),
        }

@dataclass
class RooflineFacts:
    point: Any  # RooflinePoint or None
    device_source: str
    cgma_source: str
    hot_loop_point: Any = None
    error: Optional[str] = None
    notes: list[str] = field(default_factory=list)

    @property
    def bound(self) -> Optional[str]:
        return self.point.bound if self.point is not None else None

    def to_json(self) -> dict:
        out: dict = {}
        if self.point is not None:
            out.update(self.point.to_json())
        else:
            out.update({"device": None, "balance_cgma": None, "bound": None,
                        "attainable_gflops": None})
        out["device_source"] = self.device_source
        out["cgma_source"] = self.cgma_source
        if self.hot_loop_point is not None:
            h = self.hot_loop_point
            out["hot_loop"] = {"cgma": h.cgma, "bound": h.bound,
                               "attainable_gflops": h.attainable_gflops,
                               "fraction_of_peak": h.fraction_of_peak}
        if self.error:
            out["error"] = self.error
        if self.notes:
            out["notes"] = list(self.notes)
        return out

# --------------------------------------------------------------------------- analysis


def _grid_stride(loop: ir.Loop, fn: Optional[ir.Function]) -> bool:
    """Whether the loop's counter advances by a stride over the whole grid (``gridDim`` in it,
    directly or through a local set once: ``int stride = blockDim.x * gridDim.x``): the step
    of a for-loop, or the update of the condition's variable in the body of a while loop
    (``while (idx < n) { ...; idx += gridDim.x * blockDim.x; }``)."""
    defs: dict = {}
    if fn is not None and fn.body is not None:
        for st in fn.statements():
            if isinstance(st, ir.DeclStmt):
                defs.setdefault(st.var, []).append(st.init)
            for e in st.exprs():
                for x in e.walk():
                    if isinstance(x, ir.Assign) and isinstance(_strip(x.target), ir.VarRef):
                        defs.setdefault(_strip(x.target).var, []).append(None)  # written again

    def grid_wide(e: Optional[ir.Expr], depth: int = 0) -> bool:
        if e is None or depth > 4:
            return False
        for x in e.walk():
            if isinstance(x, ir.Builtin) and x.name == "gridDim":
                return True
            if isinstance(x, ir.VarRef) and x.var.storage == "auto":
                d = defs.get(x.var, [])
                if len(d) == 1 and grid_wide(d[0], depth + 1):
                    return True
        return False

    if loop.step is not None:
        return grid_wide(loop.step)
    if loop.kind not in ("while", "do") or not isinstance(loop.cond, ir.BinOp):
        return False
    counters = {_strip(x).var for x in (loop.cond.lhs, loop.cond.rhs) if isinstance(_strip(x), ir.VarRef)}
    for st in loop.body.stmts:  # the body's own statements, not those of nested loops or branches
        if isinstance(st, ir.ExprStmt) and isinstance(st.expr, ir.Assign) and st.expr.op == "+=" and \
                isinstance(_strip(st.expr.target), ir.VarRef) and _strip(st.expr.target).var in counters \
                and grid_wide(st.expr.value):
            return True
    return False



def _hot_loop(counts: KernelCounts) -> Optional[LoopCount]:
    """The outermost loop whose body does global accesses (the heaviest when several)."""
    best, best_w = None, -1.0
    for lc in counts.loops:
        if lc.depth != 0 or lc.per_iteration.accesses == 0:
            continue
        w = _probe_resolved(counts, lc.total.accesses)
        if w > best_w:
            best, best_w = lc, w
    if best is not None:
        return best
    # Loops reached only through device functions called inside no loop.
    for lc in sorted(counts.loops, key=lambda c: c.depth):
        if lc.per_iteration.accesses != 0:
            return lc
    return None


def _index_text(source_lines: list[str], acc: GlobalAccess) -> str:
    idx = acc.indices
    if not idx:
        return ""
    parts = []
    for e in idx:
        r = e.range
        if 1 <= r.line <= len(source_lines) and r.line == r.end_line:
            parts.append(source_lines[r.line - 1][r.column - 1:r.end_column - 1])
        else:
            parts.append("?")
    return "][".join(parts)


def _selective_guards(fn: ir.Function, deps: "thread_dependence") -> dict:
    """id(expression node) -> thread dimensions picked out by an enclosing equality test.

    ``if (threadIdx.x == 0) { ... a[k] ... }`` runs on one thread of each row: the threads
    along x do not all read ``a[k]``, so there is no reuse along x. Bounds checks
    (``if (row < n)``) keep most threads and do not count.
    """
    out: dict = {}

    def selective(cond: Optional[ir.Expr]) -> frozenset:
        dims: set = set()
        if cond is None:
            return frozenset()
        for x in cond.walk():
            if isinstance(x, ir.BinOp) and x.op == "==":
                dims |= deps.of(x.lhs) | deps.of(x.rhs)
            elif isinstance(x, ir.UnaryOp) and x.op == "!":
                dims |= deps.of(x.operand)
        return frozenset(dims)

    def mark(e: Optional[ir.Expr], dims: frozenset) -> None:
        if e is None or not dims:
            return
        for x in e.walk():
            out[id(x)] = dims

    def walk(st: ir.Stmt, dims: frozenset) -> None:
        if isinstance(st, ir.Block):
            for c in st.stmts:
                walk(c, dims)
        elif isinstance(st, ir.If):
            mark(st.cond, dims)
            inner = dims | selective(st.cond)
            walk(st.then, inner)
            if st.otherwise is not None:
                walk(st.otherwise, inner)
        elif isinstance(st, ir.Loop):
            for i in st.init:
                walk(i, dims)
            mark(st.cond, dims)
            mark(st.step, dims)
            walk(st.body, dims)
        elif isinstance(st, ir.Switch):
            mark(st.cond, dims)
            walk(st.body, dims | deps.of(st.cond))
        else:
            for e in st.exprs():
                mark(e, dims)

    if fn.body is not None:
        walk(fn.body, frozenset())
    return out


def _address_dims(accesses) -> dict:
    """id(access node) -> the thread dimensions its symbolic address depends on, from the
    access facts (:mod:`.accesses`): the one address every rule reads, base pointer included
    (``const float* x = inp + idx * C; x[i]``), cooperative-group ranks and pointers advanced
    in loops too. A node the walk met several times (an unrolled or inlined copy) depends on
    the union."""
    out: dict = {}
    if accesses is None or getattr(accesses, "evaluator", None) is None:
        return out
    syms = accesses.evaluator.syms
    from .symbolic import THREAD
    for a in accesses:
        ev = a.event
        if ev is None:
            continue
        off = ev.offset
        dims = set()
        for sym in getattr(off, "free_symbols", ()):
            info = syms.info.get(sym)
            if info is not None and info.kind == THREAD:
                dims.add(info.component)
        out.setdefault(id(ev.node), set()).update(dims)
    return out


def _tiling(fn: ir.Function, counts: KernelCounts, block: tuple, source_lines: list[str],
            accesses=None) -> list[TilingCandidate]:
    deps = thread_dependence(fn)
    address_dims = _address_dims(accesses)
    guards = _selective_guards(fn, deps)
    stored = {a.variable for a in counts.accesses if a.kind in ("store", "atomic") and a.variable is not None}
    by_loop: dict = {}
    outer_of: dict = {}
    lc_of = {id(lc.loop): lc for lc in counts.loops}
    raw: list = []
    for acc in counts.accesses:
        if acc.kind != "load" or acc.via_call is not None or not acc.loops or not acc.indices:
            continue
        if acc.variable in stored or acc.variable is None:
            continue
        index_deps: set = set()
        index_vars: set = set()
        for ie in acc.indices:
            index_deps |= deps.of(ie)
            index_vars |= deps.variables(ie)
        if id(acc.node) in address_dims:
            # The whole address, not only the subscript: a per-thread base pointer counts.
            index_deps = set(address_dims[id(acc.node)])
        elif accesses is not None and not getattr(accesses, "error", ""):
            continue  # the access facts did not see this load (dead code, not inlined): no claim
        picked = guards.get(id(acc.node), frozenset())
        missing = tuple(d for d, n in zip(_DIMS, block)
                        if n > 1 and d not in index_deps and d not in picked)
        if not missing:
            continue
        # The element read must change from one iteration to the next (a stream of elements
        # re-read by the block), i.e. the index uses a variable the loop changes.
        varies = False
        for lp in acc.loops:
            written = constprop.assigned_vars(lp.body)
            for e in lp.init:
                written |= constprop.assigned_vars(e)
            if lp.step is not None:
                for x in lp.step.walk():
                    constprop.collect_writes(x, written)
            if index_vars & written:
                varies = True
                break
        if not varies:
            continue
        reuse = 1
        for d in missing:
            reuse *= block[_DIMS.index(d)]
        outer = lc_of.get(id(acc.loops[0]))
        if outer is None:
            continue
        raw.append((acc, missing, reuse, outer))
        by_loop.setdefault(id(outer.loop), []).append((acc, reuse))
        outer_of[id(outer.loop)] = outer
    out: list[TilingCandidate] = []
    for acc, missing, reuse, outer in raw:
        per_it = counts.resolve(acc.multiplicity_within(outer.loop))
        pc = outer.per_iteration.subs(counts.values)
        now = _ratio(pc.flops, pc.accesses)
        saved_one = per_it * (1 - sp.Rational(1, reuse))
        saved_all = 0
        names: list[str] = []
        for a2, r2 in by_loop[id(outer.loop)]:
            saved_all = saved_all + counts.resolve(a2.multiplicity_within(outer.loop)) * (1 - sp.Rational(1, r2))
            if a2.array not in names:
                names.append(a2.array)
        one = _ratio(pc.flops, sp.nsimplify(pc.accesses) - saved_one)
        every = _ratio(pc.flops, sp.nsimplify(pc.accesses) - saved_all)
        out.append(TilingCandidate(acc.array, acc, _index_text(source_lines, acc), missing, reuse,
                                   outer, per_it, now, one, every, tuple(names)))
    return out


def analyze_cgma(fn: ir.Function, launch=None, params: Optional[dict] = None,
                 source_lines: Optional[list[str]] = None, accesses=None) -> CgmaFacts:
    """Count and form the CGMA facts of one kernel (see the module docstring)."""
    counts = count_function(fn, launch, params, texels=texel_map(accesses), kept=kept_loads(accesses))
    total = counts.total
    resolved = counts.resolved
    # ``kernel`` has the known sizes substituted; ``limit`` is the symbolic ratio's value as
    # every size grows (so 2n/(2n+1) is 0.9995 for n = 1024, with limit 1).
    expression = _ratio(total.flops, total.accesses)
    kernel = _ratio(resolved.flops, resolved.accesses)
    hot = _hot_loop(counts)
    # Trip counts that could not be counted are unknown constants, not sizes: a ratio that
    # depends on one has no number (its limit "as every size grows" would let it grow too).
    fixed = _unknown_trips(counts, hot)
    held = set()

    def free(x) -> set:
        return x.free_symbols if isinstance(x, sp.Basic) else set()

    def limit_of(num, den, ratio=None):
        if fixed and (free(num) | free(den) | free(ratio)) & set(fixed):
            r = ratio if ratio is not None else _ratio(num, den)
            if r is not None and free(r) & set(fixed):
                held.update(free(r) & set(fixed))
                return _limit_holding(r, fixed)
        if ratio is not None:
            return _limit(ratio)
        return _ratio_limit(num, den)

    # A limit is taken over the sizes still unknown; the values known (a launch site's
    # ``Bc = 32``, --param) stay what they are. Only a ratio that became a number has its
    # limit over every size (tiled16: 15.9 for width 1024, limit 16). Letting a known tile
    # width grow with the sizes made flash-attention-minimal's 46 flops per access "unbounded".
    def known(r) -> bool:
        return bool(counts.values) and isinstance(r, sp.Basic) and bool(r.free_symbols)

    if known(kernel):
        limit = limit_of(resolved.flops, resolved.accesses, kernel)
    else:
        limit = limit_of(total.flops, total.accesses, expression) if expression is not None else None
    lo = _ratio(resolved.flops, resolved.loads)
    lo_limit = limit_of(resolved.flops, resolved.loads) if known(lo) else limit_of(total.flops, total.loads)
    hot_ratio = hot_limit = hot_counts = None
    if hot is not None:
        hot_counts = hot.per_iteration.subs(counts.values)
        hot_ratio = _ratio(hot_counts.flops, hot_counts.accesses)
        if known(hot_ratio):
            hot_limit = limit_of(hot_counts.flops, hot_counts.accesses)
        else:
            hot_limit = limit_of(hot.per_iteration.flops, hot.per_iteration.accesses)
    nbytes = None
    if resolved.accesses != 0:
        nbytes = _ratio_limit(resolved.bytes, resolved.accesses)
        if nbytes is not None and (nbytes <= 0 or math.isinf(nbytes)):
            nbytes = None
    fp64 = probe(resolved.flops_fp64) * 2 > probe(resolved.flops) > 0
    block = launch.block if launch is not None else (256, 1, 1)
    tiling = _tiling(fn, counts, block, source_lines or [], accesses)
    assumptions = list(counts.assumptions)
    unknown = sorted(fixed[sym] for sym in held) if limit is None else []
    if unknown:
        lines = ", ".join(str(n) for n in unknown)
        assumptions.append(f"the CGMA depends on the trip count of the loop{'s' if len(unknown) > 1 else ''} "
                           f"at line{'s' if len(unknown) > 1 else ''} {lines}, which cudalint cannot count: "
                           f"no CGMA number")
    if kernel is not None and to_number(kernel) is None:
        names = ", ".join(sorted(str(s) for s in sp.sympify(kernel).free_symbols))
        assumptions.append(f"symbolic sizes ({names}): pass --param NAME=VALUE for a number")
    return CgmaFacts(counts, kernel, limit, expression, lo, lo_limit, hot_ratio, hot_limit, hot,
                     hot_counts, resolved, nbytes, "fp64" if fp64 else "fp32", tiling, assumptions,
                     unknown)


def resolve_roofline_device(opts) -> tuple[Any, str]:
    """(Device or None, which option chose it). Raises ValueError for a bad name/figures."""
    from .devices import default_device_for_arch, resolve_device

    name = getattr(opts, "device", None)
    peak = getattr(opts, "peak_gflops", None)
    bw = getattr(opts, "bandwidth_gbs", None)
    arch = getattr(opts, "arch", None) or DEFAULT_ARCH
    if name:
        dev = resolve_device(name, peak_gflops=peak, bandwidth_gbs=bw)
        how = f"--device {name}"
        if peak is not None or bw is not None:
            how += " with " + " and ".join(x for x in (("--peak-gflops" if peak is not None else ""),
                                                       ("--bandwidth-gbs" if bw is not None else "")) if x)
        return dev, how
    if peak is not None or bw is not None:
        return resolve_device(None, peak_gflops=peak, bandwidth_gbs=bw, arch=arch), \
            "--peak-gflops/--bandwidth-gbs"
    dev = default_device_for_arch(arch)
    return dev, f"default for {arch}; choose one with --device"


def kernel_roofline(c: CgmaFacts, opts) -> RooflineFacts:
    from .roofline import roofline

    try:
        dev, how = resolve_roofline_device(opts)
    except ValueError as e:
        return RooflineFacts(None, "", "", error=str(e))
    if dev is None:
        return RooflineFacts(None, "", "", error=f"no device preset for {getattr(opts, 'arch', '?')}; "
                                                  "pass --device or --peak-gflops/--bandwidth-gbs")
    cg = c.kernel_number
    if c.kernel is None:
        src = "no global accesses" if cg is not None else "no flops and no global accesses"
    elif to_number(c.kernel) is not None:
        src = "kernel"
    else:
        src = "kernel limit as the sizes grow"
    if cg is None:
        if c.kernel is None:
            why = "CGMA undefined (no flops and no global accesses)"
        elif c.unknown_trip_lines:
            n = c.unknown_trip_lines
            why = (f"the kernel's CGMA depends on the trip count of the loop{'s' if len(n) > 1 else ''} at "
                   f"line{'s' if len(n) > 1 else ''} {', '.join(str(x) for x in n)}, which cudalint "
                   f"cannot count")
        elif c.unknowable():
            why = ("the kernel's CGMA cannot be known: a loop trip count (upper bound minus start) "
                   "is negative for the sizes assumed; pass --param with the real sizes")
        elif _vanishes_together(c.kernel):
            why = ("the kernel's CGMA depends on how its sizes grow apart: a count vanishes when "
                   "they are all the same (a trip count such as n - m); pass --param with the real "
                   "sizes")
        else:
            why = "the kernel's CGMA has no finite limit"
        return RooflineFacts(None, how, src, error=why)
    notes = []
    arch = getattr(opts, "arch", None)
    if dev.arch and arch and not dev.custom:
        from .devices import normalize_arch
        try:
            if normalize_arch(arch) != dev.arch:
                notes.append(f"{dev.name} is {dev.arch}; the other facts are for --arch {arch}")
        except ValueError:
            pass
    precision = c.precision
    if precision == "fp64" and dev.peak_fp64_gflops is None:
        notes.append(f"{dev.name} has no double-precision hardware; fp32 peak used")
        precision = "fp32"
    wb = c.bytes_per_access or (8.0 if precision == "fp64" else 4.0)
    point = roofline(dev, cg, word_bytes=wb, precision=precision)
    hot = None
    hn = c.hot_loop_number
    if hn is not None:
        hot = roofline(dev, hn, word_bytes=wb, precision=precision)
    return RooflineFacts(point, how, src, hot, notes=notes)
