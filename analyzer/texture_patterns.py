"""The per-warp pattern of a texture fetch or surface access: which texels the 32 lanes of a
warp ask for, and what that means for the texture cache.

The texture cache is organised for 2-D spatial locality (seed, "Texture Memory": "The cache
is optimized for 2D spatial locality"): CUDA arrays are stored block-linear, so a warp that
reads a compact rectangle of texels (a 2-D block walking a 2-D texture) or even one column is
served from few cache lines, where the same walk down a row-major global array would touch a
sector per row. Patterns:

- ``broadcast``: every lane reads the same texel;
- ``contiguous``: consecutive texels along x (a 1-D fetch with a linear thread index: the
  texture path's equivalent of a coalesced load);
- ``strided`` (with the stride in texels) along x;
- ``row`` / ``column``: one row or one column of a 2-D (3-D) texture;
- ``2-D tile`` / ``3-D tile``: a dense rectangle (box) of texels, ``footprint`` W x H (x D);
- ``scattered``: anything else (``footprint`` is then the bounding box);
- ``data-dependent`` / ``unknown``: a coordinate read from memory, or not modelled.

Coordinates are evaluated per lane for the representative warps (``lanes.AddressEvaluator``);
values that are the same for the whole warp (``blockIdx``, loop counters) only shift it and
are set to a stand-in. Unnormalised texture coordinates name texel ``floor(x)``; coordinates
that step by a fraction between lanes (normalised, ``x / width``) are taken as one texel per
step, which is said. A surface's x coordinate is in *bytes*: texel ``x / sizeof(T)``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional

import sympy as sp

from . import symbolic as S
from .display import user_text
from .lanes import direct_first, num, thread_values
from .symbolic_textures import TexAccess


@dataclass
class TextureCost:
    pattern: str = "unknown"
    stride: Optional[int] = None
    footprint: Optional[tuple] = None  # texels along x, y, z spanned by one warp request
    texels_per_request: Optional[float] = None  # distinct texels one warp request reads
    notes: list = field(default_factory=list)
    why: str = ""
    exact: bool = True


def prepare_coordinate(ev, c, notes: list, stand_in: int = 0, per_thread: frozenset = frozenset()):
    """The coordinate ready for per-lane evaluation, or a (status, why) pair; warp-uniform
    unknowns take the value ``stand_in``."""
    if c is None:
        return ("unknown", "a coordinate the analysis does not model")
    e = ev.b.bind(sp.expand(c)) if isinstance(c, sp.Basic) else c
    if not isinstance(e, sp.Basic):
        return ("unknown", "a coordinate the analysis does not model")
    tsyms = ev.syms.thread_symbols
    lane_data = direct_first([a for a in e.atoms(S.MemLoad) if a.free_symbols & tsyms
                              or str(a.args[0]) in per_thread])
    if lane_data:
        return ("data-dependent", f"the coordinate depends on `{user_text(lane_data[0])}`, a value "
                                  "read at run time")
    lane_opaque = direct_first([a for a in e.atoms(S.Opaque) if a.free_symbols & tsyms])
    if lane_opaque:
        return ("unknown", f"the coordinate depends on `{user_text(lane_opaque[0].args[0])}`, which "
                           "the analysis does not model")
    # Warp-uniform run-time values that only shift the warp are set to a stand-in (the
    # relative positions stay); one that scales the per-thread part (`x * cosf(theta)`) decides
    # the pattern, and nothing here knows it.
    shifts = []
    for t in sp.Add.make_args(sp.expand(e)):
        run_time = t.atoms(S.MemLoad) | t.atoms(S.Opaque)
        if run_time and t.free_symbols & tsyms:
            a = sorted(run_time, key=str)[0]
            return ("unknown", f"the per-thread part of the coordinate is scaled by "
                               f"`{user_text(a)}`, a value known "
                               "only at run time")
        shifts.extend(run_time)
    e = e.xreplace({a: sp.Integer(stand_in) for a in shifts})
    subs = {}
    scaling = set()
    for t in sp.Add.make_args(sp.expand(e)):
        if t.free_symbols & tsyms:
            scaling |= t.free_symbols - tsyms
    for s in sorted(e.free_symbols - tsyms, key=lambda s: s.name):
        if s in scaling and s not in ev.b.defaults:
            # `x * scale` with a float `scale` of unknown value: the warp's spread is unknown
            return ("unknown", f"the per-thread part of the coordinate is scaled by `{user_text(s)}`, "
                               "whose value is not known statically (pass --param)")
        if s in ev.b.defaults:
            subs[s] = ev.b.defaults[s]
            d = ev.b.describe(s)
            if d not in notes:
                notes.append(d)
        else:
            subs[s] = sp.Integer(1) if _in_denominator(e, s) else sp.Integer(stand_in)
    return e.xreplace(subs) if subs else e


def absolute_texels(ta: TexAccess, ev, path: tuple, stand_in: int = 0) -> Optional[list]:
    """Per representative warp, the texel (x, y, z, layer) each active lane touches, in
    absolute texel units (``floor`` of unnormalised coordinates, surface x over the texel
    size), with warp-uniform unknowns set to ``stand_in``; None when a coordinate cannot be
    evaluated or steps by fractions (normalised: its texel depends on the texture's size)."""
    tc = ta.call
    coords = list(ta.coords) + ([ta.layer] if ta.layer is not None else [])
    prepared = []
    for c in coords:
        p = prepare_coordinate(ev, c, [], stand_in, ta.per_thread)
        if isinstance(p, tuple):
            return None
        prepared.append(p)
    out = []
    for w in ev.model.representative_warps():
        lanes = ev.active_lanes(w, tuple(path))
        axes = []
        for k, e in enumerate(prepared):
            vals = [num(e, thread_values(ev.syms, ln)) for ln in lanes]
            if any(v is None for v in vals):
                return None
            if tc.space == "surface" and k == 0:
                if not tc.texel_bytes:
                    return None
                axes.append([int(math.floor(v)) // tc.texel_bytes for v in vals])
                continue
            ds = sorted(set(vals))
            if any(0 < b - a < 1 for a, b in zip(ds, ds[1:])):
                return None
            axes.append([int(math.floor(v)) for v in vals])
        out.append((w, [ln.tid for ln in lanes], list(zip(*axes)) if axes else []))
    return out


def _in_denominator(e: sp.Expr, s) -> bool:
    return any(isinstance(p, sp.Pow) and p.exp.is_negative and s in p.base.free_symbols
               for p in sp.preorder_traversal(e))


def _texel_axis(vals: list, integer: bool, byte_unit: Optional[int], notes: list, axis: str) -> list:
    """Texel index per lane along one axis."""
    if byte_unit:
        steps = {v % byte_unit for v in vals}
        if len(set(vals)) > 1 and steps != {vals[0] % byte_unit}:
            notes.append(f"the surface x coordinate is in bytes: the lanes' x values differ by less "
                         f"than a {byte_unit}-byte texel (write the column times {byte_unit})")
        return [v // byte_unit for v in vals]
    if integer:
        return [int(math.floor(v)) for v in vals]
    distinct = sorted(set(vals))
    gaps = [b - a for a, b in zip(distinct, distinct[1:]) if b - a > 0]
    if gaps and min(gaps) < 1:
        d = min(gaps)
        notes.append(f"the {axis} coordinate steps by {float(d):.4g} between lanes (normalised "
                     "coordinates): taken as one texel per step")
        lo = distinct[0]
        return [int(round((v - lo) / d)) for v in vals]
    return [int(math.floor(v)) for v in vals]


def _classify(texels: list, dims: int, cost: TextureCost) -> None:
    distinct = set(texels)
    cost.texels_per_request = float(len(distinct))
    axes = list(zip(*distinct)) if distinct else []
    spans = [max(a) - min(a) + 1 for a in axes]
    varying = [i for i, a in enumerate(axes) if len(set(a)) > 1]
    cost.footprint = tuple(spans[:max(dims, 1)])
    if len(distinct) == 1:
        cost.pattern = "broadcast"
        return
    if len(varying) == 1:
        i = varying[0]
        xs = sorted(set(axes[i]))
        steps = {b - a for a, b in zip(xs, xs[1:])}
        if steps == {1}:
            cost.pattern = "contiguous" if dims == 1 else ("row" if i == 0 else "column")
        elif len(steps) == 1 and i == 0:
            cost.pattern, cost.stride = "strided", steps.pop()
        elif dims > 1 and i > 0 and len(steps) == 1:
            cost.pattern = "column"
        else:
            cost.pattern = "scattered"
        return
    box = 1
    for i in varying:
        box *= spans[i]
    if box == len(distinct):
        cost.pattern = "3-D tile" if len(varying) >= 3 else "2-D tile"
        return
    # A grid of texels, every `s`-th column of a few rows (`4 * threadIdx.x` in a 2-D block)
    grid = 1
    steps = []
    for i in varying:
        vals = sorted(set(axes[i]))
        st = {b - a for a, b in zip(vals, vals[1:])}
        if len(st) != 1:
            cost.pattern = "scattered"
            return
        steps.append(st.pop())
        grid *= len(vals)
    if grid == len(distinct) and 0 in varying and steps[0] > 1:
        cost.pattern, cost.stride = "strided", steps[0]
    else:
        cost.pattern = "scattered"


def texture_cost(ta: TexAccess, ev, path: tuple) -> TextureCost:
    """The warp pattern of one texture/surface access (see the module's docstring)."""
    tc = ta.call
    cost = TextureCost()
    notes: list = []
    coords = list(ta.coords) + ([ta.layer] if ta.layer is not None else [])
    prepared = []
    for c in coords:
        p = prepare_coordinate(ev, c, notes, 0, ta.per_thread)
        if isinstance(p, tuple):
            cost.pattern, cost.why, cost.exact = p[0], p[1], False
            return cost
        prepared.append(p)
    per_warp = []
    for w in ev.model.representative_warps():
        lanes = ev.active_lanes(w, tuple(path))
        if not lanes:
            continue
        axes_vals = []
        for k, e in enumerate(prepared):
            vals = [num(e, thread_values(ev.syms, ln)) for ln in lanes]
            if any(v is None for v in vals):
                cost.pattern, cost.why, cost.exact = "unknown", "a coordinate could not be evaluated", False
                return cost
            vals = [Fraction(v) if not isinstance(v, float) else v for v in vals]
            integer = tc.fetch or tc.space == "surface" or k >= tc.dims
            unit = tc.texel_bytes if (tc.space == "surface" and k == 0) else None
            axes_vals.append(_texel_axis(vals, integer, unit, notes if not per_warp else [],
                                         "xyz"[k] if k < 3 else "layer"))
        per_warp.append(list(zip(*axes_vals)))
    if not per_warp:
        cost.pattern, cost.why = "unknown", "no lane executes it"
        return cost
    _classify(per_warp[0], tc.dims, cost)
    counts = []
    for texels in per_warp:
        c2 = TextureCost()
        _classify(texels, tc.dims, c2)
        counts.append(c2.texels_per_request)
    cost.texels_per_request = sum(counts) / len(counts)
    cost.notes = notes + _meaning(tc, cost)
    return cost


def _meaning(tc, cost: TextureCost) -> list:
    """What the pattern means for the texture cache, in one sentence."""
    fp = "x".join(str(n) for n in (cost.footprint or ()))
    n = cost.texels_per_request
    verb = "writes" if tc.kind == "store" else "reads"
    if tc.kind == "store" and cost.pattern in ("2-D tile", "3-D tile", "column"):
        return [f"`{tc.name}`: one warp writes a {fp} block of texels (a CUDA array's block-linear "
                "layout keeps it compact)"]
    if cost.pattern == "2-D tile":
        return [f"`{tc.name}`: one warp {verb} a {fp} tile of texels: the 2-D locality the texture "
                "cache is built for (a row-major global array read this way needs a sector per row)"]
    if cost.pattern == "3-D tile":
        return [f"`{tc.name}`: one warp {verb} a {fp} box of texels: 3-D locality the texture cache serves"]
    if cost.pattern == "column":
        return [f"`{tc.name}`: one warp {verb} a column of {fp.split('x')[1] if 'x' in fp else fp} texels: "
                "a CUDA array's block-linear layout keeps it in few texture cache lines (the same "
                "walk down a row-major global array would be a strided load)"]
    if cost.pattern in ("contiguous", "row"):
        return [f"`{tc.name}`: one warp {verb} {n:g} consecutive texels, like a coalesced global load"]
    if cost.pattern == "strided":
        return [f"`{tc.name}`: one warp {verb} {n:g} texels {cost.stride} apart along x (over a {fp} "
                "box): each texture cache line serves fewer lanes than a contiguous walk"]
    if cost.pattern == "scattered":
        return [f"`{tc.name}`: one warp {verb} {n:g} texels scattered over a {fp} box: little locality "
                "for the texture cache"]
    return []


def coordinate_text(ta: TexAccess, bindings, syms) -> str:
    """The coordinates as the index column shows them: ``(x, y)``, ``(x, layer=l)``; launch
    block dimensions substituted as for other accesses."""
    dims = {s: v for s, v in bindings.values.items()
            if syms.info.get(s) is not None and syms.info[s].kind == S.BLOCKDIM}
    def show(c) -> str:
        if c is None:
            return "?"
        c = sp.expand(c.xreplace(dims)) if dims else c
        # 0.5f as the user wrote it, not 0.500000000000000
        c = c.xreplace({f: sp.Float(float(f), 6) for f in c.atoms(sp.Float)})
        return user_text(sp.sstr(c, full_prec=False))

    parts = [show(c) for c in ta.coords]
    if ta.call.layer is not None:
        parts.append("layer=" + show(ta.layer))
    return "(" + ", ".join(parts) + ")"


def fill_access(A, e, ev, bindings, syms) -> None:
    """Set the pattern, footprint, index text and notes of access ``A`` (an
    ``accesses.Access``) made from texture event ``e``."""
    ta: TexAccess = e.texture
    tc = ta.call
    A.index = coordinate_text(ta, bindings, syms)
    c = texture_cost(ta, ev, e.path)
    A.pattern, A.stride, A.why, A.exact, A.cost = c.pattern, c.stride, c.why, c.exact, c
    A.footprint = c.footprint
    A.texels_per_request = c.texels_per_request
    notes = list(c.notes) + ([c.why] if c.why else [])
    if tc.space == "surface":
        notes.insert(0, f"`{tc.name}`: surface x coordinates are in bytes "
                        f"(texel column = x / {tc.texel_bytes or 'sizeof(T)'})")
    if tc.gather:
        notes.append(f"`{tc.name}` returns one component of the 4 texels of a bilinear footprint")
    for n in notes:
        if n not in A.assumptions:
            A.assumptions.append(n)
