"""Global-memory coalescing: what one warp-level request of an access costs.

Hardware model (per compute capability):

- **sm_50 and newer** (and sm_3x, whose global loads bypass L1 by default): the request is
  served in 32-byte *sectors*; its cost is the number of distinct sectors the active lanes
  touch, with buffers 256-byte aligned. 32 consecutive floats: 4; offset by one float: 5;
  stride 2: 8; a column of a row-major matrix: 32; all lanes on one word: 1; float2: 8;
  float4: 16 (each lane's element may span several sectors).
- **sm_2x cached loads** (the default on Fermi, seed Table 5.10): the unit is the 128-byte L1
  line; aligned: 1 line (100 %), misaligned: 2 (50 %), N scattered words: N lines (1/N).
- **sm_2x uncached loads / all stores** (``-dlcm=cg``, seed Table 5.11): 32-byte segments,
  the sector model above (misaligned 80 %, scattered 12.5 %).
- **sm_1x** (compute 1.2/1.3): each half-warp separately, one transaction per 32/64/128-byte
  segment touched, each shrunk to the half that is used; compute 1.0/1.1 coalesce a half-warp
  only when lane k reads the k-th word of an aligned segment, else one transaction per lane.

``efficiency`` = bytes the active lanes need (distinct addresses × element size) / bytes
fetched; averaged over scenarios as total needed / total fetched, the way Nsight Compute
aggregates it. Patterns: coalesced, misaligned, strided (with the stride in elements),
broadcast, data-dependent, unknown.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
import math
from fractions import Fraction
from typing import Optional

from .lanes import MODULUS, WarpAddresses

SECTOR = 32
LINE = 128


@dataclass
class GlobalCost:
    pattern: str
    sectors_per_request: Optional[float] = None  # transactions per request (sectors, lines, segments)
    efficiency: Optional[float] = None  # 0..1
    stride: Optional[int] = None  # elements between neighbouring lanes (strided)
    unit_bytes: int = SECTOR
    contiguous_sectors: Optional[float] = None  # what the same lanes would cost reading contiguous elements
    ideal_sectors: Optional[float] = None  # minimum for the distinct bytes actually needed
    distinct_addresses: Optional[int] = None
    active_lanes: Optional[int] = None
    warp: Optional[int] = None
    why: str = ""
    notes: list = field(default_factory=list)
    per_warp: dict = field(default_factory=dict)  # warp -> sectors
    exact: bool = True
    min_sectors: Optional[float] = None  # the cheapest scenario (alignment) of the reported warp
    # the lanes that execute the access change from one sampled iteration to the next (a
    # guard on a loop-doubled variable) and, in the first one, are not adjacent lanes: the
    # stride is between the executing lanes, not neighbouring lanes
    stride_between_executing: bool = False


def transaction_mode(cc: tuple[int, int], kind: str, cached_hint: Optional[bool] = None) -> str:
    """'sector' (32-byte units), 'line' (128-byte L1 lines) or 'sm1x'."""
    major = cc[0]
    if major <= 1:
        return "sm1x" if cc >= (1, 2) else "sm10"
    if major == 2 and kind == "load":
        return "line" if cached_hint is not False else "sector"
    return "sector"


def units_touched(addrs: list[int], elem_bytes: int, unit: int) -> int:
    """Distinct ``unit``-byte blocks covered by the elements at ``addrs``."""
    seen = set()
    for a in addrs:
        first = a // unit
        last = (a + elem_bytes - 1) // unit
        seen.add(first)
        if last != first:
            seen.update(range(first + 1, last + 1))
    return len(seen)


def sm1x_transactions(lanes: list[int], addrs: list[int], elem_bytes: int, cc: tuple) -> tuple[int, int]:
    """(transactions, bytes fetched) for one warp on compute 1.x (per half-warp)."""
    tx = fetched = 0
    for half in (0, 1):
        sel = [(l, a) for l, a in zip(lanes, addrs) if l // 16 == half]
        if not sel:
            continue
        if cc < (1, 2):
            seg = 16 * elem_bytes
            base = sel[0][1] - (sel[0][0] % 16) * elem_bytes
            ok = elem_bytes in (4, 8, 16) and base % seg == 0 and \
                all(a == base + (l % 16) * elem_bytes for l, a in sel)
            if ok:
                n = 2 if elem_bytes == 16 else 1
                tx += n
                fetched += seg
            else:
                tx += len(sel)
                fetched += len(sel) * max(32, elem_bytes)
            continue
        size0 = 32 if elem_bytes == 1 else 64 if elem_bytes == 2 else 128
        remaining = sorted(a for _, a in sel)
        while remaining:
            lo = remaining[0]
            seg = lo // size0
            inside = [a for a in remaining if a // size0 == seg]
            remaining = [a for a in remaining if a // size0 != seg]
            start = seg * size0
            used_lo = min(inside)
            used_hi = max(inside) + elem_bytes
            size = size0
            while size > 32:
                half_sz = size // 2
                if used_hi <= start + half_sz:
                    size = half_sz
                elif used_lo >= start + half_sz:
                    start += half_sz
                    size = half_sz
                else:
                    break
            tx += 1
            fetched += size
    return tx, fetched


def pattern_geometry(addrs: list[int], elem_bytes: int) -> tuple[bool, int, Optional[int]]:
    """(distinct addresses contiguous?, number of distinct addresses, stride in elements)."""
    uniq = sorted(set(addrs))
    contiguous = all(b - a == elem_bytes for a, b in zip(uniq, uniq[1:]))
    stride = None
    if len(uniq) > 1:
        if len(addrs) > 1 and addrs[1] != addrs[0]:
            d = addrs[1] - addrs[0]
        else:
            d = next((b - a for a, b in zip(addrs, addrs[1:]) if b != a), 0)
        if d and d % elem_bytes == 0:
            stride = d // elem_bytes
        elif d:
            stride = None
    return contiguous, len(uniq), stride


def global_cost(wa_list: list[WarpAddresses], elem_bytes: Optional[int], cc: tuple = (9, 0),
                kind: str = "load", cached: Optional[bool] = None) -> GlobalCost:
    """Cost of one global access from its per-warp addresses; the worst warp is reported."""
    if not elem_bytes:
        return GlobalCost("unknown", why="element size unknown")
    statuses = [w.status for w in wa_list]
    for st in ("data-dependent", "unknown"):
        if st in statuses:
            w = next(w for w in wa_list if w.status == st)
            return GlobalCost(st, why=w.why)
    oks = [w for w in wa_list if w.status == "ok"]
    if not oks:
        return GlobalCost("unknown", why="no lane executes this access")
    mode = transaction_mode(cc, kind, cached)
    unit = LINE if mode == "line" else SECTOR
    best: Optional[GlobalCost] = None
    per_warp = {}
    for w in oks:
        c = _warp_cost(w, elem_bytes, mode, unit, cc)
        per_warp[w.warp] = c.sectors_per_request
        if best is None or c.sectors_per_request > best.sectors_per_request + 1e-9:
            best = c
    best.per_warp = per_warp
    # a default that only moves the warp, to an offset where every other value it could take
    # costs the same, is not an assumption the figures rest on
    free = {id(w) for w in oks if w.defaulted and _offset_free(w, elem_bytes, mode, unit, cc)}
    best.exact = not any(w.sampled or (w.defaulted and id(w) not in free) for w in oks)
    dropped = {n for w in oks if id(w) in free for n in w.default_notes}
    kept = {n for w in oks if id(w) not in free for n in w.notes}
    for w in oks:
        for n in w.notes:
            if n not in best.notes and (n not in dropped or n in kept):
                best.notes.append(n)
    return best


def _offset_free(w: WarpAddresses, E: int, mode: str, unit: int, cc: tuple) -> bool:
    """Whether the warp's cost is the same at every offset its defaulted values could move it
    to (``w.default_step``): then it holds for any value of them."""
    step = w.default_step
    if not step:
        return False
    base = _warp_cost(w, E, mode, unit, cc)
    # a shift by a whole number of units moves every lane's unit alike: the cost depends on the
    # shift modulo the unit only (sm 1.x's segments halve from 128 bytes: its modulus is whole)
    period = unit if mode in ("sector", "line") else MODULUS
    tried = set()
    for s in range(step, MODULUS, step):
        if s % period in tried:
            continue
        tried.add(s % period)
        moved = replace(w, scenarios=[(p, [a + s for a in addrs]) for p, addrs in w.scenarios])
        c = _warp_cost(moved, E, mode, unit, cc)
        if (c.pattern, c.sectors_per_request, c.efficiency) != \
                (base.pattern, base.sectors_per_request, base.efficiency):
            return False
    return True


def _warp_cost(w: WarpAddresses, E: int, mode: str, unit: int, cc: tuple) -> GlobalCost:
    lanes = [ln.lane for ln in w.lanes]
    n_active = len(lanes)
    # Fraction weights: sums of integer numerators over their common denominator D, one
    # Fraction each at the end (the same exact values, without a Fraction per product)
    weights = [p for p, _ in w.scenarios]
    D = math.lcm(*[p.denominator for p in weights]) if all(type(p) is Fraction for p in weights) else None
    if D is not None:
        weights = [p.numerator * (D // p.denominator) for p in weights]
    exp_units = Fraction(0) if D is None else 0
    exp_needed = Fraction(0) if D is None else 0
    exp_fetched = Fraction(0) if D is None else 0
    exp_ideal = Fraction(0) if D is None else 0
    exp_contig = Fraction(0) if D is None else 0
    geo = None
    gapped = False
    min_units = None
    for i, (p, (_, addrs)) in enumerate(zip(weights, w.scenarios)):
        if w.scenario_lanes is not None:  # this scenario's own active lanes
            lanes = [ln.lane for ln in w.lanes_of(i)]
            n_active = len(lanes)
        uniq = set(addrs)
        needed = len(uniq) * E
        if mode in ("sm1x", "sm10"):
            n, fetched = sm1x_transactions(lanes, addrs, E, cc)
            contig_n, _ = sm1x_transactions(lanes, [i * E for i in range(n_active)], E, cc)
            ideal, _ = sm1x_transactions(lanes[:len(uniq)], [i * E for i in range(len(uniq))], E, cc)
        else:
            n = units_touched(addrs, E, unit)
            fetched = n * unit
            contig_n = -(-(n_active * E) // unit)
            ideal = -(-needed // unit)
        exp_units += p * n
        min_units = n if min_units is None else min(min_units, n)
        exp_needed += p * needed
        exp_fetched += p * fetched
        exp_ideal += p * ideal
        exp_contig += p * contig_n
        if geo is None:
            geo = pattern_geometry(addrs, E)
            gapped = w.scenario_lanes is not None and any(b - a != 1 for a, b in zip(lanes, lanes[1:]))
    if D is not None:
        exp_units, exp_needed, exp_fetched, exp_ideal, exp_contig = (
            Fraction(x, D) for x in (exp_units, exp_needed, exp_fetched, exp_ideal, exp_contig))
    contiguous, n_distinct, stride = geo
    n_active = len(w.lanes)
    sectors = float(exp_units)
    eff = float(exp_needed / exp_fetched) if exp_fetched else None
    if n_distinct == 1 and n_active > 1:
        pattern = "broadcast"
    elif exp_units <= exp_ideal:
        pattern = "coalesced"
    elif contiguous:
        pattern = "misaligned"
    else:
        pattern = "strided"
    return GlobalCost(pattern, sectors, eff, stride if pattern == "strided" else None, unit,
                      float(exp_contig), float(exp_ideal), n_distinct, n_active, w.warp,
                      min_sectors=float(min_units), stride_between_executing=gapped)


def warp_request_cost(addrs: list[int], elem_bytes: int, cc: tuple = (9, 0), kind: str = "load",
                      cached: Optional[bool] = None, lanes: Optional[list[int]] = None) -> GlobalCost:
    """Cost of one warp request given the byte address of each active lane directly
    (lane ``i`` of ``lanes`` reads ``addrs[i]``; lanes default to 0..n-1)."""
    from .lanes import Lane
    lanes = lanes if lanes is not None else list(range(len(addrs)))
    w = WarpAddresses(0, "ok", [Lane(l, l, l, 0, 0) for l in lanes], [(Fraction(1), list(addrs))])
    return global_cost([w], elem_bytes, cc, kind, cached)
