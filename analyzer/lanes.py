"""The warp/lane model: which threads a warp holds, and the addresses its lanes use.

For a block of (bx, by, bz) threads, warp ``w``'s lane ``l`` is thread ``t = 32 w + l`` with
``tx = t mod bx``, ``ty = (t div bx) mod by``, ``tz = t div (bx by)``; a lane whose ``t`` is past
the end of the block (a partial last warp) does not exist, and a lane whose path condition is
false (``if (tid < 16)``) is inactive.

:func:`warp_addresses` evaluates a symbolic byte address (from ``analyzer/symbolic.py``) for the
active lanes of one warp. The part of the address that depends on the thread is evaluated per
lane; the part that is the same for every lane (``blockIdx``, loop iterations, parameters) only
shifts the whole warp, and all that matters of it is its residue modulo 256 bytes (sectors,
128-byte lines and the 32 shared banks all repeat with a period dividing 256). That residue is
computed as a distribution — exactly, when the uniform part is a constant or a loop counter with
a known trip count; uniformly over the values it can take otherwise (``blockIdx.x * 4`` visits
every 4-byte offset, ``k * 4096`` only 0) — so the cost of an access is the mean over the
warp-requests of the whole kernel, the figure Nsight Compute reports. When the thread-dependent
part itself involves uniform unknowns (``a[threadIdx.x * k]``), those are sampled and the
result says so.

The result is a :class:`WarpAddresses`: active lanes and a list of weighted scenarios (one
address per active lane each), or a status saying why there are no numbers (data-dependent,
unknown).
"""
from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional

import sympy as sp

from . import numeval
from . import symbolic as S
from .display import user_text

MODULUS = 256  # bytes: buffers are assumed 256-byte aligned (cudaMalloc)
SAMPLES = 8
# draws of a sampled block index before giving up on one that a guard on it lets through
_EDGE_DRAWS = 16


# --------------------------------------------------------------------------- lanes


@dataclass(frozen=True)
class Lane:
    lane: int
    tid: int
    x: int
    y: int
    z: int


