"""Values of host variables at each kernel launch: a flow-sensitive walk over host functions,
with values carried into called functions through their parameters.

Straight-line code updates the environment; a branch whose condition is known runs only the
taken side; a variable assigned in a branch with an unknown condition, or inside a loop, is
unknown after it (and inside a loop from its start, because of the back edge), with the reason
recorded (:class:`constprop.Env.why`). A host function's parameter gets a value when every call
to it in the file passes the same known value (``int ni = NI; gemmCuda(ni, ...)``); this is
iterated to a fixed point so values flow through several levels of calls.
"""
from __future__ import annotations

import weakref
from collections import defaultdict
from typing import Callable, Optional

from . import ir
from .device_queries import ORIGIN_PREFIX
from .constprop import Env, Record, _as_int, _binop, collect_writes, assigned_vars, element_key, evaluate, \
    text, why_unknown, wrap

_ROUNDS = 6


class _Hooks:
    def __init__(self, on_launch: Optional[Callable] = None, on_call: Optional[Callable] = None,
                 depth: int = 0):
        self.on_launch = on_launch
        self.on_call = on_call
        self.depth = depth  # calls walked for their effects on file-scope variables


# How deep the walk follows calls for what they store in file-scope variables.
_EFFECT_DEPTH = 3


def walk_function(fn: ir.Function, env: Env, on_launch, on_call=None) -> None:
    """Walk ``fn``'s body from ``env``; ``on_launch(launch_expr, env)`` at every kernel launch,
    ``on_call(call, env)`` at every call of a function whose body is known."""
    if fn.body is None:
        return
    _block(fn.body, env, _Hooks(on_launch, on_call))


def propagate_program(functions: list[ir.Function], on_launch, no_args: bool = False,
                      device=None) -> None:
    """Walk every host function with its parameters bound from its callers; call
    ``on_launch(launch_expr, env)`` at each launch. ``no_args``: ``main``'s ``argc`` is 1, the
    program run without command-line arguments. ``device``: what the runtime's device queries
    answer (:class:`device_queries.DeviceAnswers`), None to leave them unknown."""
    fns = _reaching_launches([f for f in functions if not f.is_kernel and f.body is not None])

    def seed(f, calls):
        env = _seed(f, calls)
        env.device = device
        if no_args and argc_of(f) is not None:
            env.set(argc_of(f), 1)
        return env

    seeds = {f: seed(f, []) for f in fns}
    for _ in range(_ROUNDS):
        calls: dict = defaultdict(list)

        def on_call(c: ir.Call, env: Env) -> None:
            calls[c.function].append((c, env.copy()))

        for f in fns:
            walk_function(f, seeds[f].copy(), None, on_call)
        new = {f: seed(f, calls.get(f, [])) for f in fns}
        # stable when the values and also the reasons and origins are: a reason names the
        # caller's reason, one level deeper each round
        if all(dict(new[f]) == dict(seeds[f]) and new[f].why == seeds[f].why
               and new[f].origin == seeds[f].origin for f in fns):
            seeds = new
            break
        seeds = new
    forwarders = {f: ks for f in fns if (ks := kernel_params(f))}

    def forward(c: ir.Call, env: Env) -> None:
        """A call handing a kernel to a host function that launches its parameter: that
        launch, with the function's parameters bound from this call alone."""
        f = c.function
        for i, x in forwarders.get(f, ()):
            ref = c.args[i] if i < len(c.args) else None
            while isinstance(ref, (ir.Cast, ir.UnaryOp)) and getattr(ref, "op", "&") == "&":
                ref = ref.operand
            if not isinstance(ref, ir.FuncRef):
                continue
            fenv = _bind_call(f, c, env, seeds[f])
            site = ir.LaunchSite(kernel=ref.name, template_args=ref.template_args, range=c.range,
                                 grid_text=x.site.grid_text, block_text=x.site.block_text,
                                 smem_text=x.site.smem_text, stream_text=x.site.stream_text,
                                 args=x.args, caller=x.site.caller, via=f.name)
            launch = ir.LaunchExpr(c.range, x.type, site, x.config, x.args)
            walk_function(f, fenv, lambda y, e, x=x, launch=launch:
                          on_launch(launch, e) if y is x else None)

    for f in fns:
        walk_function(f, seeds[f].copy(), on_launch, forward if forwarders else None)


