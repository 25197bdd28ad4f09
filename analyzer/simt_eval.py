"""Expressions and memory for the per-thread interpreter (:class:`.simt.Simt`): evaluation of
every IR expression to one value per thread, loads and stores through pointers, C arithmetic
on those vectors, calls (built-ins, warp intrinsics, cooperative groups, inlined device
functions), and the recording of memory accesses into the current interval's log.

:class:`SimtEval` is the expression half of ``Simt`` (a mixin over the interpreter's state:
``n``, ``ts``, ``params``, masks, the access buckets); the statement half, control flow and
barriers, is in :mod:`.simt`.
"""
from __future__ import annotations

import re
import zlib
from typing import Optional

import numpy as np

from . import cint, ir, simt_facts
from .cfg import BLOCK_BARRIER_CALLS, WARP_BARRIER_CALLS, is_grid_sync
from .simt_log import Access
from .simt_values import (_INT, OP_SALT, LazyTokens, lazy_depth, MemLoc, Mask, Ptr, RegLoc, V, _elem_size, _Frame,
                          _space_of, mix_tokens, token_part, truth)

MAX_INLINE_DEPTH = 6
#: Lazily mixed provenance tokens chained at most this deep (see SimtEval._lazy_tokens).
LAZY_TOKEN_DEPTH = 24

_CG_QUERIES = {"thread_rank", "size", "num_threads", "meta_group_rank", "meta_group_size",
               "block_rank", "num_blocks"}
#: Builtins that return a compile-time constant (what INFINITY and HUGE_VAL expand to).
_CONSTANT_CALLS = {"__builtin_inff": float("inf"), "__builtin_inf": float("inf"),
                   "__builtin_infl": float("inf"), "__builtin_huge_valf": float("inf"),
                   "__builtin_huge_val": float("inf"), "__builtin_huge_vall": float("inf")}
_MATH2 = {"min", "max", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax", "std::min",
          "std::max", "fminf", "fmaxf", "fmin", "fmax", "__mul24", "__umul24", "__hadd", "__rhadd"}
_MATH1 = {"abs", "fabsf", "fabs", "floorf", "floor", "ceilf", "ceil", "truncf", "trunc", "rintf",
          "__float2int_rz", "__float2int_rd", "__float2int_ru", "__float2int_rn", "__popc", "__ffs",
          "__clz", "sqrtf", "sqrt", "log2f", "log2"}


#: Math functions whose result depends on their arguments alone, that the interpreter does not
#: evaluate: two threads that pass equal arguments get equal results (provenance tokens).
_PURE_MATH = frozenset(
    [f + sfx for f in ("sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
                       "exp", "exp2", "exp10", "expm1", "log", "log10", "log1p", "pow", "rsqrt",
                       "cbrt", "rcbrt", "hypot", "fmod", "remainder", "erf", "erfc", "copysign",
                       "fma", "fdim", "round", "lround", "lrint", "nearbyint")
     for sfx in ("f", "")]
    + ["__expf", "__exp10f", "__logf", "__log2f", "__log10f", "__sinf", "__cosf", "__tanf",
       "__powf", "__fdividef", "fdividef", "__saturatef", "__frcp_rn", "__fsqrt_rn", "__fadd_rn",
       "__fmul_rn", "__fdiv_rn", "__fmaf_rn", "__fsub_rn", "__drcp_rn", "__dadd_rn", "__dmul_rn",
       "__int2float_rn", "__uint2float_rn", "__float2uint_rn", "__float2uint_rz", "__int_as_float",
       "__float_as_int", "__float_as_uint", "__uint_as_float"])

_COMPARE = {"<": np.less, ">": np.greater, "<=": np.less_equal, ">=": np.greater_equal,
            "==": np.equal, "!=": np.not_equal}

_REDUCE_SYNC = {"__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync",
                "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync"}


def _declared_extent(base_expr: ir.Expr) -> Optional[int]:
    """The extent of the array an index expression's base is (``t[ty]`` of ``t[16][16]``:
    16), None when it is not an array of known extent."""
    while isinstance(base_expr, ir.Cast) and base_expr.implicit:
        base_expr = base_expr.operand
    t = getattr(base_expr, "type", None)
    if t is None or t.kind != "array" or not t.extent:
        return None
    return t.extent


def _reduction_group(e: ir.Call) -> int:
    """Threads per group that all receive the result of this reduction call (0: not one)."""
    name = e.callee
    if name in _REDUCE_SYNC:
        return 32
    if name.split("::")[-1] == "reduce" and e.args:
        sp_ = e.args[0].type.spelling
        m = re.search(r"thread_block_tile<\s*(\d+)", sp_)
        if m:
            return int(m.group(1))
        if "coalesced_group" in sp_ or "thread_block" in sp_ and "tile" not in sp_:
            return 0  # the group's extent is not known here
    return 0


def _preserves_value(name: str, args: list) -> bool:
    """An atomic read-modify-write that leaves the value unchanged (``atomicAdd(&c, 0)``,
    ``atomicOr(&c, 0)``): it returns the same value to every thread."""
    base = name.split("_")[0] if name.startswith("atomic") else ""
    if base not in ("atomicAdd", "atomicSub", "atomicOr", "atomicXor") or len(args) != 1:
        return False
    a = args[0]
    return isinstance(a, V) and bool(np.all(a.k)) and bool(np.all(a.v == 0))


#: atomics that add to one counter for the whole grid (``atomicAdd_block`` is atomic only
#: within a block: two blocks can draw the same value)
_GRID_ADDS = {"atomicAdd": 1, "atomicAdd_system": 1, "atomicSub": -1, "atomicSub_system": -1}


def _ticket_counter(name: str, p: Ptr, args: list, m: Mask):
    """``atomicAdd(&c, k)`` / ``atomicSub(&c, k)`` on an integer in global memory, with ``k``
    a known nonzero number of one sign and ``&c`` one known address for every thread that runs
    it: every call returns a different value (a ticket), so that one value is drawn once in the
    whole grid while nothing else writes ``c``. Returns ``(variable, byte offset, sign)``, or
    None when this execution is not such a draw."""
    sign = _GRID_ADDS.get(name)
    if sign is None or len(args) != 1 or not isinstance(args[0], V) or p.var is None or \
            p.space != "global" or p.elem is None or p.elem.is_float or args[0].is_float:
        return None
    act = m.may
    a, off = args[0], p.off
    if not act.any() or not bool(np.all(a.k[act])) or not bool(np.all(off.k[act])):
        return None
    k = a.v[act]
    if np.all(k > 0):
        s = sign
    elif np.all(k < 0):
        s = -sign
    else:
        return None
    o = np.unique(off.v[act])
    if len(o) != 1:
        return None
    return (p.var, int(o[0]), s)


def _may_repeat(name: str, args: list, m: Mask) -> bool:
    """``atomicAdd(&c, k)`` where k is 0 for some thread that runs it: that thread gets the
    value the next adder also gets, so the returned values are not unique per thread."""
    if not name.startswith("atomicAdd") or len(args) != 1 or not isinstance(args[0], V):
        return False
    a = args[0]
    act = m.may
    return bool(np.all(a.k[act])) and bool(np.any(a.v[act] == 0))


