"""CL6xx: barriers, shared-memory races, warp divergence, writes to constant memory.

Facts come from ``analyzer/cfg.py`` (barrier intervals, control dependence),
``analyzer/uniformity.py`` (block- and warp-uniformity) and ``analyzer/races.py`` (a per-thread
run of the kernel for one block of the launch shape).
"""
from __future__ import annotations

from dataclasses import replace

from typing import Optional

from ..analyzer import ir
from ..analyzer.cfg import BRANCH, BREAK, CONTINUE, LOOP_COND, RETURN, CFG, functions_with_barrier
from ..analyzer.launch import default_reason
from ..analyzer.sync import uses_thread_dims
from ..analyzer.uniformity import Uniformity, released_by_exit
from .context import RuleContext
from .diagnostic import Location, Related
from .registry import RULES, rule


def _text(ctx: RuleContext, e: Optional[ir.Expr], limit: int = 60) -> str:
    if e is None:
        return ""
    t = ctx.source_text(e.range).strip() if ctx.in_file(e.range, no_file=True) else ""
    if not t or len(t) > limit:
        t = t[:limit - 3] + "..." if t else "the condition"
    return t


def _barrier_name(n) -> str:
    st = n.stmt
    if n.barrier_via is not None:
        c = n.barrier_via
        if c.function is not None:
            return f"`{c.callee}()` (it executes __syncthreads())"
        return f"`{c.callee}()`"
    if isinstance(st, ir.Barrier):
        return f"`{st.name}()`" if st.name != "cg::sync" else "the block-wide `sync()`"
    return "the barrier"


def _exit_in(cfg: CFG, d) -> Optional[object]:
    """A return/break/continue controlled by decision ``d`` (for 'after an early exit')."""
    for n in cfg.nodes:
        if n.kind in (RETURN, BREAK, CONTINUE) and d in cfg.controlling_decisions(n):
            return n
    return None


def _inside(stmt: ir.Stmt, n) -> bool:
    r, q = stmt.range, n.range
    return (r.line, r.column) <= (q.line, q.column) and (q.end_line, q.end_column) <= (r.end_line, r.end_column)


# ---------------------------------------------------------------------- CL601

@rule(
    "CL601", "divergent-barrier", "error",
    "A block-wide barrier that only some threads of the block may reach",
    what="Finds `__syncthreads()` (and `__syncthreads_count/_and/_or`, block-wide cooperative-groups "
         "`sync()`, and calls of device functions that execute one) that is control dependent on a "
         "condition that differs between the threads of a block: inside `if (threadIdx.x < 16)`, "
         "in a loop whose trip count depends on the thread, or after a thread-dependent early "
         "`return`, `break` or `continue`. Conditions that are the same for the whole block "
         "(blockIdx, blockDim, gridDim, kernel parameters, constants, uniform loop counters, values "
         "read from one shared address, a full-warp vote such as `__all_sync(0xffffffff, "
         "buf[threadIdx.x % 32])` that every warp takes on the same values) are fine, and so is "
         "a branch decided at compile time (`if (width == 32)` in a template instantiated for 32). An error when some of the threads turned away "
         "reach another barrier (a per-thread loop followed by a barrier, a `break` inside an outer "
         "loop that synchronises) or the barrier is a grid sync; a warning when every one of them "
         "leaves the kernel without another barrier (`if (i >= n) return;`): a thread that has "
         "exited no longer counts at a barrier (PTX `exit`), so that barrier cannot hang, though "
         "the programming guide still asks every thread of the block to reach it.",
    why="The CUDA programming guide allows `__syncthreads()` in conditional code only if the "
        "condition evaluates identically across the entire thread block; otherwise execution hangs "
        "or produces unintended side effects (threads that skip the barrier are not waited for, or "
        "the block deadlocks waiting for threads that never arrive).",
    example="""
__global__ void rows(const float* in, float* acc, int nrows) {
    __shared__ float s[256];
    int warp = threadIdx.x / 32;
    for (int r = blockIdx.x * 8 + warp; r < nrows; r += gridDim.x * 8) {  // trips per warp
        s[threadIdx.x] = in[r * 32 + threadIdx.x % 32];
        __syncthreads();           // warps still in the loop wait here ...
        acc[r * 32 + threadIdx.x % 32] += s[(threadIdx.x + 32) % 256];
        __syncthreads();
    }
    __syncthreads();               // ... while those done with it wait here
}""",
    how_to_fix="Hoist the barrier out of the condition so every thread of the block executes it: "
               "guard the work, not the barrier (`if (i < n) s[t] = out[i]; __syncthreads(); if (i < n) ...`), "
               "or keep every thread in the loop for the same number of iterations.",
)
def divergent_barrier(ctx: RuleContext):
    me = RULES["CL601"]
    seen = set()
    for kf in ctx.kernels:
        ks = kf.sync
        if ks is None:
            continue
        events = {}
        try:
            for ev in ks.sim.barriers:
                events.setdefault(id(ev.node), []).append(ev)
        except Exception:  # the run is a refinement of the message only
            events = {}
        for b, d in ks.uni.divergent_barriers():
            key = (b.range.line, b.range.column)
            if key in seen or not ctx.in_file(b.range, no_file=True):
                continue
            seen.add(key)
            yield _cl601(ctx, me, ks.cfg, ks.uni, b, d, kf.name, events, kf.launch)
    # Device functions whose own barriers are divergent (whatever their callers pass).
    tu = ctx.analysis.tu
    if tu is None:
        return
    cfgs = {id(kf.function): kf.sync.cfg for kf in ctx.kernels if kf.sync is not None}

    def cfg_of(g):  # a kernel's graph is the one its facts hold
        if id(g) not in cfgs:
            cfgs[id(g)] = CFG(g)
        return cfgs[id(g)]

    for fn in tu.functions:
        if not fn.is_device or fn.body is None or not ctx.in_file(fn.range, no_file=True):
            continue
        if not any(isinstance(s, ir.Barrier) and s.scope == "block" for s in fn.statements()) and \
                not functions_with_barrier(fn):
            continue
        uni = Uniformity(fn)
        for b, d in uni.divergent_barriers():
            key = (b.range.line, b.range.column)
            if key in seen or not ctx.in_file(b.range, no_file=True):
                continue
            seen.add(key)
            leaving = uni.leaving_to_kernel_ends(d, tu.functions, cfg_of) and released_by_exit(b)
            yield _cl601(ctx, me, uni.cfg, uni, b, d, None, {}, None, leaving=leaving)