def kernel_params(fn: ir.Function) -> list:
    """The launches in ``fn`` whose kernel is one of its parameters (a function pointer the
    caller passes), as (parameter index, launch expression)."""
    if fn.body is None or not fn.params:
        return []
    names = {p.name: i for i, p in enumerate(fn.params)}
    return [(names[x.site.kernel], x) for x in map(ir.launch_in, fn.expressions())
            if x is not None and x.site.kernel in names]


def _bind_call(fn: ir.Function, c: ir.Call, env: Env, seed: Env) -> Env:
    """``fn``'s parameters bound from the one call ``c`` (evaluated in the caller's ``env``),
    over what every call agrees on (``seed``)."""
    out = seed.copy()
    for i, p in enumerate(fn.params):
        a = c.args[i] if i < len(c.args) else p.default
        if a is None:
            continue
        v = evaluate(a, env)
        if v is not None:
            out.set(p, wrap(v, p.type), keep_parts=True)
            org = env.origins(a)
            if org:
                out.origin[p] = org
            else:
                out.origin.pop(p, None)
        else:
            out.forget(p, f"`{p.name}` is a parameter of `{fn.name}`; the call at line "
                          f"{c.range.line} passes `{text(a)}`: {why_unknown(a, env)}")
    return out


def _reaching_launches(fns: list[ir.Function]) -> list[ir.Function]:
    """The functions of ``fns`` that launch a kernel or call (through calls resolved to a body,
    as the walk follows them) one that does, in their order. Only these can change a value at a
    launch: a function's parameters are seeded by its callers, and every caller of one of them
    is one of them. The others (most of a file's host code, its headers' helpers) are not walked."""
    launches: set = set()
    callers: dict = defaultdict(set)  # callee -> functions calling it
    for f in fns:
        for x in f.expressions():
            if ir.launch_in(x) is not None:
                launches.add(f)
            if isinstance(x, ir.Call) and x.function is not None and x.function.body is not None:
                callers[x.function].add(f)
    keep = set(launches)
    todo = list(launches)
    while todo:
        for g in callers.get(todo.pop(), ()):
            if g not in keep:
                keep.add(g)
                todo.append(g)
    return [f for f in fns if f in keep]


def argc_of(fn: ir.Function):
    """``main``'s argument count parameter (``int main(int argc, char **argv)``), else None."""
    if fn.name != "main" or len(fn.params) < 2:
        return None
    p = fn.params[0]
    return p if getattr(p.type, "kind", "") == "scalar" and not p.type.is_float else None


