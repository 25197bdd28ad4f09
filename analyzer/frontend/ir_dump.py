"""A canonical, comparable rendering of the IR.

:func:`ir_summary` turns a :class:`~cudalint.analyzer.ir.TranslationUnit` into nested dicts,
lists and strings: structure, operators, names, type spellings/kinds/sizes and the start
``line:column`` of every node -- but no end positions, uids, file names or mangled names, so that
two frontends (libclang and pycparser) can be compared with ``==`` and their differences
listed with :func:`ir_diff`. Functions and globals are sorted by position, so the order in
which a frontend happened to lower them does not matter.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Optional

from .. import ir


def type_str(t: Optional[ir.CType]) -> Optional[str]:
    """``float[16][16] <array 1024 x16 float> of float[16] <array 64 x16 float> of float ...``"""
    if t is None:
        return None
    parts = [t.kind, str(t.size)]
    if t.extent is not None:
        parts.append(f"x{t.extent}")
    if t.is_float:
        parts.append("float")
    if t.is_const:
        parts.append("const")
    if t.is_volatile:
        parts.append("volatile")
    if t.lanes != 1:
        parts.append(f"lanes={t.lanes}")
    s = f"{t.spelling} <{' '.join(parts)}>"
    if t.element is not None:
        s += " of " + type_str(t.element)
    return s


def _at(r: Optional[ir.SourceRange]) -> str:
    if r is None:
        return "?"
    return f"{r.line}:{r.column}"


def var_summary(v: ir.Variable) -> dict:
    return {"name": v.name, "storage": v.storage, "type": type_str(v.type), "at": _at(v.range),
            "file_scope": v.file_scope, "is_reference": v.is_reference}


def _value(x: Any) -> Any:
    if isinstance(x, ir.Expr):
        return expr_summary(x)
    if isinstance(x, ir.Block):
        return block_summary(x)
    if isinstance(x, ir.Stmt):
        return stmt_summary(x)
    if isinstance(x, ir.Variable):
        return f"{x.name}:{x.storage}"
    if isinstance(x, ir.Function):
        return x.display_name
    if isinstance(x, ir.LaunchSite):
        return x.kernel
    if isinstance(x, ir.CType):
        return type_str(x)
    if isinstance(x, (list, tuple)):
        return [_value(y) for y in x]
    if isinstance(x, float):
        return float(f"{x:.9g}")
    return x


def expr_summary(e: ir.Expr) -> dict:
    out: dict = {"expr": type(e).__name__, "at": _at(e.range), "type": type_str(e.type)}
    for f in dataclasses.fields(e):
        if f.name in ("range", "type"):
            continue
        out[f.name] = _value(getattr(e, f.name))
    return out


def block_summary(b: ir.Block) -> dict:
    return {"stmt": "Block", "at": _at(b.range), "stmts": [stmt_summary(s) for s in b.stmts]}


def stmt_summary(s: ir.Stmt) -> dict:
    if isinstance(s, ir.Block):
        return block_summary(s)
    out: dict = {"stmt": type(s).__name__, "at": _at(s.range)}
    for f in dataclasses.fields(s):
        if f.name == "range":
            continue
        val = getattr(s, f.name)
        if isinstance(s, ir.DeclStmt) and f.name == "var":
            out["var"] = var_summary(val)
        else:
            out[f.name] = _value(val)
    return out


def function_summary(fn: ir.Function) -> dict:
    return {
        "name": fn.name, "display_name": fn.display_name, "kind": fn.kind, "at": _at(fn.range),
        "return_type": type_str(fn.return_type),
        "params": [var_summary(p) for p in fn.params],
        "launch_bounds": list(fn.launch_bounds) if fn.launch_bounds is not None else None,
        "template_params": list(fn.template_params),
        "template_bindings": {k: _value(v) for k, v in sorted(fn.template_bindings.items())},
        "locals": [f"{v.name}:{v.storage}@{_at(v.range)}" for v in fn.locals],
        "globals_used": [v.name for v in fn.globals_used],
        "callees": [c.display_name for c in fn.callees],
        "body": block_summary(fn.body) if fn.body is not None else None,
    }


def launch_summary(s: ir.LaunchSite) -> dict:
    return {
        "kernel": s.kernel, "at": _at(s.range), "caller": s.caller,
        "template_args": list(s.template_args),
        "grid": list(s.grid) if s.grid is not None else None,
        "block": list(s.block) if s.block is not None else None,
        "dynamic_smem": s.dynamic_smem,
        "grid_text": s.grid_text, "block_text": s.block_text, "smem_text": s.smem_text,
        "stream_text": s.stream_text,
        "args": [expr_summary(a) for a in s.args],
        "arg_values": [_value(v) for v in s.arg_values],
    }


def _pos_key(r: ir.SourceRange) -> tuple:
    return (r.line, r.column)


def ir_summary(tu: ir.TranslationUnit) -> dict:
    """Canonical nested-dict form of ``tu`` (see the module docstring)."""
    fns = sorted(tu.functions, key=lambda f: (_pos_key(f.range), f.display_name))
    gl = sorted(tu.globals, key=lambda v: (_pos_key(v.range), v.name))
    ls = sorted(tu.launches, key=lambda s: (_pos_key(s.range), s.kernel))
    return {
        "functions": [function_summary(f) for f in fns],
        "globals": [var_summary(v) for v in gl],
        "launches": [launch_summary(s) for s in ls],
    }


def ir_diff(a: Any, b: Any, path: str = "", limit: int = 200) -> list[str]:
    """Paths where two summaries differ, e.g. ``functions[0].body.stmts[2].type: 'int' != 'bool'``."""
    out: list[str] = []
    _diff(a, b, path, out, limit)
    return out


def _label(d: Any) -> str:
    if isinstance(d, dict):
        for k in ("name", "kernel", "stmt", "expr"):
            if isinstance(d.get(k), str):
                return f"<{d[k]}@{d.get('at', '?')}>"
    return ""


def _diff(a: Any, b: Any, path: str, out: list, limit: int) -> None:
    if len(out) >= limit:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a.keys()) + [k for k in b.keys() if k not in a]:
            if k not in a or k not in b:
                out.append(f"{path}.{k}: only in {'first' if k in a else 'second'}")
                continue
            _diff(a[k], b[k], f"{path}.{k}" if path else k, out, limit)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            la = [_label(x) or repr(x)[:60] for x in a]
            lb = [_label(x) or repr(x)[:60] for x in b]
            out.append(f"{path}: {len(a)} items != {len(b)} items: {la} vs {lb}")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            _diff(x, y, f"{path}[{i}]{_label(x)}", out, limit)
        return
    if a != b:
        out.append(f"{path}: {a!r} != {b!r}")
