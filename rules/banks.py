"""CL3xx: shared-memory bank conflicts and warp-synchronous shared-memory code."""
from __future__ import annotations

import re

from ..analyzer.array_uses import shape_dependent_uses
from ..analyzer.banks import padding_for, shared_cost
from .context import RuleContext
from .diagnostic import Edit, Fix, Location, Related
from .messages import assumed, confident, kinds, num
from .registry import RULES, rule


@rule(
    "CL301", "shared-bank-conflict", "warning",
    "Shared-memory access whose lanes collide in the same bank (n-way conflict)",
    what="Evaluates each shared-memory access for the 32 lanes of a warp and counts the "
         "wavefronts the request needs: the largest number of distinct 4-byte words any one of "
         "the 32 banks must deliver (lanes reading the same word are served together; 8- and "
         "16-byte accesses are served in half- and quarter-warp passes). Reports accesses that "
         "need at least `min_ways` times the conflict-free number. For a 2-D tile it computes "
         "the padding of the last dimension that removes the conflict and offers it as a fix.",
    why="Bank conflicts serialise the request: a 32-way conflict (reading a column of a "
        "`float tile[32][32]`) takes 32 times as long as a conflict-free access.",
    example="""
__global__ void transpose(const float* in, float* out) {
    __shared__ float tile[32][32];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];  // 32-way
}""",
    how_to_fix="Pad the tile so that a column spreads over all banks (`float tile[32][33]`), "
               "change which thread index selects the row, or (for strided 1-D accesses) "
               "permute the indices (e.g. XOR swizzling).",
    options={"min_ways": 2.0, "warning_ways": 4.0},
)
def bank_conflict(ctx: RuleContext):
    me = RULES["CL301"]
    min_ways = float(ctx.option(me, "min_ways"))
    warn_ways = float(ctx.option(me, "warning_ways"))

    def pred(a):
        return (a.space == "shared" and a.ways is not None and a.pattern not in ("data-dependent", "unknown")
                and a.ways >= min_ways - 1e-9)

    seen = set()
    for k, g in ctx.grouped_accesses(pred):
        a = max(g, key=lambda x: x.ways)
        site = ctx.access_site(a)
        ways = a.ways
        if a.worst_ways is not None and a.worst_ways > ways + 1e-9:
            # the lanes that run it change with a loop's iteration: a mean over the requests
            msg = (f"{num(ways)}-way bank conflict on average ({num(a.worst_ways)}-way at worst): "
                   f"shared {kinds(g)} `{ctx.access_text(a)}` needs {num(a.wavefronts_per_request)} "
                   f"wavefronts per request on average over the iterations, in which the lanes "
                   f"that run it change ({num(a.min_wavefronts)} without conflicts){assumed(a)}")
        else:
            msg = (f"{num(ways)}-way bank conflict: shared {kinds(g)} `{ctx.access_text(a)}` needs "
                   f"{num(a.wavefronts_per_request)} wavefronts per request "
                   f"({num(a.min_wavefronts)} without conflicts){assumed(a)}")
        fix = None
        pad_info = _padding(ctx, k, a)
        if pad_info is not None:
            fix, new_decl = pad_info
            msg += f"; declaring the array `{new_decl}` removes it"
        sev = "warning" if (confident(a) and ways >= warn_ways - 1e-9) else "info"
        key = (site.line, site.column, msg)
        if key in seen:
            continue
        seen.add(key)
        yield ctx.diag(me, site, msg, kernel=k.name, fix=fix, severity=sev)


def _padding(ctx: RuleContext, k, a):
    var = a.variable
    if var is None or a.event is None or a.event.dims is None or var.type.kind != "array":
        return None
    extents = var.type.array_extents()
    if len(extents) < 2 or any(e is None for e in extents):
        return None
    tab = k.accesses
    ev = getattr(tab, "evaluator", None)
    target = getattr(tab, "target", None)
    if ev is None:
        return None
    same = [x.event for x in ctx.accesses(k) if x.variable is var and x.event is not None]
    banks = (target.shared_memory_banks if target else 32) or 32
    width = (target.bank_width_bytes if target else 4) or 4

    def cost_of(expr, path, elem_bytes):
        return shared_cost(ev.evaluate(expr, path), elem_bytes, banks, width)

    pad = padding_for(same, extents, cost_of, banks)
    if pad is None:
        return None
    edit = _extent_edit(ctx, var, pad)
    if edit is None:
        return None
    e, new_text = edit
    new_decl = var.name + "".join(f"[{x}]" for x in extents[:-1]) + f"[{new_text}]"
    # Safe only where nothing but element accesses sees the shape (ruff's applicability).
    users = [f for f in (ctx.analysis.tu.functions if var.file_scope else [k.function])
             if f.body is not None] if ctx.analysis.tu is not None else []
    why = shape_dependent_uses(var, users, ctx.analysis.lines_of(var.range.file),
                               var.range.file or ctx.analysis.path)
    if why:
        return Fix(f"pad `{var.name}` to {new_decl}", (e,), "unsafe",
                   "the array's shape is used beyond its elements: " + "; ".join(why)), new_decl
    return Fix(f"pad `{var.name}` to {new_decl}", (e,)), new_decl


