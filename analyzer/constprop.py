"""Constant propagation over host code, for launch configurations and launch arguments.

``dim3 block(TILE, TILE)``, ``int n = 1 << 20; ... (n + 255) / 256``, ``constexpr`` values and
macros (already expanded by the preprocessor) resolve to numbers; anything that depends on
run-time data (argv, a value read from a file, a loop-carried variable) stays unknown (None).

The walk is flow-sensitive on straight-line code: a variable assigned inside a branch or a loop
is unknown after it (and inside a loop from its start, because of the back edge).
"""
from __future__ import annotations

from typing import Optional, Union

from . import cint, ir

Value = Union[int, float, tuple]

_DIM3_CTORS = {"dim3", "uint3", "make_uint3", "make_int3"}
_MINMAX = {"min": min, "max": max, "std::min": min, "std::max": max, "fmin": min, "fmax": max,
           "fminf": min, "fmaxf": max}


def _as_int(v) -> Optional[int]:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


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
    if isinstance(e, ir.Cast):
        v = _eval(e.operand, env, d)
        if v is None or isinstance(v, tuple):
            return v
        sp = e.type.spelling
        if e.type.is_float:
            return float(v)
        if e.type.kind == "scalar" and isinstance(v, float) and "float" not in sp and "double" not in sp:
            return int(v)
        return v
    if isinstance(e, ir.UnaryOp):
        v = _eval(e.operand, env, d)
        if v is None or isinstance(v, tuple):
            return None
        if e.op == "-":
            return -v
        if e.op == "+":
            return v
        if e.op == "!":
            return int(not v)
        if e.op == "~" and isinstance(v, int):
            return ~v
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
        return _binop(e.op, a, b, e.type)
    if isinstance(e, ir.Ternary):
        c = _eval(e.cond, env, d)
        if c is None:
            return None
        return _eval(e.then if c else e.otherwise, env, d)
    if isinstance(e, ir.Member):
        v = _eval(e.base, env, d)
        if isinstance(v, tuple) and e.member in ("x", "y", "z"):
            return v["xyz".index(e.member)]
        return None
    if isinstance(e, ir.Call):
        name = e.callee
        if name in _DIM3_CTORS:
            vals = []
            for a in e.args:
                v = _eval(a, env, d)
                if isinstance(v, tuple):  # copy construction
                    return v
                vals.append(_as_int(v))
            if any(v is None for v in vals):
                return None
            vals = (vals + [1, 1, 1])[:3]
            return tuple(vals)
        if name in _MINMAX and len(e.args) == 2:
            a, b = (_eval(x, env, d) for x in e.args)
            if a is None or b is None or isinstance(a, tuple) or isinstance(b, tuple):
                return None
            return _MINMAX[name](a, b)
        if len(e.args) == 1 and e.function is None and name in ("ceil", "floor", "ceilf", "floorf"):
            import math
            v = _eval(e.args[0], env, d)
            if isinstance(v, (int, float)):
                return float(math.ceil(v) if name.startswith("ceil") else math.floor(v))
        if e.function is not None:
            return _inline_call(e, env, d)
        return None
    if isinstance(e, ir.InitList):
        vals = [_as_int(_eval(x, env, d)) for x in e.items]
        if e.type.spelling.endswith("dim3") or e.type.spelling == "dim3":
            if any(v is None for v in vals):
                return None
            return tuple((vals + [1, 1, 1])[:3])
        if len(vals) == 1:
            return vals[0]
        return None
    if isinstance(e, ir.Assign) and e.op == "=":
        return _eval(e.value, env, d)
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
    """Evaluate a call to a small helper (``int div_up(int a, int b) { return (a+b-1)/b; }``)."""
    fn = call.function
    if fn is None or fn.body is None or len(fn.params) != len(call.args) or depth > 50:
        return None
    stmts = fn.body.stmts
    if len(stmts) != 1 or not isinstance(stmts[0], ir.Return):
        return None
    local = {p: _eval(a, env, depth) for p, a in zip(fn.params, call.args)}
    if any(v is None for v in local.values()):
        return None
    return _eval(stmts[0].value, local, depth)


