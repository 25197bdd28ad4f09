"""Loop trip counts for the FLOP count, as sympy expressions over the kernel's parameters and
launch dimensions: IR integer expressions converted to sympy (:class:`SymConv`, C integer
semantics from :mod:`.cint`), the definitions of locals they read (:class:`Definitions`), the
symbols they introduce (:class:`CountSymbols`), and the count of one loop (:func:`loop_trip`,
from the counted-loop recogniser :func:`.loops.loop_header`).
"""
from __future__ import annotations

import re
from typing import Optional

import sympy as sp

from . import cint, ir
from .coop_groups import group_kind
from .flop_counts import Num, simplified
from .loops import geometric_step, init_variable, loop_header, strip_casts
from .source_text import range_text

class CountSymbols:
    """The symbolic names a kernel's counts use, and what is known about them."""

    def __init__(self, launch=None, values: Optional[dict] = None, sources: Optional[dict] = None):
        self.launch = launch
        self.table: dict[str, sp.Symbol] = {}
        self.descriptions: dict[str, str] = {}
        self.assumptions: list[str] = []
        self.known = dict(values or {})  # name -> number
        self.sources = dict(sources or {})

    def symbol(self, name: str, description: str) -> sp.Symbol:
        s = self.table.get(name)
        if s is None:
            s = sp.Symbol(name, positive=True)
            self.table[name] = s
            self.descriptions[name] = description
        return s

    def note(self, text: str) -> None:
        key = text.split(", e.g. at line")[0]
        if not any(a.split(", e.g. at line")[0] == key for a in self.assumptions):
            self.assumptions.append(text)

    def values(self) -> dict:
        return {s: self.known[n] for n, s in self.table.items() if n in self.known}


class Definitions:
    """Definitions of the local variables of a function (for symbolic loop bounds and for
    the provenance of local pointers)."""

    def __init__(self, fn: ir.Function):
        self.defs: dict = {}
        if fn.body is None:
            return
        for st in fn.statements():
            if isinstance(st, ir.DeclStmt):
                self.defs.setdefault(st.var, []).append(st.init)
            for e in st.exprs():
                for x in e.walk():
                    if isinstance(x, ir.Assign):
                        t = strip_casts(x.target)
                        if isinstance(t, ir.VarRef):
                            self.defs.setdefault(t.var, []).append(x.value if x.op == "=" else None)
                    elif isinstance(x, ir.UnaryOp) and x.op in ("pre++", "pre--", "post++", "post--"):
                        t = strip_casts(x.operand)
                        if isinstance(t, ir.VarRef):
                            self.defs.setdefault(t.var, []).append(None)
                    elif isinstance(x, ir.UnaryOp) and x.op == "&":
                        t = strip_casts(x.operand)
                        if isinstance(t, ir.VarRef):
                            self.defs.setdefault(t.var, []).append(None)

    def single(self, v: ir.Variable) -> Optional[ir.Expr]:
        d = self.defs.get(v)
        if d and len(d) == 1 and d[0] is not None:
            return d[0]
        return None


_BUILTIN_ZERO = ("threadIdx", "blockIdx")


