"""Which blocks the global-memory race check runs side by side, and what that covers.

The interpreter runs a few blocks of the launch together (``global_blocks``: block 0, its
neighbour and the last block along each dimension the kernel reads ``blockIdx`` of, and the
diagonal neighbour); :func:`more_blocks` finds, in a 1-D grid, the blocks farther apart whose
addresses can meet (a second run adds them); :func:`coverage` says what the blocks run show
about the whole grid, so that ``explain`` and the CL607 witness never claim more than was checked.
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


def global_blocks(grid: Optional[tuple], comps: set, one_d: bool = False) -> tuple[list, str]:
    """Blocks to simulate side by side for the inter-block check, and a note on what was
    assumed. Along each blockIdx component the kernel reads: 0, 1 and the last (or all of them
    when there are at most 3); a component it does not read stays 0 (every block along it
    computes the same addresses, so block 1 stands for all). ``one_d``: the grid's size is not
    known but every launch passes it as an integer, so blockIdx.y and blockIdx.z are 0."""
    if grid is None and one_d and comps:
        g = (2, 1, 1)
        note = ("grid size not known, 1-D (launched with an integer grid): blocks 0 and 1 "
                "checked")
    elif grid is None:
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


#: at most this many blocks are added to a run, and this many address differences compared
MAX_EXTRA_BLOCKS = 2
MAX_DIFFERENCES = 1_000_000


def more_blocks(probe_sig: list, ts, grid: Optional[tuple], comps: set) -> list:
    """Blocks to add to a run over a 1-D grid so that block pairs whose addresses can meet are
    run too. Where every block's accesses to an array are block 0's moved by ``S`` bytes per
    block (the same threads, ``A[blockIdx.x * S + f(tid)]``), two blocks ``d`` apart meet only
    if a store of block 0 and an access of block 0 are ``d * S`` apart; the run covers the
    distances 1, n-2 and n-1 (blocks 0, 1 and n-1), so the others found that way are added
    (``A[blockIdx.x * 256 + tid + 512]`` meets the block two on). A last block that is not a
    translate (a partial block) is compared with every translate the same way."""
    import numpy as np

    if grid is None or comps != {"x"} or grid[1] != 1 or grid[2] != 1 or grid[0] < 5:
        return []
    n = int(grid[0])
    if list(map(tuple, ts.blocks[:3])) != [(0, 0, 0), (1, 0, 0), (n - 1, 0, 0)]:
        return []
    by_var: dict = {}
    for var, node, th, keys, tokened, write in probe_sig:
        by_var.setdefault(id(var), []).append((th, keys, tokened, write))
    want: set = set()
    for recs in by_var.values():
        if not any(r[3] for r in recs) or any(r[2].any() for r in recs):
            continue  # nothing written, or an index not known: the sample is all there is
        part = {0: ([], []), 1: ([], []), 2: ([], [])}  # block ordinal -> (store keys, all keys)
        S, last_translate, ok = None, True, True
        for th, keys, _, write in recs:
            b, lin = ts.blk[th], ts.lin[th]
            k = [keys[b == o] for o in range(3)]
            ln = [lin[b == o] for o in range(3)]
            for o in range(3):
                part[o][1].append(k[o])
                if write:
                    part[o][0].append(k[o])
            if len(k[0]) or len(k[1]):
                if not np.array_equal(ln[0], ln[1]):
                    ok = False
                    break
                d = np.unique(k[1] - k[0])
                if len(d) > 1 or (S is not None and len(d) and int(d[0]) != S):
                    ok = False
                    break
                if len(d):
                    S = int(d[0])
            if not (np.array_equal(ln[0], ln[2]) and (S is None or np.all(k[2] - k[0] == (n - 1) * S))):
                last_translate = False
        if not ok or not S:
            continue
        size = 16  # bytes either side: the widest scalar access (an overlap test, not exact)
        cat = lambda xs: np.unique(np.concatenate(xs)) if xs else np.zeros(0, dtype=np.int64)
        w0, a0 = cat(part[0][0]), cat(part[0][1])
        pairs = [(w0, a0)]
        if not last_translate:
            wl, al = cat(part[2][0]), cat(part[2][1])
            pairs += [(wl, a0), (al, w0)]
        for i, (x, y) in enumerate(pairs):
            if len(x) * len(y) > MAX_DIFFERENCES:
                return []
            diff = (x[:, None] - y[None, :]).ravel() * (1 if S > 0 else -1)
            step = abs(S)
            lo = -((-(diff - size)) // step)  # ceil
            hi = (diff + size) // step
            ds: set = set()
            for off in range(min(2 * size // step + 1, 64)):
                m = lo + off <= hi
                if not m.any():
                    break
                ds.update(np.unique(lo[m] + off).tolist())
            for d in ds:
                if i == 0:  # two translates |d| apart: block 0 and block |d|
                    if 2 <= abs(d) <= n - 3:
                        want.add(abs(d))
                elif 2 <= d <= n - 2:  # the last block and the translate d
                    want.add(d)
    return [(d, 0, 0) for d in sorted(want)[:MAX_EXTRA_BLOCKS]]
