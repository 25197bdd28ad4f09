"""`cudalint explain`: per-kernel facts as JSON (DESIGN.md shape) or as readable tables."""
from __future__ import annotations

import io
import json
from typing import Optional

from .. import __version__
from ..analyzer.pipeline import FileAnalysis
from .explain_text import renderer
from .sync_text import render_sync_text


def explain_json(analyses: list[FileAnalysis], arch: str) -> dict:
    files = []
    for fa in analyses:
        entry = {"path": fa.path, "kernels": [k.to_json() for k in fa.kernels]}
        if fa.error is not None:
            entry["error"] = {"message": fa.error.message, "line": fa.error.line,
                              "column": fa.error.column}
        if fa.notes:
            entry["notes"] = list(fa.notes)
        files.append(entry)
    return {"version": __version__, "arch": arch, "files": files}


def render_explain_json(analyses: list[FileAnalysis], arch: str) -> str:
    return json.dumps(explain_json(analyses, arch), indent=2) + "\n"


def _fmt_bytes(b: Optional[int]) -> str:
    return "?" if b is None else str(b)


def render_explain_text(analyses: list[FileAnalysis], arch: str, color: bool = False) -> str:
    from rich.console import Console
    from rich.markup import escape as esc
    from rich.table import Table
    from rich.text import Text

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, no_color=not color, width=120,
                      highlight=False, soft_wrap=True)
    for fa in analyses:
        if fa.error is not None:
            console.print(f"[bold red]{esc(fa.path)}[/]: cannot analyse: {esc(fa.error.message)}")
            continue
        if not fa.kernels:
            console.print(f"{esc(fa.path)}: no kernels")
        for note in fa.notes:
            console.print(f"[dim]{esc(fa.path)}: note: {esc(note)}[/]")
        for k in fa.kernels:
            lc = k.launch
            console.print(f"[bold]{esc(k.function.range.file or fa.path)}:{k.function.range.line}: "
                          f"kernel {esc(k.name)}[/]  ({arch})")
            grid = "x".join(map(str, lc.grid)) if lc.grid else "unknown"
            console.print(f"  launch: block {'x'.join(map(str, lc.block))}, grid {grid}, "
                          f"dynamic smem {_fmt_bytes(lc.dynamic_smem)} B  " + esc(f"[from {lc.source}: {lc.detail}]"))
            for a in lc.assumptions:
                console.print(f"  [yellow]assumed:[/] {esc(a)}")
            if k.skipped:
                console.print(f"  [red]not analysed:[/] {esc(k.skipped)}")
                continue
            t = Table(show_edge=False, box=None, pad_edge=False, header_style="bold")
            for col in ("variable", "line", "memory", "scope", "lifetime", "bytes", "why"):
                t.add_column(col, no_wrap=col != "why")
            for v in k.variables:
                why = v.reason + ("".join(f"; {a}" for a in v.assumptions))
                t.add_row(esc(v.name if v.function == k.name else f"{v.function}::{v.name}"), str(v.line),
                          v.memory, v.scope, v.lifetime, _fmt_bytes(v.bytes), esc(why))
            console.print(t)
            for val in (k.accesses, k.resources, k.occupancy, k.predicted_counters, k.cgma, k.roofline):
                render = renderer(val)
                if render is not None:
                    console.print(render())
            if k.sync is not None:
                console.print(Text(render_sync_text(k.sync)))  # verbatim: no markup
            console.print("")
    return buf.getvalue()
