"""Which accesses reach memory, and how many warp-level requests each issues for the launch.

A source-level access is not always a memory instruction. What nvcc -O3 does (checked on
sm_90 PTX/SASS for each rule; see tests/test_requests.py):

- **store-to-load forwarding / redundant loads**: a load of an address that an earlier store
  or load of the same thread already touched, on every path to it, with no store in between
  that may alias it and no barrier, is served from a register (``out[i] = a[i] * a[i]`` loads
  ``a[i]`` once; ``b[i] = a[i] + 1; c[i] = a[i] * 2`` loads it twice unless the pointers are
  ``__restrict__``, because the store to ``b[i]`` may change ``a[i]``);
- **accumulator promotion / loop-invariant loads**: a load in a loop whose address does not
  change in the loop, in a loop with no store that may alias it (a store to that same address
  is fine) and no barrier, is done once before the loop (``for j: tmp[i] += A[i*N+j] * x[j]``
  loads ``tmp[i]`` once, or never when ``tmp[i] = 0`` came before); a store of such an address
  is sunk after the loop only when nothing else in the loop may alias it.

Aliasing is decided conservatively: two pointer parameters may alias unless one of them is
``__restrict__``; different ``__shared__``/local arrays, and different memory spaces, never
alias; two offsets into the same object alias unless they differ by a known constant.

Requests: a warp issues one request per execution of the instruction by at least one of its
lanes. The count multiplies, per warp, the iterations of the enclosing loops (trip counts
from the launch's values) in which some lane's path condition holds, over the warps and blocks
of the launch (guards such as ``if (threadIdx.x < R)`` count only the warps that have such
lanes). Where a trip count or the grid is not known, ``requests`` is None and a relative
weight (per block, with stated defaults) is still kept for the kernel-level averages.
"""
from __future__ import annotations

import bisect
import heapq
import itertools
import math
from fractions import Fraction
from typing import Optional

import sympy as sp

from . import ir
from . import symbolic as S
from .lanes import Lane, num, num_bool, num_bool_lanes, num_lanes, thread_values

_MAX_BLOCKS = 24  # blocks sampled when a guard depends on blockIdx
_MAX_WARPS = 10   # warps of a block sampled (the first and last always)
_MAX_ITERS = 8    # iterations sampled per loop level when a guard or trip depends on it
_EXACT_ITERS = 64  # lanes leaving a loop over at most this many iterations are each taken
_BUDGET = 150_000  # condition evaluations per kernel before counts are given up (None)


class _OverBudget(Exception):
    pass


# --------------------------------------------------------------------------- aliasing

def _restrict(v) -> bool:
    return v is not None and "__restrict" in v.type.spelling


_DIFFERENCES: dict = {}
_TERMS: dict = {}  # offset -> its expansion as {term id: coefficient}, see _terms
_TERM_IDS: dict = {}  # term of an expansion -> a small int (comparing large products is slow)
_VARIES = "varies"  # a difference that is not a number


def _terms(x):
    """``expand(x)`` as {term id: coefficient} (a term without its rational coefficient; the
    constant under id 0), or None (not an expression, or a coefficient that is not rational);
    memoised: a kernel has few distinct offsets and many pairs of them."""
    try:
        return _TERMS[x]
    except KeyError:
        pass
    except TypeError:
        return None
    got = None
    if isinstance(x, sp.Expr):
        try:
            got = {}
            ex = sp.expand(x)
            if ex.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
                raise ValueError  # no longer a sum whose like terms cancel
            for t in sp.Add.make_args(ex):
                c, m = (t, None) if t.is_Number else t.as_coeff_Mul()
                if not c.is_Rational:
                    got = None
                    break
                i = 0 if m is None else _TERM_IDS.setdefault(m, len(_TERM_IDS) + 1)
                got[i] = got.get(i, 0) + (int(c) if c.is_Integer else Fraction(int(c.p), int(c.q)))
        except (TypeError, ValueError):
            got = None
    if got is not None:
        got = {i: c for i, c in got.items() if c != 0}
    _TERMS[x] = got
    return got


def _trim_terms() -> None:
    """Bound the memory of _terms. Term ids are only comparable between expansions made
    between two trims: call it only before computing the expansions to be compared."""
    if len(_TERMS) >= 50_000 or len(_TERM_IDS) >= 200_000:
        _TERMS.clear()
        _TERM_IDS.clear()


