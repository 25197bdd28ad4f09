"""Which rules a run applies, and how (the command line and configuration, resolved).

Kept apart from ``runner`` so that the command line can build it without importing the rules
and the analyses they use, which a run answered from the result cache never needs.
"""
from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_TIME_LIMIT_S = 60.0


@dataclass
class CheckOptions:
    select: list[str] = field(default_factory=list)  # codes or prefixes; empty = all
    ignore: list[str] = field(default_factory=list)
    rule_options: dict = field(default_factory=dict)
    severity_overrides: dict = field(default_factory=dict)
    #: ``per-file-ignores`` entries (base directory, glob, codes), for the headers whose
    #: findings this file reports (the file's own are already in ``ignore``).
    per_file_ignores: list = field(default_factory=list)

    def enabled(self, code: str) -> bool:
        if code == "CL000":
            return True  # a file we could not analyse is always reported
        sel = not self.select or any(code.startswith(p) for p in self.select)
        ign = any(code.startswith(p) for p in self.ignore)
        # The longer (more specific) prefix wins, as in ruff.
        if sel and ign and self.select:
            best_sel = max((len(p) for p in self.select if code.startswith(p)), default=0)
            best_ign = max(len(p) for p in self.ignore if code.startswith(p))
            return best_sel > best_ign
        return sel and not ign
