"""Cooperative groups as symbolic values: what ``thread_rank()``, ``thread_index()``,
``meta_group_rank()``, ``size()`` and friends are in terms of the built-in variables.

The prelude declares the group classes without bodies (CUDA's are intrinsics), so without
this module every rank would be an opaque, warp-uniform value: ``a[block.thread_rank()]``
would look like a broadcast and a loop over ``block.thread_rank() + k * block.size()`` like
all threads reading one element. The definitions follow the CUDA Programming Guide's
cooperative groups chapter:

- ``thread_block``: ``thread_rank() = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y *
  threadIdx.z)``; ``thread_index()`` is ``threadIdx``, ``group_index()`` ``blockIdx``,
  ``group_dim()``/``dim_threads()`` ``blockDim``; ``size()`` the block's thread count.
- ``thread_block_tile<N>``: ``thread_rank() = rank mod N``, ``meta_group_rank() = rank div
  N`` (the tiles of a block are consecutive ranks), ``size() = N``.
- ``grid_group``: ``thread_rank() = block rank * block size + thread rank``; ``size()`` every
  thread of the grid.
- anything else (``coalesced_group``, a generic ``thread_group``, a tile of run-time size):
  the rank is a per-thread value cudalint cannot express (``None`` from here; the walker then
  treats it as an unknown that varies across lanes).
"""
from __future__ import annotations

import re
from typing import Callable, Optional

import sympy as sp

_TILE = re.compile(r"(?:thread_block_tile|tile_base)\s*<\s*(\d+)")


def group_kind(type_spelling: str) -> tuple[str, Optional[int]]:
    """('block' | 'tile' | 'grid' | 'other' | '', tile size) for a group object's type."""
    t = (type_spelling or "").replace("const ", "").replace("&", "").strip()
    m = _TILE.search(t)
    if m:
        return "tile", int(m.group(1))
    base = t.split("::")[-1].strip()
    if base == "thread_block":
        return "block", None
    if base == "grid_group":
        return "grid", None
    if base in ("thread_group", "coalesced_group", "multi_grid_group") or "thread_block_tile" in t:
        return "other", None
    return "", None


def _block_rank(builtin: Callable[[str, str], sp.Expr]) -> sp.Expr:
    tx, ty, tz = (builtin("threadIdx", c) for c in "xyz")
    bx, by = builtin("blockDim", "x"), builtin("blockDim", "y")
    return tx + bx * (ty + by * tz)


def _block_size(builtin) -> sp.Expr:
    return builtin("blockDim", "x") * builtin("blockDim", "y") * builtin("blockDim", "z")


def group_value(method: str, type_spelling: str, builtin: Callable[[str, str], sp.Expr]) -> Optional[sp.Expr]:
    """The value of ``g.method()`` for a group ``g`` of the given type, or None when it is
    not a group method this module knows (the caller then keeps its own treatment)."""
    kind, n = group_kind(type_spelling)
    if not kind or kind == "other":
        return None
    rank = _block_rank(builtin)
    bsize = _block_size(builtin)
    if kind == "block":
        return {"thread_rank": rank, "size": bsize, "num_threads": bsize}.get(method)
    if kind == "tile":
        return {"thread_rank": sp.Mod(rank, n), "meta_group_rank": sp.floor(rank / n),
                "size": sp.Integer(n), "num_threads": sp.Integer(n),
                "meta_group_size": sp.ceiling(bsize / n)}.get(method)
    if kind == "grid":
        gx, gy = builtin("gridDim", "x"), builtin("gridDim", "y")
        bxi, byi, bzi = (builtin("blockIdx", c) for c in "xyz")
        block_rank = bxi + gx * (byi + gy * bzi)
        gsize = gx * gy * builtin("gridDim", "z") * bsize
        return {"thread_rank": block_rank * bsize + rank, "size": gsize,
                "num_threads": gsize}.get(method)
    return None


def group_dim3(method: str, type_spelling: str, component: str,
               builtin: Callable[[str, str], sp.Expr]) -> Optional[sp.Expr]:
    """``g.thread_index().x`` and the other dim3-valued members of a thread block."""
    kind, _ = group_kind(type_spelling)
    if kind != "block" or component not in ("x", "y", "z"):
        return None
    name = {"thread_index": "threadIdx", "group_index": "blockIdx", "group_dim": "blockDim",
            "dim_threads": "blockDim"}.get(method)
    return builtin(name, component) if name else None


def is_rank_method(method: str) -> bool:
    """A group method whose value differs between the threads of a group."""
    return method in ("thread_rank", "thread_index", "meta_group_rank")
