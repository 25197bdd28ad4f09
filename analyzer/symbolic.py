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

from dataclasses import replace
from typing import Callable, Optional

import sympy as sp

from . import ir
from .loops import geometric_step, strip_casts
from .symbolic_bindings import DEFAULT_PARAM_VALUE, Bindings, make_bindings
from .symbolic_exprs import WalkerExprs
from .symbolic_values import (AccessEvent, BitAnd, bounded, in_memory, INLINE_BUDGET, is_data,
                              is_expr, is_volatile_type, ITER, lane_varying, LoopInfo, MemLoad,
                              made, negate, Opaque, piecewise, Pointer, Symbols, Value, WalkState)
from .symbolic_values import (BitOr, BitXor, BLOCK, BLOCKDIM, BOOL, DATA_CHOICE, data_atoms, GRIDDIM,
                              larger_than, MAX_INLINE_DEPTH, MAX_NODES, OPAQUE, PARAM, ShiftLeft,
                              ShiftRight, SymInfo, TEMPLATE, THREAD)

# The walker, and the vocabulary of symbolic addresses for the modules that read them as
# ``symbolic.X`` (accesses, lanes, validate).
__all__ = ["Walker", "walk_kernel", "to_sympy", "Bindings", "make_bindings", "DEFAULT_PARAM_VALUE",
           "AccessEvent", "LoopInfo", "Pointer", "SymInfo", "Symbols", "Value", "MemLoad", "Opaque",
           "BitAnd", "BitOr", "BitXor", "ShiftLeft", "ShiftRight", "lane_varying", "data_atoms",
           "is_data", "larger_than", "THREAD", "BLOCK", "BLOCKDIM", "GRIDDIM", "PARAM", "ITER",
           "OPAQUE", "TEMPLATE", "BOOL", "INLINE_BUDGET", "MAX_INLINE_DEPTH", "MAX_NODES"]



def _carried_loads(*xs, limit: int = 2) -> list:
    """The loads a data-made choice's stand-in carries (:meth:`Walker._data_choice`): those of
    ``xs`` not nested in another one (stand-ins of earlier choices are looked through), at most
    ``limit`` of them: enough to name one, and the stand-in of a chain of choices (mumax3's
    ``angle = max(angle, ...)`` under ``if (a__ != 0)``, four times) stays small."""
    atoms = set().union(*(x.atoms(MemLoad) for x in xs if isinstance(x, sp.Basic)))
    real = [a for a in atoms if str(a.args[0]) != DATA_CHOICE]
    outer = [a for a in real if not any(b is not a and b.has(a) for b in real)]
    return sorted(outer, key=sp.default_sort_key)[:limit]

