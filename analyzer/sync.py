"""Barrier and race facts of one kernel (``KernelFacts.sync``): its CFG and uniformity, the
per-thread run that finds shared-memory races, and the warp-divergence statistics.

Built by the pipeline when the run needs it; the two simulations (races, divergence) run the
first time a consumer reads them, since a kernel's CL6xx rules may stop before needing both.
"""
from __future__ import annotations

from typing import Optional

from . import ir
from .cfg import CFG
from .launch import LaunchConfig, fit_block
from .races import Simt, find_races
from .uniformity import DivergenceFacts, Uniformity, _uniform_fn, warp_divergence


class KernelSync:
    """``cfg`` and ``uni`` at once; ``sim`` (the race run), ``races`` and ``divergence`` on
    first use. ``block`` is the block the race run simulated, ``block_note`` why it is not the
    launch's (see :func:`~.launch.fit_block`), ``races_checked`` whether races were looked for."""

    def __init__(self, kernel: ir.Function, launch: LaunchConfig, params: dict):
        self.kernel = kernel
        self.launch = launch
        self.params = params  # launch-site argument values, overridden by --param
        self.cfg = CFG(kernel)
        self.uni = Uniformity(kernel, self.cfg)
        self._sim: Optional[Simt] = None
        self._div: Optional[DivergenceFacts] = None
        self.block = tuple(launch.block)
        self.block_note = ""
        self.races_checked = True

    @property
    def sim(self) -> Simt:
        if self._sim is None:
            self._sim = self._run_races()
        return self._sim

    def _run_races(self) -> Simt:
        lc = self.launch
        loops = {lp for lp in self.cfg.loop_nodes if self.cfg.loop_has_barrier(lp)}

        def trial(block: tuple):
            s = find_races(self.kernel, block, lc.grid, self.params, _uniform_fn(self.uni),
                           lc.dynamic_smem, loops)
            return s, [v.name for v in s.out_of_bounds]

        block, sim, self.block_note = fit_block(lc, trial)
        if lc.source == "default" and sim.races:
            if uses_thread_dims(self.kernel, ("y", "z")):
                # a 2-D/3-D kernel checked with the stated 1-D default: meaningless pairs
                sim.races = {}
                self.block_note = ("no launch found and the kernel indexes threadIdx.y/z: "
                                   "races not checked (pass --block)")
                self.races_checked = False
            elif block[0] > 64:
                # The block size is a guess: keep what also happens with two warps.
                s64, _ = trial((64, 1, 1))
                keep = {(id(r.a), id(r.b)) for r in s64.races.values()} | \
                    {(id(r.b), id(r.a)) for r in s64.races.values()}
                sim.races = {k: r for k, r in sim.races.items() if (id(r.a), id(r.b)) in keep}
        self.block = block
        return sim

    @property
    def races(self) -> list:
        return sorted(self.sim.races.values(), key=lambda r: (r.b.range.line, r.b.range.column,
                                                               r.a.range.line, r.a.range.column))

    @property
    def divergence(self) -> DivergenceFacts:
        if self._div is None:
            self._div = warp_divergence(self.kernel, self.launch.block, self.launch.grid,
                                        self.params, self.uni)
        return self._div

    def to_json(self) -> dict:
        """``explain``'s ``sync``: the block the race check simulated, whether it could check
        races and finished, the barriers, and every race with its witness threads."""
        try:
            races = self.races
            sim = self.sim
        except Exception as exc:  # noqa: BLE001 - explain reports, never raises
            return {"error": f"{type(exc).__name__}: {exc}"}
        return {
            "block": list(self.block),
            "block_note": self.block_note,
            "barriers": [n.line for n in self.cfg.barriers()],
            "races_checked": self.races_checked,
            "complete": bool(sim.complete),
            "races": [r.to_json() for r in races],
        }


def uses_thread_dims(fn: ir.Function, comps: tuple, depth: int = 0, seen=None) -> bool:
    """Whether ``fn`` (or a device function it calls) reads threadIdx.<comp> for a comp in
    ``comps`` (or blockDim.<comp>)."""
    seen = seen if seen is not None else set()
    if id(fn) in seen or depth > 8:
        return False
    seen.add(id(fn))
    for e in fn.expressions():
        if isinstance(e, ir.Builtin) and e.name in ("threadIdx", "blockDim") and e.component in comps:
            return True
        if isinstance(e, ir.Call) and e.function is not None and \
                uses_thread_dims(e.function, comps, depth + 1, seen):
            return True
        if isinstance(e, ir.Call) and e.callee in ("thread_index", "dim_threads"):
            return True
    return False
