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
    """Each diagnostic with its source line and a caret marking the range; coloured with rich
    when ``color`` (a terminal)."""
    cache: dict = {}
    out: list[list[tuple[str, Optional[str]]]] = []  # lines of (text, style) segments
    for r in results:
        for d in sorted(r.diagnostics, key=Diagnostic.sort_key):
            out.append([(f"{d.path}:{d.location.line}:{d.location.column}: ", "bold"),
                        (f"{d.severity}:", _STYLES.get(d.severity)), (f" {d.message} ", None),
                        (f"[{d.code}]", "bold magenta")])
            lines = _source_lines(d.path, cache)
            if 1 <= d.location.line <= len(lines):
                src = lines[d.location.line - 1].expandtabs(1)
                start = d.location.column - 1
                end = d.end_location.column - 1 if d.end_location.line == d.location.line else len(src)
                width = max(1, min(end, len(src)) - start)
                gutter = f"{d.location.line:>5} | "
                out.append([(gutter, "blue"), (src, None)])
                out.append([(" " * (len(gutter) + start), None), ("^" + "~" * (width - 1), _STYLES["caret"])])
            if d.fix is not None:
                out.append([("      = ", "blue"), ("fix: ", "bold green"), (d.fix.description, None)])
            for rel in d.related:
                out.append([("      = ", "blue"), ("note: ", "bold cyan"),
                            (f"{rel.path}:{rel.location.line}:{rel.location.column}: {rel.message}", None)])
            out.append([])
    if not color:
        return "\n".join("".join(t for t, _ in segs) for segs in out)
    import io

    from rich.console import Console
    from rich.text import Text

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, color_system="standard", width=100000,
                      soft_wrap=True, highlight=False, markup=False, emoji=False)
    for segs in out:
        console.print(Text.assemble(*[(t, s) if s else t for t, s in segs]))
    return buf.getvalue().rstrip("\n")


_STYLES = {"error": "bold red", "warning": "bold yellow", "info": "bold cyan", "caret": "bold green"}