def _seed(fn: ir.Function, calls: list) -> Env:
    """Parameter values of ``fn`` that all its calls agree on; a reason for the others."""
    env = Env()
    for i, p in enumerate(fn.params):
        if not calls:
            who = "the command line" if fn.name == "main" else "no call in this file"
            env.why[p] = f"`{p.name}` is a parameter of `{fn.name}` and {who} gives its value"
            continue
        vals = []
        reason = None

        def arg(c: ir.Call, i: int = i, p=p) -> Optional[ir.Expr]:
            return c.args[i] if i < len(c.args) else p.default  # omitted: the default argument

        defaulted = sum(1 for c, _ in calls if i >= len(c.args))
        for c, cenv in calls:
            a = arg(c)
            v = evaluate(a, cenv) if a is not None else None
            if v is None:
                reason = (f"`{p.name}` is a parameter of `{fn.name}`; the call at line {c.range.line} "
                          + (f"passes `{text(a)}`" if i < len(c.args) else
                             f"leaves it to its default `{text(a)}`" if a is not None else "passes no value")
                          + (f": {why_unknown(a, cenv)}" if a is not None else ""))
                break
            vals.append((wrap(v, p.type), c.range.line))
        if reason is None:
            distinct = {v for v, _ in vals}
            if len(distinct) == 1:
                v0 = vals[0][0]
                env.set(p, v0, keep_parts=True)
                lines = ", ".join(str(ln) for _, ln in vals[:3]) + (", ..." if len(vals) > 3 else "")
                how = ("passes" if not defaulted else
                       "leaves it to its default" if defaulted == len(vals) else "passes or leaves to its default")
                env.origin[p] = {f"`{p.name}` = {_show(v0)} in `{fn.name}`, as "
                                 f"{'every call' if len(vals) > 1 else 'the only call'} in this file "
                                 f"{how} (line {lines})"} | set().union(*(cenv.origins(arg(c)) for c, cenv in calls))
                if isinstance(v0, tuple):  # a dim3 known in some components: say why not the rest
                    c, cenv = calls[0]
                    for m, comp in zip("xyz", v0):
                        if comp is None:
                            env.why[(p, m)] = (f"`{p.name}.{m}` comes from the call at line {c.range.line}: "
                                               + (why_unknown(ir.Member(c.range, ir.UNKNOWN_TYPE, arg(c), m), cenv)
                                                  or "unknown"))
                continue
            shown = ", ".join(f"{v} at line {ln}" for v, ln in vals[:3])
            reason = f"`{p.name}` is a parameter of `{fn.name}`, called with different values ({shown})"
        env.why[p] = reason
    return env


# ---------------------------------------------------------------------- statements

def _visit(s: ir.Stmt, env: Env, h: _Hooks) -> None:
    if h.on_launch is None and h.on_call is None:
        return
    for e in s.exprs():
        for x in e.walk():
            launch = ir.launch_in(x)
            if launch is not None and h.on_launch is not None:
                h.on_launch(launch, env)
            if isinstance(x, ir.Call) and h.on_call is not None and x.function is not None \
                    and x.function.body is not None:
                h.on_call(x, env)


def _block(b: ir.Block, env: Env, h: _Hooks) -> None:
    for s in b.stmts:
        _stmt(s, env, h)


def _unknown_because(e: ir.Expr, env: Env, line: int) -> str:
    r = why_unknown(e, env) or f"`{text(e)}` is not a compile-time constant"
    return r if "line " in r else f"{r} (line {line})"


def _stmt(s: ir.Stmt, env: Env, h: _Hooks) -> None:
    line = s.range.line
    if isinstance(s, ir.Block):
        _block(s, env, h)
    elif isinstance(s, ir.DeclStmt):
        _visit(s, env, h)
        effects = _call_effects(s.init, env, h, line) if s.init is not None else []
        v = evaluate(s.init, env) if s.init is not None else None
        if v is None and s.init is None and s.var.type.spelling.endswith("dim3"):
            v = (1, 1, 1)
        if v is not None:
            _set(env, s.var, wrap(v, s.var.type), s.init, line)
        elif s.init is None:
            env.forget(s.var, f"`{s.var.name}` is declared without a value at line {line}")
        else:
            env.forget(s.var, _unknown_because(s.init, env, line))
        if s.init is not None and not getattr(s.init, "launch_args", False):
            _call_writes(s.init, env, line, exclude=s.var)  # `cudaError_t e = cudaMemcpy(&n, ...)` writes n
        _apply(effects, env)
    elif isinstance(s, ir.ExprStmt):
        _visit(s, env, h)
        effects = _call_effects(s.expr, env, h, line)
        _assign(s.expr, env, line)
        _apply(effects, env)
    elif isinstance(s, ir.If):
        _visit(s, env, h)
        _if(s, env, h)
    elif isinstance(s, ir.Loop) and s.kind == "do" and s.cond is not None and \
            evaluate(s.cond, env) == 0:
        # `do { ... } while (0)`, the body of a statement-like macro (CHECK(cudaMalloc(...))):
        # runs once, straight through
        _block(s.body, env, h)
    elif isinstance(s, ir.Loop):
        for i in s.init:
            _stmt(i, env, h)
        before = env.copy()
        written = _written(s.body)
        if s.step is not None:
            out: set = set()
            for x in s.step.walk():
                collect_writes(x, out)
            written |= out
        parts = _member_writes(s)
        for v in written:
            cur = env.get(v)
            if v in parts and isinstance(cur, tuple):
                # Only some components of a dim3 change in the loop (`grid.x = i;`).
                env.set(v, tuple(None if m in parts[v] else c for m, c in zip("xyz", cur)),
                        keep_parts=True)
                for m in parts[v]:
                    env.why[(v, m)] = f"`{v.name}.{m}` changes in the loop at line {line}"
            else:
                env.forget(v, f"`{v.name}` changes in the loop at line {line}")
        inner = env.copy()
        counted = _counted_range(s, before, env, written)
        if counted is not None:
            inner.ranges[counted[0]] = (counted[1], counted[2], line, counted[3])
        _block(s.body, inner, h)
    elif isinstance(s, ir.Switch):
        _visit(s, env, h)
        written = _written(s.body)
        for v in written:
            env.forget(v, f"`{v.name}` is assigned in the switch at line {line}")
        _block(s.body, env.copy(), h)
    else:
        _visit(s, env, h)


