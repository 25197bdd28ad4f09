"""CL4xx: occupancy and launch resources (registers, shared memory, block size)."""
from __future__ import annotations

from typing import Optional

from ..analyzer import ir
from .context import RuleContext
from .registry import RULES, rule

_KNOWN_SOURCES = ("command-line", "launch-site", "launch-bounds")


@rule(
    "CL401", "low-occupancy", "warning",
    "Theoretical occupancy of a kernel's launch is below the threshold",
    what="Computes the kernel's theoretical occupancy (resident warps per SM over the maximum) "
         "for its launch configuration with NVIDIA's algorithm, from the registers ptxas "
         "reports (or an estimate, said so) and the kernel's shared memory, and reports it when it "
         "is below `min_occupancy` (50 % by default). The message names the limiting resource "
         "and the change that reaches the next step, e.g. \"≤ 32 registers per thread "
         "(`__launch_bounds__` or `-maxrregcount`) fits 2 more blocks\". Only launches whose "
         "configuration is known (a launch site in the file, `--block`, or `__launch_bounds__`) "
         "are checked, never the 256-thread default guess.",
    why="Few resident warps leave the SM little to switch to while warps wait on memory, so "
        "global-memory latency is exposed. Registers and shared memory are allocated per block "
        "from a fixed per-SM budget: a kernel that takes a little too much of either loses a "
        "whole block (seed section 5.5: 'memory is a limiting factor to parallelism').",
    example="""
__global__ void heavy(const float* in, float* out) {
    float acc[120];                 // 127 registers per thread
    // ...
}
// heavy<<<n / 256, 256>>>(in, out);  -> 2 blocks per SM, 25 % occupancy on sm_90""",
    how_to_fix="Do what the message suggests for the limiting resource: cap registers with "
               "`__launch_bounds__(threads, minBlocks)` or `-maxrregcount` (watch for spills), "
               "use smaller shared-memory tiles (or fewer stages), or change the block size. "
               "Occupancy is a means, not a goal: a kernel with enough instruction-level "
               "parallelism can run well below 50 %; lower `min_occupancy` or ignore the rule "
               "for such kernels.",
    options={"min_occupancy": 0.5},
)
def low_occupancy(ctx: RuleContext):
    me = RULES["CL401"]
    threshold = _fraction(ctx.option(me, "min_occupancy"), 0.5)
    for k in ctx.kernels:
        occ = k.occupancy
        res = k.resources
        if occ is None or res is None or occ.launch_source not in _KNOWN_SOURCES:
            continue
        r = occ.result
        if r.can_launch and r.occupancy < threshold:
            where = _launch_where(k)
            msg = _low_message(k.name, r, res, occ, threshold, where)
            yield ctx.diag(me, _kernel_range(ctx, k.function), msg, kernel=k.name,
                           severity="info" if res.is_estimate else None)
        for so in occ.other_sites:
            o = so.result
            if o.can_launch and o.occupancy < threshold and ctx.in_file(so.site.range):
                steps = _steps_for(ctx, o, res)
                msg = _low_message(k.name, o, res, None, threshold, "", steps)
                yield ctx.diag(me, so.site.range, msg, kernel=k.name,
                               severity="info" if res.is_estimate else None)


