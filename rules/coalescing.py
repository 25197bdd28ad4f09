"""CL2xx: global-memory coalescing (uncoalesced, misaligned and data-dependent accesses).

The numbers come from ``analyzer/accesses.py`` (sectors per warp request, efficiency, the
pattern). A warning is only given when the pattern is known and the figures do not rest on
a guessed value; with a stated default (an unknown parameter) or sampled values the finding
is downgraded to info and says what was assumed. A data-dependent index is never called
uncoalesced: CL203 says it cannot be known.
"""
from __future__ import annotations

from typing import Optional

import sympy as sp

from ..analyzer import ir
from .context import RuleContext
from .messages import assumed, confident, kinds, num, pct
from .registry import RULES, rule


@rule(
    "CL201", "uncoalesced-global-access", "warning",
    "Global access whose warp touches many more sectors than a contiguous access would",
    what="Evaluates the address of each global load and store for the 32 lanes of a warp (for "
         "the kernel's block shape) and reports strided and column accesses: those whose warp "
         "request touches at least `min_ratio` times as many 32-byte sectors as the same lanes "
         "would reading consecutive elements. The message gives the sectors per request and the "
         "fraction of fetched bytes the kernel uses. When the thread's other accesses of the "
         "array fill the gap between lanes (one contiguous piece per thread written as several "
         "accesses, `x[4*t]` ... `x[4*t + 3]`), the sectors are used whole by the group: one "
         "info finding per group says how many requests one vector access would save.",
    why="Global memory is read in 32-byte sectors. When neighbouring lanes are far apart (a "
        "column of a row-major matrix, an array of structs, a stride), every lane costs its own "
        "sector and most of each fetched sector is thrown away: a column read of floats uses "
        "12.5 % of the bandwidth it consumes.",
    example="""
__global__ void column_sum(const float* a, float* out, int width) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    out[row] = a[row * width];   // lanes are `width` floats apart: 32 sectors per request
}""",
    how_to_fix="Make `threadIdx.x` index the fastest-varying (contiguous) dimension: swap the "
               "loop/thread roles, transpose through a shared-memory tile, or store structures of "
               "arrays instead of arrays of structures.",
    options={"min_ratio": 2.0, "warning_efficiency": 0.5},
)
def uncoalesced(ctx: RuleContext):
    me = RULES["CL201"]
    min_ratio = float(ctx.option(me, "min_ratio"))
    warn_eff = float(ctx.option(me, "warning_efficiency"))

    def pred(a):
        # a load the compiler serves from a register (issued False) makes no request to cost
        return (a.space == "global" and a.pattern == "strided" and a.sectors_per_request is not None
                and a.issued
                and a.contiguous_sectors and a.sectors_per_request >= min_ratio * a.contiguous_sectors - 1e-9)

    seen = set()
    for k, g in ctx.grouped_accesses(pred):
        g = [a for a in g if not _whole_vector_read(a, ctx.accesses(k))]
        if not g:
            continue
        a = max(g, key=lambda x: x.sectors_per_request)
        site = ctx.access_site(a)
        pieces = _split_pieces(a, ctx.accesses(k))
        loop_piece = _loop_pieces(a) if pieces is None else None
        if loop_piece is not None:
            msg = _split_message(ctx, a, [None] * (loop_piece[0] - 1), loop_line=loop_piece[1])
            key = (site.line, site.column, msg)
            if key not in seen:
                seen.add(key)
                yield ctx.diag(me, site, msg, kernel=k.name, severity="info")
            continue
        if pieces is not None:
            if pieces:  # the piece with the lowest address reports the group
                msg = _split_message(ctx, a, pieces)
                key = (site.line, site.column, msg)
                if key not in seen:
                    seen.add(key)
                    yield ctx.diag(me, site, msg, kernel=k.name, severity="info")
            continue
        rows = _rows(a) if a.stride == 1 else None
        if rows is not None:
            # adjacent lanes are adjacent elements, but the warp spans several rows of the
            # block (blockDim.x narrower than a warp): the rows are what is apart
            verb = {"load": "read", "store": "write"}.get(kinds(g), "access")
            stride = (f"the warp's lanes {verb} rows of {rows[0]} contiguous elements whose starts "
                      f"are {rows[1]} elements apart")
        elif a.stride is not None and getattr(a.cost, "stride_between_executing", False):
            stride = (f"the lanes that execute it change from iteration to iteration and, in the "
                      f"first sampled one, are {a.stride} elements apart")
        else:
            stride = f"neighbouring lanes are {a.stride} elements apart" if a.stride is not None else \
                "the lanes' addresses are scattered"
        unit = "sectors" if (a.cost is None or getattr(a.cost, "unit_bytes", 32) == 32) else "128-byte lines"
        msg = (f"uncoalesced global {kinds(g)} `{ctx.access_text(a)}`: {stride}; "
               f"{num(a.sectors_per_request)} {unit} per request where contiguous elements would "
               f"need {num(a.contiguous_sectors)}, {pct(a.efficiency)} of the fetched bytes used"
               f"{assumed(a)}")
        sev = "warning" if (confident(a) and a.efficiency is not None and a.efficiency <= warn_eff + 1e-9) else "info"
        key = (site.line, site.column, msg)
        if key in seen:
            continue
        seen.add(key)
        yield ctx.diag(me, site, msg, kernel=k.name, severity=sev)


