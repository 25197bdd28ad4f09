"""Shared-memory races, found by running the kernel's index arithmetic for every thread of a block.

The kernel is executed on a small SIMT interpreter: every value is a vector with one entry per
thread (numpy), control flow is followed with per-thread activity masks (exactly like the
hardware: ``if (tid < s)`` runs the then-branch for threads 0..s-1), loops run their real
iterations (``for (s = blockDim.x/2; s > 0; s >>= 1)`` takes s = 128, 64, ..., 1), and device
functions are inlined. Nothing that comes from memory is modelled: a value loaded from global or
shared memory is *unknown*. Only shared-memory accesses are recorded, each with the threads that
execute it and the byte address each of them touches.

Block-wide barriers cut the run into *epochs* (the dynamic barrier intervals). Two accesses of
one epoch by different threads of the block, at least one a write, to the same shared bytes are a
race; the witness names both threads, the array and the element. An epoch that spans the end of
one loop iteration and the start of the next (no barrier at the end of the body) is the
interval around the loop's back edge: a race whose two accesses come from different iterations
of a loop that contains a barrier is reported separately (CL603: write at the top of iteration
i+1 against reads at the end of iteration i).

Exactness: for one block of the analysed launch shape every thread is enumerated, so a race
reported here happens for those thread ids whenever the code runs (the values involved do not
depend on memory). Where a condition depends on a value the interpreter does not know:

- block-uniform (a parameter without a known value, a value loaded from a uniform address):
  both outcomes are explored, each as a separate hypothesis; accesses made under contradicting
  hypotheses are never paired;
- per-thread (data-dependent): the threads *may* execute the branch; a race found only through
  such threads is reported as possible (``certain = False``).

Loops run at most ``MAX_LOOP_ITERATIONS`` iterations (``UNKNOWN_LOOP_ITERATIONS`` when their
condition is unknown); a run that exceeds ``STEP_BUDGET`` statement executions stops there
(``complete = False``): races found before that point are still real, later code is unchecked.

Why not the symbolic index expressions of ``analyzer/symbolic.py``? They model a loop counter
that does not advance by a constant (``s >>= 1``) as an opaque symbol, and record barrier
epochs in program order; race detection needs the concrete sequence of counter values and the
dynamic intervals, which this interpreter provides. ``symbolic.py`` remains the source of the
per-warp access costs (coalescing, banks).

Warp-confined races: a race whose every witness pairs two lanes of one warp, in code that only
one warp of a larger block executes (``if (tid < 32) { s[tid] += s[tid + 16]; ... }``), is the
warp-synchronous pattern that CL302 (rules/banks.py) reports; it is kept here with
``warp_confined = True`` and the CL602 rule leaves it to CL302. Any other race between lanes of
one warp -- e.g. a 32-thread block that leaves out ``__syncthreads()`` -- is reported: since
Volta (independent thread scheduling) the lanes of a warp are not guaranteed to run in lockstep.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from . import constprop, ir
from .cfg import BLOCK_BARRIER_CALLS, WARP_BARRIER_CALLS, is_grid_sync

MAX_LOOP_ITERATIONS = 32
UNKNOWN_LOOP_ITERATIONS = 3
STEP_BUDGET = 40_000
MAX_INLINE_DEPTH = 6
MAX_CANDIDATE_GROUPS = 512
MAX_PAIRS = 200_000
#: Record pairs (one shared access executed by a set of threads, against another) examined
#: in one run; a kernel that unrolls many loops over shared memory can have thousands of
#: records per barrier interval, and the pairwise join is quadratic. Past this the run stops
#: looking for races and says it is incomplete.
PAIR_BUDGET = 60_000
MAX_GRID_THREADS = 1 << 16

_INT = np.int64
_U32 = 0xFFFFFFFF


class BudgetExceeded(Exception):
    pass


# ---------------------------------------------------------------------- values

class V:
    """One number per thread; ``k`` says which entries are known. ``t`` (optional) is a
    provenance token per thread: two threads whose tokens are equal and non-zero hold the same
    value even when it is not known (both read ``bias[c]`` at the same address of global
    memory, or both got one warp reduction's result)."""

    __slots__ = ("v", "k", "t")

    def __init__(self, v: np.ndarray, k: np.ndarray, t: Optional[np.ndarray] = None):
        self.v = v
        self.k = k
        self.t = t

    @property
    def is_float(self) -> bool:
        return self.v.dtype.kind == "f"

    def all_known(self, mask: np.ndarray) -> bool:
        return bool(np.all(self.k[mask]))

    def __repr__(self) -> str:
        return f"V({self.v[:8]}..., known={int(self.k.sum())})"


@dataclass
class Ptr:
    """A pointer: ``off`` bytes into object ``var`` (None: an object the run does not know)."""

    var: Optional[ir.Variable]
    space: str  # shared | global | local | constant | unknown
    off: V
    elem: ir.CType
    volatile: bool = False


@dataclass
class MemLoc:
    ptr: Optional[Ptr]
    node: ir.Expr
    size: Optional[int]
    elem: ir.CType


@dataclass
class RegLoc:
    key: object  # a Variable, or (Variable, member)
    var: ir.Variable


class Mask:
    __slots__ = ("must", "may")

    def __init__(self, must: np.ndarray, may: np.ndarray):
        self.must = must
        self.may = may

    def any(self) -> bool:
        return bool(self.may.any())

    @property
    def certain(self) -> bool:
        return bool(np.array_equal(self.must, self.may))


# ---------------------------------------------------------------------- results

@dataclass
class Access:
    """One execution of a shared-memory access by a set of threads."""

    node: ir.Expr
    var: ir.Variable
    key: object  # what aliases: the variable, or "extern" for all extern __shared__ arrays
    write: bool
    atomic: bool
    threads: np.ndarray
    offs: np.ndarray
    size: int
    certain: np.ndarray
    wepoch: np.ndarray
    iters: tuple  # ((loop instance, iteration, ir.Loop), ...) outermost first
    tags: tuple  # ((decision id, outcome), ...)
    value: Optional[np.ndarray]  # the value written (known entries only), for writes
    volatile: bool = False
    tok: Optional[np.ndarray] = None  # provenance tokens of the value written (0: none)
    #: set inside ``if (threadIdx.x == <block-uniform value>)``: one execution of that branch
    #: is by at most one thread, so two accesses of the same execution never race
    solo: Optional[int] = None


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


@dataclass
class BranchStats:
    """How one ``if`` splits warps over a run (all executions summed)."""

    stmt: ir.If
    executions: int = 0
    warps_executing: int = 0
    warps_divergent: int = 0
    interleaved: bool = False  # some divergent warp's taken lanes are not one contiguous run
    unknown: int = 0  # executions whose condition was not known for every active thread
    example_warp: Optional[int] = None
    example_block: Optional[tuple] = None
    example_lanes: Optional[tuple] = None  # (first taken lane, first not-taken lane)
    minority_sum: float = 0.0  # over divergent warps: share of active lanes on the smaller side

    @property
    def fraction(self) -> float:
        return self.warps_divergent / self.warps_executing if self.warps_executing else 0.0

    @property
    def minority(self) -> float:
        """Mean share of a divergent warp's active lanes on the smaller side of the branch
        (1/32 for a leader test `lane == 0`, 1/2 for `tid % 2`)."""
        return self.minority_sum / self.warps_divergent if self.warps_divergent else 0.0


@dataclass
class BarrierEvent:
    node: object  # ir.Barrier or ir.Call
    arrived: int  # threads that certainly execute it
    alive: int  # threads of the block still running
    possible: int


# ---------------------------------------------------------------------- thread set

@dataclass
class ThreadSet:
    block: tuple
    grid: Optional[tuple]
    blocks: list  # (bx, by, bz) of each simulated block
    n: int = 0
    tx: np.ndarray = None
    ty: np.ndarray = None
    tz: np.ndarray = None
    bx: np.ndarray = None
    by: np.ndarray = None
    bz: np.ndarray = None
    lin: np.ndarray = None
    blk: np.ndarray = None
    warp: np.ndarray = None  # global warp ordinal over the simulated blocks

    def __post_init__(self):
        bxd, byd, bzd = self.block
        T = bxd * byd * bzd
        t = np.arange(T, dtype=_INT)
        nb = len(self.blocks)
        self.n = T * nb
        lin = np.tile(t, nb)
        self.lin = lin
        self.tx = lin % bxd
        self.ty = (lin // bxd) % byd
        self.tz = lin // (bxd * byd)
        self.blk = np.repeat(np.arange(nb, dtype=_INT), T)
        b = np.array(self.blocks, dtype=_INT).reshape(nb, 3)
        self.bx = np.repeat(b[:, 0], T)
        self.by = np.repeat(b[:, 1], T)
        self.bz = np.repeat(b[:, 2], T)
        wpb = -(-T // 32)
        self.warps_per_block = wpb
        self.warp = self.blk * wpb + lin // 32

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    def coords(self, t: int) -> tuple:
        bx, by, _ = self.block
        return (t % bx, (t // bx) % by, t // (bx * by))

    def describe(self, t: int) -> str:
        x, y, z = self.coords(t)
        if self.block[1] == 1 and self.block[2] == 1:
            return f"thread {t}"
        if self.block[2] == 1:
            return f"thread ({x},{y})"
        return f"thread ({x},{y},{z})"


def sample_blocks(grid: Optional[tuple], block: tuple, limit: int = MAX_GRID_THREADS) -> tuple[list, bool]:
    """Blocks to simulate for grid-wide counts: all of them when the grid is small enough,
    else the first, second, middle and last two along each dimension. Returns (blocks, all)."""
    if grid is None:
        return [(0, 0, 0)], False
    T = block[0] * block[1] * block[2]
    total = grid[0] * grid[1] * grid[2]
    if total * T <= limit:
        return [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])], True

    def picks(n):
        return sorted({0, min(1, n - 1), n // 2, max(n - 2, 0), n - 1})

    out = [(x, y, z) for z in picks(grid[2]) for y in picks(grid[1]) for x in picks(grid[0])]
    return out, False


# ---------------------------------------------------------------------- frames

class _Ctx:
    """Loop or switch: threads that left it with break/continue."""

    __slots__ = ("brk_must", "brk_may", "cont_must", "cont_may", "switch")

    def __init__(self, n: int, switch: bool = False):
        z = np.zeros(n, dtype=bool)
        self.brk_must, self.brk_may = z.copy(), z.copy()
        self.cont_must, self.cont_may = z.copy(), z.copy()
        self.switch = switch


class _Frame:
    def __init__(self, n: int, env: dict, fn: ir.Function):
        self.env = env
        self.fn = fn
        self.ret_must = np.zeros(n, dtype=bool)
        self.ret_may = np.zeros(n, dtype=bool)
        self.rets: list = []
        self.ctxs: list[_Ctx] = []


def _space_of(var: ir.Variable) -> str:
    st = var.storage
    if st in ("shared", "extern_shared"):
        return "shared"
    if st == "constant":
        return "constant"
    if st in ("device", "managed", "static", "host"):
        return "global"
    if st == "param":
        return "global"
    return "local"


def _is_unsigned32(t: ir.CType) -> bool:
    sp = t.spelling.replace("const ", "").replace("volatile ", "").strip()
    return t.kind == "scalar" and t.size == 4 and not t.is_float and (
        sp.startswith("unsigned") or sp in ("uint", "uint32_t", "unsigned"))


def _elem_size(t: Optional[ir.CType]) -> Optional[int]:
    if t is None:
        return None
    if t.size:
        return t.size
    if t.kind == "array" and t.element is not None and t.extent:
        s = _elem_size(t.element)
        return s * t.extent if s else None
    return None


_CG_QUERIES = {"thread_rank", "size", "num_threads", "meta_group_rank", "meta_group_size",
               "block_rank", "num_blocks"}
#: Builtins that return a compile-time constant (what INFINITY and HUGE_VAL expand to).
_CONSTANT_CALLS = {"__builtin_inff": float("inf"), "__builtin_inf": float("inf"),
                   "__builtin_infl": float("inf"), "__builtin_huge_valf": float("inf"),
                   "__builtin_huge_val": float("inf"), "__builtin_huge_vall": float("inf")}
_MATH2 = {"min", "max", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax", "std::min",
          "std::max", "fminf", "fmaxf", "fmin", "fmax", "__mul24", "__umul24", "__hadd", "__rhadd"}
_MATH1 = {"abs", "fabsf", "fabs", "floorf", "floor", "ceilf", "ceil", "truncf", "trunc", "rintf",
          "__float2int_rz", "__float2int_rd", "__float2int_ru", "__float2int_rn", "__popc", "__ffs",
          "__clz", "sqrtf", "sqrt", "log2f", "log2"}


# ---------------------------------------------------------------------- the interpreter

class Simt:
    """Run a kernel for a set of threads. Results: ``races``, ``branches``, ``barriers``."""

    def __init__(self, kernel: ir.Function, threads: ThreadSet, params: dict,
                 uniform: Optional[Callable[[ir.Expr], bool]] = None, record: bool = True,
                 on_branch: bool = False, dynamic_smem: Optional[int] = None,
                 barrier_loops: Optional[set] = None, budget: int = STEP_BUDGET):
        self.kernel = kernel
        self.ts = threads
        self.n = threads.n
        self.params = params
        self.uniform = uniform or (lambda e: False)
        self.record = record
        self.track_branches = on_branch
        self.budget = budget
        self.steps = 0
        self._object_ids: dict = {}
        self.complete = True
        self._pair_checks = 0
        self._solo: Optional[int] = None
        self._solo_count = 0
        self.incomplete_reason = ""
        self.epoch = 0
        self.wepoch = np.zeros(self.n, dtype=np.int32)
        self.buckets: dict = {}  # epoch -> key -> [Access]
        self.iter_stack: list = []
        self.tags: list = []
        self._decisions = 0
        self._instances = 0
        self.races: dict = {}  # (id a, id b, across back edge) -> Race
        self._done: set = set()
        self.branches: dict = {}  # id(If) -> BranchStats
        self.barriers: list[BarrierEvent] = []
        self.barrier_loops = barrier_loops if barrier_loops is not None else set()
        self.loops_with_barrier_run: set = set()
        self.order: dict = {}  # id(node) -> first execution order (program order proxy)
        self._seq = 0
        self.dynamic_smem = dynamic_smem
        self.out_of_bounds: dict = {}  # shared variable -> thread-accesses outside it
        self.all = np.ones(self.n, dtype=bool)
        self.none = np.zeros(self.n, dtype=bool)

    # ------------------------------------------------------------------ helpers
    def const(self, x) -> V:
        if isinstance(x, float):
            return V(np.full(self.n, x, dtype=np.float64), self.all.copy())
        x = int(x)
        if not -(1 << 63) <= x < (1 << 63):  # an unsigned 64-bit literal (CRC/hash constants)
            x = ((x + (1 << 63)) % (1 << 64)) - (1 << 63)  # the same bits as int64
        return V(np.full(self.n, x, dtype=_INT), self.all.copy())

    def unknown(self) -> V:
        return V(np.zeros(self.n, dtype=_INT), self.none.copy())

    def arr(self, a: np.ndarray) -> V:
        return V(a.astype(_INT, copy=True), self.all.copy())

    def _tick(self) -> None:
        self.steps += 1
        if self.steps > self.budget:
            raise BudgetExceeded()

    def eff(self, m: Mask, fr: _Frame) -> Mask:
        dead_must = fr.ret_must.copy()
        dead_may = fr.ret_may.copy()
        for c in fr.ctxs:
            dead_must |= c.brk_must | c.cont_must
            dead_may |= c.brk_may | c.cont_may
        return Mask(m.must & ~dead_may, m.may & ~dead_must)

    # ------------------------------------------------------------------ entry
    def run(self) -> "Simt":
        env: dict = {}
        for p in self.kernel.params:
            env[p] = self._param_value(p)
        fr = _Frame(self.n, env, self.kernel)
        m = Mask(self.all.copy(), self.all.copy())
        try:
            if self.kernel.body is not None:
                self.block(self.kernel.body, m, fr)
        except BudgetExceeded:
            self.complete = False
            self.incomplete_reason = f"stopped after {self.budget} statement executions"
        except RecursionError:
            self.complete = False
            self.incomplete_reason = "expressions nested too deeply"
        self._flush_all()
        return self

    def _param_value(self, p: ir.Variable):
        t = p.type
        if t.kind in ("pointer", "array"):
            el = t.element or ir.UNKNOWN_TYPE
            return Ptr(p, "global", self.const(0), el, el.is_volatile)
        v = self.params.get(p.name)
        if isinstance(v, bool):
            v = int(v)
        if isinstance(v, (int, float)):
            return self.const(v)
        return self.unknown()

    # ------------------------------------------------------------------ statements
    def block(self, b: ir.Block, m: Mask, fr: _Frame) -> None:
        for s in b.stmts:
            em = self.eff(m, fr)
            if not em.any():
                return
            self.stmt(s, em, fr)

    def stmt(self, s: ir.Stmt, m: Mask, fr: _Frame) -> None:
        self._tick()
        if isinstance(s, ir.Block):
            self.block(s, m, fr)
        elif isinstance(s, ir.DeclStmt):
            self._decl(s, m, fr)
        elif isinstance(s, ir.ExprStmt):
            self.ev(s.expr, m, fr)
        elif isinstance(s, ir.Barrier):
            for a in s.args:
                self.ev(a, m, fr)
            if s.scope == "block":
                self.barrier(s, m, fr)
            else:
                self.wepoch[m.may] += 1
        elif isinstance(s, ir.If):
            self._if(s, m, fr)
        elif isinstance(s, ir.Loop):
            self._loop(s, m, fr)
        elif isinstance(s, ir.Return):
            if s.value is not None:
                val = self.ev(s.value, m, fr)
                fr.rets.append((m, val))
            fr.ret_must |= m.must
            fr.ret_may |= m.may
        elif isinstance(s, ir.Break):
            if fr.ctxs:
                c = fr.ctxs[-1]
                c.brk_must |= m.must
                c.brk_may |= m.may
        elif isinstance(s, ir.Continue):
            for c in reversed(fr.ctxs):
                if not c.switch:
                    c.cont_must |= m.must
                    c.cont_may |= m.may
                    break
        elif isinstance(s, ir.Switch):
            self._switch(s, m, fr)
        elif isinstance(s, ir.OtherStmt):
            for p in s.parts:
                self.ev(p, m, fr)
            if "goto" in s.text:
                self.complete = False
                self.incomplete_reason = "the kernel uses goto"
        # Case labels outside a switch body walk: nothing to do

    def _decl(self, s: ir.DeclStmt, m: Mask, fr: _Frame) -> None:
        v = s.var
        if v.storage in ("shared", "extern_shared", "constant", "static", "device"):
            if s.init is not None:
                self.ev(s.init, m, fr)
            return
        if v.is_reference and s.init is not None:
            fr.env[v] = self.lvalue(s.init, m, fr)
            return
        if v.type.kind == "array":
            if s.init is not None:
                self.ev(s.init, m, fr)
            return
        val = self.ev(s.init, m, fr) if s.init is not None else self.unknown()
        if isinstance(val, V) and v.type.kind == "scalar":
            val = self._convert(val, v.type)
        self.store(fr, v, val, m)

    def barrier(self, node, m: Mask, fr: _Frame) -> None:
        if not m.any():
            return
        alive = ~(fr.ret_may) if fr is not None else self.all
        self.barriers.append(BarrierEvent(node, int(m.must.sum()), int(alive.sum()), int(m.may.sum())))
        for inst in self.iter_stack:
            self.loops_with_barrier_run.add(id(inst[2]))
        self._flush(self.epoch)
        self.epoch += 1

    # ------------------------------------------------------------------ if / loops / switch
    def _if(self, s: ir.If, m: Mask, fr: _Frame) -> None:
        c = self.cond(s.cond, m, fr)
        known = c.k
        ct = c.v != 0
        if bool(np.all(known[m.may])):
            if self.track_branches:
                self._branch_stats(s, ct, m)
            mt = Mask(m.must & ct, m.may & ct)
            me = Mask(m.must & ~ct, m.may & ~ct)
            if mt.any():
                self.block(s.then, mt, fr)
            if s.otherwise is not None and me.any():
                self.block(s.otherwise, me, fr)
            return
        if self.track_branches:
            st = self.branches.setdefault(id(s), BranchStats(s))
            st.executions += 1
            st.unknown += 1
        if self.uniform(s.cond) and bool(np.all(~known[m.may])):
            self._decide(s.then, s.otherwise, m, fr)
            return
        mt = Mask(m.must & known & ct, m.may & (~known | ct))
        me = Mask(m.must & known & ~ct, m.may & (~known | ~ct))
        if mt.any():
            solo = self._solo
            if self._selects_one_thread(s.cond):
                self._solo_count += 1
                self._solo = self._solo_count
            try:
                self.block(s.then, mt, fr)
            finally:
                self._solo = solo
        if s.otherwise is not None and me.any():
            self.block(s.otherwise, me, fr)

    def _selects_one_thread(self, c: ir.Expr) -> bool:
        """``threadIdx.x == v`` with ``v`` the same for the whole block (``buf_s[1]`` after a
        barrier) in a 1-D block: at most one thread takes the branch."""
        while isinstance(c, ir.Cast) and c.implicit:
            c = c.operand
        if not isinstance(c, ir.BinOp) or c.op != "==":
            return False
        for a, b in ((c.lhs, c.rhs), (c.rhs, c.lhs)):
            while isinstance(a, ir.Cast):
                a = a.operand
            if isinstance(a, ir.Builtin) and a.name == "threadIdx" and a.component in ("x", "y", "z"):
                others = [d for i, d in enumerate(self.ts.block) if "xyz"[i] != a.component]
                if all(d == 1 for d in others) and self.uniform(b):
                    return True
        return False

    def _masks_of(self, fr: _Frame):
        return [fr.ret_must.copy(), fr.ret_may.copy()] + \
            [(c.brk_must.copy(), c.brk_may.copy(), c.cont_must.copy(), c.cont_may.copy()) for c in fr.ctxs]

    def _restore_masks(self, fr: _Frame, saved) -> None:
        fr.ret_must, fr.ret_may = saved[0].copy(), saved[1].copy()
        for c, t in zip(fr.ctxs, saved[2:]):
            c.brk_must, c.brk_may, c.cont_must, c.cont_may = (x.copy() for x in t)

    def _decide(self, then: ir.Block, other: Optional[ir.Block], m: Mask, fr: _Frame) -> None:
        """A block-uniform condition with an unknown value: explore both outcomes."""
        self._decisions += 1
        d = self._decisions
        env0 = dict(fr.env)
        masks0 = self._masks_of(fr)
        self.tags.append((d, True))
        try:
            self.block(then, m, fr)
        finally:
            self.tags.pop()
        env_t = fr.env
        masks_t = self._masks_of(fr)
        fr.env = dict(env0)
        self._restore_masks(fr, masks0)
        if other is not None:
            self.tags.append((d, False))
            try:
                self.block(other, m, fr)
            finally:
                self.tags.pop()
        env_e = fr.env
        masks_e = self._masks_of(fr)
        fr.env = self._merge_env(env_t, env_e)
        # A thread certainly left only if it left on both sides.
        fr.ret_must = masks_t[0] & masks_e[0]
        fr.ret_may = masks_t[1] | masks_e[1]
        for c, a, b in zip(fr.ctxs, masks_t[2:], masks_e[2:]):
            c.brk_must, c.brk_may = a[0] & b[0], a[1] | b[1]
            c.cont_must, c.cont_may = a[2] & b[2], a[3] | b[3]

    def _merge_env(self, a: dict, b: dict) -> dict:
        out = {}
        for key in set(a) | set(b):
            va, vb = a.get(key), b.get(key)
            if va is vb:
                out[key] = va
            elif isinstance(va, V) and isinstance(vb, V):
                if va.v.dtype != vb.v.dtype:
                    out[key] = self.unknown()
                else:
                    out[key] = V(va.v.copy(), va.k & vb.k & (va.v == vb.v))
            elif isinstance(va, Ptr) and isinstance(vb, Ptr) and va.var is vb.var:
                off = V(va.off.v.copy(), va.off.k & vb.off.k & (va.off.v == vb.off.v))
                out[key] = Ptr(va.var, va.space, off, va.elem, va.volatile and vb.volatile)
            else:
                out[key] = None
        return out

    def _loop(self, s: ir.Loop, m: Mask, fr: _Frame) -> None:
        for i in s.init:
            em = self.eff(m, fr)
            if not em.any():
                return
            self.stmt(i, em, fr)
        ctx = _Ctx(self.n)
        fr.ctxs.append(ctx)
        self._instances += 1
        rec = [self._instances, 0, s]
        self.iter_stack.append(rec)
        lm = self.eff(m, fr)
        it = 0
        truncated = False
        try:
            while True:
                self._tick()
                ctx.cont_must[:] = False
                ctx.cont_may[:] = False
                cur = self.eff(lm, fr)
                if not cur.any():
                    break
                if (s.kind != "do" or it > 0) and s.cond is not None:
                    c = self.cond(s.cond, cur, fr)
                    known = c.k
                    ct = c.v != 0
                    if bool(np.all(known[cur.may])):
                        cur = Mask(cur.must & ct, cur.may & ct)
                    elif self.uniform(s.cond) and bool(np.all(~known[cur.may])):
                        if it >= UNKNOWN_LOOP_ITERATIONS:
                            truncated = True
                            break
                    else:
                        if it >= UNKNOWN_LOOP_ITERATIONS:
                            truncated = True
                            break
                        cur = Mask(cur.must & known & ct, cur.may & (~known | ct))
                if not cur.any():
                    break
                if it >= MAX_LOOP_ITERATIONS:
                    truncated = True
                    break
                lm = cur
                rec[1] = it
                self.block(s.body, cur, fr)
                # threads that finished the body or continued run the step
                after = Mask(lm.must & ~(fr.ret_may | ctx.brk_may), lm.may & ~(fr.ret_must | ctx.brk_must))
                for c2 in fr.ctxs[:-1]:
                    after = Mask(after.must & ~(c2.brk_may | c2.cont_may), after.may & ~(c2.brk_must | c2.cont_must))
                if s.step is not None and after.any():
                    self.ev(s.step, after, fr)
                lm = Mask(lm.must & ~(ctx.brk_may), lm.may & ~(ctx.brk_must))
                it += 1
        finally:
            fr.ctxs.pop()
            self.iter_stack.pop()
        if truncated:
            for v in constprop.assigned_vars(s.body) | self._step_writes(s):
                if v in fr.env:
                    fr.env[v] = self.unknown() if not isinstance(fr.env[v], Ptr) else None

    @staticmethod
    def _step_writes(s: ir.Loop) -> set:
        out: set = set()
        if s.step is not None:
            for x in s.step.walk():
                constprop._collect_writes(x, out)
        return out

    def _switch(self, s: ir.Switch, m: Mask, fr: _Frame) -> None:
        c = self.ev(s.cond, m, fr)
        if not isinstance(c, V):
            c = self.unknown()
        ctx = _Ctx(self.n, switch=True)
        fr.ctxs.append(ctx)
        try:
            vals = []
            for st in s.body.stmts:
                if isinstance(st, ir.Case) and st.value is not None:
                    cv = constprop.evaluate(st.value, {})
                    vals.append(cv if isinstance(cv, (int, float)) else None)
            matched_must = self.none.copy()
            matched_may = self.none.copy()
            for v in vals:
                if v is None:
                    matched_may |= True
                else:
                    eq = c.k & (c.v == v)
                    matched_must |= eq
                    matched_may |= eq | ~c.k
            act = Mask(self.none.copy(), self.none.copy())
            for st in s.body.stmts:
                if isinstance(st, ir.Case):
                    if st.value is None:
                        add_must, add_may = ~matched_may, ~matched_must
                    else:
                        cv = constprop.evaluate(st.value, {})
                        if isinstance(cv, (int, float)):
                            add_must = c.k & (c.v == cv)
                            add_may = ~c.k | (c.v == cv)
                        else:
                            add_must, add_may = self.none, self.all
                    act = Mask(act.must | (m.must & add_must), act.may | (m.may & add_may))
                    continue
                em = self.eff(act, fr)
                if em.any():
                    self.stmt(st, em, fr)
        finally:
            fr.ctxs.pop()

    # ------------------------------------------------------------------ branch statistics
    def _branch_stats(self, s: ir.If, ct: np.ndarray, m: Mask) -> None:
        st = self.branches.setdefault(id(s), BranchStats(s))
        st.executions += 1
        if not m.certain:
            st.unknown += 1
            return
        act = m.must
        if not act.any():
            return
        w = self.ts.warp[act]
        taken = ct[act]
        nw = int(self.ts.warp.max()) + 1
        n_act = np.bincount(w, minlength=nw)
        n_taken = np.bincount(w, weights=taken.astype(np.float64), minlength=nw)
        executing = n_act > 0
        divergent = executing & (n_taken > 0) & (n_taken < n_act)
        st.warps_executing += int(executing.sum())
        nd = int(divergent.sum())
        st.warps_divergent += nd
        if nd:
            frac = n_taken[divergent] / n_act[divergent]
            st.minority_sum += float(np.minimum(frac, 1.0 - frac).sum())
        if nd and not st.interleaved:
            for wid in np.flatnonzero(divergent)[:64]:
                sel = act & (self.ts.warp == wid)
                pattern = ct[sel]
                changes = int(np.count_nonzero(pattern[1:] != pattern[:-1]))
                first_lane = None
                if changes >= 2 or st.example_warp is None:
                    idx = np.flatnonzero(sel)
                    lanes = self.ts.lin[idx] % 32
                    t_l = lanes[pattern][0] if pattern.any() else None
                    f_l = lanes[~pattern][0] if (~pattern).any() else None
                    blk = int(self.ts.blk[idx[0]])
                    st.example_warp = int(self.ts.lin[idx[0]] // 32)
                    st.example_block = tuple(self.ts.blocks[blk])
                    st.example_lanes = (int(t_l) if t_l is not None else None,
                                        int(f_l) if f_l is not None else None)
                    first_lane = t_l
                if changes >= 2:
                    st.interleaved = True
                    break
                del first_lane

    # ------------------------------------------------------------------ expressions
    def cond(self, e: ir.Expr, m: Mask, fr: _Frame) -> V:
        v = self.ev(e, m, fr)
        if isinstance(v, Ptr):
            return V((v.off.v != 0).astype(_INT) | 1, v.off.k.copy())  # non-null pointer
        if not isinstance(v, V):
            return self.unknown()
        return V((v.v != 0).astype(_INT), v.k.copy())

    def ev(self, e: Optional[ir.Expr], m: Mask, fr: _Frame):
        if e is None:
            return None
        if isinstance(e, ir.Const):
            if isinstance(e.value, bool):
                return self.const(int(e.value))
            if isinstance(e.value, (int, float)):
                return self.const(e.value)
            return None
        if isinstance(e, ir.SizeOf):
            return self.const(e.value) if e.value is not None else self.unknown()
        if isinstance(e, ir.Builtin):
            return self._builtin(e)
        if isinstance(e, ir.TemplateParam):
            return self.unknown()
        if isinstance(e, ir.VarRef):
            return self._varref(e, m, fr)
        if isinstance(e, (ir.Index, ir.Member)):
            return self._load(e, m, fr)
        if isinstance(e, ir.UnaryOp):
            return self._unary(e, m, fr)
        if isinstance(e, ir.BinOp):
            return self._binop(e, m, fr)
        if isinstance(e, ir.Assign):
            return self._assign(e, m, fr)
        if isinstance(e, ir.Cast):
            return self._cast(e, m, fr)
        if isinstance(e, ir.Ternary):
            return self._ternary(e, m, fr)
        if isinstance(e, ir.Call):
            return self._call(e, m, fr)
        for c in e.children():
            if c is not None:
                self.ev(c, m, fr)
        return self.unknown()

    def _builtin(self, e: ir.Builtin) -> V:
        ts = self.ts
        if e.name == "warpSize":
            return self.const(32)
        comp = "xyz".index(e.component) if e.component in ("x", "y", "z") else 0
        if e.name == "threadIdx":
            return self.arr((ts.tx, ts.ty, ts.tz)[comp])
        if e.name == "blockIdx":
            return self.arr((ts.bx, ts.by, ts.bz)[comp])
        if e.name == "blockDim":
            return self.const(ts.block[comp])
        if e.name == "gridDim":
            return self.const(ts.grid[comp]) if ts.grid else self.unknown()
        return self.unknown()

    def _varref(self, e: ir.VarRef, m: Mask, fr: _Frame):
        v = e.var
        if v.storage == "builtin":
            return None
        if v.type.kind == "array":
            return Ptr(v, _space_of(v), self.const(0), v.type.element or ir.UNKNOWN_TYPE,
                       v.type.is_volatile or bool(v.type.element and v.type.element.is_volatile))
        if v.storage in ("shared", "extern_shared"):
            loc = MemLoc(Ptr(v, "shared", self.const(0), v.type, v.type.is_volatile), e, v.type.size, v.type)
            self.access(loc, False, m)
            return self.unknown()
        if v.storage in ("constant", "device", "managed") or (v.file_scope and v.storage != "param"):
            return self.unknown()
        if v in fr.env:
            val = fr.env[v]
            if isinstance(val, (MemLoc, RegLoc)):  # a reference
                return self.read(val, m, fr)
            return val if val is not None else self.unknown()
        return self.unknown()

    def _load(self, e: ir.Expr, m: Mask, fr: _Frame):
        loc = self.lvalue(e, m, fr)
        return self.read(loc, m, fr)

    def read(self, loc, m: Mask, fr: _Frame):
        if isinstance(loc, RegLoc):
            val = fr.env.get(loc.key)
            if isinstance(val, (MemLoc, RegLoc)):
                return self.read(val, m, fr)
            return val if val is not None else self.unknown()
        if isinstance(loc, MemLoc):
            if loc.elem is not None and loc.elem.kind == "array" and loc.ptr is not None:
                return Ptr(loc.ptr.var, loc.ptr.space, loc.ptr.off, loc.elem.element or ir.UNKNOWN_TYPE,
                           loc.ptr.volatile)
            self.access(loc, False, m)
            return self._loaded(loc)
        return self.unknown()

    def _loaded(self, loc: MemLoc) -> V:
        """A value read from global or constant memory: unknown, but two threads that read
        the same address of the same object get the same provenance token (no thread of the
        kernel is assumed to write it meanwhile). Shared memory changes under the block's
        feet and gets none."""
        p = loc.ptr
        out = self.unknown()
        if p is None or p.var is None or p.space not in ("global", "constant"):
            return out
        base = (self._object_ids.setdefault(id(p.var), len(self._object_ids) + 1)) << 40
        out.t = np.where(p.off.k, base + (p.off.v & ((1 << 40) - 1)) + 1, 0).astype(_INT)
        return out

    def write(self, loc, val, m: Mask, fr: _Frame) -> None:
        if isinstance(loc, RegLoc):
            cur = fr.env.get(loc.key)
            if isinstance(cur, (MemLoc, RegLoc)):
                self.write(cur, val, m, fr)
                return
            if isinstance(val, V) and isinstance(loc.key, ir.Variable) and loc.key.type.kind == "scalar":
                val = self._convert(val, loc.key.type)
            self.store(fr, loc.key, val, m)
        elif isinstance(loc, MemLoc):
            self.access(loc, True, m, val if isinstance(val, V) else None)

    def store(self, fr: _Frame, key, val, m: Mask) -> None:
        old = fr.env.get(key)
        full = bool(np.all(m.must)) and bool(np.all(m.may))
        if full:
            fr.env[key] = val
            return
        if isinstance(val, Ptr):
            if isinstance(old, Ptr) and old.var is val.var:
                off = self._where(m, val.off, old.off)
                fr.env[key] = Ptr(val.var, val.space, off, val.elem, val.volatile)
            elif old is None and key not in fr.env:
                fr.env[key] = val  # first definition: inactive threads never use it
            else:
                fr.env[key] = None
            return
        if not isinstance(val, V):
            val = self.unknown()
        if old is None and key not in fr.env:
            # first definition (`size_t lid = threadIdx.x;` after an early return that only
            # may have happened): a thread that did not run it never reads it, so its value is
            # the new one, not "unknown" (which made `lid == 0` look true for every thread)
            fr.env[key] = val
            return
        if not isinstance(old, V):
            old = self.unknown()
        fr.env[key] = self._where(m, val, old)

    def _where(self, m: Mask, new: V, old: V) -> V:
        if new.v.dtype != old.v.dtype:
            if new.is_float or old.is_float:
                nv, ov = new.v.astype(np.float64), old.v.astype(np.float64)
            else:
                nv, ov = new.v, old.v
        else:
            nv, ov = new.v, old.v
        v = np.where(m.must, nv, ov)
        k = np.where(m.must, new.k, old.k)
        unsure = m.may & ~m.must
        if unsure.any():
            same = new.k & old.k & (nv == ov)
            k = k & (~unsure | same)
        return V(v, k)

    def _dimension_bounds(self, base_expr: ir.Expr, base: Ptr, idx: V, off: V, m: Mask) -> V:
        """Lanes whose index leaves a declared dimension of a shared array (``t[ty][tx]`` with
        ``tx >= 16`` on ``t[16][16]``) land in another row: an overrun, not a real alias of that
        row. They are counted as out of bounds and their offset made unknown, so they are never
        paired as a race (the flat whole-array check alone misses these)."""
        if base.var is None or base.var.storage not in ("shared", "extern_shared"):
            return off
        while isinstance(base_expr, ir.Cast) and base_expr.implicit:
            base_expr = base_expr.operand
        t = getattr(base_expr, "type", None)
        if t is None or t.kind != "array" or not t.extent:
            return off
        bad = m.may & idx.k & ((idx.v < 0) | (idx.v >= t.extent))
        if not bad.any():
            return off
        self.out_of_bounds[base.var] = self.out_of_bounds.get(base.var, 0) + int(bad.sum())
        return V(off.v, off.k & ~bad)

    # ------------------------------------------------------------------ lvalues
    def lvalue(self, e: ir.Expr, m: Mask, fr: _Frame):
        while isinstance(e, ir.Cast) and e.implicit:
            e = e.operand
        if isinstance(e, ir.VarRef):
            v = e.var
            if v.type.kind == "array":
                return MemLoc(Ptr(v, _space_of(v), self.const(0), v.type, v.type.is_volatile), e,
                              _elem_size(v.type), v.type)
            if v.storage in ("shared", "extern_shared"):
                return MemLoc(Ptr(v, "shared", self.const(0), v.type, v.type.is_volatile), e, v.type.size, v.type)
            if v.storage in ("constant", "device", "managed") or (v.file_scope and v.storage != "param"):
                return MemLoc(Ptr(v, _space_of(v), self.const(0), v.type), e, v.type.size, v.type)
            cur = fr.env.get(v)
            if isinstance(cur, (MemLoc, RegLoc)):
                return cur
            return RegLoc(v, v)
        if isinstance(e, ir.Index):
            base = self.ev(e.base, m, fr)
            idx = self.ev(e.index, m, fr)
            if isinstance(base, V) and isinstance(idx, Ptr):  # 3[p]
                base, idx = idx, base
            if not isinstance(base, Ptr):
                return MemLoc(None, e, e.type.size, e.type)
            if not isinstance(idx, V):
                idx = self.unknown()
            esz = _elem_size(base.elem)
            if esz is None:
                off = self.unknown()
            else:
                off = self._arith("+", base.off, self._arith("*", idx, self.const(esz)))
                off = self._dimension_bounds(e.base, base, idx, off, m)
            return MemLoc(Ptr(base.var, base.space, off, base.elem, base.volatile), e, esz, base.elem)
        if isinstance(e, ir.UnaryOp) and e.op == "*":
            p = self.ev(e.operand, m, fr)
            if isinstance(p, Ptr):
                return MemLoc(p, e, _elem_size(p.elem), p.elem)
            return MemLoc(None, e, e.type.size, e.type)
        if isinstance(e, ir.Member):
            if e.arrow:
                p = self.ev(e.base, m, fr)
                base = MemLoc(p, e, _elem_size(p.elem), p.elem) if isinstance(p, Ptr) else MemLoc(None, e, None, e.type)
            else:
                base = self.lvalue(e.base, m, fr)
            if isinstance(base, RegLoc):
                return RegLoc((base.key, e.member), base.var)
            if isinstance(base, MemLoc) and base.ptr is not None:
                t = base.elem
                if t is not None and t.kind == "vector" and e.member in ("x", "y", "z", "w") and t.size:
                    comp = t.size // max(t.lanes, 1)
                    k = "xyzw".index(e.member)
                    off = self._arith("+", base.ptr.off, self.const(k * comp))
                    return MemLoc(Ptr(base.ptr.var, base.ptr.space, off, e.type, base.ptr.volatile), e, comp, e.type)
                # a struct member: layout unknown here, so the access is not tracked
                return MemLoc(Ptr(None, base.ptr.space, self.unknown(), e.type), e, e.type.size, e.type)
            return MemLoc(None, e, e.type.size, e.type)
        if isinstance(e, ir.Cast):
            return self.lvalue(e.operand, m, fr)
        if isinstance(e, ir.Assign):
            self.ev(e, m, fr)
            return self.lvalue(e.target, m, fr)
        if isinstance(e, ir.UnaryOp) and e.op in ("pre++", "pre--"):
            self.ev(e, m, fr)
            return self.lvalue(e.operand, m, fr)
        if isinstance(e, ir.Ternary):
            self.ev(e.cond, m, fr)
            return MemLoc(None, e, e.type.size, e.type)
        self.ev(e, m, fr)
        return MemLoc(None, e, e.type.size, e.type)

    def address_of(self, e: ir.Expr, m: Mask, fr: _Frame):
        loc = self.lvalue(e, m, fr)
        if isinstance(loc, MemLoc) and loc.ptr is not None:
            p = loc.ptr
            return Ptr(p.var, p.space, p.off, loc.elem if loc.elem is not None else p.elem, p.volatile)
        return None

    # ------------------------------------------------------------------ accesses
    def access(self, loc: MemLoc, write: bool, m: Mask, value: Optional[V] = None,
               atomic: bool = False) -> None:
        if not self.record:
            return
        p = loc.ptr
        if p is None or p.var is None or p.space != "shared":
            return
        size = loc.size or (loc.elem.size if loc.elem is not None else None)
        if not size:
            return
        act = m.may & p.off.k
        if not act.any():
            return
        total = p.var.type.size if p.var.storage == "shared" else None
        if total:
            inb = (p.off.v >= 0) & (p.off.v + size <= total)
            bad = act & ~inb
            if bad.any():
                # outside the array: another bug (or a wrong guess of the block shape);
                # such accesses alias other data and are not paired
                self.out_of_bounds[p.var] = self.out_of_bounds.get(p.var, 0) + int(bad.sum())
                act = act & inb
                if not act.any():
                    return
        idx = np.flatnonzero(act)
        key = "extern" if p.var.storage == "extern_shared" else p.var
        val = None
        if write and value is not None and not value.is_float:
            val = np.where(value.k[idx], value.v[idx], np.iinfo(_INT).min)
        elif write and value is not None:
            val = np.where(value.k[idx], value.v[idx], np.nan)
        node = loc.node
        if id(node) not in self.order:
            self.order[id(node)] = self._seq
            self._seq += 1
        tok = value.t[idx].copy() if write and value is not None and value.t is not None else None
        rec = Access(node, p.var, key, write, atomic, idx, p.off.v[idx].astype(_INT), int(size),
                     m.must[idx].copy(), self.wepoch[idx].copy(),
                     tuple((r[0], r[1], r[2]) for r in self.iter_stack), tuple(self.tags), val,
                     p.volatile or bool(loc.elem is not None and loc.elem.is_volatile), tok, self._solo)
        self.buckets.setdefault(self.epoch, {}).setdefault(key, []).append(rec)

    # ------------------------------------------------------------------ operators
    def _unary(self, e: ir.UnaryOp, m: Mask, fr: _Frame):
        op = e.op
        if op == "&":
            p = self.address_of(e.operand, m, fr)
            return p if p is not None else self.unknown()
        if op == "*":
            return self._load(e, m, fr)
        if op in ("pre++", "pre--", "post++", "post--"):
            loc = self.lvalue(e.operand, m, fr)
            old = self.read(loc, m, fr)
            one = self.const(1)
            if isinstance(old, Ptr):
                esz = _elem_size(old.elem) or 1
                step = self.const(esz if "++" in op else -esz)
                new = Ptr(old.var, old.space, self._arith("+", old.off, step), old.elem, old.volatile)
            elif isinstance(old, V):
                new = self._arith("+" if "++" in op else "-", old, one, e.type)
            else:
                new = self.unknown()
            self.write(loc, new, m, fr)
            return new if op.startswith("pre") else old
        v = self.ev(e.operand, m, fr)
        if not isinstance(v, V):
            if op == "!" and isinstance(v, Ptr):
                return V(np.zeros(self.n, dtype=_INT), v.off.k.copy())
            return self.unknown()
        if op == "-":
            return V(-v.v, v.k.copy())
        if op == "+":
            return v
        if op == "!":
            return V((v.v == 0).astype(_INT), v.k.copy())
        if op == "~":
            if v.is_float:
                return self.unknown()
            r = ~v.v
            if _is_unsigned32(e.type):
                r = r & _U32
            return V(r, v.k.copy())
        return self.unknown()

    def _binop(self, e: ir.BinOp, m: Mask, fr: _Frame):
        op = e.op
        if op in ("&&", "||"):
            a = self.cond(e.lhs, m, fr)
            at = a.v != 0
            if op == "&&":
                sub = Mask(m.must & a.k & at, m.may & (~a.k | at))
            else:
                sub = Mask(m.must & a.k & ~at, m.may & (~a.k | ~at))
            b = self.cond(e.rhs, sub, fr) if sub.any() else self.const(0)
            bt = b.v != 0
            if op == "&&":
                v = at & bt
                k = (a.k & ~at) | (a.k & b.k) | (b.k & ~bt)
            else:
                v = at | bt
                k = (a.k & at) | (a.k & b.k) | (b.k & bt)
            return V(v.astype(_INT), k)
        if op == ",":
            self.ev(e.lhs, m, fr)
            return self.ev(e.rhs, m, fr)
        a = self.ev(e.lhs, m, fr)
        b = self.ev(e.rhs, m, fr)
        if isinstance(a, Ptr) or isinstance(b, Ptr):
            return self._ptr_arith(op, a, b)
        if not isinstance(a, V) or not isinstance(b, V):
            return self.unknown()
        return self._arith(op, a, b, e.type)

    def _ptr_arith(self, op: str, a, b):
        if isinstance(a, Ptr) and isinstance(b, V) and op in ("+", "-"):
            esz = _elem_size(a.elem) or 1
            d = self._arith("*", b, self.const(esz))
            return Ptr(a.var, a.space, self._arith(op, a.off, d), a.elem, a.volatile)
        if isinstance(b, Ptr) and isinstance(a, V) and op == "+":
            return self._ptr_arith("+", b, a)
        if isinstance(a, Ptr) and isinstance(b, Ptr) and op == "-" and a.var is b.var:
            esz = _elem_size(a.elem) or 1
            return self._arith("/", self._arith("-", a.off, b.off), self.const(esz))
        if op in ("==", "!=", "<", ">", "<=", ">=") and isinstance(a, Ptr) and isinstance(b, Ptr) \
                and a.var is b.var:
            return self._arith(op, a.off, b.off)
        return self.unknown()

    def _arith(self, op: str, a: V, b: V, t: Optional[ir.CType] = None) -> V:
        k = a.k & b.k
        av, bv = a.v, b.v
        fl = a.is_float or b.is_float or (t is not None and t.is_float and op in ("+", "-", "*", "/"))
        if fl:
            av = av.astype(np.float64, copy=False)
            bv = bv.astype(np.float64, copy=False)
        with np.errstate(all="ignore"):
            if op == "+":
                r = av + bv
            elif op == "-":
                r = av - bv
            elif op == "*":
                r = av * bv
            elif op in ("/", "%"):
                zero = bv == 0
                k = k & ~zero
                bs = np.where(zero, 1, bv)
                if fl:
                    if op == "%":
                        return V(np.zeros(self.n, dtype=_INT), self.none.copy())
                    r = av / bs
                else:
                    q = np.abs(av) // np.abs(bs)
                    q = np.where((av < 0) ^ (bs < 0), -q, q)
                    r = q if op == "/" else av - bs * q
            elif op in ("<", ">", "<=", ">=", "==", "!="):
                r = {"<": av < bv, ">": av > bv, "<=": av <= bv, ">=": av >= bv,
                     "==": av == bv, "!=": av != bv}[op].astype(_INT)
                return V(r, k)
            elif op in ("<<", ">>", "&", "|", "^"):
                if fl:
                    return V(np.zeros(self.n, dtype=_INT), self.none.copy())
                if op in ("<<", ">>"):
                    bad = (bv < 0) | (bv > 62)
                    k = k & ~bad
                    sh = np.where(bad, 0, bv)
                    r = np.left_shift(av, sh) if op == "<<" else np.right_shift(av, sh)
                else:
                    r = {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}[op](av, bv)
            else:
                return V(np.zeros(self.n, dtype=_INT), self.none.copy())
        if not fl and t is not None and _is_unsigned32(t) and op in ("+", "-", "*", "<<", "~"):
            r = r & _U32
        if not fl:
            r = r.astype(_INT, copy=False)
        else:
            bad = ~np.isfinite(r)
            if bad.any():
                k = k & ~bad
                r = np.where(bad, 0.0, r)
        return V(r, k)

    def _convert(self, v: V, t: ir.CType) -> V:
        # a conversion of equal values gives equal values: provenance tokens are kept
        if t.is_float:
            if not v.is_float:
                return V(v.v.astype(np.float64), v.k, v.t)
            return v
        if v.is_float:
            with np.errstate(all="ignore"):
                fin = np.isfinite(v.v) & (np.abs(v.v) < 9e18)
                r = np.trunc(np.where(fin, v.v, 0.0)).astype(_INT)
            v = V(r, v.k & fin, v.t)
        if _is_unsigned32(t):
            return V(v.v & _U32, v.k, v.t)
        if t.kind == "scalar" and t.size == 1 and "bool" in t.spelling:
            return V((v.v != 0).astype(_INT), v.k, v.t)
        return v

    def _assign(self, e: ir.Assign, m: Mask, fr: _Frame):
        loc = self.lvalue(e.target, m, fr)
        val = self.ev(e.value, m, fr)
        if e.op != "=":
            old = self.read(loc, m, fr)
            op = e.op[:-1]
            if isinstance(old, Ptr) and isinstance(val, V):
                val = self._ptr_arith(op, old, val)
            elif isinstance(old, V) and isinstance(val, V):
                val = self._arith(op, old, val, e.target.type)
            else:
                val = self.unknown()
        elif isinstance(val, Ptr) and isinstance(loc, RegLoc) and isinstance(loc.key, ir.Variable):
            t = loc.key.type
            if t.kind == "pointer" and t.element is not None:
                val = Ptr(val.var, val.space, val.off, t.element, val.volatile or t.element.is_volatile)
        self.write(loc, val, m, fr)
        return val

    def _cast(self, e: ir.Cast, m: Mask, fr: _Frame):
        v = self.ev(e.operand, m, fr)
        t = e.type
        if isinstance(v, Ptr):
            if t.kind == "pointer" and t.element is not None:
                return Ptr(v.var, v.space, v.off, t.element, v.volatile or t.element.is_volatile)
            if t.kind == "scalar":
                return self.unknown()
            return v
        if isinstance(v, V) and t.kind == "scalar":
            return self._convert(v, t)
        if t.kind == "void":
            return None
        return v if v is not None else self.unknown()

    def _ternary(self, e: ir.Ternary, m: Mask, fr: _Frame):
        c = self.cond(e.cond, m, fr)
        ct = c.v != 0
        mt = Mask(m.must & c.k & ct, m.may & (~c.k | ct))
        me = Mask(m.must & c.k & ~ct, m.may & (~c.k | ~ct))
        a = self.ev(e.then, mt, fr) if mt.any() else None
        b = self.ev(e.otherwise, me, fr) if me.any() else None
        if a is None and b is None:
            return self.unknown()
        if isinstance(a, Ptr) and (b is None or (isinstance(b, Ptr) and b.var is a.var)):
            if b is None:
                return a
            off = self._select(c, ct, a.off, b.off)
            return Ptr(a.var, a.space, off, a.elem, a.volatile)
        if isinstance(b, Ptr) and a is None:
            return b
        if not isinstance(a, V):
            a = self.unknown()
        if not isinstance(b, V):
            b = self.unknown()
        return self._select(c, ct, a, b)

    def _select(self, c: V, ct: np.ndarray, a: V, b: V) -> V:
        av, bv = a.v, b.v
        if av.dtype != bv.dtype:
            av, bv = av.astype(np.float64), bv.astype(np.float64)
        v = np.where(ct, av, bv)
        k = c.k & np.where(ct, a.k, b.k)
        return V(v, k)

    # ------------------------------------------------------------------ calls
    def _call(self, e: ir.Call, m: Mask, fr: _Frame):
        name = e.callee
        if name in BLOCK_BARRIER_CALLS or is_grid_sync(e):
            for a in e.args:
                self.ev(a, m, fr)
            self.barrier(e, m, fr)
            return self.unknown()
        if name in _CG_QUERIES and e.args:
            v = self._cg_query(name, e.args[0].type.spelling)
            if v is not None:
                return v
        if name in ("size", "num_threads", "meta_group_size") and not e.args:
            # `tile.size()` is static: the object is not in the IR; one tile type in scope
            # says which group it is
            tiles = {re.sub(r"^const\s+", "", v.type.spelling) for v in fr.fn.locals + fr.fn.params
                     if "thread_block_tile<" in v.type.spelling}
            if len(tiles) == 1:
                v = self._cg_query(name, tiles.pop())
                if v is not None:
                    return v
        if name in _CONSTANT_CALLS:
            # `-INFINITY` is `-__builtin_inff()`: every thread storing it stores the same bits
            return self.const(_CONSTANT_CALLS[name])
        if name in WARP_BARRIER_CALLS:
            for a in e.args:
                self.ev(a, m, fr)
            self.wepoch[m.may] += 1
            return self.unknown()
        group = _reduction_group(e)
        if group:
            # cg::reduce(tile, v, op) and __reduce_*_sync return one result to every thread
            # of the group: equal (unknown) values within a group
            for a in e.args:
                self.ev(a, m, fr)
            out = self.unknown()
            gid = self.ts.lin // group
            out.t = ((self._object_ids.setdefault(id(e), len(self._object_ids) + 1)) << 40) + gid + 1
            out.t = out.t.astype(_INT)
            return out
        if name.startswith("atomic") or name.startswith("__atomic") or name.startswith("__nv_atomic"):
            vals = [self.ev(a, m, fr) for a in e.args]
            if vals and isinstance(vals[0], Ptr):
                p = vals[0]
                self.access(MemLoc(p, e, _elem_size(p.elem), p.elem), True, m, None, atomic=True)
            return self.unknown()
        if name in _MATH2 and len(e.args) == 2:
            a, b = self.ev(e.args[0], m, fr), self.ev(e.args[1], m, fr)
            if not (isinstance(a, V) and isinstance(b, V)):
                return self.unknown()
            if name in ("__mul24", "__umul24"):
                return self._arith("*", a, b)
            if name in ("__hadd", "__rhadd"):
                return self._arith("/", self._arith("+", a, b), self.const(2))
            if a.v.dtype != b.v.dtype:
                av, bv = a.v.astype(np.float64), b.v.astype(np.float64)
            else:
                av, bv = a.v, b.v
            r = np.minimum(av, bv) if "min" in name else np.maximum(av, bv)
            return V(r, a.k & b.k)
        if name in _MATH1 and len(e.args) == 1:
            a = self.ev(e.args[0], m, fr)
            if not isinstance(a, V):
                return self.unknown()
            with np.errstate(all="ignore"):
                if name in ("abs", "fabsf", "fabs"):
                    return V(np.abs(a.v), a.k)
                if name in ("floorf", "floor", "__float2int_rd"):
                    return V(np.floor(a.v.astype(np.float64)), a.k)
                if name in ("ceilf", "ceil", "__float2int_ru"):
                    return V(np.ceil(a.v.astype(np.float64)), a.k)
                if name in ("truncf", "trunc", "__float2int_rz"):
                    return V(np.trunc(a.v.astype(np.float64)), a.k)
                if name in ("rintf", "__float2int_rn"):
                    return V(np.rint(a.v.astype(np.float64)), a.k)
                if name in ("sqrtf", "sqrt"):
                    r = np.sqrt(a.v.astype(np.float64))
                    return V(np.where(np.isfinite(r), r, 0.0), a.k & np.isfinite(r))
                if name in ("log2f", "log2"):
                    r = np.log2(a.v.astype(np.float64))
                    return V(np.where(np.isfinite(r), r, 0.0), a.k & np.isfinite(r))
                if name == "__popc" and not a.is_float:
                    x = a.v & _U32
                    cnt = np.zeros_like(x)
                    for i in range(32):
                        cnt += (x >> i) & 1
                    return V(cnt, a.k)
            return self.unknown()
        fn = e.function
        if fn is not None and fn.body is not None and len(fn.params) == len(e.args) and \
                len(self._inline_stack) < MAX_INLINE_DEPTH and fn not in self._inline_stack:
            return self._inline(e, fn, m, fr)
        for a in e.args:
            self.ev(a, m, fr)
        return self.unknown()

    def _cg_query(self, name: str, grp: str) -> Optional[V]:
        """Cooperative-groups queries on a block, a tile or the grid."""
        ts = self.ts
        T = ts.threads_per_block
        m = re.search(r"thread_block_tile<\s*(\d+)", grp)
        if m:
            n = int(m.group(1))
            return {"thread_rank": lambda: self.arr(ts.lin % n), "size": lambda: self.const(n),
                    "num_threads": lambda: self.const(n),
                    "meta_group_rank": lambda: self.arr(ts.lin // n),
                    "meta_group_size": lambda: self.const(-(-T // n))}.get(name, lambda: None)()
        if "grid_group" in grp:
            if ts.grid is None:
                return None
            gx, gy, gz = ts.grid
            blin = (ts.bz * gy + ts.by) * gx + ts.bx
            return {"thread_rank": lambda: self.arr(blin * T + ts.lin),
                    "size": lambda: self.const(T * gx * gy * gz),
                    "num_threads": lambda: self.const(T * gx * gy * gz),
                    "block_rank": lambda: self.arr(blin),
                    "num_blocks": lambda: self.const(gx * gy * gz)}.get(name, lambda: None)()
        if "thread_block" in grp:
            return {"thread_rank": lambda: self.arr(ts.lin), "size": lambda: self.const(T),
                    "num_threads": lambda: self.const(T)}.get(name, lambda: None)()
        return None

    @property
    def _inline_stack(self) -> list:
        if not hasattr(self, "_inl"):
            self._inl = []
        return self._inl

    def _inline(self, e: ir.Call, fn: ir.Function, m: Mask, fr: _Frame):
        env: dict = {}
        for p, a in zip(fn.params, e.args):
            if p.is_reference:
                env[p] = self.lvalue(a, m, fr)
                continue
            val = self.ev(a, m, fr)
            if isinstance(val, Ptr) and p.type.kind == "pointer" and p.type.element is not None:
                val = Ptr(val.var, val.space, val.off, p.type.element,
                          val.volatile or p.type.element.is_volatile)
            elif isinstance(val, V) and p.type.kind == "scalar":
                val = self._convert(val, p.type)
            env[p] = val
        nf = _Frame(self.n, env, fn)
        self._inline_stack.append(fn)
        try:
            self.block(fn.body, m, nf)
        finally:
            self._inline_stack.pop()
        if not nf.rets:
            return self.unknown()
        res = None
        for rm, val in nf.rets:
            if isinstance(val, Ptr):
                res = val if res is None or (isinstance(res, Ptr) and res.var is val.var) else None
                continue
            if not isinstance(val, V):
                val = self.unknown()
            if res is None:
                res = V(val.v.copy(), val.k & rm.must) if not rm.certain or not bool(np.all(rm.must[m.may])) \
                    else val
            elif isinstance(res, V):
                res = self._where(Mask(rm.must, rm.must), val, res)
        return res if res is not None else self.unknown()

    # ------------------------------------------------------------------ race detection
    def _flush_all(self) -> None:
        for ep in sorted(self.buckets):
            self._flush(ep)

    def _flush(self, epoch: int) -> None:
        bucket = self.buckets.pop(epoch, None)
        if not bucket:
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
        order = np.lexsort((th, key, blk))
        key, th, ri, po, blk = key[order], th[order], ri[order], po[order], blk[order]
        wr = np.array([r.write for r in recs])[ri]
        n = len(key)
        if n < 2:
            return
        brk = np.flatnonzero((np.diff(key) != 0) | (np.diff(blk) != 0)) + 1
        starts = np.concatenate(([0], brk))
        ends = np.concatenate((brk, [n]))
        has_w = np.add.reduceat(wr.astype(np.int32), starts) > 0
        tmin = np.minimum.reduceat(th, starts)
        tmax = np.maximum.reduceat(th, starts)
        cand = np.flatnonzero(has_w & (tmin != tmax))
        if len(cand) == 0:
            return
        # Records that take part in some candidate group, then pairwise joins on the address.
        in_cand = np.zeros(n, dtype=bool)
        grp = np.zeros(n, dtype=np.int64)
        grp[starts[1:]] = 1
        grp = np.cumsum(grp)
        cmask = np.zeros(len(starts), dtype=bool)
        cmask[cand] = True
        in_cand = cmask[grp]
        involved = sorted(set(np.unique(ri[in_cand]).tolist()))
        writers = [wi for wi in involved if recs[wi].write]
        self._pair_checks += len(writers) * len(involved)
        if self._pair_checks > PAIR_BUDGET:
            self.complete = False
            return
        # the entries of each involved record, by one sort instead of a scan per record
        sel_idx = np.flatnonzero(in_cand)
        by_rec = sel_idx[np.argsort(ri[sel_idx], kind="stable")]
        rids = ri[by_rec]
        bounds = np.searchsorted(rids, involved + [np.iinfo(np.int32).max])
        per_rec = {}
        for j, i in enumerate(involved):
            sel = by_rec[bounds[j]:bounds[j + 1]]
            per_rec[i] = (key[sel], th[sel], po[sel])
        for wi in writers:
            for oi in involved:
                self._check_pair(recs, wi, oi, per_rec, unit)

    def _check_pair(self, recs, wi: int, oi: int, per_rec: dict, unit: int) -> None:
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
        order = np.argsort(ko, kind="stable")
        ko_s = ko[order]
        lo = np.searchsorted(ko_s, kw, "left")
        hi = np.searchsorted(ko_s, kw, "right")
        cnt = hi - lo
        if not cnt.any():
            return
        # bound the number of (write, other) entry pairs examined
        csum = np.cumsum(cnt)
        if csum[-1] > MAX_PAIRS:
            keep = csum <= MAX_PAIRS
            keep[np.argmax(cnt > 0)] = True
            cnt = np.where(keep, cnt, 0)
        total = int(cnt.sum())
        wsel = np.repeat(np.arange(len(kw)), cnt)
        first = np.repeat(np.cumsum(cnt) - cnt, cnt)
        within = np.arange(total) - first
        osel = order[np.repeat(lo, cnt) + within]
        ta_all, tb_all = tw[wsel], to[osel]
        valid = ta_all != tb_all
        same = self.ts.warp[ta_all] == self.ts.warp[tb_all]
        valid &= ~(same & (rw.wepoch[pw[wsel]] != ro.wepoch[pov[osel]]))
        if ro.write and rw.value is not None and ro.value is not None:
            va, vb = rw.value[pw[wsel]], ro.value[pov[osel]]
            with np.errstate(invalid="ignore"):
                benign = (va == vb)
            if va.dtype.kind != "f":
                benign &= va != np.iinfo(_INT).min
            valid &= ~benign
        if ro.write and rw.tok is not None and ro.tok is not None:
            # both store a value of the same provenance (the same global element, one warp
            # reduction's result): the same bits, whichever lands last
            ka, kb = rw.tok[pw[wsel]], ro.tok[pov[osel]]
            valid &= ~((ka == kb) & (ka != 0))
        if not valid.any():
            return
        cert = rw.certain[pw[wsel]] & ro.certain[pov[osel]]
        score = np.where(valid, cert.astype(np.int32) * 2 + (~same).astype(np.int32), -1)
        j = int(np.argmax(score))
        best = ((bool(cert[j]), not bool(same[j])), int(ta_all[j]), int(tb_all[j]), int(kw[wsel[j]]) * unit)
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
        confined = len(np.unique(self.ts.warp[a.threads])) == 1 and \
            len(np.unique(self.ts.warp[b.threads])) == 1
        r.confined = confined and (old.confined if old is not None else True)
        r.warp_confined = (not r.cross_warp) and r.confined and self.ts.warps_per_block > 1
        self.races[pk] = r


def _tags_compatible(a: tuple, b: tuple) -> bool:
    if not a or not b:
        return True
    da = dict(a)
    for d, o in b:
        if d in da and da[d] != o:
            return False
    return True


_REDUCE_SYNC = {"__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync",
                "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync"}


def _reduction_group(e: ir.Call) -> int:
    """Threads per group that all receive the result of this reduction call (0: not one)."""
    name = e.callee
    if name in _REDUCE_SYNC:
        return 32
    if name.split("::")[-1] == "reduce" and e.args:
        sp_ = e.args[0].type.spelling
        m = re.search(r"thread_block_tile<\s*(\d+)", sp_)
        if m:
            return int(m.group(1))
        if "coalesced_group" in sp_ or "thread_block" in sp_ and "tile" not in sp_:
            return 0  # the group's extent is not known here
    return 0


def _element_text(var: ir.Variable, byte_off: int, size: Optional[int]) -> str:
    t = var.type
    if t.kind != "array":
        return var.name if byte_off == 0 else f"{var.name} (+{byte_off} bytes)"
    extents = t.array_extents()
    el = t.innermost_element()
    esz = el.size or size or 1
    if byte_off % esz:
        return f"{var.name} (byte {byte_off})"
    i = byte_off // esz
    dims = []
    for ext in reversed(extents[1:]):
        if not ext:
            return f"{var.name}[{i}]"
        dims.append(i % ext)
        i //= ext
    dims.append(i)
    return var.name + "".join(f"[{d}]" for d in reversed(dims))


# ---------------------------------------------------------------------- per-kernel facts

@dataclass
class SyncFacts:
    """Everything the barrier/race rules need about one kernel (see ``sync_facts``)."""

    races: list = field(default_factory=list)
    complete: bool = True
    note: str = ""
    block: tuple = (256, 1, 1)
    barriers: list = field(default_factory=list)
    _branch_run: Optional[Simt] = None
    grid_complete: bool = False

    def to_json(self) -> dict:
        return {"races": [r.to_json() for r in self.races], "complete": self.complete,
                "note": self.note}


def kernel_params(kf, opts=None) -> dict:
    out = dict(getattr(kf.launch, "param_values", {}) or {})
    if opts is not None:
        out.update(getattr(opts, "params", {}) or {})
    return out


def find_races(kernel: ir.Function, block: tuple, grid: Optional[tuple] = None,
               params: Optional[dict] = None, uniform: Optional[Callable] = None,
               dynamic_smem: Optional[int] = None, barrier_loops: Optional[set] = None,
               budget: int = STEP_BUDGET) -> Simt:
    """Run ``kernel`` for block (0,0,0) of the launch shape and return the interpreter
    (``.races`` maps statement pairs to :class:`Race`, ``.complete`` says whether the whole
    kernel was covered)."""
    ts = ThreadSet(tuple(block), tuple(grid) if grid else None, [(0, 0, 0)])
    sim = Simt(kernel, ts, params or {}, uniform, record=True, dynamic_smem=dynamic_smem,
               barrier_loops=barrier_loops, budget=budget)
    return sim.run()


def branch_divergence(kernel: ir.Function, block: tuple, grid: Optional[tuple] = None,
                      params: Optional[dict] = None, uniform: Optional[Callable] = None,
                      budget: int = STEP_BUDGET) -> tuple[Simt, bool]:
    """Run ``kernel`` over the launch's grid (all blocks when the grid has at most
    ``MAX_GRID_THREADS`` threads, else a sample of blocks) recording how every ``if`` splits
    warps. Returns (interpreter, whole grid covered)."""
    blocks, whole = sample_blocks(tuple(grid) if grid else None, tuple(block))
    ts = ThreadSet(tuple(block), tuple(grid) if grid else None, blocks)
    sim = Simt(kernel, ts, params or {}, uniform, record=False, on_branch=True, budget=budget)
    return sim.run(), whole


class KernelSync:
    """The barrier/race/divergence analyses of one kernel, computed on demand and cached on
    its :class:`~cudalint.analyzer.pipeline.KernelFacts` (see :func:`kernel_sync`)."""

    def __init__(self, kf, opts=None):
        from .cfg import CFG
        from .uniformity import Uniformity

        self.kf = kf
        self.kernel: ir.Function = kf.function
        self.params = kernel_params(kf, opts)
        self.cfg = CFG(self.kernel)
        self.uni = Uniformity(self.kernel, self.cfg)
        self._sim: Optional[Simt] = None
        self._div = None
        self.block = tuple(kf.launch.block)
        self.block_note = ""
        self.races_checked = True

    @property
    def launch(self):
        return self.kf.launch

    @property
    def sim(self) -> Simt:
        if self._sim is None:
            from .uniformity import _uniform_fn

            loops = {lp for lp in self.cfg.loop_nodes if self.cfg.loop_has_barrier(lp)}
            block = tuple(self.launch.block)
            sim = find_races(self.kernel, block, self.launch.grid, self.params,
                             _uniform_fn(self.uni), self.launch.dynamic_smem, loops)
            if self.launch.source == "default" and sim.out_of_bounds:
                # No launch says how big the block is and the stated default overruns the
                # kernel's shared arrays: the kernel is written for smaller blocks. Take the
                # largest (a multiple of 32) that stays inside them.
                overrun = ", ".join(f"`{v.name}`" for v in sim.out_of_bounds)
                for n in (128, 64, 32):
                    s2 = find_races(self.kernel, (n, 1, 1), self.launch.grid, self.params,
                                    _uniform_fn(self.uni), self.launch.dynamic_smem, loops)
                    if not s2.out_of_bounds:
                        sim, block = s2, (n, 1, 1)
                        self.block_note = (f"no launch found: assumed {n} threads per block, since "
                                           f"{self.launch.block[0]} would index past the end of "
                                           f"shared {overrun}")
                        break
            if self.launch.source == "default" and sim.races:
                if _uses_thread_dims(self.kernel, ("y", "z")):
                    # a 2-D/3-D kernel checked with the stated 1-D default: meaningless pairs
                    sim.races = {}
                    self.block_note = ("no launch found and the kernel indexes threadIdx.y/z: "
                                       "races not checked (pass --block)")
                    self.races_checked = False
                elif block[0] > 64:
                    # The block size is a guess: keep what also happens with two warps.
                    s64 = find_races(self.kernel, (64, 1, 1), self.launch.grid, self.params,
                                     _uniform_fn(self.uni), self.launch.dynamic_smem, loops)
                    keep = {(id(r.a), id(r.b)) for r in s64.races.values()} | \
                        {(id(r.b), id(r.a)) for r in s64.races.values()}
                    sim.races = {k: r for k, r in sim.races.items() if (id(r.a), id(r.b)) in keep}
            self.block = block
            self._sim = sim
        return self._sim

    @property
    def races(self) -> list:
        return sorted(self.sim.races.values(), key=lambda r: (r.b.range.line, r.b.range.column,
                                                               r.a.range.line, r.a.range.column))

    @property
    def divergence(self):
        if self._div is None:
            from .uniformity import warp_divergence

            self._div = warp_divergence(self.kernel, self.launch.block, self.launch.grid,
                                        self.params, self.uni)
        return self._div


def _uses_thread_dims(fn: ir.Function, comps: tuple, depth: int = 0, seen=None) -> bool:
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
                _uses_thread_dims(e.function, comps, depth + 1, seen):
            return True
        if isinstance(e, ir.Call) and e.callee in ("thread_index", "dim_threads"):
            return True
    return False


def kernel_sync(kf, opts=None) -> KernelSync:
    ks = kf.__dict__.get("_cudalint_sync")
    if ks is None:
        ks = KernelSync(kf, opts)
        kf.__dict__["_cudalint_sync"] = ks
    return ks


class SyncReport:
    """The barrier and race facts of one kernel for ``explain`` (``sync`` in its JSON): the
    block the race check simulated, whether it could check races and finished, the barriers,
    and every race with its witness threads."""

    def __init__(self, ks: "KernelSync"):
        self.ks = ks

    def to_json(self) -> dict:
        ks = self.ks
        try:
            races = ks.races
            sim = ks.sim
        except Exception as exc:  # noqa: BLE001 - explain reports, never raises
            return {"error": f"{type(exc).__name__}: {exc}"}
        return {
            "block": list(ks.block),
            "block_note": ks.block_note,
            "barriers": [n.line for n in ks.cfg.barriers()],
            "races_checked": ks.races_checked,
            "complete": bool(sim.complete),
            "races": [r.to_json() for r in races],
        }

    def render_text(self):
        from .accesses import PlainText

        j = self.to_json()
        if "error" in j:
            return PlainText(f"  barriers and races: not analysed ({j['error']})")
        block = "x".join(map(str, j["block"]))
        n = len(j["barriers"])
        bars = ("no barriers" if n == 0 else
                f"barrier{'s' if n > 1 else ''} at line{'s' if n > 1 else ''} "
                + ", ".join(map(str, j["barriers"])))
        lines = [f"  barriers and races (block {block} simulated): {bars}"]
        if j["block_note"]:
            lines.append(f"    assumed: {j['block_note']}")
        if not j["races_checked"]:
            lines.append("    races: not checked")
        else:
            lines.append(f"    races: {len(j['races'])}" + ("" if j["complete"] else
                         " (the check stopped early: its step or pair budget was spent, so more may exist)"))
            for r in j["races"]:
                a, b = r["first"], r["second"]
                lines.append(f"    `{r['element'] or r['array']}`: {a['kind']} at line {a['line']} and "
                             f"{b['kind']} at line {b['line']} by threads {r['threads'][0]} and "
                             f"{r['threads'][1]}"
                             + (f", across iterations of the loop at line {r['across_back_edge_of_loop']}"
                                if r["across_back_edge_of_loop"] else "")
                             + ("" if r["certain"] else " (possible)"))
        return PlainText("\n".join(lines))
