"""What the FLOP count (:mod:`.flops`) produces: flops and global accesses per thread
(:class:`Counts`, symbolic in trip counts), each global access (:class:`GlobalAccess`), each loop
(:class:`LoopCount`) and a kernel's totals (:class:`KernelCounts`), with the helpers that turn
such counts into numbers (:func:`to_number`, :func:`probe`).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Optional, Union

import sympy as sp

from . import ir
from .sympy_simplify import simplify

Num = Union[int, sp.Expr]


def is_zero(x: Num) -> bool:
    return x == 0


def to_number(x: Num) -> Optional[Union[int, float]]:
    """A Python int/float when ``x`` has no free symbols, else None."""
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, (int, float)):
        return x
    try:
        x = sp.sympify(x)
    except (sp.SympifyError, TypeError):
        return None
    if x.free_symbols:
        return None
    if x.is_Integer:
        return int(x)
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return int(v) if v.is_integer() and abs(v) < 2 ** 53 else v


def probe(x: Num, size: int = 1024) -> float:
    """A number for comparing symbolic counts: every symbol set to ``size``."""
    if isinstance(x, (int, float)):
        return float(x)
    x = sp.sympify(x)
    if x.free_symbols:
        x = x.subs({s: size for s in x.free_symbols})
    try:
        return float(x)
    except (TypeError, ValueError):
        return 0.0



@dataclass
class Counts:
    """What one thread executes in a region: flops and global accesses (sympy or int)."""

    flops: Num = 0
    flops_fp64: Num = 0  # the part of ``flops`` done in double precision
    loads: Num = 0
    stores: Num = 0
    atomics: Num = 0
    load_bytes: Num = 0
    store_bytes: Num = 0

    @property
    def accesses(self) -> Num:
        return self.loads + self.stores + self.atomics

    @property
    def bytes(self) -> Num:
        return self.load_bytes + self.store_bytes

    def __add__(self, o: "Counts") -> "Counts":
        return Counts(self.flops + o.flops, self.flops_fp64 + o.flops_fp64, self.loads + o.loads,
                      self.stores + o.stores, self.atomics + o.atomics,
                      self.load_bytes + o.load_bytes, self.store_bytes + o.store_bytes)

    def scaled(self, k: Num) -> "Counts":
        if k == 1:
            return Counts(**self.__dict__)
        return Counts(*(scaled(k, v) for v in (self.flops, self.flops_fp64, self.loads, self.stores,
                                              self.atomics, self.load_bytes, self.store_bytes)))

    def subs(self, values: dict) -> "Counts":
        if not values:
            return self
        return Counts(*(substitute(v, values) for v in (self.flops, self.flops_fp64, self.loads,
                                                    self.stores, self.atomics, self.load_bytes,
                                                    self.store_bytes)))

    def weight(self) -> float:
        return probe(self.flops) + probe(self.accesses)

    def is_empty(self) -> bool:
        return is_zero(self.flops) and is_zero(self.accesses)

    def to_json(self) -> dict:
        return {"flops": json_number(self.flops), "flops_fp64": json_number(self.flops_fp64),
                "loads": json_number(self.loads), "stores": json_number(self.stores),
                "atomics": json_number(self.atomics), "global_accesses": json_number(self.accesses)}


def scaled(k: Num, v: Num) -> Num:
    if is_zero(v) or is_zero(k):
        return 0
    r = k * v
    return sp.expand(r) if isinstance(r, sp.Basic) else r


def substitute(v: Num, values: dict) -> Num:
    if isinstance(v, sp.Basic) and v.free_symbols:
        r = v.subs(values)
        n = to_number(r)
        return n if n is not None else simplified(r)
    return v


@functools.lru_cache(maxsize=4096)
def simplified(expr):
    """``sp.simplify(expr)``, memoised: the counts, trips and ratios of a kernel's loops and
    phases (and of its template instances) simplify the same expressions again. (Without the
    import of sympy's units package that its first call makes: analyzer/sympy_simplify.py.)"""
    return simplify(expr)


def json_number(v: Num):
    n = to_number(v)
    if n is not None:
        return n
    return str(v)


@dataclass
class GlobalAccess:
    """One global load/store/atomic in the source, as the counting saw it."""

    node: ir.Expr
    array: str  # the root variable's name (``M`` for ``M[row * w + k]``)
    variable: Optional[ir.Variable]
    kind: str  # load | store | atomic
    element_bytes: Optional[int]
    indices: list[ir.Expr]  # index per subscript, outermost first ([] for ``*p`` / scalars)
    loops: tuple[ir.Loop, ...]  # enclosing loops, outermost first (kernel and callees)
    trips: tuple  # the trip count of each of ``loops``
    function: str
    via_call: Optional[ir.Call] = None  # set when the access is in a called device function

    @property
    def line(self) -> int:
        return self.node.range.line

    @property
    def column(self) -> int:
        return self.node.range.column

    @property
    def multiplicity(self) -> Num:
        """How often one thread executes it: the product of the enclosing trip counts."""
        m: Num = 1
        for t in self.trips:
            m = scaled(m, t)
        return m

    def multiplicity_within(self, loop: ir.Loop) -> Num:
        """Executions per iteration of ``loop`` (one of its enclosing loops)."""
        m: Num = 1
        inside = False
        for lp, t in zip(self.loops, self.trips):
            if inside:
                m = scaled(m, t)
            if lp is loop:
                inside = True
        return m


@dataclass
class LoopCount:
    loop: ir.Loop
    depth: int  # 0 for a loop not nested in another (counting from the kernel)
    trip: Num
    trip_source: str  # how the trip count was found
    per_iteration: Counts
    function: str
    variable: Optional[str] = None  # induction variable

    @property
    def line(self) -> int:
        return self.loop.range.line

    @property
    def total(self) -> Counts:
        return self.per_iteration.scaled(self.trip)


@dataclass
class KernelCounts:
    """Per-thread counts of a kernel (or device function) and how they were obtained."""

    function: ir.Function
    total: Counts
    loops: list[LoopCount]
    accesses: list[GlobalAccess]
    symbols: dict = field(default_factory=dict)  # name -> description
    values: dict = field(default_factory=dict)  # sympy Symbol -> number (bound parameters)
    value_sources: dict = field(default_factory=dict)  # name -> "--param" | "launch site line N"
    assumptions: list[str] = field(default_factory=list)
    uncounted_calls: list[str] = field(default_factory=list)

    @property
    def resolved(self) -> Counts:
        """``total`` with the known parameter values substituted."""
        return self.total.subs(self.values)

    def resolve(self, x: Num) -> Num:
        return substitute(x, self.values) if isinstance(x, sp.Basic) else x
