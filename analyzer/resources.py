"""Per-kernel resources (registers, shared and local memory) and the occupancy they allow.

Two facts of every analysed kernel, which the pipeline stores in ``KernelFacts``:

``resources`` (:func:`kernel_resources` -> :class:`ResourceFacts`)
    registers per thread, where they come from (``"ptxas"``: the compiler's own report for this
    kernel and architecture; ``"estimate"``: the IR-based estimate below, always marked as such
    with an assumption), static shared memory, local memory (stack frame + spills) and spills.

``occupancy`` (:func:`kernel_occupancy` -> :class:`KernelOccupancy`)
    :func:`cudalint.analyzer.occupancy.compute_occupancy` for the kernel's launch configuration
    (``kf.launch``: block and dynamic shared memory), in DESIGN.md's ``occupancy`` JSON shape,
    plus where the launch and the registers came from, the changes that reach the next step,
    and the occupancy of every other launch site of the kernel with a different configuration.

Registers come from ``ptxas`` when a CUDA compiler is found and ``AnalysisOptions.use_ptxas``
is true (set ``CUDALINT_NO_PTXAS=1`` to switch it off from the environment). The file is
compiled once per (file, arch, include dirs, defines) — ``analyzer.registers`` caches the
result on disk by content hash — and the kernel is matched by its mangled name, else by its
demangled signature (template instantiations), else by its plain name.

Without a compiler the **estimate** models what ptxas allocates as a register-pressure peak
over the kernel's statements in program order:

* every automatic scalar is live from its first definition to its last use, extended over a
  whole loop when it is used inside the loop but defined before it (it must survive the back
  edge); width in 32-bit words (``double``/pointers 2, ``float4`` 4);
* automatic arrays that stay in registers (every index constant after unrolling) count all
  their words while live; arrays in local memory cost nothing but the stack pointer;
* inside a loop, each pointer (parameter or local) indexed with a loop-dependent index keeps
  a 64-bit address live for the whole loop (strength reduction);
* loads in flight: nvcc unrolls counted loops (fully when the trip count is a constant, else
  by 4) and hoists the loads of the unrolled copies, so a loop adds ``unroll x load words per
  iteration`` (capped) of temporaries;
* per statement, the 64-bit addresses of its memory accesses and the loaded values;
* a fixed base (thread/block indices, the stack pointer, zero registers ptxas reserves).

The constants were fitted to the 24 ground-truth kernels (``ptxas_registers`` in
``shared/groundtruth/measured-h200.json``, nvcc 13.0 -O3 sm_90); ``tests/test_resources.py``
states the error it reaches. ``__launch_bounds__(T, B)`` caps the estimate at what lets B
blocks of T threads fit, the way ptxas caps its allocation (spilling the rest).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Optional

from . import ir, loops
from .launch import default_reason, partly_known

__all__ = [
    "ResourceFacts",
    "KernelOccupancy",
    "RegisterEstimate",
    "estimate_registers",
    "kernel_resources",
    "kernel_occupancy",
    "kernel_launch_sites",
]


# --------------------------------------------------------------------------- facts
class _Verbatim(str):
    """Text that rich prints as is (compiler messages may contain ``[...]``, rich markup)."""

    def __rich__(self):
        from rich.text import Text

        return Text(str(self))


@dataclass
class ResourceFacts:
    """What one thread block of a kernel holds: registers per thread, shared and local memory."""

    kernel: str
    arch: str
    registers: int
    registers_source: str  # "ptxas" | "estimate" ("unknown" only if the estimate itself failed)
    static_smem_bytes: int
    local_bytes: int  # stack frame + spill stores (per thread)
    spill_bytes: int  # spill stores + spill loads (ptxas), 0 for the estimate
    stack_frame_bytes: int = 0
    spill_store_bytes: int = 0
    spill_load_bytes: int = 0
    barriers: Optional[int] = None
    static_smem_source: str = "ptxas"  # "ptxas" | "source" (sum of the kernel's __shared__ variables)
    ptxas_name: Optional[str] = None  # the function name in ptxas' report (mangled)
    register_cap: Optional[int] = None  # from __launch_bounds__ (estimate only)
    estimate_detail: dict = field(default_factory=dict)
    assumptions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def is_estimate(self) -> bool:
        return self.registers_source != "ptxas"

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "registers": self.registers,
            "registers_source": self.registers_source,
            "static_smem_bytes": self.static_smem_bytes,
            "local_bytes": self.local_bytes,
            "spill_bytes": self.spill_bytes,
            "stack_frame_bytes": self.stack_frame_bytes,
            "spill_store_bytes": self.spill_store_bytes,
            "spill_load_bytes": self.spill_load_bytes,
            "barriers": self.barriers,
            "static_smem_source": self.static_smem_source,
            "arch": self.arch,
        }
        if self.ptxas_name:
            d["ptxas_name"] = self.ptxas_name
        if self.register_cap is not None:
            d["register_cap"] = self.register_cap
        if self.estimate_detail:
            d["estimate_detail"] = dict(self.estimate_detail)
        d["assumptions"] = list(self.assumptions)
        d["notes"] = list(self.notes)
        return d

    def render_text(self) -> str:
        src = "from ptxas" if self.registers_source == "ptxas" else "ESTIMATED from the source, no ptxas"
        parts = [f"  resources ({self.arch}): {self.registers} registers per thread ({src}), "
                 f"{self.static_smem_bytes} B static shared memory"
                 + ("" if self.static_smem_source == "ptxas" else " (sum of __shared__ variables)")
                 + f", {self.local_bytes} B local memory per thread"
                 + (f" ({self.spill_bytes} B of spills)" if self.spill_bytes else "")]
        for a in self.assumptions:
            parts.append(f"    assumed: {a}")
        for n in self.notes:
            parts.append(f"    note: {n}")
        return _Verbatim("\n".join(parts))


@dataclass
class SiteOccupancy:
    """Occupancy of one launch site of the kernel (another configuration than the chosen one)."""

    site: ir.LaunchSite
    result: Any  # OccupancyResult

    def to_json(self) -> dict[str, Any]:
        r = self.result
        return {"line": self.site.range.line, "block": list(self.site.block or ()),
                "dynamic_smem": self.site.dynamic_smem, "occupancy": round(r.occupancy, 6),
                "active_blocks_per_sm": r.active_blocks_per_sm, "limiters": list(r.limiters),
                "can_launch": r.can_launch}


@dataclass
class KernelOccupancy:
    """Theoretical occupancy of the kernel's launch configuration on the target."""

    result: Any  # OccupancyResult
    launch_source: str  # command-line | launch-site | launch-bounds | default
    registers_source: str  # ptxas | estimate
    next_steps: list = field(default_factory=list)  # occupancy.Step
    other_sites: list[SiteOccupancy] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    default_why: str = "no launch configuration found"  # why the default block, when it is used
    partly_known: bool = False  # the launch's block is known in some components (default_why says which)

    @property
    def occupancy(self) -> float:
        return self.result.occupancy

    def step_for(self, limiter: str):
        want = {"registers": "registers", "shared_memory": "shared_memory",
                "warps": "threads", "blocks": "threads"}.get(limiter)
        for s in self.next_steps:
            if s.resource == want:
                return s
        return None

    def to_json(self) -> dict[str, Any]:
        d = self.result.to_json()
        d["launch_source"] = self.launch_source
        d["registers_source"] = self.registers_source
        d["next_steps"] = [s.message for s in self.next_steps]
        if self.other_sites:
            d["other_launches"] = [s.to_json() for s in self.other_sites]
        if self.assumptions:
            d["assumptions"] = list(self.assumptions)
        return d

    def render_text(self) -> str:
        r = self.result
        regs = f"{r.registers_per_thread} registers" + (" (estimated)" if self.registers_source != "ptxas" else "")
        head = (f"  occupancy ({r.arch}): {r.occupancy * 100:.1f}% - {r.active_blocks_per_sm} blocks of "
                f"{r.threads_per_block} threads, {r.active_warps_per_sm} of {r.max_warps_per_sm} warps per SM; "
                f"limited by {_limiters_text(r.limiters)}; {regs}, "
                f"{r.smem_allocated_per_block} B shared memory allocated per block")
        if self.launch_source == "default":
            what = "an ASSUMED block" if self.partly_known else "the DEFAULT block"
            head += f" - for {what} of {r.threads_per_block} threads ({self.default_why})"
        lines = [head]
        lim = r.block_limits
        lines.append("    blocks per SM allowed by warps {} / registers {} / shared memory {} / block slots {}".format(
            *(("-" if lim.get(k) is None else str(lim.get(k)))
              for k in ("warps", "registers", "shared_memory", "blocks"))))
        if not r.can_launch:
            for e in r.launch_errors:
                lines.append(f"    CANNOT LAUNCH: {e}")
        for s in self.next_steps:
            lines.append(f"    next step: {s.message}")
        for n in r.notes:
            lines.append(f"    note: {n}")
        for a in self.assumptions:
            lines.append(f"    assumed: {a}")
        for so in self.other_sites:
            o = so.result
            lines.append(f"    launch at line {so.site.range.line} (block {'x'.join(map(str, so.site.block or ()))}): "
                         f"{o.occupancy * 100:.1f}%, {o.active_blocks_per_sm} blocks, limited by "
                         f"{_limiters_text(o.limiters)}" + ("" if o.can_launch else " - CANNOT LAUNCH"))
        return _Verbatim("\n".join(lines))