def _cl601(ctx, me, cfg, uni, b, d, kernel, events, launch, leaving=None):
    cond = _text(ctx, d.expr)
    why = uni.reasons.get(d) or ""
    name = _barrier_name(b)
    related = []
    if d.kind == LOOP_COND:
        where = f"inside a loop whose condition `{cond}` (line {d.line}) differs between threads"
    elif d.stmt is not None and _inside(d.stmt, b):
        where = f"under the condition `{cond}` (line {d.line}), which differs between threads"
    else:
        ex = _exit_in(cfg, d)
        what = {RETURN: "return", BREAK: "break", CONTINUE: "continue"}.get(ex.kind, "exit") if ex else "exit"
        where = (f"after the early `{what}` of the threads for which `{cond}` holds (line {d.line}); "
                 f"the condition differs between threads")
        if ex is not None:
            related.append(Related(ctx.analysis.shown_path(ex.range.file), Location(ex.line, max(ex.range.column, 1)),
                                   f"threads leave here"))
    related.append(Related(ctx.analysis.shown_path(d.range.file), Location(d.line, max(d.range.column, 1)),
                           f"thread-dependent condition: it {why}" if why else "thread-dependent condition"))
    msg = f"{name} is not reached by every thread of the block: it is {where}"
    if why:
        msg += f" (it {why})"
    evs = events.get(id(b.stmt), []) + (events.get(id(b.barrier_via), []) if b.barrier_via is not None else [])
    if evs and launch is not None:
        ev = min(evs, key=lambda e: e.arrived)
        if ev.arrived == ev.possible and ev.arrived < ev.alive:
            msg += f"; with a block of {launch.threads_per_block} threads only {ev.arrived} reach it"
    severity = None
    if leaving is None:
        leaving = kernel is not None and uni.leaving_only(d) and released_by_exit(b)
    if leaving:
        # The threads turned away end the kernel without another barrier: an exited thread no
        # longer counts at a barrier, so nothing waits forever; only the guide's rule is broken.
        severity = "warning"
        msg += ("; the threads that do not reach it leave the kernel without another barrier, and "
                "exited threads no longer count at a barrier (PTX `exit`), so it cannot hang, but the "
                "CUDA programming guide requires every thread of the block to reach it")
    return ctx.diag(me, b.range, msg, kernel=kernel, related=tuple(related), severity=severity)


# ---------------------------------------------------------------------- CL602 / CL603

