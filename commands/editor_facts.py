"""The facts an editor shows in place (hover, inlay hints, code lenses), taken from one analysis.

Runs in the analyser process next to the check of a buffer, so that the diagnostics and the
facts come from the same parse. The result is plain JSON (it crosses a process boundary): each
kernel's ``explain`` JSON (the same facts and words as ``cudalint explain``) plus the source
ranges the editor needs to find them again: where the kernel's name is written (definition and
launch sites), where each variable is referenced, and each access's full range with its
bank-conflict degree. Ranges are 1-based lines and byte columns of the analysed file only.
"""
from __future__ import annotations

import re
from typing import Optional


def _in_file(r, path: str) -> bool:
    return r is not None and r.line > 0 and (not r.file or r.in_file(path))


def _name_span(lines: list[str], name: str, first: int, last: int) -> Optional[list[int]]:
    """[line, column, end column] (byte columns) of ``name`` followed by ``(``, ``<`` or ``<<<``
    between lines ``first`` and ``last``."""
    pat = re.compile(r"\b" + re.escape(name) + r"\s*[(<]")
    for ln in range(max(first, 1), min(last, len(lines)) + 1):
        m = pat.search(lines[ln - 1])
        if m:
            col = len(lines[ln - 1][:m.start()].encode("utf-8")) + 1
            return [ln, col, col + len(name.encode("utf-8"))]
    return None


def _functions(fn) -> list:
    from ..analyzer.lowering import callees

    return [fn] + callees(fn)


def editor_facts(fa, path: str) -> dict:
    """JSON facts of a :class:`FileAnalysis` for the editor (``path``: the analysed file)."""
    from ..analyzer import ir

    lines = fa.source_lines
    kernels = []
    for kf in fa.kernels:
        fn = kf.function
        doc = kf.to_json()
        entry = {"name": kf.name, "json": doc, "definition": None, "references": [], "accesses": []}
        if _in_file(fn.range, path):
            entry["definition"] = _name_span(lines, fn.name, fn.range.line, fn.range.end_line or fn.range.line)
        by_var = {id(v.variable): i for i, v in enumerate(kf.variables) if getattr(v, "variable", None) is not None}
        for i, v in enumerate(kf.variables):
            var = getattr(v, "variable", None)
            if var is not None and _in_file(var.range, path):
                span = _name_span_plain(lines, var.name, var.range.line, max(var.range.end_line, var.range.line),
                                        var.range.column)
                if span:
                    entry["references"].append(span + [i])
        for f in _functions(fn):
            if f.body is None:
                continue
            for e in f.expressions():
                if isinstance(e, ir.VarRef) and id(e.var) in by_var and _in_file(e.range, path) \
                        and e.range.line == e.range.end_line:
                    entry["references"].append([e.range.line, e.range.column, e.range.end_column, by_var[id(e.var)]])
        table = kf.accesses
        for a, aj in zip(list(table or []), doc.get("accesses") or []):
            r = a.range
            if not _in_file(r, path):
                continue
            entry["accesses"].append({**aj, "end_line": a.end_line, "end_column": a.end_column,
                                      "ways": _num(a.ways), "min_wavefronts": _num(a.min_wavefronts)})
        kernels.append(entry)
    launches = []
    tu = fa.tu
    for ls in (tu.launches if tu is not None else []):
        r = ls.range
        if _in_file(r, path):
            span = _name_span(lines, ls.kernel, r.line, r.end_line or r.line)
            if span:
                launches.append({"kernel": ls.kernel, "span": span})
    arch = fa.options.arch if fa.options is not None else None
    return {"arch": arch, "kernels": kernels, "launches": launches,
            "error": fa.error.message if fa.error is not None else None}


def _name_span_plain(lines: list[str], name: str, first: int, last: int,
                     column: int = 1) -> Optional[list[int]]:
    """The first ``name`` as a whole word from (``first``, byte ``column``) on."""
    pat = re.compile(r"\b" + re.escape(name) + r"\b")
    for ln in range(max(first, 1), min(last, len(lines)) + 1):
        text = lines[ln - 1]
        start = len(text.encode("utf-8")[:max(column - 1, 0)].decode("utf-8", "ignore")) if ln == first else 0
        m = pat.search(text, start)
        if m:
            col = len(lines[ln - 1][:m.start()].encode("utf-8")) + 1
            return [ln, col, col + len(name.encode("utf-8"))]
    return None


def _num(v):
    if v is None:
        return None
    r = round(float(v), 3)
    return int(r) if r.is_integer() else r
