"""The vocabulary of symbolic addresses (:mod:`.symbolic`): sympy functions for values read
from memory, opaque values and bit operations; the symbol table of one kernel (thread, block,
launch-dimension, parameter, iteration symbols); pointer values; the access events the walk
reports; the walk's state and the small helpers both halves of the walker share.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional, Union

import sympy as sp

from . import ir

# --------------------------------------------------------------------------- sympy functions


class MemLoad(sp.Function):
    """A value read from memory (or another lane): ``MemLoad(name, *index)``. Integer valued
    and opaque; it varies across the lanes of a warp exactly when its index does."""

    nargs = None

    def _eval_is_integer(self):
        return True

    def _sympystr(self, printer):
        name = printer._print(self.args[0])
        rest = ", ".join(printer._print(a) for a in self.args[1:])
        return f"{name}[{rest}]"


class LocalLoad(MemLoad):
    """A value read from thread-private memory (a local array, a scalar passed by address):
    ``LocalLoad(name, *index, threadIdx.x, threadIdx.y, threadIdx.z)``. Every thread has its own
    copy, so the value differs between lanes even where the index is the same for all of them
    (XSBench's ``seed`` advanced through ``&seed`` by each thread's own generator); the thread
    indices are arguments only to say so, and are not printed."""

    def _sympystr(self, printer):
        name = printer._print(self.args[0])
        rest = ", ".join(printer._print(a) for a in self.args[1:-3])
        return f"{name}[{rest}]"


#: the name of the stand-in for a choice made by (or between) values read from memory:
#: ``MemLoad(DATA_CHOICE, *lane, *loads)`` carries the loads it was made from, which a message
#: names instead of it (:func:`analyzer.lanes.direct_first`)
DATA_CHOICE = "?:"


class Opaque(sp.Function):
    """A value the analysis does not model (an unknown call, a loop-carried variable that
    depends on the thread, ...): ``Opaque(name, *args)``."""

    nargs = None

    def _eval_is_integer(self):
        return True

    def _sympystr(self, printer):
        name = printer._print(self.args[0])
        if len(self.args) == 1:
            return f"?{name}"
        return f"?{name}({', '.join(printer._print(a) for a in self.args[1:])})"


def _both_int(a, b) -> bool:
    return getattr(a, "is_Integer", False) and getattr(b, "is_Integer", False)


class BitAnd(sp.Function):
    nargs = 2

    @classmethod
    def eval(cls, a, b):
        if _both_int(a, b):
            return sp.Integer(int(a) & int(b))
        return None

    def _eval_is_integer(self):
        return True


class BitOr(sp.Function):
    nargs = 2

    @classmethod
    def eval(cls, a, b):
        if _both_int(a, b):
            return sp.Integer(int(a) | int(b))
        return None

    def _eval_is_integer(self):
        return True


class BitXor(sp.Function):
    nargs = 2

    @classmethod
    def eval(cls, a, b):
        if _both_int(a, b):
            return sp.Integer(int(a) ^ int(b))
        return None

    def _eval_is_integer(self):
        return True


class ShiftLeft(sp.Function):
    nargs = 2

    @classmethod
    def eval(cls, a, b):
        if _both_int(a, b) and int(b) >= 0:
            return sp.Integer(int(a) << int(b))
        return None

    def _eval_is_integer(self):
        return True


class ShiftRight(sp.Function):
    nargs = 2

    @classmethod
    def eval(cls, a, b):
        if _both_int(a, b) and int(b) >= 0:
            return sp.Integer(int(a) >> int(b))
        return None

    def _eval_is_integer(self):
        return True


# --------------------------------------------------------------------------- symbols

THREAD, BLOCK, BLOCKDIM, GRIDDIM, PARAM, ITER, OPAQUE, TEMPLATE, BOOL = (
    "thread", "block", "blockdim", "griddim", "param", "iter", "opaque", "template", "bool")


@dataclass
class SymInfo:
    kind: str
    name: str
    var: Optional[ir.Variable] = None
    component: str = ""
    # iteration symbols: the loop, its trip count (sympy, may be symbolic) and the line; for a
    # geometric variable (below), the loop that doubles or halves it
    loop: Optional[ir.Loop] = None
    trip: Optional[sp.Expr] = None
    note: str = ""
    # a variable that a loop doubles or halves (``s *= 2``, ``s >>= 1``): (start, factor,
    # shrink, comparison, bound), start and bound as sympy values at the loop's entry; the
    # values it takes are start, start*f (or start//f), ... while ``value comparison bound``
    geometric: Optional[tuple] = None
    # a variable that each iteration of such a loop multiplies or divides by a constant as well
    # (``stride *= 2`` in a loop over ``d >>= 1``): (control symbol, start, factor, shrink); at
    # the top of the loop's k-th iteration it holds start * factor**k (start // factor**k)
    companion: Optional[tuple] = None
    # the value such a variable has after its loop: start * factor**(trip count)
    exit_of: Optional[tuple] = None


class Symbols:
    """Creates the symbols of one kernel analysis and remembers what each one stands for."""

    def __init__(self):
        self.info: dict[sp.Symbol, SymInfo] = {}
        self._by_key: dict = {}
        self._names: set[str] = set()
        self._next: dict[str, int] = {}  # name -> the suffix to try next (see _unique)
        self.thread = {c: self._builtin("threadIdx", c, THREAD) for c in "xyz"}

    def _unique(self, name: str) -> str:
        # The first free name of name, name_2, name_3, ...; names are never released, so the
        # search resumes where the last one for ``name`` stopped (a kernel of thousands of
        # opaque float values made the scan from 2 quadratic: SHOC MaxFlops).
        n, k = name, self._next.get(name, 1)
        if k > 1:
            n = f"{name}_{k}"
        while n in self._names:
            k += 1
            n = f"{name}_{k}"
        self._names.add(n)
        self._next[name] = k
        return n

    def make(self, key, name: str, kind: str, **kw) -> sp.Symbol:
        if key is not None and key in self._by_key:
            return self._by_key[key]
        assumptions = {"integer": True}
        if kind in (THREAD, BLOCK, ITER):
            assumptions["nonnegative"] = True
        if kind in (BLOCKDIM, GRIDDIM):
            assumptions["positive"] = True
        if kind == BOOL:
            assumptions = {}
        s = sp.Symbol(self._unique(name), **assumptions)
        self.info[s] = SymInfo(kind, s.name, **kw)
        if key is not None:
            self._by_key[key] = s
        return s

    def _builtin(self, name: str, comp: str, kind: str) -> sp.Symbol:
        return self.make(("builtin", name, comp), f"{name}.{comp}", kind, component=comp)

    def builtin(self, name: str, comp: str) -> sp.Expr:
        if name == "warpSize":
            return sp.Integer(32)
        kind = {"threadIdx": THREAD, "blockIdx": BLOCK, "blockDim": BLOCKDIM,
                "gridDim": GRIDDIM}.get(name, OPAQUE)
        return self._builtin(name, comp or "x", kind)

    def param(self, var: ir.Variable) -> sp.Symbol:
        return self.make(("param", id(var)), var.name, PARAM, var=var)

    def template(self, name: str) -> sp.Symbol:
        return self.make(("template", name), name, TEMPLATE)

    def opaque(self, name: str, note: str = "", geometric: Optional[tuple] = None,
               companion: Optional[tuple] = None, exit_of: Optional[tuple] = None,
               loop: Optional[ir.Loop] = None) -> sp.Symbol:
        return self.make(None, name, OPAQUE, note=note, geometric=geometric, companion=companion,
                         exit_of=exit_of, loop=loop)

    def boolean(self, name: str = "cond") -> sp.Symbol:
        return self.make(None, name, BOOL)

    def kind(self, s) -> Optional[str]:
        i = self.info.get(s)
        return i.kind if i else None

    @property
    def thread_symbols(self) -> set:
        return set(self.thread.values())


def lane_varying(e, syms: Symbols) -> bool:
    """Whether ``e`` can differ between the threads of a warp (it mentions threadIdx, or
    a lane-varying opaque/loaded value)."""
    if not isinstance(e, sp.Basic):
        return False
    return bool(e.free_symbols & syms.thread_symbols)


def data_atoms(e) -> list:
    """The :class:`MemLoad` sub-expressions of ``e``."""
    if not isinstance(e, sp.Basic):
        return []
    return list(e.atoms(MemLoad))


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class Pointer:
    """A pointer value: ``offset`` bytes past the start of the object ``base``."""

    base: Optional[ir.Variable]
    space: str  # global | shared | local | constant | register | unknown
    offset: sp.Expr
    elem: ir.CType
    volatile: bool = False
    name: str = ""
    # Subscripts applied so far directly to an array variable (``tile[i]`` -> (i,)); None
    # once pointer arithmetic intervenes.
    subs: Optional[tuple] = None

    def add_bytes(self, b) -> "Pointer":
        return replace(self, offset=self.offset + b, subs=None)


Value = Union[sp.Basic, Pointer, None]


@dataclass
class LoopInfo:
    loop: ir.Loop
    it: Optional[sp.Symbol]
    trip: Optional[sp.Expr]
    has_barrier: bool = False
    # conditions on an access's path: those holding at the loop's entry, and in its body
    entry_path_len: int = 0
    path_len: int = 0


@dataclass
class AccessEvent:
    """One memory access met by the walk (one per kind: ``a[i] += x`` gives a load and a store)."""

    node: ir.Expr
    kind: str  # load | store
    pointer: Pointer
    elem: ir.CType
    elem_bytes: Optional[int]
    name: str  # the name written in the source (`src` for `src[t]`)
    path: tuple  # sympy conditions that hold where the access executes
    loops: tuple  # LoopInfo, outermost first
    seq: int
    epoch: int  # number of barriers met before (any scope)
    function: ir.Function
    volatile: bool = False
    atomic: bool = False
    # Load cache hint of the intrinsic used: "ca" (__ldg/__ldca: through L1), "cg" (__ldcg,
    # __ldcs, __ldlu, __ldcv: L2 only), or "" (a plain access).
    cache: str = ""
    # For a multi-dimensional array indexed with every subscript: the subscripts (sympy),
    # outermost first; lets the bank analysis recompute the address with padded extents.
    dims: Optional[list] = None
    notes: list = field(default_factory=list)
    call_lines: tuple = ()  # lines of the inlined calls that lead here
    # the ir.If or ir.Ternary whose branch the access sits directly in (its condition is the
    # last of ``path``), or None
    guard: object = None
    # A texture fetch or surface access: its call and coordinates (symbolic_textures.TexAccess).
    texture: Optional[object] = None

    @property
    def space(self) -> str:
        return self.pointer.space

    @property
    def offset(self) -> sp.Expr:
        return self.pointer.offset

    @property
    def array(self) -> str:
        return self.pointer.name or self.name

    def index_expr(self) -> Optional[sp.Expr]:
        """The element index (byte offset / element size) when it divides evenly."""
        if not self.elem_bytes:
            return None
        q = sp.expand(self.offset / self.elem_bytes)
        if all(getattr(c, "is_Integer", False) for c in _coefficients(q)):
            return q
        return None

    def index_text(self) -> str:
        q = self.index_expr()
        if q is None:
            return f"{sp.sstr(sp.expand(self.offset))} bytes"
        return sp.sstr(q)


def _coefficients(e: sp.Expr) -> list:
    out = []
    for t in sp.Add.make_args(e):
        c, _ = t.as_coeff_Mul()
        out.append(c)
    return out


# --------------------------------------------------------------------------- walk state


@dataclass
class WalkState:
    env: dict
    path: tuple = ()
    loops: tuple = ()
    depth: int = 0
    returns: Optional[list] = None
    base_path_len: int = 0
    call_lines: tuple = ()
    #: (condition, the ir.If or ir.Ternary that put it last on ``path``): which branch an
    #: access sits directly in (requests: branches nvcc predicates)
    guard: Optional[tuple] = None

    def fork(self, extra_cond=None, src=None) -> "WalkState":
        p = self.path + ((extra_cond,) if extra_cond is not None else ())
        g = (extra_cond, src) if (src is not None and extra_cond is not None) else self.guard
        return WalkState(dict(self.env), p, self.loops, self.depth, self.returns,
                         self.base_path_len, self.call_lines, g)

    def last_guard(self):
        """The ir.If / ir.Ternary whose condition is the last one on the path, or None."""
        g = self.guard
        return g[1] if g is not None and self.path and self.path[-1] is g[0] else None
MAX_INLINE_DEPTH = 6
#: Statements the walk may inline into one kernel in all: device functions that call each
#: other several times per level multiply (breadth ** depth); past this, calls are summarised
#: as opaque values and their memory accesses are not listed (said in a note).
INLINE_BUDGET = 20000


def is_data(e) -> bool:
    return isinstance(e, sp.Basic) and bool(e.atoms(MemLoad))


_SIZES: dict = {}  # expression -> (nodes, exact); not exact: more than the cap it was counted to


def larger_than(e: sp.Basic, limit: int) -> bool:
    """Whether the expression tree of ``e`` has more than ``limit`` nodes (as
    ``preorder_traversal`` counts them). Sizes are memoised per subexpression: the walker
    asks this of every intermediate value, most of which it measured before."""
    return _size(e, limit) > limit


def operands_larger_than(a: sp.Basic, b: sp.Basic, limit: int) -> bool:
    """Whether ``a op b``, built as a tree of its own, would have more than ``limit`` nodes."""
    n = _size(a, limit)
    return n >= limit or n + _size(b, limit) >= limit


def _size(e, cap: int) -> int:
    """Nodes of ``e`` when at most ``cap``, else some number above ``cap``."""
    if not isinstance(e, sp.Basic):
        n = 0
        for _ in sp.preorder_traversal(e):
            n += 1
            if n > cap:
                break
        return n
    got = _SIZES.get(e)
    if got is not None and (got[1] or got[0] > cap):
        return got[0]
    n = 1
    for a in e.args:
        n += _size(a, cap)
        if n > cap:
            break
    if len(_SIZES) >= 200_000:
        _SIZES.clear()
    _SIZES[e] = (n, n <= cap)
    return n


_MEMORY_STORAGE = ("shared", "extern_shared", "device", "constant", "managed", "static")


def in_memory(v: ir.Variable) -> bool:
    """A variable that lives in memory (shared, global, constant): reading it is an access."""
    return v.storage in _MEMORY_STORAGE or (v.file_scope and v.storage not in ("host", "builtin"))


def is_expr(v) -> bool:
    return isinstance(v, sp.Expr)


MAX_NODES = 400


def bounded(e: sp.Expr, w, name: str) -> sp.Expr:
    """``e``, or an opaque value when it has grown too large to be useful (branchy code in
    loops can nest choices exponentially)."""
    if larger_than(e, MAX_NODES):
        return w._unknown(name, lane=lane_varying(e, w.syms))
    return e


_MADE: dict = {}


def made(fn, *args):
    """``fn(*args)`` for a sympy constructor or a pure function of sympy values, memoised: the
    walk builds the same conditions, minima and quotients over and over (inlined calls, the
    two arms of a branch, each kernel of a file), and sympy evaluates each one again
    (assumption queries, Max/Min's pairwise comparisons). The argument types are part of the
    key, so ``2`` and ``2.0`` (equal in Python) never share an entry."""
    try:
        key = (fn, args, tuple(a.__class__ for a in args))
        hit = _MADE.get(key)
    except TypeError:  # unhashable: build it
        return fn(*args)
    if hit is None:
        hit = fn(*args)
        if len(_MADE) >= 50_000:
            _MADE.clear()
        _MADE[key] = hit
    return hit


_PIECEWISE: dict = {}

#: Bounds on a condition that holds choices (``x == (a < b ? c : d)``), which sympy folds
#: into one case per combination of their arms (k nested two-way choices: 2**k cases), turning
#: each case's condition into normal form and simplifying every comparison in it (numerically,
#: with random points, for comparisons of loaded data). HeCBench's segsort makes 2**13 cases
#: and never finishes; ss and ne fold 14 to 20 comparisons of loaded data for minutes. The
#: cuda-samples and fixtures need at most 32 cases and 7 comparisons (interval.cu).
MAX_FOLDED_CASES = 64
MAX_FOLDED_RELATIONS = 12


def folded_cases(c) -> int:
    """How many cases sympy's ``piecewise_fold`` may make of condition ``c`` (an upper bound:
    the product of the arms of every choice in it)."""
    if not isinstance(c, sp.Basic):
        return 1
    n = 1
    for p in c.atoms(sp.Piecewise):
        n *= len(p.args)
    return n


class FoldTooCostly(ValueError):
    """A choice whose condition :func:`too_costly_to_fold`; ``data``: that condition depends
    on loaded data (the opaque value standing for the choice must say so)."""

    def __init__(self, data: bool):
        super().__init__("a condition too costly to fold")
        self.data = data


def too_costly_to_fold(c) -> bool:
    """Whether sympy would fold condition ``c`` (it holds a choice) at a cost beyond the
    bounds above, or at all when it compares data: a choice made by loaded data is never
    decided by folding (it depends on memory contents), and is what costs minutes. Nor is one
    made by a per-thread value the walk does not model (``Opaque``: cuda-samples interval's
    ``x.lower() <= x.upper()`` of a class it does not see into, where sympy's fold took 3 s
    of nsimplify on a condition it cannot decide)."""
    if not isinstance(c, sp.Basic) or not c.has(sp.Piecewise):
        return False
    return folded_cases(c) > MAX_FOLDED_CASES or is_data(c) or bool(c.atoms(Opaque)) or \
        len(c.atoms(sp.core.relational.Relational)) > MAX_FOLDED_RELATIONS


def piecewise(*pairs):
    """``Piecewise(*pairs, evaluate=False)``, memoised: inlined functions and branches rebuild
    the same choices over and over, and a condition that holds a choice makes sympy fold it
    (``piecewise_fold``) each time. Sympy objects are immutable, so sharing one is safe.
    :class:`FoldTooCostly` (a ValueError) when a condition is :func:`too_costly_to_fold`
    (callers make the value opaque, as for any choice sympy cannot build)."""
    hit = _PIECEWISE.get(pairs)
    if hit is None:
        costly = [c for _, c in pairs if too_costly_to_fold(c)]
        if costly:
            raise FoldTooCostly(any(is_data(c) for c in costly))
        hit = sp.Piecewise(*pairs, evaluate=False)
        if len(_PIECEWISE) >= 20_000:
            _PIECEWISE.clear()
        _PIECEWISE[pairs] = hit
    return hit


def negate(c):
    try:
        return sp.Not(c)
    except (TypeError, ValueError):
        return sp.Symbol("not_cond")


def is_volatile_type(t: Optional[ir.CType]) -> bool:
    if t is None:
        return False
    return bool(t.is_volatile or "volatile" in (t.spelling or ""))