# ---------------------------------------------------------------------- expression dispatch
# ``SimtEval.ev`` runs once per expression node per execution: it picks the handler from the
# node's class (found once per class by the isinstance tests below, in this order) instead of
# walking those tests every time.

def _ev_const(sim, e, m, fr):
    if isinstance(e.value, bool):
        return sim.const(int(e.value))
    if isinstance(e.value, (int, float)):
        return sim.const(e.value)
    return None


def _ev_sizeof(sim, e, m, fr):
    return sim.const(e.value) if e.value is not None else sim.unknown()


def _ev_builtin(sim, e, m, fr):
    return sim._builtin(e)


def _ev_template(sim, e, m, fr):
    return sim.unknown()


def _ev_varref(sim, e, m, fr):
    r = sim._varref(e, m, fr)
    return simt_facts.refine(sim, r) if sim.facts else r


def _ev_load(sim, e, m, fr):
    r = sim._load(e, m, fr)
    return simt_facts.refine(sim, r) if sim.facts else r


def _ev_other(sim, e, m, fr):
    for c in e.children():
        if c is not None:
            sim.ev(c, m, fr)
    return sim.unknown()


def _ev_handler(e: ir.Expr):
    if isinstance(e, ir.Const):
        return _ev_const
    if isinstance(e, ir.SizeOf):
        return _ev_sizeof
    if isinstance(e, ir.Builtin):
        return _ev_builtin
    if isinstance(e, ir.TemplateParam):
        return _ev_template
    if isinstance(e, ir.VarRef):
        return _ev_varref
    if isinstance(e, (ir.Index, ir.Member)):
        return _ev_load
    # SimtEval's own methods (subclasses override what a run records, not the evaluation)
    for cls, fn in ((ir.UnaryOp, SimtEval._unary), (ir.BinOp, SimtEval._binop),
                    (ir.Assign, SimtEval._assign), (ir.Cast, SimtEval._cast),
                    (ir.Ternary, SimtEval._ternary), (ir.Call, SimtEval._call)):
        if isinstance(e, cls):
            return fn
    return _ev_other


_EV: dict = {}  # expression class -> handler
_MISSING = object()
_PLAIN = (np.dtype(_INT), np.dtype(np.float64))  # the kinds of values the interpreter makes