def _kind(write: bool) -> str:
    return "writes" if write else "reads"


@rule(
    "CL602", "shared-memory-race", "error",
    "Two threads of a block access the same shared-memory element between two barriers, one writing",
    what="Runs the kernel's index arithmetic for every thread of one block of the launch shape and "
         "finds two shared-memory accesses in the same barrier interval (no `__syncthreads()` "
         "between them) by different threads to the same bytes, at least one of them a write. The "
         "message names a witness: both thread indices, the array and the element. Accesses under "
         "a thread-dependent condition count only for the threads that execute them. Benign "
         "races are treated as for global memory (CL606): atomics against atomics, two stores of "
         "provably equal values (one known number, or values read from one address, including a "
         "pointer `sh_ptr = A` stored by every thread), and a load of a value the loading thread "
         "stored there itself when every conflicting store wrote that same value, are not races. Races between "
         "lanes of one warp are reported too (since Volta, lanes are not guaranteed to run in "
         "lockstep), except in code that only one warp of a larger block executes "
         "(`if (tid < 32) { s[tid] += s[tid + 16]; ... }`): that warp-synchronous pattern is "
         "CL302's. Without a launch (or `--block`), a kernel that indexes threadIdx.y/z is not "
         "checked, and a race found with the assumed 1-D block must also occur with 64 threads.",
    why="Without a barrier nothing orders the two accesses: the reader may see the old or the new "
        "value depending on scheduling, and the result changes from run to run (seed exercise "
        "5.3: forgetting `__syncthreads()` in the tiled kernel). Since Volta, even lanes of one "
        "warp are not guaranteed to run in lockstep.",
    example="""
__global__ void shift(float* out) {
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = out[t];
    out[t] = s[t + 1];   // thread 0 reads s[1] while thread 1 may not have written it yet
}""",
    how_to_fix="Put `__syncthreads()` between the write and the read (all threads of the block must "
               "reach it), or give each thread its own element.",
)
def shared_race(ctx: RuleContext):
    me = RULES["CL602"]
    # One diagnostic per access: a device function inlined into several kernels (or
    # instantiations), or one access racing with several others (an unrolled warp scan),
    # reports once, with the other conflicting accesses as related locations.
    by_loc: dict = {}  # (line, column) of the reported access -> its races, in order met
    for kf in ctx.kernels:
        ks = kf.sync
        if ks is None:
            continue
        for r in ks.races:
            if r.back_edge is not None or r.warp_confined:
                continue
            if not (ctx.in_file(r.b.range, no_file=True) and ctx.in_file(r.a.range, no_file=True)):
                continue
            by_loc.setdefault((r.b.range.line, r.b.range.column), []).append((r, ks, kf))
    for group in by_loc.values():
        r, ks, kf = group[0]
        d = _cl602(ctx, me, ks, r, kf)
        others = []
        seen = {(r.a.range.line, r.a.range.column)}
        for r2, _, _ in group[1:]:
            pos = (r2.a.range.line, r2.a.range.column)
            if r2.a is not r2.b and pos not in seen:
                seen.add(pos)
                others.append(r2.a)
        if others:
            extra = tuple(Related(ctx.analysis.shown_path(x.range.file), Location(x.range.line, x.range.column),
                                  f"also conflicts with this access (`{_text(ctx, x, 50)}`)") for x in others)
            lines = ctx.lines_ref([x.range for x in others], r.b.range)
            n = len(others)
            d = replace(d, message=d.message.replace(
                " [block", f"; also conflicts with {n} other access{'es' if n > 1 else ''} ({lines})"
                           " [block", 1), related=tuple(d.related) + extra)
        yield d


def _who(ks, t: int) -> str:
    return ks.sim.ts.describe(t)


def _cl602(ctx, me, ks, r, kf):
    w = r.witness
    idx_b = _text(ctx, r.b, 50)
    if r.a is r.b:
        msg = (f"data race on shared `{r.var.name}`: {_who(ks, w.thread_a)} and {_who(ks, w.thread_b)} "
               f"both {'write' if r.a_write else 'access'} `{r.element}` here (`{idx_b}`) with no "
               "barrier between them")
        related = ()
    else:
        msg = (f"data race on shared `{r.var.name}`: {_who(ks, w.thread_b)} {_kind(r.b_write)} "
               f"`{r.element}` here (`{idx_b}`) while {_who(ks, w.thread_a)} {_kind(r.a_write)} it at "
               f"{ctx.line_ref(r.a.range, r.b.range)} (`{_text(ctx, r.a, 50)}`), with no __syncthreads() between them")
        related = (Related(ctx.analysis.shown_path(r.a.range.file), Location(r.a.range.line, r.a.range.column),
                           f"{_who(ks, w.thread_a)} {_kind(r.a_write)} `{r.element}` here"),)
    if r.witness.same_warp:
        msg += "; both threads are in the same warp, which is not guaranteed to run in lockstep (Volta and newer)"
    sev = None
    if not r.certain:
        msg += " (possible: whether both threads get there depends on data read at run time)"
        sev = "warning"
    msg += f" [block {'x'.join(map(str, ks.block))}" + (f"; {ks.block_note}" if ks.block_note else "") + "]"
    return ctx.diag(me, r.b.range, msg, kernel=kf.name, related=related, severity=sev)


