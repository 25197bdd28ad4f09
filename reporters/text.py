"""gcc-style one line per diagnostic (what editors' problem matchers parse), and the `full`
form with the source line and a caret underline."""
from __future__ import annotations

from typing import Optional

from ..rules.diagnostic import Diagnostic, FileResult


def format_line(d: Diagnostic) -> str:
    return f"{d.path}:{d.location.line}:{d.location.column}: {d.severity}: {d.message} [{d.code}]"


def render_text(results: list[FileResult]) -> str:
    out = []
    for r in results:
        for d in sorted(r.diagnostics, key=Diagnostic.sort_key):
            out.append(format_line(d))
    return "\n".join(out) + ("\n" if out else "")


def _source_lines(path: str, cache: dict) -> list[str]:
    if path not in cache:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                cache[path] = f.read().splitlines()
        except OSError:
            cache[path] = []
    return cache[path]


def render_full(results: list[FileResult], color: bool = False) -> str:
    """Each diagnostic with its source line and a caret marking the range."""
    cache: dict = {}
    out: list[str] = []
    for r in results:
        for d in sorted(r.diagnostics, key=Diagnostic.sort_key):
            out.append(_style(format_line(d), d.severity, color))
            lines = _source_lines(d.path, cache)
            if 1 <= d.location.line <= len(lines):
                src = lines[d.location.line - 1].expandtabs(1)
                start = d.location.column - 1
                end = d.end_location.column - 1 if d.end_location.line == d.location.line else len(src)
                width = max(1, min(end, len(src)) - start)
                gutter = f"{d.location.line:>5} | "
                out.append(gutter + src)
                out.append(" " * (len(gutter) + start) + _style("^" + "~" * (width - 1), "caret", color))
            if d.fix is not None:
                out.append(f"      = fix: {d.fix.description}")
            for rel in d.related:
                out.append(f"      = note: {rel.path}:{rel.location.line}:{rel.location.column}: {rel.message}")
            out.append("")
    return "\n".join(out)


_COLORS = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "info": "\x1b[1;36m", "caret": "\x1b[1;32m"}


def _style(text: str, kind: Optional[str], color: bool) -> str:
    if not color or kind not in _COLORS:
        return text
    return f"{_COLORS[kind]}{text}\x1b[0m"
