"""Index expressions as sympy expressions: the address every memory access of a kernel uses.

A kernel body is walked once, in program order, with an environment that maps each local
variable to its current symbolic value (reaching definitions on structured code):

- ``threadIdx``/``blockIdx``/``blockDim``/``gridDim`` become integer symbols named as in the
  source (``threadIdx.x``); ``warpSize`` is 32. Launch values are bound later (:class:`Bindings`),
  so the stored expression stays symbolic and readable.
- scalar kernel parameters are symbols; pointer parameters are :class:`Pointer` values (an
  object plus a byte offset), so ``const float* src = in + 512 * blockIdx.x; src[t]`` is an
  access of ``in`` at byte offset ``4 * (512 * blockIdx.x + t)``.
- assignment, compound assignment, ``++``/``--`` update the environment; ``if`` forks it and
  merges the two branches into a :class:`sympy.Piecewise` (``?:`` too); a branch that ends in
  ``return``/``break``/``continue`` adds the negated condition to the path instead.
- casts are transparent (float -> int is ``floor``); integer ``/`` and ``%`` become
  ``floor``/``Mod``; shifts by constants become multiplications/``floor`` divisions;
  ``x & (2**k - 1)`` is ``Mod(x, 2**k)``; other bitwise operations are :class:`BitAnd` &c.,
  which evaluate once their arguments are numbers.
- loops: every variable the body changes is analysed with a dry run of one iteration; one
  that advances by a loop-invariant amount (``k++``, ``m += 256``, ``i += blockDim.x *
  gridDim.x``) becomes ``start + step * it`` with an *iteration symbol* ``it`` (named after the
  induction variable when it counts 0, 1, 2, ...); one that changes otherwise becomes an opaque
  symbol (uniform across the warp, or lane-varying when it depends on the thread).
- a value read from memory is :class:`MemLoad` (``idx[i]`` used as an index makes the access
  *data-dependent*); a value the analysis does not model is :class:`Opaque`.
- calls of device functions are inlined (arguments bound to the parameters, the return value
  is the returned expression), so their accesses are collected too.
- ``a[i][j]`` on ``float a[R][C]`` is flattened with the declared extents: byte offset
  ``(i * C + j) * 4``; element sizes come from the types (``float4`` is 16 bytes, structs by
  ``sizeof``); ``a[i].y`` on ``float2`` adds the member offset.

The walk reports every memory access as an :class:`AccessEvent`; ``analyzer/accesses.py``
turns them into the per-access facts.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Union

import sympy as sp

from . import constprop, ir
from .coop_groups import group_dim3, group_kind, group_value, is_rank_method

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
    # iteration symbols: the loop, its trip count (sympy, may be symbolic) and the line
    loop: Optional[ir.Loop] = None
    trip: Optional[sp.Expr] = None
    note: str = ""


class Symbols:
    """Creates the symbols of one kernel analysis and remembers what each one stands for."""

    def __init__(self):
        self.info: dict[sp.Symbol, SymInfo] = {}
        self._by_key: dict = {}
        self._names: set[str] = set()
        self.thread = {c: self._builtin("threadIdx", c, THREAD) for c in "xyz"}

    def _unique(self, name: str) -> str:
        n, k = name, 1
        while n in self._names:
            k += 1
            n = f"{name}_{k}"
        self._names.add(n)
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

    def opaque(self, name: str, note: str = "") -> sp.Symbol:
        return self.make(None, name, OPAQUE, note=note)

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


def _element_index(off: sp.Expr, size: Optional[int]) -> sp.Expr:
    """Byte offset -> element index when it divides evenly (for display of loaded values)."""
    if size and size > 1:
        q = sp.expand(off / size)
        if all(getattr(c, "is_Integer", False) for c in _coefficients(q)):
            return q
    return off


def _coefficients(e: sp.Expr) -> list:
    out = []
    for t in sp.Add.make_args(e):
        c, _ = t.as_coeff_Mul()
        out.append(c)
    return out


# --------------------------------------------------------------------------- walk state


@dataclass
class _State:
    env: dict
    path: tuple = ()
    loops: tuple = ()
    depth: int = 0
    returns: Optional[list] = None
    base_path_len: int = 0
    call_lines: tuple = ()

    def fork(self, extra_cond=None) -> "_State":
        p = self.path + ((extra_cond,) if extra_cond is not None else ())
        return _State(dict(self.env), p, self.loops, self.depth, self.returns,
                      self.base_path_len, self.call_lines)


@dataclass
class _MemLoc:
    pointer: Pointer
    elem: ir.CType
    node: ir.Expr
    name: str
    dims: Optional[list] = None
    volatile: bool = False
    notes: list = field(default_factory=list)


@dataclass
class _VarLoc:
    var: ir.Variable


_REL = {"<": sp.Lt, "<=": sp.Le, ">": sp.Gt, ">=": sp.Ge, "==": sp.Eq, "!=": sp.Ne}
_LDG = {"__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv"}
_STG = {"__stcg", "__stwb", "__stcs", "__stwt"}
_MINMAX = {"min": sp.Min, "max": sp.Max, "umin": sp.Min, "umax": sp.Max, "llmin": sp.Min,
           "llmax": sp.Max, "ullmin": sp.Min, "ullmax": sp.Max, "std::min": sp.Min,
           "std::max": sp.Max, "fminf": sp.Min, "fmaxf": sp.Max, "fmin": sp.Min, "fmax": sp.Max}
_MUL24 = {"__mul24", "__umul24"}
_SHFL_PREFIX = ("__shfl", "__reduce_", "__ballot", "__any", "__all", "__match", "__activemask")
MAX_INLINE_DEPTH = 6
#: Statements the walk may inline into one kernel in all: device functions that call each
#: other several times per level multiply (breadth ** depth); past this, calls are summarised
#: as opaque values and their memory accesses are not listed (said in a note).
INLINE_BUDGET = 20000


def is_data(e) -> bool:
    return isinstance(e, sp.Basic) and bool(e.atoms(MemLoad))


#: A floating-point expression with more nodes than this becomes an opaque value (integer
#: ones at MAX_NODES, the bound every large expression of the walk has).
_FLOAT_EXPR_NODES = 64


def _larger_than(e: sp.Basic, limit: int) -> bool:
    """Whether the expression tree of ``e`` has more than ``limit`` nodes (stops counting
    there, so the test costs at most ``limit`` steps)."""
    n = 0
    for _ in sp.preorder_traversal(e):
        n += 1
        if n > limit:
            return True
    return False


def _int_value(e) -> Optional[int]:
    if isinstance(e, sp.Basic) and e.is_Integer:
        return int(e)
    return None


class Walker:
    """Walks a kernel (and the device functions it calls) and reports memory accesses.

    ``space_of(var)`` says where an array/object variable lives (global, shared, local,
    register, constant); accesses to ``register`` arrays are not memory accesses and are not
    reported.
    """

    def __init__(self, kernel: ir.Function, space_of: Callable[[ir.Variable], str],
                 symbols: Optional[Symbols] = None):
        self.kernel = kernel
        self.space_of = space_of
        self.syms = symbols or Symbols()
        self.events: list[AccessEvent] = []
        self.loops: list[LoopInfo] = []
        self._seq = 0
        self._epoch = 0
        self._dry = 0  # >0 while dry-running a loop body (nothing recorded)
        self.notes: list[str] = []
        self._inline_budget = INLINE_BUDGET
        self._sizes: dict = {}

    # ------------------------------------------------------------------ entry
    def run(self) -> "Walker":
        env: dict = {}
        for p in self.kernel.params:
            env[p] = self._param_value(p)
        st = _State(env)
        if self.kernel.body is not None:
            self._block(self.kernel.body, st)
        return self

    def _param_value(self, p: ir.Variable) -> Value:
        t = p.type
        if t.kind in ("pointer", "array"):
            el = t.element or ir.UNKNOWN_TYPE
            return Pointer(p, "global", sp.Integer(0), el, _volatile(el), p.name)
        if t.kind == "scalar" and not t.is_float:
            return self.syms.param(p)
        if t.kind == "scalar":
            return self.syms.param(p)
        return MemLoad(sp.Symbol(p.name), sp.Integer(0))  # struct/vector by value

    # ------------------------------------------------------------------ statements
    def _block(self, b: ir.Block, st: _State) -> bool:
        for s in b.stmts:
            if self._stmt(s, st):
                return True
        return False

    def _stmt(self, s: ir.Stmt, st: _State) -> bool:
        """Execute one statement; True when it certainly leaves the enclosing block
        (return/break/continue)."""
        if isinstance(s, ir.Block):
            return self._block(s, st)
        if isinstance(s, ir.DeclStmt):
            v = s.var
            if v.type.kind == "array" or _in_memory(v):
                if s.init is not None:
                    self._rvalue(s.init, st)
                return False
            if s.init is not None:
                val = self._rvalue(s.init, st)
                if v.type.kind == "pointer" and isinstance(val, Pointer):
                    el = v.type.element or val.elem
                    val = replace(val, elem=el, volatile=val.volatile or _volatile(el))
                st.env[v] = val if val is not None else self._unknown(v.name, lane=True)
            else:
                st.env[v] = self._unknown(f"{v.name}(uninitialised)", lane=True)
            return False
        if isinstance(s, ir.ExprStmt):
            self._rvalue(s.expr, st)
            return False
        if isinstance(s, ir.Barrier):
            for a in s.args:
                self._rvalue(a, st)
            if not self._dry:
                self._epoch += 1
            for li in st.loops:
                li.has_barrier = True
            return False
        if isinstance(s, ir.If):
            return self._if(s, st)
        if isinstance(s, ir.Loop):
            self._loop(s, st)
            return False
        if isinstance(s, ir.Return):
            val = self._rvalue(s.value, st) if s.value is not None else None
            if st.returns is not None:
                st.returns.append((st.path[st.base_path_len:], val))
            return True
        if isinstance(s, (ir.Break, ir.Continue)):
            return True
        if isinstance(s, ir.Switch):
            self._rvalue(s.cond, st)
            inner = st.fork()
            dead = False  # after a break, until the next case label
            for x in s.body.stmts:
                if isinstance(x, ir.Case):
                    dead = False
                    continue
                if not dead and self._stmt(x, inner):
                    dead = True
            for v in _written_vars([s.body]):
                if v in st.env:
                    st.env[v] = self._unknown(v.name, lane=lane_varying(inner.env.get(v), self.syms)
                                              or True)
            return False
        if isinstance(s, ir.OtherStmt):
            for p in s.parts:
                self._rvalue(p, st)
            return False
        return False

    def _if(self, s: ir.If, st: _State) -> bool:
        c = self._cond(s.cond, st)
        t_st = st.fork(c)
        t_term = self._block(s.then, t_st)
        e_st = st.fork(_not(c))
        e_term = self._block(s.otherwise, e_st) if s.otherwise is not None else False
        if t_term and e_term:
            st.env = self._merge(c, t_st.env, e_st.env)
            return True
        if t_term:
            st.env = e_st.env
            st.path = st.path + (_not(c),)
            return False
        if e_term:
            st.env = t_st.env
            st.path = st.path + (c,)
            return False
        st.env = self._merge(c, t_st.env, e_st.env)
        return False

    def _merge(self, c, a: dict, b: dict) -> dict:
        out = {}
        for v, va in a.items():
            if v not in b:
                continue
            vb = b[v]
            out[v] = self._choice(c, va, vb, v.name)
        return out

    def _choice(self, c, va, vb, name: str = "choice") -> Value:
        if va is vb:
            return va
        try:
            if isinstance(va, sp.Basic) and isinstance(vb, sp.Basic) and va == vb:
                return va
        except TypeError:
            pass
        if isinstance(va, Pointer) and isinstance(vb, Pointer):
            if va.base is vb.base and va.space == vb.space:
                off = self._choice(c, va.offset, vb.offset)
                if isinstance(off, sp.Expr):
                    return replace(va, offset=off, volatile=va.volatile and vb.volatile)
            return Pointer(None, va.space if va.space == vb.space else "unknown",
                           self._unknown(name, lane=True), va.elem, va.volatile and vb.volatile,
                           va.name if va.name == vb.name else name)
        if _is_expr(va) and _is_expr(vb) and isinstance(c, sp.Basic):
            if c.has(sp.Piecewise) or (va.has(sp.Piecewise) and vb.has(sp.Piecewise)):
                # Choices nested in conditions make sympy fold them (exponential): give up.
                lane = lane_varying(va, self.syms) or lane_varying(vb, self.syms) or lane_varying(c, self.syms)
                return self._unknown(name, lane=lane)
            try:
                return _bounded(sp.Piecewise((va, c), (vb, sp.true), evaluate=False), self, name)
            except (TypeError, ValueError):
                pass
        lane = lane_varying(va, self.syms) or lane_varying(vb, self.syms) or \
            (isinstance(c, sp.Basic) and lane_varying(c, self.syms))
        return self._unknown(name, lane=lane)

    # ------------------------------------------------------------------ loops
    def _loop(self, s: ir.Loop, st: _State) -> None:
        for i in s.init:
            self._stmt(i, st)
        declared_inside = {x.var for x in ir.walk_stmt(s.body) if isinstance(x, ir.DeclStmt)}
        written = _written_vars([s.body] + ([ir.ExprStmt(s.range, s.step)] if s.step is not None else []))
        carried = [v for v in written if v not in declared_inside and v in st.env]

        # Dry run of one iteration with each carried variable as an "entry" symbol.
        entry = {}
        for v in carried:
            cur = st.env[v]
            if isinstance(cur, Pointer):
                entry[v] = replace(cur, offset=self.syms.opaque(f"{v.name}@entry"))
            else:
                entry[v] = self.syms.opaque(f"{v.name}@entry")
        entry_syms = {(e.offset if isinstance(e, Pointer) else e) for e in entry.values()}
        dry = st.fork()
        dry.env.update(entry)
        dry.returns = None
        self._dry += 1
        saved = (self._seq, self._epoch)
        try:
            if s.kind != "do" and s.cond is not None:
                self._cond(s.cond, dry)
            self._block(s.body, dry)
            if s.step is not None:
                self._rvalue(s.step, dry)
        finally:
            self._dry -= 1
            self._seq, self._epoch = saved

        increments: dict = {}
        for v in carried:
            end = dry.env.get(v)
            e0 = entry[v]
            if isinstance(e0, Pointer):
                if isinstance(end, Pointer) and end.base is e0.base:
                    inc = sp.expand(end.offset - e0.offset)
                    if isinstance(inc, sp.Expr) and not (inc.free_symbols & entry_syms) \
                            and not lane_varying(inc, self.syms) and not inc.has(Opaque):
                        increments[v] = inc
            elif _is_expr(end) and not v.type.is_float:
                # A float never indexes memory or counts trips, and a float recurrence
                # (x = x*x - y*y + c) makes expand() explode: such variables get no increment.
                inc = sp.expand(end - e0)
                if not (inc.free_symbols & entry_syms) and not inc.has(Opaque) \
                        and not lane_varying(inc, self.syms) and not is_data(inc):
                    increments[v] = inc

        # The iteration symbol: named after a variable counting 0, 1, 2, ...
        name = None
        for v, inc in increments.items():
            cur = st.env[v]
            if not isinstance(cur, Pointer) and inc == 1 and cur == 0:
                name = v.name
                break
        if name is None and increments:
            v0 = next(iter(increments))
            name = f"{v0.name}_iter"
        trip = self._trip_count(s, st, increments)
        it = self.syms.make(("iter", id(s)), name or f"iter_L{s.range.line}", ITER, loop=s, trip=trip)
        li = LoopInfo(s, it, trip)
        if not self._dry:
            self.syms.info[it].trip = trip  # the dry run of an enclosing loop saw entry symbols
            self.loops.append(li)

        body = st.fork()
        body.loops = st.loops + (li,)
        for v in carried:
            cur = st.env[v]
            if v in increments:
                if isinstance(cur, Pointer):
                    body.env[v] = cur.add_bytes(increments[v] * it)
                else:
                    body.env[v] = cur + increments[v] * it
            else:
                end = dry.env.get(v)
                lane = lane_varying(cur if not isinstance(cur, Pointer) else cur.offset, self.syms) \
                    or lane_varying(end if not isinstance(end, Pointer) else getattr(end, "offset", None),
                                    self.syms) or end is None
                if isinstance(cur, Pointer):
                    body.env[v] = cur.add_bytes(self._unknown(f"{v.name}~L{s.range.line}", lane=lane))
                else:
                    body.env[v] = self._unknown(f"{v.name}~L{s.range.line}", lane=lane,
                                                note=f"changes in the loop at line {s.range.line}")
        if s.kind != "do" and s.cond is not None:
            c = self._cond(s.cond, body)
            body.path = body.path + (c,)
        self._block(s.body, body)
        if s.step is not None:
            self._rvalue(s.step, body)
        # After the loop the carried variables hold run-time values.
        for v in carried:
            cur = body.env.get(v)
            val = cur.offset if isinstance(cur, Pointer) else cur
            lane = lane_varying(val, self.syms)
            data = is_data(val)  # read from memory in the loop: stays data-dependent after it
            if isinstance(cur, Pointer):
                st.env[v] = cur.add_bytes(self._unknown(f"{v.name}@exit", lane=lane, data=data))
            else:
                st.env[v] = self._unknown(f"{v.name}@exit_L{s.range.line}", lane=lane, data=data)

    def _trip_count(self, s: ir.Loop, st: _State, increments: dict) -> Optional[sp.Expr]:
        """Iterations of a counted loop ``for (v = a; v CMP b; v += c)`` as a sympy expression."""
        c = s.cond
        if not isinstance(c, ir.BinOp) or c.op not in ("<", "<=", ">", ">=", "!="):
            return None
        for side, other, flip in ((c.lhs, c.rhs, False), (c.rhs, c.lhs, True)):
            if isinstance(side, ir.VarRef) and side.var in increments and side.var in st.env:
                start = st.env[side.var]
                step = increments[side.var]
                if isinstance(start, Pointer) or not step.is_Integer or step == 0:
                    return None
                bound = self._peek(other, st)
                if not _is_expr(bound):
                    return None
                op = c.op
                if flip:
                    op = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}[op]
                step = int(step)
                if op == "<" and step > 0:
                    n = sp.ceiling((bound - start) / step)
                elif op == "<=" and step > 0:
                    n = sp.floor((bound - start) / step) + 1
                elif op == ">" and step < 0:
                    n = sp.ceiling((start - bound) / -step)
                elif op == ">=" and step < 0:
                    n = sp.floor((start - bound) / -step) + 1
                elif op == "!=":
                    n = (bound - start) / step
                else:
                    return None
                return sp.Max(n, 0) if not n.is_number else sp.Integer(max(int(n), 0))
        return None

    def _peek(self, e: ir.Expr, st: _State) -> Value:
        """Evaluate without recording accesses."""
        self._dry += 1
        saved = (self._seq, self._epoch)
        try:
            return self._rvalue(e, st.fork())
        finally:
            self._dry -= 1
            self._seq, self._epoch = saved

    # ------------------------------------------------------------------ expressions
    def _unknown(self, name: str, lane: bool, note: str = "", data: bool = False) -> sp.Expr:
        if data:  # a value derived from memory: opaque, but still known to be data-dependent
            t = self.syms.thread
            return MemLoad(sp.Symbol(name), *((t["x"], t["y"], t["z"]) if lane else ()))
        if lane:
            t = self.syms.thread
            return Opaque(sp.Symbol(name), t["x"], t["y"], t["z"])
        return self.syms.opaque(name, note=note)

    def _cond(self, e: ir.Expr, st: _State):
        if isinstance(e, ir.BinOp) and e.op in _REL:
            a = self._rvalue(e.lhs, st)
            b = self._rvalue(e.rhs, st)
            if _is_expr(a) and _is_expr(b):
                try:
                    return _REL[e.op](a, b)
                except (TypeError, ValueError):
                    pass
            return self.syms.boolean()
        if isinstance(e, ir.BinOp) and e.op in ("&&", "||"):
            a = self._cond(e.lhs, st)
            b = self._cond(e.rhs, st.fork(a if e.op == "&&" else _not(a)))
            try:
                return sp.And(a, b) if e.op == "&&" else sp.Or(a, b)
            except (TypeError, ValueError):
                return self.syms.boolean()
        if isinstance(e, ir.UnaryOp) and e.op == "!":
            return _not(self._cond(e.operand, st))
        if isinstance(e, ir.Cast):
            return self._cond(e.operand, st)
        v = self._rvalue(e, st)
        if isinstance(v, sp.logic.boolalg.Boolean) and not isinstance(v, sp.Expr):
            return v
        if _is_expr(v):
            try:
                return sp.Ne(v, 0)
            except (TypeError, ValueError):
                pass
        return self.syms.boolean()

    def _rvalue(self, e: Optional[ir.Expr], st: _State) -> Value:
        if e is None:
            return None
        if isinstance(e, ir.Const):
            v = e.value
            if isinstance(v, bool):
                return sp.Integer(int(v))
            if isinstance(v, int):
                return sp.Integer(v)
            if isinstance(v, float):
                return sp.Integer(int(v)) if v.is_integer() and not e.type.is_float else sp.Float(v)
            return None
        if isinstance(e, ir.SizeOf):
            return sp.Integer(e.value) if e.value is not None else self._unknown("sizeof", lane=False)
        if isinstance(e, ir.VarRef):
            return self._read_var(e, st)
        if isinstance(e, ir.Builtin):
            return self.syms.builtin(e.name, e.component)
        if isinstance(e, ir.TemplateParam):
            return self.syms.template(e.name)
        if isinstance(e, ir.BinOp):
            return self._binop(e, st)
        if isinstance(e, ir.UnaryOp):
            return self._unary(e, st)
        if isinstance(e, ir.Assign):
            return self._assign(e, st)
        if isinstance(e, ir.Call):
            return self._call(e, st)
        if isinstance(e, ir.Member) and isinstance(e.base, ir.Call) and e.base.args:
            c = e.base
            v = group_dim3(c.callee.split("::")[-1], c.args[0].type.spelling if c.args[0].type else "",
                           e.member, self.syms.builtin)
            if v is not None:
                return v
        if isinstance(e, (ir.Index, ir.Member)):
            return self._load(e, st)
        if isinstance(e, ir.Cast):
            return self._cast(e, st)
        if isinstance(e, ir.Ternary):
            c = self._cond(e.cond, st)
            a = self._rvalue(e.then, st.fork(c))
            b = self._rvalue(e.otherwise, st.fork(_not(c)))
            return self._choice(c, a, b, "?:")
        if isinstance(e, ir.InitList):
            for x in e.items:
                self._rvalue(x, st)
            return self._unknown("init-list", lane=True)
        if isinstance(e, ir.Unknown):
            for x in e.parts:
                self._rvalue(x, st)
            bound = self._template_constant(e)
            if bound is not None:
                return bound
            return self._unknown(e.text[:20] or "unknown", lane=True)
        if isinstance(e, ir.LaunchExpr):
            return None
        return self._unknown(type(e).__name__, lane=True)

    def _template_constant(self, e: ir.Unknown) -> Optional[sp.Expr]:
        """A substituted non-type template parameter the frontend could not evaluate: the
        source text at the node is the parameter's name; take the instantiation's binding."""
        fn = self._current_function or self.kernel
        bindings = dict(self.kernel.template_bindings or {})
        bindings.update(fn.template_bindings or {})
        if not bindings or e.parts or e.range.line != e.range.end_line:
            return None
        name = e.text.strip() or _source_slice(e.range)
        v = bindings.get(name)
        if isinstance(v, bool):
            return sp.Integer(int(v))
        if isinstance(v, int):
            return sp.Integer(v)
        return None

    def _read_var(self, e: ir.VarRef, st: _State) -> Value:
        v = e.var
        if _in_memory(v) and v.type.kind not in ("array", "pointer"):
            loc = self._lvalue(e, st)
            if isinstance(loc, _MemLoc):
                return self._mem_read(loc, st)
        if v in st.env:
            val = st.env[v]
            return val if val is not None else self._unknown(v.name, lane=True)
        t = v.type
        if t.kind == "array":
            space = self.space_of(v)
            el = t.element or ir.UNKNOWN_TYPE
            return Pointer(v, space, sp.Integer(0), el, _volatile(el) or t.is_volatile, v.name, ())
        if v.storage == "param":
            val = self._param_value(v)
            st.env[v] = val
            return val
        if v.file_scope or v.storage in ("device", "constant", "managed", "static", "shared"):
            if t.kind == "pointer":
                el = t.element or ir.UNKNOWN_TYPE
                return Pointer(v, "global", sp.Integer(0), el, _volatile(el), v.name)
            space = self.space_of(v)
            if space in ("global", "constant", "shared") and t.kind in ("scalar", "vector", "record"):
                # A scalar in memory: its read is an access of its own (element offset 0).
                loc = _MemLoc(Pointer(v, space, sp.Integer(0), t, t.is_volatile, v.name), t, e, v.name)
                self._record(loc, "load", st)
            return MemLoad(sp.Symbol(v.name), sp.Integer(0))
        return self._unknown(v.name, lane=True)

    # arithmetic -------------------------------------------------------
    def _binop(self, e: ir.BinOp, st: _State) -> Value:
        op = e.op
        if op in _REL or op in ("&&", "||"):
            c = self._cond(e, st)
            try:
                return sp.Piecewise((sp.Integer(1), c), (sp.Integer(0), sp.true), evaluate=False)
            except (TypeError, ValueError):
                return self._unknown("cond", lane=True)
        a = self._rvalue(e.lhs, st)
        b = self._rvalue(e.rhs, st)
        if op == ",":
            return b
        return self._arith(op, a, b, e.type)

    def _arith(self, op: str, a: Value, b: Value, t: ir.CType) -> Value:
        r = self._arith_exact(op, a, b, t)
        if _is_expr(r) and _larger_than(r, _FLOAT_EXPR_NODES if t.is_float else MAX_NODES):
            # Floats never address memory; a hand-unrolled float recurrence (Mandelbrot's
            # x = x*x - y*y + c, twenty times) or integer hash rounds (MD5, CRC, a PRNG) would
            # grow without bound, where real index expressions stay small. Keep only what the
            # access analysis needs to know of such a value: lane-varying? read from memory?
            return self._unknown(f"float{op}", lane=lane_varying(a, self.syms) or lane_varying(b, self.syms),
                                 data=is_data(a) or is_data(b))
        return r

    def _arith_exact(self, op: str, a: Value, b: Value, t: ir.CType) -> Value:
        if isinstance(a, Pointer) or isinstance(b, Pointer):
            return self._ptr_arith(op, a, b)
        if not (_is_expr(a) and _is_expr(b)):
            lane = lane_varying(a, self.syms) or lane_varying(b, self.syms) or a is None or b is None
            return self._unknown(f"operator{op}", lane=lane)
        try:
            if op == "+":
                return a + b
            if op == "-":
                return a - b
            if op == "*":
                return a * b
            if op == "/":
                if b == 0:
                    return self._unknown("div0", lane=lane_varying(a, self.syms))
                if t.is_float or a.has(sp.Float) or b.has(sp.Float):
                    return a / b
                return _idiv(a, b)
            if op == "%":
                if b == 0 or t.is_float:
                    return self._unknown("mod", lane=lane_varying(a, self.syms))
                if a.is_Integer and b.is_Integer:
                    return sp.Integer(constprop._cmod(int(a), int(b)))
                return sp.Mod(a, b)
            if op == "<<":
                k = _int_value(b)
                if k is not None and 0 <= k < 64:
                    return a * (2 ** k)
                return ShiftLeft(a, b)
            if op == ">>":
                k = _int_value(b)
                if k is not None and 0 <= k < 64:
                    return _idiv(a, sp.Integer(2 ** k))
                return ShiftRight(a, b)
            if op == "&":
                for x, y in ((a, b), (b, a)):
                    k = _int_value(y)
                    if k is not None and k > 0 and (k + 1) & k == 0:
                        return sp.Mod(x, k + 1) if not x.is_Integer else sp.Integer(int(x) & k)
                return BitAnd(a, b)
            if op == "|":
                return BitOr(a, b)
            if op == "^":
                return BitXor(a, b)
        except (TypeError, ValueError, ZeroDivisionError):
            pass
        return self._unknown(f"operator{op}", lane=lane_varying(a, self.syms) or lane_varying(b, self.syms))

    def _ptr_arith(self, op: str, a: Value, b: Value) -> Value:
        if isinstance(a, Pointer) and _is_expr(b) and op in ("+", "-"):
            size = _elem_size(a.elem)
            return a.add_bytes(b * size if op == "+" else -b * size)
        if isinstance(b, Pointer) and _is_expr(a) and op == "+":
            return b.add_bytes(a * _elem_size(b.elem))
        if isinstance(a, Pointer) and isinstance(b, Pointer) and op == "-" and a.base is b.base:
            return _idiv(a.offset - b.offset, sp.Integer(_elem_size(a.elem)))
        return self._unknown(f"pointer{op}", lane=True)

    def _unary(self, e: ir.UnaryOp, st: _State) -> Value:
        op = e.op
        if op in ("pre++", "pre--", "post++", "post--"):
            return self._incdec(e, st)
        if op == "&":
            loc = self._lvalue(e.operand, st)
            if isinstance(loc, _MemLoc):
                p = loc.pointer
                return replace(p, elem=loc.elem, volatile=p.volatile or loc.volatile)
            if isinstance(loc, _VarLoc):
                return Pointer(loc.var, "local", sp.Integer(0), loc.var.type, False, loc.var.name)
            return Pointer(None, "unknown", self._unknown("&", lane=True), e.type.element or ir.UNKNOWN_TYPE)
        if op == "*":
            return self._load(e, st)
        if op == "!":
            c = self._cond(e.operand, st)
            return sp.Piecewise((sp.Integer(1), _not(c)), (sp.Integer(0), sp.true), evaluate=False)
        a = self._rvalue(e.operand, st)
        if not _is_expr(a):
            return self._unknown(op, lane=True)
        if op == "-":
            return -a
        if op == "+":
            return a
        if op == "~":
            return -a - 1
        return self._unknown(op, lane=lane_varying(a, self.syms))

    def _incdec(self, e: ir.UnaryOp, st: _State) -> Value:
        loc = self._lvalue(e.operand, st)
        delta = sp.Integer(1 if e.op.endswith("++") else -1)
        if isinstance(loc, _VarLoc):
            cur = st.env.get(loc.var)
            if cur is None:
                cur = self._read_var(ir.VarRef(e.range, loc.var.type, loc.var), st)
            new = self._arith("+", cur, delta, loc.var.type)
            st.env[loc.var] = new
            return new if e.op.startswith("pre") else cur
        if isinstance(loc, _MemLoc):
            old = self._mem_read(loc, st)
            self._record(loc, "store", st)
            return old
        return self._unknown(e.op, lane=True)

    def _assign(self, e: ir.Assign, st: _State) -> Value:
        loc = self._lvalue(e.target, st)
        if e.op == "=":
            val = self._rvalue(e.value, st)
        else:
            old = self._mem_read(loc, st) if isinstance(loc, _MemLoc) else (
                self._var_value(loc, st) if isinstance(loc, _VarLoc) else None)
            rhs = self._rvalue(e.value, st)
            val = self._arith(e.op[:-1], old, rhs, e.type)
        if isinstance(loc, _VarLoc):
            v = loc.var
            if v.type.kind == "pointer" and isinstance(val, Pointer):
                el = v.type.element or val.elem
                val = replace(val, elem=el, volatile=val.volatile or _volatile(el))
            st.env[v] = val if val is not None else self._unknown(v.name, lane=True)
        elif isinstance(loc, _MemLoc):
            self._record(loc, "store", st)
        return val

    def _var_value(self, loc: _VarLoc, st: _State) -> Value:
        if loc.var in st.env:
            return st.env[loc.var]
        return self._read_var(ir.VarRef(loc.var.range, loc.var.type, loc.var), st)

    def _cast(self, e: ir.Cast, st: _State) -> Value:
        v = self._rvalue(e.operand, st)
        t = e.type
        if t.kind == "pointer":
            el = t.element or ir.UNKNOWN_TYPE
            if isinstance(v, Pointer):
                return replace(v, elem=el, volatile=v.volatile or _volatile(el))
            return Pointer(None, "unknown", self._unknown("(pointer)", lane=lane_varying(v, self.syms)), el)
        if isinstance(v, Pointer):
            return self._unknown("(ptr->int)", lane=True)
        if _is_expr(v) and t.kind == "scalar" and not t.is_float and e.operand.type.is_float:
            return sp.floor(v)
        return v

    # memory -------------------------------------------------------------
    def _lvalue(self, e: ir.Expr, st: _State):
        if isinstance(e, ir.VarRef):
            v = e.var
            if v.type.kind == "array":
                return None
            if _in_memory(v) and v.type.kind != "pointer":
                space = self.space_of(v)
                return _MemLoc(Pointer(v, space, sp.Integer(0), v.type, _volatile(v.type), v.name),
                               v.type, e, v.name, None, _volatile(v.type))
            return _VarLoc(v)
        if isinstance(e, ir.Cast):
            return self._lvalue(e.operand, st)
        if isinstance(e, ir.Index):
            base = self._rvalue(e.base, st)
            idx = self._rvalue(e.index, st)
            if isinstance(idx, Pointer) and not isinstance(base, Pointer):
                base, idx = idx, base
            name = _source_name(e)
            if not isinstance(base, Pointer):
                obj = _record_object(e.base)
                if obj is not None:
                    # `packed[k]` through a class's operator[] (llm.c's x128): an element of the
                    # object itself, wherever the object lives (registers for a local).
                    size = e.type.size if e.type.size else 4
                    k = idx if _is_expr(idx) else self._unknown("index", lane=True)
                    p = Pointer(obj, self.space_of(obj), k * size, e.type, _volatile(obj.type), obj.name)
                    return _MemLoc(p, e.type, e, name)
                return _MemLoc(Pointer(None, "unknown", self._unknown("base", lane=True), e.type),
                               e.type, e, name)
            size = e.type.size if e.type.size else _elem_size(base.elem)
            if not _is_expr(idx):
                idx = self._unknown("index", lane=True)
            subs = base.subs + (idx,) if base.subs is not None else None
            p = replace(base.add_bytes(idx * size), elem=e.type, subs=subs)
            dims = None
            if subs is not None and base.base is not None and \
                    len(subs) == len(base.base.type.array_extents()) >= 2:
                dims = list(subs)
            return _MemLoc(p, e.type, e, name, dims, p.volatile or _volatile(e.type))
        if isinstance(e, ir.UnaryOp) and e.op == "*":
            p = self._rvalue(e.operand, st)
            name = _source_name(e)
            if not isinstance(p, Pointer):
                p = Pointer(None, "unknown", self._unknown("*", lane=True), e.type)
            return _MemLoc(replace(p, elem=e.type), e.type, e, name, None, p.volatile or _volatile(e.type))
        if isinstance(e, ir.Member):
            if e.arrow:
                p = self._rvalue(e.base, st)
                if not isinstance(p, Pointer):
                    return None
                off, note = _member_offset(p.elem, e.member)
                loc = _MemLoc(replace(p.add_bytes(off), elem=e.type), e.type, e, _source_name(e),
                              None, p.volatile or _volatile(e.type))
                if note:
                    loc.notes.append(note)
                return loc
            inner = self._lvalue(e.base, st)
            if isinstance(inner, _MemLoc):
                off, note = _member_offset(inner.elem, e.member)
                loc = _MemLoc(replace(inner.pointer.add_bytes(off), elem=e.type), e.type, e,
                              inner.name, None, inner.volatile or _volatile(e.type), list(inner.notes))
                if note:
                    loc.notes.append(note)
                return loc
            return None
        return None

    def _mem_read(self, loc: _MemLoc, st: _State, cache: str = "") -> Value:
        if loc.elem.kind == "array":
            return replace(loc.pointer, elem=loc.elem.element or ir.UNKNOWN_TYPE)
        self._record(loc, "load", st, cache=cache)
        if loc.elem.kind == "pointer":
            # A pointer read from memory: an object we do not know, at an address that is data.
            el = loc.elem.element or ir.UNKNOWN_TYPE
            val = MemLoad(sp.Symbol(loc.name or "mem"), _element_index(loc.pointer.offset, loc.elem.size))
            return Pointer(None, "global", val, el, _volatile(el), f"{loc.name}[]")
        off = loc.pointer.offset
        return MemLoad(sp.Symbol(loc.name or "mem"), _element_index(off, loc.elem.size))

    def _load(self, e: ir.Expr, st: _State) -> Value:
        loc = self._lvalue(e, st)
        if isinstance(loc, _MemLoc):
            return self._mem_read(loc, st)
        if isinstance(e, ir.Member):
            base = self._rvalue(e.base, st)
            if isinstance(base, sp.Basic) and is_data(base):
                return MemLoad(sp.Symbol(f".{e.member}"), base)
            return self._unknown(f".{e.member}", lane=lane_varying(base, self.syms) if
                                 isinstance(base, sp.Basic) else True)
        return self._unknown("load", lane=True)

    def _record(self, loc: _MemLoc, kind: str, st: _State, atomic: bool = False, cache: str = "") -> None:
        if self._dry:
            return
        p = loc.pointer
        if p.space == "register":
            return
        self._seq += 1
        size = loc.elem.size if loc.elem.size else (p.elem.size if p.elem is not None else None)
        name = loc.name or p.name
        fn = self._current_function or self.kernel
        if p.name and fn is not self.kernel and any(prm.name == name for prm in fn.params):
            # Inside an inlined helper (`load128(const T* address)`): the caller's array.
            name = p.name
        self.events.append(AccessEvent(
            node=loc.node, kind=kind, pointer=p, elem=loc.elem, elem_bytes=size,
            name=name, path=st.path, loops=st.loops, seq=self._seq,
            epoch=self._epoch, function=self._function_of(loc.node), volatile=loc.volatile,
            atomic=atomic, dims=loc.dims, notes=list(loc.notes), call_lines=st.call_lines,
            cache=cache))

    def _function_of(self, node: ir.Expr) -> ir.Function:
        f = self._current_function
        return f if f is not None else self.kernel

    _current_function: Optional[ir.Function] = None

    # calls ----------------------------------------------------------------
    def _call(self, e: ir.Call, st: _State) -> Value:
        name = e.callee.split("::")[-1] if e.callee else ""
        full = e.callee or ""
        if name in _LDG and e.args:
            p = self._rvalue(e.args[0], st)
            if isinstance(p, Pointer):
                el = p.elem if p.elem is not None and p.elem.size else e.type
                loc = _MemLoc(replace(p, elem=el), el, e, _source_name(e.args[0]))
                return self._mem_read(loc, st, cache="ca" if name in ("__ldg", "__ldca") else "cg")
            return self._unknown(name, lane=True)
        if name in _STG and len(e.args) >= 2:
            p = self._rvalue(e.args[0], st)
            self._rvalue(e.args[1], st)
            if isinstance(p, Pointer):
                self._record(_MemLoc(p, p.elem, e, _source_name(e.args[0])), "store", st)
            return None
        if name.startswith("atomic") and e.args:
            p = self._rvalue(e.args[0], st)
            vals = [self._rvalue(a, st) for a in e.args[1:]]
            if isinstance(p, Pointer):
                self._record(_MemLoc(p, p.elem, e, _source_name(e.args[0])), "store", st, atomic=True)
            args = [v for v in vals if _is_expr(v)]
            # each lane gets its own old value: lane-varying data
            return MemLoad(sp.Symbol(name), *args, self.syms.thread["x"])
        if name in ("__syncthreads_count", "__syncthreads_and", "__syncthreads_or", "__syncwarp"):
            for a in e.args:
                self._rvalue(a, st)
            if not self._dry:
                self._epoch += 1
            for li in st.loops:
                li.has_barrier = True
            return self._unknown(name, lane=False)
        group = self._group_call(e, name)
        if group is not None:
            return group
        vals = [self._rvalue(a, st) for a in e.args]
        if full in _MINMAX or name in _MINMAX:
            fn = _MINMAX.get(full) or _MINMAX[name]
            if len(vals) == 2 and all(_is_expr(v) for v in vals):
                try:
                    return fn(*vals)
                except (TypeError, ValueError):
                    pass
        if name in ("abs", "labs", "llabs") and len(vals) == 1 and _is_expr(vals[0]):
            return sp.Abs(vals[0])
        if name in _MUL24 and len(vals) == 2 and all(_is_expr(v) for v in vals):
            return vals[0] * vals[1]
        if name.startswith(_SHFL_PREFIX):
            return self._warp_collective(name, vals)
        fn = e.function
        if fn is not None and fn.body is not None and st.depth < MAX_INLINE_DEPTH:
            size = self._sizes.get(id(fn))
            if size is None:
                size = self._sizes[id(fn)] = sum(1 for _ in ir.walk_stmt(fn.body))
            if self._inline_budget >= size:
                self._inline_budget -= size
                return self._inline(e, fn, vals, st)
            note = (f"device function `{fn.name}` not inlined at line {e.range.line} (the kernel's "
                    f"inlining budget of {INLINE_BUDGET} statements is spent): its memory accesses "
                    "are not listed")
            if note.split(" at line")[0] not in [n.split(" at line")[0] for n in self.notes]:
                self.notes.append(note)
        args = [v for v in vals if _is_expr(v)]
        ptr_args = [v.offset for v in vals if isinstance(v, Pointer)]
        return Opaque(sp.Symbol(name or "call"), *(args + ptr_args))

    def _warp_collective(self, name: str, vals: list) -> Value:
        """A shuffle, vote, match or warp reduction. Its result is data (read from memory)
        only when an operand is; otherwise it is a register value moved between lanes: the
        same value when the operand is the same in every lane, else a per-lane value the
        analysis does not model (never "read from memory": no CL203 for it)."""
        args = [v for v in vals if _is_expr(v)]
        data = any(is_data(v) for v in args)
        uniform_result = name.startswith(("__ballot", "__any", "__all", "__reduce", "__activemask"))
        if data:
            tail = () if uniform_result else (self.syms.thread["x"],)
            return MemLoad(sp.Symbol(name), *args, *tail)
        if uniform_result:
            return self._unknown(name, lane=False)
        moved = vals[1] if name.endswith("_sync") and len(vals) > 1 else (vals[0] if vals else None)
        if name.startswith("__shfl") and _is_expr(moved) and not lane_varying(moved, self.syms):
            return moved  # every lane holds the same value: any lane's copy is it
        return self._unknown(name, lane=True)

    def _group_call(self, e: ir.Call, name: str) -> Optional[sp.Expr]:
        """A cooperative group's rank or size (``block.thread_rank()``, ``cg::thread_rank(g)``)
        in terms of the built-in variables (:mod:`.coop_groups`); None for anything else."""
        if not e.args or e.function is not None and e.function.body is not None:
            return None
        v = group_value(name, e.args[0].type.spelling if e.args[0].type else "", self.syms.builtin)
        if v is None and is_rank_method(name) and group_kind(e.args[0].type.spelling)[0]:
            return self._unknown(name, lane=True)  # a rank cudalint cannot express
        return v

    def _inline(self, e: ir.Call, fn: ir.Function, vals: list, st: _State) -> Value:
        env = {}
        for p, v in zip(fn.params, vals):
            if p.type.kind == "pointer" and isinstance(v, Pointer):
                el = p.type.element or v.elem
                v = replace(v, elem=el, volatile=v.volatile or _volatile(el))
            env[p] = v if v is not None else self._unknown(p.name, lane=True)
        for p in fn.params[len(vals):]:
            env[p] = self._unknown(p.name, lane=True)
        sub = _State(env, st.path, st.loops, st.depth + 1, [], len(st.path),
                     st.call_lines + (e.range.line,))
        saved = self._current_function
        self._current_function = fn
        try:
            self._block(fn.body, sub)
        finally:
            self._current_function = saved
        rets = sub.returns or []
        if not rets:
            return None
        if len(rets) == 1 and not rets[0][0]:
            return rets[0][1]
        pieces = []
        if len(rets) > 16:
            return self._unknown(fn.name, lane=True)
        for extra, v in rets:
            if not _is_expr(v) or _larger_than(v, MAX_NODES) or \
                    any(_larger_than(x, MAX_NODES // 4) for x in extra if isinstance(x, sp.Basic)):
                # many or large returns: a Piecewise of them would only be thrown away later
                return self._unknown(fn.name, lane=True)
            cond = sp.And(*extra) if extra else sp.true
            pieces.append((v, cond))
            if cond is sp.true:
                break
        if pieces[-1][1] is not sp.true:
            pieces[-1] = (pieces[-1][0], sp.true)
        try:
            return _bounded(sp.Piecewise(*pieces, evaluate=False), self, fn.name)
        except (TypeError, ValueError):
            return self._unknown(fn.name, lane=True)


# --------------------------------------------------------------------------- helpers


_LINES_CACHE: dict = {}


def _source_slice(r: ir.SourceRange) -> str:
    if not r.file or r.line <= 0:
        return ""
    lines = _LINES_CACHE.get(r.file)
    if lines is None:
        try:
            with open(r.file, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            lines = []
        if len(_LINES_CACHE) > 64:
            _LINES_CACHE.clear()
        _LINES_CACHE[r.file] = lines
    if r.line > len(lines):
        return ""
    return lines[r.line - 1][r.column - 1:r.end_column - 1].strip()


_MEMORY_STORAGE = ("shared", "extern_shared", "device", "constant", "managed", "static")


def _record_object(e: ir.Expr) -> Optional[ir.Variable]:
    """The per-thread object an indexed expression lives in: a class-typed variable indexed
    through its ``operator[]`` (``packed[k]``) or an array member of one (``a.v[k]`` with
    ``f4 a``); None for anything else (pointers, memory objects)."""
    while isinstance(e, (ir.Cast, ir.Member)):
        if isinstance(e, ir.Member):
            if e.arrow:
                return None
            e = e.base
        else:
            e = e.operand
    if isinstance(e, ir.VarRef) and e.var.type is not None and e.var.type.kind == "record" and \
            not _in_memory(e.var):
        return e.var
    return None


def _in_memory(v: ir.Variable) -> bool:
    """A variable that lives in memory (shared, global, constant): reading it is an access."""
    return v.storage in _MEMORY_STORAGE or (v.file_scope and v.storage not in ("host", "builtin"))


def _written_vars(stmts: list) -> set:
    """Variables whose own value is changed inside ``stmts`` (assignment, ++/--, address
    taken); a store through ``a[i]`` does not change ``a``."""
    out: set = set()

    def root(e):
        while isinstance(e, ir.Cast):
            e = e.operand
        return e.var if isinstance(e, ir.VarRef) else None

    for s0 in stmts:
        for st in ir.walk_stmt(s0):
            if isinstance(st, ir.DeclStmt):
                out.add(st.var)
            for e in st.exprs():
                for x in e.walk():
                    if isinstance(x, ir.Assign):
                        v = root(x.target)
                    elif isinstance(x, ir.UnaryOp) and x.op in ("pre++", "pre--", "post++",
                                                                 "post--", "&"):
                        v = root(x.operand)
                    else:
                        continue
                    if v is not None:
                        out.add(v)
    return out


def _is_expr(v) -> bool:
    return isinstance(v, sp.Expr)


MAX_NODES = 400


def _bounded(e: sp.Expr, w: "Walker", name: str) -> sp.Expr:
    """``e``, or an opaque value when it has grown too large to be useful (branchy code in
    loops can nest choices exponentially)."""
    if _larger_than(e, MAX_NODES):
        return w._unknown(name, lane=lane_varying(e, w.syms))
    return e


def _not(c):
    try:
        return sp.Not(c)
    except (TypeError, ValueError):
        return sp.Symbol("not_cond")


def _idiv(a: sp.Expr, b: sp.Expr) -> sp.Expr:
    """C integer division of (assumed non-negative) integers."""
    if a.is_Integer and b.is_Integer and b != 0:
        return sp.Integer(constprop._cdiv(int(a), int(b)))
    if _larger_than(a, 64):
        # simplifying floor() of a big expression queries sympy's assumptions for every term
        # (hash and PRNG arithmetic): keep it as written
        return sp.floor(sp.Mul(a, sp.Pow(b, -1), evaluate=False), evaluate=False)
    return sp.floor(a / b)


def _volatile(t: Optional[ir.CType]) -> bool:
    if t is None:
        return False
    return bool(t.is_volatile or "volatile" in (t.spelling or ""))


def _elem_size(t: Optional[ir.CType]) -> int:
    if t is None or not t.size:
        return 1
    return t.size


_VEC_COMPONENTS = "xyzw"


def _member_offset(t: Optional[ir.CType], member: str) -> tuple[int, str]:
    """Byte offset of ``member`` in ``t``: exact for vector types (float4.z = 8), else 0 with
    a note (the IR keeps no struct layout)."""
    if t is not None and t.kind == "vector" and member in _VEC_COMPONENTS and t.size and t.lanes:
        comp = t.size // t.lanes
        return _VEC_COMPONENTS.index(member) * comp, ""
    return 0, (f"offset of member `{member}` in `{t.spelling if t else '?'}` not known; "
               "assumed 0 (alignment within the struct not modelled)")


def _source_name(e: ir.Expr) -> str:
    """The variable an access expression is written against (`tile` for `tile[i][j]`)."""
    node = e
    for _ in range(32):
        if isinstance(node, ir.Index):
            node = node.base
        elif isinstance(node, ir.Member):
            node = node.base
        elif isinstance(node, ir.Cast):
            node = node.operand
        elif isinstance(node, ir.UnaryOp) and node.op in ("*", "&"):
            node = node.operand
        elif isinstance(node, ir.BinOp) and node.op in ("+", "-"):
            node = node.lhs if node.lhs.type.kind in ("pointer", "array") else node.rhs
        else:
            break
    if isinstance(node, ir.VarRef):
        return node.var.name
    return ""


# --------------------------------------------------------------------------- bindings


DEFAULT_PARAM_VALUE = 1024


@dataclass
class Bindings:
    """Numbers for symbols: launch dimensions, ``--param`` values, launch-site arguments.

    ``values`` are known; ``defaults`` are used only where a number is needed and then listed
    as an assumption by the caller (``describe``)."""

    values: dict = field(default_factory=dict)
    sources: dict = field(default_factory=dict)
    defaults: dict = field(default_factory=dict)

    def bind(self, e):
        if not isinstance(e, sp.Basic) or not self.values:
            return e
        return e.xreplace(self.values)

    def describe(self, s: sp.Symbol) -> str:
        if s in self.values:
            return f"{s.name} = {self.values[s]} {self.sources.get(s, '')}".strip()
        if s in self.defaults:
            return f"{s.name} assumed {self.defaults[s]} (no value known)"
        return s.name


def make_bindings(syms: Symbols, launch, params: Optional[dict] = None) -> Bindings:
    """Bind blockDim/gridDim from ``launch`` (a LaunchConfig), kernel parameters from
    ``params`` (``--param``) and then from the launch site, template constants from
    ``params`` too. Parameters left unbound get a stated default."""
    b = Bindings()
    params = params or {}
    block = getattr(launch, "block", None) or (256, 1, 1)
    grid = getattr(launch, "grid", None)
    src = getattr(launch, "source", "default")
    site = getattr(launch, "site", None)
    where = {"command-line": "from --block", "launch-site":
             f"from the launch at line {site.range.line}" if site is not None else "from the launch site",
             "launch-bounds": "from __launch_bounds__", "default": "(default block, no launch found)"}
    for s, info in syms.info.items():
        if info.kind == BLOCKDIM:
            b.values[s] = sp.Integer(block["xyz".index(info.component)])
            b.sources[s] = where.get(src, "")
        elif info.kind == GRIDDIM:
            if grid:
                b.values[s] = sp.Integer(grid["xyz".index(info.component)])
                b.sources[s] = "from --grid" if src == "command-line" else "from the launch"
            else:
                b.defaults[s] = sp.Integer(DEFAULT_PARAM_VALUE)
        elif info.kind in (PARAM, TEMPLATE):
            name = info.var.name if info.var is not None else info.name
            if name in params and _is_number(params[name]):
                b.values[s] = sp.Integer(int(params[name]))
                b.sources[s] = "from --param"
                continue
            pv = getattr(launch, "param_values", {}) or {}
            if info.kind == PARAM and name in pv and _is_number(pv[name]):
                b.values[s] = sp.Integer(int(pv[name]))
                line = site.range.line if site is not None else "?"
                b.sources[s] = f"from the launch site at line {line}"
                continue
            if info.var is None or not info.var.type.is_float:
                b.defaults[s] = sp.Integer(DEFAULT_PARAM_VALUE)
    return b


def _is_number(v) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    return isinstance(v, float) and v.is_integer()


def walk_kernel(kernel: ir.Function, space_of: Callable[[ir.Variable], str]) -> Walker:
    """Walk ``kernel`` and return the walker (``.events``, ``.syms``, ``.loops``)."""
    return Walker(kernel, space_of).run()


def to_sympy(e: ir.Expr, env: Optional[dict] = None, symbols: Optional[Symbols] = None) -> Value:
    """Convert one IR expression (no side effects recorded) with ``env`` mapping
    :class:`ir.Variable` to values. Convenience for tests and other analyses."""
    w = Walker(ir.Function("expr", "device", [], None, e.range), lambda v: "global", symbols)
    w._dry = 1
    return w._rvalue(e, _State(dict(env or {})))
