"""What a rule's check function receives: the analysed file, the target and rule options, and
the helpers rules share to read them (is a range in this file, a kernel's accesses grouped by
source expression, where and how to quote an access)."""
from __future__ import annotations

import os
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

    def line_ref(self, r: ir.SourceRange, here: ir.SourceRange) -> str:
        """How a message names the line of ``r`` seen from a finding at ``here``: "line N", or
        "file.cu:N" when ``r`` lies in another file (a header or an included .cu)."""
        if r.file and here.file and os.path.abspath(r.file) != os.path.abspath(here.file):
            return f"{os.path.basename(r.file)}:{r.line}"
        return f"line {r.line}"

    def lines_ref(self, rs: list, here: ir.SourceRange, most: int = 5) -> str:
        """Several lines named as :meth:`line_ref` does: "line 3, 7" or "a.cuh:3, line 7"."""
        refs = [self.line_ref(r, here) for r in rs[:most]]
        if all(x.startswith("line ") for x in refs):
            text = "line " + ", ".join(x[5:] for x in refs)
        else:
            text = ", ".join(refs)
        return text + (", ..." if len(rs) > most else "")

    def option(self, rule: Rule, name: str):
        return self.rule_options.get(rule.code, {}).get(name, rule.options.get(name))

    def in_file(self, r: ir.SourceRange, no_file: bool = False) -> bool:
        """Whether ``r`` lies in the checked file or in one of the user's headers analysed
        through it (where a finding is reported at its own place; a system header's is not);
        ``no_file`` is the answer for a range that has no file."""
        return self.analysis.reportable(r.file) if r.file else no_file

    @staticmethod
    def accesses(k: KernelFacts) -> list:
        """The kernel's memory accesses (empty when the access facts were not computed)."""
        tab = k.accesses
        return list(tab) if tab is not None else []

    def grouped_accesses(self, pred):
        """(kernel, accesses) for the accesses satisfying ``pred``, grouped by source expression
        (a `+=` is one finding); atomics are left out."""
        for k in self.kernels:
            groups: dict = {}
            for a in self.accesses(k):
                if a.atomic or not pred(a):
                    continue
                key = (a.line, a.column, a.end_line, a.end_column)
                groups.setdefault(key, []).append(a)
            for g in groups.values():
                yield k, g

    def access_site(self, a) -> ir.SourceRange:
        """Where to report an access: its own range when it is in the checked file or a header
        of the user's, else the line of the call that leads to it."""
        r = a.range
        if r is not None and r.file and not self.analysis.reportable(r.file):
            ev = a.event
            if ev is not None and ev.call_lines:
                line = ev.call_lines[0]
                return ir.SourceRange(self.path, line, 1, line, 2)
        return r

    def access_text(self, a) -> str:
        """The access as written (one line); for one inside a macro's argument (its range is
        the invocation's, empty: mumax3's `symidx(r0, regions[i_])`) as the program spells it
        when that is a plain subscript (:func:`_subscript_text`); else ``array[index]``."""
        t = self.source_text(a.range) if a.range is not None and a.range.line == a.range.end_line else ""
        if not t:
            t = _subscript_text(getattr(getattr(a, "event", None), "node", None))
        return t or f"{a.array}[{a.index}]"

    def source_text(self, r: ir.SourceRange) -> str:
        """The source text of a range as written, read from the range's own file (an access in
        an included header is quoted from the header); a range over up to four lines is joined
        with its whitespace collapsed; "" when it cannot be read."""
        lines = self.analysis.lines_of(r.file)
        if not r.line or not (1 <= r.line <= len(lines)) or not (r.line <= r.end_line <= len(lines)):
            return ""
        if r.end_line == r.line:
            return lines[r.line - 1][r.column - 1:r.end_column - 1]
        if r.end_line - r.line > 3:
            return ""
        parts = [lines[r.line - 1][r.column - 1:]] + lines[r.line:r.end_line - 1] + \
            [lines[r.end_line - 1][:r.end_column - 1]]
        return " ".join(" ".join(parts).split())

    def diag(self, rule: Rule, r: ir.SourceRange, message: str, kernel: Optional[str] = None,
             fix: Optional[Fix] = None, related: tuple[Related, ...] = (),
             severity: Optional[str] = None) -> Diagnostic:
        sev = self.severity_overrides.get(rule.code, severity or rule.severity)
        line, col = max(r.line, 1), max(r.column, 1)
        end_line, end_col = (r.end_line, r.end_column) if r.end_line else (line, col + 1)
        return Diagnostic(rule.code, rule.name, sev, message, self.analysis.shown_path(r.file),
                          Location(line, col),
                          Location(end_line, end_col), kernel, fix, tuple(related))



_SUBSCRIPT_OPS = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"}


def _subscript_text(node) -> str:
    """``a[i]``, ``a[i + 1]``, ``a[threadIdx.x]`` as written, for a subscript whose base is a
    name and whose index is a name, an integer, a built-in index or one operator between
    two of them; "" for anything else (whose text would need the source's parentheses)."""
    while isinstance(node, ir.Cast) and node.implicit:
        node = node.operand
    if not isinstance(node, ir.Index):
        return ""
    base, index = _leaf_text(node.base), _leaf_text(node.index)
    if not index and isinstance(node.index, ir.BinOp) and node.index.op in _SUBSCRIPT_OPS:
        lhs, rhs = _leaf_text(node.index.lhs), _leaf_text(node.index.rhs)
        index = f"{lhs} {node.index.op} {rhs}" if lhs and rhs else ""
    return f"{base}[{index}]" if base and index else ""


def _leaf_text(node) -> str:
    while isinstance(node, ir.Cast) and node.implicit:
        node = node.operand
    if isinstance(node, ir.VarRef):
        return node.var.name
    if isinstance(node, ir.Const) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return str(node.value)
    if isinstance(node, ir.Builtin):
        return f"{node.name}.{node.component}"
    return ""