class SymConv:
    """IR expression -> sympy, for loop bounds and steps."""

    def __init__(self, syms: CountSymbols, defs: Definitions, param_names: set, bindings: Optional[dict] = None):
        self.syms = syms
        self.defs = defs
        self.params = param_names
        self.bindings = bindings or {}

    def __call__(self, e: Optional[ir.Expr], depth: int = 0) -> Optional[sp.Expr]:
        if e is None or depth > 30:
            return None
        c = self
        d = depth + 1
        if isinstance(e, ir.Const):
            if isinstance(e.value, bool):
                return sp.Integer(int(e.value))
            if isinstance(e.value, int):
                return sp.Integer(e.value)
            if isinstance(e.value, float):
                return sp.Integer(int(e.value)) if e.value.is_integer() else sp.nsimplify(e.value)
            return None
        if isinstance(e, ir.SizeOf):
            return sp.Integer(e.value) if e.value is not None else None
        if isinstance(e, ir.Cast):
            return c(e.operand, d)
        if isinstance(e, ir.TemplateParam):
            return self.syms.symbol(e.name, f"template parameter {e.name}")
        if isinstance(e, ir.Builtin):
            if e.name == "warpSize":
                return sp.Integer(32)
            comp = "xyz".index(e.component) if e.component in ("x", "y", "z") else 0
            if e.name in _BUILTIN_ZERO:
                self.syms.note(f"{e.name}.{e.component} in a loop bound: counted for thread 0 of block 0")
                return sp.Integer(0)
            launch = self.syms.launch
            if e.name == "blockDim" and launch is not None:
                return sp.Integer(launch.block[comp])
            if e.name == "gridDim" and launch is not None and launch.grid is not None:
                return sp.Integer(launch.grid[comp])
            name = f"{e.name}.{e.component}"
            return self.syms.symbol(name, f"{name} (launch configuration not known)")
        if isinstance(e, ir.VarRef):
            v = e.var
            if v.storage == "param" or v.name in self.params and v.storage == "param":
                return self.syms.symbol(v.name, f"kernel parameter {v.name}")
            if not v.file_scope:
                init = self.defs.single(v)
                if init is not None:
                    r = c(init, d)
                    if r is not None:
                        return r
            return self.syms.symbol(v.name, f"value of `{v.name}` (not a single expression)")
        if isinstance(e, ir.Member) and not e.arrow:
            root = strip_casts(e.base)
            if isinstance(root, ir.VarRef) and root.var.storage == "param":
                name = f"{root.var.name}.{e.member}"  # a field of a struct passed by value
                return self.syms.symbol(name, f"kernel parameter field {name}")
            return None
        if isinstance(e, ir.UnaryOp):
            x = c(e.operand, d)
            if x is None:
                return None
            if e.op == "-":
                return -x
            if e.op == "+":
                return x
            return None
        if isinstance(e, ir.BinOp):
            a, b = c(e.lhs, d), c(e.rhs, d)
            if a is None or b is None:
                return None
            op = e.op
            if op == "+":
                return a + b
            if op == "-":
                return a - b
            if op == "*":
                return a * b
            if op == "/":
                if b == 0:
                    return None
                if a.is_Integer and b.is_Integer and not e.type.is_float:
                    return sp.Integer(cint.div(int(a), int(b)))
                if not e.type.is_float and not (a / b).is_Integer:
                    self.syms.note(f"integer division `{a}/{b}` in a trip count taken as exact")
                return a / b
            if op == "%" and a.is_Integer and b.is_Integer and b != 0:
                return sp.Integer(cint.mod(int(a), int(b)))
            if op == "<<" and b.is_Integer:
                return a * 2 ** int(b)
            if op == ">>" and b.is_Integer:
                if a.is_Integer:
                    return sp.Integer(int(a) >> int(b))
                return a / 2 ** int(b)
            return None
        if isinstance(e, ir.Unknown) and not e.parts:
            # A template argument the frontend left unevaluated (``TILE`` in ``f<32>``): its
            # spelling names the binding.
            text = (e.text or range_text(e.range)).strip()
            v = self.bindings.get(text)
            if isinstance(v, int) and not isinstance(v, bool):
                return sp.Integer(v)
            if re.fullmatch(r"\d+[uUlL]*", text):
                return sp.Integer(int(text.rstrip("uUlL")))
            return None
        if isinstance(e, ir.Call) and e.args and (e.function is None or e.function.body is None) \
                and (e.callee or "").split("::")[-1] in ("size", "num_threads"):
            # a cooperative group's size (`for (int i = g.size() >> 1; i > 0; i >>= 1)`): a
            # thread_block_tile<N>'s is N, a thread block's its thread count
            kind, n = group_kind(e.args[0].type.spelling if e.args[0].type else "")
            if kind == "tile" and n:
                return sp.Integer(n)
            if kind == "block":
                dims = [c(ir.Builtin(e.range, ir.UNKNOWN_TYPE, "blockDim", m), d) for m in "xyz"]
                return None if any(x is None for x in dims) else dims[0] * dims[1] * dims[2]
            return None
        if isinstance(e, ir.Call) and e.callee in ("min", "max", "std::min", "std::max", "umin",
                                                   "umax") and len(e.args) == 2:
            a, b = c(e.args[0], d), c(e.args[1], d)
            if a is None or b is None:
                return None
            return sp.Min(a, b) if "min" in e.callee else sp.Max(a, b)
        return None



