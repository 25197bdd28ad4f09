"""Floating-point operations and global memory accesses of a kernel, symbolic in trip counts.

The CGMA ratio of seed section 5.1 is "the number of floating-point calculations performed for
each access to the global memory within a region of a CUDA program". This module counts both
sides for one thread, from the IR, as sympy expressions in the loop trip counts.

Floating-point operations (``flops``)
-------------------------------------
Counted where the operation's type is floating point (``float``, ``double``, ``__half``, the
float/double vector types, one per lane); integer arithmetic (index computation) never counts.

==========================================  =====  ================================================
operation                                   flops  note
==========================================  =====  ================================================
``a + b``, ``a - b``, ``a * b``, ``a / b``  1      a division counts 1, as in the seed's examples
``a * b + c`` (written out)                 2      the multiply and the add: one FMA = 2 flops
``x += e``, ``-=``, ``*=``, ``/=``          1      plus the flops of ``e``
``x++``, ``--x`` on a floating variable     1
unary ``-``, comparisons, casts             0      a sign flip is an operand modifier; compares
                                                   and conversions are not floating arithmetic
``FLOP_TABLE`` calls                        table  see below; a call of a ``__device__`` function
                                                   counts the flops (and accesses) of its body
any other call                              0      listed in the assumptions
==========================================  =====  ================================================

``FLOP_TABLE`` (math functions and intrinsics, per call):

- 2: fused multiply-add -- ``fmaf``, ``fma``, ``__fmaf_rn``/``_rz``/``_ru``/``_rd``,
  ``__fma_rn``/``_rz``/``_ru``/``_rd``, ``__fmaf_ieee_*``, ``__hfma``; 4 for ``__hfma2``.
- 1: rounded arithmetic intrinsics -- ``__fadd_rn``, ``__fsub_rn``, ``__fmul_rn``,
  ``__fdiv_rn``, ``__fdividef``, ``__frcp_rn``, ``__dadd_rn``, ``__dmul_rn``, ``__ddiv_rn``,
  ``__drcp_rn`` (all rounding modes), ``__hadd``, ``__hsub``, ``__hmul``, ``__hdiv``; 2 for
  their ``half2`` forms.
- 1: square roots and transcendental functions, one operation per call whatever the
  instruction sequence the library uses -- ``sqrt(f)``, ``rsqrt(f)``, ``cbrt(f)``, ``rcbrt(f)``,
  ``exp``/``exp2``/``exp10``/``expm1``, ``log``/``log2``/``log10``/``log1p``, ``sin``, ``cos``,
  ``tan``, ``asin``, ``acos``, ``atan``, ``atan2``, ``sinh``, ``cosh``, ``tanh``, ``pow``,
  ``hypot``, ``erf``, ``erfc``, ``sinpi``, ``cospi`` (float and double forms) and the fast
  intrinsics ``__expf``, ``__exp10f``, ``__logf``, ``__log2f``, ``__log10f``, ``__sinf``,
  ``__cosf``, ``__tanf``, ``__powf``, ``__fsqrt_rn``, ``__frsqrt_rn``, ``__dsqrt_rn``; 2 for
  ``sincos``/``sincosf``/``__sincosf``/``sincospi(f)``.
- 0: ``fabs(f)``, ``fmin(f)``, ``fmax(f)``, ``min``, ``max``, ``copysign(f)``, ``floor(f)``,
  ``ceil(f)``, ``trunc(f)``, ``round(f)``, ``rint(f)``, ``__saturatef``: modifiers, min/max and
  rounding are not floating-point arithmetic (Nsight Compute's flop counters do not count them).

Global memory accesses (``loads``, ``stores``)
----------------------------------------------
An access is a read or write through a pointer to global memory or of a ``__device__`` /
``__managed__`` variable. Pointer parameters of the kernel point to global memory, and so does
any local pointer derived from one (``const float* src = in + off;``) or from a global
variable; a pointer to shared memory does not. ``a[i]`` read is 1 load, ``a[i] = x`` 1 store,
``a[i] += x`` and ``a[i]++`` 1 load + 1 store; ``&a[i]`` is no access. ``__ldg(p)`` and the
other ``__ld*`` cache-hint loads are 1 load; ``atomic*(p, ...)`` on a global address is 1
*atomic* access (a read-modify-write done in L2; counted in ``global_accesses``, not in the
loads). An asynchronous copy from global to shared memory issued by one thread
(``cuda::memcpy_async(dst, src, size, barrier)``, ``__pipeline_memcpy_async(dst, src, size)``:
``cp.async``) is 1 load of ``size`` bytes from ``src``; the group-wide forms (a thread group
first: the group splits the bytes among its threads) are not counted. A vector element (``float4``) read in one instruction is 1 access of 16 bytes, so the
word size used by the roofline comes from the accessed type. Texture fetches and surface reads
are loads, surface writes stores (``texture_counts``: a filtered fetch reads its 2, 4 or 8
texels, a ``float4`` fetch is one access).

Control flow and trip counts
----------------------------
- A loop's body is counted once per iteration, times its trip count; the condition and the
  step are counted with the body. Counted ``for`` loops (``for (i = s; i < b; i += c)``, also
  ``<=``, ``>``, ``>=``, ``!=``, decrements and ``i = i + c``) have trip ``(b - s) / c``: a
  number (rounded up as C does) when the bounds are constants, else an expression in kernel
  parameters such as ``n/16`` for ``t < n / TILE``. Integer division in a symbolic trip count
  is taken as exact. A bound the analysis cannot express becomes a symbol named after it (a
  local variable's name) or ``trips(<counter>)`` / ``trips(line <line>)`` for loops that are
  not counted loops.
- ``threadIdx``/``blockIdx`` in a loop bound take thread 0 of block 0's value (assumption
  noted): ``for (m = threadIdx.x; m < 10240; m += 256)`` runs 40 times. ``blockDim`` is the
  launch's block; ``gridDim`` the launch's grid, or a symbol when unknown.
- ``if`` without ``else`` is counted as taken (bounds checks guard the real work); with an
  ``else``, the branch with more work is counted (assumption noted). ``?:`` likewise.
- ``return``/``break``/``continue`` are ignored (loops run their full trip count).
- Values of kernel parameters bind the symbols when known: ``--param NAME=VALUE`` first, then
  constants passed at the launch site (see :func:`count_kernel`).
"""
from __future__ import annotations

