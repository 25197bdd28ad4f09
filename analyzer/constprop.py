"""Constant evaluation of C/C++ expressions, for launch configurations and launch arguments.

``dim3 block(TILE, TILE)``, ``(n + 255) / 256``, ``(size_t)ceil((float)NI / (float)block.x)``,
``std::min(64, blocks)``, ``iDivUp(n, 256)`` (a small helper whose body is evaluated),
``constexpr`` values and macros (already expanded by the preprocessor) resolve to numbers;
anything that depends on run-time data stays unknown (None). :func:`why_unknown` names the
part of an expression that made it unknown and why, so the output can say so.

C semantics kept: integer division and remainder truncate toward zero, unsigned and fixed-width
integer types wrap, ``float`` values are rounded to single precision. The statement walk over
host functions (flow-sensitive environments, values through calls) is in
:mod:`cudalint.analyzer.hostflow`.
"""
from __future__ import annotations

import math
from typing import Optional, Union

from . import cint, ir
from .cint import convert as wrap

Value = Union[int, float, tuple]

_DIM3_CTORS = {"dim3", "uint3", "make_uint3", "make_int3", "make_dim3"}
_MINMAX = {"min": min, "max": max, "fmin": min, "fmax": max, "umin": min, "umax": max,
           "imin": min, "imax": max, "llmin": min, "llmax": max, "ullmin": min, "ullmax": max,
           "fminf": min, "fmaxf": max}
# One-argument math functions, by their base name (ceilf/ceill/std::ceil/__builtin_ceil map here).
_MATH1 = {"ceil": math.ceil, "floor": math.floor, "trunc": math.trunc, "round": round,
          "sqrt": math.sqrt, "cbrt": lambda v: math.copysign(abs(v) ** (1 / 3), v),
          "fabs": abs, "abs": abs, "labs": abs, "llabs": abs, "log2": math.log2,
          "log10": math.log10, "exp2": lambda v: 2.0 ** v}
_INT_RESULT = {"abs", "labs", "llabs"}
_MAX_INLINE_STMTS = 40


class Env(dict):
    """Variable -> known value, plus ``why``: variable -> why it is not known (a sentence)."""

    def __init__(self, *args, why: Optional[dict] = None, origin: Optional[dict] = None,
                 ranges: Optional[dict] = None, device=None):
        super().__init__(*args)
        # what the runtime's device queries answer (device_queries.DeviceAnswers), or None
        self.device = device
        self.why: dict = dict(why or {})
        # variable -> where its value came from, when a caller supplied it (parameters bound
        # from the calls in this file, and what is computed from them): said at each launch.
        self.origin: dict = dict(origin or {})
        # variable -> (first, last, line, step): the counter of a counted loop (``for (int i =
        # 1; i <= 32; i++)``) inside its body, where it has no single value but takes the values
        # first..last in turn (the loop at ``line``; ``step`` says how where not by one).
        self.ranges: dict = dict(ranges or {})

    def copy(self) -> "Env":
        return Env(self, why=self.why, origin=self.origin, ranges=self.ranges, device=self.device)

    def origins(self, e: Optional[ir.Expr]) -> set:
        """The caller-supplied values an expression depends on."""
        out: set = set()
        if e is not None and self.origin:
            for x in e.walk():
                if isinstance(x, ir.VarRef):
                    out |= self.origin.get(x.var, set())
                elif isinstance(x, ir.Member) and isinstance(x.base, ir.VarRef) and \
                        isinstance(self.get(x.base.var), Record):
                    # one field's origin (the SM count of cudaGetDeviceProperties' record)
                    out |= self.origin.get((x.base.var, x.member), set())
        return out

    def cells(self) -> list:
        """``("cell", p)`` keys: pointer parameters standing for a caller's variable."""
        return [k for k in self if isinstance(k, tuple) and k and k[0] == "cell"]

    def forget(self, var, reason: str) -> None:
        self.pop(var, None)
        self.pop(("cell", var), None)
        self._drop_parts(var)
        if getattr(var, "type", None) is not None and var.type.kind == "array":
            for k in [k for k in self if isinstance(k, tuple) and k[0] is var]:
                del self[k]  # its elements
        self.why[var] = reason
        self.ranges.pop(var, None)

    def set(self, var, value, keep_parts: bool = False) -> None:
        """``keep_parts``: keep the reasons of a dim3's unknown components (key (var, 'x'))."""
        self[var] = value
        self.why.pop(var, None)
        self.ranges.pop(var, None)
        if not keep_parts:
            self._drop_parts(var)

    def _drop_parts(self, var) -> None:
        for m in "xyz":
            self.why.pop((var, m), None)


