"""libclang C API entry points the Python bindings of the wheel do not wrap.

The native ``libclang.so`` (>= 17) exports operator kinds and constant evaluation; the
``clang.cindex`` module of the same wheel does not expose them, so we bind them with ctypes.
"""
from __future__ import annotations

import ctypes
from typing import Optional, Union

import clang.cindex as ci

_lib = None

# CXUnaryOperatorKind (clang-c/Index.h, libclang 17+)
_UNARY = {1: "post++", 2: "post--", 3: "pre++", 4: "pre--", 5: "&", 6: "*", 7: "+", 8: "-",
          9: "~", 10: "!", 11: "__real", 12: "__imag", 13: "__extension__", 14: "co_await"}


def _load():
    global _lib
    if _lib is not None:
        return _lib
    lib = ci.conf.lib
    lib.clang_getCursorBinaryOperatorKind.argtypes = [ci.Cursor]
    lib.clang_getCursorBinaryOperatorKind.restype = ctypes.c_int
    lib.clang_getBinaryOperatorKindSpelling.argtypes = [ctypes.c_int]
    lib.clang_getBinaryOperatorKindSpelling.restype = ci._CXString
    lib.clang_getCursorUnaryOperatorKind.argtypes = [ci.Cursor]
    lib.clang_getCursorUnaryOperatorKind.restype = ctypes.c_int
    lib.clang_Cursor_Evaluate.argtypes = [ci.Cursor]
    lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
    lib.clang_EvalResult_getKind.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getKind.restype = ctypes.c_int
    lib.clang_EvalResult_isUnsignedInt.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_isUnsignedInt.restype = ctypes.c_uint
    lib.clang_EvalResult_getAsLongLong.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsLongLong.restype = ctypes.c_longlong
    lib.clang_EvalResult_getAsUnsigned.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsUnsigned.restype = ctypes.c_ulonglong
    lib.clang_EvalResult_getAsDouble.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsDouble.restype = ctypes.c_double
    lib.clang_EvalResult_dispose.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_dispose.restype = None
    lib.clang_getSpecializedCursorTemplate.argtypes = [ci.Cursor]
    lib.clang_getSpecializedCursorTemplate.restype = ci.Cursor
    _lib = lib
    return lib


def binary_operator(cursor: ci.Cursor) -> str:
    """The operator of a BINARY_OPERATOR / COMPOUND_ASSIGNMENT_OPERATOR cursor ('+', '+=')."""
    lib = _load()
    kind = lib.clang_getCursorBinaryOperatorKind(cursor)
    if kind == 0:
        return ""
    return ci._CXString.from_result(lib.clang_getBinaryOperatorKindSpelling(kind))


def unary_operator(cursor: ci.Cursor) -> str:
    lib = _load()
    return _UNARY.get(lib.clang_getCursorUnaryOperatorKind(cursor), "")


def evaluate(cursor: ci.Cursor) -> Optional[Union[int, float]]:
    """Constant-evaluate an expression cursor (clang's own evaluator); None if not constant.

    Never call this on a value-dependent expression (inside an uninstantiated template):
    libclang asserts on those. Callers check ``is_dependent`` first.
    """
    lib = _load()
    res = lib.clang_Cursor_Evaluate(cursor)
    if not res:
        return None
    try:
        kind = lib.clang_EvalResult_getKind(res)
        if kind == 1:  # CXEval_Int
            if lib.clang_EvalResult_isUnsignedInt(res):
                return int(lib.clang_EvalResult_getAsUnsigned(res))
            return int(lib.clang_EvalResult_getAsLongLong(res))
        if kind == 2:  # CXEval_Float
            return float(lib.clang_EvalResult_getAsDouble(res))
        return None
    finally:
        lib.clang_EvalResult_dispose(res)


def specialized_template(cursor: ci.Cursor) -> Optional[ci.Cursor]:
    lib = _load()
    c = lib.clang_getSpecializedCursorTemplate(cursor)
    if c is None or c.kind.is_invalid():
        return None
    return c
