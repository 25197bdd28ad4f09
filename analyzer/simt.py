"""A SIMT interpreter: runs a kernel for every thread of one or more blocks at once.

Every value is a vector with one entry per thread (numpy), control flow is followed with
per-thread activity masks (exactly like the hardware: ``if (tid < s)`` runs the then-branch for
threads 0..s-1), loops run their real iterations (``for (s = blockDim.x/2; s > 0; s >>= 1)``
takes s = 128, 64, ..., 1), and device functions are inlined. Nothing that comes from memory is
modelled: a value loaded from global or shared memory is *unknown*.

What a run produces (:mod:`.simt_log`): with ``record``, a log of the memory accesses of the
asked spaces (shared by default), each with the threads that execute it and the byte address
each touches, cut at block-wide barriers into *epochs* (the dynamic barrier intervals) and
handed to :meth:`Simt.interval_closed` as each interval ends (:mod:`.races` pairs them); the
barrier arrivals; with ``on_branch``, how every ``if`` splits warps (:func:`branch_divergence`,
read by :mod:`.uniformity`).

Where a condition depends on a value the interpreter does not know:

- block-uniform (a parameter without a known value, a value loaded from a uniform address):
  both outcomes are explored, each as a separate hypothesis (a *tag* on the accesses made
  under it);
- per-thread (data-dependent): the threads *may* execute the branch (the ``may`` mask).

Loops run at most ``MAX_LOOP_ITERATIONS`` iterations (``UNKNOWN_LOOP_ITERATIONS`` when their
condition is unknown); a run that exceeds ``STEP_BUDGET`` statement executions stops there
(``complete = False``).

Cost (every statement and expression node runs once per execution, for all threads at once):
values and masks are never changed in place, so the arrays a run knows in advance are shared
and read-only: every unknown value has ``k is _unknown_k``, every constant and thread index
``k is _known``, a constant's entries one array per constant, and a certain mask one array for
``must`` and ``may``. Those identities answer "known for no thread / for every thread" and "every
thread runs" without looking at the entries, and an unknown entry's value is never read, so
arithmetic, selects and conversions on values known for no thread only compute the result's
kind. Statements and expressions go to their handler by class; facts of the IR alone (what a
loop writes, whether a condition is block-uniform) are computed once per node.

Why not the symbolic index expressions of ``analyzer/symbolic.py``? They model a loop counter
that does not advance by a constant (``s >>= 1``) as an opaque symbol, and record barrier
epochs in program order; race detection needs the concrete sequence of counter values and the
dynamic intervals, which this interpreter provides. ``symbolic.py`` remains the source of the
per-warp access costs (coalescing, banks).
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from . import cint, constprop, ir, simt_facts
from .simt_eval import SimtEval
from .simt_log import BarrierEvent, BranchStats, ThreadSet, sample_blocks
from .simt_values import _INT, BudgetExceeded, Mask, Overrun, Ptr, V, _Ctx, _Frame, truth

MAX_LOOP_ITERATIONS = 32
UNKNOWN_LOOP_ITERATIONS = 3
STEP_BUDGET = 40_000


class Simt(SimtEval):
    """Run a kernel for a set of threads. Results: ``branches`` (with ``on_branch``),
    ``barriers``, ``complete``, ``out_of_bounds``; with ``record``, each barrier interval's
    accesses go to :meth:`interval_closed`."""

    def __init__(self, kernel: ir.Function, threads: ThreadSet, params: dict,
                 uniform: Optional[Callable[[ir.Expr], bool]] = None, record: bool = True,
                 on_branch: bool = False, dynamic_smem: Optional[int] = None,
                 barrier_loops: Optional[set] = None, budget: int = STEP_BUDGET,
                 spaces: tuple = ("shared",)):
        self.kernel = kernel
        self._tickets: Optional[set] = None  # ticket_holders(kernel), when first needed
        self._grid_uniform: Optional[set] = None  # grid_uniform_vars(kernel), when first needed
        self.ts = threads
        self.n = threads.n
        self.params = params
        self.uniform = uniform or (lambda e: False)
        self.record = record  # log the accesses of ``spaces`` per barrier interval
        self.spaces = spaces
        self.track_branches = on_branch
        self.budget = budget
        self.steps = 0
        self._object_ids: dict = {}
        self.complete = True
        self._solo: Optional[int] = None
        self._solo_count = 0
        #: inside ``if (t == K)`` with ``t`` a ticket drawn from one global counter: the
        #: (counter, sign, K) that at most one thread of the grid holds (see _drawn_ticket)
        self._drawn: Optional[tuple] = None
        self._ticket_vars: Optional[dict] = None  # ticket_definitions(kernel), when first needed
        self.incomplete_reason = ""
        self.epoch = 0
        self.wepoch = np.zeros(self.n, dtype=np.int32)
        self.buckets: dict = {}  # epoch -> key -> [Access]
        self.iter_stack: list = []
        self.tags: list = []
        self._decisions = 0
        self._instances = 0
        self.branches: dict = {}  # id(If) -> BranchStats
        self.barriers: list[BarrierEvent] = []
        self.barrier_loops = barrier_loops if barrier_loops is not None else set()
        self.loops_with_barrier_run: set = set()
        self.order: dict = {}  # id(node) -> first execution order (program order proxy)
        self._seq = 0
        self.dynamic_smem = dynamic_smem
        self.out_of_bounds: dict = {}  # shared variable -> thread-accesses outside it
        #: stop the run at the first access outside a shared array (``out_of_bounds`` is then
        #: not empty, and nothing else of the run is complete): for a trial whose only answer
        #: is whether the block overruns (launch.fit_block)
        self.stop_on_overrun = False
        self.overran = False
        #: receives global-memory accesses, fences and grid barriers (analyzer/global_races.py)
        self.glog = None
        self.facts: list = []  # what threads learnt from branches on loaded values (simt_facts)
        self.all = np.ones(self.n, dtype=bool)
        self.none = np.zeros(self.n, dtype=bool)
        # Values are never changed in place, so every unknown shares read-only arrays (a write
        # to them would raise, not corrupt another value). ``k is _unknown_k`` then says "known
        # for no thread" without looking at the entries: the evaluator skips computing values
        # nobody will read (an unknown entry's value is never used).
        self._zeros = _read_only(np.zeros(self.n, dtype=_INT))
        self._fzeros = _read_only(np.zeros(self.n, dtype=np.float64))
        self._unknown_k = _read_only(np.zeros(self.n, dtype=bool))
        self._memo: dict = {}  # (function, id(node)) -> (node, result): see _static
        self._consts: dict = {}  # (kind, value) -> read-only array of it (see const)
        self._const_ids: dict = {}  # id of such an array -> its key (they live all run)
        self._uniform_memo: dict = {}  # arithmetic on two constants (see _arith_values)
        self._const_parts: dict = {}  # id of a constant's array -> its token_part
        self._known = _read_only(np.ones(self.n, dtype=bool))  # the ``k`` of every constant
        self._idx_all = _read_only(np.arange(self.n))  # the threads of an access by every thread
        self._zero_v = self.const(0).v  # the entries of the constant 0 (an array's start offset)
        self._array_starts: dict = {}  # array variable -> the pointer to its start (_varref)
        self._u32_of: dict = {}  # id(type) -> (type, 32-bit unsigned?) (see _u32)
        self._blk = None  # token_part of each thread's block ordinal (see _loaded)
        self._base_parts: dict = {}  # an object's base -> its token_part (see _loaded)

    # ------------------------------------------------------------------ helpers
    def const(self, x) -> V:
        # Like unknown(): values are never changed in place, so one read-only array per
        # constant serves every use (a loop re-evaluates its `1` and `s < 256` many times).
        # The key keeps 1 and 1.0 (and 0.0 and -0.0) apart.
        key = ("f", x.hex()) if isinstance(x, float) else ("i", int(x))
        arrs = self._consts.get(key)
        if arrs is None:
            if key[0] == "f":
                v = np.full(self.n, x, dtype=np.float64)
            else:  # an unsigned 64-bit literal (CRC/hash constants) keeps its bits
                v = np.full(self.n, cint.as_int64_bits(key[1]), dtype=_INT)
            arrs = self._consts[key] = _read_only(v)
            self._const_ids[id(arrs)] = key
        return V(arrs, self._known)

    def unknown(self) -> V:
        return V(self._zeros, self._unknown_k)

    def _unknown_of(self, is_float: bool) -> V:
        """An unknown value of the given kind (float or integer)."""
        return V(self._fzeros if is_float else self._zeros, self._unknown_k)

    def arr(self, a: np.ndarray) -> V:
        return V(a.astype(_INT, copy=True), self._known)

    def _known_for(self, k: np.ndarray, threads: np.ndarray) -> bool:
        """Whether ``k`` is True for all of ``threads`` (at once for the shared masks)."""
        if k is self._known:
            return True
        if k is self._unknown_k:
            return not threads.any()
        return bool(np.all(k[threads]))

    def _unknown_for(self, k: np.ndarray, threads: np.ndarray) -> bool:
        """Whether ``k`` is False for all of ``threads``."""
        if k is self._unknown_k:
            return True
        if k is self._known:
            return not threads.any()
        return bool(np.all(~k[threads]))

    def _tick(self) -> None:
        self.steps += 1
        if self.steps > self.budget:
            raise BudgetExceeded()

    def eff(self, m: Mask, fr: _Frame) -> Mask:
        if not fr.exits:  # no thread has left by return/break/continue: the mask as it is
            return m
        if not fr.ctxs:  # outside loops and switches (the common case): no copies
            return Mask(m.must & ~fr.ret_may, m.may & ~fr.ret_must, m.live & ~fr.ret_must)
        dead_must = fr.ret_must.copy()
        dead_may = fr.ret_may.copy()
        for c in fr.ctxs:
            dead_must |= c.brk_must | c.cont_must
            dead_may |= c.brk_may | c.cont_may
        return Mask(m.must & ~dead_may, m.may & ~dead_must, m.live & ~dead_must)

    # ------------------------------------------------------------------ entry
    def run(self) -> "Simt":
        env: dict = {}
        for p in self.kernel.params:
            env[p] = self._param_value(p)
        fr = _Frame(self.n, env, self.kernel)
        m = Mask(self._known, self._known)
        # Overflow, division by zero and NaN in the per-thread arithmetic are handled where
        # they matter (unknown entries); one errstate for the whole run, not one per operation.
        err = np.seterr(all="ignore")
        try:
            if self.kernel.body is not None:
                self.block(self.kernel.body, m, fr)
        except BudgetExceeded:
            self.complete = False
            self.incomplete_reason = f"stopped after {self.budget} statement executions"
        except RecursionError:
            self.complete = False
            self.incomplete_reason = "expressions nested too deeply"
        except Overrun:
            self.complete = False
            self.incomplete_reason = "stopped at the first access outside a shared array"
            self.overran = True
        finally:
            np.seterr(**err)
        if not self.overran:
            self._flush_all()
        return self

    def _overrun(self, var, count: int) -> None:
        """``count`` thread-accesses of ``var`` fell outside it (see ``out_of_bounds``)."""
        self.out_of_bounds[var] = self.out_of_bounds.get(var, 0) + count
        if self.stop_on_overrun:
            raise Overrun()

    def _param_value(self, p: ir.Variable):
        t = p.type
        if t.kind in ("pointer", "array"):
            el = t.element or ir.UNKNOWN_TYPE
            return Ptr(p, "global", self.const(0), el, el.is_volatile)
        v = self.params.get(p.name)
        if isinstance(v, bool):
            v = int(v)
        if isinstance(v, (int, float)):
            return self.const(v)
        out = self.unknown()  # not known, but the same for every thread
        out.t = np.full(self.n, (self._object_ids.setdefault(id(p), len(self._object_ids) + 1) << 40) + 1,
                        dtype=_INT)
        return out

    # ------------------------------------------------------------------ statements
    def block(self, b: ir.Block, m: Mask, fr: _Frame) -> None:
        live = None
        for s in b.stmts:
            if fr.exits:
                em = self.eff(m, fr)
                if not em.any():
                    return
            else:  # nobody left since the last statement: the same mask, still live
                if live is None:
                    live = m.any()
                if not live:
                    return
                em = m
            self.stmt(s, em, fr)

    def stmt(self, s: ir.Stmt, m: Mask, fr: _Frame) -> None:
        self._tick()
        h = _STMT.get(type(s))
        if h is None:
            h = _STMT[type(s)] = _stmt_handler(s)
        h(self, s, m, fr)

    def _s_expr(self, s: ir.ExprStmt, m: Mask, fr: _Frame) -> None:
        self.ev(s.expr, m, fr)

    def _s_barrier(self, s: ir.Barrier, m: Mask, fr: _Frame) -> None:
        for a in s.args:
            self.ev(a, m, fr)
        if s.scope == "block":
            self.barrier(s, m, fr)
        else:
            self.wepoch[m.may] += 1

    def _s_return(self, s: ir.Return, m: Mask, fr: _Frame) -> None:
        if s.value is not None:
            val = self.ev(s.value, m, fr)
            fr.rets.append((m, val))
        fr.exits = True
        fr.ret_must |= m.live  # running or not before, it has left now
        fr.ret_may |= m.may

    def _s_break(self, s: ir.Break, m: Mask, fr: _Frame) -> None:
        if fr.ctxs:
            fr.exits = True
            c = fr.ctxs[-1]
            c.brk_must |= m.live
            c.brk_may |= m.may

    def _s_continue(self, s: ir.Continue, m: Mask, fr: _Frame) -> None:
        for c in reversed(fr.ctxs):
            if not c.switch:
                fr.exits = True
                c.cont_must |= m.live
                c.cont_may |= m.may
                break

    def _s_other(self, s: ir.OtherStmt, m: Mask, fr: _Frame) -> None:
        for p in s.parts:
            self.ev(p, m, fr)
        if "goto" in s.text:
            self.complete = False
            self.incomplete_reason = "the kernel uses goto"

    def _s_none(self, s: ir.Stmt, m: Mask, fr: _Frame) -> None:
        """Case labels outside a switch body walk: nothing to do."""

    def _decl(self, s: ir.DeclStmt, m: Mask, fr: _Frame) -> None:
        v = s.var
        if v.storage in ("shared", "extern_shared", "constant", "static", "device"):
            if s.init is not None:
                self.ev(s.init, m, fr)
            return
        if v.is_reference and s.init is not None:
            fr.env[v] = self.lvalue(s.init, m, fr)
            return
        if v.type.kind == "array":
            if s.init is not None:
                self.ev(s.init, m, fr)
            return
        val = self.ev(s.init, m, fr) if s.init is not None else self.unknown()
        if isinstance(val, V) and v.type.kind == "scalar":
            val = self._convert(val, v.type)
        self.store(fr, v, val, m)

    def barrier(self, node, m: Mask, fr: _Frame) -> None:
        if not m.any():
            return
        alive = ~(fr.ret_may) if fr is not None else self.all
        b0 = self.ts.blk == 0  # counts for one block, however many the run simulates
        self.barriers.append(BarrierEvent(node, int((m.must & b0).sum()), int((alive & b0).sum()),
                                          int((m.may & b0).sum())))
        if self.glog is not None:
            self.glog.barrier(self, node, m)
        for inst in self.iter_stack:
            self.loops_with_barrier_run.add(id(inst[2]))
        self._flush(self.epoch)
        self.epoch += 1

    # ------------------------------------------------------------------ if / loops / switch
    def _if(self, s: ir.If, m: Mask, fr: _Frame) -> None:
        c, learnt = simt_facts.branch_cond(self, s.cond, m, fr)
        known = c.k
        ct = truth(c)
        if self._known_for(known, m.may):
            if self.track_branches:
                self._branch_stats(s, ct, m)
            mt = _narrow(m, ct)
            if mt.any():
                self.block(s.then, mt, fr)
            if s.otherwise is not None:
                me = _narrow(m, ~ct)
                if me.any():
                    self.block(s.otherwise, me, fr)
            return
        if self.track_branches:
            st = self.branches.setdefault(id(s), BranchStats(s))
            st.executions += 1
            st.unknown += 1
        if self.uniform(s.cond) and self._unknown_for(known, m.may):
            # a block's atomic ticket shared after a barrier (`if (*flag == gridDim.x - 1)`):
            # one block at most draws that ticket and goes in
            lone = self.glog is not None and self._tests_ticket(s.cond)
            group = self._one_block_equals(s.cond, fr, m) if self.glog is not None else None
            self._decide(s.then, s.otherwise, m, fr, lone=lone, group=group)
            return
        mt = Mask(m.must & known & ct, m.may & (~known | ct), m.live & known & ct)
        me = Mask(m.must & known & ~ct, m.may & (~known | ~ct), m.live & known & ~ct)
        if self.glog is not None and self._static(_tests_atomic, s.cond):
            # `if (atomicAdd(&done, n) + n == total)`: the thread that sees the others' count
            # runs after their updates (the last-arriver pattern)
            self.glog.publish(mt.may)
        if mt.any():
            solo, drawn = self._solo, self._drawn
            if self._selects_one_thread(s.cond, fr, m):
                self._solo_count += 1
                self._solo = self._solo_count
            if self.glog is not None:
                self._drawn = self._drawn_ticket(s.cond, fr, m) or self._drawn
            f = simt_facts.push(self, learnt, mt.may & ~known, True) if learnt is not None else None
            try:
                self.block(s.then, mt, fr)
            finally:
                self._solo, self._drawn = solo, drawn
                simt_facts.pop(self, f)
        if s.otherwise is not None and me.any():
            f = simt_facts.push(self, learnt, me.may & ~known, False) if learnt is not None else None
            try:
                self.block(s.otherwise, me, fr)
            finally:
                simt_facts.pop(self, f)

    def _tests_ticket(self, c: ir.Expr) -> bool:
        """Whether ``c`` compares (``==``) a place that holds an atomic's returned value."""
        if self._tickets is None:
            self._tickets = ticket_holders(self.kernel)
        if not self._tickets:
            return False
        return self._static(self._compares_ticket, c)

    def _compares_ticket(self, c: ir.Expr) -> bool:
        return any(isinstance(b, ir.BinOp) and b.op == "==" and
                   (_holder(b.lhs) in self._tickets or _holder(b.rhs) in self._tickets)
                   for b in c.walk())

    def _drawn_ticket(self, c: ir.Expr, fr: _Frame, m: Mask):
        """``t == K`` (or ``!t``) where ``t`` holds only values drawn from one global counter
        (``int t = atomicAdd(&c[0], 1)``, or the call itself in the condition) and ``K`` is one
        known number for every thread here: at most one thread of the grid draws ``K``, however
        many sections test tickets of that counter. Returns ``(counter variable, byte offset,
        sign, K)``, or None. :class:`GlobalLog` checks at the end that nothing else wrote the
        counter (a reset lets a second thread draw ``K``)."""
        while isinstance(c, ir.Cast) and c.implicit:
            c = c.operand
        if isinstance(c, ir.UnaryOp) and c.op == "!":
            pairs = [(c.operand, None)]
        elif isinstance(c, ir.BinOp) and c.op == "==":
            pairs = [(c.lhs, c.rhs), (c.rhs, c.lhs)]
        else:
            return None
        if self._ticket_vars is None:
            self._ticket_vars = ticket_definitions(self.kernel)
        act = m.may
        for a, b in pairs:
            while isinstance(a, ir.Cast):
                a = a.operand
            if isinstance(a, ir.Call):
                sites = [a]
            elif isinstance(a, ir.VarRef) and a.var in self._ticket_vars:
                sites = self._ticket_vars[a.var]
            else:
                continue
            counters = {self.glog.ticket_counter(x) for x in sites} - {False}  # False: not run
            if len(counters) != 1 or None in counters:
                continue
            if b is None:
                k = 0
            else:
                if not self._static(_pure, b):
                    continue
                kv = self.ev(b, m, fr)
                if not isinstance(kv, V) or kv.is_float or not bool(np.all(kv.k[act])):
                    continue
                ks = np.unique(kv.v[act])
                if len(ks) != 1:
                    continue
                k = int(ks[0])
            return counters.pop() + (k,)
        return None

    def _one_block_equals(self, c: ir.Expr, fr: _Frame, m: Mask) -> Optional[tuple]:
        """``chunk == last`` where ``chunk`` is known, one value per block, and ``last`` is
        unknown but the same in the whole grid (made of parameters, constants and the launch's
        shape: ``(n + 1023) / 1024 - 1``): only where ``last`` equals a block's value does that
        block take the branch (the block that owns the last chunk of a grid-stride loop).
        Returns (key of ``last``, block -> value), or None."""
        while isinstance(c, ir.Cast) and c.implicit:
            c = c.operand
        if not isinstance(c, ir.BinOp) or c.op != "==":
            return None
        if self._grid_uniform is None:
            self._grid_uniform = grid_uniform_vars(self.kernel)
        act = m.may
        for a, b in ((c.lhs, c.rhs), (c.rhs, c.lhs)):
            if not self._static(_pure, a) or not _grid_uniform_expr(b, self._grid_uniform):
                continue
            v = self.ev(a, m, fr)
            if not isinstance(v, V) or v.is_float or not bool(np.all(v.k[act])):
                continue
            vals, blk = v.v[act], self.ts.blk[act]
            per_block = {int(x): np.unique(vals[blk == x]) for x in np.unique(blk)}
            if all(len(u) == 1 for u in per_block.values()):
                key = (constprop.text(b), tuple(sorted({id(x.var) for x in b.walk() if isinstance(x, ir.VarRef)})))
                return key, {x: int(u[0]) for x, u in per_block.items()}
        return None

    def _selects_one_thread(self, c: ir.Expr, fr: Optional[_Frame] = None, m: Optional[Mask] = None) -> bool:
        """``threadIdx.x == v`` with ``v`` the same for the whole block (``buf_s[1]`` after a
        barrier) in a 1-D block: at most one thread takes the branch."""
        while isinstance(c, ir.Cast) and c.implicit:
            c = c.operand
        if not isinstance(c, ir.BinOp) or c.op != "==":
            return False
        for a, b in ((c.lhs, c.rhs), (c.rhs, c.lhs)):
            while isinstance(a, ir.Cast):
                a = a.operand
            if isinstance(a, ir.Builtin) and a.name == "threadIdx" and a.component in ("x", "y", "z"):
                others = [d for i, d in enumerate(self.ts.block) if "xyz"[i] != a.component]
                if all(d == 1 for d in others) and (self.uniform(b) or self._same_in_block(b, fr, m)):
                    return True
            elif self._distinct_in_block(a, fr, m) and (self.uniform(b) or self._same_in_block(b, fr, m)):
                return True  # `idx == minIdx` / `tx == df - 1` with tx = threadIdx.x held in a local
        return False

    def _distinct_in_block(self, e: ir.Expr, fr: Optional[_Frame], m: Optional[Mask]) -> bool:
        """Whether local variable ``e`` holds a known value that differs between the threads
        of each block that run here (a thread index kept in a local)."""
        if fr is None or m is None or not isinstance(e, ir.VarRef) or e.var.storage != "auto":
            return False
        v = fr.env.get(e.var)
        act = m.may
        if not isinstance(v, V) or not bool(np.all(v.k[act])):
            return False
        vals, blk = v.v[act], self.ts.blk[act]
        for b in np.unique(blk):
            x = vals[blk == b]
            if len(np.unique(x)) != len(x):
                return False
        return True

    def _same_in_block(self, e: ir.Expr, fr: Optional[_Frame], m: Optional[Mask]) -> bool:
        """Whether variable ``e`` holds, in each block, one value for all the threads that
        run here (equal provenance tokens: ``minIdx`` read from one shared word)."""
        while isinstance(e, ir.Cast):
            e = e.operand
        if fr is None or m is None or not isinstance(e, ir.VarRef):
            return False
        v = fr.env.get(e.var)
        if not isinstance(v, V) or v.t is None:
            return False
        act = m.may
        t, blk = v.t[act], self.ts.blk[act]
        if not len(t) or (t == 0).any():
            return False
        for b in np.unique(blk):
            if len(np.unique(t[blk == b])) != 1:
                return False
        return True

    def _masks_of(self, fr: _Frame):
        return [fr.ret_must.copy(), fr.ret_may.copy()] + \
            [(c.brk_must.copy(), c.brk_may.copy(), c.cont_must.copy(), c.cont_may.copy()) for c in fr.ctxs]

    def _restore_masks(self, fr: _Frame, saved) -> None:
        fr.ret_must, fr.ret_may = saved[0].copy(), saved[1].copy()
        for c, t in zip(fr.ctxs, saved[2:]):
            c.brk_must, c.brk_may, c.cont_must, c.cont_may = (x.copy() for x in t)

    def _decide(self, then: ir.Block, other: Optional[ir.Block], m: Mask, fr: _Frame,
                lone: bool = False, group: Optional[tuple] = None) -> None:
        """A block-uniform condition with an unknown value: explore both outcomes. ``lone``:
        at most one block of the grid takes the ``then`` side (it tests an atomic's ticket
        for equality), so two blocks' accesses there are not paired. ``group``: (key, block ->
        value) of a ``value == last`` test (:meth:`_one_block_equals`)."""
        self._decisions += 1
        d = self._decisions
        env0 = dict(fr.env)
        masks0 = self._masks_of(fr)
        if lone:
            self.glog.lone.add(d)
        if group is not None:
            self.glog.lone_group(d, *group)
        self.tags.append((d, True))
        try:
            self.block(then, m, fr)
        finally:
            self.tags.pop()
        env_t = fr.env
        masks_t = self._masks_of(fr)
        fr.env = dict(env0)
        self._restore_masks(fr, masks0)
        if other is not None:
            self.tags.append((d, False))
            try:
                self.block(other, m, fr)
            finally:
                self.tags.pop()
        env_e = fr.env
        masks_e = self._masks_of(fr)
        fr.env = self._merge_env(env_t, env_e)
        # A thread certainly left only if it left on both sides.
        fr.ret_must = masks_t[0] & masks_e[0]
        fr.ret_may = masks_t[1] | masks_e[1]
        for c, a, b in zip(fr.ctxs, masks_t[2:], masks_e[2:]):
            c.brk_must, c.brk_may = a[0] & b[0], a[1] | b[1]
            c.cont_must, c.cont_may = a[2] & b[2], a[3] | b[3]

    def _merge_env(self, a: dict, b: dict) -> dict:
        out = {}
        for key in set(a) | set(b):
            va, vb = a.get(key), b.get(key)
            if va is vb:
                out[key] = va
            elif isinstance(va, V) and isinstance(vb, V):
                if va.v.dtype != vb.v.dtype:
                    out[key] = self.unknown()
                else:
                    out[key] = V(va.v.copy(), va.k & vb.k & (va.v == vb.v))
            elif isinstance(va, Ptr) and isinstance(vb, Ptr) and va.var is vb.var:
                off = V(va.off.v.copy(), va.off.k & vb.off.k & (va.off.v == vb.off.v))
                out[key] = Ptr(va.var, va.space, off, va.elem, va.volatile and vb.volatile)
            else:
                out[key] = None
        return out

    def _loop(self, s: ir.Loop, m: Mask, fr: _Frame) -> None:
        for i in s.init:
            em = self.eff(m, fr)
            if not em.any():
                return
            self.stmt(i, em, fr)
        ctx = _Ctx(self.n)
        fr.ctxs.append(ctx)
        self._instances += 1
        rec = [self._instances, 0, s]
        self.iter_stack.append(rec)
        lm = self.eff(m, fr)
        it = 0
        truncated = False
        try:
            while True:
                self._tick()
                if fr.exits:  # (else nobody has continued: the masks are all False already)
                    ctx.cont_must[:] = False
                    ctx.cont_may[:] = False
                cur = self.eff(lm, fr)
                if not cur.any():
                    break
                if (s.kind != "do" or it > 0) and s.cond is not None:
                    c = self.cond(s.cond, cur, fr)
                    known = c.k
                    ct = truth(c)
                    if self._known_for(known, cur.may):
                        cur = _narrow(cur, ct)
                    elif self.uniform(s.cond) and self._unknown_for(known, cur.may):
                        if it >= UNKNOWN_LOOP_ITERATIONS:
                            truncated = True
                            break
                    else:
                        if it >= UNKNOWN_LOOP_ITERATIONS:
                            truncated = True
                            break
                        cur = Mask(cur.must & known & ct, cur.may & (~known | ct), cur.live & known & ct)
                if not cur.any():
                    break
                if it >= MAX_LOOP_ITERATIONS:
                    truncated = True
                    break
                lm = cur
                rec[1] = it
                self.block(s.body, cur, fr)
                if not fr.exits:
                    # nobody returned, broke or continued (all those masks are False): every
                    # thread of the iteration runs the step, and the loop's mask stays as it is
                    if s.step is not None and lm.any():
                        self.ev(s.step, lm, fr)
                    it += 1
                    continue
                # threads that finished the body or continued run the step
                after = Mask(lm.must & ~(fr.ret_may | ctx.brk_may), lm.may & ~(fr.ret_must | ctx.brk_must),
                             lm.live & ~(fr.ret_must | ctx.brk_must))
                for c2 in fr.ctxs[:-1]:
                    after = Mask(after.must & ~(c2.brk_may | c2.cont_may), after.may & ~(c2.brk_must | c2.cont_must),
                                 after.live & ~(c2.brk_must | c2.cont_must))
                if s.step is not None and after.any():
                    self.ev(s.step, after, fr)
                lm = Mask(lm.must & ~(ctx.brk_may), lm.may & ~(ctx.brk_must), lm.live & ~ctx.brk_must)
                it += 1
        finally:
            fr.ctxs.pop()
            self.iter_stack.pop()
        if truncated:
            rebinds = None
            for v in self._static(_loop_writes, s):
                if v in fr.env:
                    if not isinstance(fr.env[v], Ptr):
                        fr.env[v] = self.unknown()
                        continue
                    # a pointer (an array parameter) stays where it points unless the loop
                    # assigns the variable itself: `dist[j] = d` writes the memory, not `dist`
                    if rebinds is None:
                        rebinds = self._static(_loop_rebinds, s)
                    if v in rebinds:
                        fr.env[v] = None

    def _static(self, f: Callable, node):
        """``f(node)`` for a fact of the IR alone, computed once per node in this run (a loop
        or a branch runs many times)."""
        memo = self._memo
        key = (f, id(node))
        hit = memo.get(key)
        if hit is None or hit[0] is not node:
            hit = memo[key] = (node, f(node))
        return hit[1]

    def _switch(self, s: ir.Switch, m: Mask, fr: _Frame) -> None:
        c = self.ev(s.cond, m, fr)
        if not isinstance(c, V):
            c = self.unknown()
        ctx = _Ctx(self.n, switch=True)
        fr.ctxs.append(ctx)
        try:
            vals = []
            for st in s.body.stmts:
                if isinstance(st, ir.Case) and st.value is not None:
                    cv = constprop.evaluate(st.value, {})
                    vals.append(cv if isinstance(cv, (int, float)) else None)
            matched_must = self.none.copy()
            matched_may = self.none.copy()
            for v in vals:
                if v is None:
                    matched_may |= True
                else:
                    eq = c.k & (c.v == v)
                    matched_must |= eq
                    matched_may |= eq | ~c.k
            act = Mask(self.none.copy(), self.none.copy())
            for st in s.body.stmts:
                if isinstance(st, ir.Case):
                    if st.value is None:
                        add_must, add_may = ~matched_may, ~matched_must
                    else:
                        cv = constprop.evaluate(st.value, {})
                        if isinstance(cv, (int, float)):
                            add_must = c.k & (c.v == cv)
                            add_may = ~c.k | (c.v == cv)
                        else:
                            add_must, add_may = self.none, self.all
                    act = Mask(act.must | (m.must & add_must), act.may | (m.may & add_may))
                    continue
                em = self.eff(act, fr)
                if em.any():
                    self.stmt(st, em, fr)
        finally:
            fr.ctxs.pop()

    # ------------------------------------------------------------------ branch statistics
    def _branch_stats(self, s: ir.If, ct: np.ndarray, m: Mask) -> None:
        st = self.branches.setdefault(id(s), BranchStats(s))
        st.executions += 1
        if not m.certain:
            st.unknown += 1
            return
        act = m.must
        if not act.any():
            return
        w = self.ts.warp[act]
        taken = ct[act]
        nw = int(self.ts.warp.max()) + 1
        n_act = np.bincount(w, minlength=nw)
        n_taken = np.bincount(w, weights=taken.astype(np.float64), minlength=nw)
        executing = n_act > 0
        divergent = executing & (n_taken > 0) & (n_taken < n_act)
        st.warps_executing += int(executing.sum())
        nd = int(divergent.sum())
        st.warps_divergent += nd
        if nd:
            frac = n_taken[divergent] / n_act[divergent]
            st.minority_sum += float(np.minimum(frac, 1.0 - frac).sum())
        if nd and not st.interleaved:
            for wid in np.flatnonzero(divergent)[:64]:
                sel = act & (self.ts.warp == wid)
                pattern = ct[sel]
                changes = int(np.count_nonzero(pattern[1:] != pattern[:-1]))
                first_lane = None
                if changes >= 2 or st.example_warp is None:
                    idx = np.flatnonzero(sel)
                    lanes = self.ts.lin[idx] % 32
                    t_l = lanes[pattern][0] if pattern.any() else None
                    f_l = lanes[~pattern][0] if (~pattern).any() else None
                    blk = int(self.ts.blk[idx[0]])
                    st.example_warp = int(self.ts.lin[idx[0]] // 32)
                    st.example_block = tuple(self.ts.blocks[blk])
                    st.example_lanes = (int(t_l) if t_l is not None else None,
                                        int(f_l) if f_l is not None else None)
                    first_lane = t_l
                if changes >= 2:
                    st.interleaved = True
                    break
                del first_lane

    # ------------------------------------------------------------------ the access log
    def _flush_all(self) -> None:
        for ep in sorted(self.buckets):
            self._flush(ep)

    def _flush(self, epoch: int) -> None:
        bucket = self.buckets.pop(epoch, None)
        if bucket:
            self.interval_closed(bucket)

    def interval_closed(self, bucket: dict) -> None:
        """One barrier interval ended: ``bucket`` maps each memory object (a variable, or
        ``"extern"`` for all extern ``__shared__`` arrays, which alias) to its accesses in the
        interval, in execution order. The interpreter keeps nothing; a subclass consumes them
        (:class:`.races.Simt` pairs them into races)."""


def _narrow(m: Mask, sel: np.ndarray) -> Mask:
    """``m`` restricted to the threads ``sel`` holds for; a certain mask (one array for must
    and may) stays one array, and ``m`` itself when ``sel`` holds for every thread (a loop's
    ``k < 16`` while it runs: the shared arrays of a full mask stay recognisable)."""
    if sel.all():
        return m
    if m.must is m.may and m.live is m.must:
        x = m.must & sel
        return Mask(x, x)
    return Mask(m.must & sel, m.may & sel, m.live & sel)


def _stmt_handler(s: ir.Stmt):
    """The Simt method that runs statements of this class (the first isinstance test that
    holds, in this order; looked up once per class)."""
    for cls, fn in ((ir.Block, Simt.block), (ir.DeclStmt, Simt._decl), (ir.ExprStmt, Simt._s_expr),
                    (ir.Barrier, Simt._s_barrier), (ir.If, Simt._if), (ir.Loop, Simt._loop),
                    (ir.Return, Simt._s_return), (ir.Break, Simt._s_break),
                    (ir.Continue, Simt._s_continue), (ir.Switch, Simt._switch),
                    (ir.OtherStmt, Simt._s_other)):
        if isinstance(s, cls):
            return fn
    return Simt._s_none


_STMT: dict = {}  # statement class -> handler


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def _loop_writes(s: ir.Loop) -> set:
    """The variables a loop's body and step assign."""
    out: set = set()
    if s.step is not None:
        for x in s.step.walk():
            constprop.collect_writes(x, out)
    return constprop.assigned_vars(s.body) | out


def _loop_rebinds(s: ir.Loop) -> set:
    """The variables a loop's body and step assign as a whole (``p = q``, ``p++``, ``&p``, a
    non-const reference argument), not only through an element or member (``p[i] = x``)."""
    out: set = set()

    def bare(e: ir.Expr):
        while isinstance(e, ir.Cast):
            e = e.operand
        return e.var if isinstance(e, ir.VarRef) else None

    exprs = [s.step] if s.step is not None else []
    for st in ir.walk_stmt(s.body):
        if isinstance(st, ir.DeclStmt):
            out.add(st.var)
        exprs.extend(st.exprs())
    for e in exprs:
        for x in e.walk():
            if isinstance(x, ir.Assign):
                v = bare(x.target)
            elif isinstance(x, ir.UnaryOp) and x.op in ("pre++", "pre--", "post++", "post--", "&"):
                v = bare(x.operand)
            elif isinstance(x, ir.Call):
                written: set = set()
                constprop.collect_writes(x, written)
                out |= {bare(a) for a in x.args if bare(a) in written}
                continue
            else:
                continue
            if v is not None:
                out.add(v)
    out.discard(None)
    return out


def ticket_holders(fn: ir.Function) -> set:
    """Where ``fn`` and the device functions it calls keep a value an atomic read-modify-write
    returned, one that differs between callers (a ticket): ``("var", v)`` for
    ``t = atomicAdd(&c, 1)`` / ``unsigned t = atomicInc(...)``,
    ``("deref", p)`` for ``*p = atomicAdd(...)`` / ``p[0] = ...`` with ``p`` a variable."""
    from .lowering import callees

    def atomic(e) -> bool:
        """An atomic that returns a different value to every caller: atomicInc/atomicDec,
        atomicAdd/atomicSub of a nonzero integer constant (not atomicMax, atomicExch, CAS)."""
        while isinstance(e, ir.Cast):
            e = e.operand
        if not isinstance(e, ir.Call):
            return False
        base = e.callee.split("_")[0]
        if base in ("atomicInc", "atomicDec"):
            return True
        if base in ("atomicAdd", "atomicSub") and len(e.args) == 2:
            k = e.args[1]
            while isinstance(k, ir.Cast):
                k = k.operand
            return isinstance(k, ir.Const) and isinstance(k.value, int) and \
                not isinstance(k.value, bool) and k.value != 0
        return False

    out: set = set()
    for f in [fn] + callees(fn):
        for st in f.statements():
            if isinstance(st, ir.DeclStmt) and st.init is not None and atomic(st.init):
                out.add(("var", st.var))
        for e in f.expressions():
            if not (isinstance(e, ir.Assign) and e.op == "=" and atomic(e.value)):
                continue
            key = _holder(e.target)
            if key is not None:
                out.add(key)
    return out


def ticket_definitions(fn: ir.Function) -> dict:
    """Local variables of ``fn`` and the device functions it calls that are only ever set by
    one atomic add of a nonzero constant (``int t = atomicAdd(&c, 1)``, ``t = atomicSub(...)``):
    variable -> the atomic calls that set it. A variable also set otherwise, incremented, or
    whose address is taken is left out."""
    from .lowering import callees

    def draw(e):
        while isinstance(e, ir.Cast):
            e = e.operand
        if isinstance(e, ir.Call) and e.callee in ("atomicAdd", "atomicAdd_system", "atomicSub",
                                                    "atomicSub_system") and len(e.args) == 2:
            return e
        return None

    sites: dict = {}
    spoiled: set = set()
    for f in [fn] + callees(fn):
        for st in f.statements():
            if isinstance(st, ir.DeclStmt) and st.var.storage == "auto" and \
                    st.var.type.kind == "scalar" and not st.var.is_reference:
                d = draw(st.init) if st.init is not None else None
                if d is not None:
                    sites.setdefault(st.var, []).append(d)
                elif st.init is not None:
                    spoiled.add(st.var)
        for e in f.expressions():
            if isinstance(e, ir.Assign):
                t = e.target
                while isinstance(t, ir.Cast):
                    t = t.operand
                if isinstance(t, ir.VarRef):
                    d = draw(e.value) if e.op == "=" else None
                    if d is not None:
                        sites.setdefault(t.var, []).append(d)
                    else:
                        spoiled.add(t.var)
            elif isinstance(e, ir.UnaryOp) and e.op in ("pre++", "pre--", "post++", "post--", "&"):
                t = e.operand
                while isinstance(t, ir.Cast):
                    t = t.operand
                if isinstance(t, ir.VarRef):
                    spoiled.add(t.var)
            elif isinstance(e, ir.Call):
                written: set = set()
                constprop.collect_writes(e, written)
                spoiled |= written
    return {v: s for v, s in sites.items() if v not in spoiled}


def grid_uniform_vars(fn: ir.Function) -> set:
    """The variables of kernel ``fn`` that hold one value in the whole grid: its scalar
    parameters that nothing assigns, and locals declared once from such values (constants,
    those parameters, ``gridDim``/``blockDim``) and never assigned again."""
    written: set = set()
    decls: dict = {}
    for st in ir.walk_stmt(fn.body) if fn.body is not None else ():
        if isinstance(st, ir.DeclStmt):
            decls[st.var] = decls.get(st.var, ()) + (st.init,)
        for e in st.exprs():
            for x in e.walk():
                constprop.collect_writes(x, written)
    out = {p for p in fn.params if p.type.kind == "scalar" and p not in written}
    changed = True
    while changed:
        changed = False
        for v, inits in decls.items():
            if v in out or v in written or len(inits) != 1 or inits[0] is None:
                continue
            if _grid_uniform_expr(inits[0], out):
                out.add(v)
                changed = True
    return out


def _grid_uniform_expr(e: ir.Expr, uniform: set) -> bool:
    for x in e.walk():
        if isinstance(x, ir.VarRef):
            if x.var not in uniform:
                return False
        elif isinstance(x, ir.Builtin):
            if x.name not in ("gridDim", "blockDim", "warpSize"):
                return False
        elif not isinstance(x, (ir.Const, ir.BinOp, ir.UnaryOp, ir.Cast, ir.Ternary, ir.SizeOf)):
            return False
        elif isinstance(x, ir.UnaryOp) and x.op in ("pre++", "pre--", "post++", "post--", "*", "&"):
            return False
    return True


def _pure(e: ir.Expr) -> bool:
    """Whether evaluating ``e`` changes nothing (no call, assignment or increment)."""
    return not any(isinstance(x, (ir.Call, ir.Assign)) or
                   (isinstance(x, ir.UnaryOp) and x.op in ("pre++", "pre--", "post++", "post--"))
                   for x in e.walk())


def _holder(e: ir.Expr):
    while isinstance(e, ir.Cast):
        e = e.operand
    if isinstance(e, ir.VarRef):
        return ("var", e.var)
    if isinstance(e, ir.UnaryOp) and e.op == "*" and isinstance(e.operand, ir.VarRef):
        return ("deref", e.operand.var)
    if isinstance(e, ir.Index) and isinstance(e.base, ir.VarRef) and \
            isinstance(e.index, ir.Const) and e.index.value == 0:
        return ("deref", e.base.var)
    return None


def _tests_atomic(c: ir.Expr) -> bool:
    """Whether a condition tests the value an atomic read-modify-write returned."""
    return any(isinstance(x, ir.Call) and x.callee.startswith("atomic") for x in c.walk())


def branch_divergence(kernel: ir.Function, block: tuple, grid: Optional[tuple] = None,
                      params: Optional[dict] = None, uniform: Optional[Callable] = None,
                      budget: int = STEP_BUDGET) -> tuple[Simt, bool]:
    """Run ``kernel`` over the launch's grid (all blocks when the grid has at most
    ``MAX_GRID_THREADS`` threads, else a sample of blocks) recording how every ``if`` splits
    warps. Returns (interpreter, whole grid covered)."""
    blocks, whole = sample_blocks(tuple(grid) if grid else None, tuple(block))
    ts = ThreadSet(tuple(block), tuple(grid) if grid else None, blocks)
    sim = Simt(kernel, ts, params or {}, uniform, record=False, on_branch=True, budget=budget)
    return sim.run(), whole
