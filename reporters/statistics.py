"""`check --statistics`: how many diagnostics each rule produced (instead of the list)."""
from __future__ import annotations

import json
from collections import Counter

from ..rules.diagnostic import FileResult


def statistics(results: list[FileResult], unsafe_fixes: bool = False) -> list[dict]:
    """Per rule: how many diagnostics, how many ``check --fix`` (with ``unsafe_fixes`` as
    given) would fix, and how many more only ``--unsafe-fixes`` would."""
    from ..fix import fixable as applies
    count: Counter = Counter()
    names: dict[str, str] = {}
    sev: dict[str, str] = {}
    fixable: Counter = Counter()
    hidden: Counter = Counter()
    for r in results:
        for d in r.diagnostics:
            count[d.code] += 1
            names[d.code] = d.name
            sev.setdefault(d.code, d.severity)
            fixable[d.code] += applies(d, unsafe_fixes)
            hidden[d.code] += applies(d, True) and not applies(d, unsafe_fixes)
    return [{"code": c, "name": names[c], "severity": sev[c], "count": n, "fixable": fixable[c],
             "unsafe_fixable": hidden[c]}
            for c, n in sorted(count.items(), key=lambda kv: (-kv[1], kv[0]))]


def render_statistics(results: list[FileResult], fmt: str = "text", unsafe_fixes: bool = False) -> str:
    rows = statistics(results, unsafe_fixes)
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    if not rows:
        return ""
    width = max(len(str(r["count"])) for r in rows)
    out = [f"{r['count']:>{width}}  {r['code']}  {r['name']:<36} {r['severity']}"
           + (f"  ({r['fixable']} fixable)" if r["fixable"] else "")
           + (f"  ({r['unsafe_fixable']} more with --unsafe-fixes)" if r["unsafe_fixable"] else "")
           for r in rows]
    total = sum(r["count"] for r in rows)
    out.append(f"{total:>{width}}  total")
    return "\n".join(out) + "\n"