class SimtEval:
    """Expression evaluation and memory (see the module docstring)."""

    def cond(self, e: ir.Expr, m: Mask, fr: _Frame) -> V:
        v = self.ev(e, m, fr)
        if isinstance(v, Ptr):
            return V((v.off.v != 0).astype(_INT) | 1, v.off.k.copy())  # non-null pointer
        if not isinstance(v, V):
            return self.unknown()
        # a condition not known but equal between threads keeps the value's provenance tokens
        # (equal values, equal truth): a `?:` on it selects equal values (``_select``)
        if self.record and isinstance(v, LazyTokens) and v._mix is not None:
            return LazyTokens(v.v != 0, v.k, v._mix)
        t = v.t if self.record else None
        if v.k is self._unknown_k and t is None:
            return self.unknown()
        # booleans, not 0/1 integers: a condition's value is read only through truth()
        return V(v.v != 0, v.k, t)

    def ev(self, e: Optional[ir.Expr], m: Mask, fr: _Frame):
        if e is None:
            return None
        h = _EV.get(type(e))
        if h is None:
            h = _EV[type(e)] = _ev_handler(e)
        return h(self, e, m, fr)

    def _builtin(self, e: ir.Builtin) -> V:
        ts = self.ts
        if e.name == "warpSize":
            return self.const(32)
        comp = "xyz".index(e.component) if e.component in ("x", "y", "z") else 0
        if e.name == "threadIdx":
            return self.arr((ts.tx, ts.ty, ts.tz)[comp])
        if e.name == "blockIdx":
            return self.arr((ts.bx, ts.by, ts.bz)[comp])
        if e.name == "blockDim":
            return self.const(ts.block[comp])
        if e.name == "gridDim":
            if ts.grid:
                return self.const(ts.grid[comp])
            # not known, but the same for every thread of the grid
            out = self.unknown()
            out.t = np.full(self.n, (self._object_ids.setdefault(("gridDim", comp), len(self._object_ids) + 1)
                                     << 40) + 1, dtype=_INT)
            return out
        return self.unknown()

    def _varref(self, e: ir.VarRef, m: Mask, fr: _Frame):
        v = e.var
        st = v.storage
        if st == "auto":  # the common case: a local, in the frame or not yet defined
            val = fr.env.get(v, _MISSING)
            if val is not _MISSING and v.type.kind != "array" and not v.file_scope:
                if isinstance(val, (MemLoc, RegLoc)):  # a reference
                    return self.read(val, m, fr)
                return val if val is not None else self.unknown()
        if st == "builtin":
            return None
        if v.type.kind == "array" and isinstance(fr.env.get(v), Ptr):
            return fr.env[v]  # an array parameter (`int xrefs[16]`): what the caller passed
        if v.type.kind == "array" and isinstance(fr.env.get(v), MemLoc):
            # a reference to an array (`T (&R)[M][N]`): the caller's array, not an object of its own
            b = fr.env[v].ptr
            if b is None:
                return self.unknown()
            return Ptr(b.var, b.space, b.off, v.type.element or ir.UNKNOWN_TYPE, b.volatile)
        if v.type.kind == "array":
            # the array's start, the same pointer every time (pointers are never changed)
            p = self._array_starts.get(v)
            if p is None:
                p = self._array_starts[v] = Ptr(
                    v, _space_of(v), self.const(0), v.type.element or ir.UNKNOWN_TYPE,
                    v.type.is_volatile or bool(v.type.element and v.type.element.is_volatile))
            return p
        if v.storage in ("shared", "extern_shared"):
            loc = MemLoc(Ptr(v, "shared", self.const(0), v.type, v.type.is_volatile), e, v.type.size, v.type)
            self.access(loc, False, m)
            return self._loaded(loc)
        if v.storage in ("constant", "device", "managed") or (v.file_scope and v.storage != "param"):
            loc = MemLoc(Ptr(v, _space_of(v), self.const(0), v.type), e, v.type.size, v.type)
            self.access(loc, False, m)
            return self._loaded(loc)
        if v in fr.env:
            val = fr.env[v]
            if isinstance(val, (MemLoc, RegLoc)):  # a reference
                return self.read(val, m, fr)
            return val if val is not None else self.unknown()
        return self.unknown()

    def _load(self, e: ir.Expr, m: Mask, fr: _Frame):
        loc = self.lvalue(e, m, fr)
        return self.read(loc, m, fr)

    def read(self, loc, m: Mask, fr: _Frame):
        if isinstance(loc, RegLoc):
            val = fr.env.get(loc.key)
            if isinstance(val, (MemLoc, RegLoc)):
                return self.read(val, m, fr)
            if val is None and loc.var.storage == "param" and isinstance(loc.key, tuple) and \
                    loc.key not in fr.env and loc.type is not None and loc.type.kind == "pointer":
                return self._member_pointer(loc)
            return val if val is not None else self.unknown()
        if isinstance(loc, MemLoc):
            if loc.elem is not None and loc.elem.kind == "array" and loc.ptr is not None:
                return Ptr(loc.ptr.var, loc.ptr.space, loc.ptr.off, loc.elem.element or ir.UNKNOWN_TYPE,
                           loc.ptr.volatile)
            self.access(loc, False, m)
            return self._loaded(loc)
        return self.unknown()

    def _param_member_element(self, e: ir.Index, m: Mask, fr: _Frame) -> Optional[RegLoc]:
        """``q.p[4]`` with ``q`` a struct parameter (passed by value) and ``p`` an array member:
        element 4 of it, a register location like a scalar member (a pointer there is an object
        of its own, see :meth:`_member_pointer`). Only for an index that is the same for every
        thread that runs here."""
        b = e.base
        while isinstance(b, ir.Cast) and b.implicit:
            b = b.operand
        root = b
        while isinstance(root, ir.Member) and not root.arrow:
            root = root.base
        if not isinstance(b, ir.Member) or not isinstance(root, ir.VarRef) or root.var.storage != "param":
            return None
        loc = self.lvalue(b, m, fr)
        if not isinstance(loc, RegLoc) or loc.type is None or loc.type.kind != "array" or \
                loc.type.element is None:
            return None
        idx = self.ev(e.index, m, fr)
        act = m.may
        if not isinstance(idx, V) or idx.is_float or not bool(np.all(idx.k[act])) or \
                len(np.unique(idx.v[act])) != 1:
            return None
        return RegLoc((loc.key, int(idx.v[act][0])), loc.var, loc.type.element)

    def _member_pointer(self, loc: RegLoc) -> Ptr:
        """A pointer member of a struct passed by value (``q.p`` of ``foo(s q)``): the object it
        points at, one per member path, like a pointer parameter of its own."""
        objs = self.__dict__.setdefault("_member_objs", {})
        key = loc.key
        var = objs.get(key)
        if var is None:
            path, k = [], key
            while isinstance(k, tuple):
                path.append(f"[{k[1]}]" if isinstance(k[1], int) else "." + k[1])
                k = k[0]
            name = loc.var.name + "".join(reversed(path))
            var = objs[key] = ir.Variable(name, loc.type, "param", loc.var.range)
        el = loc.type.element or ir.UNKNOWN_TYPE
        return Ptr(var, "global", self.const(0), el, el.is_volatile)

    def _loaded(self, loc: MemLoc) -> V:
        """A value read from memory: unknown, but two threads that read the same address of
        the same object get the same provenance token: in global or constant memory when no
        thread writes it meanwhile (a write that does is a race, CL606/CL607), in shared memory
        within one barrier interval of one block (a write there in that interval is a CL602 race).
        """
        p = loc.ptr
        out = self.unknown()
        if p is None or p.var is None or p.space not in ("global", "constant", "shared") or p.volatile:
            return out
        base = (self._object_ids.setdefault(id(p.var), len(self._object_ids) + 1)) << 40
        if p.space == "shared":
            # (the block ordinal and the object's base are the same all run: mixed in as parts
            # computed once, the tokens as mix_tokens(epoch, off, blk, base))
            if self._blk is None:
                self._blk = token_part(V(self.arr(self.ts.blk).v, self._known), self._known)
            part = self._base_parts.get(base)
            if part is None:
                part = self._base_parts[base] = token_part(self.const(base), self._known)
            # (computed when read: most shared loads feed float arithmetic, which reads none)
            return LazyTokens(out.v, out.k, ((self.epoch, p.off),
                                             dict(force=True, known=self._known, fixed=(self._blk, part))))
        out.t = np.where(p.off.k, base + (p.off.v & ((1 << 40) - 1)) + 1, 0).astype(_INT)
        if p.off.t is not None:  # an index not known but equal between threads: equal values
            mixed = mix_tokens(base >> 40, p.off, known=self._known)
            out.t = np.where(p.off.k, out.t, mixed).astype(_INT)
        return out

    def write(self, loc, val, m: Mask, fr: _Frame) -> None:
        if isinstance(loc, RegLoc):
            cur = fr.env.get(loc.key)
            if isinstance(cur, (MemLoc, RegLoc)):
                self.write(cur, val, m, fr)
                return
            if isinstance(val, V) and isinstance(loc.key, ir.Variable) and loc.key.type.kind == "scalar":
                val = self._convert(val, loc.key.type)
            self.store(fr, loc.key, val, m)
        elif isinstance(loc, MemLoc):
            if isinstance(val, Ptr):
                val = self._ptr_value(val)
            self.access(loc, True, m, val if isinstance(val, V) else None)

    def _ptr_value(self, p: Ptr) -> Optional[V]:
        """A pointer stored to memory, as a number: equal for two threads that store the same
        address of the same object (``sh_ptr = A`` by every thread is a benign race)."""
        if p.var is None:
            return None
        base = (self._object_ids.setdefault(id(p.var), len(self._object_ids) + 1)) << 40
        out = V(p.off.v + base, p.off.k.copy())
        if p.off.t is not None and not out.k.all():
            # an offset not known but equal between threads (`A + blockIdx.x * n` of an unknown
            # `n`): the same address
            out.t = mix_tokens(base >> 40, p.off, known=self._known)
        return out

    def store(self, fr: _Frame, key, val, m: Mask) -> None:
        if m.live is not m.must:
            # a thread that may have left at an earlier return but is otherwise certain to be
            # here: if it still runs, it stores; if it left, it never reads the register again
            m = Mask(m.live, m.may)
        old = fr.env.get(key)
        full = (m.must is self._known or bool(np.all(m.must))) and \
            (m.may is m.must or m.may is self._known or bool(np.all(m.may)))
        if full:
            fr.env[key] = val
            return
        if isinstance(val, Ptr):
            if isinstance(old, Ptr) and old.var is val.var:
                off = self._where(m, val.off, old.off)
                fr.env[key] = Ptr(val.var, val.space, off, val.elem, val.volatile)
            elif old is None and key not in fr.env:
                fr.env[key] = val  # first definition: inactive threads never use it
            else:
                fr.env[key] = None
            return
        if not isinstance(val, V):
            val = self.unknown()
        if old is None and key not in fr.env:
            # first definition (`size_t lid = threadIdx.x;` after an early return that only
            # may have happened): a thread that did not run it never reads it, so its value is
            # the new one, not "unknown" (which made `lid == 0` look true for every thread)
            fr.env[key] = val
            return
        if not isinstance(old, V):
            old = self.unknown()
        fr.env[key] = self._where(m, val, old)

    def _where(self, m: Mask, new: V, old: V) -> V:
        # without tokens, a result known for no thread is the shared unknown (no values chosen)
        plain = new.t is None and old.t is None and new.v.dtype in _PLAIN and old.v.dtype in _PLAIN
        if plain and new.k is self._unknown_k and old.k is self._unknown_k:
            return self._unknown_of(new.is_float or old.is_float)
        if new.v.dtype == old.v.dtype and (m.must is self._known or m.must.all()):
            # every thread stores: the new value as it is (no selects)
            t = None
            if new.t is not None or old.t is not None:
                t = new.t if new.t is not None else np.zeros(self.n, dtype=_INT)
            return V(new.v, new.k, t)
        k = np.where(m.must, new.k, old.k)
        if plain and not k.any():
            return self._unknown_of(new.is_float or old.is_float)
        if new.v.dtype != old.v.dtype and (new.is_float or old.is_float):
            nv, ov = new.v.astype(np.float64), old.v.astype(np.float64)
        else:
            nv, ov = new.v, old.v
        v = np.where(m.must, nv, ov)
        # threads that may or may not store (none when the mask is certain: one array)
        unsure = m.may & ~m.must if m.may is not m.must else None
        if unsure is not None and unsure.any():
            same = new.k & old.k & (nv == ov)
            k = k & (~unsure | same)
        t = None
        if new.t is not None or old.t is not None:
            z = np.zeros(self.n, dtype=_INT)
            nt, ot = (new.t if new.t is not None else z), (old.t if old.t is not None else z)
            t = np.where(m.must, nt, ot)
            if unsure is not None and unsure.any():
                t = np.where(unsure & (nt != ot), 0, t)
        return V(v, k, t)

    def _dimension_bounds(self, base_expr: ir.Expr, base: Ptr, idx: V, off: V, m: Mask) -> V:
        """Lanes whose index leaves a declared dimension of a shared array (``t[ty][tx]`` with
        ``tx >= 16`` on ``t[16][16]``) land in another row: an overrun, not a real alias of that
        row. They are counted as out of bounds and their offset made unknown, so they are never
        paired as a race (the flat whole-array check alone misses these)."""
        if base.var is None or base.var.storage not in ("shared", "extern_shared"):
            return off
        extent = self._static(_declared_extent, base_expr)
        if not extent:
            return off
        if idx.v.min() >= 0 and idx.v.max() < extent:  # (every entry inside: none leaves)
            return off
        bad = m.may & idx.k & ((idx.v < 0) | (idx.v >= extent))
        if not bad.any():
            return off
        self._overrun(base.var, int(bad.sum()))
        return V(off.v, off.k & ~bad)

    # ------------------------------------------------------------------ lvalues
    def lvalue(self, e: ir.Expr, m: Mask, fr: _Frame):
        while isinstance(e, ir.Cast) and e.implicit:
            e = e.operand
        if isinstance(e, ir.VarRef):
            v = e.var
            if v.type.kind == "array" and isinstance(fr.env.get(v), Ptr):
                return MemLoc(fr.env[v], e, _elem_size(v.type), v.type)
            if v.type.kind == "array" and isinstance(fr.env.get(v), MemLoc):  # `T (&R)[N]`: the caller's
                b = fr.env[v].ptr
                return MemLoc(Ptr(b.var, b.space, b.off, v.type, b.volatile) if b is not None else None,
                              e, _elem_size(v.type), v.type)
            if v.type.kind == "array":
                return MemLoc(Ptr(v, _space_of(v), self.const(0), v.type, v.type.is_volatile), e,
                              _elem_size(v.type), v.type)
            if v.storage in ("shared", "extern_shared"):
                return MemLoc(Ptr(v, "shared", self.const(0), v.type, v.type.is_volatile), e, v.type.size, v.type)
            if v.storage in ("constant", "device", "managed") or (v.file_scope and v.storage != "param"):
                return MemLoc(Ptr(v, _space_of(v), self.const(0), v.type), e, v.type.size, v.type)
            cur = fr.env.get(v)
            if isinstance(cur, (MemLoc, RegLoc)):
                return cur
            return RegLoc(v, v)
        if isinstance(e, ir.Index):
            elem = self._param_member_element(e, m, fr)
            if elem is not None:
                return elem
            base = self.ev(e.base, m, fr)
            idx = self.ev(e.index, m, fr)
            if isinstance(base, V) and isinstance(idx, Ptr):  # 3[p]
                base, idx = idx, base
            if not isinstance(base, Ptr):
                return MemLoc(None, e, e.type.size, e.type)
            if not isinstance(idx, V):
                idx = self.unknown()
            esz = _elem_size(base.elem)
            if esz is None:
                off = self.unknown()
            else:
                d = self._arith("*", idx, self.const(esz))
                if base.off.v is self._zero_v and base.off.k is self._known and d.t is None and \
                        d.v.dtype == _INT and d.k is not self._unknown_k:
                    off = V(d.v, d.k)  # the start of an array: 0 + d is d
                else:
                    off = self._arith("+", base.off, d)
                off = self._dimension_bounds(e.base, base, idx, off, m)
            return MemLoc(Ptr(base.var, base.space, off, base.elem, base.volatile), e, esz, base.elem)
        if isinstance(e, ir.UnaryOp) and e.op == "*":
            p = self.ev(e.operand, m, fr)
            if isinstance(p, Ptr):
                return MemLoc(p, e, _elem_size(p.elem), p.elem)
            return MemLoc(None, e, e.type.size, e.type)
        if isinstance(e, ir.Member):
            if e.arrow:
                p = self.ev(e.base, m, fr)
                base = MemLoc(p, e, _elem_size(p.elem), p.elem) if isinstance(p, Ptr) else MemLoc(None, e, None, e.type)
            else:
                base = self.lvalue(e.base, m, fr)
            if isinstance(base, RegLoc):
                return RegLoc((base.key, e.member), base.var, e.type)
            if isinstance(base, MemLoc) and base.ptr is not None:
                t = base.elem
                if t is not None and t.kind == "vector" and e.member in ("x", "y", "z", "w") and t.size:
                    comp = t.size // max(t.lanes, 1)
                    k = "xyzw".index(e.member)
                    off = self._arith("+", base.ptr.off, self.const(k * comp))
                    return MemLoc(Ptr(base.ptr.var, base.ptr.space, off, e.type, base.ptr.volatile), e, comp, e.type)
                # a struct member: its byte offset is not known here, but the same member of the
                # same element is the same memory (a token for the global-memory race check)
                off = self.unknown()
                off.t = mix_tokens(zlib.crc32(e.member.encode()), base.ptr.off, force=True,
                                   known=self._known)
                return MemLoc(Ptr(base.ptr.var, base.ptr.space, off, e.type), e, e.type.size, e.type)
            return MemLoc(None, e, e.type.size, e.type)
        if isinstance(e, ir.Cast):
            return self.lvalue(e.operand, m, fr)
        if isinstance(e, ir.Assign):
            self.ev(e, m, fr)
            return self.lvalue(e.target, m, fr)
        if isinstance(e, ir.UnaryOp) and e.op in ("pre++", "pre--"):
            self.ev(e, m, fr)
            return self.lvalue(e.operand, m, fr)
        if isinstance(e, ir.Ternary):
            self.ev(e.cond, m, fr)
            return MemLoc(None, e, e.type.size, e.type)
        self.ev(e, m, fr)
        return MemLoc(None, e, e.type.size, e.type)

    def address_of(self, e: ir.Expr, m: Mask, fr: _Frame):
        loc = self.lvalue(e, m, fr)
        if isinstance(loc, MemLoc) and loc.ptr is not None:
            p = loc.ptr
            return Ptr(p.var, p.space, p.off, loc.elem if loc.elem is not None else p.elem, p.volatile)
        return None

    # ------------------------------------------------------------------ accesses
    def access(self, loc: MemLoc, write: bool, m: Mask, value: Optional[V] = None,
               atomic: bool = False) -> None:
        if write and self.facts:
            simt_facts.forget(self, m.may)
        if not self.record:
            return
        p = loc.ptr
        if p is not None and p.var is not None and p.space == "global" and self.glog is not None:
            self.glog.access(self, loc, write, m, value, atomic)
            return
        if p is None or p.var is None or p.space not in self.spaces:
            return
        size = loc.size or (loc.elem.size if loc.elem is not None else None)
        if not size:
            return
        off = p.off
        # every thread, at an address known for each (the common case: the shared arrays of a
        # full mask and of a known index): no selections, the entries are the arrays themselves
        full = off.k is self._known and (m.may is self._known or m.may.all())
        act = m.may if off.k is self._known else m.may & off.k
        if not full and not act.any():
            return
        total = p.var.type.size if p.var.storage == "shared" else None
        if total and not (off.v.min() >= 0 and off.v.max() + size <= total):
            inb = (off.v >= 0) & (off.v + size <= total)
            bad = act & ~inb
            if bad.any():
                # outside the array: another bug (or a wrong guess of the block shape);
                # such accesses alias other data and are not paired
                self._overrun(p.var, int(bad.sum()))
                act = act & inb
                full = False
                if not act.any():
                    return
        if full:
            self._record(loc, write, m, value, atomic, size, None)
            return
        self._record(loc, write, m, value, atomic, size, np.flatnonzero(act))

    def _record(self, loc: MemLoc, write: bool, m: Mask, value: Optional[V], atomic: bool,
                size: int, idx: Optional[np.ndarray]) -> None:
        """Log the access of ``loc`` by threads ``idx`` (None: every thread)."""
        p = loc.ptr
        key = "extern" if p.var.storage == "extern_shared" else p.var
        val = None
        if idx is None:  # every thread: the entries are the arrays (never changed in place)
            sel = slice(None)
            idx, offs, must, wep = self._idx_all, p.off.v, m.must, self.wepoch.copy()
            if offs.dtype != _INT:
                offs = offs.astype(_INT)
        else:
            sel = idx
            offs, must, wep = p.off.v[idx].astype(_INT, copy=False), m.must[idx], self.wepoch[idx]
        if write and value is not None and not value.is_float:
            val = np.where(value.k[sel], value.v[sel], np.iinfo(_INT).min)
        elif write and value is not None:
            val = np.where(value.k[sel], value.v[sel], np.nan)
        node = loc.node
        if id(node) not in self.order:
            self.order[id(node)] = self._seq
            self._seq += 1
        tok = None
        if write and value is not None and value.t is not None:
            tok = value.t[idx] if sel is idx else value.t.copy()
        rec = Access(node, p.var, key, write, atomic, idx, offs, int(size), must, wep,
                     tuple((r[0], r[1], r[2]) for r in self.iter_stack), tuple(self.tags), val,
                     p.volatile or bool(loc.elem is not None and loc.elem.is_volatile), tok, self._solo,
                     p.space, self.steps)
        self.buckets.setdefault(self.epoch, {}).setdefault(key, []).append(rec)

    # ------------------------------------------------------------------ operators
    def _unary(self, e: ir.UnaryOp, m: Mask, fr: _Frame):
        op = e.op
        if op == "&":
            p = self.address_of(e.operand, m, fr)
            return p if p is not None else self.unknown()
        if op == "*":
            return self._load(e, m, fr)
        if op in ("pre++", "pre--", "post++", "post--"):
            loc = self.lvalue(e.operand, m, fr)
            old = self.read(loc, m, fr)
            one = self.const(1)
            if isinstance(old, Ptr):
                esz = _elem_size(old.elem) or 1
                step = self.const(esz if "++" in op else -esz)
                new = Ptr(old.var, old.space, self._arith("+", old.off, step), old.elem, old.volatile)
            elif isinstance(old, V):
                new = self._arith("+" if "++" in op else "-", old, one, e.type)
            else:
                new = self.unknown()
            self.write(loc, new, m, fr)
            return new if op.startswith("pre") else old
        v = self.ev(e.operand, m, fr)
        if not isinstance(v, V):
            if op == "!" and isinstance(v, Ptr):
                return V(np.zeros(self.n, dtype=_INT), v.off.k.copy())
            return self.unknown()
        if op == "-":
            return V(-v.v, v.k.copy(), mix_tokens(OP_SALT["neg"], v, known=self._known))
        if op == "+":
            return v
        if op == "!":
            return V((v.v == 0).astype(_INT), v.k.copy(), mix_tokens(OP_SALT["!"], v, known=self._known))
        if op == "~":
            if v.is_float:
                return self.unknown()
            r = ~v.v
            if cint.is_unsigned32(e.type):
                r = cint.wrap_u32(r)
            return V(r, v.k.copy(), mix_tokens(OP_SALT["~"], v, known=self._known))
        return self.unknown()

    def _binop(self, e: ir.BinOp, m: Mask, fr: _Frame):
        op = e.op
        if op in ("&&", "||"):
            a = self.cond(e.lhs, m, fr)
            at = truth(a)
            if op == "&&":
                sub = Mask(m.must & a.k & at, m.may & (~a.k | at))
            else:
                sub = Mask(m.must & a.k & ~at, m.may & (~a.k | ~at))
            b = self.cond(e.rhs, sub, fr) if sub.any() else self.const(0)
            bt = truth(b)
            if op == "&&":
                v = at & bt
                k = (a.k & ~at) | (a.k & b.k) | (b.k & ~bt)
            else:
                v = at | bt
                k = (a.k & at) | (a.k & b.k) | (b.k & bt)
            return V(v.astype(_INT), k)
        if op == ",":
            self.ev(e.lhs, m, fr)
            return self.ev(e.rhs, m, fr)
        a = self.ev(e.lhs, m, fr)
        b = self.ev(e.rhs, m, fr)
        if isinstance(a, Ptr) or isinstance(b, Ptr):
            return self._ptr_arith(op, a, b)
        if not isinstance(a, V) or not isinstance(b, V):
            return self.unknown()
        return self._arith(op, a, b, e.type)

    def _ptr_arith(self, op: str, a, b):
        if isinstance(a, Ptr) and isinstance(b, V) and op in ("+", "-"):
            esz = _elem_size(a.elem) or 1
            d = self._arith("*", b, self.const(esz))
            return Ptr(a.var, a.space, self._arith(op, a.off, d), a.elem, a.volatile)
        if isinstance(b, Ptr) and isinstance(a, V) and op == "+":
            return self._ptr_arith("+", b, a)
        if isinstance(a, Ptr) and isinstance(b, Ptr) and op == "-" and a.var is b.var:
            esz = _elem_size(a.elem) or 1
            return self._arith("/", self._arith("-", a.off, b.off), self.const(esz))
        if op in ("==", "!=", "<", ">", "<=", ">=") and isinstance(a, Ptr) and isinstance(b, Ptr) \
                and a.var is b.var:
            return self._arith(op, a.off, b.off)
        return self.unknown()

    def _arith(self, op: str, a: V, b: V, t: Optional[ir.CType] = None) -> V:
        r = self._arith_values(op, a, b, t)
        # provenance through integer arithmetic (indices, values compared for equality); a
        # run that records nothing needs none; a float result's, only when read (_lazy_tokens)
        if r.is_float:
            return self._lazy_tokens(OP_SALT.get(op, 99), r, a, b) if self.record else r
        if self.record and (a.t is not None or b.t is not None) and not r.k.all():
            if (a.k is self._unknown_k and a.t is None) or (b.k is self._unknown_k and b.t is None):
                r.t = self._zeros  # an input with neither value nor token: no token (as mix_tokens)
            else:
                # (as mix_tokens(salt, a, b): the inputs' parts in order, a constant's computed
                # once a run)
                r.t = mix_tokens(OP_SALT.get(op, 99), known=self._known, force=True,
                                 fixed=(self._token_part(a), self._token_part(b)))
        return r

    def _lazy_tokens(self, salt: int, r: V, *xs: V) -> V:
        """``r``, the result of a deterministic operation on ``xs``, with provenance tokens
        (equal inputs, equal results: every thread that stores ``floorf(c * h)`` of one block
        index and one parameter ``h`` stores the same bits) computed only when something reads
        them, as most float values only feed more float arithmetic. Only so many lazy values are
        chained (an accumulator updated in a loop would make the chain as long as the loop):
        past ``LAZY_TOKEN_DEPTH`` the result has none."""
        if r.k.all():
            return r
        depth = -1
        for x in xs:
            d = lazy_depth(x)
            if d is not None and d > depth:
                depth = d
        if depth < 0 or depth >= LAZY_TOKEN_DEPTH:
            return r
        return LazyTokens(r.v, r.k, ((salt,) + xs, dict(known=self._known, force=True)), depth + 1)

    def _token_part(self, x: V) -> tuple:
        """:func:`.token_part` of an input; of a shared constant, once a run."""
        if x.k is self._known and id(x.v) in self._const_ids:
            hit = self._const_parts.get(id(x.v))
            if hit is None:
                hit = self._const_parts[id(x.v)] = token_part(x, self._known)
                for arr in hit:
                    arr.flags.writeable = False
            return hit
        return token_part(x, self._known)

    def _arith_values(self, op: str, a: V, b: V, t: Optional[ir.CType] = None) -> V:
        ci = self._const_ids
        if a.k is self._known and b.k is self._known and id(a.v) in ci and id(b.v) in ci and \
                a.t is None and b.t is None:
            # two constants (a loop counter `d++`, `(M7W/NRX)*i`, the offset of `score[dy][i]`):
            # the same operation gives the same result every time, computed once a run and
            # kept as the constant's own array when every entry is known, so that a counter
            # stays a constant and the arithmetic it feeds hits here too
            key = (op, id(a.v), id(b.v), id(t))
            hit = self._uniform_memo.get(key)
            if hit is None or hit[0] is not t:
                hit = self._uniform_memo[key] = (t, self._as_const(self._arith_full(op, a, b, t)))
            return V(hit[1].v, hit[1].k)
        return self._arith_full(op, a, b, t)

    def _as_const(self, r: V) -> V:
        """``r`` (the same value for every thread) as the shared constant of that value when
        every entry is known; else ``r`` made read-only (it is reused)."""
        if (r.k is self._known or r.k.all()) and r.v.dtype in (_INT, np.float64):
            x = r.v[0]
            c = self.const(float(x) if r.v.dtype == np.float64 else int(x))
            if c.v.dtype == r.v.dtype and np.array_equal(c.v, r.v):
                return c
        r.v.flags.writeable = False
        r.k.flags.writeable = False
        return r

    def _arith_full(self, op: str, a: V, b: V, t: Optional[ir.CType] = None) -> V:
        fl = a.is_float or b.is_float or (t is not None and t.is_float and op in ("+", "-", "*", "/"))
        if a.k is self._unknown_k or b.k is self._unknown_k:
            # an operand known for no thread (a loaded value): nothing of the result is known,
            # and unknown entries are never read, so only the result's kind is computed
            return self._unknown_of(fl and op in ("+", "-", "*", "/"))
        k = b.k if a.k is self._known else (a.k if b.k is self._known else a.k & b.k)
        av, bv = a.v, b.v
        if fl:
            av = av.astype(np.float64, copy=False)
            bv = bv.astype(np.float64, copy=False)
        if op == "+":
            r = av + bv
        elif op == "-":
            r = av - bv
        elif op == "*":
            r = av * bv
        elif op in ("/", "%"):
            zero = bv == 0
            k = k & ~zero
            bs = np.where(zero, 1, bv)
            if fl:
                if op == "%":
                    return V(np.zeros(self.n, dtype=_INT), self.none.copy())
                r = av / bs
            elif av.min() >= 0 and bs.min() > 0:
                # (the common case, `ty*NDIM/4`: C's truncating division is numpy's floor
                # division when no operand is negative, one pass instead of cint's eight)
                r = av // bs if op == "/" else av % bs
            else:
                r = cint.div_array(av, bs) if op == "/" else cint.mod_array(av, bs)
        elif op in ("<", ">", "<=", ">=", "==", "!="):
            r = _COMPARE[op](av, bv).astype(_INT)
            return V(r, k)
        elif op in ("<<", ">>", "&", "|", "^"):
            if fl:
                return V(np.zeros(self.n, dtype=_INT), self.none.copy())
            if op in ("<<", ">>"):
                bad = (bv < 0) | (bv > 62)
                k = k & ~bad
                sh = np.where(bad, 0, bv)
                r = np.left_shift(av, sh) if op == "<<" else np.right_shift(av, sh)
            else:
                r = {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}[op](av, bv)
        else:
            return V(np.zeros(self.n, dtype=_INT), self.none.copy())
        if not fl and t is not None and self._u32(t) and op in ("+", "-", "*", "<<", "~"):
            r = cint.wrap_u32(r)
        if not fl:
            r = r.astype(_INT, copy=False)
        else:
            bad = ~np.isfinite(r)
            if bad.any():
                k = k & ~bad
                r = np.where(bad, 0.0, r)
        return V(r, k)

    def _u32(self, t: ir.CType) -> bool:
        """:func:`.cint.is_unsigned32`, once per type object in a run."""
        hit = self._u32_of.get(id(t))
        if hit is None or hit[0] is not t:
            hit = self._u32_of[id(t)] = (t, cint.is_unsigned32(t))
        return hit[1]

    def _convert(self, v: V, t: ir.CType) -> V:
        # a conversion of equal values gives equal values: provenance tokens are kept
        if v.k is self._unknown_k:  # known for no thread: only the kind changes
            if t.is_float:
                return v if v.is_float else V(self._fzeros, v.k, v.t)
            return V(self._zeros, v.k, v.t) if v.is_float else v
        if t.is_float:
            if not v.is_float:
                return V(v.v.astype(np.float64), v.k, v.t)
            return v
        if v.is_float:
            with np.errstate(all="ignore"):
                fin = np.isfinite(v.v) & (np.abs(v.v) < 9e18)
                r = np.trunc(np.where(fin, v.v, 0.0)).astype(_INT)
            v = V(r, v.k & fin, v.t)
        if self._u32(t):
            return V(cint.wrap_u32(v.v), v.k, v.t)
        if t.kind == "scalar" and t.size == 1 and "bool" in t.spelling:
            return V((v.v != 0).astype(_INT), v.k, v.t)
        return v

    def _assign(self, e: ir.Assign, m: Mask, fr: _Frame):
        loc = self.lvalue(e.target, m, fr)
        val = self.ev(e.value, m, fr)
        if e.op != "=":
            old = self.read(loc, m, fr)
            op = e.op[:-1]
            if isinstance(old, Ptr) and isinstance(val, V):
                val = self._ptr_arith(op, old, val)
            elif isinstance(old, V) and isinstance(val, V):
                val = self._arith(op, old, val, e.target.type)
            else:
                val = self.unknown()
        elif isinstance(val, Ptr) and isinstance(loc, RegLoc) and isinstance(loc.key, ir.Variable):
            t = loc.key.type
            if t.kind == "pointer" and t.element is not None:
                val = Ptr(val.var, val.space, val.off, t.element, val.volatile or t.element.is_volatile)
        self.write(loc, val, m, fr)
        return val

    def _cast(self, e: ir.Cast, m: Mask, fr: _Frame):
        v = self.ev(e.operand, m, fr)
        t = e.type
        if isinstance(v, Ptr):
            if t.kind == "pointer" and t.element is not None:
                return Ptr(v.var, v.space, v.off, t.element, v.volatile or t.element.is_volatile)
            if t.kind == "scalar":
                return self.unknown()
            return v
        if isinstance(v, V) and t.kind == "scalar":
            return self._convert(v, t)
        if t.kind == "void":
            return None
        return v if v is not None else self.unknown()

    def _ternary(self, e: ir.Ternary, m: Mask, fr: _Frame):
        c = self.cond(e.cond, m, fr)
        ct = truth(c)
        mt = Mask(m.must & c.k & ct, m.may & (~c.k | ct))
        me = Mask(m.must & c.k & ~ct, m.may & (~c.k | ~ct))
        a = self.ev(e.then, mt, fr) if mt.any() else None
        b = self.ev(e.otherwise, me, fr) if me.any() else None
        if a is None and b is None:
            return self.unknown()
        if isinstance(a, Ptr) and (b is None or (isinstance(b, Ptr) and b.var is a.var)):
            if b is None:
                return a
            off = self._select(c, ct, a.off, b.off)
            return Ptr(a.var, a.space, off, a.elem, a.volatile)
        if isinstance(b, Ptr) and a is None:
            return b
        if not isinstance(a, V):
            a = self.unknown()
        if not isinstance(b, V):
            b = self.unknown()
        return self._select(c, ct, a, b)

    def _select(self, c: V, ct: np.ndarray, a: V, b: V) -> V:
        av, bv = a.v, b.v
        if av.dtype != bv.dtype:
            av, bv = av.astype(np.float64), bv.astype(np.float64)
        v = np.where(ct, av, bv)
        k = c.k & np.where(ct, a.k, b.k)
        out = V(v, k)
        if self.record and not k.all() and (c.t is not None or a.t is not None or b.t is not None):
            # provenance: a condition known for the thread passes on the chosen side's token; one
            # not known but equal between threads (a token), with each side equal between them,
            # gives equal results (`count[l] = (l == h) ? 0 : n` stores one value per `l`)
            zero = self._zeros
            ta = a.t if a.t is not None else zero
            tb = b.t if b.t is not None else zero
            t = np.where(c.k, np.where(ct, ta, tb), 0)
            if c.t is not None:
                mixed = mix_tokens(OP_SALT["?:"], known=self._known, force=True,
                                   fixed=(self._token_part(c), self._token_part(a), self._token_part(b)))
                t = np.where(c.k, t, mixed)
            out.t = t.astype(_INT)
        return out

    # ------------------------------------------------------------------ calls
    def _call(self, e: ir.Call, m: Mask, fr: _Frame):
        name = e.callee
        if name in BLOCK_BARRIER_CALLS or is_grid_sync(e):
            for a in e.args:
                self.ev(a, m, fr)
            self.barrier(e, m, fr)
            return self.unknown()
        if name in _CG_QUERIES and e.args:
            v = self._cg_query(name, e.args[0].type.spelling)
            if v is not None:
                return v
        if name in ("size", "num_threads", "meta_group_size") and not e.args:
            # `tile.size()` is static: the object is not in the IR; one tile type in scope
            # says which group it is
            tiles = {re.sub(r"^const\s+", "", v.type.spelling) for v in fr.fn.locals + fr.fn.params
                     if "thread_block_tile<" in v.type.spelling}
            if len(tiles) == 1:
                v = self._cg_query(name, tiles.pop())
                if v is not None:
                    return v
        if name in _CONSTANT_CALLS:
            # `-INFINITY` is `-__builtin_inff()`: every thread storing it stores the same bits
            return self.const(_CONSTANT_CALLS[name])
        if name in WARP_BARRIER_CALLS:
            for a in e.args:
                self.ev(a, m, fr)
            self.wepoch[m.may] += 1
            return self.unknown()
        group = _reduction_group(e)
        if group:
            # cg::reduce(tile, v, op) and __reduce_*_sync return one result to every thread
            # of the group: equal (unknown) values within a group
            for a in e.args:
                self.ev(a, m, fr)
            out = self.unknown()
            gid = self.ts.lin // group
            out.t = ((self._object_ids.setdefault(id(e), len(self._object_ids) + 1)) << 40) + gid + 1
            out.t = out.t.astype(_INT)
            return out
        if name.startswith("atomic") or name.startswith("__atomic") or name.startswith("__nv_atomic"):
            vals = [self.ev(a, m, fr) for a in e.args]
            if vals and isinstance(vals[0], Ptr):
                p = vals[0]
                loc = MemLoc(p, e, _elem_size(p.elem), p.elem)
                self.access(loc, True, m, None, atomic=True)
                if self.glog is not None:
                    self.glog.atomic(self, m)
                    self.glog.ticket_site(e, _ticket_counter(name, p, vals[1:], m))
                if _preserves_value(name, vals[1:]) or _may_repeat(name, vals[1:], m):
                    # atomicAdd(&c, 0) leaves c as it is and returns it: a load, the same
                    # value for every thread (atomicAdd(&c, 1) returns a different one to each)
                    return self._loaded(loc)
            return self.unknown()
        if self.glog is not None and self.glog.call(self, e, m, fr):
            return self.unknown()
        if name in _MATH2 and len(e.args) == 2:
            a, b = self.ev(e.args[0], m, fr), self.ev(e.args[1], m, fr)
            if not (isinstance(a, V) and isinstance(b, V)):
                return self.unknown()
            if name in ("__mul24", "__umul24"):
                return self._arith("*", a, b)
            if name in ("__hadd", "__rhadd"):
                return self._arith("/", self._arith("+", a, b), self.const(2))
            if a.v.dtype != b.v.dtype:
                av, bv = a.v.astype(np.float64), b.v.astype(np.float64)
            else:
                av, bv = a.v, b.v
            r = np.minimum(av, bv) if "min" in name else np.maximum(av, bv)
            return self._call_tokens(name, V(r, a.k & b.k), a, b)
        if name in _MATH1 and len(e.args) == 1:
            a = self.ev(e.args[0], m, fr)
            if not isinstance(a, V):
                return self.unknown()
            r = self._math1(name, a)
            return self._call_tokens(name, r if r is not None else self.unknown(), a)
        if name in _PURE_MATH:
            # a math function of the arguments alone: equal arguments, equal results
            vals = [self.ev(a, m, fr) for a in e.args]
            if not all(isinstance(v, V) for v in vals):
                return self.unknown()
            return self._call_tokens(name, self.unknown(), *vals)
        fn = e.function
        if fn is not None and fn.body is not None and len(fn.params) == len(e.args) and \
                len(self._inline_stack) < MAX_INLINE_DEPTH and fn not in self._inline_stack:
            return self._inline(e, fn, m, fr)
        vals = [self.ev(a, m, fr) for a in e.args]
        if self.facts:
            simt_facts.forget(self, m.may)  # what the call writes is not known
        if self.glog is not None and (fn is None or fn.body is None) and \
                not any(v.name == name for v in fr.fn.locals + fr.fn.params):  # not a function pointer
            self.glog.library_call(self, e, vals, m)
        return self.unknown()

    def _call_tokens(self, name: str, r: V, *xs: V) -> V:
        """``r``, the result of the math function ``name`` of ``xs``, with provenance tokens
        (as :meth:`_arith`: a float's only when read)."""
        if not self.record:
            return r
        salt = zlib.crc32(name.encode())
        if r.is_float or r.k is self._unknown_k:
            return self._lazy_tokens(salt, r, *xs)
        if r.k.all() or not any(x.t is not None for x in xs):
            return r
        r.t = mix_tokens(salt, *xs, known=self._known)
        return r

    def _math1(self, name: str, a: V) -> Optional[V]:
        with np.errstate(all="ignore"):
            if name in ("abs", "fabsf", "fabs"):
                return V(np.abs(a.v), a.k)
            if name in ("floorf", "floor", "__float2int_rd"):
                return V(np.floor(a.v.astype(np.float64)), a.k)
            if name in ("ceilf", "ceil", "__float2int_ru"):
                return V(np.ceil(a.v.astype(np.float64)), a.k)
            if name in ("truncf", "trunc", "__float2int_rz"):
                return V(np.trunc(a.v.astype(np.float64)), a.k)
            if name in ("rintf", "__float2int_rn"):
                return V(np.rint(a.v.astype(np.float64)), a.k)
            if name in ("sqrtf", "sqrt"):
                r = np.sqrt(a.v.astype(np.float64))
                return V(np.where(np.isfinite(r), r, 0.0), a.k & np.isfinite(r))
            if name in ("log2f", "log2"):
                r = np.log2(a.v.astype(np.float64))
                return V(np.where(np.isfinite(r), r, 0.0), a.k & np.isfinite(r))
            if name == "__popc" and not a.is_float:
                x = cint.wrap_u32(a.v)
                cnt = np.zeros_like(x)
                for i in range(32):
                    cnt += (x >> i) & 1
                return V(cnt, a.k)
        return None

    def _cg_query(self, name: str, grp: str) -> Optional[V]:
        """Cooperative-groups queries on a block, a tile or the grid."""
        ts = self.ts
        T = ts.threads_per_block
        m = re.search(r"thread_block_tile<\s*(\d+)", grp)
        if m:
            n = int(m.group(1))
            return {"thread_rank": lambda: self.arr(ts.lin % n), "size": lambda: self.const(n),
                    "num_threads": lambda: self.const(n),
                    "meta_group_rank": lambda: self.arr(ts.lin // n),
                    "meta_group_size": lambda: self.const(-(-T // n))}.get(name, lambda: None)()
        if "grid_group" in grp:
            if ts.grid is None:
                # blocks of the first row and layer have rank blockIdx.x whatever the grid
                first = (ts.by == 0) & (ts.bz == 0)
                if name == "thread_rank":
                    return V(ts.bx * T + ts.lin, first.copy())
                if name == "block_rank":
                    return V(ts.bx.copy(), first.copy())
                return None
            gx, gy, gz = ts.grid
            blin = (ts.bz * gy + ts.by) * gx + ts.bx
            return {"thread_rank": lambda: self.arr(blin * T + ts.lin),
                    "size": lambda: self.const(T * gx * gy * gz),
                    "num_threads": lambda: self.const(T * gx * gy * gz),
                    "block_rank": lambda: self.arr(blin),
                    "num_blocks": lambda: self.const(gx * gy * gz)}.get(name, lambda: None)()
        if "thread_block" in grp:
            return {"thread_rank": lambda: self.arr(ts.lin), "size": lambda: self.const(T),
                    "num_threads": lambda: self.const(T)}.get(name, lambda: None)()
        return None

    @property
    def _inline_stack(self) -> list:
        if not hasattr(self, "_inl"):
            self._inl = []
        return self._inl

    def _inline(self, e: ir.Call, fn: ir.Function, m: Mask, fr: _Frame):
        env: dict = {}
        for p, a in zip(fn.params, e.args):
            if p.is_reference:
                env[p] = self.lvalue(a, m, fr)
                continue
            val = self.ev(a, m, fr)
            if isinstance(val, Ptr) and p.type.kind == "pointer" and p.type.element is not None:
                val = Ptr(val.var, val.space, val.off, p.type.element,
                          val.volatile or p.type.element.is_volatile)
            elif isinstance(val, V) and p.type.kind == "scalar":
                val = self._convert(val, p.type)
            env[p] = val
        nf = _Frame(self.n, env, fn)
        self._inline_stack.append(fn)
        try:
            self.block(fn.body, m, nf)
        finally:
            self._inline_stack.pop()
        if not nf.rets:
            return self.unknown()
        res = None
        for rm, val in nf.rets:
            if isinstance(val, Ptr):
                res = val if res is None or (isinstance(res, Ptr) and res.var is val.var) else None
                continue
            if not isinstance(val, V):
                val = self.unknown()
            if res is None:
                res = V(val.v, val.k & rm.must,  # (values are never changed in place)
                        np.where(rm.must, val.t, 0) if val.t is not None else None) \
                    if not rm.certain or not bool(np.all(rm.must[m.may])) else val
            elif isinstance(res, V):
                res = self._where(Mask(rm.must, rm.must), val, res)
        return res if res is not None else self.unknown()
