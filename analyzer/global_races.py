"""Global-memory races: the block simulator's run (analyzer/races.py), recorded for global memory.

The interpreter runs two to four blocks of the launch side by side (``global_blocks``) and hands
every access to global memory -- pointer parameters, ``__device__`` variables, ``memcpy`` and
``memset`` byte ranges, atomics, and the element behind a pointer passed to a library function
(``curand(&state[0])``) -- to :class:`GlobalLog`, which pairs them after the run:

- **intra-block**: two threads of one block, the same bytes, at least one a write, in one
  barrier interval (the same dynamic intervals as shared memory);
- **inter-block**: two threads of different blocks, anywhere between two grid-wide barriers
  (``grid.sync()``) or the kernel's ends: ``__syncthreads()`` orders nothing across blocks.

Not paired across blocks: two accesses inside one ``if`` that tests an atomic's returned
ticket for equality, kept where the block shares it (``*flag = atomicInc(&count, n)``, a
barrier, ``if (*flag == gridDim.x - 1)``): one block at most draws that ticket and goes in.

Not reported: a load and a store of one element by two lanes of the same warp (warp-synchronous
code that relies on lockstep lanes: GPUVerify's ``--warp-sync`` view; CL302 covers its
shared-memory form). Not races: atomic against atomic; two stores of provably equal values (known numbers, or one
provenance token: both stored what they read from one address, or one uniform parameter); a
load of a location that the loading thread itself stored earlier in the interval when every
conflicting store wrote that same value (``flag = 1; ... if (flag)``); a plain load against an
atomic (only a plain *store* racing an atomic is reported); plain loads and stores of one place
per block (a flag, a search result) by threads that a branch on data selects, when neither is a
read-modify-write (``found = 1``; ``res[bid] = t`` when ``key[t] == k``: whether two threads are
selected at once is a property of the data; ``count[0]++`` is reported); two volatile accesses
(the PTX memory model treats ``ld.volatile``/``st.volatile`` as relaxed operations at system
scope, which are morally strong and form no data race: the spin-wait on a predecessor's flag of
a chained scan, ``do { st = goffset[bid]; } while (st < 0);`` with ``volatile int *goffset``);
``then`` sides of ``chunk == last`` tests, ``last`` one unknown value in the whole grid and the
blocks (or iterations) testing different ``chunk``s (only the owner of the last chunk goes in);
and, across blocks, accesses made
after a block published its work with ``__threadfence()`` followed by an atomic (the
"last block" pattern: the atomic's result decides which block reads the others' results).

Addresses: a byte offset where the index is known for the thread; where it is not, but two
threads compute it from equal inputs (``out[cnt[0]]``, ``out[n]`` with ``n`` a parameter, a
value ``atomicAdd(&c, 0)`` returned), the same provenance token stands for the same address,
and such a race is reported as possible (a warning): it does not depend on the unknown value.
A value returned by ``atomicAdd(&c, k)`` with ``k > 0`` differs between threads: no token, so
indices derived from it never collide. Distinct pointer parameters are assumed not to alias.
Reads through a pointer to ``const`` are not recorded (nothing in the kernel writes them).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from . import ir, simt_facts
from .global_blocks import global_blocks, uses_block_index  # noqa: F401 - for callers
from .simt_log import candidate_records, contested_groups, entries_by_record, entry_pair_chunks, same_stores
from .simt_log import element_text as _element_text, tags_compatible as _tags_compatible
from .simt_values import MemLoc, Mask, Ptr, V

_INT = np.int64
#: global-memory thread-accesses recorded per run; past this the check stops (incomplete)
MAX_ENTRIES = 800_000
MAX_PAIRS = 200_000
PAIR_BUDGET = 40_000
_TOKEN_KEY = np.int64(1) << 62
_MEMCPY = {"memcpy", "__builtin_memcpy", "std::memcpy", "::memcpy"}
_MEMSET = {"memset", "__builtin_memset", "std::memset", "::memset"}
_FENCES = {"__threadfence", "__threadfence_system", "cuda::atomic_thread_fence",
           "atomic_thread_fence", "__fence"}
_STORE_CALLS = {"__stcg", "__stcs", "__stwb", "__stwt"}
#: libraries whose device functions read and update a state passed by pointer
_STATEFUL_LIBRARIES = ("curand", "hiprand", "rocrand")


@dataclass
class GAccess:
    """One execution of a global-memory access by a set of threads."""

    node: ir.Expr
    var: ir.Variable
    write: bool
    atomic: bool
    threads: np.ndarray  # indices into the ThreadSet
    keys: np.ndarray  # byte offset, or provenance token | 2**62 where not known
    tokened: np.ndarray  # per entry: the address is a token
    size: int
    certain: np.ndarray
    epoch: int  # block-barrier interval (dynamic)
    gepoch: int  # grid-barrier interval
    wepoch: np.ndarray
    fence: np.ndarray  # per entry: fence+atomic publications the block made before
    iters: tuple
    tags: tuple
    value: Optional[np.ndarray]
    tok: Optional[np.ndarray]
    solo: Optional[int]
    kind: str = "access"  # access | memcpy | memset | library
    drawn: Optional[tuple] = None  # inside `if (t == K)` on a ticket: (counter var, offset, sign, K)
    volatile: bool = False  # through a volatile pointer or of a volatile object


@dataclass
class GlobalRace:
    var: ir.Variable
    a: ir.Expr  # first in program order
    b: ir.Expr
    a_write: bool
    b_write: bool
    a_atomic: bool
    b_atomic: bool
    thread_a: int  # ThreadSet index
    thread_b: int
    byte_off: Optional[int]  # None: an index not known before run time (tokened)
    element: str
    inter: bool
    certain: bool
    a_kind: str = "access"
    b_kind: str = "access"
    iterations: tuple = ()  # (iteration of a, iteration of b) of a loop, when they differ
    assumed: str = ""  # `offset = 1`: the parameter value (none known) under which it races
    ts: object = None  # the thread set of the run that found it, when not the kernel's first run

    def to_json(self, ts) -> dict:
        return {
            "array": self.var.name, "element": self.element,
            "scope": "inter-block" if self.inter else "intra-block",
            "first": {"line": self.a.range.line, "column": self.a.range.column,
                      "kind": _kind_word(self.a_write, self.a_atomic)},
            "second": {"line": self.b.range.line, "column": self.b.range.column,
                       "kind": _kind_word(self.b_write, self.b_atomic)},
            "threads": [who(ts, self.thread_a), who(ts, self.thread_b)],
            "certain": self.certain,
            "index_known": self.byte_off is not None,
        }


def _kind_word(write: bool, atomic: bool) -> str:
    return "atomic" if atomic else ("write" if write else "read")


def who(ts, t: int) -> str:
    """``block 1, thread 5`` / ``block (1,0), thread (3,2)``."""
    b = (int(ts.bx[t]), int(ts.by[t]), int(ts.bz[t]))
    g = ts.grid or (2, 1, 1)
    if g[1] == 1 and g[2] == 1 and b[1] == 0 and b[2] == 0:
        bs = f"block {b[0]}"
    elif g[2] == 1 and b[2] == 0:
        bs = f"block ({b[0]},{b[1]})"
    else:
        bs = f"block ({b[0]},{b[1]},{b[2]})"
    return f"{bs}, {ts.describe(int(ts.lin[t]))}"


class GlobalLog:
    """Receives the run's global-memory events (see ``Simt.glog``); ``finish`` pairs them."""

    def __init__(self, ts):
        self.ts = ts
        n = ts.n
        self.recs: dict = {}  # var -> [GAccess]
        self.order: dict = {}  # id(node) -> first execution
        self.gepoch = 0
        self.grid_barriers = 0
        self.fenced = np.zeros(n, dtype=bool)
        self.fence_ep = np.zeros(n, dtype=np.int32)
        self.entries = 0
        self.complete = True
        self.reason = ""
        self.races: dict = {}
        self._done: set = set()
        self.probe_sig: list = []  # per record: (var, node, threads, offsets) for probing
        self._pair_checks = 0
        self.by_data: set = set()  # ids of accesses under a branch on data (data_selected)
        # block-uniform decisions whose 'then' side one block at most takes (an atomic's
        # ticket tested for equality: `if (*flag == gridDim.x - 1)`)
        self.lone: set = set()
        # block-uniform decisions `value == last` with `last` one unknown value in the whole grid
        # (simt._one_block_equals): decision -> key of `last`; per key, the (decision, block) that
        # tested each value: where no value is tested twice, two 'then' sides of that key never
        # both run (unless they are one decision in one block)
        self.lone_groups: dict = {}
        self._group_values: dict = {}
        self._bad_groups: set = set()
        self.tickets: dict = {}  # id(atomic call) -> (call, counter or None): see ticket_site
        self._reset: set = set()  # drawn tickets whose counter is written otherwise

    def lone_group(self, d: int, key, values: dict) -> None:
        """Decision ``d`` tests ``value == last`` (``last`` known by ``key``), with ``values``:
        block -> the value it compares."""
        self.lone_groups[d] = key
        seen = self._group_values.setdefault(key, {})
        for blk, v in values.items():
            if seen.setdefault(v, (d, blk)) != (d, blk):
                self._bad_groups.add(key)

    def _exclusive(self, rw: "GAccess", ro: "GAccess", intra: bool) -> bool:
        """Both accesses on 'then' sides of decisions that test one grid-wide unknown for
        values that differ between them (see :attr:`lone_groups`)."""
        gw = {(self.lone_groups[t[0]], t[0]) for t in rw.tags if t[1] is True and t[0] in self.lone_groups}
        if not gw:
            return False
        for t in ro.tags:
            key = self.lone_groups.get(t[0]) if t[1] is True else None
            if key is None or key in self._bad_groups:
                continue
            for k, d in gw:
                if k == key and (not intra or d != t[0]):
                    return True
        return False

    # ------------------------------------------------------------------ events
    def barrier(self, sim, node, m) -> None:
        if _is_grid_barrier(node):
            self.gepoch += 1
            self.grid_barriers += 1
        # a block barrier makes what one thread of the block published known to all of them
        nb = len(self.ts.blocks)
        mx = np.zeros(nb, dtype=np.int32)
        np.maximum.at(mx, self.ts.blk, self.fence_ep)
        self.fence_ep = mx[self.ts.blk]

    def atomic(self, sim, m) -> None:
        pub = m.may & self.fenced
        self.fence_ep[pub] += 1
        self.fenced[pub] = False

    def publish(self, threads: np.ndarray) -> None:
        """These threads run after the others published their work through an atomic (they
        branched on its result): their later accesses are not paired with what other threads
        did before publishing."""
        self.fence_ep[threads] += 1

    def call(self, sim, e: ir.Call, m, fr) -> bool:
        """memcpy/memset and fences; True when the call was handled here."""
        name = e.callee
        if name in _FENCES:
            for a in e.args:
                sim.ev(a, m, fr)
            self.fenced |= m.may
            return True
        if name not in _MEMCPY and name not in _MEMSET:
            return False
        vals = [sim.ev(a, m, fr) for a in e.args]
        simt_facts.forget(sim, m.may)  # the bytes it writes may be what a thread learnt about
        if len(vals) != 3:
            return True
        n = vals[2]
        if not isinstance(n, V):
            return True
        act = m.may & n.k
        if not act.any() or len(np.unique(n.v[act])) != 1:
            return True  # a length not known, or different per thread: not tracked
        size = int(n.v[act][0])
        if size <= 0:
            return True
        mm = _sub(m, act)
        if isinstance(vals[0], Ptr):
            p = vals[0]
            self.access(sim, MemLoc(p, e, size, p.elem), True, mm, None, False,
                        kind="memcpy" if name in _MEMCPY else "memset")
        if name in _MEMCPY and isinstance(vals[1], Ptr):
            p = vals[1]
            self.access(sim, MemLoc(p, e, size, p.elem), False, mm, None, False, kind="memcpy")
        return True

    def library_call(self, sim, e: ir.Call, vals: list, m) -> None:
        """A function without a body that gets a pointer into global memory reads and writes
        the element it points at (``curand(&state[0])``)."""
        name = e.callee
        if name not in _STORE_CALLS and not name.startswith(_STATEFUL_LIBRARIES):
            # other calls without a body: warp-collective (wmma::load_matrix_sync), read-only
            # (__ldg) or user code the front end did not resolve -- what they touch is not known
            return
        for i, v in enumerate(vals):
            if not isinstance(v, Ptr) or v.space != "global" or v.var is None:
                continue
            size = v.elem.size if v.elem is not None else None
            if not size:
                continue
            loc = MemLoc(v, e, size, v.elem)
            kind = "library"
            if ("Mtgp32" in v.elem.spelling or "mtgp32" in v.elem.spelling) and \
                    self.ts.threads_per_block <= 256:
                # MTGP32: one state per block, called by all its threads together (at most 256)
                kind = "block-library"
            if name in _STORE_CALLS:
                if i == 0:
                    self.access(sim, loc, True, m, vals[1] if len(vals) > 1 else None, False)
                continue
            self.access(sim, loc, False, m, None, False, kind=kind)
            if not v.elem.is_const:
                self.access(sim, loc, True, m, None, False, kind=kind)

    def access(self, sim, loc, write: bool, m, value=None, atomic: bool = False,
               kind: str = "access") -> None:
        p = loc.ptr
        var = p.var
        if not write and not atomic and _read_only(var, p):
            return
        size = loc.size or (loc.elem.size if loc.elem is not None else None)
        if not size or not self.complete:
            return
        off = p.off
        known = m.may & off.k
        tok = m.may & ~off.k & (off.t != 0) if off.t is not None else None
        act = known | tok if tok is not None else known
        if not act.any():
            return
        idx = np.flatnonzero(act)
        self.entries += len(idx)
        if self.entries > MAX_ENTRIES:
            self.complete = False
            self.reason = f"more than {MAX_ENTRIES} global-memory thread-accesses"
            return
        keys = np.where(off.k[idx], off.v[idx], (off.t[idx] if off.t is not None else 0) | _TOKEN_KEY)
        tokened = ~off.k[idx]
        val = vtok = None
        if write and value is not None and hasattr(value, "k"):
            if value.is_float:
                val = np.where(value.k[idx], value.v[idx], np.nan)
            else:
                val = np.where(value.k[idx], value.v[idx], np.iinfo(_INT).min)
            vtok = value.t[idx].copy() if value.t is not None else None
        if id(loc.node) not in self.order:
            self.order[id(loc.node)] = len(self.order)
        rec = GAccess(loc.node, var, write, atomic, idx, keys.astype(_INT), tokened, int(size),
                      m.must[idx].copy(), sim.epoch, self.gepoch, sim.wepoch[idx].copy(),
                      self.fence_ep[idx].copy(), tuple((r[0], r[1], r[2]) for r in sim.iter_stack),
                      tuple(sim.tags), val, vtok, sim._solo, kind, sim._drawn,
                      bool(p.volatile or (loc.elem is not None and loc.elem.is_volatile)))
        self.recs.setdefault(var, []).append(rec)

    # ------------------------------------------------------------------ tickets
    def ticket_site(self, node: ir.Expr, counter) -> None:
        """An atomic at ``node`` ran: ``counter`` is the (variable, byte offset, sign) it drew
        a ticket from, or None when this execution was no such draw (see
        simt_eval._ticket_counter). A site stays a ticket site while every execution draws
        from one counter."""
        old = self.tickets.get(id(node))
        if old is None:
            self.tickets[id(node)] = (node, counter)
        elif old[1] != counter:
            self.tickets[id(node)] = (node, None)

    def ticket_counter(self, node: ir.Expr):
        """The counter every execution of the atomic at ``node`` drew from so far; None: not a
        ticket draw; False: it has not run."""
        got = self.tickets.get(id(node))
        if got is None or got[0] is not node:
            return False
        return got[1]

    def _reset_counters(self) -> set:
        """The drawn tickets (counter, sign, K) whose counter something other than a ticket
        draw of the same sign writes (a plain store, atomicExch, an add of the other sign or of
        an unknown amount, memset, a write at an address not known): a second thread can then
        draw ``K``, and what threads do under that ticket may race."""
        drawn = {r.drawn for rs in self.recs.values() for r in rs if r.drawn is not None}
        out = set()
        for d in drawn:
            var, off, sign = d[0], d[1], d[2]
            for r in self.recs.get(var, ()):
                if not r.write:
                    continue
                site = self.tickets.get(id(r.node))
                if r.atomic and site is not None and site[0] is r.node and site[1] == (var, off, sign):
                    continue
                hit = r.tokened | ((r.keys <= off) & (off < r.keys + r.size))
                if hit.any():
                    out.add(d)
                    break
        return out

    # ------------------------------------------------------------------ pairing
    def finish(self, pair: bool = True, known: frozenset = frozenset()) -> "GlobalLog":
        """Pairs the accesses into ``races``, except the pairs of statements ``known`` (race
        keys the caller has already); ``pair=False``: only ``probe_sig`` and the names (a run
        that only probes what indices a parameter value gives)."""
        self._done |= known
        multi = len(self.ts.blocks) > 1
        self._reset = self._reset_counters()
        # accesses that read and write one place (`n++`, `n += v`): a counter, not a flag
        rd = {id(r.node) for rs in self.recs.values() for r in rs if not r.write}
        self._rmw = rd & {id(r.node) for rs in self.recs.values() for r in rs if r.write and not r.atomic}
        done: dict = {}  # the records of one interval -> their sorted entries (_entries):
        # a block interval and a grid interval often hold the same records, sorted once

        def entries(rs: list):
            k = tuple(map(id, rs))
            if k not in done:
                done[k] = self._entries(rs)
            return done[k]

        for var, recs in (self.recs.items() if pair else ()):
            if not any(r.write for r in recs):
                continue
            done.clear()
            by_ep: dict = {}
            for r in recs:
                by_ep.setdefault(r.epoch, []).append(r)
            for rs in by_ep.values():
                if any(r.write for r in rs) and len(rs) > 0:
                    self._check(rs, True, entries(rs))
            if multi:
                by_g: dict = {}
                for r in recs:
                    by_g.setdefault(r.gepoch, []).append(r)
                for rs in by_g.values():
                    if any(r.write for r in rs):
                        self._check(rs, False, entries(rs))
            if not self.complete:
                break
        self.probe_sig = [(v, r.node, r.threads, r.keys, r.tokened, r.write)
                          for v, rs in self.recs.items() for r in rs]
        self.arrays = sorted({v.name for v in self.recs})
        self.written = sorted({v.name for v, rs in self.recs.items() if any(r.write for r in rs)})
        self.recs = {}  # the pairs are all that is kept
        return self

    def _entries(self, recs: list):
        """The thread-accesses of ``recs``, one entry per access unit, sorted by address then
        thread: ``(key, th, ri, po, blk, wr)`` (dense address id, thread, record, entry position
        in the record, block, write), or None when fewer than two. The order is the one both
        pairings want: threads are numbered block-major, so (address, thread) is also (address,
        block, thread) -- the intra-block check and the inter-block one share this sort."""
        unit = 0
        for r in recs:
            unit = math.gcd(unit, r.size)
        unit = max(unit, 1)
        for r in recs:
            kn = r.keys[~r.tokened]
            if unit > 1 and len(kn) and np.any(kn % unit):
                unit = 1
        keys, thr, rid, pos = [], [], [], []
        for i, r in enumerate(recs):
            k = max(r.size // unit, 1)
            base = np.where(r.tokened, r.keys, r.keys // unit)
            n = len(base)
            if k == 1 or not (~r.tokened).any():
                keys.append(base)
                thr.append(r.threads)
                pos.append(np.arange(n, dtype=np.int32))
                rid.append(np.full(n, i, dtype=np.int32))
            else:
                span = np.where(r.tokened[:, None], 0, np.arange(k)[None, :])
                ks = base[:, None] + span
                keep = np.ones(ks.shape, dtype=bool)
                keep[:, 1:] = ~r.tokened[:, None]
                keys.append(ks[keep])
                thr.append(np.repeat(r.threads, k).reshape(n, k)[keep])
                pos.append(np.repeat(np.arange(n, dtype=np.int32), k).reshape(n, k)[keep])
                rid.append(np.full(int(keep.sum()), i, dtype=np.int32))
        key = np.concatenate(keys)
        if len(key) < 2:
            return None
        th = np.concatenate(thr)
        order = np.lexsort((th, key))
        key, th = key[order], th[order]
        # dense ids (the rank among the distinct addresses): room to join with the block
        key = np.cumsum(np.r_[0, np.diff(key) != 0]).astype(_INT)
        wr = np.array([r.write for r in recs])
        ri = np.concatenate(rid)[order]
        return key, th, ri, np.concatenate(pos)[order], self.ts.blk[th], wr[ri]

    def _check(self, recs: list, intra: bool, entries) -> None:
        """Pairs the accesses of ``recs`` (sorted by :meth:`_entries`) that meet."""
        if entries is None:
            return
        key, th, ri, po, blk, wr = entries
        nb = max(len(self.ts.blocks), 1)
        jk = key * nb + blk if intra else key
        n = len(jk)
        brk = np.flatnonzero(np.diff(jk) != 0) + 1
        starts, cand = contested_groups(brk, wr, th if intra else blk)
        if len(cand) == 0:
            return
        involved, in_cand = candidate_records(ri, starts, cand, n)
        writers = [wi for wi in involved if recs[wi].write]
        self._pair_checks += len(writers) * len(involved)
        if self._pair_checks > PAIR_BUDGET:
            self.complete = False
            self.reason = "too many pairs of global-memory accesses"
            return
        per_rec = entries_by_record(in_cand, ri, involved, (jk, th, po))
        cache: dict = {}
        for wi in writers:
            for oi in involved:
                self._pair(recs, wi, oi, per_rec, intra, cache)

    def _one_place(self, r: GAccess) -> bool:
        """Whether every thread of a block that made this access touched the same address."""
        one = getattr(r, "_one", None)
        if one is None:
            b = self.ts.blk[r.threads]  # thread indices are block-major
            first = np.r_[True, np.diff(b) != 0]
            base = np.maximum.accumulate(np.where(first, np.arange(len(b)), 0))
            one = bool(np.all(r.keys == r.keys[base]))
            r._one = one
        return one

    def _pair(self, recs, wi, oi, per_rec, intra: bool, cache: dict) -> None:
        rw, ro = recs[wi], recs[oi]
        if rw.atomic and (ro.atomic or not ro.write):
            return  # atomics do not race with atomics; a plain load against an atomic is left alone
        if ro.atomic and not rw.write:
            return
        if rw.volatile and ro.volatile:
            return  # PTX treats volatile accesses as relaxed system-scope ones: they do not race
        if intra and rw.solo is not None and rw.solo == ro.solo:
            return
        if rw.drawn is not None and rw.drawn == ro.drawn and rw.drawn not in self._reset:
            return  # both under one ticket of one counter: one thread of the grid at most
        if intra and rw.kind == ro.kind == "block-library":
            return  # cuRAND MTGP32 is called by the threads of a block together
        if not intra and self.lone and any(t[1] is True and t[0] in self.lone and t in ro.tags
                                           for t in rw.tags):
            return  # both where only the block that drew one atomic ticket goes
        if self.lone_groups and self._exclusive(rw, ro, intra):
            return  # `chunk == last` in two blocks (or iterations) that test different chunks
        x, y = id(rw.node), id(ro.node)
        pk = ((x, y) if x <= y else (y, x)) + (intra,)
        if pk in self._done or not _tags_compatible(rw.tags, ro.tags):
            return
        kw, tw, pw = per_rec[wi]
        ko, to, pov = per_rec[oi]
        # The best a pair can score (see `score` below): a certain pair needs a certain entry
        # with a known address on both sides, a known address one on each side.
        can_certain = bool((rw.certain[pw] & ~rw.tokened[pw]).any()) and \
            bool((ro.certain[pov] & ~ro.tokened[pov]).any())
        old = self.races.get(pk)
        if old is not None and not can_certain:
            # only a certain witness replaces a possible race (the one thing `old` can be here):
            # the same two statements met again (another iteration) cannot add anything
            return
        bound = 4 * can_certain + 2 * (bool((~rw.tokened[pw]).any()) and
                                       bool((~ro.tokened[pov]).any())) + 1
        pieces = entry_pair_chunks(kw, ko, MAX_PAIRS)
        if pieces is None:
            return
        # The witness is the first entry pair of the best score (np.argmax over all of them):
        # the pairs are examined piece by piece, in the same order, and a piece that reaches
        # `bound` ends the search -- later pieces cannot beat it.
        best, best_score = None, -1
        for piece in pieces:
            wsel, osel = piece()
            got = self._score(recs, rw, ro, oi, tw[wsel], to[osel], pw[wsel], pov[osel], intra, cache)
            if got is not None and got[0] > best_score:
                best_score, best = got[0], (got[1], wsel, osel)
                if best_score >= bound:
                    break
        if best is None:
            return
        (j, certain, tokened, ta, tb), wsel, osel = best
        if old is not None and (old.certain or not certain):
            return
        a, b = (rw, ro) if self.order.get(id(rw.node), 0) <= self.order.get(id(ro.node), 0) else (ro, rw)
        t_a, t_b = (ta, tb) if a is rw else (tb, ta)
        byte_off = None if tokened else _overlap(rw, pw[wsel[j]], ro, pov[osel[j]])
        iters = ()
        ia = {inst: (it, lp) for inst, it, lp in a.iters}
        for inst, it2, lp in b.iters:
            if inst in ia and ia[inst][0] != it2:
                iters = (lp.range.line, ia[inst][0], it2)
                break
        race = GlobalRace(rw.var, a.node, b.node, a.write, b.write, a.atomic, b.atomic, t_a, t_b,
                          byte_off, element_text(rw.var, byte_off, rw.size), not intra, certain,
                          a.kind, b.kind, iters)
        self.races[pk] = race
        if certain:
            self._done.add(pk)

    def _score(self, recs, rw, ro, oi, ta, tb, wp, op, intra: bool, cache: dict):
        """The best of the entry pairs (``ta``/``wp``: threads and entry positions of the store
        ``rw``, ``tb``/``op`` of the other access ``ro``) that race: ``(score, (first pair of
        that score, certain, index not known, thread of rw, thread of ro))``, None if none does.
        Score: certain 4, index known 2, across warps 1."""
        ts = self.ts
        if intra:
            valid = ta != tb
            same = ts.warp[ta] == ts.warp[tb]
            valid &= ~(same & (rw.wepoch[wp] != ro.wepoch[op]))
            # one before publishing through an atomic, the other after seeing it
            valid &= rw.fence[wp] == ro.fence[op]
            if not ro.write:
                # lanes of one warp passing values through memory (a warp-synchronous scan or
                # shuffle) rely on lockstep execution, not an ordering this check models; the
                # shared-memory form is CL302's
                valid &= ~same
        else:
            valid = ts.blk[ta] != ts.blk[tb]
            same = np.zeros(len(ta), dtype=bool)
            # after a fence and an atomic, a block reads what the others published
            valid &= (rw.fence[wp] == 0) & (ro.fence[op] == 0)
        if ro.write:
            benign = same_stores(rw, ro, wp, op)  # the same bits either way
            if benign is not None:
                valid &= ~benign
        if not ro.write and valid.any():
            # the reader stored the same value there itself, earlier: it reads that value
            # whichever store lands last
            valid &= ~reread(recs, oi, op, tb, rw, wp, cache=cache)
        if valid.any() and not (rw.atomic or ro.atomic) and id(rw.node) not in self._rmw and \
                id(ro.node) not in self._rmw and id(rw.node) in self.by_data and \
                id(ro.node) in self.by_data and self._one_place(rw) and self._one_place(ro):
            # a flag or a search result: one place per block that only threads selected by
            # their data touch, with plain loads and stores (`found = 1`, `res[bid] = v` when
            # `key[tid] == k`); whether two are selected at once is a property of the data
            valid &= rw.certain[wp] | ro.certain[op]
        if not valid.any():
            return None
        tk = rw.tokened[wp] | ro.tokened[op]
        cert = rw.certain[wp] & ro.certain[op] & ~tk
        score = np.where(valid, cert.astype(np.int32) * 4 + (~tk).astype(np.int32) * 2
                         + (~same).astype(np.int32), -1)
        j = int(np.argmax(score))
        return int(score[j]), (j, bool(cert[j]), bool(tk[j]), int(ta[j]), int(tb[j]))


def reads_memory(e: ir.Expr) -> bool:
    """Whether evaluating ``e`` loads from memory (an element, a member through a pointer, a
    dereference, a shared or global variable)."""
    for x in e.walk():
        if isinstance(x, ir.Index) or (isinstance(x, ir.UnaryOp) and x.op == "*"):
            return True
        if isinstance(x, ir.Member) and x.arrow:
            return True
        if isinstance(x, ir.VarRef) and x.var.storage in ("shared", "extern_shared", "device", "managed"):
            return True
    return False


def data_selected(fn: ir.Function) -> set:
    """ids of the expressions of ``fn`` (and the device functions it calls) evaluated inside an
    ``if`` whose condition reads memory, that condition included: what threads run there
    depends on data."""
    out: set = set()
    seen: set = set()

    def mark_all(b, depth: int) -> None:
        for e in ir.stmt_exprs(b):
            out.add(id(e))
            if isinstance(e, ir.Call) and e.function is not None and e.function.body is not None \
                    and id(e.function) not in seen and depth < 8:
                seen.add(id(e.function))
                mark_all(e.function.body, depth + 1)

    def visit(b, depth: int) -> None:
        for st in ir.walk_stmt(b):
            if isinstance(st, ir.If) and reads_memory(st.cond):
                out.update(id(x) for x in st.cond.walk())
                for blk in st.child_blocks():
                    mark_all(blk, depth)
            for e in st.exprs():
                for x in e.walk():
                    if isinstance(x, ir.Call) and x.function is not None and x.function.body is not None \
                            and id(x.function) not in seen and depth < 8:
                        seen.add(id(x.function))
                        visit(x.function.body, depth + 1)

    if fn.body is not None:
        visit(fn.body, 0)
    return out


def _overlap(ra: GAccess, ia: int, rb: GAccess, ib: int) -> int:
    """First byte both accesses touch."""
    return int(max(ra.keys[ia], rb.keys[ib]))


def reread(recs: list, oi: int, opos: np.ndarray, othreads: np.ndarray, rw, wpos: np.ndarray,
           key_attr: str = "keys", cache: Optional[dict] = None) -> np.ndarray:
    """Per (write, read) entry pair: whether the reading thread itself stored, earlier in the
    interval (a record before ``oi``), the value the writer stores, at the address it reads
    (``flag = 1; ... if (flag)`` by every thread): it reads that value whichever store lands
    last. Shared (``offs``) and global (``keys``) records alike."""
    sig = _value_sig(rw, wpos)
    out = np.zeros(len(opos), dtype=bool)
    if not (sig != 0).any():
        return out
    pool = cache.get(oi) if cache is not None else None
    if pool is None:
        parts = []
        for r in recs[:oi]:
            if not r.write or r.atomic or (r.value is None and r.tok is None):
                continue
            s_ = _value_sig(r, np.arange(len(r.threads)))
            ok = s_ != 0
            if ok.any():
                parts.append(_h3(r.threads[ok], getattr(r, key_attr)[ok], s_[ok]))
        pool = np.unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=_INT)
        if cache is not None:
            cache[oi] = pool
    if not len(pool):
        return out
    h = _h3(othreads, getattr(recs[oi], key_attr)[opos], sig)
    return (sig != 0) & np.isin(h, pool)


def _value_sig(r: GAccess, pos: np.ndarray) -> np.ndarray:
    """Per entry: a non-zero signature of the stored value (known value or token), 0 unknown."""
    out = np.zeros(len(pos), dtype=_INT)
    if r.value is not None:
        v = r.value[pos]
        if v.dtype.kind == "f":
            ok = ~np.isnan(v)
            bits = v.astype(np.float64).view(np.int64)
        else:
            ok = v != np.iinfo(_INT).min
            bits = v.astype(_INT)
        with np.errstate(over="ignore"):
            out = np.where(ok, bits * np.int64(0x2545F4914F6CDD1D) | 1, out)
    if r.tok is not None:
        t = r.tok[pos]
        out = np.where((out == 0) & (t != 0), (t << 1) | 1, out)
    return out.astype(_INT)


def _h3(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        h = a.astype(_INT) * np.int64(-7046029254386353131)
        h = (h ^ b.astype(_INT)) * np.int64(0x2545F4914F6CDD1D)
        h = (h ^ c.astype(_INT)) * np.int64(-7046029254386353131)
    return h


def element_text(var: ir.Variable, byte_off: Optional[int], size: int) -> str:
    if byte_off is None:
        return ""
    t = var.type
    if t.kind in ("pointer", "array") and t.element is not None and t.kind == "pointer":
        esz = t.element.size or size or 1
        if byte_off % esz:
            return f"{var.name} (byte {byte_off})"
        return f"{var.name}[{byte_off // esz}]"
    return _element_text(var, byte_off, size)


def _read_only(var: ir.Variable, p) -> bool:
    """Reads through a pointer parameter to const (or a __constant__ object): nothing in the
    kernel can write it, so they are not recorded."""
    if var.storage == "constant":
        return True
    t = var.type
    return var.storage == "param" and t.kind == "pointer" and t.element is not None and t.element.is_const


def _is_grid_barrier(node) -> bool:
    if isinstance(node, ir.Barrier):
        return node.grid
    if isinstance(node, ir.Call):
        return node.callee == "sync" and bool(node.args) and "grid_group" in node.args[0].type.spelling
    return False


def _sub(m, act: np.ndarray):
    return Mask(m.must & act, m.may & act)


@dataclass
class GlobalFacts:
    """What ``explain`` and the CL606/CL607 rules need about one kernel."""

    checked: bool = True
    arrays: list = field(default_factory=list)  # names of global objects checked
    blocks: list = field(default_factory=list)  # block indices simulated side by side
    complete: bool = True
    reason: str = ""
    note: str = ""
    grid_barriers: int = 0
    races: list = field(default_factory=list)

    def to_json(self, ts) -> dict:
        return {"checked": self.checked, "arrays": self.arrays,
                "blocks": [list(b) for b in self.blocks], "complete": self.complete,
                "incomplete_reason": self.reason, "note": self.note,
                "grid_barriers": self.grid_barriers,
                "races": [r.to_json(ts) for r in self.races] if ts is not None else []}


# ---------------------------------------------------------------------- parameters

#: at most this many parameters are probed per kernel, each with this many candidate values
MAX_PROBED_PARAMS = 2
MAX_CANDIDATE_PAIRS = 2_000_000


def probe_candidates(glog: "GlobalLog") -> bool:
    """Whether some written array is accessed both at indices known before run time and at
    indices that are not (but are computed from equal inputs): ``A[tid]`` and ``A[tid + offset]``
    with ``offset`` a parameter without a known value -- a race for some values of it."""
    known, tok, written = set(), set(), set()
    for var, node, th, keys, tokened, write in glog.probe_sig:
        if (~tokened).any():
            known.add(id(var))
        if tokened.any():
            tok.add(id(var))
        if write:
            written.add(id(var))
    return bool(known & tok & written)


def shifts_an_index(fn: ir.Function, name: str) -> bool:
    """Whether a variable called ``name`` only shifts array indices in ``fn`` and the device
    functions it calls: an added term of some index (``A[tid + offset]``) and never part of a
    product in one (``A[row * width + col]``: a row length, which no value makes race-prone
    the way a shift does)."""
    found = {"add": False, "mul": False}

    def terms(x):
        while isinstance(x, ir.Cast):
            x = x.operand
        if isinstance(x, ir.BinOp) and x.op in ("+", "-"):
            return terms(x.lhs) + terms(x.rhs)
        return [x]

    def visit(f: ir.Function, depth: int, seen: set) -> None:
        if id(f) in seen or depth > 8:
            return
        seen.add(id(f))
        for e in f.expressions():
            if isinstance(e, ir.Index):
                for t in terms(e.index):
                    if isinstance(t, ir.VarRef) and t.var.name == name:
                        found["add"] = True
                    elif any(isinstance(x, ir.VarRef) and x.var.name == name for x in t.walk()):
                        found["mul"] = True
            elif isinstance(e, ir.Call) and e.function is not None:
                visit(e.function, depth + 1, seen)

    visit(fn, 0, set())
    return found["add"] and not found["mul"]


def _slope(sig0: list, sig1: list):
    """Per record of two runs with a parameter at 0 and at 1: the offsets at 0 and their
    change per unit of the parameter; None when the runs did not make the same accesses."""
    if len(sig0) != len(sig1):
        return None
    out = []
    for a, b in zip(sig0, sig1):
        if a[1] is not b[1] or len(a[2]) != len(b[2]) or not np.array_equal(a[2], b[2]):
            return None
        if a[4].any() or b[4].any():
            continue  # still not known with the parameter set: another unknown is involved
        out.append((a[0], a[2], a[3], b[3] - a[3], a[5], a[1]))
    # a pure shift moves every execution of an access by the same amount; a slope that changes
    # between executions (`od[y * w]` over rows y) is a stride the parameter scales
    slopes: dict = {}
    for r in out:
        slopes.setdefault(id(r[5]), set()).update(np.unique(r[3]).tolist())
    return [r for r in out if len(slopes[id(r[5])]) == 1]


def candidate_values(rows: list, ts) -> list:
    """Parameter values at which a write and another access of two threads meet:
    w0 + cw * P == o0 + co * P, so P = (o0 - w0) / (cw - co); the smallest positive and the
    negative closest to 0."""
    found = set()
    budget = MAX_CANDIDATE_PAIRS
    by_var: dict = {}
    for r in rows:
        by_var.setdefault(id(r[0]), []).append(r)
    for rs in by_var.values():
        for w in rs:
            if not w[4]:
                continue
            for o in rs:
                cw, co = w[3], o[3]
                if not ((cw != 0).any() or (co != 0).any()):
                    continue
                if len(np.unique(cw)) > 1 or len(np.unique(co)) > 1:
                    continue  # the parameter scales the index (a row length), it does not shift it
                n = len(w[1]) * len(o[1])
                if n > budget:
                    continue
                budget -= n
                num = o[2][None, :] - w[2][:, None]
                den = cw[:, None] - co[None, :]
                ok = (den != 0) & (w[1][:, None] != o[1][None, :])
                with np.errstate(divide="ignore", invalid="ignore"):
                    ok &= np.where(den != 0, num % np.where(den == 0, 1, den) == 0, False)
                if ok.any():
                    p = (num[ok] // den[ok])
                    pos, neg = p[p > 0], p[p < 0]
                    if len(pos):
                        found.add(int(pos.min()))
                    if len(neg):
                        found.add(int(neg.max()))
    vals = sorted(found, key=lambda v: (v < 0, abs(v)))
    return vals[:2]