class Record:
    """The known fields of a record (a struct of launch parameters built by its constructor or
    a braced initializer): field -> value, and why each unknown field is unknown."""

    __slots__ = ("fields", "why")

    def __init__(self, fields, why=None):
        self.fields = tuple(fields)
        self.why = dict(why or {})

    def get(self, name):
        for f, v in self.fields:
            if f == name:
                return v
        return None

    def __eq__(self, other):
        return isinstance(other, Record) and self.fields == other.fields

    def __hash__(self):
        return hash(self.fields)

    def __repr__(self):
        return "Record(" + ", ".join(f"{f}={v!r}" for f, v in self.fields) + ")"


def _record(e: ir.Expr, exprs: list, env: dict, d: int) -> Optional[Record]:
    """The record a constructor call or a braced initializer builds (``exprs``: the
    expression each field gets, None where it is not one the constructor copies)."""
    names = e.fields if isinstance(e, ir.InitList) else tuple(f for f, _ in e.fields)
    vals, why = [], {}
    for name, x in zip(names, exprs):
        v = _eval(x, env, d) if x is not None else None
        vals.append((name, v))
        if not known(v) and x is not None:
            try:
                why[name] = _why(x, env, d) or f"`{text(x)}` is not a compile-time constant"
            except RecursionError:
                pass
    if all(v is None for _, v in vals):
        return None
    return Record(vals, why)


def known(v) -> bool:
    """A value with every part known (a dim3 may be known in some components only)."""
    return v is not None and not (isinstance(v, tuple) and any(c is None for c in v))


def _as_int(v) -> Optional[int]:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


def _base_name(name: str) -> str:
    for p in ("std::", "::", "__builtin_"):
        if name.startswith(p):
            name = name[len(p):]
    return name


def _math_name(name: str) -> Optional[str]:
    b = _base_name(name)
    if b in _MATH1:
        return b
    if b[-1:] in ("f", "l") and b[:-1] in _MATH1:
        return b[:-1]
    return None


def element_key(e: ir.Expr, env: dict) -> Optional[tuple]:
    """``(var, "[]", (i, j, ...))`` for ``var[i][j]...`` with every index known in ``env``: the
    key under which the environment holds that element's value (host arrays of launch shapes,
    ``dim3 grid[3][2]``)."""
    idx = []
    while isinstance(e, ir.Index):
        i = _as_int(evaluate(e.index, env))
        if i is None:
            return None
        idx.append(i)
        e = e.base
    while isinstance(e, ir.Cast):
        e = e.operand
    if not isinstance(e, ir.VarRef) or e.var.type.kind != "array":
        return None
    return (e.var, "[]", tuple(reversed(idx)))


def evaluate(e: Optional[ir.Expr], env: dict) -> Optional[Value]:
    """Evaluate ``e`` to an int, float or (x, y, z) tuple; None when not a known constant."""
    if e is None:
        return None
    try:
        return _eval(e, env, 0)
    except (ZeroDivisionError, OverflowError, ValueError, TypeError, RecursionError):
        return None


