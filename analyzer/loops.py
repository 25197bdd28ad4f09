"""Loop induction variables and trip counts (for unrolling decisions and trip-count sums)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from . import constprop, ir


@dataclass
class Induction:
    """``for (var = start; var OP bound; var += step)``; numbers when constant, else None.
    ``bound_expr``/``start_expr`` keep the IR so symbolic analyses can use them."""

    var: ir.Variable
    start: Optional[int]
    step: Optional[int]
    bound: Optional[int]
    cmp: str
    start_expr: Optional[ir.Expr]
    bound_expr: Optional[ir.Expr]

    @property
    def trip_count(self) -> Optional[int]:
        if self.start is None or self.step is None or self.bound is None or self.step == 0:
            return None
        return trip_count(self.start, self.bound, self.step, self.cmp)


def trip_count(start: int, bound: int, step: int, cmp: str) -> int:
    if cmp == "<":
        n = -(-(bound - start) // step) if step > 0 else None
    elif cmp == "<=":
        n = (bound - start) // step + 1 if step > 0 else None
    elif cmp == ">":
        n = -(-(start - bound) // -step) if step < 0 else None
    elif cmp == ">=":
        n = (start - bound) // -step + 1 if step < 0 else None
    elif cmp == "!=":
        n = (bound - start) // step if step and (bound - start) % step == 0 else None
    else:
        n = None
    return max(n, 0) if n is not None else 0


@dataclass
class LoopHeader:
    """The parts of a counted for-loop ``for (var = start; var CMP bound; var += sign * step)``:
    IR expressions, nothing evaluated. ``step`` None means 1 (``++``/``--``); ``start`` None
    means the loop does not set ``var`` (it counts from whatever value ``var`` has)."""

    var: ir.Variable
    start: Optional[ir.Expr]
    bound: ir.Expr
    cmp: str
    step: Optional[ir.Expr]
    sign: int  # +1 or -1


def strip_casts(e: ir.Expr) -> ir.Expr:
    """``e`` without the casts around it."""
    while isinstance(e, ir.Cast):
        e = e.operand
    return e


def init_variable(loop: ir.Loop, strip=strip_casts) -> tuple[Optional[ir.Variable], Optional[ir.Expr]]:
    """The variable the loop's init statement declares or assigns (the last one), and its
    start value; (None, None) when it sets none. ``strip`` is applied to an assignment's target."""
    var = start = None
    for s in loop.init:
        if isinstance(s, ir.DeclStmt):
            var, start = s.var, s.init
        elif isinstance(s, ir.ExprStmt) and isinstance(s.expr, ir.Assign) and s.expr.op == "=" \
                and isinstance(strip(s.expr.target), ir.VarRef):
            var, start = strip(s.expr.target).var, s.expr.value
    return var, start


def loop_header(loop: ir.Loop, plain: bool = False) -> Optional[LoopHeader]:
    """Recognise a counted for-loop whose body does not write its variable; None otherwise.

    ``plain``: only the plain spelling counts (the variable set in the init statement, no
    casts around it, ``var = var + k`` but not ``var = k + var``): the form the register and
    local-memory models take as fully unrollable (:func:`induction`). Otherwise casts around
    the variable are looked through and a loop may count from the variable's current value
    (the trip counts of the FLOP count)."""
    if loop.kind != "for" or loop.cond is None or loop.step is None:
        return None
    strip = (lambda e: e) if plain else strip_casts
    var, start = init_variable(loop, strip)
    if var is None and plain:
        return None
    c = loop.cond
    if not isinstance(c, ir.BinOp) or c.op not in ("<", "<=", ">", ">=", "!="):
        return None
    lhs, rhs = strip(c.lhs), strip(c.rhs)
    cmp = c.op
    if isinstance(lhs, ir.VarRef) and (var is None or lhs.var is var):
        var, bound = lhs.var, c.rhs
    elif isinstance(rhs, ir.VarRef) and (var is None or rhs.var is var):
        var, bound = rhs.var, c.lhs
        cmp = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}[cmp]
    elif not plain and var is not None and (moved := _offset_bound(lhs, c.rhs, var)) is not None:
        bound = moved
    elif not plain and var is not None and (moved := _offset_bound(rhs, c.lhs, var)) is not None:
        bound = moved
        cmp = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}[cmp]
    else:
        return None
    st = loop.step
    step: Optional[ir.Expr] = None
    sign = 0
    if isinstance(st, ir.UnaryOp) and isinstance(strip(st.operand), ir.VarRef) and \
            strip(st.operand).var is var:
        if st.op in ("pre++", "post++"):
            sign = 1
        elif st.op in ("pre--", "post--"):
            sign = -1
    elif isinstance(st, ir.Assign) and isinstance(strip(st.target), ir.VarRef) and \
            strip(st.target).var is var:
        if st.op in ("+=", "-="):
            step, sign = st.value, (1 if st.op == "+=" else -1)
        elif st.op == "=" and isinstance(st.value, ir.BinOp) and st.value.op in ("+", "-"):
            b = st.value
            if isinstance(strip(b.lhs), ir.VarRef) and strip(b.lhs).var is var:
                step, sign = b.rhs, (1 if b.op == "+" else -1)
            elif not plain and b.op == "+" and isinstance(strip(b.rhs), ir.VarRef) and \
                    strip(b.rhs).var is var:
                step, sign = b.lhs, 1
    if sign == 0:
        return None
    if var in constprop.assigned_vars(loop.body):
        return None
    return LoopHeader(var, start, bound, cmp, step, sign)


