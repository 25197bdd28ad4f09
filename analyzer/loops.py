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


def induction(loop: ir.Loop) -> Optional[Induction]:
    """Recognise the canonical counted for-loop; None for anything else."""
    if loop.kind != "for" or loop.cond is None or loop.step is None:
        return None
    var = None
    start_expr = None
    for s in loop.init:
        if isinstance(s, ir.DeclStmt):
            var, start_expr = s.var, s.init
        elif isinstance(s, ir.ExprStmt) and isinstance(s.expr, ir.Assign) and \
                isinstance(s.expr.target, ir.VarRef) and s.expr.op == "=":
            var, start_expr = s.expr.target.var, s.expr.value
    if var is None:
        return None
    c = loop.cond
    if not isinstance(c, ir.BinOp) or c.op not in ("<", "<=", ">", ">=", "!="):
        return None
    cmp = c.op
    if isinstance(c.lhs, ir.VarRef) and c.lhs.var is var:
        bound_expr = c.rhs
    elif isinstance(c.rhs, ir.VarRef) and c.rhs.var is var:
        bound_expr = c.lhs
        cmp = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}[cmp]
    else:
        return None
    step = _step(loop.step, var)
    if step is None:
        return None
    # The body must not write the induction variable.
    if var in constprop.assigned_vars(loop.body):
        return None
    start = constprop.evaluate(start_expr, {})
    bound = constprop.evaluate(bound_expr, {})
    return Induction(var, _int(start), step, _int(bound), cmp, start_expr, bound_expr)


def _int(v) -> Optional[int]:
    if isinstance(v, bool) or v is None or isinstance(v, tuple):
        return None
    if isinstance(v, float):
        return int(v) if v.is_integer() else None
    return v


def _step(e: ir.Expr, var: ir.Variable) -> Optional[int]:
    if isinstance(e, ir.UnaryOp) and isinstance(e.operand, ir.VarRef) and e.operand.var is var:
        if e.op in ("pre++", "post++"):
            return 1
        if e.op in ("pre--", "post--"):
            return -1
    if isinstance(e, ir.Assign) and isinstance(e.target, ir.VarRef) and e.target.var is var:
        v = _int(constprop.evaluate(e.value, {}))
        if e.op == "+=" and v is not None:
            return v
        if e.op == "-=" and v is not None:
            return -v
        if e.op == "=" and isinstance(e.value, ir.BinOp) and e.value.op in ("+", "-"):
            b = e.value
            if isinstance(b.lhs, ir.VarRef) and b.lhs.var is var:
                k = _int(constprop.evaluate(b.rhs, {}))
                if k is not None:
                    return k if b.op == "+" else -k
    return None


def fully_unrolled(loop: ir.Loop, ind: Optional[Induction] = None) -> bool:
    """Whether the compiler can fully unroll ``loop``: a counted loop with a constant trip count
    and no ``#pragma unroll 1`` (or a partial count smaller than the trip count)."""
    ind = ind or induction(loop)
    if ind is None or ind.trip_count is None:
        return False
    if loop.unroll is not None and loop.unroll not in (0,) and loop.unroll < ind.trip_count:
        return False
    return True
