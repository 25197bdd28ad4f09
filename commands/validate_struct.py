"""Byte layout of a struct passed by value to a kernel, for ``cudalint validate``.

The IR keeps no struct layout, so the layout is asked of clang (the same parse as the
analysis): each field's byte offset and type. Pointer fields get buffers of their own (named
``param.field``, sized like any buffer from the accesses ``param.field[i]``); integer and
floating fields get values (``--param param.field=V``, else the static analysis' default);
anything else inside (nested structs, arrays) is filled with zero bytes, and said so.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..analyzer.target import DEFAULT_ARCH

__all__ = ["StructField", "record_layout"]


@dataclass
class StructField:
    name: str
    offset: int  # bytes
    size: int
    kind: str  # pointer | scalar | other
    dtype: str = ""  # numpy dtype of a scalar field
    pointee_size: int = 0  # pointer: bytes of one element
    pointee: str = ""  # pointer: the element's spelling
    is_float: bool = False


_INT = {1: "int8", 2: "int16", 4: "int32", 8: "int64"}
_FLOAT = {2: "float16", 4: "float32", 8: "float64"}


def _kinds(*names: str) -> tuple:
    """clang TypeKinds by name (some libclang versions lack FLOAT16 and the like)."""
    from clang.cindex import TypeKind as TK

    return tuple(getattr(TK, n) for n in names if hasattr(TK, n))


def _field(name: str, off_bits: int, t) -> StructField:
    from clang.cindex import TypeKind as TK

    _FLOATS = _kinds("FLOAT", "DOUBLE", "HALF", "FLOAT16")
    c = t.get_canonical()
    size = max(0, c.get_size())
    if c.kind == TK.POINTER:
        p = c.get_pointee().get_canonical()
        return StructField(name, off_bits // 8, size, "pointer", "uint64", max(1, p.get_size()),
                           p.spelling, p.kind in _FLOATS)
    if c.kind in _FLOATS:
        return StructField(name, off_bits // 8, size, "scalar", _FLOAT.get(size, "float32"), is_float=True)
    if c.kind == TK.BOOL:
        return StructField(name, off_bits // 8, size, "scalar", "bool")
    if c.kind in _kinds("CHAR_S", "SCHAR", "SHORT", "INT", "LONG", "LONGLONG", "INT128", "ENUM"):
        return StructField(name, off_bits // 8, size, "scalar", _INT.get(size, "int32"))
    if c.kind in _kinds("CHAR_U", "UCHAR", "USHORT", "UINT", "ULONG", "ULONGLONG", "UINT128"):
        return StructField(name, off_bits // 8, size, "scalar", "u" + _INT.get(size, "int32"))
    return StructField(name, off_bits // 8, size, "other")


def record_layout(path: str, kernel: str, param: str, include_dirs=(), defines=(), std: str = "c++17",
                  arch: str = DEFAULT_ARCH) -> tuple[Optional[list], int, str]:
    """(fields, struct bytes, why) of kernel ``kernel``'s by-value parameter ``param``; fields is
    None (with the reason) when clang cannot give the layout."""
    from clang.cindex import CursorKind as CK

    from ..analyzer.frontend.parse import FrontendOptions, parse_file

    pr = parse_file(path, FrontendOptions(include_dirs=list(include_dirs), defines=list(defines), std=std,
                                          arch=arch))
    if pr.tu is None:
        return None, 0, f"clang cannot parse {path}"
    stack = [pr.tu.cursor]
    while stack:
        cur = stack.pop()
        if cur.kind in (CK.FUNCTION_DECL, CK.FUNCTION_TEMPLATE) and cur.spelling == kernel:
            for a in cur.get_arguments():
                if a.spelling != param:
                    continue
                t = a.type.get_canonical()
                size = t.get_size()
                if size <= 0:
                    return None, 0, f"`{param}` has a type of unknown size"
                fields = []
                for f in t.get_fields():
                    off = t.get_offset(f.spelling)
                    if off < 0:
                        return None, 0, f"offset of `{param}.{f.spelling}` unknown"
                    fields.append(_field(f.spelling, off, f.type))
                return fields, size, ""
        stack.extend(cur.get_children())
    return None, 0, f"kernel `{kernel}` with a parameter `{param}` not found by clang"
