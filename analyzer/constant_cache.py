"""What a warp's read of ``__constant__`` memory costs.

The constant cache broadcasts one address to the lanes that ask for it: constant memory is
fast "when all threads simultaneously access the same location" (Kirk & Hwu, section 5.2);
"it should be used when all the threads in a warp read the same address. Otherwise, the
accesses will serialize" (CUDA Application Design and Development, "Constant Memory"). The
CUDA C Programming Guide states the rule for every compute capability: a request is split
into as many separate requests as there are different addresses in it, dividing throughput by
that number. So one warp request costs as many serialised constant-cache accesses as the
warp's active lanes ask for distinct addresses.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional


@dataclass
class ConstantCost:
    pattern: str  # broadcast | divergent | data-dependent | unknown
    addresses_per_request: Optional[float] = None  # distinct addresses (worst warp, expected)
    active_lanes: Optional[int] = None
    warp: Optional[int] = None
    exact: bool = True
    why: str = ""
    notes: list = field(default_factory=list)


def constant_cost(wa_list: list, elem_bytes: Optional[int]) -> ConstantCost:
    """Distinct addresses one warp request asks the constant cache for (the worst warp)."""
    for st in ("data-dependent", "unknown"):
        w = next((w for w in wa_list if w.status == st), None)
        if w is not None:
            return ConstantCost(st, why=w.why)
    oks = [w for w in wa_list if w.status == "ok"]
    if not oks:
        return ConstantCost("unknown", why="no lane executes this access")
    best: Optional[ConstantCost] = None
    for w in oks:
        expected = Fraction(0)
        for p, addrs in w.scenarios:
            expected += p * len(set(addrs))
        n = float(expected)
        if best is None or n > best.addresses_per_request + 1e-9:
            best = ConstantCost("broadcast" if n <= 1 + 1e-9 else "divergent", n, len(w.lanes), w.warp)
    best.exact = not any(w.sampled or w.defaulted for w in oks)
    for w in oks:
        best.notes.extend(x for x in w.notes if x not in best.notes)
    return best
