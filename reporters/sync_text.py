"""The barrier and race facts of one kernel (``KernelFacts.sync``) as ``explain`` text."""
from __future__ import annotations


def render_sync_text(sync) -> str:
    """The block the race check simulated (and why, when it is not the launch's), the
    barriers, and every race with its witness threads."""
    j = sync.to_json()
    if "error" in j:
        return f"  barriers and races: not analysed ({j['error']})"
    block = "x".join(map(str, j["block"]))
    n = len(j["barriers"])
    bars = ("no barriers" if n == 0 else
            f"barrier{'s' if n > 1 else ''} at line{'s' if n > 1 else ''} " + ", ".join(map(str, j["barriers"])))
    lines = [f"  barriers and races (block {block} simulated): {bars}"]
    if j["block_note"]:
        lines.append(f"    assumed: {j['block_note']}")
    if not j["races_checked"]:
        lines.append("    races: not checked")
    else:
        lines.append(f"    races: {len(j['races'])}" + ("" if j["complete"] else
                     " (the check stopped early: its step or pair budget was spent, so more may exist)"))
        for r in j["races"]:
            a, b = r["first"], r["second"]
            lines.append(f"    `{r['element'] or r['array']}`: {a['kind']} at line {a['line']} and "
                         f"{b['kind']} at line {b['line']} by threads {r['threads'][0]} and "
                         f"{r['threads'][1]}"
                         + (f", across iterations of the loop at line {r['across_back_edge_of_loop']}"
                            if r["across_back_edge_of_loop"] else "")
                         + ("" if r["certain"] else " (possible)"))
    lines.extend(_global_lines(j.get("global") or {}, j["races_checked"]))
    return "\n".join(lines)


def _global_lines(g: dict, checked: bool) -> list:
    """The global-memory race check: arrays, the blocks run side by side, whether it finished."""
    if not g.get("checked"):
        return ["    global memory: not checked"] if checked else []
    grid = "x".join(map(str, g["grid"])) if g["grid"] else "not known"
    blocks = ", ".join("(" + ",".join(map(str, b)) + ")" for b in g["blocks"])
    out = [f"    global memory: {len(g['arrays'])} array(s) checked ({', '.join(g['arrays']) or 'none written'}) "
           f"across {len(g['blocks'])} block(s) {blocks} of grid {grid}"
           + ("; finished within its budget" if g["complete"] else
              f"; the check stopped early ({g['incomplete_reason']}), so more may exist")]
    if g.get("coverage_note"):
        out.append(f"      blocks: {g['coverage_note']}")
    if g["note"]:
        out.append(f"      assumed: {g['note']}")
    out.append(f"      races: {len(g['races'])}")
    for r in g["races"]:
        a, b = r["first"], r["second"]
        out.append(f"      `{r['element'] or r['array']}` ({r['scope']}): {a['kind']} at line {a['line']} by "
                   f"{r['threads'][0]} and {b['kind']} at line {b['line']} by {r['threads'][1]}"
                   + ("" if r["certain"] else " (possible)"))
    return out
