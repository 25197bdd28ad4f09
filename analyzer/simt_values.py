"""What the per-thread interpreter (:mod:`.simt`) computes with: a value per thread with the
entries it knows (:class:`V`), pointers into memory objects, memory and register locations,
activity masks (threads that must / may execute), and the frames of inlined calls.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import ir

_INT = np.int64


class BudgetExceeded(Exception):
    """The run spent its statement budget (``Simt.budget``)."""


def truth(c: "V") -> np.ndarray:
    """Per thread, whether condition value ``c`` is true (where it is known): a condition's
    value (``SimtEval.cond``) holds it already as booleans."""
    v = c.v
    return v if v.dtype == np.bool_ else v != 0


class Overrun(Exception):
    """A run asked to stop at the first access outside a shared array met one."""


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


_T_SLOT = V.__dict__["t"]  # V's own storage of ``t`` (what LazyTokens fills in)


class LazyTokens(V):
    """A value whose provenance tokens are computed the first time something reads ``t``
    (``mix_tokens(*args, **kw)``): most values loaded from shared memory are floats that only
    feed float arithmetic, which never reads them. Everything that reads ``t`` gets the same
    array it would have got had it been computed at once (the inputs are never changed in
    place)."""

    __slots__ = ("_mix", "depth")

    def __init__(self, v: np.ndarray, k: np.ndarray, mix: tuple, depth: int = 0):
        V.__init__(self, v, k, None)
        self._mix = mix
        self.depth = depth  # lazy values between this one and the eager inputs (see lazy_depth)

    @property
    def t(self):
        mix = self._mix
        if mix is not None:
            self._mix = None
            _T_SLOT.__set__(self, mix_tokens(*mix[0], **mix[1]))
        return _T_SLOT.__get__(self)

    @t.setter
    def t(self, val):
        self._mix = None
        _T_SLOT.__set__(self, val)


def lazy_depth(x: V) -> Optional[int]:
    """Without computing anything: None when ``x`` has no provenance tokens, else how many
    lazily mixed values lie between it and eager tokens (0: its tokens are at hand)."""
    if isinstance(x, LazyTokens) and x._mix is not None:
        return x.depth
    return None if _T_SLOT.__get__(x) is None else 0


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
    type: Optional[ir.CType] = None  # of a member


class Mask:
    """The threads that certainly (``must``) and possibly (``may``) run a statement. ``live``:
    those that certainly run it unless they have already left (an earlier ``return`` that
    depended on data): a thread there that runs a ``return``, ``break`` or ``continue`` has
    certainly left afterwards, whichever way that earlier exit went. Defaults to ``must``."""
    __slots__ = ("must", "may", "live")

    def __init__(self, must: np.ndarray, may: np.ndarray, live: Optional[np.ndarray] = None):
        self.must = must
        self.may = may
        self.live = must if live is None else live

    def any(self) -> bool:
        return bool(self.may.any())

    @property
    def certain(self) -> bool:
        return self.must is self.may or bool(np.array_equal(self.must, self.may))


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
        #: some thread has left by return/break/continue (set once, never cleared): until
        #: then the masks above are all False and the interpreter skips applying them
        self.exits = False


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


def _elem_size(t: Optional[ir.CType]) -> Optional[int]:
    if t is None:
        return None
    if t.size:
        return t.size
    if t.kind == "array" and t.element is not None and t.extent:
        s = _elem_size(t.element)
        return s * t.extent if s else None
    return None


# ---------------------------------------------------------------------- provenance tokens

_M1, _M2 = np.int64(-7046029254386353131), np.int64(0x2545F4914F6CDD1D)


def _part(x: V, known: Optional[np.ndarray] = None) -> np.ndarray:
    """Per thread, what a result computed from ``x`` depends on: the value where it is known,
    else its provenance token (0 where neither is known). ``known``: an all-True mask that
    ``x.k`` may be (a constant's), so that no selection is needed. (Integer arrays wrap
    silently on overflow, as these hashes want.)"""
    bits = x.v.view(np.int64) if x.is_float else x.v
    if x.k is known:
        return bits * _M1 + 1
    if x.t is None:
        return np.where(x.k, bits * _M1 + 1, 0)
    return np.where(x.k, bits * _M1 + 1, np.where(x.t != 0, x.t * _M2 + 2, 0))


def token_part(x: V, known: Optional[np.ndarray] = None) -> tuple:
    """What :func:`mix_tokens` computes of an input, and where it is nonzero: for an input
    that is the same all run long (a block ordinal, an object's base), computed once."""
    p = _part(x, known)
    return p, p != 0


def mix_tokens(salt: int, *xs: V, force: bool = False,
               known: Optional[np.ndarray] = None, fixed: tuple = ()) -> Optional[np.ndarray]:
    """Provenance tokens of a deterministic operation on ``xs``: equal inputs give equal
    results, so two threads whose inputs have equal known values or equal tokens get equal
    tokens (0 where some input is neither known nor tokened). None when no input has tokens.
    ``known`` as for :func:`_part`. ``fixed``: :func:`token_part` of further inputs, mixed
    after ``xs`` (as if they were listed there)."""
    if not force and not any(x.t is not None for x in xs):
        return None
    h = ((int(salt) & 0x7FFFFFFF) * 0x9E3779B1 + 7) & ((1 << 62) - 1)  # the seed, every thread
    ok = None
    for p, nz in [token_part(x, known) for x in xs] + list(fixed):
        if ok is None:
            ok, h = nz, p ^ h  # a new array: updated in place from here on (same values)
        else:
            ok = ok & nz
            h ^= p
        h *= _M1
        h ^= h >> 31
    if ok is None:
        return np.where(ok, (h & ((1 << 62) - 1)) | 1, 0)
    h &= (1 << 62) - 1
    h |= 1
    h[~ok] = 0
    return h


OP_SALT = {op: i + 1 for i, op in enumerate(
    ("+", "-", "*", "/", "%", "<", ">", "<=", ">=", "==", "!=", "<<", ">>", "&", "|", "^", "neg", "~", "!",
     "?:"))}
