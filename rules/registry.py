"""Rule metadata and registration.

Every rule module decorates its check function with :func:`rule`; the registry is what the
CLI (`cudalint rule CODE`, `cudalint rules`), the SARIF reporter's rule metadata and the
README's rule table read. Rule docs follow ruff's form: What it does / Why is this bad? /
Example / How to fix.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

from .diagnostic import Diagnostic

FAMILIES = {
    "CL0": "tool",
    "CL1": "memory placement",
    "CL2": "global coalescing",
    "CL3": "shared-memory banks",
    "CL4": "occupancy and launch resources",
    "CL5": "CGMA and roofline",
    "CL6": "barriers and races",
    "CL7": "host API use",
}


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: str
    summary: str
    what: str
    why: str
    example: str
    how_to_fix: str
    check: Optional[Callable[..., Iterable[Diagnostic]]] = None
    options: dict = field(default_factory=dict)  # option name -> default value

    @property
    def family(self) -> str:
        return FAMILIES.get(self.code[:3], "other")

    def docs_markdown(self) -> str:
        opts = ""
        if self.options:
            opts = "\n## Options\n" + "\n".join(f"- `{k}` (default `{v}`)" for k, v in self.options.items()) + "\n"
        return (
            f"# {self.code} {self.name}\n\nDefault severity: {self.severity}. Family: {self.family}.\n\n"
            f"## What it does\n{self.what}\n\n## Why is this bad?\n{self.why}\n\n"
            f"## Example\n```cuda\n{self.example.strip()}\n```\n\n## How to fix\n{self.how_to_fix}\n{opts}"
        )


RULES: dict[str, Rule] = {}


def rule(code: str, name: str, severity: str, summary: str, *, what: str, why: str,
         example: str, how_to_fix: str, options: Optional[dict] = None):
    """Register ``fn`` as the check of rule ``code``. ``fn(ctx)`` yields diagnostics."""

    def deco(fn):
        if code in RULES:
            raise ValueError(f"duplicate rule code {code}")
        RULES[code] = Rule(code, name, severity, summary, what.strip(), why.strip(), example,
                           how_to_fix.strip(), fn, dict(options or {}))
        return fn

    return deco


def register_doc_only(code: str, name: str, severity: str, summary: str, *, what: str, why: str,
                      example: str, how_to_fix: str, options: Optional[dict] = None) -> None:
    """Register a rule whose diagnostics the engine emits itself (CL000, CL010)."""
    rule(code, name, severity, summary, what=what, why=why, example=example,
         how_to_fix=how_to_fix, options=options)(None)


def all_rules() -> list[Rule]:
    load_rule_modules()
    return [RULES[c] for c in sorted(RULES)]


def get_rule(code: str) -> Optional[Rule]:
    load_rule_modules()
    return RULES.get(code.upper())


#: The rule families, one module each: importing one registers its rules (``@rule``). Listed
#: here so that the set of rules is read in one place (the framework modules beside them --
#: registry, context, diagnostic, runner, suppressions, messages -- hold no rules).
RULE_MODULES = ("tool", "memory_placement", "coalescing", "banks", "occupancy", "cgma",
                "barriers", "global_races", "host_api", "textures")

_loaded = False
_loading = False


def load_rule_modules() -> None:
    """Import every module of :data:`RULE_MODULES` once so their decorators register them.

    Marked loaded only after every import succeeded: a module that fails to import raises here
    (and again on the next call) instead of leaving a silently partial rule set. ``_loading``
    stops re-entry while a rule module imports the registry."""
    global _loaded, _loading
    if _loaded or _loading:
        return
    _loading = True
    try:
        import importlib

        for name in RULE_MODULES:
            importlib.import_module(f"{__package__}.{name}")
        _loaded = True
    finally:
        _loading = False
