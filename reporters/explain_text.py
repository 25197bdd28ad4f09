"""Plain-text rendering of per-kernel facts for ``explain``: the access table, the CGMA facts
and the roofline placement. :func:`renderer` picks the function for a fact object (facts that
render themselves, e.g. resources and occupancy, keep their ``render_text``)."""
from __future__ import annotations

import math

from ..analyzer.accesses import AccessTable, PlainText
from ..analyzer.cgma import CgmaFacts, RooflineFacts
from ..analyzer.counters import PredictedCounters
from ..analyzer.flops import to_number
from ..analyzer.read_only_path import MAY_CHOOSE


def render_accesses(table) -> str:
    """The kernel's access table (:class:`AccessTable`), one row per access, then the notes."""
    if table.error:
        return PlainText(f"  accesses: not analysed ({table.error})")
    if not table.accesses:
        return PlainText("  accesses: none")
    rows = [("line", "array", "space", "kind", "B", "index", "pattern", "sect/req", "eff",
             "wavefr/req", "requests")]
    for a in table.accesses:
        pat = a.pattern + (f" ({a.stride})" if a.stride is not None else "")
        fp = getattr(a, "footprint", None)
        if a.space in ("texture", "surface") and fp and len(fp) > 1 and a.stride is None:
            pat += f" ({'x'.join(map(str, fp))})"  # the texels one warp request spans
        if a.pattern == "divergent" and getattr(a, "addresses_per_request", None) is not None:
            pat += f" ({_figure(a.addresses_per_request)} addresses)"
        rows.append((f"{a.line}:{a.column}", a.array, a.space, a.kind + (" (atomic)" if a.atomic else "")
                     + _path_mark(getattr(a, "path", "")),
                     "?" if a.element_bytes is None else str(a.element_bytes), _clip(a.index, 44), pat,
                     _figure(a.sectors_per_request), _percent(a.efficiency), _figure(a.wavefronts_per_request),
                     "0 (register)" if not a.issued else ("-" if a.requests is None else f"{int(a.requests):,}")))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  accesses:"]
    for r in rows:
        lines.append("    " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    if any(getattr(a, "path", "") == MAY_CHOOSE for a in table.accesses):
        lines.append("    (read-only?): a load through a const __restrict__ pointer: the compiler may "
                     "route it through the read-only (texture) cache")
    for a in table.accesses:  # why an access issues fewer requests than the source suggests
        if a.request_note:
            lines.append(f"    {a.line}:{a.column} {a.array} {a.kind}: {a.request_note}")
    notes = []
    for a in table.accesses:
        for n in a.assumptions + ([a.why] if a.why else []):
            if n not in notes:
                notes.append(n)
    for n in notes + [n for n in table.notes if n not in notes]:
        lines.append(f"    assumed/why: {n}")
    return PlainText("\n".join(lines))


def _path_mark(path: str) -> str:
    """The load's data path in the kind column: (read-only) for __ldg, (read-only?) where the
    compiler may choose it, the PTX cache operator of the other __ld* hints."""
    if not path:
        return ""
    if path == MAY_CHOOSE:
        return " (read-only?)"
    if "(" in path and path.endswith(")"):
        return " (" + path.rsplit("(", 1)[1]  # "L2 only (ld.cg)" -> " (ld.cg)"
    return f" ({path})"


def _clip(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def _figure(v) -> str:
    if v is None:
        return "-"
    r = round(float(v), 2)
    return str(int(r)) if r.is_integer() else f"{r:g}"


def _percent(v) -> str:
    return "-" if v is None else f"{100 * float(v):.1f}%".replace(".0%", "%")


def _fmt(x, digits: int = 4) -> str:
    if x is None:
        return "-"
    n = to_number(x)
    if n is None:
        return str(x)
    if isinstance(n, float) and math.isinf(n):
        return "unbounded"
    if isinstance(n, int) or float(n).is_integer():
        v = int(n)
        return f"{v:,}" if abs(v) >= 10000 else str(v)
    if abs(n) >= 1000:
        return f"{n:,.0f}"
    return f"{n:.{digits}g}"


def _count(x, what: str) -> str:
    s = _fmt(x)
    return f"{s} {what}" if s == "1" else f"{s} {what}{'es' if what.endswith('s') else 's'}"


def render_cgma(c) -> str:
    """The CGMA facts (:class:`CgmaFacts`): the kernel's ratio, the hot loop, counts, reuse."""
    r = c.resolved
    lines = []
    if c.kernel is None:
        head = "no global memory accesses" + (": CGMA unbounded" if r.flops != 0 else "")
    else:
        head = f"kernel {_fmt(c.kernel)}"
        if c.counts.values:
            head += " with " + ", ".join(
                f"{s} = {_fmt(v)} ({c.counts.value_sources.get(str(s), '')})"
                for s, v in c.counts.values.items())
        if c.limit is not None and _fmt(c.limit) != _fmt(c.kernel):
            head += f"; limit {_fmt(c.limit)} as the sizes grow"
        lo = c.kernel_loads_only
        if lo is not None and _fmt(lo) != _fmt(c.kernel):
            head += f"; per load only {_fmt(lo)}"
    lines.append(f"  CGMA (flops per global access, one thread): {head}")
    if c.hot is not None:
        hc = c.hot_counts
        trip = c.counts.resolve(c.hot.trip)
        var = f" over {c.hot.variable}" if c.hot.variable else ""
        lines.append(f"    hot loop at line {c.hot.line}{var} ({_fmt(trip)} iterations): "
                     f"{_count(hc.flops, 'flop')} / {_count(hc.accesses, 'global access')} "
                     f"per iteration = {_fmt(c.hot_loop)}")
    lines.append(f"    per thread: {_count(r.flops, 'flop')}, {_count(r.accesses, 'global access')} "
                 f"({_fmt(r.loads)} loads, {_fmt(r.stores)} "
                 f"{'store' if _fmt(r.stores) == '1' else 'stores'}"
                 + (f", {_fmt(r.atomics)} atomics" if r.atomics != 0 else "") + ")"
                 + (f", {_fmt(c.bytes_per_access)} bytes per access" if c.bytes_per_access else "")
                 + f", {c.precision}")
    for t in c.tiling:
        dims = " and ".join(f"threadIdx.{d}" for d in t.dimensions)
        lines.append(f"    reuse: {t.array} at line {t.line} does not depend on {dims}: "
                     f"{t.reuse} threads of a block read each element; tiling it: loop CGMA "
                     f"{_fmt(t.cgma_now)} -> {_fmt(t.cgma_if_tiled)}"
                     + (f", {_fmt(t.cgma_all_tiled)} with {', '.join(t.arrays_all_tiled)} tiled"
                        if len(t.arrays_all_tiled) > 1 else ""))
    for a in c.assumptions:
        lines.append(f"    assumed: {a}")
    return "\n".join(lines)


def render_roofline(rf) -> str:
    """The roofline facts (:class:`RooflineFacts`): device, balance, bound, attainable GFLOPS."""
    if rf.point is None:
        return f"  roofline: not computed: {rf.error or rf.cgma_source}"
    p = rf.point
    s = (f"  roofline: {p.device.name}, {rf.device_source}: peak {_fmt(p.peak_gflops)} GFLOPS "
         f"{p.precision}, {_fmt(p.bandwidth_gbs)} GB/s, {_fmt(p.word_bytes)}-byte words; "
         f"balance CGMA {_fmt(p.balance_cgma, 3)}")
    s += (f"\n    {p.bound}-bound: CGMA {_fmt(p.cgma)} ({rf.cgma_source}) attains at most "
          f"{_fmt(p.attainable_gflops)} GFLOPS, {p.fraction_of_peak * 100:.1f}% of peak")
    h = rf.hot_loop_point
    if h is not None and abs(h.cgma - p.cgma) > 1e-9:
        s += (f"\n    hot loop: CGMA {_fmt(h.cgma)}, {h.bound}-bound, at most "
              f"{_fmt(h.attainable_gflops)} GFLOPS")
    for n in rf.notes:
        s += f"\n    note: {n}"
    return s


def render_counters(pc) -> str:
    """``predicted_counters`` (:class:`PredictedCounters`) as one line."""
    names = (("global_ld_sectors_per_request", "global ld sectors/req"),
             ("global_st_sectors_per_request", "global st sectors/req"),
             ("shared_ld_wavefronts_per_request", "shared ld wavefronts/req"),
             ("shared_st_wavefronts_per_request", "shared st wavefronts/req"),
             ("local_ld_sectors_per_request", "local ld sectors/req"),
             ("local_st_sectors_per_request", "local st sectors/req"))
    parts = [f"{label} {pc[k]:g}" for k, label in names if pc.get(k) is not None]
    if pc.get("occupancy_pct") is not None:
        parts.append(f"occupancy {pc['occupancy_pct']:g}%")
    return PlainText("  predicted counters (request-weighted, as Nsight Compute computes them): "
                     + (", ".join(parts) if parts else "none"))


_RENDERERS = {AccessTable: render_accesses, CgmaFacts: render_cgma, RooflineFacts: render_roofline,
              PredictedCounters: render_counters}


def renderer(fact):
    """The text renderer of a fact object (``fact -> str``), or None when it has none."""
    fn = _RENDERERS.get(type(fact))
    return (lambda: fn(fact)) if fn is not None else getattr(fact, "render_text", None)
