"""Facts for the texture rules (seed, "Texture Memory"), from the access facts of a file's
kernels and the host bindings (``texture_bindings``):

- :func:`stale_texture_reads`: a texture fetch of memory the same kernel writes, through a
  surface bound to the same CUDA array or a global store through a pointer the launch passes
  to the same linear memory. The texture cache is not kept coherent within a launch: "a thread
  can safely read some texture or surface memory location only if this memory location has
  been updated by a previous kernel call or memory copy". A pointwise update (each thread
  fetches its own texel and then writes it, :func:`own_texel_first`) fetches nothing written
  in the launch and is not reported;
- :func:`pitched_linear_fetches`: a texture over ``cudaMallocPitch`` memory that every kernel
  fetches with ``tex1Dfetch`` only: the texture is used as a plain cache, and "caching the
  padding added by cudaMallocPitch() would be wasteful";
- :func:`hand_pitched_textures`: a 2-D (pitch-linear) texture over ``cudaMalloc`` memory with a
  pitch the program computed itself: "don't bind linear memory created with cudaMalloc() and
  attempt to manually set the pitch to a texture because unexpected things might happen".
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import sympy as sp

from . import ir
from .lanes import num, thread_values
from .symbolic_values import MemLoad
from .texture_bindings import Binding, host_textures
from .texture_patterns import prepare_coordinate, absolute_texels


@dataclass
class StaleRead:
    kernel: object  # KernelFacts
    read: object  # the texture fetch (accesses.Access)
    write: object  # the surface or global store
    binding: Binding
    via: str  # "surface" | "global"


def _kernel_accesses(k) -> list:
    return list(k.accesses or []) if k.accesses is not None and not k.accesses.error else []


def _lane_indices(e, ev, stand_in: int) -> Optional[list]:
    """Per representative warp, (warp, tids, [(element index,) per lane]) of a global access."""
    if not e.elem_bytes or e.offset.atoms(MemLoad):
        return None  # an index read from memory: no claim that it is the thread's own element
    p = prepare_coordinate(ev, sp.expand(e.offset / e.elem_bytes), [], stand_in)
    if isinstance(p, tuple):
        return None
    out = []
    for w in ev.model.representative_warps():
        lanes = ev.active_lanes(w, tuple(e.path))
        vals = [num(p, thread_values(ev.syms, ln)) for ln in lanes]
        if any(v is None for v in vals):
            return None
        out.append((w, [ln.tid for ln in lanes], [(int(math.floor(v)),) for v in vals]))
    return out


def own_texel_first(r, w, ev) -> bool:
    """A pointwise update: each thread fetches only the texel it writes itself, before writing
    it, and no two lanes of a warp write the same texel; nothing another thread of the launch
    writes is fetched (safe, the cache is not read after a write). Not when a loop encloses
    both (a later iteration would fetch what an earlier one wrote)."""
    re_, we = r.event, w.event
    if ev is None or re_ is None or we is None or re_.seq >= we.seq:
        return False
    if {id(li.loop) for li in re_.loops} & {id(li.loop) for li in we.loops}:
        return False
    for stand_in in (0, 1, 7):
        rt = absolute_texels(re_.texture, ev, re_.path, stand_in)
        if we.texture is not None:
            wt = absolute_texels(we.texture, ev, we.path, stand_in)
        elif re_.texture.call.dims == 1 and re_.texture.layer is None:
            wt = _lane_indices(we, ev, stand_in)
        else:
            return False  # a 2-D texel against a linear address: the pitch is not known here
        if rt is None or wt is None:
            return False
        writes = {wp: dict(zip(tids, tx)) for wp, tids, tx in wt}
        for wp, tids, tx in rt:
            mine = writes.get(wp, {})
            if len(set(mine.values())) != len(mine):
                return False  # two lanes write one texel
            for tid, t in zip(tids, tx):
                if tid not in mine or mine[tid] != t:
                    return False
    return True


def stale_texture_reads(kernels, tu: Optional[ir.TranslationUnit]) -> list[StaleRead]:
    out: list[StaleRead] = []
    h = host_textures(tu)
    for k in kernels:
        acc = _kernel_accesses(k)
        reads = [a for a in acc if a.space == "texture" and a.kind == "load" and a.binding is not None
                 and a.binding.backing is not None]
        if not reads:
            continue
        ev = getattr(k.accesses, "evaluator", None)
        for r in reads:
            target = r.binding.backing
            for w in acc:
                if w.kind != "store" or w is r or own_texel_first(r, w, ev):
                    continue
                if w.space == "surface" and w.binding is not None and w.binding.backing == target:
                    out.append(StaleRead(k, r, w, r.binding, "surface"))
                    break
                if w.space == "global" and isinstance(w.variable, ir.Variable) \
                        and w.variable.storage == "param" and w.variable in k.function.params:
                    key = h.kernel_arg(k.function, k.function.params.index(w.variable))
                    if key is not None and key == target:
                        out.append(StaleRead(k, r, w, r.binding, "global"))
                        break
    return out


def _bindings_used(kernels) -> dict:
    """Binding -> the texture accesses that read through it (id-keyed)."""
    used: dict = {}
    for k in kernels:
        for a in _kernel_accesses(k):
            if a.space == "texture" and a.binding is not None:
                used.setdefault(id(a.binding), (a.binding, []))[1].append((k, a))
    return used


def pitched_linear_fetches(kernels) -> list[tuple[Binding, list]]:
    """Textures over cudaMallocPitch memory whose every fetch is tex1Dfetch."""
    out = []
    for b, uses in _bindings_used(kernels).values():
        alloc = b.allocation
        if alloc is None or alloc.call != "cudaMallocPitch" or b.resource not in ("linear", "pitch2D"):
            continue
        if uses and all(a.event.texture.call.fetch for _, a in uses):
            out.append((b, uses))
    return out


def hand_pitched_textures(tu: Optional[ir.TranslationUnit]) -> list[Binding]:
    """Pitch-linear textures over cudaMalloc memory with a pitch not from cudaMallocPitch."""
    out = []
    for b in host_textures(tu).objects.values():
        if b.space != "texture" or b.resource != "pitch2D" or b.allocation is None:
            continue
        if b.allocation.call in ("cudaMalloc", "cudaMallocManaged", "cudaMallocAsync") \
                and b.pitch is not None and b.pitch_from_malloc_pitch is False:
            out.append(b)
    return out