def _limiters_text(lims: list[str]) -> str:
    names = {"warps": "warps (threads per SM)", "registers": "registers", "shared_memory": "shared memory",
             "blocks": "block slots", "barriers": "block barriers"}
    return " and ".join(names.get(x, x) for x in lims) or "nothing"


# --------------------------------------------------------------------------- the estimate
# Fitted to the ground-truth kernels (see the module docstring and tests/test_resources.py).
EST_BASE = 5  # thread/block index registers, stack pointer, reserved registers
EST_ADDR = 2  # a 64-bit address
EST_LOOP_TEMPS_CAP = 16  # most load temporaries the unrolled copies of one loop keep in flight
EST_RUNTIME_UNROLL = 4  # nvcc's default unroll factor for loops with a run-time trip count
EST_MIN = 8  # ptxas never reports fewer on sm_50+ kernels that touch memory
EST_STORE_WEIGHT = 0.5  # stored words of the unrolled copies in flight, relative to loads
EST_LOOP_ADDR_WEIGHT = 0.0  # address words of the unrolled copies
EST_LARGE_ARRAY_WORDS = 240  # arrays classified local only for their size stay in registers up to this


@dataclass
class RegisterEstimate:
    registers: int
    peak_line: int  # the source line where the pressure peaks
    detail: dict
    assumptions: list[str]