import re
from typing import Optional

import sympy as sp

from . import constprop, ir
from .flop_counts import (Counts, GlobalAccess, KernelCounts, LoopCount, Num, probe, scaled,
                          to_number)
from .loops import loop_header, strip_casts
from .source_text import source_lines
from .texture_calls import texture_call
from .texture_counts import texture_counts
from .trip_counts import CountSymbols, Definitions, SymConv, loop_trip

__all__ = [
    "FLOP_TABLE",
    "GLOBAL_LOAD_CALLS",
    "Counts",
    "GlobalAccess",
    "LoopCount",
    "KernelCounts",
    "count_kernel",
    "count_function",
    "expr_flops",
    "expr_counts",
    "to_number",
    "probe",
]

# --------------------------------------------------------------------------- the table


def _table() -> dict[str, int]:
    t: dict[str, int] = {}

    def put(n: int, *names: str) -> None:
        for name in names:
            t[name] = n

    modes = ("rn", "rz", "ru", "rd")
    # fused multiply-add: 2
    put(2, "fmaf", "fma", "fmal", "__hfma", "__hfma_relu", "__hfma_sat")
    put(2, *(f"__fmaf_{m}" for m in modes), *(f"__fma_{m}" for m in modes),
        *(f"__fmaf_ieee_{m}" for m in modes))
    put(4, "__hfma2", "__hfma2_relu", "__hfma2_sat")
    # rounded arithmetic intrinsics: 1
    for op in ("add", "sub", "mul", "div", "rcp"):
        put(1, *(f"__f{op}_{m}" for m in modes), *(f"__d{op}_{m}" for m in modes))
    put(1, "__fdividef", "__hadd", "__hsub", "__hmul", "__hdiv", "__hadd_sat", "__hsub_sat",
        "__hmul_sat", "__hadd_rn", "__hsub_rn", "__hmul_rn")
    put(2, "__hadd2", "__hsub2", "__hmul2", "__h2div", "__hadd2_sat", "__hsub2_sat", "__hmul2_sat")
    # square roots and transcendental functions: 1 per call
    base = ("sqrt", "rsqrt", "cbrt", "rcbrt", "exp", "exp2", "exp10", "expm1", "log", "log2",
            "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
            "tanh", "asinh", "acosh", "atanh", "pow", "hypot", "erf", "erfc", "erfinv", "erfcinv",
            "sinpi", "cospi", "tgamma", "lgamma", "normcdf", "normcdfinv", "j0", "j1", "y0", "y1")
    put(1, *base, *(b + "f" for b in base))
    put(1, "__expf", "__exp10f", "__logf", "__log2f", "__log10f", "__sinf", "__cosf", "__tanf",
        "__powf", "__frsqrt_rn", "hsqrt", "hrsqrt", "hexp", "hlog", "hsin", "hcos", "hrcp",
        "std::sqrt", "std::exp", "std::log", "std::sin", "std::cos", "std::pow", "std::tanh")
    put(1, *(f"__fsqrt_{m}" for m in modes), *(f"__dsqrt_{m}" for m in modes))
    put(2, "sincos", "sincosf", "__sincosf", "sincospi", "sincospif")
    # not floating-point arithmetic: 0
    put(0, "fabs", "fabsf", "fmin", "fminf", "fmax", "fmaxf", "min", "max", "std::min",
        "std::max", "copysign", "copysignf", "floor", "floorf", "ceil", "ceilf", "trunc", "truncf",
        "round", "roundf", "rint", "rintf", "nearbyint", "nearbyintf", "__saturatef", "abs",
        "std::abs", "std::fabs", "__habs", "__hmin", "__hmax", "__hneg")
    return t


