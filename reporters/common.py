"""Helpers shared by the reporters and the baseline: source lines, column conversion, paths
and stable fingerprints."""
from __future__ import annotations

import hashlib
import os
from typing import Optional

from ..rules.diagnostic import Diagnostic


class SourceLines:
    """Lines of the reported files, read once (missing files: no lines)."""

    def __init__(self):
        self._cache: dict[str, list[str]] = {}

    def lines(self, path: str) -> list[str]:
        if path not in self._cache:
            try:
                with open(path, "rb") as f:
                    data = f.read()
                text = data.decode("utf-8", errors="surrogateescape")
                self._cache[path] = text.splitlines()
            except OSError:
                self._cache[path] = []
        return self._cache[path]

    def line(self, path: str, line: int) -> Optional[str]:
        ls = self.lines(path)
        return ls[line - 1] if 1 <= line <= len(ls) else None

    def char_column(self, path: str, line: int, byte_column: int) -> int:
        """clang's 1-based byte column -> 1-based Unicode code point column."""
        text = self.line(path, line)
        if text is None or byte_column <= 1:
            return max(byte_column, 1)
        raw = text.encode("utf-8", errors="surrogateescape")
        prefix = raw[:byte_column - 1]
        extra = byte_column - 1 - len(prefix)  # past the end of the line
        return len(prefix.decode("utf-8", errors="replace")) + extra + 1

    def utf16_column(self, path: str, line: int, byte_column: int) -> int:
        """clang's 1-based byte column -> 0-based UTF-16 offset (LSP)."""
        text = self.line(path, line)
        if text is None:
            return max(byte_column - 1, 0)
        raw = text.encode("utf-8", errors="surrogateescape")
        prefix = raw[:max(byte_column - 1, 0)]
        extra = max(byte_column - 1 - len(raw), 0)
        s = prefix.decode("utf-8", errors="replace")
        return len(s.encode("utf-16-le")) // 2 + extra


def display_path(path: str, base: Optional[str] = None) -> str:
    """``path`` relative to ``base`` (default: the working directory) when it lies under it."""
    base = os.path.abspath(base or os.getcwd())
    ap = os.path.abspath(path)
    try:
        rel = os.path.relpath(ap, base)
    except ValueError:
        return ap
    return ap if rel.startswith("..") else rel


def line_fingerprint(d: Diagnostic, source: SourceLines) -> str:
    """A fingerprint that survives edits elsewhere in the file: the code, the kernel and the
    whitespace-normalised text of the diagnostic's line (not its number)."""
    text = source.line(d.path, d.location.line) or ""
    norm = " ".join(text.split())
    h = hashlib.sha256(f"{d.code}\0{d.kernel or ''}\0{norm}".encode("utf-8", "surrogateescape"))
    return h.hexdigest()[:32]