_MAX_RANGE_STEPS = 1 << 20


def _strip(e):
    while isinstance(e, ir.Cast):
        e = e.operand
    return e


def _counted_range(loop: ir.Loop, before: Env, env: Env, written: set) -> Optional[tuple]:
    """``(var, first, last, step)`` for a counted ``for`` loop whose counter takes known values:
    ``for (int i = 1; i <= 32; i++)`` gives (i, 1, 32, ""); ``step`` says how it moves where
    not by one (" in steps of 4", " times 2"). The counter is written only by the
    step (``++``, ``+= c`` with c > 0, ``*= c`` / ``<<= c`` from a positive start), its start
    known before the loop and its bound known and not written in the loop. ``last`` is the
    last value the body sees (``i < 10; i += 4`` from 0: 8). None otherwise."""
    if loop.kind != "for" or loop.cond is None or loop.step is None:
        return None
    cond = _strip(loop.cond)
    if not isinstance(cond, ir.BinOp) or cond.op not in ("<", "<="):
        return None
    lhs = _strip(cond.lhs)
    if not isinstance(lhs, ir.VarRef):
        return None
    var = lhs.var
    if var in assigned_vars(loop.body):
        return None
    first, bound = before.get(var), evaluate(cond.rhs, env)
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (first, bound)):
        return None
    last = bound - 1 if cond.op == "<" else bound
    step = _strip(loop.step)
    if isinstance(step, ir.UnaryOp) and step.op in ("pre++", "post++") and \
            isinstance(_strip(step.operand), ir.VarRef) and _strip(step.operand).var is var:
        add, mul = 1, None
    elif isinstance(step, ir.Assign) and isinstance(_strip(step.target), ir.VarRef) and \
            _strip(step.target).var is var and step.op in ("+=", "*=", "<<="):
        c = evaluate(step.value, env)
        if not isinstance(c, int) or isinstance(c, bool) or c <= 0:
            return None
        add, mul = (c, None) if step.op == "+=" else (None, c if step.op == "*=" else 1 << c)
        if mul is not None and (mul < 2 or first <= 0):
            return None
    else:
        return None
    if last < first:
        return None
    if add is not None:
        return var, first, first + (last - first) // add * add, "" if add == 1 else f" in steps of {add}"
    v, n = first, 0
    while v * mul <= last and n < _MAX_RANGE_STEPS:
        v, n = v * mul, n + 1
    return var, first, v, f" times {mul}"