@rule(
    "CL603", "race-across-loop-iterations", "error",
    "A shared-memory write at the top of a loop iteration races with reads at the end of the previous one",
    what="Finds races in the barrier interval that wraps around a loop's back edge: the loop "
         "contains barriers, but none after the last use of a shared buffer, so the write at the "
         "start of iteration i+1 by one thread meets the reads of iteration i by another (the "
         "missing trailing `__syncthreads()` of a tiled loop).",
    why="A fast thread starts the next iteration and overwrites the tile while slower threads are "
        "still computing with the previous one: results are wrong intermittently, depending on "
        "scheduling (seed exercise 5.3, the second barrier of the tiled matrix product).",
    example="""
for (int ph = 0; ph < n / TILE; ++ph) {
    Ms[ty][tx] = M[row * n + ph * TILE + tx];   // iteration ph+1 overwrites ...
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
        v += Ms[ty][k] * Ns[k][tx];               // ... what iteration ph still reads
    // missing: __syncthreads();
}""",
    how_to_fix="Add `__syncthreads()` at the end of the loop body (after the last read of the "
               "shared data), or double-buffer the tile.",
)
def loop_race(ctx: RuleContext):
    me = RULES["CL603"]
    seen = set()
    for kf in ctx.kernels:
        ks = kf.sync
        if ks is None:
            continue
        plain = {(id(r.a), id(r.b)) for r in ks.races if r.back_edge is None and not r.warp_confined}
        for r in ks.races:
            if r.back_edge is None or (id(r.a), id(r.b)) in plain or (id(r.b), id(r.a)) in plain:
                continue
            if not (ctx.in_file(r.b.range, no_file=True) and ctx.in_file(r.a.range, no_file=True)):
                continue
            w = r.witness
            later_node, later_write, later_t = (r.b, r.b_write, w.thread_b) if r.later == "b" else \
                (r.a, r.a_write, w.thread_a)
            early_node, early_write, early_t = (r.a, r.a_write, w.thread_a) if r.later == "b" else \
                (r.b, r.b_write, w.thread_b)
            lp = r.back_edge
            msg = (f"race across iterations of the loop at line {lp.range.line}: {_who(ks, later_t)} "
                   f"{_kind(later_write)} shared `{r.element}` here (`{_text(ctx, later_node, 50)}`) in "
                   f"iteration i+1 while {_who(ks, early_t)} may still {'write' if early_write else 'read'} "
                   f"it at line {early_node.range.line} in iteration i: no barrier between the end of "
                   f"the loop body and this access")
            sev = None
            if not r.certain:
                msg += " (possible: depends on data read at run time)"
                sev = "warning"
            related = (Related(ctx.analysis.shown_path(early_node.range.file), Location(early_node.range.line, early_node.range.column),
                               f"{_who(ks, early_t)} {_kind(early_write)} `{r.element}` here in iteration i"),)
            key = (later_node.range.line, later_node.range.column, msg)
            if key in seen:
                continue
            seen.add(key)
            yield ctx.diag(me, later_node.range, msg, kernel=kf.name, related=related, severity=sev)


# ---------------------------------------------------------------------- CL604

