"""Share of kernel launch sites whose grid, block and scalar arguments cudalint resolves from
the host code alone (no --grid), over the ``*.cu`` files under ROOT.

    python bench/launch_grids.py ROOT [-I DIR ...] [--list] [--json OUT]

Only parsing, lowering and the host constant propagation run (no kernel analyses), so a suite
takes seconds per file. With ``--list`` every unresolved grid is printed with the reason
cudalint gives for it, for review: which of them the host code determines (a cudalint gap) and
which depend on run-time data (argv, file contents, a device query).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from cudalint.analyzer.launch import resolve_launch_sites
from cudalint.analyzer.pipeline import AnalysisOptions, FileAnalysis, _device_answers, _read_source, lower
from cudalint.analyzer.target import load_target


def include_dirs(f: str, extra: list[str]) -> list[str]:
    d = os.path.dirname(os.path.abspath(f))
    sib = [x for x in (os.path.join(d, "inc"), os.path.join(d, "..", "inc"),
                       os.path.join(d, "..", "..", "common")) if os.path.isdir(x)]
    return list(extra) + [d] + sib


def sites_of(path: str, extra: list[str]) -> list[dict]:
    opts = AnalysisOptions(include_dirs=include_dirs(path, extra), use_ptxas=False)
    fa = FileAnalysis(path=path, options=opts)
    source, err = _read_source(path)
    if source is None:
        return []
    tu = lower(path, source, opts, fa)
    if tu is None:
        return []
    # the device queries answered as `cudalint check` answers them (the occupancy query needs
    # ptxas, off here, so it stays unknown)
    resolve_launch_sites(tu, _device_answers(opts, load_target(opts.arch), tu))
    kernels = {k.name: k for k in tu.kernels}
    out = []
    for s in tu.launches:
        k = kernels.get(s.kernel)
        scalar = [i for i, p in enumerate(k.params) if p.type.kind == "scalar"] if k else []
        scalar = [i for i in scalar if i < len(s.arg_values)]
        out.append({
            "file": path, "line": s.range.line, "kernel": s.kernel,
            "grid": s.grid, "block": s.block, "grid_text": s.grid_text, "block_text": s.block_text,
            "args_known": sum(s.arg_values[i] is not None for i in scalar), "args": len(scalar),
            "why": list(getattr(s, "unknown", []) or []),
        })
    return out


# Why a grid is unknown, by the root cause cudalint names: values only known when the program
# runs (input, argv, a loop variable, a call with no visible caller), or a construct cudalint
# does not follow (struct fields, `this`, file-scope variables, helpers with loops), where the
# host code may still determine the value.
RUNTIME = ("computed at run time", "read at run time", "no call in this file gives",
           "the command line", "changes in the loop", "which is not known statically",
           "is modified by", "called with different values", "is declared without a value",
           "is assigned in the switch", "is updated at line")
NOT_FOLLOWED = ("is a field of", "is not modelled", "could not be evaluated",
                "is a file-scope variable", "has no known value here", "is not a compile-time constant")


def category(why: list[str]) -> str:
    text = " ".join(w for w in why if w.startswith("grid"))
    if any(k in text for k in NOT_FOLLOWED) or not any(k in text for k in RUNTIME):
        return "not followed"
    return "run-time"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("-I", dest="include", action="append", default=[])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    root = Path(a.root)
    files = sorted(str(p) for p in ([root] if root.is_file() else root.rglob("*.cu")))
    rows = []
    for f in files:
        try:
            rows.extend(sites_of(f, a.include))
        except Exception as e:  # a survey counts failures instead of stopping
            print(f"{f}: {type(e).__name__}: {e}", file=sys.stderr)
    n = len(rows)
    g = sum(r["grid"] is not None for r in rows)
    b = sum(r["block"] is not None for r in rows)
    both = sum(r["grid"] is not None and r["block"] is not None for r in rows)
    print(f"{len(files)} files, {n} launch sites: grid resolved {g}/{n}, block {b}/{n}, both {both}/{n}")
    print(f"scalar arguments resolved: {sum(r['args_known'] for r in rows)}/{sum(r['args'] for r in rows)}")
    cats = {"run-time": 0, "not followed": 0}
    for r in rows:
        if r["grid"] is None:
            r["category"] = category(r["why"])
            cats[r["category"]] += 1
    print(f"unresolved grids: {cats['run-time']} depend on run-time values, "
          f"{cats['not followed']} on constructs cudalint does not follow; resolved where the "
          f"host code can determine them: {g}/{g + cats['not followed']}")
    if a.list:
        for r in rows:
            if r["grid"] is None:
                why = "; ".join(r["why"]) or "-"
                print(f"  [{r['category']}] {r['file']}:{r['line']}: {r['kernel']}<<<{r['grid_text']}, "
                      f"{r['block_text']}>>>  [{why}]")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1, default=list))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
