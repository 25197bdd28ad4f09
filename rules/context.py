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

    def reportable(self, r: ir.SourceRange) -> bool:
        """Is ``r`` in the checked file or in one of the user's headers analysed through it
        (where a finding is reported at its own place)? A range in a system header is not."""
        return self.analysis.reportable(r.file)

    def source_text(self, r: ir.SourceRange) -> str:
        """The source text of a single-line range (best effort for multi-line ones)."""
        lines = self.analysis.lines_of(r.file)
        if not (1 <= r.line <= len(lines)):
            return ""
        if r.end_line == r.line:
            return lines[r.line - 1][r.column - 1:r.end_column - 1]
        return lines[r.line - 1][r.column - 1:]

    def diag(self, rule: Rule, r: ir.SourceRange, message: str, kernel: Optional[str] = None,
             fix: Optional[Fix] = None, related: tuple[Related, ...] = (),
             severity: Optional[str] = None) -> Diagnostic:
        sev = self.severity_overrides.get(rule.code, severity or rule.severity)
        line, col = max(r.line, 1), max(r.column, 1)
        end_line, end_col = (r.end_line, r.end_column) if r.end_line else (line, col + 1)
        path = self.analysis.shown_path(r.file)
        return Diagnostic(rule.code, rule.name, sev, message, path, Location(line, col),
                          Location(end_line, end_col), kernel, fix, tuple(related))
