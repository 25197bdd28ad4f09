"""Expressions, memory and calls for the symbolic walker (:class:`.symbolic.Walker`): every IR
expression to a sympy value or :class:`~.symbolic_values.Pointer`, C integer semantics on
those (division, modulo, shifts, masks), loads and stores recorded as access events, and
inlined device functions.

:class:`WalkerExprs` is the expression half of ``Walker`` (a mixin over the walk's state); the
statement half, control flow and loops, is in :mod:`.symbolic`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

import sympy as sp

from . import cint, ir
from .coop_groups import group_dim3, group_kind, group_value, is_rank_method
from .source_text import source_lines
from .symbolic_textures import walk_texture_call
from .texture_calls import texture_call
from .symbolic_values import (AccessEvent, BitAnd, BitOr, BitXor, bounded, _coefficients, FoldTooCostly, in_memory,
                              INLINE_BUDGET, is_data, is_expr, is_volatile_type, lane_varying,
                              larger_than, LocalLoad, made, operands_larger_than, MAX_INLINE_DEPTH, MAX_NODES, MemLoad, negate, Opaque, piecewise,
                              Pointer, ShiftLeft, ShiftRight, Value, WalkState)




def _element_index(off: sp.Expr, size: Optional[int]) -> sp.Expr:
    """Byte offset -> element index when it divides evenly (for display of loaded values)."""
    if size and size > 1:
        q = sp.expand(off / size)
        if all(getattr(c, "is_Integer", False) for c in _coefficients(q)):
            return q
    return off


@dataclass
class _MemLoc:
    pointer: Pointer
    elem: ir.CType
    node: ir.Expr
    name: str
    dims: Optional[list] = None
    volatile: bool = False
    notes: list = field(default_factory=list)


def _may_wrap(op: str, a, b, t: ir.CType) -> bool:
    """A product (or left shift) of a variable by a constant of 3/4 of the type's bits or more
    (2^24 for 32 bits, 2^48 for 64): an LCG's or a hash's multiplier, whose products wrap; an
    index's row pitch stays far below."""
    bits = 8 * (t.size or 4)
    if op == "<<":
        k = _int_value(b)
        return k is not None and k >= 3 * bits // 4
    return any(isinstance(x, sp.Integer) and abs(int(x)) >= 1 << (3 * bits // 4) for x in (a, b))


def _local_scalar(p: "Pointer", extra, t: ir.CType) -> Optional["_VarLoc"]:
    """``*p`` / ``p[0]`` where ``p = &v`` and ``v`` is a thread's own scalar variable (a
    register): ``v`` itself (``LCG_random_double(&seed)`` reading and updating ``*seed``), not a
    memory location whose address is the same for every lane."""
    v = p.base
    if p.space != "local" or v is None or v.type.kind not in ("scalar", "pointer") or in_memory(v):
        return None
    try:
        off = p.offset + extra
    except TypeError:
        return None
    if off != 0 or (t.size and v.type.size and t.size != v.type.size):
        return None
    return _VarLoc(v)


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


#: A floating-point expression with more nodes than this becomes an opaque value (integer
#: ones at MAX_NODES, the bound every large expression of the walk has).
_FLOAT_EXPR_NODES = 64


def _int_value(e) -> Optional[int]:
    if isinstance(e, sp.Basic) and e.is_Integer:
        return int(e)
    return None


# --------------------------------------------------------------------------- helpers


def _source_slice(r: ir.SourceRange) -> str:
    if not r.file or r.line <= 0:
        return ""
    lines = source_lines(r.file)
    if r.line > len(lines):
        return ""
    return lines[r.line - 1][r.column - 1:r.end_column - 1].strip()


def _idiv(a: sp.Expr, b: sp.Expr) -> sp.Expr:
    """C integer division of (assumed non-negative) integers."""
    if a.is_Integer and b.is_Integer and b != 0:
        return sp.Integer(cint.div(int(a), int(b)))
    if larger_than(a, 64):
        # simplifying floor() of a big expression queries sympy's assumptions for every term
        # (hash and PRNG arithmetic): keep it as written
        return sp.floor(sp.Mul(a, sp.Pow(b, -1), evaluate=False), evaluate=False)
    return sp.floor(a / b)


def _elem_size(t: Optional[ir.CType]) -> int:
    if t is None or not t.size:
        return 1
    return t.size


_VEC_COMPONENTS = "xyzw"


def _member_offset(t: Optional[ir.CType], member: str) -> tuple[int, str]:
    """Byte offset of ``member`` in ``t``: exact for vector types (float4.z = 8) and for
    records clang laid out (``CType.fields``), else 0 with a note."""
    if t is not None and t.kind == "vector" and member in _VEC_COMPONENTS and t.size and t.lanes:
        comp = t.size // t.lanes
        return _VEC_COMPONENTS.index(member) * comp, ""
    for name, off in getattr(t, "fields", ()) or ():
        if name == member:  # clang's layout of the record
            return off, ""
    return 0, (f"offset of member `{member}` in `{t.spelling if t else '?'}` not known; "
               "assumed 0 (alignment within the struct not modelled)")


def _source_name(e: ir.Expr) -> str:
    """The variable an access expression is written against (`tile` for `tile[i][j]`)."""
    node = e
    for _ in range(32):
        if isinstance(node, ir.Index):
            node = node.base
        elif isinstance(node, ir.Member):
            b = node.base
            if not node.arrow and isinstance(b, ir.VarRef) and b.var.storage == "param" \
                    and b.var.type.kind == "record" and node.type.kind == "pointer":
                return f"{b.var.name}.{node.member}"  # a struct of arrays passed by value
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


class WalkerExprs:
    """Expression evaluation of the walk (see the module docstring)."""

    def _unknown(self, name: str, lane: bool, note: str = "", data: bool = False) -> sp.Expr:
        if data:  # a value derived from memory: opaque, but still known to be data-dependent
            t = self.syms.thread
            return MemLoad(sp.Symbol(name), *((t["x"], t["y"], t["z"]) if lane else ()))
        if lane:
            t = self.syms.thread
            return Opaque(sp.Symbol(name), t["x"], t["y"], t["z"])
        return self.syms.opaque(name, note=note)

    def _cond(self, e: ir.Expr, st: WalkState):
        if isinstance(e, ir.BinOp) and e.op in _REL:
            a = self._rvalue(e.lhs, st)
            b = self._rvalue(e.rhs, st)
            if is_expr(a) and is_expr(b):
                try:
                    return made(_REL[e.op], a, b)
                except (TypeError, ValueError):
                    pass
            return self.syms.boolean()
        if isinstance(e, ir.BinOp) and e.op in ("&&", "||"):
            a = self._cond(e.lhs, st)
            b = self._cond(e.rhs, st.fork(a if e.op == "&&" else negate(a)))
            try:
                return made(sp.And if e.op == "&&" else sp.Or, a, b)
            except (TypeError, ValueError):
                return self.syms.boolean()
        if isinstance(e, ir.UnaryOp) and e.op == "!":
            return negate(self._cond(e.operand, st))
        if isinstance(e, ir.Cast):
            return self._cond(e.operand, st)
        v = self._rvalue(e, st)
        if isinstance(v, sp.logic.boolalg.Boolean) and not isinstance(v, sp.Expr):
            return v
        if is_expr(v):
            try:
                return made(sp.Ne, v, sp.Integer(0))
            except (TypeError, ValueError):
                pass
        return self.syms.boolean()

    def _rvalue(self, e: Optional[ir.Expr], st: WalkState) -> Value:
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
            a = self._rvalue(e.then, st.fork(c, e))
            b = self._rvalue(e.otherwise, st.fork(negate(c), e))
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

    def _read_var(self, e: ir.VarRef, st: WalkState) -> Value:
        v = e.var
        if in_memory(v) and v.type.kind not in ("array", "pointer"):
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
            return Pointer(v, space, sp.Integer(0), el, is_volatile_type(el) or t.is_volatile, v.name, ())
        if v.storage == "param":
            val = self._param_value(v)
            st.env[v] = val
            return val
        if v.file_scope or v.storage in ("device", "constant", "managed", "static", "shared"):
            if t.kind == "pointer":
                el = t.element or ir.UNKNOWN_TYPE
                return Pointer(v, "global", sp.Integer(0), el, is_volatile_type(el), v.name)
            space = self.space_of(v)
            if space in ("global", "constant", "shared") and t.kind in ("scalar", "vector", "record"):
                # A scalar in memory: its read is an access of its own (element offset 0).
                loc = _MemLoc(Pointer(v, space, sp.Integer(0), t, t.is_volatile, v.name), t, e, v.name)
                self._record(loc, "load", st)
            return MemLoad(sp.Symbol(v.name), sp.Integer(0))
        return self._unknown(v.name, lane=True)

    # arithmetic -------------------------------------------------------
    def _binop(self, e: ir.BinOp, st: WalkState) -> Value:
        op = e.op
        if op in _REL or op in ("&&", "||"):
            c = self._cond(e, st)
            try:
                return piecewise((sp.Integer(1), c), (sp.Integer(0), sp.true))
            except FoldTooCostly as x:
                return self._unknown("cond", lane=True, data=x.data)
            except (TypeError, ValueError):
                return self._unknown("cond", lane=True)
        a = self._rvalue(e.lhs, st)
        b = self._rvalue(e.rhs, st)
        if op == ",":
            return b
        return self._arith(op, a, b, e.type)

    def _arith(self, op: str, a: Value, b: Value, t: ir.CType) -> Value:
        limit = _FLOAT_EXPR_NODES if t.is_float else MAX_NODES
        # A float result whose operands are already over the limit together is not built:
        # sympy's product of two sums of sixty nodes costs milliseconds (SHOC's MaxFlops
        # chains thousands of them), and such a value would be dropped below anyway.
        too_big = t.is_float and is_expr(a) and is_expr(b) and operands_larger_than(a, b, limit)
        r = None if too_big else self._arith_exact(op, a, b, t)
        if too_big or is_expr(r) and larger_than(r, limit):
            # Floats never address memory; a hand-unrolled float recurrence (Mandelbrot's
            # x = x*x - y*y + c, twenty times) or integer hash rounds (MD5, CRC, a PRNG) would
            # grow without bound, where real index expressions stay small. Keep only what the
            # access analysis needs to know of such a value: lane-varying? read from memory?
            return self._unknown(f"float{op}", lane=lane_varying(a, self.syms) or lane_varying(b, self.syms),
                                 data=is_data(a) or is_data(b))
        if op in ("*", "<<") and not t.is_float and is_expr(r) and not r.is_Integer and _may_wrap(op, a, b, t):
            # a multiplier past half the type's range (an LCG's 6364136223846793005, a hash's
            # constant): the product wraps around, which the exact arithmetic does not model
            return self._unknown(f"wrap{op}", lane=lane_varying(a, self.syms) or lane_varying(b, self.syms),
                                 data=is_data(a) or is_data(b))
        return r

    def _arith_exact(self, op: str, a: Value, b: Value, t: ir.CType) -> Value:
        if isinstance(a, Pointer) or isinstance(b, Pointer):
            return self._ptr_arith(op, a, b)
        if not (is_expr(a) and is_expr(b)):
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
                return made(_idiv, a, b)
            if op == "%":
                if b == 0 or t.is_float:
                    return self._unknown("mod", lane=lane_varying(a, self.syms))
                if a.is_Integer and b.is_Integer:
                    return sp.Integer(cint.mod(int(a), int(b)))
                return made(sp.Mod, a, b)
            if op == "<<":
                k = _int_value(b)
                if k is not None and 0 <= k < 64:
                    return a * (2 ** k)
                return ShiftLeft(a, b)
            if op == ">>":
                k = _int_value(b)
                if k is not None and 0 <= k < 64:
                    return made(_idiv, a, sp.Integer(2 ** k))
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
        if isinstance(a, Pointer) and is_expr(b) and op in ("+", "-"):
            size = _elem_size(a.elem)
            return a.add_bytes(b * size if op == "+" else -b * size)
        if isinstance(b, Pointer) and is_expr(a) and op == "+":
            return b.add_bytes(a * _elem_size(b.elem))
        if isinstance(a, Pointer) and isinstance(b, Pointer) and op == "-" and a.base is b.base:
            return _idiv(a.offset - b.offset, sp.Integer(_elem_size(a.elem)))
        return self._unknown(f"pointer{op}", lane=True)

    def _unary(self, e: ir.UnaryOp, st: WalkState) -> Value:
        op = e.op
        if op in ("pre++", "pre--", "post++", "post--"):
            return self._incdec(e, st)
        if op == "&":
            o = e.operand
            while isinstance(o, ir.Cast):
                o = o.operand
            if isinstance(o, ir.VarRef) and o.var.type.kind == "array":
                # `&arr`: the array's own address, where `arr` decays to (`(T*)&extern_mem`)
                p = self._rvalue(o, st)
                if isinstance(p, Pointer):
                    return p
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
            try:
                return piecewise((sp.Integer(1), negate(c)), (sp.Integer(0), sp.true))
            except FoldTooCostly as x:
                return self._unknown("cond", lane=True, data=x.data)
            except (TypeError, ValueError):
                return self._unknown("cond", lane=True)
        o = e.operand
        if isinstance(o, ir.Member) and o.type.kind == "unknown" and o.base.type.kind == "record" \
                and op not in ("-", "+", "~"):
            # a conversion operator of the object's class (`(float)x[i]` with x a
            # __nv_bfloat16 array): it reads the whole object, an access of its own size
            b = self._rvalue(o.base, st)
            return self._unknown(op, lane=lane_varying(b, self.syms) if is_expr(b) else True)
        a = self._rvalue(e.operand, st)
        if not is_expr(a):
            return self._unknown(op, lane=True)
        if op == "-":
            return -a
        if op == "+":
            return a
        if op == "~":
            return -a - 1
        return self._unknown(op, lane=lane_varying(a, self.syms))

    def _incdec(self, e: ir.UnaryOp, st: WalkState) -> Value:
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

    def _assign(self, e: ir.Assign, st: WalkState) -> Value:
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
                val = replace(val, elem=el, volatile=val.volatile or is_volatile_type(el))
            st.env[v] = val if val is not None else self._unknown(v.name, lane=True)
        elif isinstance(loc, _MemLoc):
            self._record(loc, "store", st)
        return val

    def _var_value(self, loc: _VarLoc, st: WalkState) -> Value:
        if loc.var in st.env:
            return st.env[loc.var]
        return self._read_var(ir.VarRef(loc.var.range, loc.var.type, loc.var), st)

    def _cast(self, e: ir.Cast, st: WalkState) -> Value:
        v = self._rvalue(e.operand, st)
        t = e.type
        if t.kind == "pointer":
            el = t.element or ir.UNKNOWN_TYPE
            if isinstance(v, Pointer):
                return replace(v, elem=el, volatile=v.volatile or is_volatile_type(el))
            return Pointer(None, "unknown", self._unknown("(pointer)", lane=lane_varying(v, self.syms)), el)
        if isinstance(v, Pointer):
            return self._unknown("(ptr->int)", lane=True)
        if is_expr(v) and t.kind == "scalar" and not t.is_float and e.operand.type.is_float:
            return sp.floor(v)
        return v

    # memory -------------------------------------------------------------
    def _lvalue(self, e: ir.Expr, st: WalkState):
        if isinstance(e, ir.VarRef):
            v = e.var
            if v.type.kind == "array":
                return None
            if in_memory(v) and v.type.kind != "pointer":
                space = self.space_of(v)
                return _MemLoc(Pointer(v, space, sp.Integer(0), v.type, is_volatile_type(v.type), v.name),
                               v.type, e, v.name, None, is_volatile_type(v.type))
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
                    # `packed[k]` through a class's operator[] (llm.c's x128), `a.v[k]` of a
                    # per-thread struct: an element of the object itself, wherever the object
                    # lives (registers for a local).
                    size = e.type.size if e.type.size else 4
                    k = idx if is_expr(idx) else self._unknown("index", lane=True)
                    p = Pointer(obj, self.space_of(obj), k * size, e.type, is_volatile_type(obj.type), obj.name)
                    return _MemLoc(p, e.type, e, name)
                return _MemLoc(Pointer(None, "unknown", self._unknown("base", lane=True), e.type),
                               e.type, e, name)
            size = e.type.size if e.type.size else _elem_size(base.elem)
            if not is_expr(idx):
                idx = self._unknown("index", lane=True)
            var_loc = _local_scalar(base, idx * size, e.type)
            if var_loc is not None:
                return var_loc
            subs = base.subs + (idx,) if base.subs is not None else None
            p = replace(base.add_bytes(idx * size), elem=e.type, subs=subs)
            dims = None
            if subs is not None and base.base is not None and \
                    len(subs) == len(base.base.type.array_extents()) >= 2:
                dims = list(subs)
            return _MemLoc(p, e.type, e, name, dims, p.volatile or is_volatile_type(e.type))
        if isinstance(e, ir.UnaryOp) and e.op == "*":
            p = self._rvalue(e.operand, st)
            name = _source_name(e)
            if not isinstance(p, Pointer):
                p = Pointer(None, "unknown", self._unknown("*", lane=True), e.type)
            var_loc = _local_scalar(p, sp.Integer(0), e.type)
            if var_loc is not None:
                return var_loc
            return _MemLoc(replace(p, elem=e.type), e.type, e, name, None, p.volatile or is_volatile_type(e.type))
        if isinstance(e, ir.Member):
            if e.arrow:
                p = self._rvalue(e.base, st)
                if not isinstance(p, Pointer):
                    return None
                off, note = _member_offset(p.elem, e.member)
                loc = _MemLoc(replace(p.add_bytes(off), elem=e.type), e.type, e, _source_name(e),
                              None, p.volatile or is_volatile_type(e.type))
                if note:
                    loc.notes.append(note)
                return loc
            inner = self._lvalue(e.base, st)
            if isinstance(inner, _MemLoc):
                off, note = _member_offset(inner.elem, e.member)
                loc = _MemLoc(replace(inner.pointer.add_bytes(off), elem=e.type), e.type, e,
                              inner.name, None, inner.volatile or is_volatile_type(e.type), list(inner.notes))
                if note:
                    loc.notes.append(note)
                return loc
            return None
        return None

    def _mem_read(self, loc: _MemLoc, st: WalkState, cache: str = "") -> Value:
        if loc.elem.kind == "array":
            return replace(loc.pointer, elem=loc.elem.element or ir.UNKNOWN_TYPE)
        self._record(loc, "load", st, cache=cache)
        if loc.elem.kind == "pointer":
            # A pointer read from memory: an object we do not know, at an address that is data.
            el = loc.elem.element or ir.UNKNOWN_TYPE
            val = MemLoad(sp.Symbol(loc.name or "mem"), _element_index(loc.pointer.offset, loc.elem.size))
            return Pointer(None, "global", val, el, is_volatile_type(el), f"{loc.name}[]")
        off = loc.pointer.offset
        if loc.pointer.space in ("local", "register"):
            t = self.syms.thread
            return LocalLoad(sp.Symbol(loc.name or "mem"), _element_index(off, loc.elem.size),
                             t["x"], t["y"], t["z"])
        return MemLoad(sp.Symbol(loc.name or "mem"), _element_index(off, loc.elem.size))

    def _load(self, e: ir.Expr, st: WalkState) -> Value:
        loc = self._lvalue(e, st)
        if isinstance(loc, _MemLoc):
            return self._mem_read(loc, st)
        if isinstance(loc, _VarLoc) and not isinstance(e, ir.VarRef):
            return self._var_value(loc, st)  # *p with p = &v: v's value
        if isinstance(e, ir.Member):
            mp = self._param_member_pointer(e)
            if mp is not None:
                return mp
            base = self._rvalue(e.base, st)
            if isinstance(base, sp.Basic) and is_data(base):
                return MemLoad(sp.Symbol(f".{e.member}"), base)
            return self._unknown(f".{e.member}", lane=lane_varying(base, self.syms) if
                                 isinstance(base, sp.Basic) else True)
        return self._unknown("load", lane=True)

    def _param_member_pointer(self, e: ir.Member) -> Optional[Pointer]:
        """``p.x`` for a struct ``p`` passed by value whose member ``x`` is a pointer: a global
        object of its own named ``p.x`` (a structure of arrays), so ``p.x[i]`` has an address."""
        b = e.base
        if e.arrow or not isinstance(b, ir.VarRef) or b.var.storage != "param" or b.var.is_reference:
            return None
        if b.var.type.kind != "record" or e.type.kind != "pointer":
            return None
        key = (id(b.var), e.member)
        v = self._member_vars.get(key)
        if v is None:
            v = ir.Variable(f"{b.var.name}.{e.member}", e.type, "param", b.var.range)
            self._member_vars[key] = v
        el = e.type.element or ir.UNKNOWN_TYPE
        return Pointer(v, "global", sp.Integer(0), el, is_volatile_type(el), v.name)

    def _record(self, loc: _MemLoc, kind: str, st: WalkState, atomic: bool = False, cache: str = "") -> None:
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
            cache=cache, guard=st.last_guard()))

    def _function_of(self, node: ir.Expr) -> ir.Function:
        f = self._current_function
        return f if f is not None else self.kernel

    _current_function: Optional[ir.Function] = None

    # calls ----------------------------------------------------------------
    def _call(self, e: ir.Call, st: WalkState) -> Value:
        name = e.callee.split("::")[-1] if e.callee else ""
        full = e.callee or ""
        tc = texture_call(e) if name.startswith(("tex", "surf")) else None
        if tc is not None:
            return walk_texture_call(self, e, tc, st)
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
        if name.startswith(("atomic", "__nv_atomic")) and e.args:
            # atomicAdd(p, v), ...; nvcc's __nv_atomic_fetch_add(p, v, order, scope), ...: the
            # first operand is the location (__nv_atomic_load[_n] only reads it)
            p = self._rvalue(e.args[0], st)
            vals = [self._rvalue(a, st) for a in e.args[1:]]
            if isinstance(p, Pointer):
                kind = "load" if name in ("__nv_atomic_load", "__nv_atomic_load_n") else "store"
                self._record(_MemLoc(p, p.elem, e, _source_name(e.args[0])), kind, st, atomic=True)
            args = [v for v in vals if is_expr(v)]
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
            if len(vals) == 2 and all(is_expr(v) for v in vals):
                if e.type.is_float and not all(v.is_Number for v in vals):
                    # A float min/max never addresses memory, and sympy orders the two sides
                    # by asking its assumptions about them (0.2 s a call on SHOC S3D's
                    # MIN(rtemp_inv, SMALL_INV) over reaction rates read from memory): kept
                    # as what the access analysis needs, as for float arithmetic (_arith).
                    return self._unknown(f"{name}()", lane=any(lane_varying(v, self.syms) for v in vals),
                                         data=any(is_data(v) for v in vals))
                try:
                    return made(fn, *vals)
                except (TypeError, ValueError):
                    pass
        if name in ("abs", "labs", "llabs") and len(vals) == 1 and is_expr(vals[0]):
            return sp.Abs(vals[0])
        if name in _MUL24 and len(vals) == 2 and all(is_expr(v) for v in vals):
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
        args = [v for v in vals if is_expr(v)]
        ptr_args = [v.offset for v in vals if isinstance(v, Pointer)]
        return Opaque(sp.Symbol(name or "call"), *(args + ptr_args))

    def _warp_collective(self, name: str, vals: list) -> Value:
        """A shuffle, vote, match or warp reduction. Its result is data (read from memory)
        only when an operand is; otherwise it is a register value moved between lanes: the
        same value when the operand is the same in every lane, else a per-lane value the
        analysis does not model (never "read from memory": no CL203 for it)."""
        args = [v for v in vals if is_expr(v)]
        data = any(is_data(v) for v in args)
        uniform_result = name.startswith(("__ballot", "__any", "__all", "__reduce", "__activemask"))
        if data:
            tail = () if uniform_result else (self.syms.thread["x"],)
            return MemLoad(sp.Symbol(name), *args, *tail)
        if uniform_result:
            return self._unknown(name, lane=False)
        moved = vals[1] if name.endswith("_sync") and len(vals) > 1 else (vals[0] if vals else None)
        if name.startswith("__shfl") and is_expr(moved) and not lane_varying(moved, self.syms):
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

    def _inline(self, e: ir.Call, fn: ir.Function, vals: list, st: WalkState) -> Value:
        env = {}
        if e.method:
            vals = vals[1:]  # the object: `this`, which the body's members are not resolved through
        for p, v in zip(fn.params, vals):
            if p.type.kind == "pointer" and isinstance(v, Pointer):
                el = p.type.element or v.elem
                v = replace(v, elem=el, volatile=v.volatile or is_volatile_type(el))
            env[p] = v if v is not None else self._unknown(p.name, lane=True)
        for p in fn.params[len(vals):]:
            env[p] = self._unknown(p.name, lane=True)
        # the caller's scalars passed by address (`pick_mat(&seed)`): the body reads and
        # updates them through the pointer (_local_scalar), and the caller sees the update
        shared = [v.base for v in vals if isinstance(v, Pointer) and _local_scalar(v, 0, v.base.type if
                                                                                    v.base is not None else ir.UNKNOWN_TYPE)]
        for v in shared:
            if v in st.env:
                env[v] = st.env[v]
        sub = WalkState(env, st.path, st.loops, st.depth + 1, [], len(st.path),
                     st.call_lines + (e.range.line,))
        saved = self._current_function
        self._current_function = fn
        try:
            self._block(fn.body, sub)
        finally:
            self._current_function = saved
        for v in shared:
            if v in sub.env:
                st.env[v] = sub.env[v]
        rets = sub.returns or []
        if not rets:
            return None
        if len(rets) == 1 and not rets[0][0]:
            return rets[0][1]
        pieces = []
        if len(rets) > 16:
            return self._unknown(fn.name, lane=True)
        for extra, v in rets:
            if not is_expr(v) or larger_than(v, MAX_NODES) or \
                    any(larger_than(x, MAX_NODES // 4) for x in extra if isinstance(x, sp.Basic)):
                # many or large returns: a Piecewise of them would only be thrown away later
                return self._unknown(fn.name, lane=True)
            cond = sp.And(*extra) if extra else sp.true
            pieces.append((v, cond))
            if cond is sp.true:
                break
        if pieces[-1][1] is not sp.true:
            pieces[-1] = (pieces[-1][0], sp.true)
        try:
            return bounded(piecewise(*pieces), self, fn.name)
        except (TypeError, ValueError):
            return self._unknown(fn.name, lane=True)


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
            not in_memory(e.var):
        return e.var
    return None