def _eval(e: ir.Expr, env: dict, depth: int) -> Optional[Value]:
    if depth > 200:
        return None
    d = depth + 1
    if isinstance(e, ir.Const):
        return e.value if isinstance(e.value, (int, float)) else None
    if isinstance(e, ir.SizeOf):
        return e.value
    if isinstance(e, ir.VarRef):
        return env.get(e.var)
    if isinstance(e, ir.Index):  # an element the host code stored (`grid[0][1] = dim3(...)`)
        key = element_key(e, env)
        if key is None and isinstance(e.base, ir.VarRef) and ("cell", e.base.var) in env and \
                _as_int(_eval(e.index, env, d)) == 0:
            return env.get(("cell", e.base.var))  # p[0], p standing for a caller's variable
        return env.get(key) if key is not None else None
    if isinstance(e, ir.TemplateParam):  # bound where the environment says (cfg.constants)
        v = env.get(("template", e.name))
        return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None
    if isinstance(e, ir.Cast):
        v = _eval(e.operand, env, d)
        if v is None or isinstance(v, tuple):
            return v
        if e.type.kind == "scalar" and isinstance(v, float) and not e.type.is_float:
            v = int(v)  # float -> integer truncates toward zero
        return wrap(v, e.type)
    if isinstance(e, ir.UnaryOp) and e.op == "*" and isinstance(e.operand, ir.VarRef) and \
            ("cell", e.operand.var) in env:
        return env.get(("cell", e.operand.var))  # *p, p standing for a caller's variable
    if isinstance(e, ir.UnaryOp):
        v = _eval(e.operand, env, d)
        if v is None or isinstance(v, tuple):
            return None
        if e.op == "-":
            return wrap(-v, e.type)
        if e.op == "+":
            return v
        if e.op == "!":
            return int(not v)
        if e.op == "~" and isinstance(v, int):
            return wrap(~v, e.type)
        return None
    if isinstance(e, ir.BinOp):
        a = _eval(e.lhs, env, d)
        if e.op == "&&" and a is not None and not a:
            return 0
        if e.op == "||" and a is not None and a:
            return 1
        b = _eval(e.rhs, env, d)
        if a is None or b is None or isinstance(a, tuple) or isinstance(b, tuple):
            return None
        r = _binop(e.op, a, b, e.type)
        return wrap(r, e.type) if e.op not in _COMPARISONS else r
    if isinstance(e, ir.Ternary):
        c = _eval(e.cond, env, d)
        if c is None:
            return None
        return _eval(e.then if c else e.otherwise, env, d)
    if isinstance(e, ir.Member):
        v = _eval(e.base, env, d)
        if isinstance(v, tuple) and e.member in ("x", "y", "z"):
            return v["xyz".index(e.member)]
        if isinstance(v, Record) and not e.arrow:
            return v.get(e.member)
        return None
    if isinstance(e, ir.Call):
        return _call(e, env, d)
    if isinstance(e, ir.InitList) and e.fields:
        return _record(e, list(e.items) + [None] * (len(e.fields) - len(e.items)), env, d)
    if isinstance(e, ir.InitList):
        vals = [_as_int(_eval(x, env, d)) for x in e.items]
        if e.type.spelling.endswith("dim3") or e.type.spelling == "dim3":
            if all(v is None for v in vals):
                return None
            return tuple((vals + [1, 1, 1])[:3])  # possibly partly known: {4, 8, bs / 32}
        if len(vals) == 1:
            return vals[0]
        return None
    if isinstance(e, ir.Assign) and e.op == "=":
        return _eval(e.value, env, d)
    return None


_COMPARISONS = {"<", ">", "<=", ">=", "==", "!=", "&&", "||"}


