"""What a thread learns from the branch it takes on a value it read from memory.

``if (buf[ty][tx] == 0) { ... if (buf[ty][k] != 0) ... }``: for the thread whose ``k`` equals its
``tx``, both loads read one address of one barrier interval -- the same provenance token
(:func:`.simt_eval.SimtEval._loaded`) -- so inside the outer branch the inner load is 0 for that
thread and the inner condition is false. Without this the interpreter takes the inner branch as
possible for every thread and pairs a write that thread can never make (GPUVerify's
``transitiveclosure``: a false CL602).

Why it holds: two loads of one address by one thread, with no store by that thread and no
barrier between, see the same value unless another thread stores there in between -- and that
store races with the first load, which is recorded and paired as usual. So the refinement never
hides a race; it only drops branches a thread cannot take in a race-free prefix of the run.

A fact is (token, value, threads, barrier interval, warp intervals): threads whose value with
that token is known to be ``value``. It is learnt from ``x == c`` in a then-branch and from
``x != c`` in an else-branch (``c`` a constant), holds in the barrier interval (and, per thread,
the ``__syncwarp`` interval) it was learnt in, and is dropped for a thread that stores to memory
or calls a function whose body is not known.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from . import ir
from .simt_values import Mask, V


def _strip(e: ir.Expr) -> ir.Expr:
    while isinstance(e, ir.Cast) and e.implicit:
        e = e.operand
    return e


def branch_cond(sim, cond: ir.Expr, m: Mask, fr) -> tuple[V, Optional[tuple]]:
    """The branch condition (as ``sim.cond``) and, for ``x == c`` / ``x != c`` with ``x``
    carrying provenance tokens and ``c`` a constant, ``(tokens of x, c, op)``."""
    c = _strip(cond)
    if not (isinstance(c, ir.BinOp) and c.op in ("==", "!=")):
        return sim.cond(cond, m, fr), None
    lhs, rhs = _strip(c.lhs), _strip(c.rhs)
    const_side = 1 if isinstance(rhs, ir.Const) else (0 if isinstance(lhs, ir.Const) else None)
    if const_side is None:
        return sim.cond(cond, m, fr), None
    # the operands in the order _binop evaluates them, then the same comparison
    a = sim.ev(c.lhs, m, fr)
    b = sim.ev(c.rhs, m, fr)
    if not isinstance(a, V) or not isinstance(b, V):
        r = sim._ptr_arith(c.op, a, b) if a is not None and b is not None else sim.unknown()
        return V((r.v != 0).astype(np.int64), r.k.copy()), None
    r = sim._arith(c.op, a, b, c.type)
    out = V(r.v != 0, r.k)  # a condition's value: booleans (see SimtEval.cond)
    x, k = (a, b) if const_side == 1 else (b, a)
    if x.t is None or not bool(np.all(k.k)) or k.v.size == 0:
        return out, None
    return out, (x.t, k.v[0], c.op)


def push(sim, info: Optional[tuple], threads: np.ndarray, then_side: bool):
    """Start a fact for ``threads`` entering one side of the branch; returns it (or None)."""
    if info is None:
        return None
    tok, val, op = info
    if (op == "==") != then_side:
        return None
    mask = threads & (tok != 0)
    if not mask.any():
        return None
    f = [tok, val, mask, sim.epoch, sim.wepoch.copy()]
    sim.facts.append(f)
    return f


def pop(sim, f) -> None:
    if f is not None:
        for i in range(len(sim.facts) - 1, -1, -1):
            if sim.facts[i] is f:
                del sim.facts[i]
                break


def forget(sim, threads: np.ndarray) -> None:
    """These threads stored to memory or passed a barrier: what they learnt may be stale."""
    for f in sim.facts:
        f[2] = f[2] & ~threads


def refine(sim, v):
    """``v`` with the entries a fact makes known filled in (a new value; ``v`` is shared)."""
    if not isinstance(v, V) or v.t is None:
        return v
    for tok, val, mask, epoch, wepoch in sim.facts:
        if epoch != sim.epoch:
            continue
        hit = mask & ~v.k & (v.t == tok) & (sim.wepoch == wepoch)
        if hit.any():
            nv, nk = v.v.copy(), v.k.copy()
            nv[hit] = val
            nk[hit] = True
            v = V(nv, nk, v.t)
    return v