def _difference(x, y):
    """``expand(x - y)``: a rational number, ``_VARIES`` where it is not a number (or the
    expression itself where the offsets are not rational sums), None where it cannot be formed;
    memoised: the aliasing checks compare pairs of a kernel's accesses, loop by loop.
    Expanding each offset once and subtracting the terms is what ``expand(x - y)`` does (it
    expands each term of the sum and collects like terms), without rebuilding the large
    products of a stencil's offsets for every pair."""
    key = (x, y)
    try:
        return _DIFFERENCES[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable offset
        key = None
    if len(_DIFFERENCES) >= 50_000:
        _DIFFERENCES.clear()
    _trim_terms()
    tx, ty = _terms(x), _terms(y)
    if tx is not None and ty is not None:
        rest = dict(tx)
        for m, c in ty.items():
            rest[m] = rest.get(m, 0) - c
        if any(c != 0 for m, c in rest.items() if m != 0):
            d = _VARIES
        else:
            c = rest.get(0, 0)
            d = sp.Integer(c) if isinstance(c, int) or c.denominator == 1 else \
                sp.Rational(c.numerator, c.denominator)
    else:
        try:
            d = sp.expand(x - y)
        except (TypeError, ValueError):
            d = None
    if key is not None:
        _DIFFERENCES[key] = d
    return d


def _same_address(a: S.AccessEvent, b: S.AccessEvent) -> bool:
    if a.pointer.base is None or a.pointer.base is not b.pointer.base or a.space != b.space:
        return False
    if a.elem_bytes != b.elem_bytes:
        return False
    d = _difference(a.offset, b.offset)
    return d is not None and d is not _VARIES and d == 0


def may_alias(a: S.AccessEvent, b: S.AccessEvent) -> bool:
    """Whether accesses ``a`` and ``b`` can touch the same bytes (conservative)."""
    sa, sb = a.space, b.space
    if sa != sb and "unknown" not in (sa, sb):
        return False
    va, vb = a.pointer.base, b.pointer.base
    if va is not None and va is vb:
        d = _difference(a.offset, b.offset)
        if d is None or d is _VARIES:
            return True
        if d.is_Integer:
            return abs(int(d)) < max(a.elem_bytes or 16, b.elem_bytes or 16)
        return True
    if va is None or vb is None:
        return True
    if va.storage != "param" and vb.storage != "param":
        return False  # two distinct declared objects (shared, local, __device__ arrays)
    if _restrict(va) or _restrict(vb):
        return False
    if sa in ("shared", "local"):
        return va.storage == "param" and vb.storage == "param"
    return True


# --------------------------------------------------------------------------- issued

def _variant_in(offset, li: S.LoopInfo) -> bool:
    """Whether an address may change from one iteration of ``li`` to the next."""
    if not isinstance(offset, sp.Basic):
        return True
    if li.it is not None and li.it in offset.free_symbols:
        return True
    return bool(offset.atoms(S.MemLoad) or offset.atoms(S.Opaque))


def _path_subset(a: tuple, b: tuple) -> bool:
    return all(any(x == y for y in b) for x in a)


class _Index:
    """A kernel's accesses grouped for the questions asked of every access (is a store in this
    loop that may alias it, which earlier access has its address, is there a store in between),
    so that an answer costs the number of distinct (object, offset) classes, not of accesses:
    whether two accesses have the same address or may alias depends only on their classes."""

    def __init__(self, events: list):
        self.cls = {id(x): _class(x) for x in events}
        self.times = {}  # id -> how many times the access is in ``events``
        for x in events:
            self.times[id(x)] = self.times.get(id(x), 0) + 1
        self.rep = {}  # class -> an access of it
        self.loop = {}  # id(loop) -> {class: [accesses, stores, atomic or volatile]}
        self.first = {}  # id(loop) -> smallest seq in it
        for x in events:
            c = self.cls[id(x)]
            self.rep.setdefault(c, x)
            seen = []
            for li in x.loops:
                if any(li is y for y in seen):
                    continue
                seen.append(li)
                n = self.loop.setdefault(id(li), {}).setdefault(c, [0, 0, 0])
                n[0] += 1
                n[1] += x.kind == "store"
                n[2] += bool(x.atomic or x.volatile)
                self.first[id(li)] = min(self.first.get(id(li), x.seq), x.seq)
        # the order forwarded_from looks back in: latest first (ties in list order)
        order = sorted(events, key=lambda x: -x.seq)
        self.order = order
        self.neg_seqs = [-x.seq for x in order]
        self.ranks = {}  # class -> ranks in ``order``, ascending
        for r, x in enumerate(order):
            self.ranks.setdefault(self.cls[id(x)], []).append(r)
        self.objects = {}  # (space, object, element size) -> classes
        for c in self.ranks:
            self.objects.setdefault((c[0], c[1], c[3]), []).append(c)
        # same address <=> the same expansion of the offset (when it is a rational sum: a
        # zero difference), so classes are matched by expansion instead of pair by pair
        _trim_terms()
        self.expansion = {}  # class -> hashable expansion of its offset, or None
        self.by_expansion = {}  # (space, object, element size, expansion) -> classes
        for c in self.ranks:
            t = _terms(c[2]) if c[1] is not None else None
            t = self.expansion[c] = None if t is None else frozenset(t.items())
            if t is not None:
                self.by_expansion.setdefault((c[0], c[1], c[3], t), []).append(c)
        self.stores = {}  # class -> seqs of its stores
        for x in events:
            if x.kind == "store":
                self.stores.setdefault(self.cls[id(x)], []).append(x.seq)
        self.atomics = sorted(x.seq for x in events if x.atomic)
        self._rel: dict = {}
        self._blocked: dict = {}
        self._same: dict = {}
        self._between: dict = {}

    def class_of(self, e):
        c = self.cls.get(id(e))
        return c if c is not None else _class(e)

    def rel(self, x, e) -> tuple:
        """(_same_address(x, e), may_alias(x, e))."""
        k = (self.class_of(x), self.class_of(e))
        got = self._rel.get(k)
        if got is None:
            got = self._rel[k] = (_same_address(x, e), may_alias(x, e))
        return got

    def blocked(self, li, e) -> bool:
        """Whether another access in loop ``li`` keeps ``e`` in it (see hoisted_levels)."""
        ce = self.class_of(e)
        mine = self.times.get(id(e), 0)  # e itself is not one of the others
        key = (id(li), ce, e.kind, bool(e.atomic or e.volatile), mine)
        got = self._blocked.get(key)
        if got is None:
            got = False
            for c, (n_all, n_store, n_av) in self.loop.get(id(li), {}).items():
                if c == ce and mine:
                    n_all -= mine
                    n_store -= mine * (e.kind == "store")
                    n_av -= mine * bool(e.atomic or e.volatile)
                if n_all <= 0:
                    continue
                same, alias = self.rel(self.rep[c], e)
                if alias and ((n_av > 0) or (not same and (n_store if e.kind == "load" else n_all) > 0)):
                    got = True
                    break
            self._blocked[key] = got
        return got

    def same_address_before(self, e, start):
        """The accesses with ``e``'s address and a seq below ``start``, latest first."""
        ce = self.class_of(e)
        cs = self._same.get(ce)
        if cs is None:
            t = self.expansion.get(ce)
            group = self.objects.get((ce[0], ce[1], ce[3]), [])
            if t is not None:  # the classes without an expansion are compared one by one
                cs = self.by_expansion.get((ce[0], ce[1], ce[3], t), []) + \
                    [c for c in group if self.expansion[c] is None and self.rel(self.rep[c], e)[0]]
            else:
                cs = [c for c in group if self.rel(self.rep[c], e)[0]]
            self._same[ce] = cs
        r0 = bisect.bisect_right(self.neg_seqs, -start)  # first rank with seq < start
        runs = []
        for c in cs:
            rs = self.ranks[c]
            runs.append(rs[bisect.bisect_left(rs, r0):])
        for r in heapq.merge(*runs):
            yield self.order[r]

    def store_between(self, e, lo, hi) -> bool:
        """Whether a store that may alias ``e`` at another address, or an atomic access, has a
        seq strictly between ``lo`` and ``hi``."""
        ce = self.class_of(e)
        seqs = self._between.get(ce)
        if seqs is None:
            seqs = []
            for c, ss in self.stores.items():
                same, alias = self.rel(self.rep[c], e)
                if alias and not same:
                    seqs += ss
            seqs = self._between[ce] = sorted(seqs)
        for ss in (seqs, self.atomics):
            i = bisect.bisect_right(ss, lo)
            if i < len(ss) and ss[i] < hi:
                return True
        return False


def _class(e: S.AccessEvent) -> tuple:
    """What _same_address and may_alias read of an access: space, object, offset, element size."""
    off = e.offset
    try:
        hash(off)
    except TypeError:
        off = ("unhashable", id(e))
    b = e.pointer.base
    return (e.space, None if b is None else id(b), off, e.elem_bytes)


def hoisted_levels(e: S.AccessEvent, events: list, index: Optional[_Index] = None) -> int:
    """How many enclosing loops (innermost first) the access is moved out of by the compiler."""
    ix = index if index is not None else _Index(events)
    n = 0
    loops = list(e.loops)
    for idx in range(len(loops) - 1, -1, -1):
        li = loops[idx]
        if li.has_barrier or _variant_in(e.offset, li):
            break
        # Conditions added inside this loop's body before the access (or the inner loop it was
        # moved to): the access does not run on every iteration, so it is not moved.
        end = len(e.path) if idx == len(loops) - 1 else loops[idx + 1].entry_path_len
        if end > li.path_len:
            break
        # Another access in the loop keeps it there: for a load a store that may alias it at
        # another address, for a store any such access, and any atomic or volatile one.
        if ix.blocked(li, e):
            break
        n += 1
    return n


def forwarded_from(e: S.AccessEvent, events: list, levels: int,
                   index: Optional[_Index] = None) -> Optional[S.AccessEvent]:
    """An earlier access of the same address whose value the compiler reuses for load ``e``
    (after ``e`` is hoisted out of ``levels`` loops), or None."""
    ix = index if index is not None else _Index(events)
    loops = e.loops[:len(e.loops) - levels]
    start = e.seq
    if levels:
        inner = e.loops[len(e.loops) - levels]
        start = min(ix.first.get(id(inner), e.seq), e.seq)
    for a in ix.same_address_before(e, start):
        if a.atomic or a.volatile or a.epoch != e.epoch:
            continue
        if tuple(a.loops) != tuple(loops[:len(a.loops)]) or not _path_subset(a.path, e.path):
            continue
        # a store in between that may change the value, or an atomic access
        if ix.store_between(e, a.seq, start):
            return None
        # ... or one in a loop around e that does not hold a: it comes back before the next
        # iteration's load (gramschmidt's `a[i*NJ + j] -= q[i*NJ + k] * r[k*NJ + j]` reloads
        # r each iteration after storing to a, which may alias it)
        if any(ix.blocked(li, e) for li in loops[len(a.loops):]):
            return None
        return a
    return None


# --------------------------------------------------------------------------- requests

def _guards(e: S.AccessEvent) -> list:
    """The access's path conditions without its loops' own conditions (the trip counts say
    those already)."""
    own = {li.path_len - 1 for li in e.loops if li.path_len > li.entry_path_len}
    return [c for i, c in enumerate(e.path) if i not in own]


#: (expression, bound values, defaults) -> RequestCounter._bound's answer, across kernels
_BOUND: dict = {}


class RequestCounter:
    """Counts the warp-level requests of accesses for one launch."""

    def __init__(self, ev, launch):
        self.ev = ev
        self.syms = ev.syms
        self.b = ev.b
        self.model = ev.model
        self.grid = tuple(launch.grid) if launch is not None and launch.grid else None
        self.blocks = {i.component: s for s, i in self.syms.info.items() if i.kind == S.BLOCK}
        self._cache: dict = {}
        self._budget = _BUDGET
        self._lanes: dict = {}  # warp -> [(lane, thread values)], lanes 0, last, middle, rest
        self._bound_memo: dict = {}

    def _warp_lanes(self, w: int) -> list:
        got = self._lanes.get(w)
        if got is None:
            lanes = self.model.lanes(w)
            order = sorted(range(len(lanes)), key=lambda i: (i not in (0, len(lanes) - 1),
                                                                i != len(lanes) // 2, i))
            got = [(lanes[i], thread_values(self.syms, lanes[i])) for i in order]
            self._lanes[w] = got
        return got

    def _spend(self, n: int = 1) -> None:
        self._budget -= n
        if self._budget < 0:
            raise _OverBudget

    def _bound(self, e):
        key = e if isinstance(e, sp.Basic) else None
        hit = self._bound_memo.get(key) if key is not None else None
        if hit is not None:
            return hit  # every access of a loop binds the same trips and guards
        # the kernels of a file (template instances, a kernel per phase) share their guards
        # and trips, and rebuilding a Max/Min after the substitution is costly in sympy
        shared = (key, frozenset(self.b.values.items()), frozenset(self.b.defaults.items())) \
            if key is not None else None
        hit = _BOUND.get(shared) if shared is not None else None
        if hit is None:
            e = self.b.bind(e)
            hit = (e, False)
            if isinstance(e, sp.Basic) and self.b.defaults:
                free = e.free_symbols & set(self.b.defaults)
                if free:
                    hit = (e.xreplace({s: self.b.defaults[s] for s in free}), True)
            if shared is not None:
                if len(_BOUND) >= 20_000:
                    _BOUND.clear()
                _BOUND[shared] = hit
        if key is not None:
            self._bound_memo[key] = hit
        return hit

    def count(self, e: S.AccessEvent, levels: int, reach: bool = False) -> tuple[Optional[float], Optional[float], list]:
        """(requests for the launch or None, requests per block (weight) or None, notes).
        ``reach``: the requests of the warps that reach the branch the access sits directly in
        (its last path condition left out: a predicated branch)."""
        loops = tuple(e.loops[:len(e.loops) - levels])
        gone = {li.it for li in e.loops[len(loops):] if li.it is not None}
        last = e.path[-1] if reach and e.path else None
        path = tuple(c for c in _guards(e) if not (getattr(c, "free_symbols", set()) & gone)
                     and c is not last)
        key = (path, tuple(id(li) for li in loops))
        if key in self._cache:
            return self._cache[key]
        try:
            res = self._count(path, loops)
        except _OverBudget:
            res = (None, None, ["too many guarded or lane-dependent iterations to count the requests"])
        self._cache[key] = res
        return res

    def _geometric(self, li) -> Optional[tuple]:
        """A loop without a trip count that doubles or halves a variable between known numbers
        (a tree reduction's ``for (s = blockDim.x / 2; s >= 32; s >>= 1)``): (its trip count,
        {the variable's symbol: its value in iteration ``li.it``}), else None."""
        if li.it is None or not hasattr(self.ev, "sequence"):
            return None
        found = None
        for s, info in self.syms.info.items():
            if getattr(info, "geometric", None) is not None and info.loop is li.loop:
                if found is not None:
                    return None  # two variables of one loop: not modelled
                found = s
        seq = self.ev.sequence(found) if found is not None else None
        if not seq:
            return None
        start, factor, shrink = seq[0], self.syms.info[found].geometric[1], self.syms.info[found].geometric[2]
        value = sp.floor(sp.Integer(start) / sp.Integer(factor) ** li.it) if shrink \
            else sp.Integer(start) * sp.Integer(factor) ** li.it
        return len(seq), {found: value}

    def _count(self, path: tuple, loops: tuple):
        notes: list = []
        defaulted = False
        trips = []
        subs: dict = {}  # geometric variables -> their value in their loop's iteration
        for li in loops:
            if li.trip is None:
                geo = self._geometric(li)
                if geo is None:
                    return None, None, [f"the trip count of the loop at line {li.loop.range.line} is not known"]
                subs.update(geo[1])
                trips.append((li.it, sp.Integer(geo[0])))
                continue
            t, d = self._bound(li.trip)
            defaulted |= d
            trips.append((li.it, t.xreplace(subs) if subs and isinstance(t, sp.Basic) else t))
        conds = []
        for c in path:
            cb, d = self._bound(c)
            defaulted |= d
            if subs and isinstance(cb, sp.Basic):
                cb = cb.xreplace(subs)
            if cb is not sp.true:
                conds.append(cb)
        syms = set()
        for c in conds:
            syms |= getattr(c, "free_symbols", set())
        for _, t in trips:
            syms |= getattr(t, "free_symbols", set())
        block_dep = bool(syms & set(self.blocks.values()))
        iters = {li.it for li in loops if li.it is not None}
        allowed = self.syms.thread_symbols | set(self.blocks.values()) | iters
        if syms - allowed:
            # a condition on data or an unmodelled value: assume every lane takes it
            keep = []
            for c in conds:
                if getattr(c, "free_symbols", set()) - allowed:
                    notes.append("a condition depends on run-time data; counted as always true")
                else:
                    keep.append(c)
            conds = keep
            if any(getattr(t, "free_symbols", set()) - allowed for _, t in trips):
                return None, None, ["a loop trip count depends on run-time data"]
        blocks = self._block_samples() if block_dep else [({}, 1.0)]
        if blocks is None:
            return None, None, ["the guard depends on blockIdx and the grid is not known"]
        nw = self.model.nwarps
        if nw <= _MAX_WARPS:
            warps = [(w, 1.0) for w in range(nw)]
        else:  # the first and last warps once each, evenly spaced ones for the rest
            k = _MAX_WARPS - 2
            warps = [(0, 1.0), (nw - 1, 1.0)] + [(1 + (j * (nw - 3)) // (k - 1), (nw - 2) / k)
                                                  for j in range(k)]
        total = 0.0
        for bvals, weight in blocks:
            for w, ww in warps:
                total += weight * ww * self._warp_count(self._warp_lanes(w), bvals, conds, trips, 0, {})
        per_block = total / sum(wt for _, wt in blocks)
        nblocks = None
        if self.grid:
            nblocks = self.grid[0] * self.grid[1] * self.grid[2]
        if defaulted:
            notes.append("request count uses stated default values for unknown parameters")
        requests = per_block * nblocks if (nblocks is not None and not defaulted) else None
        return requests, per_block, notes

    def _block_samples(self):
        if not self.grid:
            return None
        gx, gy, gz = self.grid
        n = gx * gy * gz
        if n <= _MAX_BLOCKS:
            coords = itertools.product(range(gx), range(gy), range(gz))
            return [({self.blocks[c]: v for c, v in zip("xyz", p) if c in self.blocks}, 1.0) for p in coords]
        # Along each blockIdx component the guards read, the first and last blocks (where
        # edge guards bite) count once each and evenly spaced interior ones stand for the
        # rest; the samples of a 2-D or 3-D grid are the products. (Samples spread over the
        # linear block index weigh the last row of a 2-D grid as much as an interior stretch:
        # a 129 x 129 grid whose last row and column are idle came out 9% idle, not 1.5%.)
        used = [(c, g) for c, g in zip("xyz", (gx, gy, gz)) if c in self.blocks and g > 1]
        per = {1: _MAX_BLOCKS, 2: 5, 3: 3}.get(len(used), 3)

        def along(g: int) -> list:
            if g <= per:
                return [(v, 1.0) for v in range(g)]
            k = per - 2
            if k == 1:
                return [(0, 1.0), (g - 1, 1.0), ((g - 1) // 2, float(g - 2))]
            return [(0, 1.0), (g - 1, 1.0)] + [(1 + (j * (g - 3)) // (k - 1), (g - 2) / k) for j in range(k)]

        out = [({}, 1.0)]
        for c, g in used:
            out = [({**vals, self.blocks[c]: v}, w * wv) for vals, w in out for v, wv in along(g)]
        return out

    def _warp_count(self, lanes: list, bvals: dict, conds: list, trips: list, depth: int,
                    itvals: dict) -> float:
        """Iterations (of loops[depth:]) in which at least one lane of the warp executes;
        ``lanes`` are (Lane, thread values) pairs."""
        extra = {**bvals, **itvals}
        if depth == len(trips):
            for _, tv in lanes:
                self._spend(len(conds) or 1)
                vals = {**tv, **extra}
                if all(num_bool(c, vals) is not False for c in conds):
                    return 1.0
            return 0.0
        it, t = trips[depth]
        tfree = getattr(t, "free_symbols", set())
        lane_trip = bool(tfree & self.syms.thread_symbols)
        trips_of = []
        for _, tv in (lanes if lane_trip else lanes[:1]):
            self._spend()
            v = num(t, {**tv, **extra})
            if v is None:
                return 0.0
            trips_of.append(int(v))
        tmax = max(trips_of)
        if tmax <= 0:
            return 0.0
        inner_syms = set()
        for c in conds:
            inner_syms |= getattr(c, "free_symbols", set())
        for _, t2 in trips[depth + 1:]:
            inner_syms |= getattr(t2, "free_symbols", set())
        if it is None or (it not in inner_syms and not lane_trip):
            return tmax * self._warp_count(lanes, bvals, conds, trips, depth + 1, itvals)
        # The iteration matters (a guard on it, a trip that depends on it, or lanes with
        # different trips): sample iterations evenly and scale.
        picks = list(range(tmax)) if tmax <= _MAX_ITERS else \
            [(k * (tmax - 1)) // (_MAX_ITERS - 1) for k in range(_MAX_ITERS)]
        acc = 0.0
        for k in picks:
            live = [ln for ln, n in zip(lanes, trips_of) if n > k] if lane_trip else lanes
            if live:
                acc += self._warp_count(live, bvals, conds, trips, depth + 1, {**itvals, it: k})
        return acc * tmax / len(picks)


    # ------------------------------------------------------------ lanes leaving a loop early
    def diverging_sectors(self, e: S.AccessEvent) -> Optional[float]:
        """Sectors per request of a global access inside a loop whose trip count differs
        between the lanes of a warp (``for (j2 = j1 + 1; j2 < M; j2++)``): its last
        iterations run with fewer lanes, so fewer sectors. Averaged over sampled blocks, warps
        and iterations; None when the address or a trip has no number."""
        if e.space != "global" or not e.elem_bytes or not self.grid or not e.loops:
            return None
        if not any(li.trip is not None and getattr(self.b.bind(li.trip), "free_symbols", set())
                   & self.syms.thread_symbols for li in e.loops):
            return None
        off, d1 = self._bound(e.offset)
        if d1 or not isinstance(off, sp.Expr):
            return None
        trips = []
        for li in e.loops:
            t, d = self._bound(li.trip) if li.trip is not None else (None, True)
            if d or li.it is None:
                return None
            trips.append((li.it, t))
        conds = [c for c in (self._bound(c)[0] for c in _guards(e)) if c is not sp.true]
        from .coalescing import units_touched

        acc = [0.0, 0.0]  # sectors, requests (weighted)
        self._budget = _BUDGET  # its own budget: one access, sampled

        def leaf(lanes, extra, wt):
            addrs = []
            need = (len(conds) + 1) * len(lanes)
            if self._budget >= need:  # all lanes at once (lane by lane where the budget ends)
                self._budget -= need
                tvs = [tv for _, tv in lanes]
                for c in conds:
                    tvs = [tv for tv, b in zip(tvs, num_bool_lanes(c, tvs, extra)) if b is not False]
                for a in num_lanes(off, tvs, extra):
                    if a is None:
                        raise _OverBudget
                    addrs.append(int(a))
            else:
                for _, tv in lanes:
                    self._spend(len(conds) + 1)
                    vals = {**tv, **extra}
                    if all(num_bool(c, vals) is not False for c in conds):
                        a = num(off, vals)
                        if a is None:
                            raise _OverBudget
                        addrs.append(int(a))
            if addrs:
                acc[0] += wt * units_touched(addrs, e.elem_bytes, 32)
                acc[1] += wt

        used = set(off.free_symbols)
        for c in conds:
            used |= getattr(c, "free_symbols", set())
        for _, t in trips:
            used |= getattr(t, "free_symbols", set())
        # A loop variable that only moves the address by c bytes an iteration (no guard or
        # trip uses it): moving every lane by 32 bytes moves each onto the next sector, so the
        # cost depends on the iteration modulo 32 / gcd(c, 32) only.
        periods = {}
        for it, _ in trips:
            if it is None or any(it in getattr(x, "free_symbols", set())
                                 for x in conds + [t for _, t in trips]):
                continue
            c = sp.expand(off).coeff(it)
            if isinstance(c, sp.Integer) and it not in sp.expand(off - c * it).free_symbols:
                periods[it] = 32 // math.gcd(int(c), 32)

        def walk(lanes, depth, extra, wt):
            if depth == len(trips):
                return leaf(lanes, extra, wt)
            it, t = trips[depth]
            counts = []
            if self._budget >= len(lanes):
                self._budget -= len(lanes)
                vs = num_lanes(t, [tv for _, tv in lanes], extra)
            else:
                vs = None
            for i, (_, tv) in enumerate(lanes):
                if vs is None:
                    self._spend()
                v = num(t, {**tv, **extra}) if vs is None else vs[i]
                if v is None:
                    raise _OverBudget
                counts.append(int(v))
            if not counts or max(counts) <= 0:
                return
            tmin, tmax = min(counts), max(counts)
            if it not in used and tmin == tmax:
                return walk(lanes, depth + 1, {**extra, it: 0}, wt * tmax)
            period = periods.get(it)
            # Two strata: every lane in the loop (0..tmin), lanes leaving it (tmin..tmax).
            for every, (lo, hi) in ((True, (0, tmin)), (False, (tmin, tmax))):
                n = hi - lo
                if n <= 0:
                    continue
                if period is not None and (every or n <= _EXACT_ITERS):
                    # exact: with the same lanes the cost repeats every `period` iterations
                    # (evenly spaced samples alias with it: data[i*M + j1 + 1 + it] is
                    # misaligned 7 iterations in 8), and the lanes leaving one by one are
                    # each taken
                    step = period if every else n
                    for r in range(min(step, n)):
                        it_v = lo + r
                        live = lanes if every else [ln for ln, c in zip(lanes, counts) if c > it_v]
                        if live:
                            walk(live, depth + 1, {**extra, it: it_v}, wt * ((n - r + step - 1) // step))
                    continue
                k = min(n, _MAX_ITERS // 2 if lo == 0 and tmin < tmax else _MAX_ITERS)
                for j in range(k):
                    it_v = lo + (j * (n - 1)) // max(k - 1, 1)
                    live = [ln for ln, c in zip(lanes, counts) if c > it_v]
                    if live:
                        walk(live, depth + 1, {**extra, it: it_v}, wt * n / k)

        try:
            for bvals, _ in (self._block_samples() or []):
                for w in range(self.model.nwarps):
                    walk(self._warp_lanes(w), 0, dict(bvals), 1.0)
        except _OverBudget:
            return None
        return acc[0] / acc[1] if acc[1] else None


    # ------------------------------------------------- shared lanes that a loop's guard selects
    def guarded_wavefronts(self, e: S.AccessEvent, levels: int, banks: int = 32,
                           width: int = 4) -> Optional[tuple]:
        """Wavefronts of a shared access whose active lanes change from one iteration to the
        next (``for (i...) if (tx > i) s[tx * 16 + i]``, ``for (m...) if (tx <= m)``; or a
        trip count that differs between lanes): the warp's conflict degree is that of the
        lanes active in each iteration, not of every lane at once. Returns (mean wavefronts
        per request, mean conflict-free wavefronts, the worst degree, the worst iteration's
        values {iteration symbol: value}), each request weighted once; None where it does not
        apply or has no number."""
        if e.space != "shared" or not e.elem_bytes or e.elem_bytes not in (1, 2, 4, 8, 16) or not e.loops:
            return None
        el = e.elem
        if el is not None and el.kind == "record" and not (e.elem_bytes in (8, 16) and (el.align or 0) >= e.elem_bytes):
            # moved as several requests (a struct of 4-byte words: accesses._request_parts)
            return None
        loops = e.loops[:len(e.loops) - levels]
        gone = {li.it for li in e.loops[len(loops):] if li.it is not None}
        iters = {li.it for li in loops if li.it is not None}
        if not iters:
            return None
        conds = []
        for c in _guards(e):
            if getattr(c, "free_symbols", set()) & gone:
                continue
            cb, d = self._bound(c)
            if d:
                return None
            if cb is not sp.true:
                conds.append(cb)
        trips = []
        for li in loops:
            t, d = self._bound(li.trip) if li.trip is not None else (None, True)
            if d or li.it is None:
                return None
            trips.append((li.it, t))
        thr = self.syms.thread_symbols
        # applies only where the lanes that run depend on the iteration
        varies = any((getattr(c, "free_symbols", set()) & thr) and (getattr(c, "free_symbols", set()) & iters)
                     for c in conds) or \
            any(getattr(t, "free_symbols", set()) & thr for _, t in trips)
        if not varies:
            return None
        off, d1 = self._bound(e.offset)
        if d1 or not isinstance(off, sp.Expr):
            return None
        allowed = thr | set(self.blocks.values()) | iters
        used = set(off.free_symbols)
        for c in conds:
            used |= getattr(c, "free_symbols", set())
        for _, t in trips:
            used |= getattr(t, "free_symbols", set())
        if used - allowed:
            return None
        if used & set(self.blocks.values()):
            blocks = self._block_samples()
            if blocks is None:
                return None
        else:
            blocks = [({}, 1.0)]
        from .banks import wavefronts

        acc = [0.0, 0.0, 0.0]  # wavefronts, conflict-free wavefronts, requests (weighted)
        worst = [0.0, None]
        self._budget = _BUDGET

        def leaf(lanes, extra, wt):
            self._spend((len(conds) + 1) * len(lanes))
            live = list(lanes)
            for c in conds:
                live = [ln for ln, b in zip(live, num_bool_lanes(c, [tv for _, tv in live], extra))
                        if b is not False]
            if not live:
                return
            addrs = num_lanes(off, [tv for _, tv in live], extra)
            if any(a is None or a != int(a) for a in addrs):
                raise _OverBudget
            wf, passes = wavefronts([ln.lane for ln, _ in live], [int(a) for a in addrs],
                                    e.elem_bytes, banks, width)
            acc[0] += wt * wf
            acc[1] += wt * passes
            acc[2] += wt
            if passes and wf / passes > worst[0] + 1e-9:
                worst[0], worst[1] = wf / passes, {k: v for k, v in extra.items() if k in iters}

        def walk(lanes, depth, extra, wt):
            if depth == len(trips):
                return leaf(lanes, extra, wt)
            it, t = trips[depth]
            self._spend(len(lanes))
            vs = num_lanes(t, [tv for _, tv in lanes], extra)
            if any(v is None for v in vs):
                raise _OverBudget
            counts = [int(v) for v in vs]
            tmax = max(counts) if counts else 0
            if tmax <= 0:
                return
            n = min(tmax, 64)  # every iteration up to 64, else 64 evenly spaced ones
            for j in range(n):
                k = j if n == tmax else (j * (tmax - 1)) // (n - 1)
                live = [ln for ln, c in zip(lanes, counts) if c > k]
                if live:
                    walk(live, depth + 1, {**extra, it: k}, wt * tmax / n)

        try:
            for bvals, bw in blocks:
                for w in range(self.model.nwarps):
                    walk(self._warp_lanes(w), 0, dict(bvals), bw)
        except _OverBudget:
            return None
        if not acc[2] or not acc[1]:
            return None
        return acc[0] / acc[2], acc[1] / acc[2], worst[0], worst[1]


# --------------------------------------------------------------------------- table

def annotate(table, launch, counts: bool = True) -> None:
    """Set ``issued``, ``requests``, ``weight`` (requests per block, for kernel averages) and
    the reason on every access of ``table`` (an AccessTable). Without ``counts``, ``requests``
    and ``weight`` of issued accesses stay unknown (no rule reads them; counting is most of
    this model's cost); what rules do read is set either way: ``issued``, the reason, and
    the sectors of a warp whose lanes leave a loop at different iterations."""
    ev = getattr(table, "evaluator", None)
    accs = [a for a in table.accesses if a.event is not None]
    events = [a.event for a in accs]
    counter = RequestCounter(ev, launch) if ev is not None else None
    index = _Index(events)
    for a in accs:
        e = a.event
        if a.space == "constant":
            continue  # constant-cache reads are not LSU requests
        levels = 0
        if not (e.atomic or e.volatile):
            levels = hoisted_levels(e, events, index)
        src = forwarded_from(e, events, levels, index) if e.kind == "load" and not (e.atomic or e.volatile) else None
        if src is not None:
            a.issued = False
            a.requests = 0
            a.weight = 0.0
            what = "stored" if src.kind == "store" else "loaded"
            a.request_note = (f"kept in a register: no request (the value {what} at line "
                              f"{src.node.range.line} is reused"
                              + (f"; the load is moved out of {levels} loop(s)" if levels else "") + ")")
            continue
        if levels:
            lines = ", ".join(str(li.loop.range.line) for li in e.loops[len(e.loops) - levels:])
            verb = "loaded once before" if e.kind == "load" else "stored once after"
            a.request_note = (f"{verb} the loop at line {lines}: its address does not change there "
                              "and nothing in the loop may alias it")
        if counter is None:
            continue
        if levels == 0 and not e.atomic:
            sec = counter.diverging_sectors(e)
            if sec is not None and a.sectors_per_request is not None and \
                    abs(sec - a.sectors_per_request) > 1e-6:
                a.assumptions.append(f"lanes leave the loop at different iterations: "
                                     f"{sec:.3g} sectors per request on average instead of "
                                     f"{a.sectors_per_request:g} with every lane active")
                a.sectors_per_request = sec
        fused = getattr(a, "fused", 1)
        if a.space == "shared" and a.ways is not None and not e.atomic and fused == 1:
            _guarded_banks(a, e, counter, levels, getattr(table, "target", None))
        if not counts:
            continue
        req, per_block, notes = counter.count(e, levels)
        # shared only: Nsight's shared figures are per executed instruction (predicated-off
        # warps included), its global ones per L1 request (an instruction with no active
        # thread makes none: HeCBench stencil_1d's first block, 40,959 global requests)
        g = predicated(e) if a.space == "shared" else None
        if g is not None and per_block:
            req2, pb2, notes2 = counter.count(e, levels, reach=True)
            if pb2 is not None and pb2 > per_block * (1 + 1e-9) and (req is None) == (req2 is None):
                a.moving_share = per_block / pb2
                req, per_block, notes = req2, pb2, notes + [n for n in notes2 if n not in notes]
                what = "`?:` select" if isinstance(g, ir.Ternary) else "short `if`"
                a.assumptions.append(
                    f"nvcc predicates the {what} at line {g.range.line} (it does not branch around it): "
                    f"every warp that reaches it issues this {e.kind}, and {100 * a.moving_share:.3g}% "
                    "of those requests have an active lane and move data")
        if fused > 1:  # one vector load for `fused` iterations of the unrolled loop
            req = None if req is None else req / fused
            per_block = None if per_block is None else per_block / fused
        a.requests = None if req is None else round(req)
        a.weight = per_block
        for n in notes:
            if n not in a.assumptions:
                a.assumptions.append(n)


# ----------------------------------------------------------------- predicated branches
# nvcc -O3 if-converts a short branch: the instructions get a predicate and every warp that
# reaches the branch issues them, those whose lanes all fail the condition with no data moved
# (Nsight's shared figures count each such instruction, with 0 wavefronts; its global
# requests do not). Seen in the SASS of the
# measured real-code set (tests/data/realcode-measured*.json): `if (tid < s) s[tid] += s[tid+s];`
# in a reduction loop (@!P1 LDS/STS), a halo copy of two statements (@!P0 LDS/STS), a load
# under `if (tx == 0)` (@!P0 LDG), the loads of `c ? A0[i] : sh[j]` (@P6 LDS / @!P6 LDG). It
# branches where the body holds another conditional (cuda-samples/HeCBench stencil_1d's halo,
# `(gindex < RADIUS) ? 0 : in[...]`: only warp 0 issues it), and where the branch ends the
# kernel (`if (tid == 0) out[b] = s[0];` last: the other threads exit).
_PRED_MAX_STMTS = 4
_PRED_MAX_MEM = 4


def predicated(e: S.AccessEvent):
    """The ir.If / ir.Ternary nvcc predicates that access ``e`` sits directly in, or None."""
    g = getattr(e, "guard", None)
    if isinstance(g, ir.Ternary):
        return g
    if isinstance(g, ir.If) and _short_if(g, e.function):
        return g
    return None


def _short_if(s: ir.If, fn: ir.Function) -> bool:
    memo = getattr(fn, "_cudalint_short_ifs", None)
    if memo is None:
        memo = {}
        try:
            fn._cudalint_short_ifs = memo
        except AttributeError:
            pass
    hit = memo.get(id(s))
    if hit is None:
        hit = memo[id(s)] = _straight(s) and id(s) not in _kernel_tail(fn)
    return hit


def _straight(s: ir.If) -> bool:
    """Straight-line, short sides: expression statements and declarations only, no `?:`, no
    call of a function with a body (an intrinsic is fine), few memory accesses."""
    stmts: list = []

    def flat(b):
        for x in (b.stmts if isinstance(b, ir.Block) else [b]):
            if isinstance(x, ir.Block):
                flat(x)
            else:
                stmts.append(x)

    flat(s.then)
    if s.otherwise is not None:
        flat(s.otherwise)
    if not stmts or len(stmts) > _PRED_MAX_STMTS:
        return False
    mem = 0
    for x in stmts:
        if not isinstance(x, (ir.ExprStmt, ir.DeclStmt)):
            return False
        for ex in x.exprs():
            for y in ex.walk():
                if isinstance(y, ir.Ternary) or (isinstance(y, ir.Call) and y.function is not None
                                                 and not _arithmetic_only(y.function)):
                    return False
                # one per access: `a[i][j]` is an Index of an Index
                if (isinstance(y, ir.Index) and not isinstance(y.base, ir.Index)) or \
                        (isinstance(y, ir.UnaryOp) and y.op == "*"):
                    mem += 1
    return mem <= _PRED_MAX_MEM


def _arithmetic_only(fn: ir.Function, depth: int = 0) -> bool:
    """A device function whose body is one ``return`` of arithmetic on its arguments (mumax's
    ``sum(a, b) { return a + b; }`` passed to a reduction macro): inlined to an instruction or
    two, it leaves a short branch as short as before."""
    body = fn.body
    if body is None or depth > 2 or len(body.stmts) != 1 or not isinstance(body.stmts[0], ir.Return) \
            or body.stmts[0].value is None:
        return False
    for y in body.stmts[0].value.walk():
        if isinstance(y, (ir.Ternary, ir.Index, ir.Assign)) or (isinstance(y, ir.UnaryOp) and y.op in
                                                                 ("*", "pre++", "pre--", "post++", "post--")):
            return False
        if isinstance(y, ir.Call) and y.function is not None and not _arithmetic_only(y.function, depth + 1):
            return False
    return True


def _kernel_tail(fn: ir.Function) -> set:
    """ids of the `if` statements after which a kernel ends (the last statement of its body,
    and the last of their sides, recursively; trailing `return;` skipped): threads that do
    not take one exit, so nvcc branches (an early EXIT) instead of predicating."""
    out: set = set()
    if not fn.is_kernel or fn.body is None:
        return out

    def tail(b):
        stmts = [x for x in (b.stmts if isinstance(b, ir.Block) else [b]) if not isinstance(x, ir.Return)]
        if not stmts:
            return
        last = stmts[-1]
        if isinstance(last, ir.Block):
            tail(last)
        elif isinstance(last, ir.If):
            out.add(id(last))
            tail(last.then)
            if last.otherwise is not None:
                tail(last.otherwise)

    tail(fn.body)
    return out


def _guarded_banks(a, e: S.AccessEvent, counter: RequestCounter, levels: int, target) -> None:
    """A shared access whose active lanes change with a loop's iteration (see
    RequestCounter.guarded_wavefronts): its wavefronts per request become the mean over the
    requests, and the conflict degree the mean of that; the worst iteration is noted."""
    banks = (getattr(target, "shared_memory_banks", None) or 32) if target is not None else 32
    width = (getattr(target, "bank_width_bytes", None) or 4) if target is not None else 4
    got = counter.guarded_wavefronts(e, levels, banks, width)
    if got is None:
        return
    wf, mn, worst, at = got
    if abs(wf - (a.wavefronts_per_request or 0)) < 1e-6:
        return
    lines = {li.it: li.loop.range.line for li in e.loops if li.it is not None}
    where = ", ".join(f"iteration {v + 1} of the loop at line {lines[k]}"
                      for k, v in sorted((at or {}).items(), key=lambda kv: lines.get(kv[0], 0)) if k in lines)
    a.assumptions.append(
        f"the lanes that run it change with the loop's iteration: {wf:.3g} wavefronts per request "
        f"on average instead of {a.wavefronts_per_request:g} with every lane active"
        + (f" ({worst:.3g}-way at worst, at {where})" if where else ""))
    a.wavefronts_per_request = wf
    a.min_wavefronts = mn
    a.ways = wf / mn if mn else None
    a.worst_ways = worst
