"""Snapshot every answer cudalint gives on a set of files, to prove a speed change moved none.

    python bench/same_answers.py snap OUT PATH [PATH ...] [-I DIR ...] [--per-file-dir] [--sample N]
    python bench/same_answers.py diff OUT_BEFORE OUT_AFTER

``snap`` writes, for each file, ``OUT/NNNN.json`` with the file name, the facts of
``cudalint explain --output-format json`` (every kernel: launch, variables, accesses, CGMA,
occupancy...) and the diagnostics and notes of ``cudalint check``, both in this process with
the same options users get (ptxas on when a compiler is found: run ``snap`` twice or share
``$CUDALINT_CACHE_DIR`` so ptxas' reports come from its cache). ``diff`` compares two snapshots
file by file and prints the first differing lines of each; exit status 1 when any differs.
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
from pathlib import Path

from cudalint.analyzer.options import AnalysisOptions
from cudalint.cli import collect_files
from cudalint.engine import Task, check_files
from cudalint.rules.options import CheckOptions
from bench_check import sample  # the same file sampling as the benchmark


def _facts(path: str, aopts: AnalysisOptions):
    from cudalint.analyzer.pipeline import analyze_file
    from cudalint.reporters.explain import render_explain_json

    try:
        fa = analyze_file(path, aopts)
        return json.loads(render_explain_json([fa], aopts.arch))
    except Exception as e:  # a crash is an answer too: it must not change either
        return {"crash": f"{type(e).__name__}: {e}"}


def snap(a) -> int:
    files = sample(sorted(str(p) for p in collect_files([Path(p) for p in a.paths])), a.sample)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for i, f in enumerate(files):
        inc = list(a.include) + ([os.path.dirname(os.path.abspath(f))] if a.per_file_dir else [])
        aopts = AnalysisOptions(include_dirs=inc)
        res = check_files([Task(f, aopts, CheckOptions())], jobs=1)[0]
        doc = {"file": f, "error": res.error, "notes": res.notes,
               "diagnostics": [(d.code, d.location.line, d.location.column, d.message) for d in res.diagnostics],
               "facts": _facts(f, aopts)}
        (out / f"{i:04d}.json").write_text(json.dumps(doc, indent=1, sort_keys=True, default=str))
    print(f"{len(files)} files snapshot in {out}")
    return 0


def diff(a) -> int:
    before, after = Path(a.before), Path(a.after)
    names = sorted({p.name for p in before.glob("*.json")} | {p.name for p in after.glob("*.json")})
    bad = 0
    for n in names:
        x = (before / n).read_text() if (before / n).is_file() else ""
        y = (after / n).read_text() if (after / n).is_file() else ""
        if x != y:
            bad += 1
            f = json.loads(x or y).get("file")
            print(f"differs: {f}")
            for line in list(difflib.unified_diff(x.splitlines(), y.splitlines(), lineterm="", n=1))[2:14]:
                print("   ", line[:200])
    print(f"{len(names) - bad} of {len(names)} files identical")
    return 1 if bad else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("snap")
    s.add_argument("out")
    s.add_argument("paths", nargs="+")
    s.add_argument("-I", dest="include", action="append", default=[])
    s.add_argument("--per-file-dir", action="store_true")
    s.add_argument("--sample", type=int, default=0)
    d = sub.add_parser("diff")
    d.add_argument("before")
    d.add_argument("after")
    a = ap.parse_args(argv)
    return snap(a) if a.cmd == "snap" else diff(a)


if __name__ == "__main__":
    sys.exit(main())