def _call(e: ir.Call, env: dict, d: int) -> Optional[Value]:
    name = _base_name(e.callee)
    if name in _DIM3_CTORS:
        vals = []
        for a in e.args:
            v = _eval(a, env, d)
            if isinstance(v, tuple):  # copy construction
                return v
            vals.append(_as_int(v))
        if all(v is None for v in vals):
            return None
        return tuple((vals + [1, 1, 1])[:3])  # possibly partly known: dim3 grid(n, 1)
    if name in _MINMAX and len(e.args) == 2:
        a, b = (_eval(x, env, d) for x in e.args)
        if a is None or b is None or isinstance(a, tuple) or isinstance(b, tuple):
            return None
        return wrap(_MINMAX[name](a, b), e.type)
    m = _math_name(e.callee)
    if m is not None and len(e.args) == 1:
        v = _eval(e.args[0], env, d)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            r = _MATH1[m](v)
            return wrap(r if m in _INT_RESULT else float(r), e.type)
        return None
    if name == "pow" or name == "powf":
        a, b = (_eval(x, env, d) for x in e.args[:2]) if len(e.args) == 2 else (None, None)
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return wrap(float(a) ** float(b), e.type)
        return None
    if e.fields:  # a record's constructor: the fields it copies from its arguments
        return _record(e, [e.args[i] if i < len(e.args) else None for _, i in e.fields], env, d)
    if e.function is not None:
        return _inline_call(e, env, d)
    return None


def _binop(op: str, a, b, t: ir.CType):
    is_int = isinstance(a, int) and isinstance(b, int) and not t.is_float
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return cint.div(a, b) if is_int else a / b
    if op == "%":
        return cint.mod(a, b) if is_int else None
    if not (isinstance(a, int) and isinstance(b, int)):
        if op in ("<", ">", "<=", ">=", "==", "!="):
            return int({"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "==": a == b,
                        "!=": a != b}[op])
        return None
    return {
        "<<": lambda: a << b, ">>": lambda: a >> b, "&": lambda: a & b, "|": lambda: a | b,
        "^": lambda: a ^ b, "<": lambda: int(a < b), ">": lambda: int(a > b),
        "<=": lambda: int(a <= b), ">=": lambda: int(a >= b), "==": lambda: int(a == b),
        "!=": lambda: int(a != b), "&&": lambda: int(bool(a and b)), "||": lambda: int(bool(a or b)),
        ",": lambda: b,
    }.get(op, lambda: None)()


def _inline_call(call: ir.Call, env: dict, depth: int):
    """Evaluate a call to a small helper (``int iDivUp(int a, int b) { return a % b ? a / b + 1
    : a / b; }``, or a few statements without loops) with its arguments bound."""
    fn = call.function
    if fn is None or fn.body is None or len(fn.params) != len(call.args) or depth > 50:
        return None
    local = Env()
    for p, a in zip(fn.params, call.args):
        v = _eval(a, env, depth)
        if v is None:
            return None
        local.set(p, wrap(v, p.type))
    r = run_function(fn, local, max_stmts=_MAX_INLINE_STMTS)
    return wrap(r, fn.return_type) if r is not None else None


class _GiveUp(Exception):
    """run_function met something it does not interpret (a loop, an unknown condition)."""


class _Returned(Exception):
    def __init__(self, value):
        self.value = value


def run_function(fn: ir.Function, env: "Env", max_stmts: int = _MAX_INLINE_STMTS):
    """The value a small helper returns when run from ``env`` (its parameters bound), or None:
    declarations, assignments and branches with known conditions only (no loops)."""
    if fn.body is None:
        return None
    budget = [max_stmts]
    try:
        _exec(fn.body, env, budget)
    except _Returned as r:
        return r.value
    except (_GiveUp, RecursionError, ZeroDivisionError, OverflowError, TypeError, ValueError):
        return None
    return None


