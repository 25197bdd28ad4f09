"""What a rule emits: a diagnostic with a location, a message and an optional fix."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

SEVERITIES = ("error", "warning", "info")


#: Where rule pages are published: ``docs/rules/<CODE>.md`` of the repository (written by
#: ``cudalint rules --write-docs``) is served at ``<RULE_DOCS_URL>/<CODE>``.
RULE_DOCS_URL = "https://cudalint.dev/rules"


def rule_url(code: str) -> str:
    """The documentation page of rule ``code`` (``Diagnostic.url``, SARIF ``helpUri``)."""
    return f"{RULE_DOCS_URL}/{code}"


@dataclass(frozen=True)
class Location:
    line: int  # 1-based
    column: int  # 1-based


@dataclass(frozen=True)
class Edit:
    """Replace the text between ``start`` (inclusive) and ``end`` (exclusive) with ``text``."""

    start: Location
    end: Location
    text: str


#: How sure a fix is to keep the program's meaning (ruff's terms): ``safe`` fixes are applied by
#: ``check --fix``; ``unsafe`` ones only with ``--unsafe-fixes`` (editors still offer them).
APPLICABILITIES = ("safe", "unsafe")


@dataclass(frozen=True)
class Fix:
    description: str
    edits: tuple[Edit, ...]
    applicability: str = "safe"
    #: Why an unsafe fix is unsafe (shown next to it); empty for a safe one.
    caveat: str = ""

    def applies(self, unsafe_fixes: bool) -> bool:
        return self.applicability == "safe" or unsafe_fixes

    def to_json(self) -> dict:
        return {
            "message": self.description,
            "applicability": self.applicability,
            **({"caveat": self.caveat} if self.caveat else {}),
            "edits": [
                {"content": e.text,
                 "location": {"line": e.start.line, "column": e.start.column},
                 "end_location": {"line": e.end.line, "column": e.end.column}}
                for e in self.edits
            ],
        }


@dataclass(frozen=True)
class Related:
    """A secondary location (e.g. the other access of a race witness)."""

    path: str
    location: Location
    message: str


@dataclass(frozen=True)
class Diagnostic:
    code: str  # CL201
    name: str  # uncoalesced-global-access
    severity: str  # error | warning | info
    message: str
    path: str
    location: Location
    end_location: Location
    kernel: Optional[str] = None
    fix: Optional[Fix] = None
    related: tuple[Related, ...] = field(default_factory=tuple)

    @property
    def url(self) -> str:
        return rule_url(self.code)

    def sort_key(self):
        return (self.path, self.location.line, self.location.column, self.code)

    def to_json(self) -> dict:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "message": self.message,
            "kernel": self.kernel,
            "location": {"line": self.location.line, "column": self.location.column},
            "end_location": {"line": self.end_location.line, "column": self.end_location.column},
            "fix": self.fix.to_json() if self.fix else None,
            "url": self.url,
            "related": [
                {"path": r.path, "location": {"line": r.location.line, "column": r.location.column},
                 "message": r.message}
                for r in self.related
            ],
        }


@dataclass
class FileResult:
    """The outcome of checking one file. ``error`` is set (and a CL000 diagnostic present)
    when the file could not be read or parsed well enough to analyse."""

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    error: Optional[str] = None
    notes: list[str] = field(default_factory=list)
    #: Kernels of the user's headers analysed through this file: [path, line, name, launch
    #: source]; a run keeps each one's findings from the includers that launch it.
    header_kernels: list = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "path": self.path,
            "error": self.error,
            "diagnostics": [d.to_json() for d in sorted(self.diagnostics, key=Diagnostic.sort_key)],
        }
