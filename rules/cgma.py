"""CL5xx: CGMA, roofline and tiling opportunities (seed sections 5.1, 5.3, 5.4).

Both rules read ``kf.cgma`` and ``kf.roofline`` (:mod:`cudalint.analyzer.cgma`).

CL501 is *info*, and only for kernels with a hot loop (the outermost loop that reads or writes
global memory) that does floating-point work and whose trip count grows with the problem (not a
compile-time constant, not a grid-stride loop): a kernel without such a loop (a vector add, a
copy, a transpose, a grid-stride saxpy, an 8-tap unrolled filter) is memory-bound by nature and
has nothing to reuse across iterations, so flagging it would be noise; its roofline is still
shown by ``cudalint explain``. Being memory-bound on a modern GPU
(an H100 needs 80 flops per 4-byte access to reach its peak) is a fact about the kernel, not
a defect, which is why the rule does not fail a check by default; raise its severity in the
configuration to make it one. CL502 is a *warning*: it names a concrete, fixable waste.
"""
from __future__ import annotations

import os

from ..analyzer.launch import default_reason
from ..analyzer.sync import uses_thread_dims
from .context import RuleContext
from .registry import RULES, rule


def _f(x, digits: int = 3) -> str:
    if x is None:
        return "?"
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    if v.is_integer():
        return f"{int(v):,}"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def _n(x, what: str) -> str:
    s = _f(x)
    plural = what + ("es" if what.endswith("s") else "s")
    return f"{s} {what if s == '1' else plural}"


def _has_work(c) -> bool:
    """A hot loop whose trip count grows with the problem and that does floating-point work."""
    if c.hot is None or c.hot_counts is None or not c.hot_loop_scales:
        return False
    from ..analyzer.flops import probe
    return probe(c.hot_counts.flops) > 0


@rule(
    "CL501", "memory-bound-kernel", "info",
    "Kernel's CGMA is below the device's balance point: memory bandwidth limits it",
    what="Computes the kernel's compute-to-global-memory-access ratio (CGMA: floating-point "
         "operations per global memory access, one thread) and compares it with the device's "
         "balance point, peak FLOPS / (DRAM bandwidth / bytes per word). Reports kernels whose "
         "hot loop (the outermost loop doing global accesses) does floating-point work and whose "
         "CGMA is below the balance point, with the GFLOPS the bandwidth allows against the "
         "peak. The device is `--device`, `--peak-gflops/--bandwidth-gbs`, or the preset for "
         "`--arch`. Only kernels whose work per thread grows with the problem are reported: the "
         "hot loop's trip count is not a compile-time constant and it is not a grid-stride loop. "
         "Element-wise kernels (no loop, a grid-stride loop, a short unrolled loop) are memory-"
         "bound by nature and are left to `cudalint explain`.",
    why="Each global access moves one word through DRAM; with CGMA c and bandwidth B the kernel "
        "can do at most c x B / word bytes flops per second. Below the balance point the "
        "arithmetic units wait for memory: a naive matrix product (CGMA 1) on a G80 (86.4 GB/s) "
        "is limited to 21.6 GFLOPS of its 367 (Kirk & Hwu, Programming Massively Parallel "
        "Processors, section 5.1). The bound assumes every access reaches DRAM: values that "
        "other threads or blocks read again and that L1 or L2 still hold cost no DRAM "
        "bandwidth, and a kernel can then run faster than the bound (the message says so).",
    example="""
__global__ void matmul(const float* M, const float* N, float* P, int w) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    for (int k = 0; k < w; ++k)              // 2 flops per 2 global loads: CGMA 1
        v += M[row * w + k] * N[k * w + col];
    P[row * w + col] = v;
}""",
    how_to_fix="Raise the CGMA: keep reused values in registers, and stage data that several "
               "threads of a block read into shared memory (tiling, see CL502): 16x16 tiles "
               "raise the matrix product's CGMA from 1 to 16. Use `cudalint explain` to see "
               "the counts and the roofline.",
)
def memory_bound_kernel(ctx: RuleContext):
    me = RULES["CL501"]
    for k in ctx.kernels:
        c = k.cgma
        rf = k.roofline
        if c is None or rf is None or rf.point is None or rf.point.bound != "memory":
            continue
        if not _has_work(c):
            continue
        p = rf.point
        hot, hc = c.hot, c.hot_counts
        per_iter = f"{_n(hc.flops, 'flop')} per {_n(hc.accesses, 'global access')}"
        hp = rf.hot_loop_point
        if hp is None or _close(hp.cgma, p.cgma):
            where = f"CGMA {_f(p.cgma)} ({per_iter} in each iteration of this loop)"
        else:
            # the roofline places the whole kernel; its other loops and statements move it away
            # from this loop's own ratio
            limit = ", its limit as the sizes grow" if "limit" in rf.cgma_source else ""
            where = (f"CGMA {_f(p.cgma)} (the whole kernel{limit}; this loop alone does {per_iter} "
                     f"in each iteration: {_f(hp.cgma)})")
        # The bound holds when every access reaches DRAM: SGEMM_CUDA's coalesced naive kernel
        # (CGMA 1, "at most 838 GFLOPS" on an H100) measured 6,344 GFLOPS, its reads of B and A
        # served by L1/L2. Say what the number assumes.
        msg = (f"kernel `{k.name}` is memory-bound on {p.device.name}: {where} is below the "
               f"balance point {_f(p.balance_cgma)}; at most {_f(p.attainable_gflops)} of "
               f"{_f(p.peak_gflops)} GFLOPS ({p.fraction_of_peak * 100:.1f}% of peak) with "
               f"{_f(p.bandwidth_gbs)} GB/s and {_f(p.word_bytes)}-byte words if every access "
               f"reaches DRAM (L1/L2 hits raise it)")
        where_r = hot.loop.range
        if not ctx.in_file(where_r):
            where_r = k.function.range  # the loop is in a device function of another file
            msg += f" (hot loop at {os.path.basename(hot.loop.range.file)}:{hot.loop.range.line})"
        yield ctx.diag(me, where_r, msg, kernel=k.name)


