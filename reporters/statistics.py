"""`check --statistics`: how many diagnostics each rule produced (instead of the list)."""
from __future__ import annotations

import json
from collections import Counter

from ..rules.diagnostic import FileResult


def statistics(results: list[FileResult]) -> list[dict]:
    count: Counter = Counter()
    names: dict[str, str] = {}
    sev: dict[str, str] = {}
    fixable: Counter = Counter()
    for r in results:
        for d in r.diagnostics:
            count[d.code] += 1
            names[d.code] = d.name
            sev.setdefault(d.code, d.severity)
            fixable[d.code] += d.fix is not None
    return [{"code": c, "name": names[c], "severity": sev[c], "count": n, "fixable": fixable[c]}
            for c, n in sorted(count.items(), key=lambda kv: (-kv[1], kv[0]))]


def render_statistics(results: list[FileResult], fmt: str = "text") -> str:
    rows = statistics(results)
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    if not rows:
        return ""
    width = max(len(str(r["count"])) for r in rows)
    out = [f"{r['count']:>{width}}  {r['code']}  {r['name']:<36} {r['severity']}"
           + (f"  ({r['fixable']} fixable)" if r["fixable"] else "") for r in rows]
    total = sum(r["count"] for r in rows)
    out.append(f"{total:>{width}}  total")
    return "\n".join(out) + "\n"
