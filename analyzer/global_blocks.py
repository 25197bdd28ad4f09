"""Which blocks the global-memory race check runs side by side, and what that covers.

The interpreter runs a few blocks of the launch together (``global_blocks``: block 0, its
neighbour and the last block along each dimension the kernel reads ``blockIdx`` of, and the
diagonal neighbour); :func:`coverage` says what a run over them shows about the whole grid, so
that ``explain`` and the CL607 witness never claim more than was checked.
"""
from __future__ import annotations

from typing import Optional

from . import ir


def uses_block_index(fn: ir.Function, depth: int = 0, seen=None) -> set:
    """Components of blockIdx/gridDim that ``fn`` (or a device function it calls) reads;
    a cooperative-groups grid query counts as 'x'."""
    seen = seen if seen is not None else set()
    out: set = set()
    if id(fn) in seen or depth > 8:
        return out
    seen.add(id(fn))
    for e in fn.expressions():
        if isinstance(e, ir.Builtin) and e.name in ("blockIdx", "gridDim") and e.component:
            out.add(e.component)
        elif isinstance(e, ir.Call):
            if e.callee in ("this_grid", "block_rank", "block_index", "num_blocks", "dim_blocks"):
                out.add("x")
            if e.function is not None:
                out |= uses_block_index(e.function, depth + 1, seen)
    return out


def global_blocks(grid: Optional[tuple], comps: set) -> tuple[list, str]:
    """Blocks to simulate side by side for the inter-block check, and a note on what was
    assumed. Along each blockIdx component the kernel reads: 0, 1 and the last (or all of them
    when there are at most 3); a component it does not read stays 0 (every block along it
    computes the same addresses, so block 1 stands for all)."""
    if grid is None:
        if not comps:
            return [(0, 0, 0)], ("no launch grid known and the kernel never reads blockIdx: "
                                 "assumed one block")
        g = tuple(2 if "xyz"[d] in comps else 1 for d in range(3))
        note = "no launch grid known: blocks 0 and 1 of each used dimension checked"
    else:
        g = tuple(grid)
        note = ""
    picks = []
    for d in range(3):
        n = g[d]
        if n <= 1:
            picks.append([0])
        elif "xyz"[d] not in comps:
            picks.append([0, 1])  # identical blocks: their accesses coincide
        else:
            picks.append(sorted({0, 1, n - 1}))
    used = [d for d in range(3) if len(picks[d]) > 1]
    out = [(0, 0, 0)]
    for d in used:  # neighbours and the last block along each dimension
        for v in picks[d][1:]:
            b = [0, 0, 0]
            b[d] = v
            out.append(tuple(b))
    if len(used) >= 2:
        out.append(tuple(1 if d in used else 0 for d in range(3)))  # the diagonal neighbour
    if not comps and len(out) > 2:
        out = out[:2]
    return out, note


def grid_blocks(grid: Optional[tuple]) -> Optional[int]:
    if grid is None:
        return None
    n = 1
    for d in grid:
        n *= max(int(d), 1)
    return n


def coverage(blocks: list, grid: Optional[tuple], comps: set) -> tuple[str, str]:
    """(kind, sentence) for a run over ``blocks``: ``all`` (every block of the grid ran),
    ``alike`` (the kernel never reads blockIdx: every block makes the accesses block 0 makes,
    so two blocks stand for every pair), ``sample`` (pairs of the other blocks unchecked)."""
    total = grid_blocks(grid)
    if not comps:
        return "alike", ("the kernel never reads blockIdx: every block makes the same accesses, "
                         "so two blocks stand for every pair")
    if total is not None and len(set(map(tuple, blocks))) >= total:
        return "all", f"all {total} blocks of the grid"
    of = f" of {total}" if total is not None else " (grid not known)"
    return "sample", (f"a sample of {len(blocks)} blocks{of}: block 0, its neighbours and the last "
                      "block along each dimension; races that need two other blocks are not checked")
