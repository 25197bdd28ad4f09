"""Cheaper reads of what the lowering asks every cursor: its children and where it is.

The Python bindings pay for generality on every call: ``Cursor.get_children`` compares each
child with the null cursor (a ctypes call per child) and ``SourceLocation.file`` builds a new
``File`` and a Python string from a ``CXString`` each time. The lowering asks these hundreds
of thousands of times per file, so these helpers make the same libclang calls with less
around them: one visitor callback for the whole process, and each file's name read once per
translation unit (a ``CXFile`` is a ``FileEntry`` of that unit: same pointer, same file).
The answers are exactly the bindings' (``loc_file(loc) == loc.file.name``).
"""
from __future__ import annotations

import threading
from ctypes import byref, c_uint, c_void_p, cast

import clang.cindex as ci

_CB = ci.callbacks["cursor_visit"]


def _visit(child, _parent, acc):
    acc.append(child)
    return 1  # CXChildVisit_Continue


_VISITOR = _CB(_visit)
_INST = _START = _END = None


def _prototypes():
    """Our own prototypes of the location calls, without argument checks: the file comes
    back as a plain ``c_void_p`` whose ``.value`` is the pointer (the bindings' ``c_object_p``
    has none), and a ``CXSourceLocation`` is passed by value as the structure it is."""
    global _INST, _START, _END
    lib = ci.conf.lib
    start, end = lib["clang_getRangeStart"], lib["clang_getRangeEnd"]  # fresh function objects
    for fn in (start, end):
        fn.argtypes, fn.restype = None, ci.SourceLocation
    inst = lib["clang_getInstantiationLocation"]
    inst.argtypes, inst.restype = None, None
    _INST, _START, _END = inst, start, end


def children(c: ci.Cursor) -> list:
    """``list(c.get_children())`` (the visitor never sees the null cursor)."""
    out: list = []
    ci.conf.lib.clang_visitChildren(c, _VISITOR, out)
    tu = c._tu
    for ch in out:
        ch._tu = tu  # keeps the unit alive while the cursor is, as the bindings do
    return out


_LOCAL = threading.local()


def _out():
    """This thread's result buffers for clang_getInstantiationLocation (ctypes lets other
    threads run during the call, so they cannot be shared)."""
    f, ln, col, off = c_void_p(), c_uint(), c_uint(), c_uint()
    _LOCAL.out = (f, ln, col, off, (byref(f), byref(ln), byref(col), byref(off)))
    return _LOCAL.out


def _file_name(key: int, tu) -> str:
    names = tu.__dict__.get("_cudalint_file_names")
    if names is None:
        names = tu.__dict__["_cudalint_file_names"] = {}
    name = names.get(key)
    if name is None:
        name = names[key] = ci.File(cast(c_void_p(key), ci.c_object_p)).name
    return name


def location(loc: ci.SourceLocation, tu) -> tuple:
    """(file name or '', line, column, offset) of a location, as ``loc.file.name``, ``loc.line``,
    ``loc.column`` and ``loc.offset`` answer; ``tu`` is the unit the location belongs to."""
    try:
        f, ln, col, off, refs = _LOCAL.out
    except AttributeError:
        f, ln, col, off, refs = _out()
    if _INST is None:
        _prototypes()
    _INST(loc, *refs)
    key = f.value
    return (_file_name(key, tu) if key else ""), ln.value, col.value, off.value


def extent(c: ci.Cursor) -> tuple:
    """(start, end) of the cursor's extent, each as :func:`location` gives it (kept on the
    cursor object: the lowering asks several times for the same one)."""
    hit = c.__dict__.get("_cudalint_extent")
    if hit is not None:
        return hit
    e = c.extent
    tu = c._tu
    hit = c.__dict__["_cudalint_extent"] = (location(_START(e), tu), location(_END(e), tu))
    return hit


def preorder(c: ci.Cursor):
    """``c.walk_preorder()``: the cursor, then each child's subtree in order."""
    stack = [c]
    while stack:
        x = stack.pop()
        yield x
        kids = children(x)
        kids.reverse()
        stack.extend(kids)