@rule(
    "CL402", "block-size-not-warp-multiple", "warning",
    "Block size at a launch site is not a multiple of the warp size",
    what="Reports a launch site whose block (the product of its dimensions, after constant "
         "propagation through the host code) is not a multiple of the warp size (32), and how "
         "many lanes of the last warp stay idle. A single block of one thread (`<<<1, 1>>>`, "
         "serial work run on the device on purpose) is not reported: rounding it up to 32 "
         "threads would only add idle lanes; unless the kernel's loop is a grid-stride loop of "
         "more iterations than a warp has lanes (known for the launch): written to spread over "
         "the grid, it then runs them all on one thread. Many blocks of one thread (`<<<N, 1>>>` with N "
         "known to be more than 1) are an info: each holds a warp with 31 idle lanes, and an SM "
         "holds at most its block limit of them (32 threads of its 2,048 on sm_90); the same N "
         "threads in blocks of 128 or 256 use 1/32 of the warps. A latency test that wants one "
         "thread per block on purpose can ignore it.",
    why="Threads are scheduled in warps of 32. A block of 100 threads occupies 4 warps, the "
        "last with only 4 active lanes: 28 of 128 lanes (22 %) do nothing, yet the block holds "
        "the warp slots, registers and scheduler time of 4 full warps.",
    example="""
__global__ void k(float* x);
k<<<n / 100, 100>>>(x);   // 4 warps per block, 28 lanes idle""",
    how_to_fix="Use a multiple of 32 threads per block (96 or 128 here) and guard the excess "
               "threads with a bounds check (`if (i < n)`).",
)
def block_not_warp_multiple(ctx: RuleContext):
    me = RULES["CL402"]
    tu = ctx.analysis.tu
    if tu is None:
        return
    ws = ctx.target.warp_size
    for site in tu.launches:
        if site.block is None or not ctx.in_file(site.range):
            continue
        threads = site.block[0] * site.block[1] * site.block[2]
        if threads % ws == 0 or threads > ctx.target.max_threads_per_block:
            continue  # an impossible block is CL403's
        if threads == 1:
            nblocks = site.grid[0] * site.grid[1] * site.grid[2] if site.grid else None
            if nblocks is None or nblocks <= 1:
                alone = _serial_grid_stride(ctx, site) if nblocks == 1 else None
                if alone is not None:
                    line, trips = alone
                    msg = (f"a single thread launching `{site.kernel}` (<<<1, 1>>>) runs the "
                           f"grid-stride loop at line {line} alone: {trips:,} iterations one after "
                           f"another on one lane of one SM, where the loop is written to spread them "
                           f"over the grid; launch enough threads to cover them (`<<<({trips} + 255) "
                           f"/ 256, 256>>>`, or a few blocks per SM)")
                    yield ctx.diag(me, site.range, msg, kernel=site.kernel)
                continue  # a deliberate single-thread launch (serial set-up work): no block size rounds it
            slots = ctx.target.max_blocks_per_sm
            msg = (f"{nblocks} blocks of one thread launching `{site.kernel}`: each block holds a whole "
                   f"warp with {ws - 1} of its {ws} lanes idle ({100.0 * (ws - 1) / ws:.1f}%), and an SM "
                   f"holds at most {slots} such blocks ({slots} threads); unless one thread per block is "
                   f"the point (a latency test), launch the {nblocks} threads in blocks of 128 or 256 "
                   f"(`<<<({nblocks} + 255) / 256, 256>>>` with a bounds check)")
            yield ctx.diag(me, site.range, msg, kernel=site.kernel, severity="info")
            continue
        warps = -(-threads // ws)
        idle = warps * ws - threads
        lo, hi = (threads // ws) * ws, warps * ws
        better = f"{hi}" if lo == 0 else f"{lo} or {hi}"
        dims = "x".join(map(str, site.block))
        msg = (f"block of {threads} threads ({dims}) launching `{site.kernel}` is not a multiple of "
               f"the warp size ({ws}): each block occupies {warps} warps and {idle} of its "
               f"{warps * ws} lanes ({100.0 * idle / (warps * ws):.1f}%) stay idle; use {better} threads")
        yield ctx.diag(me, site.range, msg, kernel=site.kernel)


def _serial_grid_stride(ctx: RuleContext, site) -> Optional[tuple]:
    """(line, trip count) when the kernel launched at ``site`` is analysed for that launch and
    its hot loop is a grid-stride loop of more iterations than a warp has lanes."""
    for k in ctx.kernels:
        c = k.cgma
        if c is None or k.launch.site is not site or not c.hot_loop_grid_stride:
            continue
        n = c.hot_loop_trips
        if n is not None and n > ctx.target.warp_size:
            return c.hot.line, n
    return None


@rule(
    "CL403", "launch-cannot-run", "error",
    "A launch configuration that cannot run on the target",
    what="Reports a launch whose block cannot be resident on one SM at all: more threads per "
         "block than the target allows (1024 from sm_20), more shared memory per block (static + "
         "dynamic + the driver's reservation) than the per-block maximum (opt-in included), or "
         "more registers per block (registers per thread × threads, allocated per warp) than "
         "the SM's register file holds per block.",
    why="The launch fails at run time with `cudaErrorInvalidConfiguration` or "
        "`cudaErrorLaunchOutOfResources` ('too many resources requested for launch'); without an "
        "error check after the launch the kernel silently does nothing.",
    example="""
__global__ void k(float* x);
k<<<n / 2048, 2048>>>(x);   // 2048 threads per block > 1024""",
    how_to_fix="Use at most 1024 threads per block, less shared memory per block (or the "
               "`cudaFuncAttributeMaxDynamicSharedMemorySize` opt-in up to the target's "
               "maximum), or fewer registers per thread (`__launch_bounds__(threads)` makes "
               "ptxas fit the block).",
)
def launch_cannot_run(ctx: RuleContext):
    me = RULES["CL403"]
    from ..analyzer.occupancy import compute_occupancy

    for k in ctx.kernels:
        occ = k.occupancy
        res = k.resources
        if occ is None or res is None or occ.launch_source not in _KNOWN_SOURCES:
            continue
        cases = []
        if not occ.result.can_launch:
            site = k.launch.site if occ.launch_source == "launch-site" else None
            cases.append((occ.result, site))
        for so in occ.other_sites:
            if not so.result.can_launch:
                cases.append((so.result, so.site))
        for r, site in cases:
            # 48 KB of *static* shared memory is CL103's (a compile error, whatever the launch)
            moved = compute_occupancy(ctx.target, r.threads_per_block, r.registers_per_thread, 0,
                                      r.static_smem + r.dynamic_smem)
            if moved.can_launch and r.static_smem > ctx.target.max_shared_memory_per_block:
                continue
            bad = [x for x in ("warps", "registers", "shared_memory") if r.block_limits.get(x) == 0]
            only_regs = bad == ["registers"]
            where = site.range if site is not None and ctx.in_file(site.range) else _kernel_range(ctx, k.function)
            how = {"command-line": "--block", "launch-bounds": "__launch_bounds__"}.get(occ.launch_source)
            origin = f" (from {how})" if how and site is None else ""
            msg = (f"launch of `{k.name}` with {r.threads_per_block} threads per block{origin} cannot run "
                   f"on {ctx.target.arch}: " + "; ".join(r.launch_errors))
            if only_regs and res.is_estimate:
                msg += f" (registers per thread are an estimate: {res.registers})"
            yield ctx.diag(me, where, msg, kernel=k.name,
                           severity="warning" if (only_regs and res.is_estimate) else None)


# --------------------------------------------------------------------------- helpers
def _fraction(v, default: float) -> float:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return default
    return f / 100.0 if f > 1.0 else f


def _kernel_range(ctx: RuleContext, fn: ir.Function) -> ir.SourceRange:
    """The first line of the kernel's definition (not the whole body)."""
    r = fn.range
    lines = ctx.analysis.lines_of(r.file)
    end = len(lines[r.line - 1]) + 1 if 1 <= r.line <= len(lines) else r.column + 1
    return ir.SourceRange(r.file, r.line, r.column, r.line, max(end, r.column + 1))


def _launch_where(k) -> str:
    lc = k.launch
    if lc.source == "launch-site" and lc.site is not None:
        return f"launched at line {lc.site.range.line}"
    if lc.source == "command-line":
        return "block from --block"
    if lc.source == "launch-bounds":
        return "block from __launch_bounds__"
    return ""


def _steps_for(ctx: RuleContext, r, res) -> list:
    from ..analyzer.occupancy import next_step

    try:
        return next_step(ctx.target, r.threads_per_block, r.registers_per_thread,
                         r.static_smem + r.dynamic_smem).steps
    except Exception:
        return []


def _pick_step(steps: list, limiters: list[str]):
    want = [{"registers": "registers", "shared_memory": "shared_memory", "warps": "threads",
             "blocks": "threads"}.get(x) for x in limiters]
    for w in want:
        for s in steps:
            if s.resource == w:
                return s
    return steps[0] if steps else None


def _limiter_text(r, res, lim: str) -> str:
    if lim == "registers":
        src = "estimated, no ptxas" if res.is_estimate else "ptxas"
        return f"registers ({r.registers_per_thread} per thread, {src})"
    if lim == "shared_memory":
        return (f"shared memory ({r.static_smem + r.dynamic_smem} B per block, "
                f"{r.smem_allocated_per_block} B allocated)")
    if lim == "warps":
        return f"warps per SM ({r.warps_per_block} per block)"
    if lim == "blocks":
        return "block slots per SM"
    if lim == "barriers":
        return "block barriers"
    return lim


def _low_message(name: str, r, res, occ, threshold: float, where: str, steps: Optional[list] = None) -> str:
    lims = " and ".join(_limiter_text(r, res, x) for x in r.limiters) or "nothing"
    msg = (f"`{name}`: {r.occupancy * 100:.1f}% theoretical occupancy on {r.arch} "
           f"({r.active_blocks_per_sm} blocks of {r.threads_per_block} threads = "
           f"{r.active_warps_per_sm} of {r.max_warps_per_sm} warps per SM"
           + (f", {where}" if where else "") + f"), below {threshold * 100:g}%; limited by {lims}")
    steps = steps if steps is not None else (occ.next_steps if occ is not None else [])
    st = _pick_step(steps, r.limiters)
    if st is not None:
        msg += f"; {st.message}"
    if res.is_estimate:
        msg += f" - registers per thread are an ESTIMATE ({res.registers}): no ptxas report"
    return msg


@rule(
    "CL404", "grid-short-of-guard", "warning",
    "The launch grid ends before the index range the kernel's guard admits",
    what="For a kernel launched with a grid and block known from its launch site, reads the "
         "guards of its memory accesses that bound a global thread index, `blockIdx.d * "
         "blockDim.d + threadIdx.d` (plus a constant), by a known number (`if (i < n)` with `n` "
         "from the launch): when the largest index the grid reaches, gridDim.d × blockDim.d - 1, "
         "is below the largest the guard lets through, the indices in between are never "
         "processed. The message gives both ranges and where the bound's value comes from. A "
         "shortfall of at most one block, or of a tenth of the range, is left alone (a loose "
         "guard on a launch moved on purpose, such as `k<<<blocks - 1, b>>>(data + b, n)`). "
         "Guards of loops (a grid-stride loop's `i < n`) are not read; a kernel launched at "
         "several sites with different configurations or arguments is not checked (each launch "
         "may cover its own part of the range).",
    why="The grid is usually computed from the same size as the guard (`ceil(n / block.x)` "
        "blocks); a grid computed from another size or another block extent (`ceil(N / "
        "DIM_X)` for the y extent of a 32x8 block, PolyBench-ACC's covariance) leaves the rest "
        "of the data untouched, and nothing fails at run time: the results are silently wrong.",
    example="""
__global__ void center(float* data, const float* mean, int n, int m) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < m) data[i * m + j] -= mean[j];
}
// block (32, 8), grid (m / 32, n / 32): rows i < n / 4 only""",
    how_to_fix="Size the grid from the guard's bound and the block extent of the same dimension "
               "(`(n + block.y - 1) / block.y`), or loop over the rest (a grid-stride loop).",
)
def grid_short_of_guard(ctx: RuleContext):
    me = RULES["CL404"]
    import sympy as sp

    from ..analyzer import symbolic as S
    from ..analyzer.requests import _guards

    for k in ctx.kernels:
        lc = k.launch
        tbl = k.accesses
        if lc.source != "launch-site" or not lc.grid or tbl is None or tbl.evaluator is None:
            continue
        if any("different configurations" in x for x in lc.assumptions):
            continue
        tu = getattr(ctx.analysis, "tu", None)
        if tu is not None:
            from ..analyzer.launch import site_matches
            sites = [s for s in tu.launches if site_matches(s, k.function)]
            # launched more than once with other arguments (an offset, another size): each
            # launch may cover its own part of the range
            if len({(s.block, s.grid, tuple(s.arg_values or ())) for s in sites}) > 1:
                continue
        ev = tbl.evaluator
        thread = {i.component: s for s, i in ev.syms.info.items() if i.kind == S.THREAD}
        block = {i.component: s for s, i in ev.syms.info.items() if i.kind == S.BLOCK}
        found: dict = {}  # dimension -> (largest index admitted, access)
        for a in tbl.accesses:
            e = a.event
            if e is None:
                continue
            for c in _guards(e):
                for c1 in (c.args if isinstance(c, sp.And) else (c,)):
                    hi = _admitted_max(ev.b.bind(c1), thread, block, lc)
                    if hi is None:
                        continue
                    d, top = hi
                    if d not in found or top > found[d][0]:
                        found[d] = (top, a)
        for d, (top, a) in sorted(found.items()):
            i = "xyz".index(d)
            reach = lc.grid[i] * lc.block[i] - 1
            # a tail of up to a block, or a tenth of the range, is more often a loose guard on
            # a launch moved on purpose (`uniform_add<<<blocks - 1, b>>>(data + b, ...)` of
            # cuda-samples' shfl_scan) than work left undone
            if reach >= top or top - reach <= lc.block[i] or (reach + 1) >= 0.9 * (top + 1):
                continue
            site = lc.site
            src = ""
            vals = [x for x in lc.assumptions if x.startswith("values from the callers")]
            if vals:
                src = f" [{vals[0]}]"
            nb = f"{lc.grid[i]} block{'s' if lc.grid[i] != 1 else ''}"
            msg = (f"the grid of `{k.name}` ends before its guard's range along {d}: "
                   f"{nb} of {lc.block[i]} threads (gridDim.{d} x blockDim.{d}) reach "
                   f"index {reach} of `blockIdx.{d} * blockDim.{d} + threadIdx.{d}`, the guard at "
                   f"line {a.line} admits up to {top}: indices {reach + 1}..{top} are never "
                   f"processed{src}")
            where = site.range if site is not None and ctx.in_file(site.range) else _kernel_range(ctx, k.function)
            yield ctx.diag(me, where, msg, kernel=k.name)


def _admitted_max(c, thread: dict, block: dict, lc) -> Optional[tuple]:
    """(dimension, largest index) that a guard ``c`` on ``blockIdx.d * blockDim.d +
    threadIdx.d + c0`` admits (``<`` or ``<=`` a number), or None for any other condition."""
    import sympy as sp

    if isinstance(c, (sp.StrictLessThan, sp.LessThan)):
        lhs, rhs, strict = c.lhs, c.rhs, isinstance(c, sp.StrictLessThan)
    elif isinstance(c, (sp.StrictGreaterThan, sp.GreaterThan)):
        lhs, rhs, strict = c.rhs, c.lhs, isinstance(c, sp.StrictGreaterThan)
    else:
        return None
    diff = sp.expand(lhs - rhs)
    for d in "xyz":
        t, b = thread.get(d), block.get(d)
        if t is None or b is None or not diff.has(t):
            continue
        n = lc.block["xyz".index(d)]
        if diff.coeff(t) != 1 or diff.coeff(b) != n:
            return None
        rest = sp.expand(diff - t - n * b)
        if not isinstance(rest, sp.Integer):
            return None
        # idx + rest < 0 (or <= 0): idx <= -rest - 1 (or -rest)
        return d, int(-rest - 1 if strict else -rest)
    return None