@rule(
    "CL604", "warp-divergence", "info",
    "A branch splits the threads of many warps in an interleaved pattern",
    what="Runs the kernel over the launch (every block when the grid is known and small, else a "
         "sample of blocks) and, for every `if`, counts the warps in which some active threads take "
         "the branch and others do not. It reports a branch whose condition interleaves taken and "
         "not-taken lanes inside a warp (`threadIdx.x % 2 == 0`, `tx < 8` in a 16x16 block) when at "
         "least `min-fraction` of the warp executions diverge and, in a diverging warp, at least "
         "`min-minority` of the active lanes (4 of 32) are on the smaller side: a test that singles "
         "out a leader (`lane == 0`) only serializes the leader's own work and is not reported. "
         "A boundary check such as `i < n` "
         "splits only the warp(s) straddling `n` (2,000 elements in 512-thread blocks: one warp of "
         "64); the count is available as a fact, but such a branch is not reported.",
    why="A warp executes both sides of a divergent branch one after the other with part of its lanes "
        "masked off, so the branch costs the sum of both paths and leaves lanes idle.",
    example="""
if (threadIdx.x % 2 == 0)     // every warp diverges: even lanes, then odd lanes
    a[i] = f(a[i]);
else
    a[i] = g(a[i]);""",
    how_to_fix="Map the work so that the condition is uniform per warp (e.g. `(threadIdx.x / 32) % 2`), "
               "or index the data so that the active threads are contiguous (the sequential-addressing "
               "reduction instead of `tid % (2*s) == 0`).",
    options={"min-fraction": 0.25, "min-minority": 0.125},
)
def warp_divergence_rule(ctx: RuleContext):
    me = RULES["CL604"]
    thr = float(ctx.option(me, "min-fraction") or 0.25)
    min_side = float(ctx.option(me, "min-minority") or 0.125)
    for kf in ctx.kernels:
        ks = kf.sync
        if ks is None:
            continue
        if kf.launch.source == "default" and _uses_dims(kf.function):
            continue  # a 2-D/3-D kernel without a known block shape: counts would be made up
        div = ks.divergence
        for ws in sorted(div.branches.values(), key=lambda w: w.stmt.range.line):
            if ws.block_uniform or not ws.warps_divergent or not ws.interleaved:
                continue
            if ws.fraction < thr or not ctx.in_file(ws.stmt.cond.range, no_file=True):
                continue
            if ws.minority < min_side:
                continue  # a few lanes per warp singled out (a leader): their work, not waste
            if _predicable(ws.stmt):
                continue  # compiled to predicated instructions/selects: no divergent paths
            cond = _text(ctx, ws.stmt.cond)
            lc = kf.launch
            blk = tuple(lc.block)  # the block warp_divergence ran (not the race run's)
            scope = (f"for the launch <<<{'x'.join(map(str, lc.grid))}, {'x'.join(map(str, blk))}>>>"
                     if ws.scope == "launch" and lc.grid else f"in a block of {'x'.join(map(str, blk))} threads")
            if lc.source == "default":  # the counts hold for this block only: say it is a guess
                scope += f" (assumed: {default_reason(lc)})"
            approx = "" if ws.exact else (" (sampled blocks)" if not div.whole_grid and ws.scope == "launch" else "")
            msg = (f"condition `{cond}` splits the threads of {ws.warps_divergent} of the "
                   f"{ws.warps_executing} warp executions that reach it {scope}{approx}; taken and "
                   f"not-taken lanes are interleaved, so each such warp runs both paths")
            if ws.executions > 1:
                msg += f" ({ws.executions} executions of the branch counted)"
            if ws.example_lanes and ws.example_lanes[0] is not None and ws.example_lanes[1] is not None:
                msg += (f"; e.g. warp {ws.example_warp}: lane {ws.example_lanes[0]} takes it, "
                        f"lane {ws.example_lanes[1]} does not")
            yield ctx.diag(me, ws.stmt.cond.range, msg, kernel=kf.name)


def _uses_dims(fn: ir.Function) -> bool:
    return uses_thread_dims(fn, ("y", "z"))


def _predicable(s: ir.If, budget: Optional[list] = None) -> bool:
    """Whether both sides of ``s`` are a few register assignments (no memory access, call,
    loop, barrier or exit): the compiler turns such a branch into predicated instructions or
    selects, and the warp does not diverge."""
    budget = budget if budget is not None else [4]
    for blk in (s.then, s.otherwise):
        if blk is None:
            continue
        for st in blk.stmts:
            if isinstance(st, ir.Block):
                if not _predicable(ir.If(st.range, s.cond, st, None), budget):
                    return False
                continue
            if isinstance(st, ir.If):
                if not _predicable(st, budget):
                    return False
                continue
            if not isinstance(st, (ir.ExprStmt, ir.DeclStmt)):
                return False
            budget[0] -= 1
            if budget[0] < 0:
                return False
            for e in st.exprs():
                for x in e.walk():
                    if isinstance(x, (ir.Call, ir.LaunchExpr, ir.Unknown)):
                        return False
                    if isinstance(x, ir.UnaryOp) and x.op == "*":
                        return False
                    if isinstance(x, ir.Member) and x.arrow:
                        return False
                    if isinstance(x, ir.Index):
                        base = x.base
                        while isinstance(base, (ir.Index, ir.Cast)):
                            base = base.base if isinstance(base, ir.Index) else base.operand
                        if not (isinstance(base, ir.VarRef) and base.var.storage == "auto"
                                and base.var.type.kind == "array"):
                            return False
                    if isinstance(x, ir.VarRef) and x.var.storage in ("shared", "extern_shared",
                                                                      "device", "managed"):
                        return False
    return True