def _global_writes(fn: ir.Function, seen: Optional[set] = None) -> frozenset:
    """File-scope variables that ``fn`` or a function it calls (with a body) assigns."""
    hit = _GLOBAL_WRITES.get(fn)
    if hit is not None:
        return hit
    seen = set() if seen is None else seen
    if fn in seen or fn.body is None:
        return frozenset()
    seen.add(fn)
    out = {v for v in assigned_vars(fn.body) if v.file_scope}
    for e in ir.stmt_exprs(fn.body):
        for x in e.walk():
            if isinstance(x, ir.Call) and x.function is not None and not x.function.is_kernel:
                out |= _global_writes(x.function, seen)
    res = frozenset(out)
    _GLOBAL_WRITES[fn] = res
    return res


_GLOBAL_WRITES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _written(s: ir.Stmt) -> set:
    """Variables ``s`` may change: what it assigns (pointers written through included), and the
    file-scope variables its calls do."""
    out = set(assigned_vars(s))
    for e in ir.stmt_exprs(s):
        for x in e.walk():
            if isinstance(x, ir.Call) and x.function is not None and not x.function.is_kernel:
                out |= _global_writes(x.function)
            elif isinstance(x, ir.Assign):
                t = x.target
                while isinstance(t, (ir.Cast, ir.Index, ir.Member)) or \
                        (isinstance(t, ir.UnaryOp) and t.op == "*"):
                    t = t.operand if isinstance(t, (ir.Cast, ir.UnaryOp)) else t.base
                if isinstance(t, ir.VarRef):
                    out.add(t.var)
    return out


def _is_global_key(k) -> bool:
    v = k[0] if isinstance(k, tuple) else k
    return isinstance(v, ir.Variable) and v.file_scope


def _out_params(fn: ir.Function, c: ir.Call) -> list:
    """(parameter, caller's variable) for the arguments ``c`` passes by reference (``int
    &blocks`` given ``blocks``) or by address (``unsigned *grid`` given ``&grid``) to a
    parameter ``fn`` writes: ``getNumBlocksAndThreads(n, ..., blocks, threads)``."""
    out = []
    written = None
    for i, p in enumerate(fn.params):
        a = c.args[i] if i < len(c.args) else None
        while isinstance(a, ir.Cast):
            a = a.operand
        if a is None:
            continue
        if p.is_reference and not p.type.is_const and isinstance(a, ir.VarRef):
            var = a.var
        elif p.type.is_pointer and isinstance(a, ir.UnaryOp) and a.op == "&" and \
                isinstance(a.operand, ir.VarRef) and a.operand.var.type.kind in ("scalar", "record"):
            var = a.operand.var
        else:
            continue
        if written is None:
            written = _written(fn.body)
        if p in written:
            out.append((p, var))
    return out


def _call_effects(e: ir.Expr, env: Env, h: _Hooks, line: int) -> list:
    """What the calls in ``e`` store in file-scope variables (``setParameters();`` filling
    ``dim3 grid[3][2]`` before the launches) and through reference or pointer arguments: each
    such call's body is walked with its parameters bound from the call and the file-scope
    values of ``env``. Returns the updates, for :func:`_apply` once the statement itself has
    been walked; past ``_EFFECT_DEPTH`` nested calls the variables become unknown."""
    updates: list = []
    for x in e.walk():
        fn = x.function if isinstance(x, ir.Call) else None
        if fn is None or fn.is_kernel or fn.body is None:
            continue
        writes = _global_writes(fn)
        outs = _out_params(fn, x)
        if not writes and not outs:
            continue
        why = f"assigned in `{fn.name}`, called at line {line}"
        if h.depth >= _EFFECT_DEPTH:
            updates += [(v, None, f"`{v.name}` is {why}") for v in writes]
            updates += [(v, None, f"`{v.name}` is {why}") for _, v in outs]
            continue
        fenv = _bind_call(fn, x, env, Env(device=env.device))
        for k, v in env.items():
            if _is_global_key(k):
                fenv[k] = v
        for k, r in env.why.items():
            if _is_global_key(k) and k not in fenv.why:
                fenv.why[k] = r
        for p, var in outs:
            if p.type.is_pointer:  # `*p` / `p[0]` is the caller's variable (None: no value yet)
                fenv[("cell", p)] = env.get(var)
        _block(fn.body, fenv, _Hooks(None, None, h.depth + 1))
        for v in writes:
            updates.append((v, None, fenv.why.get(v) or f"`{v.name}` is {why}"))
            for k, val in fenv.items():
                if _is_global_key(k) and (k[0] if isinstance(k, tuple) else k) is v:
                    updates.append((k, val, None))
        for p, var in outs:
            val = fenv.get(("cell", p)) if p.type.is_pointer else fenv.get(p)
            if val is None and var not in env and not isinstance(env.get(var), tuple):
                continue  # unknown before the call and after it: its own reason stays
            inner = fenv.why.get(p)
            reason = (f"`{var.name}` is set by `{fn.name}()` at line {line}: {inner}" if inner
                      else f"`{var.name}` is {why}")
            updates.append((var, val, reason))
    return updates