class Walker(WalkerExprs):
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
        self._member_vars: dict = {}  # (param, member) -> the Variable standing for p.x

    # ------------------------------------------------------------------ entry
    def run(self) -> "Walker":
        env: dict = {}
        for p in self.kernel.params:
            env[p] = self._param_value(p)
        st = WalkState(env)
        if self.kernel.body is not None:
            self._block(self.kernel.body, st)
        return self

    def _param_value(self, p: ir.Variable) -> Value:
        t = p.type
        if t.kind in ("pointer", "array"):
            el = t.element or ir.UNKNOWN_TYPE
            return Pointer(p, "global", sp.Integer(0), el, is_volatile_type(el), p.name)
        if t.kind == "scalar" and not t.is_float:
            return self.syms.param(p)
        if t.kind == "scalar":
            return self.syms.param(p)
        return MemLoad(sp.Symbol(p.name), sp.Integer(0))  # struct/vector by value

    # ------------------------------------------------------------------ statements
    def _block(self, b: ir.Block, st: WalkState) -> bool:
        for s in b.stmts:
            if self._stmt(s, st):
                return True
        return False

    def _stmt(self, s: ir.Stmt, st: WalkState) -> bool:
        """Execute one statement; True when it certainly leaves the enclosing block
        (return/break/continue)."""
        if isinstance(s, ir.Block):
            return self._block(s, st)
        if isinstance(s, ir.DeclStmt):
            v = s.var
            if v.type.kind == "array" or in_memory(v):
                if s.init is not None:
                    self._rvalue(s.init, st)
                return False
            if s.init is not None:
                val = self._rvalue(s.init, st)
                if v.type.kind == "pointer" and isinstance(val, Pointer):
                    el = v.type.element or val.elem
                    val = replace(val, elem=el, volatile=val.volatile or is_volatile_type(el))
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
            ends = self._switch(s, st)
            for v in _written_vars([s.body]):
                if v in st.env:
                    st.env[v] = self._unknown(v.name, lane=any(
                        lane_varying(e.env.get(v), self.syms) for e in ends) or True)
            return False
        if isinstance(s, ir.OtherStmt):
            for p in s.parts:
                self._rvalue(p, st)
            return False
        return False

    def _switch(self, s: ir.Switch, st: WalkState) -> list:
        """Walk a switch's cases, each on its own path: the statements from a case label to
        the next label run when the value equals one of the labels before them back to the
        last break (fall-through), ``default`` when it equals none. The states at the ends of
        the cases are returned. (One path for all the cases made a store in one case look like
        the value a load in another case reads.) A case the value cannot take (``switch (T)``
        over a template constant) is not walked: nvcc drops it."""
        cv = self._rvalue(s.cond, st)
        segs: list = []  # ([labels], [statements]); statements before any label never run
        for x in s.body.stmts:
            if isinstance(x, ir.Case):
                if segs and not segs[-1][1]:
                    segs[-1][0].append(x)
                else:
                    segs.append(([x], []))
            elif segs:
                segs[-1][1].append(x)

        def equal(v):
            if not (is_expr(cv) and is_expr(v)):
                return None
            try:
                return made(sp.Eq, cv, v)
            except (TypeError, ValueError):
                return None

        values = [self._rvalue(lb.value, st) for labels, _ in segs for lb in labels if lb.value is not None]
        eqs = [equal(v) for v in values]

        def label(lb):
            if lb.value is not None:
                c = equal(self._rvalue(lb.value, st))
                return c if c is not None else self.syms.boolean()
            if any(c is None for c in eqs):
                return self.syms.boolean()
            try:
                return made(sp.And, *[negate(c) for c in eqs]) if eqs else sp.true
            except (TypeError, ValueError):
                return self.syms.boolean()

        ends, prev = [], None  # prev: (condition, state) of a case that falls through
        for labels, stmts in segs:
            conds = [label(lb) for lb in labels] + ([prev[0]] if prev is not None else [])
            try:
                c = made(sp.Or, *conds) if len(conds) > 1 else conds[0]
            except (TypeError, ValueError):
                c = self.syms.boolean()
            if c is sp.false:  # a case the value never takes (a template constant's switch)
                prev = None
                continue
            inner = st.fork(c)
            if prev is not None:
                inner.env = dict(prev[1].env)
            left = False
            for x in stmts:
                if self._stmt(x, inner):
                    left = True
                    break
            ends.append(inner)
            prev = None if left else (c, inner)
        return ends

    def _if(self, s: ir.If, st: WalkState) -> bool:
        c = self._cond(s.cond, st)
        t_st = st.fork(c, s)
        t_term = self._block(s.then, t_st)
        e_st = st.fork(negate(c), s)
        e_term = self._block(s.otherwise, e_st) if s.otherwise is not None else False
        if t_term and e_term:
            st.env = self._merge(c, t_st.env, e_st.env)
            return True
        if t_term:
            st.env = e_st.env
            st.path = st.path + (negate(c),)
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

    def _data_choice(self, loads: list, lane: bool) -> sp.Expr:
        """The stand-in for a choice the walk gives up on whose condition or values were read
        from memory: data-dependent, and carrying those loads (a message names them)."""
        t = self.syms.thread
        return MemLoad(sp.Symbol(DATA_CHOICE), *((t["x"], t["y"], t["z"]) if lane else ()), *loads)

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
        # a choice the walk gives up on stays data-dependent when its condition or a value it
        # chooses was read from memory (mumax3's `aLUT2d[symidx(r0, regions[i_])]`, a lookup
        # table indexed by two loaded region numbers): never 'unknown' for that
        loads = _carried_loads(va, vb, c)
        if is_expr(va) and is_expr(vb) and isinstance(c, sp.Basic):
            if c.has(sp.Piecewise) or (va.has(sp.Piecewise) and vb.has(sp.Piecewise)):
                # Choices nested in conditions make sympy fold them (exponential): give up.
                lane = lane_varying(va, self.syms) or lane_varying(vb, self.syms) or lane_varying(c, self.syms)
                return self._data_choice(loads, lane) if loads else self._unknown(name, lane=lane)
            try:
                return bounded(piecewise((va, c), (vb, sp.true)), self, name)
            except (TypeError, ValueError):
                pass
        lane = lane_varying(va, self.syms) or lane_varying(vb, self.syms) or \
            (isinstance(c, sp.Basic) and lane_varying(c, self.syms))
        return self._data_choice(loads, lane) if loads else self._unknown(name, lane=lane)

    # ------------------------------------------------------------------ loops
    def _loop(self, s: ir.Loop, st: WalkState) -> None:
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
            elif is_expr(end) and not v.type.is_float:
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
        companions = self._companions(s, st, carried, increments, entry, dry)
        shifted = self._uniform_shifts(s, carried, increments, entry, dry, st)
        ctrl_sym = None
        for v in sorted(carried, key=lambda x: x in companions):  # the control's symbol first
            cur = st.env[v]
            if v in companions:
                if ctrl_sym is not None:
                    factor, shrink = companions[v]
                    body.env[v] = self.syms.opaque(
                        f"{v.name}~L{s.range.line}", companion=(ctrl_sym, cur, factor, shrink),
                        note=f"changes in the loop at line {s.range.line}")
                    continue
                companions.pop(v)
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
                geo = None if lane or isinstance(cur, Pointer) else self._geometric(s, v, cur, st)
                if v in shifted:
                    body.env[v] = shifted[v](f"{v.name}~L{s.range.line}")
                elif isinstance(cur, Pointer):
                    body.env[v] = cur.add_bytes(self._unknown(f"{v.name}~L{s.range.line}", lane=lane))
                elif geo is not None:
                    body.env[v] = self.syms.opaque(f"{v.name}~L{s.range.line}", geometric=geo,
                                                   note=f"changes in the loop at line {s.range.line}",
                                                   loop=s if not self._dry else None)
                    ctrl_sym = body.env[v]
                else:
                    body.env[v] = self._unknown(f"{v.name}~L{s.range.line}", lane=lane,
                                                note=f"changes in the loop at line {s.range.line}")
        li.entry_path_len = li.path_len = len(body.path)
        if s.kind != "do" and s.cond is not None:
            c = self._cond(s.cond, body)
            body.path = body.path + (c,)
            li.path_len += 1  # the loop condition holds inside the body
        body_entry = {v: body.env[v] for v in companions}
        self._block(s.body, body)
        if s.step is not None:
            self._rvalue(s.step, body)
        # After the loop the carried variables hold run-time values.
        for v in carried:
            cur = body.env.get(v)
            val = cur.offset if isinstance(cur, Pointer) else cur
            lane = lane_varying(val, self.syms)
            data = is_data(val)  # read from memory in the loop: stays data-dependent after it
            if v in shifted:
                # the value it had before the loop or the one an iteration gave it: either way
                # a warp-uniform value plus the same per-lane part
                st.env[v] = shifted[v](f"{v.name}@exit_L{s.range.line}")
            elif isinstance(cur, Pointer):
                st.env[v] = cur.add_bytes(self._unknown(f"{v.name}@exit", lane=lane, data=data))
            elif v in companions:
                # multiplied once per iteration: its start times factor ** (trip count)
                info = self.syms.info[body_entry[v]]
                st.env[v] = self.syms.opaque(f"{v.name}@exit_L{s.range.line}", exit_of=info.companion,
                                             note=f"its value after the loop at line {s.range.line}")
            else:
                st.env[v] = self._unknown(f"{v.name}@exit_L{s.range.line}", lane=lane, data=data)

    def _uniform_shifts(self, s: ir.Loop, carried: list, increments: dict, entry: dict,
                        dry: WalkState, st: WalkState) -> dict:
        """Variables that enter the loop as a warp-uniform value plus a per-lane part and that
        each iteration sets to another warp-uniform value plus the same per-lane part (Parboil
        spmv's ``j = jds_ptr_int[k] + ix``, carried to the next iteration): var -> a function of
        a name giving that form with the uniform part unknown (read from memory when either
        was). The per-lane part must not change in the loop, and the uniform part may depend
        only on variables that stay uniform in it, and nothing may leave an iteration early
        (``break``, ``continue``, ``return``, ``goto``: the value it leaves is not the one the
        iteration ends with)."""
        out: dict = {}
        if any(isinstance(x, (ir.Break, ir.Continue, ir.Return, ir.OtherStmt)) for x in ir.walk_stmt(s.body)):
            return out
        lanes_in: set = set()  # carried variables that may differ between lanes in the loop
        for v in carried:
            cur, end = st.env.get(v), dry.env.get(v)
            if isinstance(cur, Pointer) or isinstance(end, Pointer) or end is None or \
                    lane_varying(cur, self.syms) or lane_varying(end, self.syms):
                lanes_in.add(v)
        grew = True
        while grew:
            grew = False
            tainted = {entry[w] for w in lanes_in if not isinstance(entry.get(w), Pointer)}
            for v in carried:
                end = dry.env.get(v)
                if v not in lanes_in and isinstance(end, sp.Basic) and end.free_symbols & tainted:
                    lanes_in.add(v)
                    grew = True
        tainted = {entry[w] for w in lanes_in if not isinstance(entry.get(w), Pointer)}

        def split(e):
            lane, rest = [], []
            for t in sp.Add.make_args(sp.expand(e)):
                (lane if lane_varying(t, self.syms) else rest).append(t)
            return sp.Add(*lane), sp.Add(*rest)

        for v in carried:
            cur, end = st.env.get(v), dry.env.get(v)
            if v in increments or v.type.is_float or not is_expr(cur) or not is_expr(end) or \
                    not lane_varying(cur, self.syms) or cur.has(Opaque) or end.has(Opaque):
                continue
            lane_c, rest_c = split(cur)
            lane_e, rest_e = split(end)
            if lane_c == 0 or lane_c != lane_e or is_data(lane_c) or \
                    (rest_e.free_symbols & tainted) or (rest_c.free_symbols & tainted):
                continue
            data = is_data(rest_c) or is_data(rest_e)
            out[v] = (lambda name, lane_c=lane_c, data=data:
                      self._unknown(name, lane=False, data=data) + lane_c)
        return out

    def _companions(self, s: ir.Loop, st: WalkState, carried: list, increments: dict, entry: dict,
                    dry: WalkState) -> dict:
        """Variables that each iteration multiplies or divides by a constant besides the loop's
        doubled or halved control variable (the Blelloch scan's ``stride *= 2`` in a loop over
        ``d >>= 1``): var -> (factor, shrink). At the top of iteration k such a variable holds
        start * factor**k (or start // factor**k), in step with the control's k-th value. Only
        when every iteration runs the update once: one iteration of the body (the dry run) leaves
        ``v@entry * f`` or ``floor(v@entry / f)``, and nothing in the body leaves it early
        (break, continue, return, goto)."""
        out: dict = {}
        if s.kind != "for" or any(isinstance(x, (ir.Break, ir.Continue, ir.Return, ir.OtherStmt))
                                  for x in ir.walk_stmt(s.body)):
            return out
        c = s.cond
        ctrl = strip_casts(c.lhs) if isinstance(c, ir.BinOp) else None
        for v in carried:
            if v in increments or v.type.is_float or (isinstance(ctrl, ir.VarRef) and ctrl.var is v):
                continue
            cur, end, e0 = st.env.get(v), dry.env.get(v), entry.get(v)
            if isinstance(cur, Pointer) or not is_expr(cur) or not is_expr(end) or \
                    lane_varying(cur, self.syms) or is_data(cur) or cur.has(Opaque):
                continue
            ratio = end / e0  # (sympy cancels a symbol's powers by itself)
            if ratio.is_Integer and int(ratio) > 1:
                out[v] = (int(ratio), False)
                continue
            if isinstance(end, sp.floor):
                q = e0 / end.args[0]
                if q.is_Integer and int(q) > 1:
                    out[v] = (int(q), True)
        return out

    def _geometric(self, s: ir.Loop, v, start, st: WalkState) -> Optional[tuple]:
        """(start, factor, shrink, comparison, bound) of a loop variable that the loop's step
        doubles or halves (``for (s = 1; s < blockDim.x; s *= 2)``, ``s >>= 1``) and whose
        condition compares it with a block-uniform bound; None otherwise."""
        c = s.cond
        if s.kind not in ("for", "while") or not isinstance(c, ir.BinOp) or c.op not in ("<", "<=", ">", ">=") or \
                not isinstance(strip_casts(c.lhs), ir.VarRef) or strip_casts(c.lhs).var is not v:
            return None
        if not is_expr(start) or lane_varying(start, self.syms) or is_data(start):
            return None
        loop = s
        if s.kind == "while":
            # `while (offset < n) { ...; offset <<= 1; }` (a scan's up-sweep): the body's last
            # statement is the step, and no `continue` skips it
            body = s.body.stmts if s.body is not None else []
            if s.step is not None or not body or not isinstance(body[-1], ir.ExprStmt) or \
                    any(isinstance(x, ir.Continue) for x in s.body.walk()):
                return None
            loop = replace(s, kind="for", step=body[-1].expr, body=replace(s.body, stmts=body[:-1]))
        geo = geometric_step(loop, v, lambda e: self._peek(e, st))
        if geo is None:
            return None
        bound = self._peek(c.rhs, st)
        if not is_expr(bound) or lane_varying(bound, self.syms) or is_data(bound) or bound.has(Opaque):
            return None
        factor, shrink = geo
        if (c.op in ("<", "<=")) == shrink:
            return None  # a halving loop bounded from above (or the reverse): not a sequence
        return start, factor, shrink, c.op, bound

    def _trip_count(self, s: ir.Loop, st: WalkState, increments: dict) -> Optional[sp.Expr]:
        """Iterations of a counted loop ``for (v = a; v CMP b; v += c)`` as a sympy expression."""
        c = s.cond
        if not isinstance(c, ir.BinOp) or c.op not in ("<", "<=", ">", ">=", "!="):
            return None
        for side, other, flip in ((c.lhs, c.rhs, False), (c.rhs, c.lhs, True)):
            shift = None  # ``v + k CMP b`` counts as ``v CMP b - k`` (loops.loop_header)
            if isinstance(side, ir.BinOp) and side.op in ("+", "-"):
                for v_side, k_side, sgn in ((side.lhs, side.rhs, 1 if side.op == "+" else -1),
                                            (side.rhs, side.lhs, 1 if side.op == "+" else 0)):
                    if sgn and isinstance(v_side, ir.VarRef) and v_side.var in increments and \
                            not any(isinstance(x, ir.VarRef) and x.var is v_side.var for x in k_side.walk()):
                        side, shift = v_side, (k_side, sgn)
                        break
            if isinstance(side, ir.VarRef) and side.var in increments and side.var in st.env:
                start = st.env[side.var]
                step = increments[side.var]
                if isinstance(start, Pointer) or step == 0:
                    return None
                if not step.is_Integer:
                    # a block-uniform stride such as blockDim.x * gridDim.x (grid-stride loops):
                    # counted when its sign is known
                    if step.is_positive:
                        sign = 1
                    elif step.is_negative:
                        sign = -1
                    else:
                        return None
                else:
                    step = int(step)
                    sign = 1 if step > 0 else -1
                bound = self._peek(other, st)
                if not is_expr(bound):
                    return None
                if shift is not None:
                    k = self._peek(shift[0], st)
                    if not is_expr(k):
                        return None
                    bound = bound - shift[1] * k
                op = c.op
                if flip:
                    op = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}[op]
                if op == "!=" and not isinstance(step, int):
                    return None
                step_pos = sign > 0
                if op == "<" and step_pos:
                    n = sp.ceiling((bound - start) / step)
                elif op == "<=" and step_pos:
                    n = sp.floor((bound - start) / step) + 1
                elif op == ">" and not step_pos:
                    n = sp.ceiling((start - bound) / -step)
                elif op == ">=" and not step_pos:
                    n = sp.floor((start - bound) / -step) + 1
                elif op == "!=":
                    n = (bound - start) / step
                else:
                    return None
                return made(sp.Max, n, sp.Integer(0)) if not n.is_number else sp.Integer(max(int(n), 0))
        return None

    def _peek(self, e: ir.Expr, st: WalkState) -> Value:
        """Evaluate without recording accesses."""
        self._dry += 1
        saved = (self._seq, self._epoch)
        try:
            return self._rvalue(e, st.fork())
        finally:
            self._dry -= 1
            self._seq, self._epoch = saved



