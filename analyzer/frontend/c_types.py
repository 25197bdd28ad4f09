"""C types for the pycparser frontend, spelled and sized the way clang (CUDA C++ mode) does.

:class:`T` keeps what typing expressions needs (typedef sugar, canonical form, qualifiers,
record fields); :func:`to_ctype` turns it into the IR's :class:`~cudalint.analyzer.ir.CType`
with the same conventions as ``lower_clang.Lowerer.ctype`` (e.g. an array's ``element`` is the
canonical element type, an array is ``is_float`` when its element is).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Optional

from .. import ir

VECTOR_RE = re.compile(r"^(u?char|u?short|u?int|u?long|u?longlong|float|double)([1-4])$")
# CUDA vector_types.h alignments (the rest are naturally aligned)
VECTOR_ALIGN = {
    "char2": 2, "uchar2": 2, "char4": 4, "uchar4": 4, "short2": 4, "ushort2": 4, "short4": 8,
    "ushort4": 8, "int2": 8, "uint2": 8, "int4": 16, "uint4": 16, "long2": 16, "ulong2": 16,
    "long4": 16, "ulong4": 16, "float2": 8, "float4": 16, "longlong2": 16, "ulonglong2": 16,
    "longlong4": 16, "ulonglong4": 16, "double2": 16, "double4": 16,
}

INT_RANK = {"bool": 0, "char": 1, "signed char": 1, "unsigned char": 1, "short": 2,
            "unsigned short": 2, "int": 3, "unsigned int": 3, "long": 4, "unsigned long": 4,
            "long long": 5, "unsigned long long": 5}
FLOAT_RANK = {"float": 1, "double": 2, "long double": 3}
SCALAR_SIZE = {"bool": 1, "char": 1, "signed char": 1, "unsigned char": 1, "short": 2,
               "unsigned short": 2, "int": 4, "unsigned int": 4, "long": 8, "unsigned long": 8,
               "long long": 8, "unsigned long long": 8, "float": 4, "double": 8,
               "long double": 16}
UNSIGNED_OF = {"char": "unsigned char", "signed char": "unsigned char", "short": "unsigned short",
               "int": "unsigned int", "long": "unsigned long", "long long": "unsigned long long"}


@dataclass(frozen=True)
class Field:
    name: str
    type: "T"


@dataclass(eq=False)
class RecordInfo:
    """Layout of a struct/union, shared by every T naming it (so that a type taken while the
    record was incomplete, e.g. ``struct node *next`` inside ``struct node``, sees it completed)."""

    size: Optional[int] = None
    align: int = 1
    fields: Optional[tuple] = None


@dataclass(frozen=True, eq=False)
class T:
    kind: str  # scalar pointer array record vector void function enum unknown
    name: str = ""  # base spelling as written: 'int', 'size_t', 'struct S', 'float4', 'dim3'
    canon: str = ""  # canonical scalar name ('unsigned long' for size_t) / record tag
    quals: tuple = ()  # subset of ('const', 'volatile', '__restrict'), in that order
    elem: Optional["T"] = None  # pointee / element / typedef target / function result
    extent: Optional[int] = None
    size: Optional[int] = None
    align: int = 1
    lanes: int = 1
    is_float: bool = False
    typedef_of: Optional["T"] = None
    fields: Optional[tuple] = None  # records: tuple of Field
    params: tuple = ()  # functions: parameter types
    variadic: bool = False
    rec: Optional[RecordInfo] = None  # records/vectors: the (possibly completed later) layout

    @property
    def is_const(self) -> bool:
        return "const" in self.quals

    @property
    def is_integer(self) -> bool:
        return self.kind == "enum" or (self.kind == "scalar" and self.canon in INT_RANK)

    @property
    def is_arith(self) -> bool:
        return self.kind == "enum" or (self.kind == "scalar" and
                                        (self.canon in INT_RANK or self.canon in FLOAT_RANK))


def size_of(t: T) -> Optional[int]:
    return t.rec.size if t.rec is not None else t.size


def align_of(t: T) -> int:
    return t.rec.align if t.rec is not None else t.align


def fields_of(t: T) -> Optional[tuple]:
    return t.rec.fields if t.rec is not None else t.fields


def scalar(name: str, quals: tuple = ()) -> T:
    size = SCALAR_SIZE.get(name)
    return T("scalar", name, name, quals, size=size, align=size or 1,
             is_float=name in FLOAT_RANK)


VOID = T("void", "void", "void")
INT = scalar("int")
UINT = scalar("unsigned int")
BOOL = scalar("bool")
CHAR = scalar("char")
ULONG = scalar("unsigned long")
DOUBLE = scalar("double")
FLOAT = scalar("float")
UNKNOWN = T("unknown", "<unknown>", "<unknown>")

_QUAL_ORDER = ("const", "volatile", "__restrict")


def with_quals(t: T, quals) -> T:
    q = tuple(x for x in _QUAL_ORDER if x in quals or x in t.quals)
    if q == t.quals:
        return t
    return replace(t, quals=q)


def unqual(t: T) -> T:
    return replace(t, quals=()) if t.quals else t


def pointer_to(t: T, quals=()) -> T:
    return T("pointer", "", "", tuple(x for x in _QUAL_ORDER if x in quals), elem=t, size=8, align=8)


def array_of(t: T, n: Optional[int]) -> T:
    es = size_of(t)
    size = es * n if (es is not None and n is not None) else None
    return T("array", "", "", (), elem=t, extent=n, size=size, align=align_of(t), is_float=t.is_float)


def typedef(name: str, target: T) -> T:
    """A typedef name for ``target`` (keeps its kind/size; spelled by its own name)."""
    base = canonical(target)
    if base.kind in ("pointer", "array", "function"):
        # typedef'd pointers/arrays: spell by name, behave like the target
        return replace(target, name=name, typedef_of=target, quals=())
    return replace(base, name=name, typedef_of=target, quals=target.quals)


def canonical(t: T) -> T:
    """The type with typedef sugar removed (qualifiers kept), C++ canonical spellings."""
    if t.typedef_of is not None:
        return with_quals(canonical(t.typedef_of), t.quals)
    if t.kind == "pointer":
        e = canonical(t.elem)
        return t if e is t.elem else replace(t, elem=e)
    if t.kind == "array":
        e = canonical(t.elem)
        return t if e is t.elem else replace(t, elem=e)
    if t.kind in ("record", "vector", "enum") and t.name != t.canon:
        return replace(t, name=t.canon)
    return t


def is_vector_name(name: str) -> Optional[re.Match]:
    return VECTOR_RE.match(name)


# --------------------------------------------------------------------------- spelling

def _qual_prefix(t: T) -> str:
    q = [x for x in t.quals if x != "__restrict"]
    return " ".join(q) + " " if q else ""


def spell(t: T) -> str:
    k = t.kind
    if t.typedef_of is not None:
        return _qual_prefix(t) + t.name
    if k == "pointer":
        e = t.elem
        q = " ".join(t.quals)
        if e is not None and e.typedef_of is None and e.kind == "array":
            base, dims = _array_parts(e)
            return f"{base} (*{q})" + dims
        if e is not None and e.typedef_of is None and e.kind == "function":
            return f"{spell(e.elem)} (*{q})({_params_text(e)})"
        es = spell(e) if e is not None else "void"
        s = es + "*" if es.endswith("*") else es + " *"
        return s + q
    if k == "array":
        base, dims = _array_parts(t)
        return base + dims
    if k == "function":
        return f"{spell(t.elem)} ({_params_text(t)})"
    return _qual_prefix(t) + t.name


def _params_text(f: T) -> str:
    ps = [spell(p) for p in f.params]
    if f.variadic:
        ps.append("...")
    return ", ".join(ps)


def _array_parts(t: T) -> tuple[str, str]:
    dims = ""
    while t.kind == "array" and t.typedef_of is None:
        dims += f"[{t.extent}]" if t.extent is not None else "[]"
        t = t.elem
    return spell(t), dims


# --------------------------------------------------------------------------- IR types

def to_ctype(t: T) -> ir.CType:
    """The IR type, following lower_clang's conventions."""
    sp = spell(t)
    c = canonical(t)
    const = t.is_const
    vol = "volatile" in t.quals
    k = c.kind
    if k == "pointer":
        return ir.CType(sp, "pointer", 8, element=to_ctype(t.elem if t.typedef_of is None else c.elem),
                        is_const=const, is_volatile=vol)
    if k == "array":
        # libclang's element type of a qualified array carries no qualifiers
        el = to_ctype(unqual(canonical(c.elem)))
        n = c.extent
        size = el.size * n if (el.size and n is not None) else None
        return ir.CType(sp, "array", size, element=el, extent=n, is_float=el.is_float,
                        is_const=const, is_volatile=vol)
    if k == "void":
        return ir.CType(sp, "void", None)
    if k == "vector":
        return ir.CType(sp, "vector", size_of(c), is_float=c.is_float, is_const=const,
                        is_volatile=vol, lanes=c.lanes)
    if k == "record":
        return ir.CType(sp, "record", size_of(c), is_float=c.canon in ("__half", "half", "__nv_bfloat16"),
                        is_const=const, is_volatile=vol)
    if k == "enum":
        return ir.CType(sp, "scalar", c.size or 4, is_const=const)
    if k == "function":
        return ir.CType(sp, "function", None)
    if k == "scalar":
        if c.canon in FLOAT_RANK:
            return ir.CType(sp, "scalar", c.size, is_float=True, is_const=const, is_volatile=vol)
        return ir.CType(sp, "scalar", c.size, is_const=const, is_volatile=vol)
    return ir.CType(sp, "unknown", None, is_const=const)


