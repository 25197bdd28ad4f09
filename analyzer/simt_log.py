"""What a run of the per-thread interpreter records.

- :class:`ThreadSet`: the threads it runs (one or more blocks of the launch shape), with
  their coordinates, block ordinal and warp;
- :class:`Access`: one execution of a memory access by a set of threads, with the byte offset
  each of them touches; the interpreter groups them per barrier interval (epoch) and memory
  object and hands each closed interval to ``Simt.interval_closed`` (:mod:`.races` pairs them);
- :class:`BarrierEvent`: who arrived at a barrier; :class:`BranchStats`: how an ``if`` split
  warps (the warp-divergence statistics that :mod:`.uniformity` reads).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import ir
from .simt_values import _INT

MAX_GRID_THREADS = 1 << 16



@dataclass
class Access:
    """One execution of a shared-memory access by a set of threads."""

    node: ir.Expr
    var: ir.Variable
    key: object  # what aliases: the variable, or "extern" for all extern __shared__ arrays
    write: bool
    atomic: bool
    threads: np.ndarray
    offs: np.ndarray
    size: int
    certain: np.ndarray
    wepoch: np.ndarray
    iters: tuple  # ((loop instance, iteration, ir.Loop), ...) outermost first
    tags: tuple  # ((decision id, outcome), ...)
    value: Optional[np.ndarray]  # the value written (known entries only), for writes
    volatile: bool = False
    tok: Optional[np.ndarray] = None  # provenance tokens of the value written (0: none)
    #: set inside ``if (threadIdx.x == <block-uniform value>)``: one execution of that branch
    #: is by at most one thread, so two accesses of the same execution never race
    solo: Optional[int] = None
    space: str = "shared"  # the memory space of ``var`` (what the run was asked to record)
    #: the interpreter's statement count when it ran: equal for the loads and the store of one
    #: execution of one statement (``s[t] = s[t ^ 1]``)
    stamp: int = -1


@dataclass
class BranchStats:
    """How one ``if`` splits warps over a run (all executions summed)."""

    stmt: ir.If
    executions: int = 0
    warps_executing: int = 0
    warps_divergent: int = 0
    interleaved: bool = False  # some divergent warp's taken lanes are not one contiguous run
    unknown: int = 0  # executions whose condition was not known for every active thread
    example_warp: Optional[int] = None
    example_block: Optional[tuple] = None
    example_lanes: Optional[tuple] = None  # (first taken lane, first not-taken lane)
    minority_sum: float = 0.0  # over divergent warps: share of active lanes on the smaller side

    @property
    def fraction(self) -> float:
        return self.warps_divergent / self.warps_executing if self.warps_executing else 0.0

    @property
    def minority(self) -> float:
        """Mean share of a divergent warp's active lanes on the smaller side of the branch
        (1/32 for a leader test `lane == 0`, 1/2 for `tid % 2`)."""
        return self.minority_sum / self.warps_divergent if self.warps_divergent else 0.0


@dataclass
class BarrierEvent:
    node: object  # ir.Barrier or ir.Call
    arrived: int  # threads that certainly execute it
    alive: int  # threads of the block still running
    possible: int


@dataclass
class ThreadSet:
    block: tuple
    grid: Optional[tuple]
    blocks: list  # (bx, by, bz) of each simulated block
    n: int = 0
    tx: np.ndarray = None
    ty: np.ndarray = None
    tz: np.ndarray = None
    bx: np.ndarray = None
    by: np.ndarray = None
    bz: np.ndarray = None
    lin: np.ndarray = None
    blk: np.ndarray = None
    warp: np.ndarray = None  # global warp ordinal over the simulated blocks

    def __post_init__(self):
        bxd, byd, bzd = self.block
        T = bxd * byd * bzd
        t = np.arange(T, dtype=_INT)
        nb = len(self.blocks)
        self.n = T * nb
        lin = np.tile(t, nb)
        self.lin = lin
        self.tx = lin % bxd
        self.ty = (lin // bxd) % byd
        self.tz = lin // (bxd * byd)
        self.blk = np.repeat(np.arange(nb, dtype=_INT), T)
        b = np.array(self.blocks, dtype=_INT).reshape(nb, 3)
        self.bx = np.repeat(b[:, 0], T)
        self.by = np.repeat(b[:, 1], T)
        self.bz = np.repeat(b[:, 2], T)
        wpb = -(-T // 32)
        self.warps_per_block = wpb
        self.warp = self.blk * wpb + lin // 32

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    def coords(self, t: int) -> tuple:
        bx, by, _ = self.block
        return (t % bx, (t // bx) % by, t // (bx * by))

    def describe(self, t: int) -> str:
        x, y, z = self.coords(t)
        if self.block[1] == 1 and self.block[2] == 1:
            return f"thread {t}"
        if self.block[2] == 1:
            return f"thread ({x},{y})"
        return f"thread ({x},{y},{z})"


def sample_blocks(grid: Optional[tuple], block: tuple, limit: int = MAX_GRID_THREADS) -> tuple[list, bool]:
    """Blocks to simulate for grid-wide counts: all of them when the grid is small enough,
    else the first, second, middle and last two along each dimension. Returns (blocks, all)."""
    if grid is None:
        return [(0, 0, 0)], False
    T = block[0] * block[1] * block[2]
    total = grid[0] * grid[1] * grid[2]
    if total * T <= limit:
        return [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])], True

    def picks(n):
        return sorted({0, min(1, n - 1), n // 2, max(n - 2, 0), n - 1})

    out = [(x, y, z) for z in picks(grid[2]) for y in picks(grid[1]) for x in picks(grid[0])]
    return out, False


# ---------------------------------------------------------------------- shared by the pairings

def tags_compatible(a: tuple, b: tuple) -> bool:
    if not a or not b:
        return True
    da = dict(a)
    for d, o in b:
        if d in da and da[d] != o:
            return False
    return True


def element_text(var: ir.Variable, byte_off: int, size: Optional[int]) -> str:
    t = var.type
    if t.kind != "array":
        return var.name if byte_off == 0 else f"{var.name} (+{byte_off} bytes)"
    extents = t.array_extents()
    el = t.innermost_element()
    esz = el.size or size or 1
    if byte_off % esz:
        return f"{var.name} (byte {byte_off})"
    i = byte_off // esz
    dims = []
    for ext in reversed(extents[1:]):
        if not ext:
            return f"{var.name}[{i}]"
        dims.append(i % ext)
        i //= ext
    dims.append(i)
    return var.name + "".join(f"[{d}]" for d in reversed(dims))


def contested_groups(brk, wr, who):
    """(starts, cand) of sorted access entries split at ``brk``: each group's first entry, and
    the groups with a write and two different ``who`` (threads, or blocks). Shared by the
    shared-memory and the global-memory race checks."""
    import numpy as np

    starts = np.concatenate(([0], brk))
    has_w = np.add.reduceat(wr.astype(np.int32), starts) > 0
    lo = np.minimum.reduceat(who, starts)
    hi = np.maximum.reduceat(who, starts)
    return starts, np.flatnonzero(has_w & (lo != hi))


def candidate_records(ri, starts, cand, n: int):
    """(involved, in_cand): the ids of the records with an entry in a candidate address group
    (``cand``: group numbers, ``starts``: each group's first entry, ``ri``: each entry's record),
    sorted, and per entry whether its group is a candidate. Shared by the shared-memory and the
    global-memory race checks."""
    import numpy as np

    grp = np.zeros(n, dtype=np.int64)
    grp[starts[1:]] = 1
    grp = np.cumsum(grp)
    cmask = np.zeros(len(starts), dtype=bool)
    cmask[cand] = True
    in_cand = cmask[grp]
    return sorted(set(np.unique(ri[in_cand]).tolist())), in_cand


def entries_by_record(in_cand, ri, involved: list, cols: tuple) -> dict:
    """record id -> its candidate entries' values of each array in ``cols``, by one sort
    instead of a scan per record."""
    import numpy as np

    sel_idx = np.flatnonzero(in_cand)
    by_rec = sel_idx[np.argsort(ri[sel_idx], kind="stable")]
    bounds = np.searchsorted(ri[by_rec], involved + [np.iinfo(np.int32).max])
    out = {}
    for j, i in enumerate(involved):
        s = by_rec[bounds[j]:bounds[j + 1]]
        out[i] = tuple(c[s] for c in cols)
    return out


def entry_pairs(kw, ko, max_pairs: int):
    """Index pairs (wsel, osel) of the entries of two access records that touch the same
    element (equal keys ``kw[i] == ko[j]``), at most about ``max_pairs`` of them (the first
    matching entry is always kept); None when no element is shared. One vectorised join by sort:
    the definition of the pairs that the race checks read piece by piece (entry_pair_chunks)."""
    m = _matches(kw, ko, max_pairs)
    return None if m is None else _pairs_of(*m, 0, len(kw))


def _matches(kw, ko, max_pairs: int):
    """(order, lo, cnt) of the join of :func:`entry_pairs`: ``ko``'s sort order, where each
    ``kw`` entry's matches start in it and how many there are (cut so that about ``max_pairs``
    pairs remain, the first matching entry always kept); None when no element is shared."""
    import numpy as np

    order = np.argsort(ko, kind="stable")
    ko_s = ko[order]
    lo = np.searchsorted(ko_s, kw, "left")
    hi = np.searchsorted(ko_s, kw, "right")
    cnt = hi - lo
    if not cnt.any():
        return None
    # bound the number of (write, other) entry pairs examined
    csum = np.cumsum(cnt)
    if csum[-1] > max_pairs:
        keep = csum <= max_pairs
        keep[np.argmax(cnt > 0)] = True
        cnt = np.where(keep, cnt, 0)
    return order, lo, cnt


def same_stores(rw, ro, wi, oi):
    """Mask of the entry pairs (``wi`` of store record ``rw``, ``oi`` of store record ``ro``)
    that store the same bits, whichever lands last: equal values (NaN is not; an integer
    value unknown to the interpreter, the int64 minimum, never is), or values of one provenance
    token (the same global element, one warp reduction's result). None when the records keep
    neither values nor tokens. Shared by the shared- and global-memory race checks."""
    import numpy as np

    out = None
    if rw.value is not None and ro.value is not None:
        va, vb = rw.value[wi], ro.value[oi]
        with np.errstate(invalid="ignore"):
            out = va == vb
        if va.dtype.kind != "f":
            out &= va != np.iinfo(_INT).min
    if rw.tok is not None and ro.tok is not None:
        ka, kb = rw.tok[wi], ro.tok[oi]
        same_token = (ka == kb) & (ka != 0)
        out = same_token if out is None else out | same_token
    return out


#: Pairs of entries the first chunk of :func:`entry_pair_chunks` holds; later chunks double, up
#: to ``PAIR_CHUNK_MAX``.
PAIR_CHUNK = 4096
PAIR_CHUNK_MAX = 1 << 16


def entry_pair_chunks(kw, ko, max_pairs: int, first: int = PAIR_CHUNK, most: int = PAIR_CHUNK_MAX):
    """The pairs of :func:`entry_pairs` (the same ones, in the same order), in consecutive
    pieces: a list of ``(wsel, osel)`` producers, each covering the pairs of a run of ``kw``
    entries (a piece holds at least one entry; pieces grow from ``first`` pairs to ``most``).
    None when no element is shared. A caller that wants the first pair of the best kind can
    stop once it holds one of the best possible kind, without joining the rest."""
    import numpy as np

    m = _matches(kw, ko, max_pairs)
    if m is None:
        return None
    order, lo, cnt = m
    csum = np.cumsum(cnt)
    total = int(csum[-1])
    n = len(kw)
    if total <= first:
        return [lambda: _pairs_of(order, lo, cnt, 0, n)]

    def pieces():
        a, size = 0, first
        while a < n:
            base = int(csum[a - 1]) if a else 0
            if base >= total:
                return
            b = max(int(np.searchsorted(csum, base + size, "right")), a + 1)
            if int(csum[b - 1]) > base:  # (not a run of entries that meet nothing)
                yield (lambda a=a, b=b: _pairs_of(order, lo, cnt, a, b))
            a, size = b, min(size * 2, most)
    return pieces()


def _pairs_of(order, lo, cnt, a: int, b: int):
    """(wsel, osel) of the pairs of ``kw`` entries ``a`` to ``b`` (see :func:`entry_pairs`)."""
    import numpy as np

    c = cnt[a:b]
    cs = np.cumsum(c)
    total = int(cs[-1])
    wsel = np.repeat(np.arange(a, b), c)
    first = np.repeat(cs - c, c)
    osel = order[np.repeat(lo[a:b], c) + (np.arange(total) - first)]
    return wsel, osel
