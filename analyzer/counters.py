"""``predicted_counters``: the kernel-level figures ``validate`` compares with Nsight Compute,
computed without a GPU.

A counter ratio such as ``l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum /
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum`` is total sectors over total requests: the
mean of each access's sectors per request weighted by the requests it issues. The weights are
the request model's (:mod:`analyzer.requests`): loops, guards, and accesses the compiler keeps
in registers (weight 0). A figure is None when nothing of that kind is issued, or when an
issued access has no cost (data-dependent address) or no request count and the accesses of
that kind do not all cost the same.
"""
from __future__ import annotations

from typing import Optional

KEYS = ("global_ld_sectors_per_request", "global_st_sectors_per_request",
        "shared_ld_wavefronts_per_request", "shared_st_wavefronts_per_request",
        "local_ld_sectors_per_request", "local_st_sectors_per_request",
        "registers", "registers_source", "occupancy_pct")

_ROWS = (("global", "sectors_per_request", "global_{}_sectors_per_request"),
         ("shared", "wavefronts_per_request", "shared_{}_wavefronts_per_request"),
         ("local", "sectors_per_request", "local_{}_sectors_per_request"))


def weighted_figure(accesses, space: str, kind: str, field: str) -> Optional[float]:
    """Request-weighted mean of ``field`` over the issued accesses of one space and kind."""
    rows = [a for a in accesses if a.space == space and a.kind == kind and not a.atomic
            and getattr(a, "issued", True)]
    if not rows:
        return None
    vals = [getattr(a, field) for a in rows]
    weights = [getattr(a, "weight", None) for a in rows]
    if any(v is None for v, w in zip(vals, weights) if w != 0):
        return None
    live = [(v, w) for v, w in zip(vals, weights) if w != 0]
    if not live:
        return None
    if any(w is None for _, w in live):
        distinct = {round(float(v), 6) for v, _ in live}
        return float(live[0][0]) if len(distinct) == 1 else None
    den = sum(w for _, w in live)
    if den <= 0:
        return None
    return sum(float(v) * w for v, w in live) / den


class PredictedCounters(dict):
    """The DESIGN.md ``predicted_counters`` object (a plain dict in JSON; text: reporters/explain_text)."""

    def to_json(self) -> dict:
        return dict(self)


def predicted_counters(kf) -> dict:
    out = PredictedCounters({k: None for k in KEYS})
    tab = kf.accesses
    accesses = list(getattr(tab, "accesses", []) or []) if not getattr(tab, "error", "") else []
    if tab is not None and not getattr(tab, "error", ""):
        for space, field, key in _ROWS:
            for kind, short in (("load", "ld"), ("store", "st")):
                v = weighted_figure(accesses, space, kind, field)
                out[key.format(short)] = None if v is None else round(v, 4)
    res = kf.resources
    if res is not None:
        out["registers"] = getattr(res, "registers", None)
        out["registers_source"] = getattr(res, "registers_source", None)
    occ = kf.occupancy
    r = getattr(occ, "result", None)
    if r is not None and getattr(r, "occupancy", None) is not None:
        out["occupancy_pct"] = round(100.0 * r.occupancy, 2)
    return out