def _offset_bound(side: ir.Expr, other: ir.Expr, var: ir.Variable) -> Optional[ir.Expr]:
    """``var + k CMP b`` is ``var CMP b - k`` (and ``var - k CMP b`` is ``var CMP b + k``, ``k +
    var`` likewise) when ``k`` does not read ``var``: the bound moved to the other side, as an IR
    expression (SGEMM's ``for (offset = 0; offset + rowStride <= BM; offset += rowStride)``).
    None when ``side`` is not of that form. The bound is exact arithmetic: the comparison of
    the source is taken as overflow-free, as every trip count here is."""
    if not isinstance(side, ir.BinOp) or side.op not in ("+", "-"):
        return None
    a, b = strip_casts(side.lhs), strip_casts(side.rhs)
    if isinstance(a, ir.VarRef) and a.var is var:
        k = side.rhs
        op = "-" if side.op == "+" else "+"
    elif side.op == "+" and isinstance(b, ir.VarRef) and b.var is var:
        k = side.lhs
    else:
        return None
    if side.op == "+" and not (isinstance(a, ir.VarRef) and a.var is var):
        op = "-"
    if any(isinstance(x, ir.VarRef) and x.var is var for x in k.walk()):
        return None
    return ir.BinOp(other.range, other.type, op, other, k)


def induction(loop: ir.Loop) -> Optional[Induction]:
    """The plain counted for-loop (:func:`loop_header` with ``plain``) with a constant step,
    its start and bound evaluated where they are constants; None for anything else."""
    h = loop_header(loop, plain=True)
    if h is None:
        return None
    if h.step is None:
        step = h.sign
    else:
        k = _int(constprop.evaluate(h.step, {}))
        if k is None:
            return None
        step = h.sign * k
    start = constprop.evaluate(h.start, {})
    bound = constprop.evaluate(h.bound, {})
    return Induction(h.var, _int(start), step, _int(bound), h.cmp, h.start, h.bound)


def _int(v) -> Optional[int]:
    if isinstance(v, bool) or v is None or isinstance(v, tuple):
        return None
    if isinstance(v, float):
        return int(v) if v.is_integer() else None
    return v


def fully_unrolled(loop: ir.Loop, ind: Optional[Induction] = None) -> bool:
    """Whether the compiler can fully unroll ``loop``: a counted loop with a constant trip count
    and no ``#pragma unroll 1`` (or a partial count smaller than the trip count)."""
    ind = ind or induction(loop)
    if ind is None or ind.trip_count is None:
        return False
    if loop.unroll is not None and loop.unroll not in (0,) and loop.unroll < ind.trip_count:
        return False
    return True


def geometric_step(loop: ir.Loop, var: ir.Variable, conv) -> Optional[tuple[int, bool]]:
    """(factor, shrink) when the loop's step multiplies or divides ``var`` by a constant
    (``s *= 2``, ``s <<= 1``, ``s = s * 2``: (2, False); ``s >>= 1``, ``s /= 2``: (2, True))
    and its body does not assign ``var``; None otherwise. ``conv`` turns the constant's
    expression into a sympy value."""
    step = loop.step
    if loop.kind != "for" or step is None or not isinstance(step, ir.Assign) or \
            not isinstance(strip_casts(step.target), ir.VarRef) or strip_casts(step.target).var is not var:
        return None
    op, kexpr = step.op, step.value
    if op == "=" and isinstance(step.value, ir.BinOp) and step.value.op in (">>", "<<", "/", "*"):
        b = step.value
        if isinstance(strip_casts(b.lhs), ir.VarRef) and strip_casts(b.lhs).var is var:
            op, kexpr = b.op + "=", b.rhs
        elif b.op == "*" and isinstance(strip_casts(b.rhs), ir.VarRef) and strip_casts(b.rhs).var is var:
            op, kexpr = "*=", b.lhs
    if op not in (">>=", "<<=", "/=", "*=") or any(isinstance(x, ir.VarRef) for x in kexpr.walk()):
        return None
    k = conv(kexpr)
    if k is None or not getattr(k, "is_Integer", False):
        return None
    k = int(k)
    if op in (">>=", "<<=") and k > 0:
        factor, shrink = 2 ** k, op == ">>="
    elif op in ("/=", "*=") and k > 1:
        factor, shrink = k, op == "/="
    else:
        return None
    if var in constprop.assigned_vars(loop.body):
        return None
    return factor, shrink
