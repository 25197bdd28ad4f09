"""Texture fetches and surface reads/writes as access events of the symbolic walk.

A fetch ``tex2D<float>(tex, x, y)`` becomes an :class:`~.symbolic_values.AccessEvent` of space
``texture`` (``surface`` for ``surfNDread``/``surfNDwrite``) whose pointer is the object and
whose :class:`TexAccess` holds the coordinates as sympy values. The event's byte ``offset``
encodes every coordinate, so that two fetches share an address exactly when all their
coordinates agree (what the request model's forwarding and loop-invariance tests compare):
``x * texel_bytes`` (a surface's x is already in bytes) plus ``y``, ``z`` and the layer times
symbols standing for the unknown row, slice and layer pitches.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import sympy as sp

from . import ir
from .texture_calls import TexCall
from .symbolic_values import AccessEvent, MemLoad, Pointer, WalkState, is_expr

ROW_PITCH = sp.Symbol("texture_row_pitch", positive=True, integer=True)
SLICE_PITCH = sp.Symbol("texture_slice_pitch", positive=True, integer=True)
LAYER_PITCH = sp.Symbol("texture_layer_pitch", positive=True, integer=True)
PITCH_SYMBOLS = frozenset({ROW_PITCH, SLICE_PITCH, LAYER_PITCH})


@dataclass
class TexAccess:
    """What a texture/surface access event carries besides its pointer."""

    call: TexCall
    coords: list = field(default_factory=list)  # sympy value per coordinate (None: unknown)
    layer: Optional[sp.Expr] = None
    # Names of per-thread arrays: a value read from one differs between lanes even at an index
    # that does not (`field[0]` of a thread's own array).
    per_thread: frozenset = frozenset()


def texel_offset(tc: TexCall, coords: list, layer) -> sp.Expr:
    """The encoded byte offset (see the module's docstring)."""
    eb = tc.texel_bytes or 1
    vals = [c if is_expr(c) else sp.Symbol(f"coord{i}") for i, c in enumerate(coords)]
    off = vals[0] if tc.space == "surface" else vals[0] * eb
    for v, pitch in zip(vals[1:], (ROW_PITCH, SLICE_PITCH)):
        off = off + v * pitch
    if layer is not None:
        off = off + (layer if is_expr(layer) else sp.Symbol("layer")) * LAYER_PITCH
    return off


def walk_texture_call(w, e: ir.Call, tc: TexCall, st: WalkState):
    """Evaluate the call's arguments on walker ``w``, record the access, return its value (a
    value read from memory for a fetch or surface read, nothing for a write)."""
    coords = [w._rvalue(c, st) for c in tc.coords]
    layer = w._rvalue(tc.layer, st) if tc.layer is not None else None
    for x in tc.others:
        w._rvalue(x, st)
    if tc.value is not None:
        w._rvalue(tc.value, st)
    if tc.out is not None:
        w._rvalue(tc.out, st)
    var, name = tc.object_var, tc.object_name
    if var is not None and var.storage == "param" and var not in w.kernel.params:
        # Inside an inlined helper: the kernel parameter its argument came from.
        v = st.env.get(var)
        info = w.syms.info.get(v) if isinstance(v, sp.Symbol) else None
        if info is not None and info.var is not None and info.var in w.kernel.params:
            var, name = info.var, info.var.name
    # A surface access is never served from a register (the compiler does not forward a
    # surface store to a later read): volatile, for the request model.
    p = Pointer(var, tc.space, texel_offset(tc, coords, layer), tc.texel, tc.space == "surface", name)
    if not w._dry:
        w._seq += 1
        w.events.append(AccessEvent(
            node=e, kind=tc.kind, pointer=p, elem=tc.texel, elem_bytes=tc.texel_bytes,
            name=name, path=st.path, loops=st.loops, seq=w._seq, epoch=w._epoch,
            function=w._function_of(e), call_lines=st.call_lines, volatile=p.volatile,
            texture=TexAccess(tc, [c if is_expr(c) else None for c in coords],
                              layer if is_expr(layer) else None, _per_thread_arrays(w))))
    if tc.kind == "store":
        return None
    args = [c for c in coords if is_expr(c)]
    val = MemLoad(sp.Symbol(name), *args)
    out = tc.out
    while isinstance(out, ir.Cast):
        out = out.operand
    if isinstance(out, ir.UnaryOp) and out.op == "&" and isinstance(out.operand, ir.VarRef) \
            and out.operand.var in st.env:
        st.env[out.operand.var] = val  # tex2D(&v, ...): v now holds the fetched texel
        return None
    return val


def _per_thread_arrays(w) -> frozenset:
    fns = [w.kernel] + ([w._current_function] if w._current_function is not None else [])
    return frozenset(v.name for f in fns for v in f.locals
                     if v.type is not None and v.type.kind == "array" and v.storage in ("auto", ""))
