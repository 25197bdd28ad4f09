"""What a rule's check function receives: the analysed file, the target and rule options."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..analyzer import ir
from ..analyzer.pipeline import FileAnalysis, KernelFacts
from ..analyzer.target import Target
from .diagnostic import Diagnostic, Fix, Location, Related
from .registry import Rule


@dataclass
class RuleContext:
    analysis: FileAnalysis
    target: Target
    rule_options: dict = field(default_factory=dict)  # code -> {option: value}
    severity_overrides: dict = field(default_factory=dict)  # code -> severity

    @property
    def path(self) -> str:
        return self.analysis.path

    @property
    def kernels(self) -> list[KernelFacts]:
        return [k for k in self.analysis.kernels if not k.skipped]

    def option(self, rule: Rule, name: str):
        return self.rule_options.get(rule.code, {}).get(name, rule.options.get(name))

    def source_text(self, r: ir.SourceRange) -> str:
        """The source text of a range as written, read from the range's own file (an access in
        an included header is quoted from the header); a range over several lines is joined
        with its whitespace collapsed; "" when it cannot be read."""
        return range_text(r, self.path, self.analysis.source_lines)

    def diag(self, rule: Rule, r: ir.SourceRange, message: str, kernel: Optional[str] = None,
             fix: Optional[Fix] = None, related: tuple[Related, ...] = (),
             severity: Optional[str] = None) -> Diagnostic:
        sev = self.severity_overrides.get(rule.code, severity or rule.severity)
        line, col = max(r.line, 1), max(r.column, 1)
        end_line, end_col = (r.end_line, r.end_column) if r.end_line else (line, col + 1)
        return Diagnostic(rule.code, rule.name, sev, message, self.path, Location(line, col),
                          Location(end_line, end_col), kernel, fix, tuple(related))


def range_text(r: ir.SourceRange, path: str, lines: list[str]) -> str:
    """See :meth:`RuleContext.source_text` (``lines`` are those of ``path``)."""
    import os
    if r is None or not r.line:
        return ""
    if r.file and os.path.abspath(r.file) != os.path.abspath(path):
        lines = _file_lines(os.path.abspath(r.file))
    if not (1 <= r.line <= len(lines)) or r.end_line < r.line or r.end_line > len(lines):
        return ""
    if r.end_line == r.line:
        return lines[r.line - 1][r.column - 1:r.end_column - 1]
    if r.end_line - r.line > 3:
        return ""
    parts = [lines[r.line - 1][r.column - 1:]] + lines[r.line:r.end_line - 1] + \
        [lines[r.end_line - 1][:r.end_column - 1]]
    return " ".join(" ".join(parts).split())


_LINES: dict = {}


def _file_lines(path: str) -> list[str]:
    if path not in _LINES:
        if len(_LINES) > 32:
            _LINES.clear()
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                _LINES[path] = f.read().splitlines()
        except OSError:
            _LINES[path] = []
    return _LINES[path]
