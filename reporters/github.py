"""`check --output-format github`: GitHub Actions workflow commands, one annotation per
diagnostic::

    ::warning file=src/k.cu,line=12,col=5,endLine=12,endColumn=18,title=CL201::message

Severity error -> ``::error``, warning -> ``::warning``, info -> ``::notice``. Escaping follows
the Actions toolkit: in the message ``%``, CR and LF are percent-encoded; in property values also
``:`` and ``,``. ``col``/``endColumn`` are given only for a single-line range (GitHub ignores
them otherwise). Paths are relative to the working directory (the checkout) when under it.
"""
from __future__ import annotations

from ..rules.diagnostic import Diagnostic, FileResult
from .common import SourceLines, display_path

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def format_annotation(d: Diagnostic, src: SourceLines) -> str:
    props = [("file", display_path(d.path)), ("line", str(d.location.line))]
    if d.end_location.line == d.location.line:
        col = src.char_column(d.path, d.location.line, d.location.column)
        end = src.char_column(d.path, d.end_location.line, d.end_location.column)
        props += [("col", str(col)), ("endLine", str(d.end_location.line)),
                  ("endColumn", str(max(end, col)))]
    else:
        props.append(("endLine", str(d.end_location.line)))
    props.append(("title", d.code))
    head = ",".join(f"{k}={escape_property(v)}" for k, v in props)
    return f"::{COMMANDS.get(d.severity, 'warning')} {head}::{escape_data(d.message)} ({d.name})"


def render_github(results: list[FileResult]) -> str:
    src = SourceLines()
    out = [format_annotation(d, src) for r in results for d in sorted(r.diagnostics, key=Diagnostic.sort_key)]
    return "\n".join(out) + ("\n" if out else "")
