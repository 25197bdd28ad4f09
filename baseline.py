"""`check --baseline FILE`: accept today's findings, fail only on new ones.

The first run with a baseline file that does not exist records every current finding in it
(and passes); ``--update-baseline`` rewrites it. Later runs drop the findings the baseline
covers. A finding is identified by its path (relative to the baseline file), rule code,
kernel and the whitespace-normalised text of its source line -- not its line number, so
edits elsewhere in the file do not make old findings new -- and matched as a multiset (two
identical findings on two identical lines need two baseline entries).
"""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

from . import __version__
from .reporters.common import SourceLines, line_fingerprint
from .rules.diagnostic import FileResult

BASELINE_VERSION = 1


def _rel(path: str, base: Path) -> str:
    try:
        return Path(os.path.relpath(os.path.abspath(path), base)).as_posix()
    except ValueError:
        return Path(os.path.abspath(path)).as_posix()


def _keys(results: list[FileResult], base: Path, src: SourceLines):
    for r in results:
        for d in r.diagnostics:
            if d.code == "CL000":
                continue  # a file that cannot be analysed is never "accepted"
            yield d, (_rel(d.path, base), d.code, line_fingerprint(d, src))


def write_baseline(path: Path, results: list[FileResult]) -> int:
    base = path.resolve().parent
    src = SourceLines()
    entries = Counter(k for _, k in _keys(results, base, src))
    doc = {"cudalint": __version__, "version": BASELINE_VERSION,
           "findings": [{"path": p, "code": c, "fingerprint": f, "count": n}
                        for (p, c, f), n in sorted(entries.items())]}
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return sum(entries.values())


class BaselineError(ValueError):
    pass


def load_baseline(path: Path) -> Counter:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc.get("version") != BASELINE_VERSION:
            raise BaselineError(f"{path}: unsupported baseline version {doc.get('version')!r}")
        return Counter({(e["path"], e["code"], e["fingerprint"]): int(e.get("count", 1))
                        for e in doc["findings"]})
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        if isinstance(e, BaselineError):
            raise
        raise BaselineError(f"{path}: not a cudalint baseline ({e})")


def filter_baseline(path: Path, results: list[FileResult]) -> tuple[list[FileResult], int]:
    """Results without the findings the baseline covers, and how many were dropped."""
    budget = load_baseline(path)
    base = path.resolve().parent
    src = SourceLines()
    keep_ids = set()
    dropped = 0
    for d, k in _keys(results, base, src):
        if budget[k] > 0:
            budget[k] -= 1
            dropped += 1
        else:
            keep_ids.add(id(d))
    out = []
    for r in results:
        diags = [d for d in r.diagnostics if d.code == "CL000" or id(d) in keep_ids]
        out.append(FileResult(path=r.path, diagnostics=diags, error=r.error, notes=r.notes))
    return out, dropped