def _exec(b: ir.Block, env: "Env", budget: list) -> None:
    for s in b.stmts:
        budget[0] -= 1
        if budget[0] < 0:
            raise _GiveUp
        if isinstance(s, ir.Return):
            raise _Returned(evaluate(s.value, env) if s.value is not None else None)
        if isinstance(s, ir.Block):
            _exec(s, env, budget)
        elif isinstance(s, ir.If):
            c = evaluate(s.cond, env)
            if c is None:
                raise _GiveUp
            if c:
                _exec(s.then, env, budget)
            elif s.otherwise is not None:
                _exec(s.otherwise, env, budget)
        elif isinstance(s, ir.DeclStmt):
            v = evaluate(s.init, env) if s.init is not None else None
            if v is None:
                raise _GiveUp
            env[s.var] = wrap(v, s.var.type)
        elif isinstance(s, ir.ExprStmt):
            _exec_expr(s.expr, env)
        else:
            raise _GiveUp


def _exec_expr(e: ir.Expr, env: "Env") -> None:
    if isinstance(e, ir.Assign) and isinstance(e.target, ir.VarRef):
        rhs = evaluate(e.value, env)
        cur = env.get(e.target.var)
        v = rhs if e.op == "=" else (_binop(e.op[:-1], cur, rhs, e.type)
                                     if cur is not None and rhs is not None else None)
    elif isinstance(e, ir.UnaryOp) and e.op in ("pre++", "pre--", "post++", "post--") and \
            isinstance(e.operand, ir.VarRef):
        cur = env.get(e.operand.var)
        v = cur + (1 if "++" in e.op else -1) if isinstance(cur, (int, float)) else None
        e = ir.Assign(e.range, e.type, "=", e.operand, e.operand)
    else:
        raise _GiveUp
    if v is None or isinstance(v, tuple):
        raise _GiveUp
    env[e.target.var] = wrap(v, e.target.var.type)


# ---------------------------------------------------------------------- why a value is unknown

def text(e: Optional[ir.Expr]) -> str:
    """Short C-like text of an expression, for messages."""
    if e is None:
        return "?"
    if isinstance(e, ir.Const):
        return str(e.value)
    if isinstance(e, ir.VarRef):
        return e.var.name
    if isinstance(e, ir.Member):
        return f"{text(e.base)}{'->' if e.arrow else '.'}{e.member}"
    if isinstance(e, ir.Call):
        return f"{e.callee}({', '.join(text(a) for a in e.args[:3])}{', ...' if len(e.args) > 3 else ''})"
    if isinstance(e, ir.Cast):
        return text(e.operand) if e.implicit else f"({e.type.spelling}){text(e.operand)}"
    if isinstance(e, ir.BinOp):
        return f"{text(e.lhs)} {e.op} {text(e.rhs)}"
    if isinstance(e, ir.UnaryOp):
        return f"{e.op.replace('post', '').replace('pre', '')}{text(e.operand)}"
    if isinstance(e, ir.Index):
        return f"{text(e.base)}[{text(e.index)}]"
    if isinstance(e, ir.Ternary):
        return f"{text(e.cond)} ? {text(e.then)} : {text(e.otherwise)}"
    if isinstance(e, ir.Unknown):
        return e.text
    if isinstance(e, ir.Builtin):
        return f"{e.name}.{e.component}" if e.component else e.name
    return type(e).__name__


def why_unknown(e: Optional[ir.Expr], env: dict) -> Optional[str]:
    """Why ``e`` has no known value under ``env`` (None when it has one): the first unknown
    part, with the reason recorded for a variable when it was forgotten."""
    if e is None:
        return "no expression"
    if known(evaluate(e, env)):
        return None
    try:
        return _why(e, env, 0) or f"`{text(e)}` is not a compile-time constant"
    except RecursionError:
        return f"`{text(e)}` is not a compile-time constant"