#: Flops per call of a math function or intrinsic (see the module docstring).
FLOP_TABLE: dict[str, int] = _table()

#: Calls that read global memory through their pointer argument (one load each).
GLOBAL_LOAD_CALLS = frozenset({"__ldg", "__ldca", "__ldcg", "__ldcs", "__ldlu", "__ldcv"})
# One thread's asynchronous global -> shared copy (dst, src, size, ...): a load of size bytes
ASYNC_COPY_CALLS = frozenset({"memcpy_async", "__pipeline_memcpy_async"})


def _copy_bytes(e: ir.Expr) -> Optional[int]:
    """The byte count of an asynchronous copy: a constant, ``sizeof(T)``, or
    ``cuda::aligned_size_t<N>(bytes)``; None when not a compile-time number."""
    e = strip_casts(e)
    if isinstance(e, ir.Call) and e.callee and e.callee.split("::")[-1] == "aligned_size_t" and e.args:
        e = strip_casts(e.args[0])
    if isinstance(e, ir.SizeOf):
        return e.value
    v = constprop.evaluate(e, {})
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None

_FLOAT_OPS = ("+", "-", "*", "/")
_CALLEE_RE = re.compile(r"\s*((?:std::)?[A-Za-z_]\w*)\s*\(")
_COMPOUND = ("+=", "-=", "*=", "/=")


def _lanes(t: ir.CType) -> int:
    return max(t.lanes, 1) if t.kind == "vector" else 1


def _is_fp(t: ir.CType) -> bool:
    return bool(t.is_float) and t.kind in ("scalar", "vector", "record")


def _is_fp64(t: ir.CType) -> bool:
    s = t.spelling.replace("const ", "").replace("volatile ", "").strip()
    return s.startswith("double") or s == "long double"




# --------------------------------------------------------------------------- the walk


def _constant_root(e: ir.Expr) -> Optional[ir.Variable]:
    """The ``__constant__`` variable whose own storage the value ``e`` is read from (``c``,
    ``c.f``, ``c[i]``, ``c[i].f``), or None (a value read through a pointer, or no constant)."""
    e = strip_casts(e)
    while isinstance(e, (ir.Index, ir.Member)):
        if isinstance(e, ir.Member):
            if e.arrow:
                return None
        elif not strip_casts(e.base).type.is_array:
            return None
        e = strip_casts(e.base)
    if isinstance(e, ir.VarRef) and e.var.storage == "constant":
        return e.var
    return None


