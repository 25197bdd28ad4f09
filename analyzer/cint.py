"""C integer arithmetic, in one place, for every evaluator of the facts stage: constant
propagation (Python ints), the symbolic walker and the FLOP/trip counter (sympy integers), and
the SIMT interpreter (numpy vectors, one entry per thread).

What C says and Python does not: ``/`` truncates toward zero and ``%`` takes the sign of the
dividend (Python floors both); 32-bit unsigned arithmetic wraps modulo 2**32; converting a
floating value to an integer truncates toward zero; a 64-bit literal above INT64_MAX keeps its
bits in a signed 64-bit register; converting to a narrower or unsigned type wraps
(:func:`convert`, which also rounds ``float`` values to single precision).
"""
from __future__ import annotations

import math
import struct
from typing import Optional

import numpy as np

from . import ir

U32_MASK = 0xFFFFFFFF


def div(a: int, b: int) -> int:
    """``a / b`` on C integers (truncates toward zero); ``b`` must not be 0."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def mod(a: int, b: int) -> int:
    """``a % b`` on C integers (the sign of ``a``); ``b`` must not be 0."""
    return a - b * div(a, b)


def div_array(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`div` elementwise; ``b`` has no zeros."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) ^ (b < 0), -q, q)


def mod_array(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`mod` elementwise; ``b`` has no zeros."""
    return a - b * div_array(a, b)


def is_unsigned32(t: ir.CType) -> bool:
    """Whether ``t`` is a 32-bit unsigned integer (its arithmetic wraps modulo 2**32)."""
    sp = t.spelling.replace("const ", "").replace("volatile ", "").strip()
    return t.kind == "scalar" and t.size == 4 and not t.is_float and (
        sp.startswith("unsigned") or sp in ("uint", "uint32_t", "unsigned"))


def wrap_u32(v):
    """The value of ``v`` as a 32-bit unsigned integer (an int or an integer array)."""
    return v & U32_MASK


def as_int64_bits(x: int) -> int:
    """An integer literal as a signed 64-bit register holds it (``0xcbf29ce484222325`` of a hash
    is negative there)."""
    if -(1 << 63) <= x < (1 << 63):
        return x
    return ((x + (1 << 63)) % (1 << 64)) - (1 << 63)


# Conversions to a C type, for constant propagation (host launch configurations).
_UNSIGNED_NAMES = {"size_t", "uint", "ulong", "ushort", "uchar", "uint8_t", "uint16_t",
                   "uint32_t", "uint64_t", "uintptr_t", "cudaStream_t"}
_SIGNED_FIXED = {"int8_t", "int16_t", "int32_t", "int64_t", "ptrdiff_t", "ssize_t", "long",
                 "int", "short", "long long", "signed char", "char", "long int", "long long int"}


def _int_kind(t: Optional[ir.CType]) -> Optional[tuple[int, bool]]:
    """(bits, unsigned) of an integer scalar type spelled in a way we recognise, else None."""
    if t is None or t.kind != "scalar" or t.is_float or t.size not in (1, 2, 4, 8):
        return None
    sp = t.spelling.replace("const ", "").replace("volatile ", "").replace("std::", "").strip()
    if sp.startswith("unsigned") or sp in _UNSIGNED_NAMES:
        return t.size * 8, True
    if sp in _SIGNED_FIXED or sp.startswith("signed"):
        return t.size * 8, False
    return None


def int_max(t: Optional[ir.CType]) -> Optional[int]:
    """The largest value of integer scalar type ``t`` (``bool``: 1, ``uint8_t``: 255), or None
    when ``t`` is not one spelled in a way we recognise."""
    if t is not None and t.kind == "scalar" and t.size == 1 and \
            t.spelling.replace("const ", "").replace("volatile ", "").strip() in ("bool", "_Bool"):
        return 1
    k = _int_kind(t)
    if k is None:
        return None
    bits, unsigned = k
    return (1 << bits) - 1 if unsigned else (1 << (bits - 1)) - 1


def convert(v, t: Optional[ir.CType]):
    """``v`` converted to C type ``t``: integers wrap to its width, floats round to float."""
    if isinstance(v, tuple) or v is None or t is None:
        return v
    if t.kind == "scalar" and t.is_float:
        v = float(v)
        if t.size == 4 and math.isfinite(v):
            try:
                v = struct.unpack("f", struct.pack("f", v))[0]
            except OverflowError:
                return math.inf if v > 0 else -math.inf
        return v
    k = _int_kind(t)
    if k is None:
        return v
    if isinstance(v, float):
        if not math.isfinite(v):
            return None
        v = int(v)  # C truncates toward zero
    bits, unsigned = k
    v &= (1 << bits) - 1
    if not unsigned and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v