def _apply(updates: list, env: Env) -> None:
    for k, val, why in updates:
        if isinstance(k, tuple):  # an element
            if val is None:
                env.pop(k, None)
            else:
                env[k] = val
        elif val is None:
            env.forget(k, why)
        else:
            env.set(k, val, keep_parts=isinstance(val, tuple))
            env.origin.pop(k, None)


def _cell(t: ir.Expr, env: Env):
    """``("cell", p)`` where ``t`` is ``*p`` or ``p[0]`` and ``p`` stands for a caller's variable."""
    while isinstance(t, ir.Cast):
        t = t.operand
    if isinstance(t, ir.UnaryOp) and t.op == "*":
        t = t.operand
    elif isinstance(t, ir.Index) and evaluate(t.index, env) == 0:
        t = t.base
    else:
        return None
    while isinstance(t, ir.Cast):
        t = t.operand
    if isinstance(t, ir.VarRef) and t.var.type.is_pointer and any(
            isinstance(k, tuple) and k[0] == "cell" and k[1] is t.var for k in env.cells()):
        return ("cell", t.var)
    return None


def _assign(e: ir.Expr, env: Env, line: int) -> None:
    if isinstance(e, ir.Assign) and e.op == "=" and env.cells() and _cell(e.target, env) is not None:
        key = _cell(e.target, env)
        v = evaluate(e.value, env)
        env.pop(key, None)
        if v is not None:
            env[key] = v
        return
    if isinstance(e, ir.Assign) and e.op == "=" and isinstance(e.target, ir.Index):
        key = element_key(e.target, env)
        if key is not None:  # `grid[0][1] = dim3(mx / 4, mz, 1)`
            v = evaluate(e.value, env)
            env.pop(key, None)
            if v is not None:
                env[key] = wrap(v, e.target.type) if not isinstance(v, tuple) else v
            return
    if isinstance(e, ir.Assign) and isinstance(e.target, ir.VarRef):
        var = e.target.var
        if e.op == "=":
            v = evaluate(e.value, env)
        else:
            cur = env.get(var)
            rhs = evaluate(e.value, env)
            v = None
            if cur is not None and rhs is not None and not isinstance(cur, tuple):
                v = _binop(e.op[:-1], cur, rhs, e.type)
        if v is not None:
            _set(env, var, wrap(v, var.type), e.value, line)
        else:
            env.forget(var, env.why.get(var) if e.op != "=" and var not in env and var in env.why
                       else _unknown_because(e.value, env, line))
        return
    if isinstance(e, ir.Assign) and isinstance(e.target, ir.Member) and \
            isinstance(e.target.base, ir.VarRef) and e.target.member in ("x", "y", "z"):
        # A dim3 is tracked per component: `b.x = 128;` after an unknown `b` still gives b.x.
        var = e.target.base.var
        cur = env.get(var)
        if not isinstance(cur, tuple):
            cur = (None, None, None) if var.type.spelling.endswith("dim3") else None
        i = "xyz".index(e.target.member)
        if e.op == "=":
            v = _as_int(evaluate(e.value, env))
        else:
            rhs = evaluate(e.value, env)
            v = _as_int(_binop(e.op[:-1], cur[i], rhs, e.type)) \
                if cur is not None and cur[i] is not None and rhs is not None else None
        if cur is None:
            env.forget(var, f"`{text(e.target)}` is updated at line {line}")
            return
        lst = list(cur)
        lst[i] = v
        reason = None if v is not None else (
            _unknown_because(e.value, env, line) if e.op == "=" else
            env.why.get((var, e.target.member)) or f"`{text(e.target)}` is updated at line {line}")
        env.set(var, tuple(lst), keep_parts=True)
        if reason:
            env.why[(var, e.target.member)] = reason
        else:
            env.why.pop((var, e.target.member), None)
        return
    if isinstance(e, ir.UnaryOp) and e.op in ("pre++", "pre--", "post++", "post--") and \
            isinstance(e.operand, ir.VarRef):
        var = e.operand.var
        cur = env.get(var)
        if isinstance(cur, (int, float)):
            env.set(var, wrap(cur + (1 if "++" in e.op else -1), var.type))
        else:
            env.forget(var, env.why.get(var) or f"`{var.name}` is updated at line {line}")
        return
    _call_writes(e, env, line)


