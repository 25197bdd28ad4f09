"""Which data path a global load takes when the source says more than "load": the read-only
(non-coherent, texture-cache) path of ``__ldg`` and of ``const T* __restrict__`` pointers, and
the cache hints of the other ``__ld*`` intrinsics.

- ``__ldg(p)``: always the read-only path (``ld.global.nc``): "read-only";
- a load through a pointer whose object is a ``const T* __restrict__`` parameter (or a local
  pointer derived from one): the compiler *may* route it through the same path, when it can
  prove the data read-only for the whole kernel: "read-only (compiler may choose)";
- ``__ldca`` (cache at all levels), ``__ldcg`` (L2 only), ``__ldcs`` (streaming, evict first),
  ``__ldlu`` (last use), ``__ldcv`` (volatile: fetched again): named after their PTX cache
  operator.

These loads stay global accesses: the path says which cache serves them, the coalescing
analysis (sectors per request) is unchanged, since the read-only cache moves the same
32-byte sectors.
"""
from __future__ import annotations

from . import ir

HINTS = {
    "__ldg": "read-only",
    "__ldca": "cache all levels (ld.ca)",
    "__ldcg": "L2 only (ld.cg)",
    "__ldcs": "streaming (ld.cs)",
    "__ldlu": "last use (ld.lu)",
    "__ldcv": "volatile, not cached (ld.cv)",
}
MAY_CHOOSE = "read-only (compiler may choose)"


def const_restrict(v) -> bool:
    """A pointer variable declared ``const T* __restrict__``."""
    t = getattr(v, "type", None)
    if t is None or t.kind != "pointer" or "__restrict" not in (t.spelling or ""):
        return False
    el = t.element
    return bool(el is not None and (el.is_const or (el.spelling or "").startswith("const ")))


def load_path(e) -> str:
    """The path of access event ``e`` (an ``AccessEvent``), or "" for a plain access."""
    if e.kind != "load" or e.space != "global" or e.atomic:
        return ""
    node = e.node
    if isinstance(node, ir.Call):
        name = (node.callee or "").split("::")[-1]
        if name in HINTS:
            return HINTS[name]
    base = e.pointer.base
    if base is not None and base.storage == "param" and const_restrict(base):
        return MAY_CHOOSE
    return ""
