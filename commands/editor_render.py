"""Words for the editor: hover Markdown, inlay-hint labels and code-lens titles, rendered from
the JSON of :mod:`commands.editor_facts` (each kernel's ``explain`` JSON plus source ranges).

The wording follows ``cudalint explain``: a variable's memory, scope, lifetime, bytes and *why*
are the same fields; numbers are formatted the same way. Every figure that rests on an
assumption (a block size nobody stated, a parameter's value) says so.
"""
from __future__ import annotations

from typing import Optional


def _fmt(v, digits: int = 4) -> str:
    if v is None:
        return "?"
    if isinstance(v, str):
        return v
    f = float(v)
    if f.is_integer():
        return f"{int(f):,}" if abs(f) >= 10000 else str(int(f))
    return f"{f:.{digits}g}"


def _dims(d) -> str:
    return "x".join(str(x) for x in d) if d else "unknown"


def _contains(span, line: int, col: int) -> bool:
    """``span`` = [line, column, end column] (one line, end exclusive) contains the position."""
    return span is not None and span[0] == line and span[1] <= col < span[2]


def _access_contains(a: dict, line: int, col: int) -> bool:
    start, end = (a["line"], a["column"]), (a.get("end_line", a["line"]), a.get("end_column", a["column"] + 1))
    return start <= (line, col) < end


# --------------------------------------------------------------------------- labels

def access_label(a: dict) -> Optional[str]:
    """The short cost of one access (inlay hint): ``4 sect/req``, ``32-way``, ``data-dependent``."""
    if a["pattern"] in ("data-dependent", "unknown"):
        return a["pattern"]
    if a["space"] in ("global", "local") and a.get("sectors_per_request") is not None:
        return f"{_fmt(a['sectors_per_request'], 3)} sect/req"
    if a["space"] in ("texture", "surface"):
        fp = a.get("footprint")
        return a["pattern"] + (f" {'x'.join(map(str, fp))}" if fp and len(fp) > 1 else "")
    if a["space"] == "shared" and a.get("wavefronts_per_request") is not None:
        ways = a.get("ways")
        if ways is not None and ways > 1 + 1e-9:
            return f"{_fmt(ways, 3)}-way"
        return "no conflict"
    return None


def inlay_labels(facts: dict) -> list[tuple[int, str]]:
    """(line, label) for every line of the file with a memory access: the accesses' costs in
    column order, each named by its array (an access in a device function called from several
    kernels shows each kernel's figure only when they differ)."""
    per_line: dict[int, dict] = {}
    for k in facts.get("kernels", []):
        for a in k.get("accesses", []):
            label = access_label(a)
            if label is None:
                continue
            key = (a["column"], a["array"], a["kind"])
            per_line.setdefault(a["line"], {}).setdefault(key, [])
            if label not in per_line[a["line"]][key]:
                per_line[a["line"]][key].append(label)
    out = []
    for line in sorted(per_line):
        parts = [f"{array} {' | '.join(labels)}" for (col, array, kind), labels in sorted(per_line[line].items())]
        out.append((line, " · ".join(parts)))
    return out


def lens_title(k: dict) -> str:
    """The code lens above a kernel: occupancy and its limiter, CGMA and the roofline bound."""
    j = k["json"]
    if j.get("skipped"):
        return f"cudalint: not analysed ({j['skipped']})"
    parts = []
    occ = j.get("occupancy")
    if isinstance(occ, dict) and occ.get("occupancy_pct") is not None:
        lim = ", ".join(occ.get("limiters") or [])
        parts.append(f"occupancy {_fmt(occ['occupancy_pct'], 3)}%" + (f" (limited by {lim})" if lim else ""))
    cg = j.get("cgma")
    if isinstance(cg, dict):
        v = cg.get("hot_loop") if cg.get("hot_loop") is not None else cg.get("kernel")
        parts.append(f"CGMA {_fmt(v)}" + (" (hot loop)" if cg.get("hot_loop") is not None else ""))
    rf = j.get("roofline")
    if isinstance(rf, dict) and rf.get("bound"):
        parts.append(f"{rf['bound']}-bound on {rf.get('device', '?')}")
    lc = j.get("launch") or {}
    if lc.get("source") == "default":
        parts.append(f"block {_dims(lc.get('block'))} assumed")
    return " · ".join(parts) or "cudalint: no facts"


# --------------------------------------------------------------------------- hover

def hover_markdown(facts: dict, line: int, col: int) -> Optional[str]:
    """Markdown for the position (1-based line, byte column): a kernel's name (definition or
    launch), the accesses whose range contains it, the variable referenced there."""
    kernels = facts.get("kernels", [])
    for k in kernels:
        if _contains(k.get("definition"), line, col):
            return kernel_markdown(k, facts.get("arch"))
    for ls in facts.get("launches", []):
        if _contains(ls["span"], line, col):
            ks = [k for k in kernels if k["name"] == ls["kernel"] or k["name"].split("<")[0] == ls["kernel"]]
            if ks:
                return "\n\n---\n\n".join(kernel_markdown(k, facts.get("arch")) for k in ks)
    sections = []
    for k in kernels:
        hits = [a for a in k.get("accesses", []) if _access_contains(a, line, col)]
        if hits:  # the innermost access first (the smallest range)
            hits.sort(key=lambda a: ((a.get("end_line", a["line"]) - a["line"]), a.get("end_column", 0) - a["column"]))
            sections.append(access_markdown(hits[0], k))
    seen = set()
    for k in kernels:
        for ref in k.get("references", []):
            if _contains(ref[:3], line, col):
                v = k["json"]["variables"][ref[3]]
                key = (v["name"], v["line"], v["memory"])
                if key not in seen:
                    seen.add(key)
                    sections.append(variable_markdown(v))
    return "\n\n---\n\n".join(sections) if sections else None