def _call_writes(e: ir.Expr, env: Env, line: int, exclude=None) -> None:
    """Forget what ``e`` writes (``&v`` passed to a call, assignments inside it), then give the
    device queries among its calls their answers."""
    out: set = set()
    for x in e.walk():
        collect_writes(x, out)
    out.discard(exclude)
    for v in out:
        env.forget(v, f"`{v.name}` is modified by `{text(e)}` at line {line}")
    if env.device is not None and out:
        _device_queries(e, env)


_GET_PROPERTIES = {"cudaGetDeviceProperties", "cudaGetDeviceProperties_v2"}
_GET_ATTRIBUTE = {"cudaDeviceGetAttribute"}
_OCCUPANCY = {"cudaOccupancyMaxActiveBlocksPerMultiprocessor",
              "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags"}


def _written_var(a: Optional[ir.Expr]):
    """``v`` of an out-argument ``&v``."""
    while isinstance(a, ir.Cast):
        a = a.operand
    if isinstance(a, ir.UnaryOp) and a.op == "&" and isinstance(a.operand, ir.VarRef):
        return a.operand.var
    return None


def _device_queries(e: ir.Expr, env: Env) -> None:
    """The answers of the device queries in ``e`` (also inside an error-checking macro's call):
    ``cudaGetDeviceProperties(&prop, dev)`` makes ``prop`` a record of the target's figures,
    ``cudaDeviceGetAttribute(&v, attr, dev)`` gives ``v`` the attribute's figure. The SM count
    carries its origin (an assumption, stated at the launches it reaches)."""
    dev = env.device
    for x in e.walk():
        if not isinstance(x, ir.Call) or not x.args:
            continue
        name = x.callee.rsplit("::", 1)[-1]
        var = _written_var(x.args[0])
        if var is None:
            continue
        if name in _GET_PROPERTIES and var.type.spelling.replace("struct ", "").endswith("cudaDeviceProp"):
            env.set(var, Record(dev.fields, dev.why_unknown))
            org = dev.origin("multiProcessorCount")
            if org:
                env.origin[(var, "multiProcessorCount")] = {org}
        elif name in _OCCUPANCY and len(x.args) >= 3 and dev.occupancy is not None:
            ref = x.args[1]
            while isinstance(ref, (ir.Cast, ir.UnaryOp)) and getattr(ref, "op", "&") == "&":
                ref = ref.operand
            threads = _as_int(evaluate(x.args[2], env))
            smem = _as_int(evaluate(x.args[3], env)) if len(x.args) > 3 else 0
            if not isinstance(ref, ir.FuncRef) or threads is None or smem is None:
                continue
            value, org = dev.occupancy(ref.name, ref.template_args, threads, smem)
            if value is None:
                env.why[var] = f"`{text(x)}` at line {x.range.line}: {org}"
                continue
            _set(env, var, wrap(value, var.type), None, 0)
            env.origin[var] = {ORIGIN_PREFIX + org}
        elif name in _GET_ATTRIBUTE and len(x.args) >= 2:
            value, org = dev.attribute(_as_int(evaluate(x.args[1], env)))
            if value is None:
                continue
            _set(env, var, wrap(value, var.type), None, 0)
            if org:
                env.origin[var] = {org}