def _rows(a) -> Optional[tuple[int, int]]:
    """(elements per row, elements between row starts) of the reported warp's first scenario
    when its lanes read runs of contiguous elements of equal length, evenly spaced (a block
    narrower than a warp: 4 x 2 threads over rows of a matrix); None otherwise."""
    e = a.element_bytes
    want = getattr(a.cost, "warp", None)
    ws = [w for w in (getattr(a, "warps", None) or []) if w.status == "ok" and w.scenarios]
    w = next((w for w in ws if w.warp == want), ws[0] if ws else None)
    if w is None or not e:
        return None
    addrs = w.scenarios[0][1]
    run = 1
    while run < len(addrs) and addrs[run] - addrs[run - 1] == e:
        run += 1
    if run >= len(addrs) or len(addrs) % run:
        return None
    gap = addrs[run] - addrs[0]
    if gap <= run * e or gap % e:
        return None
    for i in range(len(addrs)):
        if addrs[i] != addrs[0] + (i // run) * gap + (i % run) * e:
            return None
    return run, gap // e


_COMPONENT = {"x": 0, "y": 1, "z": 2, "w": 3}


def _whole_vector_read(a, accesses) -> bool:
    """``p[i].x`` and ``p[i].y`` of a float2 (every component of one vector element) loaded in
    one stretch of code: the compiler reads the element with one 8- or 16-byte load, so the
    warp's request is contiguous (BlackScholes' ``d_StockPrice[opt].x`` ... ``.y``). Needs the
    loads of all the components at the same address, under the same conditions, in the same
    loop iteration and barrier interval, with no global store in between."""
    ev = getattr(a, "event", None)
    if ev is None or a.kind != "load" or a.atomic or not a.stride or not a.element_bytes:
        return False
    node = ev.node
    while isinstance(node, ir.Cast):
        node = node.operand
    if not isinstance(node, ir.Member) or node.member not in _COMPONENT:
        return False
    vt = node.base.type
    if vt.kind != "vector" or vt.lanes not in (2, 4) or vt.lanes != a.stride or \
            vt.size != a.stride * a.element_bytes:
        return False  # float3 & co. (4-byte aligned) are read one component at a time
    c = _COMPONENT[node.member]
    ptr = ev.pointer
    want = {(j - c) * a.element_bytes for j in range(vt.lanes)} - {0}
    found: dict = {}
    for b in accesses:
        eb = getattr(b, "event", None)
        if b is a or eb is None or b.space != "global" or b.kind != "load" or b.atomic:
            continue
        if eb.pointer.base is not ptr.base or b.element_bytes != a.element_bytes or \
                eb.function is not ev.function or eb.epoch != ev.epoch or \
                eb.loops != ev.loops or eb.path != ev.path:
            continue
        d = _integer_difference(eb.pointer.offset, ptr.offset)
        if d in want:
            found[d] = eb.seq
    if set(found) != want:
        return False
    lo, hi = min([ev.seq] + list(found.values())), max([ev.seq] + list(found.values()))
    return not any(getattr(b, "event", None) is not None and b.space == "global" and
                   b.kind == "store" and lo < b.event.seq < hi for b in accesses)


def _same_stretch(a, b) -> bool:
    """``b`` is a plain access of the same kind as ``a`` through the same pointer, with the same
    element size, in the same function, barrier interval, loop iteration and conditions."""
    ev, eb = getattr(a, "event", None), getattr(b, "event", None)
    if b is a or ev is None or eb is None or b.space != a.space or b.kind != a.kind or b.atomic:
        return False
    return (eb.pointer.base is ev.pointer.base and b.element_bytes == a.element_bytes and
            eb.function is ev.function and eb.epoch == ev.epoch and eb.loops == ev.loops and
            (eb.path == ev.path or _shifted_guards(ev.path, eb.path)))


def _shifted_guards(pa: tuple, pb: tuple) -> bool:
    """The two paths differ only in bounds guards that are the same comparison shifted by a
    constant (``idx + 0 < N`` and ``idx + 2 < N``, one guard per piece of a vector): they
    select the same threads everywhere but at the array's end."""
    da, db = [c for c in pa if c not in pb], [c for c in pb if c not in pa]
    if len(da) != len(db):
        return False
    for c in db:
        if not isinstance(c, sp.core.relational.Relational) or not any(
                type(o) is type(c) and _differ_by_integer(c.lhs - c.rhs, o.lhs - o.rhs) for o in da):
            return False
    return True


def _differ_by_integer(a, b) -> bool:
    """``a - b`` is an integer."""
    return _integer_difference(a, b) is not None


def _integer_difference(a, b) -> Optional[int]:
    """``a - b`` when it is an integer: sympy's own collection of like terms, then an expansion
    of small expressions (``4*(t+1) - 4*t``). Not sp.simplify: on guards holding loaded values
    it took 6 s a call (cuda-samples: 48 of a 47 s cold run)."""
    d = a - b
    if not d.is_Integer:
        if sp.count_ops(d) > 40:
            return None
        d = sp.expand(d)
    return int(d) if d.is_Integer else None


def _split_pieces(a, accesses):
    """One contiguous piece per thread written as several accesses (LeetCUDA's f16x8 kernels:
    ``HALF2(x[idx + 0])`` ... ``HALF2(x[idx + 6])`` with ``idx = 8 * tid``; ``out[4*t]`` ...
    ``out[4*t + 3]``): the lanes are ``stride`` elements apart, and the other accesses of the
    same thread fill the gap, element by element. Each request then touches ``stride`` times
    the sectors it uses, but the requests together use every byte of those sectors (the later
    loads hit L1; L2 merges the partial stores): the memory traffic is not wasted.

    Returns None when ``a`` is not such a piece; else the other pieces as (byte offset from
    ``a``, access) when ``a`` has the lowest address of the group, or [] for the others."""
    ev, e, stride = getattr(a, "event", None), a.element_bytes, a.stride
    if ev is None or a.atomic or not e or not isinstance(stride, int) or stride < 2:
        return None
    node = ev.node
    while isinstance(node, ir.Cast):
        node = node.operand
    if isinstance(node, ir.Member):
        return None  # fields of an array of structures: CL201's own case (_whole_vector_read)
    span = stride * e
    found: dict = {}
    for b in accesses:
        if b.stride != stride or not _same_stretch(a, b):
            continue
        d = _integer_difference(b.event.pointer.offset, ev.pointer.offset)
        if d is not None and 0 < abs(d) < span and d % e == 0:
            found.setdefault(d, b)
    if len(found) < stride - 1:
        # a piece needs `stride` accesses: with fewer, none is covered (and the search below,
        # quadratic in `stride`, took 49 s on im2col.cu's 1024 * 1024-element strides)
        return None
    for start in range(0, -span, -e):  # the piece [start, start + span) must be covered
        offs = [start + j * e for j in range(stride)]
        if all(o == 0 or o in found for o in offs):
            group = [a] + [found[o] for o in offs if o != 0]
            if not _sectors_used_whole(group, e, [-start] + [o - start for o in offs if o != 0]):
                return None  # lanes not evenly spaced (rows of a tile): some bytes stay unused
            return [(o, found[o]) for o in offs if o != 0] if start == 0 else []
    return None


def _loop_pieces(a) -> Optional[tuple[int, int]]:
    """One contiguous piece per thread read or written by a counted loop, one element per
    iteration (``for (i = 0; i < 4; i++) v[i] = in[4 * tid + i];``): the lanes are ``stride``
    elements apart and the loop's ``stride`` iterations step one element, so together they use
    every byte of the sectors each request touches, as :func:`_split_pieces`'s separate
    accesses do. Only a piece that one vector access could move (16 bytes at most): a longer
    one (each thread walking its own row of a matrix) spreads a warp over many sectors for
    many iterations, which L1 does not hold for all the warps of an SM: uncoalesced, as
    before. Returns (iterations, the loop's line), else None."""
    ev, e, stride = getattr(a, "event", None), a.element_bytes, a.stride
    if ev is None or a.atomic or not e or not isinstance(stride, int) or stride < 2 or stride * e > 16:
        return None
    node = ev.node
    while isinstance(node, ir.Cast):
        node = node.operand
    if isinstance(node, ir.Member):
        return None
    off = ev.pointer.offset
    if not isinstance(off, sp.Basic):
        return None
    for li in reversed(ev.loops or ()):
        it, trip = li.it, li.trip
        if it is None or not isinstance(trip, sp.Basic) or not trip.is_Integer or int(trip) != stride:
            continue
        if it not in off.free_symbols:
            continue
        step = sp.expand(off).coeff(it)
        if not (step.is_Integer and int(step) == e) or it in sp.expand(off - step * it).free_symbols:
            return None
        ws = [w for w in (getattr(a, "warps", None) or []) if w.status == "ok"]
        if not ws:
            return None
        for w in ws:
            if w.scenario_lanes is not None or len(w.scenarios) != stride:
                return None
            sc = sorted((addrs for _, addrs in w.scenarios), key=lambda x: x[0] if x else 0)
            if any(len(x) != len(sc[0]) or any(q - p != k * e for p, q in zip(sc[0], x))
                   for k, x in enumerate(sc)):
                return None  # not the iterations one element apart (another unknown spreads it)
            used = set()
            for x in sc:
                for addr in x:
                    used.update(range(addr, addr + e))
            if len(used) != 32 * len({b // 32 for b in used}):
                return None
        return stride, li.loop.range.line
    return None


def _sectors_used_whole(group, e: int, offs: list) -> bool:
    """Every byte of every 32-byte sector the group's requests touch is read or written by one
    of them, in each warp evaluated for all of them. ``offs``: each access's byte offset from
    the group's lowest one (the same pointer and index but for a constant).

    With one address scenario per warp, each access's own addresses are taken. With several
    (unknown block indices or sizes sampled: ``averaged over 8 sampled values``), the k-th
    scenarios of two accesses may be normalised to different bases, so the group's addresses
    in each scenario are the first access's, shifted by the constant offsets."""
    per = []
    for b in group:
        ws = getattr(b, "warps", None)
        if not ws:
            return False
        per.append({w.warp: w for w in ws if w.status == "ok"})
    common = set(per[0]).intersection(*per[1:])
    if not common:
        return False
    base = offs[0]
    for n in common:
        ws = [m[n] for m in per]
        if all(len(w.scenarios) == 1 for w in ws):
            scenarios = [[(addr, 0) for w in ws for addr in w.scenarios[0][1]]]
        elif len({len(w.scenarios) for w in ws}) == 1 and len({len(w.lanes) for w in ws}) == 1:
            scenarios = [[(addr, o - base) for o in offs for addr in sc[1]] for sc in ws[0].scenarios]
        else:
            return False
        for sc in scenarios:
            used = set()
            for addr, o in sc:
                used.update(range(addr + o, addr + o + e))
            sectors = {x // 32 for x in used}
            if len(used) != 32 * len(sectors):
                return False
    return True


def _split_message(ctx, a, pieces, loop_line: Optional[int] = None) -> str:
    n = len(pieces) + 1
    span = a.stride * a.element_bytes
    verb = "reads" if a.kind == "load" else "writes"
    if loop_line is not None:  # one access, one element per iteration of a counted loop
        what = (f"global {a.kind} `{ctx.access_text(a)}` in the loop at line {loop_line}: each "
                f"thread {verb} {span} contiguous bytes as {n} separate {a.element_bytes}-byte "
                "accesses, one per iteration, so ")
    else:
        lines = sorted({a.line} | {b.line for _, b in pieces})
        where = f"line {lines[0]}" if len(lines) == 1 else f"lines {lines[0]}-{lines[-1]}"
        what = (f"global {a.kind} `{ctx.access_text(a)}` and {n - 1} more ({where}): each thread "
                f"{verb} {span} contiguous bytes as {n} separate {a.element_bytes}-byte accesses, so ")
    head = (f"{what}"
            f"each warp request touches {num(a.sectors_per_request)} sectors and uses "
            f"{pct(a.efficiency)} of them; together the {n} requests use every byte of those "
            f"sectors, so memory traffic is not wasted")
    if span < 8 or span & (span - 1):  # no vector type reads such a piece at once
        return (f"{head}, but each request moves {a.stride} times the sectors it uses through "
                f"L1{assumed(a)}")
    vec = min(16, span)
    wide = span // vec
    kind = {8: "float2/int2", 16: "float4/int4"}[vec]
    return (f"{head}, but {wide} {vec}-byte vector access{'es' if wide > 1 else ''} per thread "
            f"({kind}, where the address is {vec}-byte aligned) would issue {wide} "
            f"request{'s' if wide > 1 else ''} instead of {n}{assumed(a)}")


@rule(
    "CL202", "misaligned-global-access", "info",
    "Contiguous global access that starts off a sector boundary",
    what="Reports global accesses whose lanes read consecutive elements but whose warp request "
         "straddles one more sector (or line) than an aligned access would, e.g. `in[i + 1]` "
         "with a 32-aligned `i`: 5 sectors instead of 4.",
    why="Every extra sector is fetched for a few useful bytes; the warp's request is larger "
        "than needed. On sm_2x with L1 caching the penalty is a whole extra 128-byte line "
        "(50 % efficiency).",
    example="""
__global__ void shift(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i + 1];   // 5 sectors per request, 80 % efficiency
}""",
    how_to_fix="Offset the thread index rather than the data (start blocks on a 32-element "
               "boundary), pad rows to a multiple of 32 elements (cudaMallocPitch), or read the "
               "shifted element from a neighbouring lane with `__shfl_down_sync`.",
    options={"warning_ratio": 1.5},
)
def misaligned(ctx: RuleContext):
    me = RULES["CL202"]
    warn_ratio = float(ctx.option(me, "warning_ratio"))

    def pred(a):
        # Misaligned in every request: a sliding window (`x[i + t]` over t) that is aligned for
        # some t is the algorithm's shape, not a fixable offset.
        return (a.space == "global" and a.pattern == "misaligned" and a.sectors_per_request is not None
                and a.issued
                and a.contiguous_sectors and a.min_sectors is not None
                and a.min_sectors > a.contiguous_sectors + 1e-9)

    seen = set()
    for k, g in ctx.grouped_accesses(pred):
        a = max(g, key=lambda x: x.sectors_per_request)
        site = ctx.access_site(a)
        ratio = a.sectors_per_request / a.contiguous_sectors
        msg = (f"misaligned global {kinds(g)} `{ctx.access_text(a)}`: {num(a.sectors_per_request)} sectors "
               f"per request instead of {num(a.contiguous_sectors)} for aligned consecutive elements, "
               f"{pct(a.efficiency)} efficiency{assumed(a)}")
        sev = "warning" if (confident(a) and ratio >= warn_ratio - 1e-9) else "info"
        key = (site.line, site.column, msg)
        if key in seen:
            continue
        seen.add(key)
        yield ctx.diag(me, site, msg, kernel=k.name, severity=sev)


@rule(
    "CL203", "data-dependent-global-access", "info",
    "Global access whose index is read from memory: coalescing cannot be known",
    what="Reports global loads and stores whose address depends on a value read at run time "
         "(a gather `a[idx[i]]`, a pointer loaded from memory). Whether such an access "
         "coalesces depends on the data, so cudalint does not guess.",
    why="Indirect accesses are coalesced only if the indices happen to be close together for "
        "neighbouring lanes; with random indices every lane costs its own sector (12.5 % "
        "efficiency for floats).",
    example="""
__global__ void gather(const float* a, const int* idx, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[idx[i]];   // depends on the contents of idx
}""",
    how_to_fix="Nothing to fix if the indices are known to be clustered. Otherwise sort or "
               "bucket the indices so that neighbouring threads read neighbouring elements, or "
               "measure the sectors per request with Nsight Compute (`cudalint validate`).",
)
def data_dependent(ctx: RuleContext):
    me = RULES["CL203"]
    seen = set()
    for k, g in ctx.grouped_accesses(lambda a: a.space == "global" and a.pattern == "data-dependent"):
        a = g[0]
        site = ctx.access_site(a)
        why = a.why or "the index depends on a value read at run time"
        msg = (f"global {kinds(g)} `{ctx.access_text(a)}` is data-dependent: {why}; its coalescing "
               "cannot be determined statically")
        key = (site.line, site.column, msg)
        if key in seen:
            continue
        seen.add(key)
        yield ctx.diag(me, site, msg, kernel=k.name)