def variable_markdown(v: dict) -> str:
    size = "size unknown" if v.get("bytes") is None else f"{v['bytes']} bytes"
    why = v.get("reason", "") + "".join(f"; {a}" for a in v.get("assumptions", []))
    return (f"**`{v['name']}`**: {v['memory']} memory, {v['scope']} scope, {v['lifetime']} lifetime, "
            f"{size}\n\nwhy: {why}")


def _launch_line(j: dict) -> str:
    lc = j.get("launch") or {}
    s = (f"block {_dims(lc.get('block'))}, grid {_dims(lc.get('grid'))}, "
         f"dynamic smem {_fmt(lc.get('dynamic_smem'))} B (from {lc.get('source', '?')}: {lc.get('detail', '')})")
    return s


def access_markdown(a: dict, k: dict) -> str:
    j = k["json"]
    pat = a["pattern"] + (f" (stride {a['stride']})" if a.get("stride") is not None else "")
    head = (f"**{a['space']} {a['kind']} of `{a['array']}`** in kernel `{k['name']}`: "
            f"index `{a['index']}`, {pat}")
    lines = [head]
    if a["space"] in ("global", "local") and a.get("sectors_per_request") is not None:
        eff = a.get("efficiency")
        lines.append(f"- {_fmt(a['sectors_per_request'], 3)} sectors per request"
                     + (f", {100 * float(eff):.1f}% efficiency (bytes used / bytes fetched)".replace(".0%", "%")
                        if eff is not None else ""))
    if a["space"] == "shared" and a.get("wavefronts_per_request") is not None:
        ways, mn = a.get("ways"), a.get("min_wavefronts")
        conflict = (f"{_fmt(ways, 3)}-way bank conflict" if ways is not None and ways > 1 + 1e-9
                    else "no bank conflict")
        lines.append(f"- {_fmt(a['wavefronts_per_request'], 3)} wavefronts per request"
                     + (f" ({_fmt(mn, 3)} without conflicts)" if mn is not None else "") + f": {conflict}")
    if a.get("path"):
        lines.append(f"- load path: {a['path']}")
    if a["space"] in ("texture", "surface"):
        if a.get("texels_per_request") is not None:
            lines.append(f"- {_fmt(a['texels_per_request'], 3)} texels per warp request")
        lines.append(f"- memory: {a.get('backing') or 'not shown by the host code'}")
    if a.get("element_bytes") is not None:
        lines.append(f"- {a['element_bytes']}-byte elements")
    lines.append(f"- launch: {_launch_line(j)}")  # its assumptions are in the kernel's hover
    for s in a.get("assumptions", []):
        lines.append(f"- assumed: {s}")
    values = ((j.get("cgma") or {}).get("values") or {})
    if values:
        lines.append("- parameter values: " + ", ".join(f"{n} = {_fmt(v)}" for n, v in values.items()))
    return "\n".join(lines)


def kernel_markdown(k: dict, arch: Optional[str]) -> str:
    j = k["json"]
    lines = [f"**kernel `{k['name']}`**" + (f" ({arch})" if arch else ""), "",
             f"- launch: {_launch_line(j)}"]
    for s in (j.get("launch") or {}).get("assumptions", []):
        lines.append(f"- assumed: {s}")
    if j.get("skipped"):
        lines.append(f"- not analysed: {j['skipped']}")
        return "\n".join(lines)
    res = j.get("resources")
    if isinstance(res, dict):
        lines.append(f"- registers: {_fmt(res.get('registers'))} per thread (from {res.get('registers_source', '?')}), "
                     f"{_fmt(res.get('static_smem_bytes'))} B static shared memory, "
                     f"{_fmt(res.get('local_bytes'))} B local memory per thread")
    occ = j.get("occupancy")
    if isinstance(occ, dict) and occ.get("occupancy_pct") is not None:
        lim = ", ".join(occ.get("limiters") or []) or "nothing"
        lines.append(f"- occupancy: {_fmt(occ['occupancy_pct'], 3)}% ({_fmt(occ.get('active_blocks_per_sm'))} blocks, "
                     f"{_fmt(occ.get('active_warps_per_sm'))} of {_fmt(occ.get('max_warps_per_sm'))} warps per SM), "
                     f"limited by {lim}")
    cg = j.get("cgma")
    if isinstance(cg, dict):
        s = f"- CGMA (flops per global access, one thread): kernel {_fmt(cg.get('kernel'))}"
        if cg.get("limit") is not None and _fmt(cg.get("limit")) != _fmt(cg.get("kernel")):
            s += f", limit {_fmt(cg['limit'])} as the sizes grow"
        hl = cg.get("hot_loop_info")
        if cg.get("hot_loop") is not None and isinstance(hl, dict):
            s += f"; hot loop at line {hl.get('line')}: {_fmt(cg['hot_loop'])}"
        lines.append(s)
        for a in cg.get("assumptions", []):
            lines.append(f"- assumed: {a}")
    rf = j.get("roofline")
    if isinstance(rf, dict) and rf.get("bound"):
        lines.append(f"- roofline on {rf.get('device_name', rf.get('device'))} ({rf.get('device_source', '')}): "
                     f"{rf['bound']}-bound, CGMA {_fmt(rf.get('cgma'))} vs balance {_fmt(rf.get('balance_cgma'))}, "
                     f"at most {_fmt(rf.get('attainable_gflops'))} GFLOPS "
                     f"({100 * float(rf.get('fraction_of_peak') or 0):.1f}% of peak)")
    elif isinstance(rf, dict):
        lines.append(f"- roofline: not computed ({rf.get('error') or rf.get('cgma_source') or 'unknown'})")
    return "\n".join(lines)
