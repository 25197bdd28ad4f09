"""Texture fetches and surface accesses in the CGMA count (seed, "Texture Memory").

A texture is bound to global memory, so a fetch is a global-memory access: one load per texel
it reads. ``tex1Dfetch`` reads one texel (integer addressing, never filtered); a
``float4`` fetch is one access of 16 bytes ("a single float4 texture read is faster than four
separate 32-bit reads"); ``tex2Dgather`` reads the four texels of a bilinear footprint. With
``cudaFilterModeLinear`` the texture unit interpolates between neighbouring texels: 2 for a
1-D, 4 for a 2-D (a cubemap face or a layer included), 8 for a 3-D texture. The filter mode is
set on the host; where the host code shows it (``texture_bindings``) the count uses it, else a
fetch reads 1 texel and the assumption says so. A surface read is one load, a surface write one
store.
"""
from __future__ import annotations

from typing import Callable, Optional

from .flop_counts import Counts
from .texture_calls import TexCall


def linear_texels(tc: TexCall) -> int:
    """Texels a linearly filtered fetch of ``tc`` interpolates."""
    d = 2 if tc.cubemap else tc.dims
    return 2 ** d


def fetch_texels(tc: TexCall, filter_mode: Optional[str]) -> tuple[int, str]:
    """(texels read, note) for one execution of ``tc``; ``filter_mode`` is "linear", "point"
    or None (the host code does not show it)."""
    if tc.space == "surface" or tc.fetch:
        return 1, ""
    if tc.gather:
        return 4, f"`{tc.name}` reads the 4 texels of a bilinear footprint: counted as 4 loads"
    if filter_mode == "linear":
        n = linear_texels(tc)
        return n, (f"`{tc.name}` of `{tc.object_name}` is linearly filtered "
                   f"(cudaFilterModeLinear): {n} texels per fetch counted")
    if filter_mode == "point":
        return 1, ""
    return 1, (f"filter mode of `{tc.object_name}` unknown (not shown by the host code): 1 texel "
               f"per `{tc.name}` assumed (a linear filter would read {linear_texels(tc)})")


def texture_counts(tc: TexCall, known: Optional[tuple], note: Callable[[str], None]) -> Counts:
    """The counts of one texture/surface call; ``known`` is ``(texels, note)`` from the
    kernel's access facts, else the filter mode is unknown."""
    n, why = known if known is not None else fetch_texels(tc, None)
    if why:
        note(why)
    # a gather returns one component of each of its 4 texels: the fetched type's bytes in all
    b = (tc.texel_bytes or 0) * (1 if tc.gather else n)
    if tc.kind == "store":
        return Counts(stores=n, store_bytes=b)
    return Counts(loads=n, load_bytes=b)


def texel_map(accesses) -> dict:
    """id(call node) -> (texels, note) for the texture accesses of an access table whose
    filter mode the bindings decided (``Access.texels_per_fetch``)."""
    out: dict = {}
    for a in accesses or []:
        ev = getattr(a, "event", None)
        if ev is None or getattr(ev, "texture", None) is None:
            continue
        out[id(ev.node)] = fetch_texels(ev.texture.call, getattr(a, "filter_mode", None))
    return out