class _Walker:
    def __init__(self, fn: ir.Function, syms: CountSymbols, global_params: Optional[set] = None,
                 depth_offset: int = 0, call_stack: tuple = (), cache: Optional[dict] = None,
                 texels: Optional[dict] = None, kept: frozenset = frozenset()):
        self.fn = fn
        self.texels = texels if texels is not None else {}  # id(fetch call) -> (texels, note)
        self.kept = kept  # ids of loads the compiler keeps in a register: no access (see count_function)
        self.syms = syms
        self.defs = Definitions(fn)
        self.conv = SymConv(syms, self.defs, {p.name for p in fn.params}, fn.template_bindings)
        self.call_stack = call_stack + (fn,)
        self.cache = cache if cache is not None else {}
        self.loops: list[LoopCount] = []
        self.accesses: list[GlobalAccess] = []
        self.uncounted: list[str] = []
        self.depth_offset = depth_offset
        self.global_vars = self._global_pointers(global_params)

    # ---- which variables point to (or are) global memory
    def _global_pointers(self, global_params: Optional[set]) -> set:
        g: set = set()
        for p in self.fn.params:
            if global_params is None:
                if p.type.is_pointer or (p.type.kind == "record" and self.fn.is_kernel):
                    g.add(p)
            elif p in global_params:
                g.add(p)
        for v in self.fn.globals_used:
            if v.storage in ("device", "managed"):
                g.add(v)
        # Local pointers derived from global pointers (fixpoint over their definitions).
        changed = True
        while changed:
            changed = False
            for v, defs in self.defs.defs.items():
                if v in g or v.file_scope or not v.type.is_pointer:
                    continue
                if any(d is not None and self._is_global_ptr(d, g) for d in defs):
                    g.add(v)
                    changed = True
        return g

    def _is_global_ptr(self, e: ir.Expr, g: Optional[set] = None) -> bool:
        """Whether ``e`` evaluates to an address in global memory."""
        g = self.global_vars if g is None else g
        e = strip_casts(e)
        if isinstance(e, ir.VarRef):
            return (e.var in g and (e.var.type.is_pointer or e.var.type.is_array)) or \
                (e.var.storage == "constant" and e.var.type.is_pointer)
        if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
            return self._is_global_ptr(e.lhs, g) or (e.op == "+" and self._is_global_ptr(e.rhs, g))
        if isinstance(e, ir.UnaryOp) and e.op == "&":
            return self._root_global(e.operand, g) is not None
        if isinstance(e, ir.Ternary):
            return self._is_global_ptr(e.then, g) or self._is_global_ptr(e.otherwise, g)
        if e.type.is_pointer and _constant_root(e) is not None:
            # a device pointer kept in __constant__ memory (a pointer variable, a pointer member
            # or element of a __constant__ struct or array): it points to global memory
            return True
        if isinstance(e, ir.Member) and e.type.is_pointer:
            root = self._member_root(e)
            return root is not None and root in g
        if isinstance(e, ir.Index) and (e.type.is_pointer or e.type.is_array):
            # a[i] of a 2-D global array is a row (array); p[i] of a global float** is a pointer
            # loaded from global memory, assumed to point to global memory too.
            return self._root_global(e, g) is not None
        if isinstance(e, ir.Assign) and e.op == "=":
            return self._is_global_ptr(e.value, g)
        return False

    def _member_root(self, e: ir.Expr) -> Optional[ir.Variable]:
        while isinstance(e, (ir.Member, ir.Cast)):
            e = e.base if isinstance(e, ir.Member) else e.operand
        return e.var if isinstance(e, ir.VarRef) else None

    def _root_global(self, e: ir.Expr, g: Optional[set] = None) -> Optional[ir.Variable]:
        """For an lvalue expression: the global variable (or pointer) it accesses, or None."""
        g = self.global_vars if g is None else g
        e = strip_casts(e)
        if isinstance(e, ir.Index):
            base = strip_casts(e.base)
            if base.type.is_array and isinstance(base, (ir.Index, ir.Member, ir.UnaryOp)):
                return self._root_global(base, g)
            return self._base_var(base) if self._is_global_ptr(base, g) else None
        if isinstance(e, ir.UnaryOp) and e.op == "*":
            return self._base_var(e.operand) if self._is_global_ptr(e.operand, g) else None
        if isinstance(e, ir.Member):
            if e.arrow:
                return self._base_var(e.base) if self._is_global_ptr(e.base, g) else None
            return self._root_global(e.base, g)
        if isinstance(e, ir.VarRef) and e.var in g and e.var.file_scope:
            return e.var
        return None

    def _base_var(self, e: ir.Expr) -> Optional[ir.Variable]:
        e = strip_casts(e)
        while True:
            if isinstance(e, ir.VarRef):
                return e.var
            if isinstance(e, ir.BinOp):
                e = strip_casts(e.lhs if self._is_global_ptr(e.lhs) else e.rhs)
            elif isinstance(e, (ir.Index, ir.Member)):
                e = strip_casts(e.base)
            elif isinstance(e, ir.UnaryOp):
                e = strip_casts(e.operand)
            elif isinstance(e, ir.Ternary):
                e = strip_casts(e.then)
            else:
                return None

    # ---- statements
    def run(self) -> Counts:
        if self.fn.body is None:
            return Counts()
        return self.block(self.fn.body, ())

    def block(self, b: ir.Block, stack: tuple) -> Counts:
        total = Counts()
        for s in b.stmts:
            total = total + self.stmt(s, stack)
        return total

    def stmt(self, s: ir.Stmt, stack: tuple) -> Counts:
        if isinstance(s, ir.Block):
            return self.block(s, stack)
        if isinstance(s, ir.DeclStmt):
            return self.expr(s.init, stack) if s.init is not None else Counts()
        if isinstance(s, ir.ExprStmt):
            return self.expr(s.expr, stack)
        if isinstance(s, ir.If):
            c = self.expr(s.cond, stack)
            if s.otherwise is None:
                return c + self.block(s.then, stack)
            return c + self._heavier(lambda st: self.block(s.then, st), lambda st: self.block(s.otherwise, st),
                                     stack, f"if/else at line {s.range.line}")
        if isinstance(s, ir.Loop):
            return self.loop(s, stack)
        if isinstance(s, ir.Switch):
            self.syms.note(f"switch at line {s.range.line}: every case counted once")
            return self.expr(s.cond, stack) + self.block(s.body, stack)
        if isinstance(s, (ir.Return, ir.Barrier, ir.OtherStmt, ir.Case)):
            out = Counts()
            for e in s.exprs():
                out = out + self.expr(e, stack)
            return out
        return Counts()

    def _heavier(self, a, b, stack, what: str) -> Counts:
        na, nb = len(self.accesses), len(self.loops)
        ca = a(stack)
        acc_a, loops_a = self.accesses[na:], self.loops[nb:]
        del self.accesses[na:]
        del self.loops[nb:]
        cb = b(stack)
        acc_b, loops_b = self.accesses[na:], self.loops[nb:]
        del self.accesses[na:]
        del self.loops[nb:]
        if ca.is_empty() and cb.is_empty():
            self.accesses.extend(acc_a + acc_b)
            self.loops.extend(loops_a + loops_b)
            return ca
        if cb.weight() > ca.weight():
            self.syms.note(f"{what}: the second branch (more work) is counted")
            self.accesses.extend(acc_b)
            self.loops.extend(loops_b)
            return cb
        if not cb.is_empty():
            self.syms.note(f"{what}: the first branch (more work) is counted")
        self.accesses.extend(acc_a)
        self.loops.extend(loops_a)
        return ca

    def loop(self, lp: ir.Loop, stack: tuple) -> Counts:
        init = Counts()
        for s in lp.init:
            init = init + self.stmt(s, stack)
        trip, how, var = loop_trip(lp, self.conv)
        inner = stack + ((lp, trip),)
        pos = len(self.loops)
        body = self.block(lp.body, inner)
        for e in (lp.cond, lp.step):
            if e is not None:
                body = body + self.expr(e, inner)
        depth = self.depth_offset + len(stack)
        self.loops.insert(pos, LoopCount(lp, depth, trip, how, body, self.fn.display_name, var))
        return init + self._over_iterations(lp, body, trip, var)

    def _over_iterations(self, lp: ir.Loop, body: Counts, trip: Num, var: Optional[str]) -> Counts:
        """The body's counts over all iterations: ``trip`` times the body, except when the
        body's counts mention this loop's own induction variable (a triangular inner loop,
        ``for (i = n + 1; i < N; i++)`` inside ``for (n = 0; n < M; n++)``): then the sum over
        the iterations, with the variable stepping from its start by its step."""
        s = self.syms.table.get(var) if var else None
        fields = (body.flops, body.flops_fp64, body.loads, body.stores, body.atomics,
                  body.load_bytes, body.store_bytes)
        if s is None or not any(isinstance(x, sp.Basic) and s in x.free_symbols for x in fields):
            return body.scaled(trip)
        ind = loop_header(lp)
        start = self.conv(ind.start) if ind is not None and ind.start is not None else None
        step = sp.Integer(1) if ind is not None and ind.step is None else \
            (self.conv(ind.step) if ind is not None else None)
        if start is None or step is None or s in start.free_symbols or not isinstance(trip, (int, sp.Basic)):
            return body.scaled(trip)
        k = sp.Dummy("k", integer=True, nonnegative=True)
        at = start + ind.sign * step * k

        def total(x: Num) -> Num:
            if not (isinstance(x, sp.Basic) and s in x.free_symbols):
                return scaled(trip, x)
            r = sp.expand(sp.summation(x.subs(s, at), (k, 0, trip - 1)))
            n = to_number(r)
            return n if n is not None else r

        return Counts(*(total(x) for x in fields))

    # ---- expressions
    def expr(self, e: Optional[ir.Expr], stack: tuple, mode: str = "r",
             size: Optional[int] = None) -> Counts:
        """Counts of evaluating ``e``. ``mode`` says what happens to the memory ``e`` names
        when it is an lvalue: r (read), w (written), rw (read and written: ``+=``, ``++``) or
        addr (only its address is taken: ``&a[i]``, or the array row ``a[i]`` of ``a[i][j]``).
        ``size`` overrides the access size (``in[i].x`` reads 4 bytes of a float2)."""
        if e is None:
            return Counts()
        if isinstance(e, ir.Cast):
            return self.expr(e.operand, stack, mode, size)
        if isinstance(e, ir.Assign):
            if e.op == "=":
                return self.expr(e.target, stack, "w") + self.expr(e.value, stack)
            out = self.expr(e.target, stack, "rw") + self.expr(e.value, stack)
            if e.op in _COMPOUND and _is_fp(e.type):
                out = out + self._flop(_lanes(e.type), e.type)
            elif e.op in _COMPOUND and e.type.kind == "unknown":
                self._untyped(e)
            return out
        if isinstance(e, ir.UnaryOp):
            if e.op in ("pre++", "pre--", "post++", "post--"):
                out = self.expr(e.operand, stack, "rw")
                if _is_fp(e.type):
                    out = out + self._flop(_lanes(e.type), e.type)
                return out
            if e.op == "&":
                return self.expr(e.operand, stack, "addr")
            if e.op == "*":
                return self.expr(e.operand, stack) + self._access(e, stack, mode, size)
            return self.expr(e.operand, stack)
        if isinstance(e, ir.Index):
            out = self.expr(e.index, stack)
            base = strip_casts(e.base)
            # The row a[i] of a 2-D array is an address, not an access; a pointer stored in
            # memory (p[i] of a float**) is read.
            out = out + self.expr(base, stack, "addr" if base.type.is_array else "r")
            return out + self._access(e, stack, mode, size)
        if isinstance(e, ir.Member):
            base = strip_casts(e.base)
            if e.arrow:
                out = self.expr(base, stack)
                if e.type.is_array:  # p->arr: the address of an array member
                    return out
                return out + self._access(e, stack, mode, size)
            if e.type.is_array:
                return self.expr(base, stack, "addr")
            # s.x: through the struct; a global one (in[i].x) is one access of the member's size
            return self.expr(base, stack, mode, size if size is not None else e.type.size)
        if isinstance(e, ir.VarRef):
            v = e.var
            if v.file_scope and v in self.global_vars and not v.type.is_array:
                return self._access(e, stack, mode, size)
            return Counts()
        if isinstance(e, ir.BinOp):
            out = self.expr(e.lhs, stack) + self.expr(e.rhs, stack)
            if e.op in _FLOAT_OPS and _is_fp(e.type):
                out = out + self._flop(_lanes(e.type), e.type)
            elif e.op in _FLOAT_OPS and e.type.kind == "unknown":
                self._untyped(e)
            return out
        if isinstance(e, ir.Ternary):
            c = self.expr(e.cond, stack)
            return c + self._heavier(lambda st: self.expr(e.then, st), lambda st: self.expr(e.otherwise, st),
                                     stack, f"?: at line {e.range.line}")
        if isinstance(e, ir.Call):
            return self.call(e, stack)
        out = Counts()
        for ch in e.children():
            out = out + self.expr(ch, stack)
        return out

    def _untyped(self, e: ir.Expr) -> None:
        self.syms.note("arithmetic on types the analysis cannot resolve (template parameters of "
                       "a kernel template with no instantiation in the file) is not counted, "
                       f"e.g. at line {e.range.line}")

    def _flop(self, n: int, t: ir.CType) -> Counts:
        return Counts(flops=n, flops_fp64=n if _is_fp64(t) else 0)

    def _access(self, e: ir.Expr, stack: tuple, mode: str, size: Optional[int] = None) -> Counts:
        if mode == "addr":
            return Counts()
        var = self._root_global(e)
        if var is None:
            return Counts()
        nbytes = size if size is not None else e.type.size
        b = nbytes or 0
        kinds = {"r": ("load",), "w": ("store",), "rw": ("load", "store")}[mode]
        out = Counts()
        for k in kinds:
            if k == "load" and id(e) in self.kept:
                continue  # the value is already in a register: no load reaches memory
            self._record(e, var, k, nbytes, stack)
            if k == "load":
                out = out + Counts(loads=1, load_bytes=b)
            else:
                out = out + Counts(stores=1, store_bytes=b)
        return out

    def _record(self, e: ir.Expr, var: ir.Variable, kind: str, nbytes, stack: tuple,
                via: Optional[ir.Call] = None) -> None:
        idx: list[ir.Expr] = []
        node = strip_casts(e)
        if isinstance(node, ir.Member) and not node.arrow:
            node = strip_casts(node.base)
        while isinstance(node, ir.Index):
            idx.append(node.index)
            base = strip_casts(node.base)
            if isinstance(base, ir.Index) and base.type.is_array:
                node = base
                continue
            break
        self.accesses.append(GlobalAccess(
            node=e, array=var.name, variable=var, kind=kind, element_bytes=nbytes,
            indices=list(reversed(idx)), loops=tuple(lp for lp, _ in stack),
            trips=tuple(t for _, t in stack), function=self.fn.display_name, via_call=via))

    def call(self, e: ir.Call, stack: tuple) -> Counts:
        name = e.callee or _callee_from_source(e)
        out = Counts()
        if name in GLOBAL_LOAD_CALLS and e.args:
            out = out + self.expr(e.args[0], stack)
            p = e.args[0]
            if self._is_global_ptr(p):
                var = self._base_var(strip_casts(p).operand if isinstance(strip_casts(p), ir.UnaryOp)
                                     and strip_casts(p).op == "&" else p)
                t = e.type
                self._record(e, var or ir.Variable("?", t, "auto", e.range), "load", t.size, stack)
                out = out + Counts(loads=1, load_bytes=t.size or 0)
            return out
        if name.split("::")[-1] in ASYNC_COPY_CALLS and len(e.args) >= 3 and \
                (e.args[0].type.is_pointer or e.args[0].type.is_array):
            for a in e.args:
                out = out + self.expr(a, stack)
            p = e.args[1]
            if self._is_global_ptr(p):
                var = self._base_var(strip_casts(p).operand if isinstance(strip_casts(p), ir.UnaryOp)
                                     and strip_casts(p).op == "&" else p)
                nbytes = _copy_bytes(e.args[2])
                self._record(e, var or ir.Variable("?", e.type, "auto", e.range), "load", nbytes, stack)
                out = out + Counts(loads=1, load_bytes=nbytes or 0)
            return out
        if name.startswith("atomic") and e.args:
            p = e.args[0]
            out = out + self.expr(p, stack)
            for a in e.args[1:]:
                out = out + self.expr(a, stack)
            if self._is_global_ptr(p):
                var = self._base_var(strip_casts(p).operand if isinstance(strip_casts(p), ir.UnaryOp)
                                     and strip_casts(p).op == "&" else p)
                self._record(e, var or ir.Variable("?", e.type, "auto", e.range), "atomic", e.type.size,
                             stack)
                out = out + Counts(atomics=1, store_bytes=e.type.size or 0)
            return out
        tc = texture_call(e) if name.startswith(("tex", "surf")) else None
        if tc is not None:
            for a in e.args:
                out = out + self.expr(a, stack)
            return out + texture_counts(tc, self.texels.get(id(e)), self.syms.note)
        for a in e.args:
            out = out + self.expr(a, stack)
        if name in FLOP_TABLE:
            n = FLOP_TABLE[name]
            if n:
                t = e.type if _is_fp(e.type) else (e.args[0].type if e.args else e.type)
                out = out + Counts(flops=n, flops_fp64=n if _is_fp64(t) else 0)
            return out
        fn = e.function
        if fn is not None and fn.body is not None:
            if fn in self.call_stack:
                self.syms.note(f"recursive call of {fn.display_name} counted once")
                return out
            gparams = {p for p, a in zip(fn.params, e.args[1:] if e.method else e.args)
                       if (p.type.is_pointer or p.is_reference) and
                       (self._is_global_ptr(a) or (p.is_reference and self._root_global(a) is not None))}
            sub = _Walker(fn, self.syms, gparams, self.depth_offset + len(stack), self.call_stack, self.cache,
                          self.texels, self.kept)
            counts = sub.run()
            for acc in sub.accesses:
                acc.loops = tuple(lp for lp, _ in stack) + acc.loops
                acc.trips = tuple(t for _, t in stack) + acc.trips
                acc.via_call = acc.via_call or e
                self.accesses.append(acc)
            self.loops.extend(sub.loops)
            for u in sub.uncounted:
                if u not in self.uncounted:
                    self.uncounted.append(u)
            return out + counts
        if name and name not in self.uncounted and not name.startswith(("__sync", "__threadfence")) \
                and name not in ("dim3", "make_float2", "make_float3", "make_float4", "make_int2",
                                 "make_int3", "make_int4", "make_double2", "printf", "assert"):
            if _is_fp(e.type):
                self.uncounted.append(name)
        return out