# ---------------------------------------------------------------------- host walk

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
    elif isinstance(x, ir.Call) and x.callee not in _DIM3_CTORS:
        # Non-const reference parameters can be written by the callee (e.g. `cin >> n`).
        for a in x.args:
            if isinstance(a, ir.VarRef) and a.var.type.kind == "record":
                out.add(a.var)


def propagate(fn: ir.Function, on_launch) -> None:
    """Walk ``fn``'s body with a constant environment; call ``on_launch(launch_expr, env)``
    for every kernel launch, with the environment that holds at that point."""
    if fn.body is None:
        return
    env: dict = {}
    _walk_block(fn.body, env, on_launch)


def _walk_block(b: ir.Block, env: dict, on_launch) -> None:
    for s in b.stmts:
        _walk_stmt(s, env, on_launch)


def _visit_launches(s: ir.Stmt, env: dict, on_launch) -> None:
    for e in s.exprs():
        for x in e.walk():
            if isinstance(x, ir.LaunchExpr):
                on_launch(x, env)


def _kill(env: dict, vars_: set) -> None:
    for v in vars_:
        env.pop(v, None)


def _walk_stmt(s: ir.Stmt, env: dict, on_launch) -> None:
    if isinstance(s, ir.Block):
        _walk_block(s, env, on_launch)
    elif isinstance(s, ir.DeclStmt):
        _visit_launches(s, env, on_launch)
        v = evaluate(s.init, env) if s.init is not None else None
        if v is None and s.init is None and s.var.type.spelling.endswith("dim3"):
            v = (1, 1, 1)
        if v is not None:
            env[s.var] = v
        else:
            env.pop(s.var, None)
    elif isinstance(s, ir.ExprStmt):
        _visit_launches(s, env, on_launch)
        e = s.expr
        if isinstance(e, ir.Assign) and isinstance(e.target, ir.VarRef):
            if e.op == "=":
                v = evaluate(e.value, env)
            else:
                cur = env.get(e.target.var)
                rhs = evaluate(e.value, env)
                v = None
                if cur is not None and rhs is not None and not isinstance(cur, tuple):
                    v = _binop(e.op[:-1], cur, rhs, e.type)
            if v is not None:
                env[e.target.var] = v
            else:
                env.pop(e.target.var, None)
        elif isinstance(e, ir.Assign) and isinstance(e.target, ir.Member) and \
                isinstance(e.target.base, ir.VarRef) and e.target.member in ("x", "y", "z"):
            var = e.target.base.var
            cur = env.get(var)
            v = evaluate(e.value, env) if e.op == "=" else None
            if isinstance(cur, tuple) and v is not None:
                lst = list(cur)
                lst["xyz".index(e.target.member)] = _as_int(v)
                env[var] = tuple(lst) if None not in lst else None
                if env[var] is None:
                    env.pop(var)
            else:
                env.pop(var, None)
        else:
            out: set = set()
            for x in e.walk():
                collect_writes(x, out)
            _kill(env, out)
    elif isinstance(s, ir.If):
        _visit_launches(s, env, on_launch)
        branches = [s.then] + ([s.otherwise] if s.otherwise is not None else [])
        written: set = set()
        for b in branches:
            inner = dict(env)
            _walk_block(b, inner, on_launch)
            written |= assigned_vars(b)
        _kill(env, written)
    elif isinstance(s, ir.Loop):
        for i in s.init:
            _walk_stmt(i, env, on_launch)
        written = assigned_vars(s.body)
        if s.step is not None:
            out: set = set()
            for x in s.step.walk():
                collect_writes(x, out)
            written |= out
        _kill(env, written)
        inner = dict(env)
        _walk_block(s.body, inner, on_launch)
        _kill(env, written)
    elif isinstance(s, ir.Switch):
        _visit_launches(s, env, on_launch)
        inner = dict(env)
        _kill(inner, assigned_vars(s.body))
        _walk_block(s.body, inner, on_launch)
        _kill(env, assigned_vars(s.body))
    else:
        _visit_launches(s, env, on_launch)
