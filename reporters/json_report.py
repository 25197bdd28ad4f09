"""`check --output-format json` (DESIGN.md contract)."""
from __future__ import annotations

import json

from .. import __version__
from ..rules.diagnostic import FileResult


def render_json(results: list[FileResult]) -> str:
    doc = {"version": __version__, "files": [r.to_json() for r in results]}
    return json.dumps(doc, indent=2) + "\n"