def _callee_from_source(e: ir.Call) -> str:
    """The callee's name as written, for a call the frontend left unnamed (a dependent call in
    an uninstantiated template: ``fmaf(a, b, acc)`` with ``a`` of type ``T``)."""
    r = e.range
    if not r.file or r.line <= 0:
        return ""
    lines = source_lines(r.file)
    if r.line > len(lines):
        return ""
    m = _CALLEE_RE.match(lines[r.line - 1][max(r.column - 1, 0):])
    return m.group(1) if m else ""


# --------------------------------------------------------------------------- entry points


def _param_values(fn: ir.Function, launch, params: Optional[dict]) -> tuple[dict, dict]:
    values: dict = {}
    sources: dict = {}
    names = {p.name for p in fn.params}
    if launch is not None:
        for k, v in (launch.param_values or {}).items():
            if k in names and isinstance(v, (int, float)) and not isinstance(v, bool):
                values[k] = v
                site = getattr(launch, "site", None)
                line = site.range.line if site is not None else 0
                sources[k] = f"launch site line {line}" if line else "launch site"
    for k, v in (params or {}).items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            values[k] = v
            sources[k] = "--param"
    return values, sources


def count_function(fn: ir.Function, launch=None, params: Optional[dict] = None,
                   global_params: Optional[set] = None, texels: Optional[dict] = None,
                   kept: frozenset = frozenset()) -> KernelCounts:
    """Count flops and global accesses of one thread running ``fn``.

    ``launch`` (a :class:`~cudalint.analyzer.launch.LaunchConfig`) gives ``blockDim``/``gridDim``
    and the kernel-parameter values seen at the launch site; ``params`` (``--param``) override
    them. ``global_params`` says which pointer parameters point to global memory (default: all
    of them, as for a kernel). ``texels`` gives the texels each texture fetch reads where the
    host code shows its filter mode (``texture_counts``). ``kept`` gives the loads that are
    no access at all: the compiler keeps the value in a register (a second read of the element
    an earlier statement loaded or stored, ``requests.forwarded_from``), so it issues no load
    instruction and moves no word; they are not counted (``kept_loads``).
    """
    values, sources = _param_values(fn, launch, params)
    syms = CountSymbols(launch, values, sources)
    w = _Walker(fn, syms, global_params, texels=texels, kept=kept)
    total = w.run()
    kc = KernelCounts(fn, total, w.loops, w.accesses, dict(syms.descriptions), syms.values(),
                      {k: v for k, v in sources.items() if k in syms.table}, list(syms.assumptions),
                      list(w.uncounted))
    for name in w.uncounted:
        kc.assumptions.append(f"call of {name}() not counted (not in the flop table)")
    return kc


