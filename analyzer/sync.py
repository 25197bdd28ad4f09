"""Barrier and race facts of one kernel (``KernelFacts.sync``): its CFG and uniformity, the
per-thread run that finds shared-memory races (and, over two to four blocks side by side,
global-memory races: analyzer/global_races.py), and the warp-divergence statistics.

Built by the pipeline when the run needs it; the two simulations (races, divergence) run the
first time a consumer reads them, since a kernel's CL6xx rules may stop before needing both.
"""
from __future__ import annotations

from typing import Optional

from . import ir
from .cfg import CFG
from .global_blocks import coverage, global_blocks, grid_blocks, more_blocks, uses_block_index
from .global_races import probe_candidates
from .launch import LaunchConfig, default_reason, fit_block, partly_known
from .races import Simt, find_races
from .uniformity import DivergenceFacts, Uniformity, _uniform_fn, warp_divergence


class KernelSync:
    """``cfg`` and ``uni`` at once; ``sim`` (the race run), ``races`` and ``divergence`` on
    first use. ``block`` is the block the race run simulated, ``block_note`` why it is not the
    launch's (see :func:`~.launch.fit_block`), ``races_checked`` whether races were looked for."""

    def __init__(self, kernel: ir.Function, launch: LaunchConfig, params: dict,
                 global_check: bool = True, given: Optional[dict] = None):
        self.kernel = kernel
        self.launch = launch
        self.params = params  # launch-site argument values, overridden by --param
        self.cfg = CFG(kernel)
        # ``given``: the --param values; with the values every launch site agrees on, what a
        # condition may be judged by for every launch
        agreed = {**getattr(launch, "agreed_params", {}), **(given or {})}
        self.uni = Uniformity(kernel, self.cfg, block_params=getattr(launch, "block_params", None),
                              block=tuple(launch.block) if launch.block else None,
                              known_block=tuple(launch.block) if getattr(launch, "block_agreed", False)
                              and launch.block else None,
                              known_params=agreed)
        self._sim: Optional[Simt] = None
        self._div: Optional[DivergenceFacts] = None
        self.block = tuple(launch.block)
        self.block_note = ""
        self.races_checked = True
        self.global_note = ""  # what the global-memory race check assumed
        self.global_comps: set = set()  # blockIdx components the kernel reads
        self.global_check = global_check  # run the global-memory race check (CL606/CL607)
        self.global_extra: list = []  # blocks a second run added (global_blocks.more_blocks)
        # the launch's grid; without a resolved block, the grid its site still gives
        site = getattr(launch, "site", None)
        self.global_grid = launch.grid or (site.grid if site is not None else None)

    @property
    def sim(self) -> Simt:
        if self._sim is None:
            self._sim = self._run_races()
        return self._sim

    def _run_races(self) -> Simt:
        lc = self.launch
        loops = {lp for lp in self.cfg.loop_nodes if self.cfg.loop_has_barrier(lp)}
        self.global_comps = uses_block_index(self.kernel)
        # the same blocks with or without the global check: CL602/CL603 see the same run
        blocks, self.global_note = global_blocks(self.global_grid, self.global_comps,
                                                 one_d=getattr(lc, "grid_1d", False))

        def run(block: tuple, extra: Optional[dict] = None, more: Optional[list] = None,
                stop_on_overrun: bool = False, **kw):
            return find_races(self.kernel, block, self.global_grid, {**self.params, **(extra or {})},
                              _uniform_fn(self.uni), lc.dynamic_smem, loops, blocks=blocks + (more or []),
                              global_check=self.global_check, stop_on_overrun=stop_on_overrun, **kw)

        def trial(block: tuple, only_fit: bool = False):
            s = run(block, stop_on_overrun=only_fit)
            return s, [v.name for v in s.out_of_bounds]

        block, sim, self.block_note = fit_block(lc, trial)
        g_races = sim.glog.races if sim.glog is not None else {}
        part = partly_known(lc)
        if part is not None:
            # some block components known, the others assumed: what the kernel does along an
            # assumed component is made up; the known ones keep their shape (no 1-D trials)
            guessed = tuple(d for d, c in zip("xyz", part) if c is None)
            if (sim.races or g_races) and uses_thread_dims(self.kernel, guessed):
                sim.races = {}
                if sim.glog is not None:
                    sim.glog.races = {}
                self.block_note = (f"{default_reason(lc)}, and the kernel reads "
                                   + "/".join(f"threadIdx.{d}" for d in guessed)
                                   + ": races not checked (pass --block)")
                self.races_checked = False
        elif lc.source == "default" and (sim.races or g_races):
            if uses_thread_dims(self.kernel, ("y", "z")):
                # a 2-D/3-D kernel checked with the stated 1-D default: meaningless pairs
                sim.races = {}
                if sim.glog is not None:
                    sim.glog.races = {}
                self.block_note = ("no launch found and the kernel indexes threadIdx.y/z: "
                                   "races not checked (pass --block)")
                self.races_checked = False
            elif block[0] > 64:
                # The block size is a guess: keep what also happens with two warps.
                s64, _ = trial((64, 1, 1))
                keep = {(id(r.a), id(r.b)) for r in s64.races.values()} | \
                    {(id(r.b), id(r.a)) for r in s64.races.values()}
                sim.races = {k: r for k, r in sim.races.items() if (id(r.a), id(r.b)) in keep}
        if sim.glog is None:
            self.block = block
            return sim
        if lc.source == "default" and part is None and sim.glog.races:
            if sim.out_of_bounds:
                # the guessed block overruns the kernel's shared arrays: it is not the block
                # the kernel is written for, and neither are its global indices
                sim.glog.races = {}
                self.global_note = ("no launch found and the assumed block overruns shared "
                                    "memory: global races not checked (pass --block)")
            elif block[0] > 32:
                # The block size is a guess: keep what also happens with one warp (a kernel
                # written for 16-thread blocks overlaps its neighbours at 256).
                s32 = run((32, 1, 1))
                sim.glog.races = {k: r for k, r in sim.glog.races.items() if k in s32.glog.races}
        if sim.glog.complete and self.races_checked:
            self._more_blocks(sim, lambda more, **kw: run(block, None, more, **kw))
        if sim.glog.complete and self.races_checked and probe_candidates(sim.glog):
            self._probe_parameters(sim, lambda extra, **kw: run(block, extra, **kw))
        self.block = block
        return sim

    def _more_blocks(self, sim: Simt, run) -> None:
        """Blocks whose addresses can meet at a distance the sampled blocks do not cover
        (global_blocks.more_blocks): one more run with them; its global races are added, each
        naming its threads in that run's thread set."""
        more = more_blocks(sim.glog.probe_sig, sim.ts, self.global_grid, self.global_comps)
        if not more:
            return
        # (a pair this run already has a certain race for keeps it: not looked for again)
        s2 = run(more, global_known=frozenset(k for k, r in sim.glog.races.items() if r.certain))
        self.global_extra = more
        for k, r in s2.glog.races.items():
            old = sim.glog.races.get(k)
            if old is None or (r.certain and not old.certain):
                r.ts = s2.ts
                sim.glog.races[k] = r

    def _probe_parameters(self, sim: Simt, run) -> None:
        """An array indexed both with and without an integer parameter that has no known value
        (``A[tid]`` and ``A[tid + offset]``): find the values of the parameter at which two
        threads meet (two runs, at 0 and 1, give each index's slope), and rerun with the
        nearest one. Races of that run are kept, saying which value makes them happen."""
        from .global_races import MAX_PROBED_PARAMS, _slope, candidate_values, shifts_an_index

        unknown = [p for p in self.kernel.params if p.name not in self.params and
                   p.type.kind == "scalar" and not p.type.is_float and
                   shifts_an_index(self.kernel, p.name)][:MAX_PROBED_PARAMS]
        for p in unknown:
            # the two slope runs need the accesses only, not their races; a candidate run's
            # races are kept only where this run has none
            rows = _slope(run({p.name: 0}, pairs=False).glog.probe_sig,
                          run({p.name: 1}, pairs=False).glog.probe_sig)
            if not rows:
                continue
            for val in candidate_values(rows, sim.ts):
                sp = run({p.name: val}, global_known=frozenset(sim.glog.races))
                new = {k: r for k, r in sp.glog.races.items() if k not in sim.glog.races}
                for k, r in new.items():
                    r.assumed = f"{p.name} = {val}"
                    sim.glog.races[k] = r
                if new:
                    return

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
            "global": self._global_json(sim),
        }

    def global_coverage(self) -> tuple[str, str]:
        """What the blocks the global check ran cover of the grid (global_blocks.coverage)."""
        kind, note = coverage(self.sim.ts.blocks + self.global_extra, self.global_grid, self.global_comps)
        if self.global_extra:
            note += ("; blocks " + ", ".join(str(b[0]) for b in self.global_extra) + " added, where "
                     "the addresses of blocks that many apart meet")
        return kind, note

    def _global_json(self, sim: Simt) -> dict:
        """The global-memory race check (CL606/CL607): arrays checked, blocks run side by side,
        whether it finished within its budgets, the races with their witnesses."""
        g = sim.glog
        if g is None:
            return {"checked": False}
        races = sorted(g.races.values(), key=lambda r: (r.b.range.line, r.a.range.line))
        cov, cov_note = self.global_coverage()
        return {"checked": self.races_checked, "arrays": list(getattr(g, "arrays", [])),
                "written": list(getattr(g, "written", [])),
                "blocks": [list(b) for b in sim.ts.blocks + self.global_extra],
                "grid": list(self.global_grid) if self.global_grid else None,
                "grid_blocks": grid_blocks(self.global_grid),
                "coverage": cov, "coverage_note": cov_note,
                "grid_barriers": g.grid_barriers,
                "complete": bool(g.complete and sim.complete),
                "incomplete_reason": g.reason or (sim.incomplete_reason if not sim.complete else ""),
                "note": self.global_note,
                "races": [r.to_json(r.ts or sim.ts) for r in races]}


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
