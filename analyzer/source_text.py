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