def kept_loads(accesses) -> frozenset:
    """ids of the load nodes of an access table that the compiler keeps in a register every
    time they run (every event of the node not issued); empty without a table."""
    if accesses is None or getattr(accesses, "error", ""):
        return frozenset()
    issued: dict = {}
    for a in accesses:
        ev = getattr(a, "event", None)
        if ev is None or a.kind != "load" or a.space != "global":
            continue
        issued[id(ev.node)] = issued.get(id(ev.node), False) or a.issued
    return frozenset(k for k, v in issued.items() if not v)


def count_kernel(kf, params: Optional[dict] = None) -> KernelCounts:
    """:func:`count_function` for a :class:`~cudalint.analyzer.pipeline.KernelFacts`."""
    return count_function(kf.function, kf.launch, params)


def expr_counts(e: ir.Expr, fn: Optional[ir.Function] = None, launch=None) -> Counts:
    """Flops and global accesses of one evaluation of ``e`` (inside ``fn``, whose pointer
    parameters are taken as global)."""
    fn = fn or ir.Function("<expr>", "device", [], None, e.range)
    syms = CountSymbols(launch)
    w = _Walker(fn, syms, None)
    return w.expr(e, ())


def expr_flops(e: ir.Expr, fn: Optional[ir.Function] = None) -> Num:
    """Floating-point operations of one evaluation of ``e`` (see the module's table)."""
    return expr_counts(e, fn).flops