def _extent_edit(ctx: RuleContext, var, pad: int):
    """An edit replacing the last extent in ``var``'s declaration by one ``pad`` larger."""
    r = var.range
    lines = ctx.analysis.lines_of(r.file)
    pat = re.compile(r"\b" + re.escape(var.name) + r"\s*((?:\[[^\[\]]*\]\s*)+)")
    for ln in range(max(r.line, 1), min(max(r.end_line, r.line), len(lines)) + 1):
        text = lines[ln - 1]
        m = pat.search(text)
        if not m:
            continue
        groups = list(re.finditer(r"\[([^\[\]]*)\]", m.group(1)))
        if not groups:
            return None
        last = groups[-1]
        start = m.start(1) + last.start(1)
        end = m.start(1) + last.end(1)
        content = text[start:end]
        s = content.strip()
        if re.fullmatch(r"\d+[uU]?", s):
            new = str(int(s.rstrip("uU")) + pad)
        else:
            new = f"{s} + {pad}"
        col = len(text[:start].encode("utf-8")) + 1
        return Edit(Location(ln, col), Location(ln, col + len(content.encode("utf-8"))), new), new
    return None


@rule(
    "CL302", "warp-synchronous-shared-memory", "warning",
    "Shared-memory code confined to one warp that relies on lockstep execution",
    what="Finds code that only the threads of one warp execute (e.g. `if (tid < 32)`, the last "
         "warp of a tree reduction) and that reads a shared-memory word another lane of that warp "
         "wrote earlier in the same code, with no `__syncwarp()` in between: without `volatile` "
         "on any GPU, and with `volatile` too on sm_70 and newer (before Volta a warp ran in "
         "lockstep and `volatile` was the accepted form).",
    why="Threads of a warp are not guaranteed to execute in lockstep (independent thread "
        "scheduling since Volta), and without `volatile` the compiler may keep the shared value "
        "in a register: the reading lane can see a stale value. The classic unrolled "
        "last-warp reduction silently returns wrong sums.",
    example="""
if (tid < 32) {
    s[tid] += s[tid + 32];
    s[tid] += s[tid + 16];   // reads the value lane tid+16 wrote one line above
    s[tid] += s[tid + 8];
}""",
    how_to_fix="Put `__syncwarp()` between the steps (reading into a register first), or use "
               "warp shuffles (`__shfl_down_sync`) for the last 32 values; `volatile` alone only "
               "stops register caching and is not enough on sm_70 and newer.",
)
def warp_synchronous(ctx: RuleContext):
    me = RULES["CL302"]
    seen = set()
    for k in ctx.kernels:
        tab = k.accesses
        for h in getattr(tab, "hazards", []) or []:
            load, store = h.load, h.store
            r = load.node.range
            site = ctx.access_site(_Shim(load))
            key = (site.line, site.column)
            if key in seen:
                continue
            seen.add(key)
            arr = load.array
            txt = ctx.source_text(r) if r.line == r.end_line else f"{arr}[...]"
            where = "in the previous iteration" if h.across_iterations else f"at line {store.node.range.line}"
            if getattr(h, "volatile", False):
                msg = (f"warp-synchronous shared-memory code: `{txt or arr}` reads a word another "
                       f"lane of warp {h.warp} wrote {where} with no __syncwarp() in between; "
                       f"`volatile` keeps the value out of registers but does not order the lanes: "
                       "since sm_70 (independent thread scheduling) a warp is not guaranteed to "
                       "execute in lockstep")
            else:
                msg = (f"warp-synchronous shared-memory code: `{txt or arr}` reads a word another lane "
                       f"of warp {h.warp} wrote {where} with no __syncwarp() in between and `{arr}` is "
                       "not volatile; this relies on the warp executing in lockstep")
            related = ()
            sr = store.node.range
            if sr.file and sr.line:
                related = (Related(ctx.analysis.shown_path(sr.file), Location(sr.line, max(sr.column, 1)),
                                   "the other lane's write"),)
            yield ctx.diag(me, site, msg, kernel=k.name, related=related)


class _Shim:
    """Adapts an AccessEvent to what RuleContext.access_site expects."""

    def __init__(self, ev):
        self.range = ev.node.range
        self.event = ev