def _close(a, b) -> bool:
    """Whether the hot loop's CGMA and the kernel's are the same to a reader (within 5%: a
    tiled product's 16 against 15.9 once the final store counts)."""
    try:
        a, b = float(a), float(b)
    except (TypeError, ValueError):
        return False
    return abs(a - b) <= 0.05 * max(abs(a), abs(b))


def _has_flops(cgma) -> bool:
    """Whether a loop's CGMA says it does floating-point work (a loop without any has CGMA 0
    before and after tiling: quoting "0 to 0" would say nothing)."""
    try:
        return float(cgma) > 0
    except (TypeError, ValueError):
        return cgma is not None  # symbolic: the work depends on sizes


@rule(
    "CL502", "tiling-opportunity", "warning",
    "Global array re-read by the threads of a block inside a loop: a shared-memory tile would "
    "reuse it",
    what="Finds global arrays read inside a loop at an index that does not depend on one of the "
         "block's thread dimensions (`threadIdx.x`, `.y` or `.z`, of extent > 1) while it changes "
         "from one iteration to the next: all threads of a block along that dimension read the "
         "same element. Reports the array, the dimension, the reuse factor (the block's extent "
         "in that dimension) and the loop's CGMA with the array tiled and with every such array "
         "tiled. Arrays the kernel also writes, and reads done by only some threads (under "
         "`if (threadIdx.x == 0)`), are not reported.",
    why="Each of those threads fetches the element from global memory separately, so DRAM "
        "traffic is reuse-times what the block needs. Loading each element once per block into "
        "shared memory and reading it from there divides the array's global loads by the reuse "
        "factor (Kirk & Hwu, Programming Massively Parallel Processors, sections 5.3 and 5.4).",
    example="""
for (int k = 0; k < w; ++k)
    v += M[row * w + k]      // independent of threadIdx.x: blockDim.x threads read it
       * N[k * w + col];     // independent of threadIdx.y: blockDim.y threads read it""",
    how_to_fix="Tile the loop: each phase, the threads of the block cooperatively load one tile "
               "of the array into `__shared__` memory (one element each), `__syncthreads()`, "
               "compute from the tile, `__syncthreads()` again before the next phase (Kirk & "
               "Hwu, Figure 5.12). For an array every thread of the block reads at the same index, "
               "`__constant__` memory or a register is enough.",
)
def tiling_opportunity(ctx: RuleContext):
    me = RULES["CL502"]
    for k in ctx.kernels:
        c = k.cgma
        if c is None:
            continue
        block = k.launch.block
        if (k.launch.source == "default" and block[1] == block[2] == 1
                and uses_thread_dims(k.function, ("y", "z"))):
            # a 2-D/3-D kernel seen through the assumed 1-D block: threadIdx.y is 0 for every
            # thread, so an index that follows it looks shared by the whole block, and the
            # reuse along x (blockDim.x threads) is not known
            continue
        for t in c.tiling:
            dims = " or ".join(f"threadIdx.{d}" for d in t.dimensions)
            extents = " x ".join(f"blockDim.{d} = {block['xyz'.index(d)]}" for d in t.dimensions)
            r = t.access.node.range
            quoted = ctx.source_text(r) if r.line == r.end_line else ""
            subject = (f"`{quoted}`" if quoted else
                       f"`{t.array}[{t.index_text}]`" if t.index_text else f"`{t.array}`")
            everyone = t.reuse == block[0] * block[1] * block[2]
            who = (f"all {t.reuse} threads of a block ({extents})" if everyone else
                   f"the {t.reuse} threads of a block along {'/'.join(t.dimensions)} ({extents})")
            how = ("keeping it in `__constant__` memory or loading it once per block into shared "
                   "memory" if everyone else f"staging `{t.array}` in shared-memory tiles")
            msg = (f"{subject} does not depend on {dims}: {who} read the same element of "
                   f"`{t.array}` in each iteration of the loop at line {t.loop.line}; {how} "
                   f"would cut its global loads {t.reuse}x")
            flops = _has_flops(t.cgma_now)
            if flops:
                msg += f" and raise the loop's CGMA from {_f(t.cgma_now)} to {_f(t.cgma_if_tiled)}"
            if flops and len(t.arrays_all_tiled) > 1:
                msg += (f" ({_f(t.cgma_all_tiled)} with "
                        f"{', '.join('`' + a + '`' for a in t.arrays_all_tiled)} tiled)")
            if k.launch.source == "default":
                msg += f"; block size assumed ({default_reason(k.launch)})"
            yield ctx.diag(me, t.access.node.range, msg, kernel=k.name)