def _trip_name(conv: SymConv, line: int, var: Optional[str]) -> str:
    """The symbol for a trip count that cannot be expressed, named for what the user wrote:
    ``trips(i)`` for the loop over ``i``, ``trips(line 148)`` for a loop without a counter
    (the line is added when two loops share a counter's name)."""
    desc = f"trip count of the loop at line {line}"
    name = f"trips({var})" if var else f"trips(line {line})"
    if name in conv.syms.table and conv.syms.descriptions.get(name) != desc:
        name = f"trips({var}, line {line})"
    return name


def loop_trip(loop: ir.Loop, conv: SymConv) -> tuple[Num, str, Optional[str]]:
    """(trip count, how it was found, induction variable name)."""
    ind = loop_header(loop)
    line = loop.range.line
    if ind is None:
        geo = _geometric_trip(loop, conv)
        if geo is not None:
            return geo
        name = _trip_name(conv, line, None)
        conv.syms.note(f"the loop at line {line} is not a counted for-loop: its trip count is the "
                       f"symbol {name}")
        return conv.syms.symbol(name, f"trip count of the loop at line {line}"), "unknown", None
    start = conv(ind.start) if ind.start is not None else None
    if ind.start is None:
        start = conv.syms.symbol(ind.var.name, f"initial value of `{ind.var.name}`")
    bound = conv(ind.bound)
    step = sp.Integer(1) if ind.step is None else conv(ind.step)
    if start is None or bound is None or step is None or step == 0:
        what = "bound" if bound is None else ("start" if start is None else "step")
        name = _trip_name(conv, line, ind.var.name)
        why = "is 0" if step is not None and step == 0 else "cannot be expressed"
        conv.syms.note(f"the {what} of the loop at line {line} {why}: its trip count is the "
                       f"symbol {name}")
        return conv.syms.symbol(name, f"trip count of the loop at line {line}"), "unknown", ind.var.name
    step = step * ind.sign
    diff = {"<": bound - start, "<=": bound - start, "!=": bound - start,
            ">": start - bound, ">=": start - bound}[ind.cmp]
    stride = step if ind.cmp in ("<", "<=", "!=") else -step
    if diff.is_number and stride.is_number:
        if stride <= 0:
            conv.syms.note(f"the loop at line {line} does not terminate as written; counted once")
            return 1, "constant", ind.var.name
        q = sp.ceiling(diff / stride) if ind.cmp != "<=" and ind.cmp != ">=" else sp.floor(diff / stride) + 1
        n = max(int(q), 0)
        if ind.cmp == "!=" and (diff / stride) != q:
            conv.syms.note(f"the loop at line {line} (`!=`) never meets its bound exactly")
        return n, "constant", ind.var.name
    trip = diff / stride + (1 if ind.cmp in ("<=", ">=") else 0)
    trip = simplified(trip)
    return trip, "symbolic", ind.var.name


def _geometric_trip(loop: ir.Loop, conv: SymConv) -> Optional[tuple]:
    """The trip count of a halving or doubling loop with numeric bounds: ``for (s = 128; s > 0;
    s >>= 1)`` (a tree reduction: 8 trips) or ``for (s = 1; s < 256; s <<= 1)`` / ``s *= 2``
    (8); None for anything else."""
    if loop.kind != "for" or loop.cond is None or loop.step is None:
        return None
    var, start = init_variable(loop)
    if var is None or start is None:
        return None
    geo = geometric_step(loop, var, conv)
    if geo is None:
        return None
    factor, shrink = geo
    c = loop.cond
    if not isinstance(c, ir.BinOp) or not isinstance(strip_casts(c.lhs), ir.VarRef) or \
            strip_casts(c.lhs).var is not var:
        return None
    s0, b = conv(start), conv(c.rhs)
    if s0 is None or b is None or not s0.is_Integer or not b.is_Integer:
        return None
    s0, b = int(s0), int(b)
    n = 0
    v = s0
    while n <= 64:  # at most 64 halvings or doublings of a 64-bit value
        holds = {"<": v < b, "<=": v <= b, ">": v > b, ">=": v >= b, "!=": v != b}.get(c.op)
        if holds is None:
            return None
        if not holds:
            return n, "constant", var.name
        n += 1
        v = v // factor if shrink else v * factor
        if not shrink and v == 0:
            return None
    return None