# --------------------------------------------------------------------------- conversions

def promote(t: T) -> T:
    """Integer promotion (C++ rules); other types unchanged (qualifiers dropped)."""
    t = unqual(t)
    c = canonical(t)
    if c.kind == "enum":
        return INT
    if c.kind == "scalar" and c.canon in INT_RANK and INT_RANK[c.canon] < 3:
        return INT
    return t


def _common_sugar(a: T, b: T) -> T:
    if spell(a) == spell(b):
        return a
    return canonical(a)


def arith(a: T, b: T) -> T:
    """Usual arithmetic conversions (clang's UsualArithmeticConversions, sugar kept)."""
    a, b = unqual(a), unqual(b)
    ca, cb = canonical(a), canonical(b)
    if ca.kind not in ("scalar", "enum") or cb.kind not in ("scalar", "enum"):
        return a if ca.kind != "unknown" else b
    # the integer promotions come first (UsualUnaryConversions): bool + bool is int
    a, b = promote(a), promote(b)
    ca, cb = canonical(a), canonical(b)
    if ca.canon == cb.canon:
        return _common_sugar(a, b)
    if ca.canon in FLOAT_RANK or cb.canon in FLOAT_RANK:
        ra, rb = FLOAT_RANK.get(ca.canon, 0), FLOAT_RANK.get(cb.canon, 0)
        return a if ra >= rb else b
    ua, ub = ca.canon.startswith("unsigned"), cb.canon.startswith("unsigned")
    ra, rb = INT_RANK.get(ca.canon, 3), INT_RANK.get(cb.canon, 3)
    if ua == ub:
        return a if ra >= rb else b
    us, s = (a, b) if ua else (b, a)
    rus, rs = (ra, rb) if ua else (rb, ra)
    if rus >= rs:
        return us
    cs = canonical(s)
    cu = canonical(us)
    if (cs.size or 0) > (cu.size or 0):
        return s
    return scalar(UNSIGNED_OF.get(cs.canon, "unsigned " + cs.canon))