def _written_vars(stmts: list) -> dict:
    """Variables whose own value is changed inside ``stmts`` (assignment, ++/--, address
    taken); a store through ``a[i]`` does not change ``a``. In source order (keys of a dict):
    a set of identity-hashed variables iterated in memory-address order, which named loop
    counters and unknowns differently from run to run."""
    out: dict = {}

    def root(e):
        while isinstance(e, ir.Cast):
            e = e.operand
        return e.var if isinstance(e, ir.VarRef) else None

    for s0 in stmts:
        for st in ir.walk_stmt(s0):
            if isinstance(st, ir.DeclStmt):
                out[st.var] = None
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
                        out[v] = None
    return out


def walk_kernel(kernel: ir.Function, space_of: Callable[[ir.Variable], str]) -> Walker:
    """Walk ``kernel`` and return the walker (``.events``, ``.syms``, ``.loops``)."""
    return Walker(kernel, space_of).run()


def to_sympy(e: ir.Expr, env: Optional[dict] = None, symbols: Optional[Symbols] = None) -> Value:
    """Convert one IR expression (no side effects recorded) with ``env`` mapping
    :class:`ir.Variable` to values. Convenience for tests and other analyses."""
    w = Walker(ir.Function("expr", "device", [], None, e.range), lambda v: "global", symbols)
    w._dry = 1
    return w._rvalue(e, WalkState(dict(env or {})))
