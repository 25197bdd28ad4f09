"""Where an array is used other than to read or write one of its elements.

Changing an array's declared shape (padding a shared tile's rows) keeps the program's meaning
only when every use indexes all of its dimensions down to one element: a row passed to a
function, the array's address taken or cast, ``sizeof`` of it, or an element's address (pointer
arithmetic may walk across rows) all see the new row length.
"""
from __future__ import annotations

import re

from . import ir


def shape_dependent_uses(var: ir.Variable, functions: list[ir.Function], source_lines: list[str],
                         main_file: str = "") -> list[str]:
    """Why changing ``var``'s shape could change the program (empty when nothing but element
    accesses use it). ``functions`` are those that can see ``var``; ``source_lines`` the main
    file's lines (``sizeof`` is lowered to its value, so its operand is read from the text)."""
    depth = len(var.type.array_extents()) if var.type.kind == "array" else 0
    reasons: list[str] = []
    for fn in functions:
        for stmt in fn.statements():
            for top in stmt.exprs():
                _visit(top, None, var, depth, reasons)
        for e in fn.expressions():
            if isinstance(e, ir.SizeOf) and _mentions(e.range, var.name, source_lines, main_file):
                reasons.append(f"`sizeof` of it at line {e.range.line}")
    return list(dict.fromkeys(reasons))


def _visit(e: ir.Expr, parent, var, depth: int, reasons: list[str]) -> None:
    if isinstance(e, ir.VarRef) and e.var is var:
        levels, node, chain = 0, e, []
        # climb the Index nodes that use this reference as their base
        p = parent
        while p is not None and isinstance(p[0], ir.Index) and p[0].base is node:
            levels += 1
            node = p[0]
            chain.append(p)
            p = p[1]
        if levels < depth:
            reasons.append(f"used as a pointer or row at line {e.range.line}")
        elif p is not None and isinstance(p[0], ir.UnaryOp) and getattr(p[0], "op", "") == "&":
            reasons.append(f"an element's address is taken at line {e.range.line}")
        return
    for c in e.children():
        if c is not None:
            _visit(c, (e, parent), var, depth, reasons)


def _mentions(r: ir.SourceRange, name: str, lines: list[str], main_file: str) -> bool:
    if main_file and r.file and not r.in_file(main_file):
        return False
    if not 1 <= r.line <= len(lines):
        return True  # cannot read it: assume it does
    end_line = r.end_line if r.end_line >= r.line else r.line
    if end_line == r.line and r.end_column > r.column:
        text = lines[r.line - 1].encode("utf-8")[r.column - 1:r.end_column - 1].decode("utf-8", "replace")
    else:
        text = "\n".join(lines[r.line - 1:min(end_line, len(lines))])
    return re.search(r"\b" + re.escape(name) + r"\b", text) is not None