@dataclass(frozen=True)
class LaneModel:
    block: tuple
    warp_size: int = 32

    @property
    def nthreads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def nwarps(self) -> int:
        return -(-self.nthreads // self.warp_size)

    def coords(self, t: int) -> tuple[int, int, int]:
        bx, by, _ = self.block
        return t % bx, (t // bx) % by, t // (bx * by)

    def lanes(self, warp: int) -> list[Lane]:
        out = []
        for l in range(self.warp_size):
            t = warp * self.warp_size + l
            if t >= self.nthreads:
                break
            x, y, z = self.coords(t)
            out.append(Lane(l, t, x, y, z))
        return out

    def representative_warps(self) -> list[int]:
        """Warp 0, an interior warp (the middle one) and a partial last warp if there is one."""
        n = self.nwarps
        ws = [0]
        if n > 1:
            ws.append(n // 2)
        if self.nthreads % self.warp_size and (n - 1) not in ws:
            ws.append(n - 1)
        return ws

    def warp_of(self, t: int) -> int:
        return t // self.warp_size


def direct_first(atoms: list) -> list:
    """The run-time values an index depends on, in the order a message names them: those not
    nested inside another first (the direct dependency: `points[...]` of
    `extrema[points[pidx + history_lengths[tid]]]`), then sympy's canonical order. A set's own
    order changes from run to run (string hashing is salted per process)."""
    # a choice made by loaded values stands in for them: name the loads themselves
    real = [a for a in atoms if not (isinstance(a, S.MemLoad) and str(a.args[0]) == S.DATA_CHOICE)]
    atoms = real or atoms
    inner = {id(b) for a in atoms for b in atoms if b is not a and a.has(b)}
    return sorted(atoms, key=lambda a: (id(a) in inner, sp.default_sort_key(a)))


def thread_values(syms: "S.Symbols", lane: Lane) -> dict:
    t = syms.thread
    return {t["x"]: lane.x, t["y"]: lane.y, t["z"]: lane.z}


# --------------------------------------------------------------------------- numeric evaluation


_Unknown = numeval.Unknown
_NUM = numeval.Compiled("num")
_BOOL = numeval.Compiled("bool")


def num(e, vals: dict):
    """Evaluate a sympy expression with ``vals`` (symbol -> int); int/Fraction/float/bool, or
    None when something in it has no value. Much faster than ``subs`` for small trees; an
    expression used again runs compiled (``numeval``), with the same results."""
    f = _NUM.get(e)
    try:
        return f(vals) if f is not None else _num(e, vals)
    except (_Unknown, ZeroDivisionError, TypeError, ValueError, OverflowError):
        return None


def num_bool(c, vals: dict) -> Optional[bool]:
    f = _BOOL.get(c)
    try:
        return f(vals) if f is not None else _bool(c, vals)
    except (_Unknown, ZeroDivisionError, TypeError, ValueError, OverflowError):
        return None


_NUM_LANES = numeval.Compiled("num", lanes=True)
_BOOL_LANES = numeval.Compiled("bool", lanes=True)


def num_lanes(e, tvs: list, extra: dict) -> list:
    """``[num(e, {**tv, **extra}) for tv in tvs]``, in one compiled loop when every lane has a
    value."""
    f = _NUM_LANES.get(e)
    if f is not None:
        try:
            return f(tvs, extra)
        except (_Unknown, ZeroDivisionError, TypeError, ValueError, OverflowError):
            return f.safe(tvs, extra)  # some lane has no value: lane by lane
    return [num(e, {**tv, **extra}) for tv in tvs]


def num_bool_lanes(c, tvs: list, extra: dict) -> list:
    """``[num_bool(c, {**tv, **extra}) for tv in tvs]`` (see :func:`num_lanes`)."""
    f = _BOOL_LANES.get(c)
    if f is not None:
        try:
            return f(tvs, extra)
        except (_Unknown, ZeroDivisionError, TypeError, ValueError, OverflowError):
            return f.safe(tvs, extra)
    return [num_bool(c, {**tv, **extra}) for tv in tvs]


def _num(e, vals):
    if e.is_Integer:
        return int(e)
    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    if e.is_Float:
        return float(e)
    if e.is_Symbol:
        v = vals.get(e)
        if v is None:
            raise _Unknown
        return v
    f = e.func
    if f is sp.Add:
        return sum(_num(a, vals) for a in e.args)
    if f is sp.Mul:
        r = 1
        for a in e.args:
            r = r * _num(a, vals)
        return r
    if f is sp.Pow:
        b, x = _num(e.args[0], vals), _num(e.args[1], vals)
        if isinstance(x, int):
            return b ** x if x >= 0 else Fraction(1, b ** -x) if isinstance(b, int) else b ** x
        return b ** x
    if f is sp.floor:
        return math.floor(_num(e.args[0], vals))
    if f is sp.ceiling:
        return math.ceil(_num(e.args[0], vals))
    if f is sp.Mod:
        a, b = _num(e.args[0], vals), _num(e.args[1], vals)
        return a % b
    if f is sp.Min:
        return min(_num(a, vals) for a in e.args)
    if f is sp.Max:
        return max(_num(a, vals) for a in e.args)
    if f is sp.Abs:
        return abs(_num(e.args[0], vals))
    if f is sp.Piecewise:
        for ex, c in e.args:
            b = _bool(c, vals)
            if b is None:
                raise _Unknown
            if b:
                return _num(ex, vals)
        raise _Unknown
    if f in (S.BitAnd, S.BitOr, S.BitXor, S.ShiftLeft, S.ShiftRight):
        a, b = _num(e.args[0], vals), _num(e.args[1], vals)
        a, b = _as_int(a), _as_int(b)
        if f is S.BitAnd:
            return a & b
        if f is S.BitOr:
            return a | b
        if f is S.BitXor:
            return a ^ b
        if f is S.ShiftLeft:
            return a << b
        return a >> b
    raise _Unknown


_as_int = numeval.as_int  # the compiled evaluator's own: same results either way


_RELOPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
           ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def _bool(c, vals) -> Optional[bool]:
    if c is sp.true or c is True:
        return True
    if c is sp.false or c is False:
        return False
    if isinstance(c, sp.core.relational.Relational):
        op = c.rel_op
        if op in _RELOPS:
            return _RELOPS[op](_num(c.lhs, vals), _num(c.rhs, vals))
        raise _Unknown
    f = getattr(c, "func", None)
    if f is sp.And:
        unknown = False
        for a in c.args:
            b = _safe_bool(a, vals)
            if b is False:
                return False
            if b is None:
                unknown = True
        if unknown:
            raise _Unknown
        return True
    if f is sp.Or:
        unknown = False
        for a in c.args:
            b = _safe_bool(a, vals)
            if b is True:
                return True
            if b is None:
                unknown = True
        if unknown:
            raise _Unknown
        return False
    if f is sp.Not:
        return not _bool(c.args[0], vals)
    raise _Unknown


def _safe_bool(c, vals) -> Optional[bool]:
    try:
        return _bool(c, vals)
    except (_Unknown, ZeroDivisionError, TypeError, ValueError, OverflowError):
        return None


# --------------------------------------------------------------------------- scenarios


@dataclass
class WarpAddresses:
    """Addresses of one warp's active lanes.

    ``status``: ok | data-dependent | unknown | inactive (no lane executes the access).
    ``scenarios``: (weight, [byte address per active lane]) with weights summing to 1; the
    addresses are relative to a 256-byte aligned base.
    """

    warp: int
    status: str
    lanes: list = field(default_factory=list)  # active Lane objects, in lane order
    scenarios: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    sampled: bool = False
    defaulted: bool = False  # a stated default value had to be used
    why: str = ""
    # Where the stated defaults only offset the whole warp (they enter no lane-dependent
    # term): the byte step of the other offsets other values could give (their residues
    # modulo 256 are the default's plus multiples of it), and the notes that state them. A
    # cost that is the same at every such offset does not rest on the default.
    default_step: Optional[int] = None
    default_notes: tuple = ()
    # when the lanes that execute the access differ between scenarios (a guard on a sampled
    # loop variable, ``if (tid < stride)``): the active lanes of each scenario, in the order
    # of ``scenarios``; ``lanes`` is then their union. None: every scenario has ``lanes``.
    scenario_lanes: Optional[list] = None

    def lanes_of(self, i: int) -> list:
        """The active lanes of scenario ``i``."""
        return self.scenario_lanes[i] if self.scenario_lanes is not None else self.lanes


class AddressEvaluator:
    """Evaluates symbolic addresses of one kernel for a block shape (caches per path)."""

    def __init__(self, syms: "S.Symbols", model: LaneModel, bindings: "S.Bindings",
                 modulus: int = MODULUS):
        self.syms = syms
        self.model = model
        self.b = bindings
        self.modulus = modulus
        self._active_cache: dict = {}
        self._thread_syms = syms.thread_symbols
        self._lanes = {w: model.lanes(w) for w in model.representative_warps()}

    # ---------------------------------------------------------------- active lanes
    def active_lanes(self, warp: int, path: tuple, lanes: Optional[list] = None) -> list[Lane]:
        key = (warp, path)
        hit = self._active_cache.get(key)
        if hit is not None:
            return hit
        lanes = lanes if lanes is not None else self._lanes.get(warp) or self.model.lanes(warp)
        conds = [self.b.bind(c) for c in path]
        conds = [c for c in conds if c is not sp.true]
        # a lane is active unless some condition is False for it: each condition over the
        # lanes still active, in one compiled loop
        tvs = [thread_values(self.syms, ln) for ln in lanes]
        live = list(range(len(lanes)))
        open_ = []  # conditions some live lane could not decide
        for c in conds:
            if not live:
                break
            got = num_bool_lanes(c, [tvs[i] for i in live], {})
            if any(b is None for b in got):
                open_.append(c)
            live = [i for i, b in zip(live, got) if b is not False]
        if open_ and len(live) > 1:
            live = _window(open_, live, tvs, self._thread_syms)
        out = [lanes[i] for i in live]
        self._active_cache[key] = out
        return out

    def threads_active(self, tids, path: tuple) -> list:
        """``[thread_active(t, path) for t in tids]``, each condition evaluated over the
        threads in one compiled loop."""
        key = ("bound", path)
        conds = self._active_cache.get(key)
        if conds is None:
            conds = [self.b.bind(c) for c in path]
            self._active_cache[key] = conds
        tvs = []
        for t in tids:
            x, y, z = self.model.coords(t)
            tvs.append(thread_values(self.syms, Lane(t % 32, t, x, y, z)))
        out: list = [True] * len(tvs)
        live = list(range(len(tvs)))
        for c in conds:  # False for a thread ends it; None (unknown) is kept, and may turn False
            if not live:
                break
            nxt = []
            for i, b in zip(live, num_bool_lanes(c, [tvs[i] for i in live], {})):
                if b is False:
                    out[i] = False
                else:
                    if b is None:
                        out[i] = None
                    nxt.append(i)
            live = nxt
        return out

    def thread_active(self, tid: int, path: tuple) -> Optional[bool]:
        """Whether thread ``tid`` of the block executes under ``path``: True, False, or None
        when a condition cannot be decided from the thread index alone."""
        x, y, z = self.model.coords(tid)
        vals = thread_values(self.syms, Lane(tid % 32, tid, x, y, z))
        res = True
        key = ("bound", path)
        conds = self._active_cache.get(key)
        if conds is None:
            conds = [self.b.bind(c) for c in path]
            self._active_cache[key] = conds
        for c in conds:
            b = num_bool(c, vals)
            if b is False:
                return False
            if b is None:
                res = None
        return res

    # ---------------------------------------------------------------- addresses
    def domain(self, s) -> Optional[int]:
        """Number of values (0..N-1) a uniform symbol takes, when known."""
        info = self.syms.info.get(s)
        if info is None:
            return None
        if info.kind == S.ITER and info.trip is not None:
            n = S.Bindings.bind(self.b, info.trip)
            if isinstance(n, sp.Basic) and n.is_Integer and int(n) > 0:
                return int(n)
            most = self._most_trips(n)
            if most:
                return most
        if info.kind == S.BLOCK:
            for g, gi in self.syms.info.items():
                if gi.kind == S.GRIDDIM and gi.component == info.component and g in self.b.values:
                    return int(self.b.values[g])
            grid = getattr(self.b, "grid", None)
            if grid:  # the launch's grid, in a kernel that does not read gridDim
                return int(grid["xyz".index(info.component)])
        return None

    def _most_trips(self, n) -> Optional[int]:
        """The most iterations any thread of the block makes of a loop whose trip count depends
        on the thread (``for (k = threadIdx.z; k < 8; k += blockDim.z)``: one for every thread
        of a 4x8x8 block), which bounds its counter; None unless that count depends on thread
        indices alone and the block is small enough to enumerate their values."""
        if not isinstance(n, sp.Expr) or not n.free_symbols or n.free_symbols - self._thread_syms:
            return None
        t = self.syms.thread
        comps = [(t[c], d) for c, d in zip("xyz", self.model.block) if t[c] in n.free_symbols]
        if math.prod(d for _, d in comps) > 4096:
            return None
        most = 0
        for vals in itertools.product(*(range(d) for _, d in comps)):
            v = num(n, {s: x for (s, _), x in zip(comps, vals)})
            if v is None or not _integral(v):
                return None
            most = max(most, int(v))
        return most or None

    def evaluate(self, expr: sp.Expr, path: tuple, warps: Optional[list] = None) -> list[WarpAddresses]:
        """Addresses (bytes) of ``expr`` for the representative warps; where no lane of those
        executes the access (a halo copy by the block's last column, ``lidCol == lszCol - 1``),
        for the warps that do."""
        out = self._evaluate(expr, path, warps)
        if warps is None and out and all(w.status == "inactive" for w in out):
            tried = {w.warp for w in out}
            active = [w for w in range(min(self.model.nwarps, 64))
                      if w not in tried and self.active_lanes(w, tuple(path))]
            if active:
                return self._evaluate(expr, path, active[:3])
        return out

    def _evaluate(self, expr: sp.Expr, path: tuple, warps: Optional[list] = None) -> list[WarpAddresses]:
        warps = warps if warps is not None else self.model.representative_warps()
        notes: list[str] = []
        e = self.b.bind(sp.expand(expr))
        if not isinstance(e, sp.Expr) or e.has(sp.Float) or e.has(sp.zoo) or e.has(sp.nan):
            return [WarpAddresses(w, "unknown", why="the address is not an integer expression")
                    for w in warps]
        # Lane-varying values read from memory: data-dependent. A value loaded from an address
        # that is the same for every lane of a warp (`ptr[fbr]` with `fbr = tid >> 5`) is one
        # value for the whole warp: it offsets the warp, it does not scatter it.
        for _ in range(4):  # innermost loads first: `b[a[tid >> 5] + k]` is uniform too
            lane_data = [a for a in e.atoms(S.MemLoad) if a.free_symbols & self._thread_syms]
            uniform = {a: S.MemLoad(sp.Symbol(f"{a.args[0]}@warp")) for a in lane_data
                       if self._warp_uniform_load(a, warps)}
            if not uniform:
                break
            e = e.xreplace(uniform)
        lane_data = direct_first([a for a in e.atoms(S.MemLoad) if a.free_symbols & self._thread_syms])
        if lane_data:
            return [WarpAddresses(w, "data-dependent", why=f"the index depends on `{user_text(lane_data[0])}`, "
                                  "a value read at run time") for w in warps]
        lane_opaque = direct_first([a for a in e.atoms(S.Opaque) if a.free_symbols & self._thread_syms])
        if lane_opaque:
            return [WarpAddresses(w, "unknown", why=f"the index depends on `{user_text(lane_opaque[0].args[0])}`, "
                                  "which the analysis does not model") for w in warps]
        n0 = len(notes)
        e, defaulted, step = self._apply_defaults(e, notes)
        dnotes = tuple(notes[n0:]) if step is not None else ()
        U, T = _split(e, self._thread_syms)
        out = []
        t_free = T.free_symbols - self._thread_syms
        t_fast = _affine_coeffs(T, self.syms) if not t_free else None
        # guards on a variable a loop doubles or halves (``if (tid < stride)``): which lanes
        # execute the access depends on the iteration, so each sampled value gets its own lanes
        guards = self._sequence_guards(path)
        edges = self._uniform_guards(path)
        dist = None
        if not t_free and not guards:
            dist = self._residues(U, notes)
        for w in warps:
            lanes = self.active_lanes(w, tuple(path))
            if not lanes:
                out.append(WarpAddresses(w, "inactive", why="no lane of this warp executes it"))
                continue
            if guards:
                out.append(self._sampled(e, w, lanes, notes, defaulted, guards, edges))
                continue
            if not t_free and dist is not None:
                offs = []
                ok = True
                for ln in lanes:
                    if t_fast is not None:
                        v = t_fast[0] * ln.x + t_fast[1] * ln.y + t_fast[2] * ln.z + t_fast[3]
                    else:
                        v = num(T, thread_values(self.syms, ln))
                    if v is None or not _integral(v):
                        ok = False
                        break
                    offs.append(int(v))
                if ok:
                    sc = [(p, [r + o for o in offs]) for r, p in sorted(dist.items())]
                    out.append(WarpAddresses(w, "ok", lanes, sc, list(notes), False, defaulted,
                                             default_step=step, default_notes=dnotes))
                    continue
            wa = self._sampled(e, w, lanes, notes, defaulted, edges=edges)
            if wa.status == "ok" and step is not None:
                wa.default_step, wa.default_notes = step, dnotes
            out.append(wa)
        return out

    def _warp_uniform_load(self, load, warps: list) -> bool:
        """Whether the address of a value read from memory is the same for every lane of each
        warp, for every stand-in value of the unknown sizes in it (a load of a lane-dependent
        value, or one whose address cannot be evaluated, is not)."""
        if not isinstance(load.args[0], sp.Symbol) or str(load.args[0]).startswith(
                ("atomic", "__shfl", "__match")):
            return False  # an atomic's old value or another lane's register: per lane
        args = [self.b.bind(a) for a in load.args[1:]]
        if not args or not all(isinstance(x, sp.Basic) for x in args):
            return False
        # values the whole warp shares (loaded at a uniform address) stand in as unknowns
        shared = {m: sp.Symbol(f"_w{i}", integer=True) for i, m in
                  enumerate(set().union(*(x.atoms(S.MemLoad) for x in args)))
                  if not (m.free_symbols & self._thread_syms)}
        args = [x.xreplace(shared) for x in args]
        if any(x.atoms(S.MemLoad) or x.atoms(S.Opaque) for x in args):
            return False
        others = set().union(*(x.free_symbols for x in args if isinstance(x, sp.Basic))) - self._thread_syms
        tried = 0
        for fill in (0, 1, 3, 1024):
            vals = {o: fill for o in others}
            for w in warps:
                lane_vals = [tuple(num(x, {**vals, **thread_values(self.syms, ln)}) for x in args)
                             for ln in self._lanes.get(w) or self.model.lanes(w)]
                if any(y is None for v in lane_vals for y in v):
                    break  # this stand-in value is meaningless here (a division by 0)
                if len(set(lane_vals)) > 1:
                    return False
                tried += 1
        return tried > 0

    def sequence(self, s) -> Optional[list]:
        """The values, in order, of a variable that a loop doubles or halves (``stride *= 2``
        up to ``blockDim.x``), when its start and bound are known numbers; None otherwise."""
        info = self.syms.info.get(s)
        if info is None:
            return None
        tied = info.companion or info.exit_of
        if tied is not None:
            # multiplied (divided) once per iteration of the loop its control variable runs
            ctrl, start, factor, shrink = tied
            cs = self.sequence(ctrl)
            v = self._number(start)
            if cs is None or v is None or v < 0:
                return None
            out = []
            for _ in range(len(cs) + (info.exit_of is not None)):
                out.append(v)
                v = v // factor if shrink else v * factor
            return out[-1:] if info.exit_of is not None else out
        geo = info.geometric
        if geo is None:
            return None
        start, factor, shrink, op, bound = geo
        v, b = self._number(start), self._number(bound)
        if v is not None and b is None and self.b.defaults:
            # a bound that is a parameter of no known value (`offset < length`): its stated
            # default, said where the values are used, rather than values the loop never gives
            bb = self.b.bind(bound)
            used = sorted(bb.free_symbols & set(self.b.defaults), key=lambda x: x.name) \
                if isinstance(bb, sp.Basic) else []
            d = sp.expand(bb.xreplace(self.b.defaults)) if used else None
            if isinstance(d, sp.Basic) and d.is_Integer:
                b = int(d)
                self._active_cache[("seq-defaults", s)] = [self.b.describe(x) for x in used]
        if v is None or b is None:
            return None
        out = []
        while len(out) <= 64 and {"<": v < b, "<=": v <= b, ">": v > b, ">=": v >= b}[op]:
            out.append(v)
            nxt = v // factor if shrink else v * factor
            if nxt == v:
                break  # 0 halved, or 0 doubled: the loop would not end
            v = nxt
        return out if out and len(out) <= 64 else None

    def _number(self, e) -> Optional[int]:
        """``e`` as an integer once the launch values are bound and the values that loop-
        multiplied variables have after their loops are put in; None when it is not one."""
        v = self.b.bind(e)
        if not isinstance(v, sp.Basic):
            return None
        if not v.is_Integer:
            after = {}
            for a in v.free_symbols:
                info = self.syms.info.get(a)
                if info is None or info.exit_of is None:
                    return None
                q = self.sequence(a)
                if not q:
                    return None
                after[a] = sp.Integer(q[0])
            v = v.xreplace(after)
            if not v.is_Integer:
                return None
        return int(v)

    def _sequence_guards(self, path) -> list:
        """The conditions of ``path`` that name a loop-doubled or -halved variable with known
        values and otherwise only thread indices and known values: they decide, per sampled
        value, which lanes execute."""
        def wanted(c, free) -> bool:
            return any(self.sequence(a) is not None for a in free) and \
                all(self.sequence(a) is not None or self.domain(a) is not None
                    or a in self.b.defaults for a in free)

        return self._modelled_guards("seq-guards", path, wanted)

    def _modelled_guards(self, kind: str, path, wanted) -> list:
        """The bound conditions of ``path`` that name a value besides thread indices, none read
        from memory or unmodelled, and that ``wanted(c, those values)`` accepts (memoised)."""
        key = (kind, tuple(path))
        hit = self._active_cache.get(key)
        if hit is not None:
            return hit
        out = []
        for c in path:
            c = self.b.bind(c)
            if not isinstance(c, sp.Basic) or c is sp.true or c is sp.false:
                continue
            free = c.free_symbols - self._thread_syms
            if free and not c.atoms(S.MemLoad) and not c.atoms(S.Opaque) and wanted(c, free):
                out.append(c)
        self._active_cache[key] = out
        return out

    def _uniform_guards(self, path) -> list:
        """The conditions of ``path`` that name a value the same for every lane besides thread
        indices (``blockIdx.x * 32 + threadIdx.x < Nx``), none read from memory or unmodelled:
        :func:`active_lanes` cannot decide them from the thread index alone, but each sampled
        value of the block index (and the stated defaults) can: a sampled block past the
        guard runs no lane of the access, and must not count as a request."""
        return self._modelled_guards("uniform-guards", path, lambda c, free: True)

    def _sampled(self, e: sp.Expr, warp: int, lanes: list, notes: list, defaulted: bool,
                 guards: tuple = (), edges: tuple = ()) -> WarpAddresses:
        """``edges``: conditions of the path on uniform values (:meth:`_uniform_guards`); a
        sampled value for which they stop every lane is drawn again (a few times), and lanes
        they stop are not counted."""
        if edges:
            got = self._sampled_once(e, warp, lanes, notes, defaulted, guards, edges)
            if got.status != "inactive":
                return got
            # no sampled value passes them (``blockIdx.x == 0``): as if they were not there
        return self._sampled_once(e, warp, lanes, notes, defaulted, guards)

    def _lanes_through(self, c, warp: int, live: list, tvs: list, vals: dict, vkey: tuple,
                       lkey: tuple) -> list:
        """The lanes of ``live`` that condition ``c`` lets through at the sampled ``vals``. The
        samples of one warp repeat from access to access (one seed per warp), and so do the
        guards of a path: memoised per evaluator (one kernel and launch)."""
        key = ("through", c, warp, lkey, tuple(live), vkey)
        hit = self._active_cache.get(key)
        if hit is None:
            hit = [i for i, b in zip(live, num_bool_lanes(c, [tvs[i] for i in live], vals)) if b is not False]
            self._active_cache[key] = hit
        return hit

    def _sampled_once(self, e: sp.Expr, warp: int, lanes: list, notes: list, defaulted: bool,
                      guards: tuple = (), edges: tuple = ()) -> WarpAddresses:
        notes = list(notes)
        mems = [a for a in e.atoms(S.MemLoad)]
        if mems:
            e = e.xreplace({m: sp.Integer(0) for m in mems})
            notes.append("a value read from memory that offsets the whole warp is assumed to keep "
                         "the access aligned")
        free = e.free_symbols.union(*(c.free_symbols for c in guards)) if guards else e.free_symbols
        atoms = sorted(free - self._thread_syms, key=lambda s: s.name)
        others = [a for a in e.atoms(S.Opaque)]
        if others:
            return WarpAddresses(warp, "unknown", why="the index depends on values the analysis does not model")
        rng = random.Random(1234 + warp)
        seqs = {a: self.sequence(a) for a in atoms}
        # a loop-doubled variable takes few values (log2 of its bound): each of them once
        # when there are at most 64, not SAMPLES picks that would weigh some twice
        K = max([len(q) for q in seqs.values() if q is not None], default=SAMPLES)
        guard_only = {a for a in atoms if seqs[a] is None and self.domain(a) is None
                      and a in self.b.defaults and a not in e.free_symbols}
        tvs = [thread_values(self.syms, ln) for ln in lanes]
        scenarios = []
        per_lanes = []
        edge_defaults = {}
        if edges:  # the stated defaults of the sizes the edge guards compare with
            for c in edges:
                for a in c.free_symbols:
                    if a in self.b.defaults and self.b.defaults[a].is_Integer:
                        edge_defaults[a] = int(self.b.defaults[a])
        edge_used = set()
        domains = {a: self.domain(a) for a in atoms}
        lkey = tuple((ln.x, ln.y, ln.z) for ln in lanes)
        for k in range(K):
            for _draw in range(_EDGE_DRAWS if edges else 1):
                vals = {}
                for a in atoms:
                    n = domains[a]
                    seq = seqs[a]
                    if seq is not None:  # the values the loop gives it, evenly
                        vals[a] = seq[(k * len(seq)) // K + rng.randrange(max(1, len(seq) // K))]
                    elif a in guard_only:  # a size that only a guard compares with: its default
                        vals[a] = int(self.b.defaults[a])
                    elif n is not None:
                        vals[a] = (k * n) // K + rng.randrange(max(1, n // K))
                    else:
                        vals[a] = rng.choice((1, 2, 3, 4, 5, 7, 8, 16, 31, 32, 33, 64, 100, 127, 256, 1000))
                live = list(range(len(lanes)))
                vkey = tuple(sorted(vals.items(), key=lambda kv: kv[0].name))
                for c in guards:  # the lanes this value of the loop variable lets through
                    live = self._lanes_through(c, warp, live, tvs, vals, ("g",) + vkey, lkey)
                for c in edges:  # the lanes this block (at these sizes) lets through
                    before = len(live)
                    live = self._lanes_through(c, warp, live, tvs, {**edge_defaults, **vals}, ("e",) + vkey, lkey)
                    if len(live) < before:
                        edge_used |= c.free_symbols & set(edge_defaults)
                if live:
                    break
            if not live:
                continue  # no lane of the warp executes the access for this value
            addrs = []
            for i in live:
                v = num(e, {**vals, **tvs[i]})
                if v is None or not _integral(v):
                    return WarpAddresses(warp, "unknown", why="the address could not be evaluated")
                addrs.append(int(v))
            base = addrs[0] - (addrs[0] % self.modulus)
            scenarios.append([a - base for a in addrs])
            per_lanes.append([lanes[i] for i in live])
        if not scenarios:
            return WarpAddresses(warp, "inactive", why="no lane of this warp executes it")
        if atoms:
            named = [a for a in atoms if a not in guard_only]
            if named:
                notes.append("averaged over " + str(K) + " sampled values of " +
                             ", ".join(f"`{user_text(a.name)}`" + _sequence_text(seqs[a]) for a in named))
            for a in atoms:
                for n in self._active_cache.get(("seq-defaults", a), ()):
                    if n not in notes:
                        notes.append(n)
                        defaulted = True
            for a in sorted(guard_only | (edge_used - set(vals)), key=lambda x: x.name):
                n = self.b.describe(a)
                if n not in notes:
                    notes.append(n)
                    defaulted = True
        scen = [(Fraction(1, len(scenarios)), a) for a in scenarios]
        if all(len(x) == len(lanes) for x in per_lanes):
            return WarpAddresses(warp, "ok", lanes, scen, notes, bool(atoms), defaulted)
        union = sorted({ln.lane: ln for x in per_lanes for ln in x}.values(), key=lambda ln: ln.lane)
        return WarpAddresses(warp, "ok", union, scen, notes, bool(atoms), defaulted, scenario_lanes=per_lanes)

    def _apply_defaults(self, e: sp.Expr, notes: list) -> tuple[sp.Expr, bool, Optional[int]]:
        """Give unbound parameters their stated default where a number is needed: in the
        thread-dependent part, or where they shift the warp by other than a multiple of 256.

        Returns (expression, defaulted, step): ``step`` is set when every defaulted term is
        the same for all lanes (an integer coefficient times uniform values): another value
        of the parameters then moves the whole warp by a multiple of ``gcd(coefficients,
        256)`` bytes from where the default puts it, and nothing else."""
        if not self.b.defaults:
            return e, False, None
        need = set()
        step = self.modulus
        uniform_only = True
        for t in sp.Add.make_args(e):
            fs = t.free_symbols
            ds = {s for s in fs if s in self.b.defaults}
            if not ds:
                continue
            c, _ = t.as_coeff_Mul()
            if fs & self._thread_syms:
                need |= ds
                uniform_only = False
                continue
            if not (c.is_Integer and int(c) % self.modulus == 0):
                need |= ds
                if c.is_Integer:
                    step = math.gcd(step, int(c))
                else:
                    uniform_only = False
        if not need:
            return e, False, None
        for s in sorted(need, key=lambda s: s.name):
            notes.append(self.b.describe(s))
        return (sp.expand(e.xreplace({s: self.b.defaults[s] for s in need})), True,
                step if uniform_only and step < self.modulus else None)

    def _residues(self, U: sp.Expr, notes: list) -> Optional[dict]:
        """Distribution of ``U mod modulus`` (residue -> probability), or None when a
        coefficient is not an integer."""
        M = self.modulus
        # Integer weights over a common denominator (exact, and much faster than Fractions in
        # the convolutions); turned into probabilities at the end.
        dist = {0: 1}
        den = 1
        aligned_note = False
        for t in sp.Add.make_args(U):
            c, m = t.as_coeff_Mul()
            if not c.is_Integer:
                return None
            c = int(c)
            if m == 1:
                dist = _shift(dist, c % M, M)
                continue
            if c % M == 0:
                continue
            if m.has(S.MemLoad):
                aligned_note = True
                continue
            n = self.domain(m) if m.is_Symbol else None
            g = math.gcd(c, M)
            period = M // g
            if n is not None and n < 4 * period:
                counts: dict = {}
                for v in range(n):
                    r = (c * v) % M
                    counts[r] = counts.get(r, 0) + 1
                dist = _convolve(dist, counts, M)
                den *= n
            else:  # uniform over the multiples of g
                dist = _spread(dist, g, M)
                den *= period
        if aligned_note:
            notes.append("a value read from memory that offsets the whole warp is assumed to keep "
                         "the access aligned")
        return {r: Fraction(k, den) for r, k in dist.items()}


def _conjuncts(c) -> list:
    c = sp.logic.boolalg.to_nnf(c) if isinstance(c, sp.logic.boolalg.Boolean) else c
    return list(c.args) if isinstance(c, sp.And) else [c]


_WINDOW_PARTS: dict = {}  # the conditions' analysis (sympy), the same for every warp


def _window_parts(conds: list, thread_syms: set):
    """(relation, thread part, k) per condition of :func:`_window`, or None where it does not
    apply (``live`` unchanged)."""
    rels = []
    for c in conds:
        for a in _conjuncts(c):
            if a is sp.true or not (getattr(a, "free_symbols", set()) & thread_syms):
                continue  # the same for every lane: it gates the whole warp or none of it
            if not isinstance(a, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan,
                                  sp.GreaterThan, sp.Equality)):
                return None
            rels.append(a)
    if not rels:
        return None
    common = None
    parts = []
    for r in rels:
        d = sp.expand(r.lhs - r.rhs)
        t_part = sp.Add(*[x for x in sp.Add.make_args(d) if x.free_symbols & thread_syms or x.is_Number])
        w_part = d - t_part
        if w_part.free_symbols & thread_syms or not w_part.free_symbols or \
                any(not (s.is_integer) for s in t_part.free_symbols | w_part.free_symbols):
            return None
        if common is None:
            common = w_part
        k = sp.cancel(w_part / common)
        if not k.is_Rational or k == 0:
            return None
        parts.append((r, t_part, k))
    if not (common.is_polynomial() and all(c.is_Integer for c in sp.Poly(common).coeffs())):
        return None
    return parts


def _window(conds: list, live: list, tvs: list, thread_syms: set) -> list:
    """The lanes of ``live`` that can be active together under ``conds``, conditions that
    compare the thread index with a value the same for every lane that is not known (``i < n``
    and ``!(i + 3 < n)``: the scalar tail after a loop of 4-element vectors). Where every
    lane-dependent part of them is ``T(thread) + k*W REL 0`` with one uniform integer ``W``
    (``4*blockDim.x*blockIdx.x - n``), each lane is active for an interval of values of W, and
    the lanes active together are those whose intervals share a value: of all such groups, the
    largest (the first value of W that reaches it). A bound check alone (``i < n``) lets every
    lane through for a large n, so nothing changes; the tail's ``n - 3 <= i < n`` lets through
    one lane of a warp whose i are 4 apart, wherever n falls. Anything else (a product of W and
    the thread, two unknowns that do not go together, a Mod): ``live`` unchanged."""
    key = (tuple(conds), frozenset(thread_syms))
    parts = _WINDOW_PARTS.get(key, False)
    if parts is False:
        if len(_WINDOW_PARTS) > 4096:  # a long-lived process (the editor server)
            _WINDOW_PARTS.clear()
        parts = _WINDOW_PARTS[key] = _window_parts(conds, thread_syms)
    if parts is None:
        return live
    lo_hi = []
    for i in live:
        lo, hi = -math.inf, math.inf
        for r, t_part, k in parts:
            t = num(t_part, tvs[i])
            if isinstance(t, bool) or not isinstance(t, (int, Fraction)):
                return live
            # k*W + t REL 0, W an integer: the bound on W
            x = Fraction(-t) / Fraction(int(k.p), int(k.q))
            op = type(r)
            if k < 0:
                op = {sp.StrictLessThan: sp.StrictGreaterThan, sp.LessThan: sp.GreaterThan,
                      sp.StrictGreaterThan: sp.StrictLessThan, sp.GreaterThan: sp.LessThan}.get(op, op)
            if op is sp.StrictLessThan:
                hi = min(hi, math.ceil(x) - 1)
            elif op is sp.LessThan:
                hi = min(hi, math.floor(x))
            elif op is sp.StrictGreaterThan:
                lo = max(lo, math.floor(x) + 1)
            elif op is sp.GreaterThan:
                lo = max(lo, math.ceil(x))
            else:  # equality: one value, when x is an integer
                if x.denominator != 1:
                    lo, hi = 1, 0
                else:
                    lo, hi = max(lo, int(x)), min(hi, int(x))
        lo_hi.append((lo, hi))
    best, at = 0, None
    for w in sorted({lo for lo, hi in lo_hi if lo <= hi}):
        n = sum(1 for lo, hi in lo_hi if lo <= w <= hi)
        if n > best:
            best, at = n, w
    if any(lo == -math.inf and lo <= hi for lo, hi in lo_hi):
        # intervals open below: below every finite bound, exactly those lanes are active
        w = min([b for iv in lo_hi for b in iv if b not in (-math.inf, math.inf)] or [0]) - 1
        n = sum(1 for lo, hi in lo_hi if lo <= w <= hi)
        if n > best:
            best, at = n, w
    if not any(lo <= hi for lo, hi in lo_hi):
        return []  # contradictory for every lane (``i + 3 >= n`` and ``i + 3 < n``): never runs
    if at is None or best >= len(live):
        return live
    return [i for i, (lo, hi) in zip(live, lo_hi) if lo <= at <= hi]


def _sequence_text(seq: Optional[list]) -> str:
    """`` (its values in the loop: 1, 2, ..., 128)`` for a loop-doubled variable; ""."""
    if not seq:
        return ""
    shown = ", ".join(str(v) for v in seq) if len(seq) <= 4 else \
        f"{seq[0]}, {seq[1]}, ..., {seq[-1]}"
    return f" (its values in the loop: {shown})"


def _integral(v) -> bool:
    if isinstance(v, int):
        return True
    if isinstance(v, Fraction):
        return v.denominator == 1
    if isinstance(v, float):
        return v.is_integer()
    return False


def _shift(dist: dict, k: int, M: int) -> dict:
    return {(r + k) % M: p for r, p in dist.items()}


def _spread(a: dict, g: int, M: int) -> dict:
    """``_convolve(a, {g * i % M: 1 for i in range(M // g)}, M)`` for ``g`` dividing ``M``:
    residue ``r`` gets the weight of every residue of ``a`` congruent to it mod ``g`` (each
    pairs with exactly one multiple of ``g``), without the M*M products. Dict order differs;
    callers sort."""
    sums: dict = {}
    for r, p in a.items():
        sums[r % g] = sums.get(r % g, 0) + p
    return {r: sums[r % g] for r in range(M) if r % g in sums}


def _convolve(a: dict, b: dict, M: int) -> dict:
    out: dict = {}
    for r1, p1 in a.items():
        for r2, p2 in b.items():
            r = (r1 + r2) % M
            out[r] = out.get(r, 0) + p1 * p2
    return out


def _split(e: sp.Expr, thread_syms: set) -> tuple[sp.Expr, sp.Expr]:
    """(uniform part, thread-dependent part) of an expanded sum."""
    U, T = [], []
    for t in sp.Add.make_args(e):
        (T if t.free_symbols & thread_syms else U).append(t)
    return sp.Add(*U), sp.Add(*T)


def _affine_coeffs(T: sp.Expr, syms: "S.Symbols") -> Optional[tuple]:
    """(cx, cy, cz, c0) when ``T`` is an integer linear combination of the thread indices."""
    tx, ty, tz = syms.thread["x"], syms.thread["y"], syms.thread["z"]
    co = {tx: 0, ty: 0, tz: 0}
    c0 = 0
    for t in sp.Add.make_args(T):
        c, m = t.as_coeff_Mul()
        if not c.is_Integer:
            return None
        if m == 1:
            c0 += int(c)
        elif m in co:
            co[m] += int(c)
        else:
            return None
    return co[tx], co[ty], co[tz], c0
