"""Shared-memory races: pairing the per-barrier-interval access log of the per-thread
interpreter (:mod:`.simt`) into races with witness threads.

Two accesses of one interval (epoch) by different threads of the block, at least one a write,
to the same bytes are a race; the witness names both threads, the array and the element. An
epoch that spans the end of one loop iteration and the start of the next (no barrier at the
end of the body) is the interval around the loop's back edge: a race whose two accesses come
from different iterations of a loop that contains a barrier is reported separately (CL603:
write at the top of iteration i+1 against reads at the end of iteration i). Atomics do not
race with atomics; two stores of the same known value (or of values of the same provenance)
are not a race; accesses made under contradicting hypotheses (``tags``) are never paired.

Exactness: for one block of the analysed launch shape every thread is enumerated, so a race
reported here happens for those thread ids whenever the code runs (the values involved do not
depend on memory). A race found only through threads that *may* execute an access (a
data-dependent condition) is reported as possible (``certain = False``). A run that exceeds its
statement budget (``simt.STEP_BUDGET``) or the pair budget (``PAIR_BUDGET``) says so
(``complete = False``): races found before that point are still real, later code is unchecked.

Warp-confined races: a race whose every witness pairs two lanes of one warp, in code that only
one warp of a larger block executes (``if (tid < 32) { s[tid] += s[tid + 16]; ... }``), is the
warp-synchronous pattern that CL302 (rules/banks.py) reports; it is kept here with
``warp_confined = True`` and the CL602 rule leaves it to CL302. Any other race between lanes of
one warp -- e.g. a 32-thread block that leaves out ``__syncthreads()`` -- is reported: since
Volta (independent thread scheduling) the lanes of a warp are not guaranteed to run in lockstep.
One exception, within a single statement: in one execution of ``s[a] = f(s[b])`` each lane's
load of ``s[b]`` feeds its own store, and no branch lies between them: the lanes that reach the
statement together load before any of them stores (a store cannot be moved above the load it
depends on). A lane's load and another lane's store of that same execution are not paired (an
in-place transpose ``tile[x][y] = tile[y][x]`` within one warp: GPUVerify's ``warpsync/2d``).

The pairing reads only the :class:`~.simt_log.Access` records and the thread set, so it serves
any memory space the interpreter is asked to record.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from . import ir, simt
from .simt import STEP_BUDGET
from .simt_log import Access, ThreadSet, sample_blocks  # noqa: F401 - sample_blocks: for callers
from .simt_log import candidate_records, contested_groups, entries_by_record, entry_pair_chunks, same_stores
from .simt_log import element_text as _element_text, tags_compatible as _tags_compatible
from .global_races import GlobalLog, data_selected, reread
from .simt_values import _INT

MAX_PAIRS = 200_000
#: Record pairs (one shared access executed by a set of threads, against another) examined
#: in one run; a kernel that unrolls many loops over shared memory can have thousands of
#: records per barrier interval, and the pairwise join is quadratic. Past this the run stops
#: looking for races and says it is incomplete.
PAIR_BUDGET = 60_000


@dataclass
class Witness:
    thread_a: int  # linear thread index in the block
    thread_b: int
    byte_offset: int
    kind_a: str  # read | write
    kind_b: str
    certain: bool
    same_warp: bool
    iter_a: tuple = ()
    iter_b: tuple = ()


@dataclass
class Race:
    """Two accesses (``a`` executed first in program order) that race. ``back_edge`` is the
    loop whose consecutive iterations the witness pairs (None: one iteration)."""

    var: ir.Variable
    a: ir.Expr
    b: ir.Expr
    a_write: bool
    b_write: bool
    witness: Witness
    back_edge: Optional[ir.Loop] = None
    certain: bool = True
    cross_warp: bool = True
    warp_confined: bool = False
    element: str = ""  # `tile[1][0]`
    later: str = "b"  # across a back edge: which access runs in the later iteration
    confined: bool = True  # each access, in the witness's execution, runs in one warp only

    def to_json(self) -> dict:
        return {
            "array": self.var.name,
            "element": self.element,
            "first": {"line": self.a.range.line, "column": self.a.range.column,
                      "kind": "write" if self.a_write else "read"},
            "second": {"line": self.b.range.line, "column": self.b.range.column,
                       "kind": "write" if self.b_write else "read"},
            "threads": [self.witness.thread_a, self.witness.thread_b],
            "across_back_edge_of_loop": self.back_edge.range.line if self.back_edge else None,
            "certain": self.certain,
            "cross_warp": self.cross_warp,
            "warp_confined": self.warp_confined,
        }


class Simt(simt.Simt):
    """The interpreter with race pairing: each barrier interval's accesses are paired as the
    interval closes. Results: ``races`` ((id a, id b, across back edge) -> :class:`Race`) besides
    the interpreter's ``branches``, ``barriers`` and ``complete``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.races: dict = {}  # (id a, id b, across back edge) -> Race
        self._done: set = set()
        self._pair_checks = 0
        self._fed: Optional[dict] = None  # id(assignment target) -> ids of nodes in its value
        self.pairs = True  # False: a run whose races nobody reads (find_races)

    def interval_closed(self, bucket: dict) -> None:
        if not self.pairs:
            return
        for key, recs in bucket.items():
            if any(r.write for r in recs):
                self._check(recs)

    def _check(self, recs: list) -> None:
        sizes = [r.size for r in recs]
        unit = 0
        for s in sizes:
            unit = math.gcd(unit, s)
        for r in recs:
            if unit > 1 and np.any(r.offs % unit):
                unit = 1
        unit = max(unit, 1)
        keys, thr, rid, pos = [], [], [], []
        for i, r in enumerate(recs):
            k = r.size // unit
            base = r.offs // unit
            if k == 1:
                keys.append(base)
                thr.append(r.threads)
                rid.append(np.full(len(base), i, dtype=np.int32))
                pos.append(np.arange(len(base), dtype=np.int32))
            else:
                keys.append((base[:, None] + np.arange(k)[None, :]).ravel())
                thr.append(np.repeat(r.threads, k))
                rid.append(np.full(len(base) * k, i, dtype=np.int32))
                pos.append(np.repeat(np.arange(len(base), dtype=np.int32), k))
        key = np.concatenate(keys)
        th = np.concatenate(thr)
        ri = np.concatenate(rid)
        po = np.concatenate(pos)
        # Only threads of the same block can race: the block ordinal joins the key.
        blk = self.ts.blk[th]
        if len(self.ts.blocks) > 1:
            key = key * len(self.ts.blocks) + blk
        order = np.lexsort((th, key, blk))
        key, th, ri, po, blk = key[order], th[order], ri[order], po[order], blk[order]
        wr = np.array([r.write for r in recs])[ri]
        n = len(key)
        if n < 2:
            return
        brk = np.flatnonzero((np.diff(key) != 0) | (np.diff(blk) != 0)) + 1
        starts, cand = contested_groups(brk, wr, th)
        if len(cand) == 0:
            return
        # Records that take part in some candidate group, then pairwise joins on the address.
        involved, in_cand = candidate_records(ri, starts, cand, n)
        writers = [wi for wi in involved if recs[wi].write]
        self._pair_checks += len(writers) * len(involved)
        if self._pair_checks > PAIR_BUDGET:
            self.complete = False
            return
        per_rec = entries_by_record(in_cand, ri, involved, (key, th, po))
        cache: dict = {}  # earlier stores per reader record, for the re-read test
        for wi in writers:
            for oi in involved:
                self._check_pair(recs, wi, oi, per_rec, unit, cache)

    def _check_pair(self, recs, wi: int, oi: int, per_rec: dict, unit: int, cache: dict) -> None:
        rw, ro = recs[wi], recs[oi]
        if rw.atomic and ro.atomic:
            return
        if rw.solo is not None and rw.solo == ro.solo:
            return  # the same execution of a branch only one thread takes
        back = self._back_loop(rw, ro)
        pk = self._pair_key(rw, ro) + (back is not None,)
        if pk in self._done or not _tags_compatible(rw.tags, ro.tags):
            return
        kw, tw, pw = per_rec[wi]
        ko, to, pov = per_rec[oi]
        if ro.write and _one_store(rw, pw, ro, pov):
            return  # every entry of both stores the same value (`flag = 1` by every thread)
        pieces = entry_pair_chunks(kw, ko, MAX_PAIRS)
        if pieces is None:
            return
        # The witness is the first entry pair of the best kind (certain, then across warps):
        # the pairs are examined piece by piece, and once a piece holds a certain cross-warp
        # pair (the best kind) the later ones cannot change the answer.
        feeds = not ro.write and rw.write and ro.stamp == rw.stamp and self._feeds(rw.node, ro.node)
        best, best_score = None, -1
        for piece in pieces:
            wsel, osel = piece()
            ta_all, tb_all = tw[wsel], to[osel]
            valid = ta_all != tb_all
            same = self.ts.warp[ta_all] == self.ts.warp[tb_all]
            valid &= ~(same & (rw.wepoch[pw[wsel]] != ro.wepoch[pov[osel]]))
            if feeds:
                # one execution of `s[a] = f(s[b])` by lanes of one warp: every lane's load feeds
                # its own store, so the lanes that run it together load before any of them stores
                valid &= ~same
            if ro.write:
                benign = same_stores(rw, ro, pw[wsel], pov[osel])  # the same bits either way
                if benign is not None:
                    valid &= ~benign
            if not ro.write and rw.write and valid.any():
                # the reader stored that same value there itself, earlier: it reads it either way
                valid &= ~reread(recs, oi, pov[osel], tb_all, rw, pw[wsel], "offs", cache)
            if not valid.any():
                continue
            cert = rw.certain[pw[wsel]] & ro.certain[pov[osel]]
            score = np.where(valid, cert.astype(np.int32) * 2 + (~same).astype(np.int32), -1)
            j = int(np.argmax(score))
            if int(score[j]) > best_score:
                best_score = int(score[j])
                nb = max(len(self.ts.blocks), 1)  # keys carry the block ordinal (see _check)
                best = ((bool(cert[j]), not bool(same[j])), int(ta_all[j]), int(tb_all[j]),
                        int(kw[wsel[j]]) // nb * unit)
                if best_score == 3:
                    break
        if best is None:
            return
        (certain, cross), ta, tb, byte_off = best
        old = self.races.get(pk)
        if old is not None and (old.certain, old.cross_warp) >= (certain, cross):
            if cross and not old.cross_warp:
                old.cross_warp, old.warp_confined = True, False
            return
        self._add_race(pk, rw, ro, ta, tb, byte_off, certain, cross, back)
        race = self.races[pk]
        if race.certain and race.cross_warp:
            self._done.add(pk)

    def _feeds(self, target: ir.Expr, node: ir.Expr) -> bool:
        """Whether ``node`` is part of the value assigned to ``target`` (in the kernel or a
        device function it calls)."""
        if self._fed is None:
            self._fed = assignment_values(self.kernel)
        return id(node) in self._fed.get(id(target), ())

    def _back_loop(self, a: Access, b: Access):
        if not a.iters or not b.iters:
            return None
        ia = {inst: it for inst, it, lp in a.iters}
        for inst, it, lp in b.iters:
            if inst in ia and ia[inst] != it and (id(lp) in self.loops_with_barrier_run or lp in self.barrier_loops):
                return lp
        return None

    def _pair_key(self, a: Access, b: Access) -> tuple:
        x, y = id(a.node), id(b.node)
        return (x, y) if x <= y else (y, x)

    def _add_race(self, pk, rw: Access, ro: Access, tw: int, to: int, byte_off: int, certain: bool,
                  cross_warp: bool, back) -> None:
        # program order: the access met first is `a`
        first_w = self.order.get(id(rw.node), 0) <= self.order.get(id(ro.node), 0)
        a, b = (rw, ro) if first_w else (ro, rw)
        ta, tb = (tw, to) if first_w else (to, tw)
        lin = lambda t: int(self.ts.lin[t])
        w = Witness(lin(ta), lin(tb), byte_off, "write" if a.write else "read",
                    "write" if b.write else "read", certain, not cross_warp,
                    tuple(it for _, it, _ in a.iters), tuple(it for _, it, _ in b.iters))
        old = self.races.get(pk)
        r = Race(a.var, a.node, b.node, a.write, b.write, w, back, certain, cross_warp or
                 (old.cross_warp if old else False))
        r.element = _element_text(a.var, byte_off, a.size if a.var is b.var else None)
        if back is not None:
            ita = next((it for inst, it, lp in a.iters if lp is back), 0)
            itb = next((it for inst, it, lp in b.iters if lp is back), 0)
            r.later = "b" if itb > ita else "a"
        # one warp per block (the run may simulate several blocks side by side)
        confined = all(len(np.unique(self.ts.warp[x.threads])) == len(np.unique(self.ts.blk[x.threads]))
                       for x in (a, b))
        r.confined = confined and (old.confined if old is not None else True)
        r.warp_confined = (not r.cross_warp) and r.confined and self.ts.warps_per_block > 1
        self.races[pk] = r


def _one_store(rw: Access, pw: np.ndarray, ro: Access, pov: np.ndarray) -> bool:
    """Whether every pair of the entries ``pw`` of store ``rw`` and ``pov`` of store ``ro``
    is benign for :meth:`Simt._check_pair`, seen without pairing them: both store one known
    value (the same), or both one provenance token (the same, non-zero)."""
    if len(pw) == 0 or len(pov) == 0:
        return False
    if rw.value is not None and ro.value is not None:
        va, vb = rw.value[pw], ro.value[pov]
        a, b = va[:1], vb[:1]
        with np.errstate(invalid="ignore"):
            # (NaN, an unknown float, is never equal; INT64_MIN, an unknown integer, is excluded)
            if bool(np.all(va == a)) and bool(np.all(vb == b)) and bool((a == b)[0]) and \
                    (va.dtype.kind == "f" or bool(a[0] != np.iinfo(_INT).min)):
                return True
    if rw.tok is not None and ro.tok is not None:
        ka, kb = rw.tok[pw], ro.tok[pov]
        if ka[0] != 0 and bool(np.all(ka == ka[0])) and bool(np.all(kb == ka[0])):
            return True
    return False


def assignment_values(fn: ir.Function) -> dict:
    """id(target of an assignment) -> ids of the expressions its value is computed from, over
    ``fn`` and the device functions it calls."""
    out: dict = {}
    seen: set = set()
    todo = [fn]
    while todo:
        f = todo.pop()
        if id(f) in seen or f is None:
            continue
        seen.add(id(f))
        for e in f.expressions():
            if isinstance(e, ir.Assign):
                t = e.target
                while isinstance(t, ir.Cast) and t.implicit:
                    t = t.operand
                out.setdefault(id(t), set()).update(id(x) for x in e.value.walk())
            elif isinstance(e, ir.Call) and e.function is not None and e.function.body is not None:
                todo.append(e.function)
    return out


# ---------------------------------------------------------------------- entry point

def find_races(kernel: ir.Function, block: tuple, grid: Optional[tuple] = None,
               params: Optional[dict] = None, uniform: Optional[Callable] = None,
               dynamic_smem: Optional[int] = None, barrier_loops: Optional[set] = None,
               budget: int = STEP_BUDGET, blocks: Optional[list] = None,
               global_check: bool = False, stop_on_overrun: bool = False,
               pairs: bool = True, global_known: frozenset = frozenset()) -> Simt:
    """Run ``kernel`` for block (0,0,0) of the launch shape (and the other ``blocks``, side by
    side) and return the interpreter (``.races`` maps statement pairs to :class:`Race`,
    ``.complete`` says whether the whole kernel was covered). With ``global_check``,
    ``.glog`` holds the global-memory races (analyzer/global_races.py). With
    ``stop_on_overrun``, the run stops at the first access outside a shared array: then only
    ``.out_of_bounds`` (not empty) is an answer. ``pairs=False``: the accesses are recorded
    (``.glog.probe_sig``) but not paired into races; ``global_known``: keys of global races the
    caller already has and would not take from this run, not looked for again."""
    ts = ThreadSet(tuple(block), tuple(grid) if grid else None, list(blocks or [(0, 0, 0)]))
    sim = Simt(kernel, ts, params or {}, uniform, record=True, dynamic_smem=dynamic_smem,
               barrier_loops=barrier_loops, budget=budget)
    if global_check:
        sim.glog = GlobalLog(ts)
        sim.glog.by_data = data_selected(kernel)
    sim.stop_on_overrun = stop_on_overrun
    sim.pairs = pairs
    sim.run()
    if sim.glog is not None and not sim.overran:
        sim.glog.finish(pair=pairs, known=global_known)
    return sim