def _why(e: ir.Expr, env: dict, depth: int) -> Optional[str]:
    if depth > 60 or known(evaluate(e, env)):
        return None
    whys = getattr(env, "why", {})
    if isinstance(e, ir.VarRef):
        val = env.get(e.var)
        if isinstance(val, tuple):
            parts = [whys.get((e.var, m)) or f"`{e.var.name}.{m}` has no known value here"
                     for m, c in zip("xyz", val) if c is None]
            return "; ".join(parts)
        why = whys.get(e.var)
        if why:
            return why
        v = e.var
        if v.storage == "param":
            return f"`{v.name}` is a function parameter with no known value"
        if v.file_scope:
            return f"`{v.name}` is a file-scope variable, not a constant"
        return f"`{v.name}` has no known value here"
    if isinstance(e, ir.Call) and _base_name(e.callee) not in _DIM3_CTORS | set(_MINMAX) \
            and _math_name(e.callee) is None:
        if e.function is None or e.function.body is None:
            return f"`{text(e)}` is computed at run time"
        for a in e.args:
            r = _why(a, env, depth + 1)
            if r:
                return r
        return f"`{text(e)}` could not be evaluated (its body has loops or run-time data)"
    if isinstance(e, ir.Member) and not isinstance(e.base, (ir.VarRef, ir.Call)):
        return _why(e.base, env, depth + 1) or f"`{text(e)}` is a run-time value"
    if isinstance(e, ir.Member):
        base = evaluate(e.base, env)
        if isinstance(base, Record):
            return base.why.get(e.member) or f"`{text(e)}` has no known value here"
        if isinstance(base, tuple) and isinstance(e.base, ir.VarRef) and e.member in ("x", "y", "z"):
            return whys.get((e.base.var, e.member)) or whys.get(e.base.var) or \
                f"`{text(e)}` has no known value here"
        if base is None:
            if isinstance(e.base, ir.VarRef) and e.base.var.type.spelling.endswith("dim3"):
                return _why(e.base, env, depth + 1)
            return f"`{text(e)}` is a field of `{text(e.base)}`, whose value is not tracked"
    if isinstance(e, ir.Index):
        return f"`{text(e)}` is an array element, read at run time"
    if isinstance(e, ir.Unknown):
        return f"`{e.text}` is not modelled"
    for c in e.children():
        if c is not None:
            r = _why(c, env, depth + 1)
            if r:
                return r
    return None


# ---------------------------------------------------------------------- writes (used widely)

def assigned_vars(s: ir.Stmt) -> set:
    """Variables written (assigned, incremented, address taken) anywhere inside ``s``."""
    out = set()
    for st in ir.walk_stmt(s):
        if isinstance(st, ir.DeclStmt):
            out.add(st.var)
        for e in st.exprs():
            for x in e.walk():
                collect_writes(x, out)
    return out


def _root_var(e: ir.Expr):
    while isinstance(e, (ir.Member, ir.Index, ir.Cast)):
        e = e.base if not isinstance(e, ir.Cast) else e.operand
    return e.var if isinstance(e, ir.VarRef) else None


def collect_writes(x: ir.Expr, out: set) -> None:
    if isinstance(x, ir.Assign):
        v = _root_var(x.target)
        if v is not None:
            out.add(v)
    elif isinstance(x, ir.UnaryOp) and x.op in ("pre++", "pre--", "post++", "post--", "&"):
        v = _root_var(x.operand)
        if v is not None:
            out.add(v)
    elif isinstance(x, ir.Call) and x.callee not in _DIM3_CTORS and x.launch is None:
        # (cudaLaunchKernel takes its grid and block by value and writes nothing it is given)
        # Reference parameters can be written by the callee (e.g. `cin >> n`, `init(n)` with
        # `void init(int &n)`): a record passed to any call, or any variable bound to a
        # non-const reference parameter of a function we can see.
        params = x.function.params if x.function is not None else []
        for i, a in enumerate(x.args):
            if not isinstance(a, ir.VarRef):
                continue
            p = params[i] if i < len(params) else None
            if a.var.type.kind == "record" or (p is not None and p.is_reference and not p.type.is_const):
                out.add(a.var)