# ---------------------------------------------------------------------- CL605

@rule(
    "CL605", "constant-memory-write", "error",
    "Device code writes to a __constant__ variable",
    what="Finds assignments, increments and atomics in kernels and device functions whose target is "
         "a `__constant__` variable.",
    why="Constant memory is read-only for device code; it is written from the host with "
        "`cudaMemcpyToSymbol`. A store from a kernel is rejected by nvcc or, through a cast pointer, "
        "is undefined behaviour (the constant cache is not coherent with such writes).",
    example="""
__constant__ float coeff[16];
__global__ void k() { coeff[threadIdx.x] = 0.0f; }""",
    how_to_fix="Fill the table from the host with `cudaMemcpyToSymbol(coeff, host, sizeof coeff)`, "
               "or keep writable data in global (`__device__`) or shared memory.",
)
def constant_write(ctx: RuleContext):
    me = RULES["CL605"]
    tu = ctx.analysis.tu
    if tu is None:
        return
    seen = set()
    for fn in tu.functions:
        if fn.kind not in ("global", "device", "host_device") or fn.body is None:
            continue
        if fn.kind == "host_device":
            continue  # may legitimately be host code
        for e in fn.expressions():
            target = None
            if isinstance(e, ir.Assign):
                target = e.target
            elif isinstance(e, ir.UnaryOp) and e.op in ("pre++", "pre--", "post++", "post--"):
                target = e.operand
            elif isinstance(e, ir.Call) and (e.callee.startswith("atomic") or e.callee.startswith("__atomic")) \
                    and e.args:
                a = e.args[0]
                while isinstance(a, ir.Cast):
                    a = a.operand
                if isinstance(a, ir.UnaryOp) and a.op == "&":
                    target = a.operand
            if target is None:
                continue
            v = _root_var(target)
            if v is None or v.storage != "constant":
                continue
            key = (e.range.line, e.range.column)
            if key in seen or not ctx.in_file(e.range, no_file=True):
                continue
            seen.add(key)
            where = ctx.line_ref(v.range, e.range)
            yield ctx.diag(me, e.range,
                           f"device code writes to `__constant__` variable `{v.name}` (declared at "
                           f"{where}); constant memory is read-only on the device — write it from "
                           f"the host with cudaMemcpyToSymbol", kernel=fn.display_name if fn.is_kernel else None)


def _root_var(e: ir.Expr) -> Optional[ir.Variable]:
    """The variable whose own storage the lvalue ``e`` names, or None when the store goes through
    a pointer value read from memory.

    ``c.field``, ``c[i]`` and ``c.arr[i]`` name part of ``c`` itself. ``c.ptr[i]``, ``c->f`` and
    ``gp[i]`` (``gp`` a pointer) store where the loaded pointer points, not into ``c``: a
    ``__constant__`` struct holding device pointers is the usual way to pass them to a kernel.
    A pointer made from the object's own address (``((float*)c)[i]``, an array decaying) still
    names ``c``."""
    while True:
        if isinstance(e, ir.Cast):
            e = e.operand
        elif isinstance(e, ir.Member):
            if e.arrow and not _addresses_object(e.base):
                return None
            e = e.base
        elif isinstance(e, ir.Index):
            base = e.base
            if base.type.kind == "pointer" and not _addresses_object(base):
                return None
            e = base
        elif isinstance(e, ir.UnaryOp) and e.op == "&":
            e = e.operand
        else:
            break
    if isinstance(e, ir.VarRef):
        return e.var
    return None


def _addresses_object(e: ir.Expr) -> bool:
    """True when the pointer-typed ``e`` is an object's own address (an array converted or cast
    to a pointer) rather than a pointer value stored in memory."""
    while isinstance(e, ir.Cast):
        e = e.operand
        if e.type.kind == "array":
            return True
    return isinstance(e, ir.UnaryOp) and e.op == "&"
