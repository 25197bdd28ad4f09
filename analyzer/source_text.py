"""The lines of a source file, read once per run (facts quote loop headers and expressions
by their text; a kernel may live in a header, so its own file is read, not the analysed one)."""
from __future__ import annotations

_CACHE: dict = {}


def source_lines(path: str) -> list[str]:
    """The file's lines ([] when it cannot be read); at most 64 files are kept."""
    if not path:
        return []
    lines = _CACHE.get(path)
    if lines is None:
        if len(_CACHE) > 64:
            _CACHE.clear()
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            lines = []
        _CACHE[path] = lines
    return lines


def range_text(r) -> str:
    """The source text of a one-line :class:`~.ir.SourceRange` ("" when unavailable)."""
    if not r.file or r.line <= 0 or r.end_line != r.line:
        return ""
    lines = source_lines(r.file)
    if r.line > len(lines):
        return ""
    return lines[r.line - 1][max(r.column - 1, 0):max(r.end_column - 1, 0)]
