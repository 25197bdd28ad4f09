"""CL606/CL607: races on global memory, within a block and between blocks.

Facts come from ``analyzer/global_races.py`` (the block simulator's run over two to four blocks
of the launch, its global-memory accesses paired by barrier and grid-barrier intervals).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..analyzer.global_races import who
from .barriers import _text
from .context import RuleContext
from .diagnostic import Location, Related
from .registry import RULES, rule

_EXAMPLE_606 = """
__global__ void shift(float* a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = 2.0f * a[i];
    a[i + 1] += 1.0f;     // thread i+1 writes a[i+1] while thread i updates it too
}"""

_EXAMPLE_607 = """
__global__ void partial_sums(const float* in, float* part) {
    __shared__ float s[256];
    s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
    __syncthreads();                     // orders this block only
    if (threadIdx.x == 0)
        part[0] += s[0];                 // thread 0 of every block updates part[0]
}"""

_COMMON = (
    "Runs the kernel's index arithmetic for every thread of two to four blocks of the launch "
    "side by side (block 0, its neighbours and the last block along each dimension the kernel "
    "reads blockIdx of) and pairs accesses to global memory -- pointer parameters, `__device__` "
    "variables, the byte ranges of `memcpy`/`memset`, and the element behind a pointer handed to "
    "a library function such as `curand(&state[i])` -- by different threads to the same bytes, at "
    "least one a write. Not reported: atomic against atomic, a plain load against an atomic, two "
    "stores of provably equal values, a load of a value the loading thread stored there itself "
    "when every other store there wrote that same value, and indices taken from "
    "`atomicAdd(&c, k)` with `k > 0` (unique per thread). An index that is not known before run "
    "time but equal in both threads (read from memory, a parameter without a known value, "
    "`atomicAdd(&c, 0)`) makes the race a warning, as does a thread-dependent condition on data. "
    "Not reported either: one place per block (a flag, a search result) that only threads "
    "selected by a branch on data touch with plain loads and stores (`found = 1`, "
    "`res[bid] = t` when `key[t] == k`): whether two threads are selected at once depends on the "
    "data; a read-modify-write there (`count[0]++`) is reported. "
    "A load and a store by two lanes of one warp (warp-synchronous code) are left alone. "
    "Distinct pointer parameters are assumed not to alias; reads through pointers to `const` "
    "are not tracked. The message names a witness: both threads (block and thread index) and "
    "the element.")


@rule(
    "CL606", "global-memory-race", "error",
    "Two threads of one block access the same global-memory element between two barriers, one writing",
    what=_COMMON + " This rule reports pairs of threads of the same block with no `__syncthreads()` "
                   "between the two accesses.",
    why="Nothing orders the two accesses: which store lands last, or whether the load sees the old "
        "or the new value, depends on scheduling and changes from run to run. Global memory is no "
        "different from shared memory here, and since Volta not even lanes of one warp run in "
        "lockstep.",
    example=_EXAMPLE_606,
    how_to_fix="Give each thread its own element (check the index arithmetic for an off-by-one), "
               "put `__syncthreads()` between the write and the other thread's access, or use an "
               "atomic (`atomicAdd`) when the threads accumulate into one element.",
)
def global_race_intra(ctx: RuleContext):
    yield from _report(ctx, RULES["CL606"], inter=False)


@rule(
    "CL607", "inter-block-global-race", "error",
    "Threads of two different blocks access the same global-memory element with no grid-wide barrier between",
    what=_COMMON + " This rule reports pairs of threads of two different blocks: `__syncthreads()` "
                   "orders the threads of one block only, so any two accesses of different blocks "
                   "race unless a grid-wide barrier (`cg::this_grid().sync()`) or the end of the "
                   "kernel separates them. Accesses a block makes after publishing its results with "
                   "`__threadfence()` and an atomic (the last-block reduction pattern) are not paired "
                   "with other blocks'. Two accesses through `volatile` (a spin-wait on the flag a "
                   "predecessor block publishes, as in a chained scan) are relaxed system-scope "
                   "operations in the PTX memory model and do not race; nor do the accesses under "
                   "`if (chunk == last)` of blocks that test different chunks against one grid-wide "
                   "value (only the owner of the last chunk goes in). The blocks run are a sample of a larger grid (block 0, its "
                   "neighbours, the last block; in a 1-D grid whose blocks access block 0's addresses "
                   "moved by a fixed stride, also the blocks at the distances where those meet, as in "
                   "`a[i + 512] = a[i]` with 256-thread blocks): a race between two other blocks can "
                   "go unseen, and the message lists the blocks that were checked (`explain` too, with "
                   "whether the check finished within its budget).",
    why="Blocks run in any order and concurrently; there is no barrier between blocks inside a "
        "kernel launch (short of a cooperative launch's grid sync). Two blocks writing one element, "
        "or one writing what another reads, give results that depend on scheduling.",
    example=_EXAMPLE_607,
    how_to_fix="Index by block (`part[blockIdx.x]`), accumulate with an atomic (`atomicAdd(&part[0], s[0])`), "
               "finish the reduction in a second kernel, or use a cooperative launch and "
               "`cg::this_grid().sync()` between the phases.",
)
def global_race_inter(ctx: RuleContext):
    yield from _report(ctx, RULES["CL607"], inter=True)


def _verb(write: bool, atomic: bool, kind: str, plural: bool = False) -> str:
    if atomic:
        return "update atomically" if plural else "updates atomically"
    if kind in ("library", "block-library"):
        return ("pass" if plural else "passes") + " a pointer (read and written by the call) to"
    v = ("write" if write else "read") + ("" if plural else "s")
    return f"{v} (through {kind})" if kind in ("memcpy", "memset") else v


def _report(ctx: RuleContext, me, inter: bool):
    by_loc: dict = {}
    for kf in ctx.kernels:
        ks = kf.sync
        if ks is None:
            continue
        sim = ks.sim
        if sim.glog is None:
            continue
        # a pair of accesses that races within a block is CL606's; across blocks it races too
        intra = {(id(r.a), id(r.b)) for r in sim.glog.races.values() if not r.inter}
        for r in sorted(sim.glog.races.values(), key=lambda r: (r.b.range.line, r.b.range.column,
                                                                 r.a.range.line, r.a.range.column)):
            if r.inter != inter or (inter and (id(r.a), id(r.b)) in intra):
                continue
            if not (ctx.in_file(r.b.range, no_file=True) and ctx.in_file(r.a.range, no_file=True)):
                continue
            by_loc.setdefault((r.b.range.line, r.b.range.column), []).append((r, ks, kf))
    for group in by_loc.values():
        group.sort(key=lambda g: not g[0].certain)
        r, ks, kf = group[0]
        d = _diag(ctx, me, ks, r, kf)
        others, seen = [], {(r.a.range.line, r.a.range.column)}
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
                " [", f"; also conflicts with {n} other access{'es' if n > 1 else ''} ({lines}) [", 1),
                related=tuple(d.related) + extra)
        yield d


def _diag(ctx, me, ks, r, kf):
    ts = r.ts or ks.sim.ts
    ta, tb = who(ts, r.thread_a), who(ts, r.thread_b)
    idx_b = _text(ctx, r.b, 50)
    elem = f"`{r.element}`" if r.element else f"the same element of `{r.var.name}`"
    sep = "no grid-wide barrier" if r.inter else "no __syncthreads()"
    if r.a is r.b:
        msg = (f"data race on global `{r.var.name}`: {ta} and {tb} both "
               f"{_verb(r.a_write, r.a_atomic, r.a_kind, True)} {elem} here (`{idx_b}`) with {sep} between them")
        related = ()
    else:
        msg = (f"data race on global `{r.var.name}`: {tb} {_verb(r.b_write, r.b_atomic, r.b_kind)} {elem} "
               f"here (`{idx_b}`) while {ta} {_verb(r.a_write, r.a_atomic, r.a_kind)} it at "
               f"{ctx.line_ref(r.a.range, r.b.range)} (`{_text(ctx, r.a, 50)}`), with {sep} between them")
        related = (Related(ctx.analysis.shown_path(r.a.range.file), Location(r.a.range.line, r.a.range.column),
                           f"{ta} {_verb(r.a_write, r.a_atomic, r.a_kind)} {elem} here"),)
    if r.iterations:
        line, ia, ib = r.iterations
        msg += f" (iterations {ia} and {ib} of the loop at line {line})"
    dim = _ignored_dimension(ks, r)
    if dim:
        n = ks.block["xyz".index(dim)]
        rest = "/".join(f"threadIdx.{d}" for d, e in zip("xyz", ks.block) if d != dim and e > 1)
        msg += (f"; the index does not depend on threadIdx.{dim}: the {n} threads along {dim} "
                f"(blockDim.{dim} = {n})" + (f" with the same {rest}" if rest else "") +
                f" all access that element (make the index use threadIdx.{dim}, or launch "
                f"blockDim.{dim} = 1)")
    sev = None
    if r.assumed:
        name = r.assumed.split(" = ")[0]
        msg += (f" (possible: this happens when `{r.assumed}`; no value of `{name}` is known "
                "here -- pass it with --param or from a launch)")
        sev = "warning"
    elif r.byte_off is None:
        msg += (" (possible: the index is not known before run time, but both threads compute it "
                "from the same values, so they hit the same element whatever it is)")
        sev = "warning"
    elif not r.certain:
        msg += " (possible: whether both threads get there depends on data read at run time)"
        sev = "warning"
    elif r.inter and ks.global_grid is None:
        msg += " (if the kernel is launched with more than one block: no launch grid is known)"
        sev = "warning"
    notes = [f"block {'x'.join(map(str, ks.block))}"]
    if r.inter:
        g = ks.global_grid
        notes.append(f"grid {'x'.join(map(str, g))}" if g else "grid not known")
        if ks.global_coverage()[0] == "sample":
            notes.append("blocks checked: " + ", ".join(
                "(" + ",".join(map(str, b)) + ")" for b in ks.sim.ts.blocks + ks.global_extra))
    if ks.block_note:
        notes.append(ks.block_note)
    if r.inter and ks.global_note:
        notes.append(ks.global_note)
    msg += " [" + "; ".join(notes) + "]"
    return ctx.diag(me, r.b.range, msg, kernel=kf.name, related=related, severity=sev)


#: executions of each racing access looked at for the dimension its index ignores
_DIM_RECORDS = 256


def _ignored_dimension(ks, r) -> str:
    """The one thread dimension (x, y or z) in which the race's two threads differ, when the
    element each of the two accesses touches is the same for every thread along it in all
    their recorded executions, in a block with another dimension of extent > 1 that the index
    follows: atax's ``tmp[i]`` with ``i = blockIdx.x * blockDim.x + threadIdx.x`` in a 32x8
    block. '' otherwise (another run's threads, an unknown index, a 1-D block, one element for
    the whole block)."""
    if r.inter or r.byte_off is None or r.ts is not None:
        return ""
    ts = ks.sim.ts
    a, b = r.thread_a, r.thread_b
    if ts.blk[a] != ts.blk[b]:
        return ""
    coords = (ts.tx, ts.ty, ts.tz)
    diff = [d for d, c in zip("xyz", coords) if c[a] != c[b]]
    if len(diff) != 1 or ks.block["xyz".index(diff[0])] < 2:
        return ""
    if not any(e > 1 for d, e in zip("xyz", ks.block) if d != diff[0]):
        return ""  # a 1-D block: "both write out[0]" says it all (a flag, a reduction's slot)
    i = "xyz".index(diff[0])
    bx, by, _ = ks.block
    checked = {id(r.a): 0, id(r.b): 0}
    varies = False
    for _var, node, th, keys, tokened, _w in getattr(ks.sim.glog, "probe_sig", None) or ():
        if id(node) not in checked or checked[id(node)] >= _DIM_RECORDS:
            continue
        th = np.asarray(th)
        keys = np.asarray(keys)
        if tokened is not None and np.any(np.asarray(tokened)):
            return ""
        if len(th) < 2:
            continue
        c = [coords[j][th] for j in range(3)]
        c[i] = np.zeros_like(c[i])
        group = ts.blk[th] * (bx * by * max(1, ks.block[2])) + c[0] + bx * (c[1] + by * c[2])
        _, first, inv = np.unique(group, return_index=True, return_inverse=True)
        if np.any(keys != keys[first][inv]):
            return ""
        varies |= len(np.unique(keys)) > 1
        checked[id(node)] += 1
    # the index follows the other thread dimensions (atax's i from threadIdx.x): one element
    # for the whole block is another matter
    return diff[0] if all(checked.values()) and varies else ""
