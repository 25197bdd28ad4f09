"""Facts for the texture rules (seed, "Texture Memory"), from the access facts of a file's
kernels and the host bindings (``texture_bindings``):

- :func:`stale_texture_reads`: a texture fetch of memory the same kernel writes, through a
  surface bound to the same CUDA array or a global store through a pointer the launch passes
  to the same linear memory. The texture cache is not kept coherent within a launch: "a thread
  can safely read some texture or surface memory location only if this memory location has
  been updated by a previous kernel call or memory copy";
- :func:`pitched_linear_fetches`: a texture over ``cudaMallocPitch`` memory that every kernel
  fetches with ``tex1Dfetch`` only: the texture is used as a plain cache, and "caching the
  padding added by cudaMallocPitch() would be wasteful";
- :func:`hand_pitched_textures`: a 2-D (pitch-linear) texture over ``cudaMalloc`` memory with a
  pitch the program computed itself: "don't bind linear memory created with cudaMalloc() and
  attempt to manually set the pitch to a texture because unexpected things might happen".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from . import ir
from .texture_bindings import Binding, host_textures


@dataclass
class StaleRead:
    kernel: object  # KernelFacts
    read: object  # the texture fetch (accesses.Access)
    write: object  # the surface or global store
    binding: Binding
    via: str  # "surface" | "global"


def _kernel_accesses(k) -> list:
    return list(k.accesses or []) if k.accesses is not None and not k.accesses.error else []


def stale_texture_reads(kernels, tu: Optional[ir.TranslationUnit]) -> list[StaleRead]:
    out: list[StaleRead] = []
    h = host_textures(tu)
    for k in kernels:
        acc = _kernel_accesses(k)
        reads = [a for a in acc if a.space == "texture" and a.kind == "load" and a.binding is not None
                 and a.binding.backing is not None]
        if not reads:
            continue
        for r in reads:
            target = r.binding.backing
            for w in acc:
                if w.kind != "store" or w is r:
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