def _if(s: ir.If, env: Env, h: _Hooks) -> None:
    c = evaluate(s.cond, env)
    if c is not None:
        taken, other = (s.then, s.otherwise) if c else (s.otherwise, s.then)
        if other is not None:
            _block(other, env.copy(), h)  # launches in dead code still get a configuration
        if taken is not None:
            _block(taken, env, h)
        return
    written: set = set()
    outs = []
    for b in (s.then, s.otherwise):
        inner = env.copy()
        if b is not None:
            _block(b, inner, h)
            written |= _written(b)
        outs.append(inner)
    cond = text(s.cond)
    for k in {k for o in (env, *outs) for k in o if _slot_key(k)}:  # elements and cells
        vals = [o.get(k) for o in outs]
        if vals[0] is not None and all(x == vals[0] for x in vals):
            env[k] = vals[0]
        else:
            env.pop(k, None)
    for v in written:
        vals = [o.get(v) for o in outs]
        if vals[0] is not None and all(x == vals[0] for x in vals):
            env.set(v, vals[0])
        elif all(isinstance(x, tuple) for x in vals):  # dim3: keep the components that agree
            merged = tuple(c[0] if all(x == c[0] for x in c) else None for c in zip(*vals))
            env.set(v, merged, keep_parts=True)
            for m, c in zip("xyz", merged):
                if c is None:
                    env.why[(v, m)] = (f"`{v.name}.{m}` is assigned under the condition `{cond}` "
                                       f"at line {s.range.line}, which is not known statically")
        else:
            env.forget(v, f"`{v.name}` is assigned under the condition `{cond}` at line "
                          f"{s.range.line}, which is not known statically")


def _slot_key(k) -> bool:
    """An array element ``(var, "[]", idx)`` or a cell ``("cell", p)`` of the environment."""
    return isinstance(k, tuple) and ((len(k) == 3 and k[1] == "[]") or (len(k) == 2 and k[0] == "cell"))


def _show(v) -> str:
    return "(" + ", ".join("?" if c is None else str(c) for c in v) + ")" if isinstance(v, tuple) else f"{v:g}" \
        if isinstance(v, float) else str(v)


def _set(env: Env, var, v, init: Optional[ir.Expr], line: int) -> None:
    org = env.origins(init)
    env.set(var, v)
    if org:
        env.origin[var] = org
    else:
        env.origin.pop(var, None)
    if isinstance(v, tuple) and init is not None:
        for m, c in zip("xyz", v):
            if c is None:
                env.why[(var, m)] = _unknown_because(init, env, line)


def _member_writes(loop: ir.Loop) -> dict:
    """dim3 variables written in ``loop`` only through components: var -> set of components."""
    comps: dict = defaultdict(set)
    whole: set = set()
    for e in ir.stmt_exprs(loop.body):
        if isinstance(e, ir.Assign):
            t = e.target
            if isinstance(t, ir.Member) and isinstance(t.base, ir.VarRef) and t.member in "xyz" \
                    and t.base.var.type.spelling.endswith("dim3"):
                comps[t.base.var].add(t.member)
                continue
        w: set = set()
        collect_writes(e, w)
        whole |= w
    for st in ir.walk_stmt(loop.body):
        if isinstance(st, ir.DeclStmt):
            whole.add(st.var)
    return {v: c for v, c in comps.items() if v not in whole}