def _words(t: ir.CType) -> int:
    if t is None:
        return 1
    if t.kind == "pointer":
        return 2
    if t.size is None:
        return 1
    return max(1, -(-t.size // 4))


class _Var:
    __slots__ = ("var", "words", "first", "last", "positions", "is_array")

    def __init__(self, var: ir.Variable, words: int, is_array: bool):
        self.var = var
        self.words = words
        self.first: Optional[int] = None
        self.last: Optional[int] = None
        self.positions: list[int] = []
        self.is_array = is_array

    def touch(self, pos: int) -> None:
        self.positions.append(pos)
        if self.first is None or pos < self.first:
            self.first = pos
        if self.last is None or pos > self.last:
            self.last = pos


@dataclass
class _LoopInfo:
    loop: ir.Loop
    start: int
    end: int = 0
    unroll: int = 1
    load_words: int = 0  # loads per iteration (this loop's body, nested loops excluded)
    store_words: int = 0
    addr_words: int = 0
    pointers: set = field(default_factory=set)  # pointer variables indexed with loop-variant indices
    induction: Optional[ir.Variable] = None
    full: bool = False


def _root_var(e: ir.Expr) -> Optional[ir.Variable]:
    while isinstance(e, (ir.Index, ir.Member, ir.Cast)):
        e = e.base if isinstance(e, (ir.Index, ir.Member)) else e.operand
    if isinstance(e, ir.VarRef):
        return e.var
    if isinstance(e, ir.BinOp) and e.op in ("+", "-"):  # (p + off)[i]
        return _root_var(e.lhs) or _root_var(e.rhs)
    return None


class _Estimator:
    def __init__(self, fn: ir.Function, register_arrays: set, local_arrays: set, depth: int = 0):
        self.fn = fn
        self.register_arrays = register_arrays
        self.local_arrays = local_arrays
        self.depth = depth
        self.pos = 0
        self.vars: dict[int, _Var] = {}
        self.loops: list[_LoopInfo] = []
        self.stmt_temps: dict[int, int] = {}  # position -> temporaries of the statement
        self.pos_line: dict[int, int] = {}
        self.call_extra: dict[int, int] = {}
        self.constants: set = set()  # counters of fully unrolled loops

    # ---------------------------------------------------------------- collection
    def _track(self, v: ir.Variable) -> Optional[_Var]:
        if v.file_scope or v.storage not in ("auto", "param") or id(v) in self.constants:
            return None
        tv = self.vars.get(id(v))
        if tv is None:
            if v.type.is_array:
                if id(v) in self.register_arrays:
                    words = max(1, (v.type.size or 4) // 4)
                else:
                    return None  # local memory: only its stack address
                tv = _Var(v, words, True)
            elif v.storage == "param":
                if not v.type.is_pointer:
                    return None  # scalar parameters are read from the constant bank
                tv = _Var(v, 0, False)  # pointers: an address only while in use (see loops)
            else:
                tv = _Var(v, 2 if v.is_reference else _words(v.type), False)
            self.vars[id(v)] = tv
        return tv

    def _new_pos(self, s: ir.Stmt) -> int:
        self.pos += 1
        self.pos_line[self.pos] = s.range.line
        return self.pos

    def _exprs_at(self, exprs: list, pos: int, loop_stack: list[_LoopInfo]) -> None:
        loads = 0  # words loaded by this statement
        stores = 0  # words stored
        addr = []  # address words of each memory access
        for e in exprs:
            if e is None:
                continue
            store_targets = set()
            for x in e.walk():
                if isinstance(x, ir.Assign) and x.op == "=":
                    t = x.target
                    while isinstance(t, ir.Member):
                        t = t.base
                    if isinstance(t, ir.Index):
                        store_targets.add(id(t))
            inner_index = set()
            for x in e.walk():
                if isinstance(x, ir.VarRef):
                    tv = self._track(x.var)
                    if tv is not None:
                        tv.touch(pos)
                elif isinstance(x, ir.Index) and id(x) not in inner_index:
                    node = x
                    while isinstance(node.base, ir.Index):
                        node = node.base
                        inner_index.add(id(node))
                    root = _root_var(x)
                    if root is not None and id(root) in self.register_arrays:
                        continue  # register operand, no memory access
                    w = _words(x.type)
                    space = "global"
                    if root is not None and (root.storage in ("shared", "extern_shared") or
                                             id(root) in self.local_arrays):
                        space = "onchip"  # shared or local: 32-bit addresses
                    addr.append(EST_ADDR if space == "global" else 1)
                    if id(x) in store_targets:
                        stores += w
                    else:
                        loads += w
                    if root is not None and loop_stack and space == "global" and not root.type.is_array:
                        # a pointer walked by a loop-variant index keeps a 64-bit address live
                        # for the whole loop (strength reduction)
                        idx_vars = {id(y.var) for n in _index_chain(x) for y in n.walk()
                                    if isinstance(y, ir.VarRef)}
                        if any(li.induction is not None and id(li.induction) in idx_vars for li in loop_stack):
                            loop_stack[-1].pointers.add(id(root))
                elif isinstance(x, ir.Call) and x.function is not None and x.function.body is not None \
                        and self.depth < 4 and x.function is not self.fn:
                    extra = _callee_pressure(x.function, self.depth + 1)
                    self.call_extra[pos] = max(self.call_extra.get(pos, 0), extra)
        # the statement's own temporaries: addresses of (at most two of) its accesses and the
        # values it loads
        addr.sort(reverse=True)
        self.stmt_temps[pos] = sum(addr[:2]) + loads
        if loop_stack:
            li = loop_stack[-1]
            li.load_words += loads
            li.store_words += stores
            li.addr_words += sum(addr)

    def visit(self, s: ir.Stmt, loop_stack: list[_LoopInfo]) -> None:
        if isinstance(s, ir.Block):
            for c in s.stmts:
                self.visit(c, loop_stack)
            return
        if isinstance(s, ir.Loop):
            ind = loops.induction(s)
            full = ind is not None and ind.trip_count is not None and loops.fully_unrolled(s, ind)
            if full:
                self.constants.add(id(ind.var))  # fully unrolled: the counter becomes constants
            for i in s.init:
                self.visit(i, loop_stack)
            li = _LoopInfo(s, self.pos + 1)
            li.induction = ind.var if ind is not None else None
            if full:
                li.full = True
                li.unroll = ind.trip_count
            elif s.unroll == 1:
                li.unroll = 1
            elif s.unroll and s.unroll > 1:
                li.unroll = s.unroll
            else:
                li.unroll = EST_RUNTIME_UNROLL
            self.loops.append(li)
            stack = loop_stack + [li]
            p = self._new_pos(s)
            self._exprs_at([s.cond], p, stack)
            self.visit(s.body, stack)
            p = self._new_pos(s)
            self._exprs_at([s.step], p, stack)
            li.end = self.pos
            return
        if isinstance(s, ir.DeclStmt):
            p = self._new_pos(s)
            tv = self._track(s.var)
            if tv is not None and s.init is not None:
                tv.touch(p)
            self._exprs_at([s.init], p, loop_stack)
            return
        p = self._new_pos(s)
        self._exprs_at(s.exprs(), p, loop_stack)
        for b in s.child_blocks():
            self.visit(b, loop_stack)

    # ---------------------------------------------------------------- pressure
    def run(self) -> tuple[int, int, dict]:
        if self.fn.body is not None:
            self.visit(self.fn.body, [])
        n = self.pos
        if n == 0:
            return 0, self.fn.range.line, {}
        d_live = [0] * (n + 3)
        d_arrays = [0] * (n + 3)
        for tv in self.vars.values():
            if tv.first is None or tv.words == 0:
                continue
            lo, hi = tv.first, tv.last
            for li in self.loops:
                if lo < li.start and any(li.start <= q <= li.end for q in tv.positions):
                    hi = max(hi, li.end)  # used in the loop, defined before it: live throughout
            d = d_arrays if tv.is_array else d_live
            d[lo] += tv.words
            d[hi + 1] -= tv.words
        live = [0] * (n + 2)
        arrays = [0] * (n + 2)
        run_l = run_a = 0
        for q in range(1, n + 1):
            run_l += d_live[q]
            run_a += d_arrays[q]
            live[q], arrays[q] = run_l, run_a
        loop_ptr = [0] * (n + 2)
        loop_tmp = [0] * (n + 2)
        for li in self.loops:
            ptr = EST_ADDR * len(li.pointers)
            per_iter = li.load_words + EST_STORE_WEIGHT * li.store_words + EST_LOOP_ADDR_WEIGHT * li.addr_words
            tmp = int(min(li.unroll * per_iter, EST_LOOP_TEMPS_CAP)) if li.unroll > 1 else 0
            for q in range(li.start, li.end + 1):
                loop_ptr[q] += ptr
                loop_tmp[q] = max(loop_tmp[q], tmp)
        best, best_pos, parts = -1, 1, {}
        for q in range(1, n + 1):
            total = live[q] + arrays[q] + loop_ptr[q] + loop_tmp[q] + self.stmt_temps.get(q, 0) + \
                self.call_extra.get(q, 0)
            if total > best:
                best, best_pos = total, q
                parts = {"scalars": live[q], "register_arrays": arrays[q], "loop_addresses": loop_ptr[q],
                         "loop_temporaries": loop_tmp[q], "statement_temporaries": self.stmt_temps.get(q, 0),
                         "callee": self.call_extra.get(q, 0)}
        return best, self.pos_line.get(best_pos, self.fn.range.line), parts


def _index_chain(x: ir.Index) -> list:
    out = []
    node = x
    while isinstance(node, ir.Index):
        out.append(node.index)
        node = node.base
    return out


def _array_classes(variables: list) -> tuple[set, set, list]:
    """(register arrays, local arrays, names of arrays placed in local memory only for their
    size that the estimate keeps in registers, as ptxas does when every index is constant)."""
    reg, local, promoted = set(), set(), []
    for v in variables:
        var = v.variable
        if var is None or not var.type.is_array or v.storage != "auto":
            continue
        if v.memory == "register":
            reg.add(id(var))
        elif v.memory == "local":
            words = (v.bytes or 0) // 4
            if v.forcing_access is None and "too large" in (v.reason or "") and words <= EST_LARGE_ARRAY_WORDS:
                reg.add(id(var))
                promoted.append(v.name)
            else:
                local.add(id(var))
    return reg, local, promoted


def _callee_pressure(fn: ir.Function, depth: int) -> int:
    from .memory import kernel_variables

    try:
        facts = kernel_variables(fn, None)
    except Exception:
        facts = []
    reg_arrays, local_arrays, _ = _array_classes(facts)
    peak, _, _ = _Estimator(fn, reg_arrays, local_arrays, depth).run()
    # the callee's parameters arrive in registers that the caller's arguments already occupy
    return max(0, peak - sum(_words(p.type) for p in fn.params))


def _parts_text(parts: dict) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in parts.items() if v)


def estimate_registers(kernel: ir.Function, variables: list, target=None,
                       compiler: bool = False) -> RegisterEstimate:
    """Registers per thread ptxas would allocate for ``kernel`` (an estimate, see the module
    docstring). ``variables`` are the kernel's :class:`~cudalint.analyzer.memory.VariableFact`.
    ``compiler``: a compiler ran on the file (the estimate is then no hint to install one)."""
    reg_arrays, local_arrays, promoted = _array_classes(variables)
    peak, line, parts = _Estimator(kernel, reg_arrays, local_arrays).run()
    regs = EST_BASE + max(peak, 0)
    if local_arrays:
        regs += 1  # the local-memory stack pointer
        parts["stack_pointer"] = 1
    regs = max(regs, EST_MIN)
    parts["base"] = EST_BASE
    assumptions = []
    for name in promoted:
        assumptions.append(f"array `{name}` has only constant indices: counted in registers for the "
                           "estimate (ptxas keeps such arrays in registers while they fit)")
    assumptions[:0] = [
        f"registers per thread ESTIMATED from the source ({regs}; no ptxas report): peak register "
        f"pressure at line {line} - {_parts_text(parts)}. "
        "The real count can differ by several registers" +
        ("" if compiler else "; install the CUDA toolkit (nvcc) for exact counts")]
    if target is not None and regs > target.max_registers_per_thread:
        assumptions.append(f"the estimate ({regs}) exceeds the {target.max_registers_per_thread}-register "
                           f"limit of {target.base_arch}: ptxas would spill the rest to local memory")
        regs = target.max_registers_per_thread
    return RegisterEstimate(regs, line, parts, assumptions)


def _widest_instantiation(rep, fn: ir.Function, assumptions: list[str]):
    """For a template kernel analysed generically: the compiled instantiation of it with the
    most registers (what the worst of its launches gets), with the range of all of them in
    ``assumptions``; or (None, why) when ptxas compiled none."""
    insts = sorted((f for f in rep.functions.values()
                    if f.is_entry and f.registers is not None and f.plain_name == fn.name),
                   key=lambda f: (f.registers, f.static_smem_bytes, f.demangled or f.name))
    if not insts:
        return None, (f"`{fn.display_name}` is a template and ptxas' report has no instantiation of "
                      "it (the file instantiates none that the compile could see)")
    widest = insts[-1]
    regs = sorted({f.registers for f in insts})
    smem = sorted({f.static_smem_bytes or 0 for f in insts})
    span = f"{regs[0]}-{regs[-1]}" if len(regs) > 1 else f"{regs[0]}"
    def shown(f) -> str:  # reduce4<float,128> (cu++filt's 128u, as the source spells it)
        return _norm_targs(_signature_head(f.demangled)) if f.demangled else f.name

    names = ", ".join(shown(f) for f in insts[:3])
    more = f" and {len(insts) - 3} more" if len(insts) > 3 else ""
    smem_txt = (f", {smem[0]}-{smem[-1]} B static shared memory" if len(smem) > 1 else "")
    assumptions.append(
        f"`{fn.display_name}` is a template analysed for no particular arguments; ptxas compiled "
        f"{len(insts)} instantiation{'s' if len(insts) > 1 else ''} of it ({names}{more}): {span} "
        f"registers per thread{smem_txt}; the figures below are those of the one with the most, "
        f"{shown(widest)}")
    return widest, None


def launch_bounds_register_cap(kernel: ir.Function, target) -> Optional[int]:
    """Largest register count that lets ``__launch_bounds__(T, B)`` hold B blocks (1 when B is
    absent) of T threads on one SM, as ptxas limits its allocation."""
    from .occupancy import compute_occupancy

    lb = kernel.launch_bounds
    if not lb or not lb[0]:
        return None
    threads = int(lb[0])
    blocks = int(lb[1]) if len(lb) > 1 and lb[1] else 1
    if threads > target.max_threads_per_block:
        return None
    lo, hi = 1, target.max_registers_per_thread
    if compute_occupancy(target, threads, lo).active_blocks_per_sm < blocks:
        return None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if compute_occupancy(target, threads, mid).active_blocks_per_sm >= blocks:
            lo = mid
        else:
            hi = mid - 1
    # ptxas allocates in whole registers but keeps counts the allocation unit rounds the same way
    return lo


# --------------------------------------------------------------------------- ptxas
def _ptxas_report(path: str, arch: str, include_dirs, defines, std: Optional[str] = None,
                  instantiations: tuple = ()):
    # a background job started by the engine before parsing, or compiled now
    from .ptxas_jobs import report

    return report(path, arch, list(include_dirs), list(defines), std, instantiations)


def _signature_head(dem: str) -> str:
    """``void scale<float, 256>(float*, int)`` -> ``scale<float,256>`` (return type, parameters,
    spaces dropped) for comparing with a kernel's display name."""
    from .registers import without_parameters

    head = without_parameters(dem)
    # drop a return type: the last top-level space separates it
    depth = 0
    last_space = -1
    for i, ch in enumerate(head):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == " " and depth == 0:
            last_space = i
    head = head[last_space + 1:]
    return head.split("::")[-1].replace(" ", "") if "<" not in head.split("::")[-1] else \
        _last_component(head).replace(" ", "")


def _last_component(name: str) -> str:
    depth = 0
    start = 0
    i = 0
    while i < len(name):
        ch = name[i]
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == ":" and depth == 0 and name[i:i + 2] == "::":
            start = i + 2
            i += 1
        i += 1
    return name[start:]


def _norm_targs(s: str) -> str:
    import re

    s = s.replace(" ", "")
    # cu++filt prints unsigned literals as 256u and casts as (char)65; clang prints 256 / 'A'
    s = re.sub(r"(\d+)(?:u|l|ul|ll|ull)\b", r"\1", s, flags=re.I)
    s = re.sub(r"\((?:unsigned|int|long|short|char|bool)[a-z ]*\)", "", s)
    return s


def match_ptxas_kernel(report, fn: ir.Function):
    """The :class:`KernelResources` of ``fn`` in a ptxas report, or None."""
    if report is None or not report.ok:
        return None
    if fn.mangled_name and fn.mangled_name in report.functions:
        return report.functions[fn.mangled_name]
    entries = [f for f in report.functions.values() if f.is_entry]
    want = _norm_targs(fn.display_name)
    by_sig = [f for f in entries if f.demangled and _norm_targs(_signature_head(f.demangled)) == want]
    if len(by_sig) == 1:
        return by_sig[0]
    if fn.template_bindings:
        return None  # an instantiation with no exact match: do not guess another one's registers
    by_name = [f for f in entries if f.plain_name == fn.name]
    if len(by_name) == 1:
        return by_name[0]
    return None


# --------------------------------------------------------------------------- provider
def _static_smem_from_source(variables: list) -> int:
    return sum(v.bytes or 0 for v in variables if v.memory == "shared" and v.storage == "shared")


def _local_from_source(variables: list) -> int:
    return sum(v.bytes or 0 for v in variables if v.memory == "local" and v.storage == "auto")


def kernel_resources(fn: ir.Function, variables: list, tu: Optional[ir.TranslationUnit], target,
                     opts) -> ResourceFacts:
    """Registers (ptxas when it can compile the file, else the estimate), shared and local
    memory of one kernel. ``opts`` supplies the compile flags (include dirs, defines, std)."""
    arch = target.arch
    assumptions: list[str] = []
    notes: list[str] = []
    use_ptxas = bool(getattr(opts, "use_ptxas", True)) and not os.environ.get("CUDALINT_NO_PTXAS")
    compiled = False  # a compiler ran on the file (so "install nvcc" is no advice)
    unbound = bool(fn.template_params) and not fn.template_bindings
    why_no_ptxas: Optional[str] = None
    kr = None
    if not use_ptxas:
        why_no_ptxas = "ptxas disabled"
    elif getattr(opts, "frontend", "clang") == "pycparser":
        why_no_ptxas = "plain-C frontend: the file is not compiled with nvcc"
    else:
        path = (tu.path if tu is not None and tu.path else fn.range.file) or ""
        rep = _ptxas_report(path, arch, list(getattr(opts, "include_dirs", []) or []),
                            list(getattr(opts, "defines", []) or []), getattr(opts, "std", None))
        compiled = rep is not None and rep.ok
        if rep is None:
            why_no_ptxas = f"cannot read {path}"
        elif not rep.ok:
            why_no_ptxas = rep.reason or "ptxas failed"
        elif unbound:
            # Analysed generically (its template arguments unknown); ptxas compiled only the
            # instantiations the file makes, each with its own count.
            kr, why_no_ptxas = _widest_instantiation(rep, fn, assumptions)
        else:
            kr = match_ptxas_kernel(rep, fn)
            if kr is None and fn.template_bindings and rep.mode == "device code only" and tu is not None:
                # an instantiation whose arguments the lexical split cannot resolve (a host
                # local constant, say): name every instantiation clang found
                insts = tuple(sorted({k.display_name for k in tu.kernels if k.template_bindings}))
                rep2 = _ptxas_report(path, arch, list(getattr(opts, "include_dirs", []) or []),
                                     list(getattr(opts, "defines", []) or []), getattr(opts, "std", None),
                                     instantiations=insts)
                if rep2 is not None and rep2.ok:
                    rep, kr = rep2, match_ptxas_kernel(rep2, fn)
            if kr is None or kr.registers is None:
                why_no_ptxas = f"ptxas' report has no entry for `{fn.display_name}`"
                kr = None
            elif getattr(rep, "host_error", None):
                notes.append(f"registers from ptxas on the file's device code alone; the whole file "
                             f"does not compile ({rep.host_error})")

    if kr is not None:
        return ResourceFacts(
            kernel=fn.display_name, arch=arch, registers=int(kr.registers), registers_source="ptxas",
            static_smem_bytes=int(kr.static_smem_bytes or 0),
            local_bytes=int(kr.stack_frame_bytes or 0) + int(kr.spill_store_bytes or 0) + int(kr.local_bytes or 0),
            spill_bytes=int(kr.spill_bytes), stack_frame_bytes=int(kr.stack_frame_bytes or 0),
            spill_store_bytes=int(kr.spill_store_bytes or 0), spill_load_bytes=int(kr.spill_load_bytes or 0),
            barriers=kr.barriers, static_smem_source="ptxas", ptxas_name=kr.name,
            assumptions=assumptions, notes=notes)

    try:
        est = estimate_registers(fn, variables, target, compiler=use_ptxas and compiled)
    except Exception as e:  # an IR shape the estimate does not know must not stop the analysis
        est = RegisterEstimate(0, fn.range.line, {}, [
            f"registers per thread unknown: no ptxas report and the estimate failed "
            f"({type(e).__name__}: {e}); the register limit is not applied"])
    regs = est.registers
    cap = launch_bounds_register_cap(fn, target)
    assumptions.extend(est.assumptions)
    if why_no_ptxas:
        assumptions.append(f"no ptxas register count: {why_no_ptxas}")
    if cap is not None and regs > cap:
        lb = fn.launch_bounds
        notes.append(f"__launch_bounds__({', '.join(str(x) for x in lb if x)}) caps registers at {cap} "
                     f"per thread; ptxas would spill the other {regs - cap}")
        regs = cap
    static = _static_smem_from_source(variables)
    _, _, promoted = _array_classes(variables)
    local = _local_from_source([v for v in variables if v.name not in promoted])
    unknown = [v.name for v in variables if v.memory == "shared" and v.storage == "shared" and v.bytes is None]
    if unknown:
        assumptions.append(f"size of __shared__ {', '.join(unknown)} unknown; counted as 0 bytes")
    barriers = 1 if any(isinstance(s, ir.Barrier) and s.scope == "block" for s in fn.statements()) else 0
    return ResourceFacts(
        kernel=fn.display_name, arch=arch, registers=regs,
        registers_source="estimate" if est.detail or regs else "unknown",
        static_smem_bytes=static, local_bytes=local, spill_bytes=0, stack_frame_bytes=local,
        barriers=barriers, static_smem_source="source", register_cap=cap,
        estimate_detail={"peak_line": est.peak_line, **est.detail}, assumptions=assumptions, notes=notes)


def kernel_launch_sites(fn: ir.Function, tu: Optional[ir.TranslationUnit]) -> list[ir.LaunchSite]:
    """The launch sites of this kernel (instantiation) in the file."""
    if tu is None:
        return []
    from .launch import site_matches

    return [s for s in tu.launches if site_matches(s, fn)]


def kernel_occupancy(fn: ir.Function, lc, tu: Optional[ir.TranslationUnit], res: ResourceFacts,
                     target) -> KernelOccupancy:
    """Occupancy of the kernel for its launch ``lc`` (and every other launch site's shape)."""
    from .occupancy import compute_occupancy, next_step

    threads = lc.threads_per_block
    dyn = lc.dynamic_smem or 0
    assumptions: list[str] = []
    if lc.dynamic_smem is None:
        assumptions.append("dynamic shared memory unknown; assumed 0 bytes")
    if lc.source == "default":
        shape = "x".join(map(str, lc.block))
        what = (f"the assumed block {shape}" if partly_known(lc) is not None or _noargs(lc) else
                f"the default block of {threads} threads")
        assumptions.append(f"{default_reason(lc)}: occupancy is for {what}; "
                           "pass --block" + ("" if lc.site is not None else " or launch the kernel in this file"))
    result = compute_occupancy(target, threads, res.registers, res.static_smem_bytes, dyn)
    steps = []
    if result.can_launch:
        try:
            steps = next_step(target, threads, res.registers, res.static_smem_bytes + dyn).steps
        except Exception:  # the next-step search is advice; never let it break the analysis
            steps = []
    others: list[SiteOccupancy] = []
    if lc.source == "launch-site":
        seen = {(lc.block, lc.dynamic_smem)}
        for s in kernel_launch_sites(fn, tu):
            if s.block is None or s is lc.site:
                continue
            key = (s.block, s.dynamic_smem)
            if key in seen:
                continue
            seen.add(key)
            t = s.block[0] * s.block[1] * s.block[2]
            others.append(SiteOccupancy(s, compute_occupancy(target, t, res.registers, res.static_smem_bytes,
                                                             s.dynamic_smem or 0)))
    return KernelOccupancy(result, lc.source, res.registers_source, steps, others, assumptions,
                           default_reason(lc), partly_known(lc) is not None or _noargs(lc))


def _noargs(lc) -> bool:
    """The launch's block is the one it has when the program runs without arguments."""
    site = lc.site
    return site is not None and site.block is None and site.noargs_block is not None and \
        tuple(lc.block) == site.noargs_block
