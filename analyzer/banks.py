"""Shared-memory banks: wavefronts per request, padding that removes a conflict, and
warp-synchronous shared-memory code.

Model: shared memory has ``banks`` banks of ``width`` bytes (32 x 4 B from sm_20; 16 x 4 B on
sm_1x). Word ``w`` (``address // width``) lives in bank ``w mod banks``. A request is served
in passes: 4-byte (and smaller) accesses in one pass of 32 lanes (a half-warp per pass on
sm_1x), 8-byte accesses in two half-warp passes, 16-byte accesses in four quarter-warp passes
(one pass moves at most ``banks * width`` = 128 bytes). In a pass, lanes that read the same
word are served together (broadcast); the pass needs as many wavefronts as the largest number
of *distinct* words any one bank must deliver. Wavefronts per request = the sum over passes
with an active lane; the conflict degree ("n-way") is that divided by the number of passes.
Measured on an H200 (``shared/groundtruth``): row 1, ``[32][32]`` column 32, padded ``[32][33]``
column 1, stride 2: 2, contiguous double 2, contiguous float4 4.

Not modelled: the compiler fusing neighbouring scalar loads into a 128-bit load (seen in the
tiled matrix product: 1.2 measured where the source-level model says 1), and Kepler's 8-byte
bank mode.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Callable, Optional

import sympy as sp

from . import symbolic as S
from .coalescing import pattern_geometry
from .lanes import AddressEvaluator, WarpAddresses, num, thread_values


@dataclass
class SharedCost:
    pattern: str
    wavefronts_per_request: Optional[float] = None
    min_wavefronts: Optional[float] = None  # passes with an active lane: the conflict-free cost
    ways: Optional[float] = None  # wavefronts / min_wavefronts
    stride: Optional[int] = None
    distinct_addresses: Optional[int] = None
    active_lanes: Optional[int] = None
    warp: Optional[int] = None
    why: str = ""
    notes: list = field(default_factory=list)
    per_warp: dict = field(default_factory=dict)
    exact: bool = True


def lanes_per_pass(elem_bytes: int, banks: int = 32, width: int = 4) -> int:
    return max(1, banks * width // max(elem_bytes, width))


def wavefronts(lanes: list[int], addrs: list[int], elem_bytes: int, banks: int = 32,
               width: int = 4) -> tuple[int, int]:
    """(wavefronts, passes with an active lane) for one request."""
    return _wavefronts(tuple(lanes), tuple(addrs), elem_bytes, banks, width)


@lru_cache(maxsize=8192)
def _wavefronts(lanes: tuple, addrs: tuple, elem_bytes: int, banks: int, width: int) -> tuple[int, int]:
    # memoised: a kernel's instantiations and loop iterations repeat the same warp's addresses
    if elem_bytes == 16:
        return _wavefronts_128(lanes, addrs, banks, width)
    per = lanes_per_pass(elem_bytes, banks, width)
    groups: dict = {}
    for l, a in zip(lanes, addrs):
        g = groups.setdefault(l // per, {})
        first = a // width
        last = (a + elem_bytes - 1) // width
        for wd in range(first, last + 1):
            g.setdefault(wd % banks, set()).add(wd)
    total = 0
    for g in groups.values():
        total += max(len(s) for s in g.values())
    return total, len(groups)


def _wavefronts_128(lanes: tuple, addrs: tuple, banks: int, width: int) -> tuple[int, int]:
    """(wavefronts, ideal wavefronts) of one 128-bit request (LDS.128/STS.128), served a
    half-warp at a time. A wavefront moves at most 128 bytes to the lanes; a group of four
    aligned lanes that all name one address gets it in one delivery (a broadcast), otherwise
    each distinct address of the group is a delivery of its own. A half-warp takes the most of
    its deliveries over eight and the most distinct words any bank holds among its addresses.

    Fitted to the 128-bit patterns measured on Hopper in real kernels (Nsight Compute; tests/
    data/sgemm-measured.json and the ground truth's mm_tiled16 and smem_float4): 32 contiguous
    16-byte lanes, 4 of 4 ideal; lanes 0-15 on one address and 16-31 on another, 2 of 2;
    lane/4 on 8 addresses 32 bytes apart, 2 of 2; lane%4 on 4 contiguous addresses, 4 of 4;
    lane%16 on 16 addresses 32 bytes apart, 8 of 4. Then checked on 14 patterns measured on
    an H200 afterwards (tests/microbench/lds128_patterns.cu; tests/test_banks.py), all
    predicted exactly: among them a full-warp broadcast (2), lane%2 (2), lane/2 (2), lane^1
    (4), lane*8 (32). The quarter-warp-per-pass model it replaces gets 7 of those 14 wrong
    (4 wavefronts for every pattern whose quads share an address)."""
    halves: dict = {}
    for l, a in zip(lanes, addrs):
        halves.setdefault(l // 16, {}).setdefault(l // 4, set()).add(a)
    total = ideal = 0
    per_pass = banks * width // 16  # deliveries a wavefront can make: 8
    for quads in halves.values():
        deliveries = sum(len(q) for q in quads.values())
        per_bank: dict = {}
        for a in set().union(*quads.values()):
            for wd in range(a // width, (a + 15) // width + 1):
                per_bank.setdefault(wd % banks, set()).add(wd)
        least = -(-deliveries // per_pass)
        total += max(least, max(len(v) for v in per_bank.values()))
        ideal += least
    return total, ideal


def shared_cost(wa_list: list[WarpAddresses], elem_bytes: Optional[int], banks: int = 32,
                width: int = 4) -> SharedCost:
    if not elem_bytes:
        return SharedCost("unknown", why="element size unknown")
    for st in ("data-dependent", "unknown"):
        w = next((w for w in wa_list if w.status == st), None)
        if w is not None:
            return SharedCost(st, why=w.why)
    oks = [w for w in wa_list if w.status == "ok"]
    if not oks:
        return SharedCost("unknown", why="no lane executes this access")
    best: Optional[SharedCost] = None
    per_warp = {}
    for w in oks:
        c = _warp_cost(w, elem_bytes, banks, width)
        per_warp[w.warp] = c.wavefronts_per_request
        if best is None or c.wavefronts_per_request > best.wavefronts_per_request + 1e-9:
            best = c
    best.per_warp = per_warp
    best.exact = not any(w.sampled or w.defaulted for w in oks)
    for w in oks:
        for n in w.notes:
            if n not in best.notes:
                best.notes.append(n)
    return best


def _warp_cost(w: WarpAddresses, E: int, banks: int, width: int) -> SharedCost:
    lanes = [ln.lane for ln in w.lanes]
    exp_wf = Fraction(0)
    exp_min = Fraction(0)
    geo = None
    for i, (p, addrs) in enumerate(w.scenarios):
        wf, passes = wavefronts([ln.lane for ln in w.lanes_of(i)] if w.scenario_lanes is not None
                                else lanes, addrs, E, banks, width)
        exp_wf += p * wf
        exp_min += p * passes
        if geo is None:
            geo = pattern_geometry(addrs, E)
    contiguous, n_distinct, stride = geo
    wf = float(exp_wf)
    mn = float(exp_min)
    ways = wf / mn if mn else None
    if n_distinct == 1 and len(lanes) > 1:
        pattern = "broadcast"
    elif contiguous:
        pattern = "coalesced"
    else:
        pattern = "strided"
    return SharedCost(pattern, wf, mn, ways, stride if pattern == "strided" else None, n_distinct,
                      len(lanes), w.warp)


# --------------------------------------------------------------------------- padding


def padded_address(dims: list, extents: list, elem_bytes: int, pad: int) -> sp.Expr:
    """Byte offset of ``arr[d0]...[dk]`` when the last extent grows by ``pad``."""
    ext = list(extents)
    ext[-1] = ext[-1] + pad
    addr = sp.Integer(0)
    for k, d in enumerate(dims):
        stride = 1
        for x in ext[k + 1:]:
            stride *= x
        addr += d * stride
    return addr * elem_bytes


def padding_for(accesses: list, extents: list, cost_of: Callable[[sp.Expr, tuple, int], SharedCost],
                banks: int = 32) -> Optional[int]:
    """Smallest padding of the last extent (in elements) that makes every access in
    ``accesses`` (objects with ``dims``, ``path``, ``elem_bytes``) conflict-free without
    making any of them worse; None when no padding up to ``banks`` does, or when an access of
    the array cannot be re-evaluated (not indexed with all its subscripts)."""
    if not extents or any(e is None for e in extents) or len(extents) < 2:
        return None
    if any(a.dims is None or a.elem_bytes is None for a in accesses):
        return None
    before = [cost_of(padded_address(a.dims, extents, a.elem_bytes, 0), a.path, a.elem_bytes)
              for a in accesses]
    if any(c.ways is None for c in before):
        return None
    for pad in range(1, banks + 1):
        ok = True
        for a, c0 in zip(accesses, before):
            c = cost_of(padded_address(a.dims, extents, a.elem_bytes, pad), a.path, a.elem_bytes)
            if c.ways is None or c.ways > 1.0 + 1e-9 or c.wavefronts_per_request > c0.wavefronts_per_request + 1e-9:
                ok = False
                break
        if ok:
            return pad
    return None


# --------------------------------------------------------------------------- warp-synchronous code


@dataclass
class WarpSyncHazard:
    """A shared-memory read that needs a value another lane of the same warp wrote earlier
    in the same region with no barrier in between and without ``volatile``: correct only if
    the warp runs in lockstep."""

    load: object  # AccessEvent
    store: object  # AccessEvent
    warp: int
    across_iterations: bool = False
    # both accesses are volatile: no stale register, but nothing orders the lanes (sm_70+)
    volatile: bool = False


def warp_sync_region(ev: AddressEvaluator, path: tuple, cache: dict) -> Optional[int]:
    """The warp whose threads alone may execute under ``path`` (at least two of them), when
    a thread-dependent condition confines execution to one warp of a larger block."""
    key = path
    if key in cache:
        return cache[key]
    res = None
    thread_syms = ev.syms.thread_symbols
    if any(isinstance(c, sp.Basic) and c.free_symbols & thread_syms for c in path):
        model = ev.model
        warps = set()
        possible = 0
        for w0 in range(0, model.nthreads, model.warp_size):  # a warp's threads at once
            tids = range(w0, min(w0 + model.warp_size, model.nthreads))
            for t, a in zip(tids, ev.threads_active(tids, path)):
                if a is False:
                    continue
                possible += 1
                warps.add(model.warp_of(t))
                if len(warps) > 1:
                    break
            if len(warps) > 1:
                break
        if len(warps) == 1 and possible >= 2 and model.nwarps > 1:
            res = next(iter(warps))
    cache[key] = res
    return res


def _lane_addresses(ev: AddressEvaluator, expr: sp.Expr, lanes: list, fill: int) -> Optional[dict]:
    e = ev.b.bind(expr)
    others = sorted(e.free_symbols - ev.syms.thread_symbols, key=lambda s: s.name)
    vals = {s: fill for s in others}
    out = {}
    for ln in lanes:
        v = num(e, {**vals, **thread_values(ev.syms, ln)})
        if v is None:
            return None
        out[ln.lane] = v
    return out


def warp_sync_hazards(events: list, ev: AddressEvaluator,
                      independent_threads: bool = False) -> list[WarpSyncHazard]:
    """Find reads of shared words written by another lane of the same warp, in code confined
    to one warp, with no ``__syncwarp``/``__syncthreads`` between and no ``volatile``.
    With ``independent_threads`` (sm_70 and newer: independent thread scheduling) ``volatile``
    does not make it safe: it keeps the value out of registers, but the lanes need not run in
    lockstep, so the read may come before the other lane's write (CUDA C++ Programming Guide,
    compute capability 7.x, independent thread scheduling)."""
    cache: dict = {}
    shared = [e for e in events if e.space == "shared" and not e.atomic and e.elem_bytes]
    regional = []
    for e in shared:
        w = warp_sync_region(ev, e.path, cache)
        if w is not None:
            regional.append((e, w))
    out: list[WarpSyncHazard] = []
    reported = set()  # one finding per (warp, barrier interval, array)
    lanes_of: dict = {}
    for load, w in sorted(regional, key=lambda x: x[0].seq):
        if load.kind != "load":
            continue
        region = (w, load.epoch, load.pointer.base)
        if region in reported:
            continue
        best = None
        best_rank = None
        inner = load.loops[-1] if load.loops else None
        for store, w2 in regional:
            if store.kind != "store" or w2 != w or store.pointer.base is not load.pointer.base:
                continue
            if load.volatile and store.volatile and not independent_threads:
                continue
            across = False
            if store.seq < load.seq:
                if store.epoch != load.epoch:
                    continue
            else:
                common = [li for li in load.loops if li in store.loops]
                if not common or common[-1].has_barrier:
                    continue
                across = True
            # Prefer a write in the load's own loop, then the nearest preceding one.
            same_loop = inner is not None and inner in store.loops
            rank = (same_loop, not across, store.seq if not across else -store.seq)
            if best_rank is not None and rank <= best_rank:
                continue
            lanes = lanes_of.setdefault(w, ev.model.lanes(w))
            if _cross_lane(ev, load, store, w, lanes):
                best, best_rank = (store, across), rank
        if best is not None:
            reported.add(region)
            out.append(WarpSyncHazard(load, best[0], w, best[1],
                                      bool(load.volatile and best[0].volatile)))
    return out


def _cross_lane(ev: AddressEvaluator, load, store, w: int, lanes: list) -> bool:
    """Whether some lane reads a word that a different lane wrote."""
    la = ev.active_lanes(w, load.path, lanes)
    sa = ev.active_lanes(w, store.path, lanes)
    if len(set(l.lane for l in la) | set(l.lane for l in sa)) < 2:
        return False
    # When what separates the read from the write is an unknown size (`shared + C` against
    # `shared`), a small stand-in value can make them overlap where a real size would not:
    # only an overlap for every stand-in value (1024 too, the default size) is evidence then.
    diff = ev.b.bind(load.offset) - ev.b.bind(store.offset)
    sized = any(ev.syms.kind(x) in (S.PARAM, S.TEMPLATE) for x in getattr(diff, "free_symbols", ()))
    seen = []
    for fill in ((1, 2, 16, 1024) if sized else (1, 2, 16)):
        A = _lane_addresses(ev, load.offset, la, fill)
        B = _lane_addresses(ev, store.offset, sa, fill)
        if A is None or B is None:
            continue
        writers: dict = {}
        for l, a in B.items():
            writers.setdefault(a, set()).add(l)
        seen.append(any(writers.get(a, set()) - {l} for l, a in A.items()))
    return bool(seen) and (all(seen) if sized else any(seen))

