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


def block_mean(a, field: str, block: Optional[tuple]) -> Optional[float]:
    """``field`` of access ``a`` averaged over the warps of a block, where ``field`` is the
    worst warp's: the counters total every warp's requests. The representative warps
    (lanes.LaneModel.representative_warps: warp 0, the middle one, a partial last one) stand
    for the full warps alike, each warp issuing as many requests; a partial last warp counts
    once (120 threads: three warps of 32 lanes and one of 24, which moves 3 sectors, not 4:
    Parboil lbm measured 3.75 sectors per request on an H200, 4 before). None where it does
    not apply (one warp, or a figure refined after the cost)."""
    if not block:
        return None
    n = 1
    for c in block:
        n *= int(c)
    nwarps, rest = -(-n // 32), n % 32
    per = getattr(getattr(a, "cost", None), "per_warp", None) or {}
    v = getattr(a, field, None)
    last = nwarps - 1
    if nwarps < 2 or v is None or len(per) < 2:
        return None
    if abs(max(per.values()) - float(v)) > 1e-9:
        return None  # the figure was refined after the cost (lanes leaving loops, guards)
    if not rest or last not in per:
        return sum(per.values()) / len(per)
    full = [x for w, x in per.items() if w != last]
    return (sum(full) / len(full) * (nwarps - 1) + per[last]) / nwarps


def weighted_figure(accesses, space: str, kind: str, field: str,
                    block: Optional[tuple] = None) -> Optional[float]:
    """Request-weighted mean of ``field`` over the issued accesses of one space and kind
    (averaged over the block's warps where its last warp is partial: :func:`block_mean`)."""
    rows = [a for a in accesses if a.space == space and a.kind == kind and not a.atomic
            and getattr(a, "issued", True)]
    if not rows:
        return None
    vals = [getattr(a, field) for a in rows]
    vals = [m if (m := block_mean(a, field, block)) is not None else v for a, v in zip(rows, vals)]
    # requests of predicated branches that move nothing (requests.predicated) count with 0
    vals = [v * getattr(a, "moving_share", 1.0) if v is not None else None for a, v in zip(rows, vals)]
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


def _block(kf) -> Optional[tuple]:
    lc = getattr(kf, "launch", None)
    b = getattr(lc, "block", None)
    return tuple(b) if b else None


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
                v = weighted_figure(accesses, space, kind, field, _block(kf))
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
