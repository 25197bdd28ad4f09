r"""Run cudalint over a whole code base and summarise what it could and could not do.

    python bench/survey.py ROOT [-I DIR ...] [--jobs N] [--time-limit S] [--rules CL6,CL7]
                           [--json OUT]

Every ``*.cu`` under ROOT is checked as a build would see it: with the ``-I`` directories and
the file's own directory (and its ``inc/`` siblings) on the include path, ptxas off (so the
figures measure cudalint, not nvcc). Files run in crash-isolated worker processes, so a libclang
crash or a hang is counted, not fatal.

A file that another ``.cu`` of the tree ``#include``\ s is analysed through that file, as
``cudalint check DIR`` does (``--alone`` analyses every file on its own, the old behaviour);
its findings and CL000s are those located in it.

Prints: how many files were fully analysed (no CL000), the CL000 causes grouped by message,
mean/median seconds per file (each file's own analysis time inside its worker), the slowest
files, and diagnostics per rule. ``--rules`` lists every finding of those code prefixes
(for hand review). This is the figure-producing script behind the acceptance numbers of the
foundation issue (share parsed, CL000 causes, time per file) and the barrier issue (CL60x count).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

from cudalint.analyzer.pipeline import AnalysisOptions
from cudalint.engine import Task, TaskResult, WorkerPool, _plan, default_jobs
from cudalint.includers import confirmed, merge, plan
from cudalint.rules.runner import CheckOptions


def include_dirs(f: str, extra: list[str]) -> list[str]:
    d = os.path.dirname(os.path.abspath(f))
    sib = [x for x in (os.path.join(d, "inc"), os.path.join(d, "..", "inc")) if os.path.isdir(x)]
    return list(extra) + [d] + sib


def cause(message: str) -> str:
    """A CL000 message with file-specific names and numbers blanked, for grouping."""
    m = re.sub(r"'[^']*'", "'…'", message.split("\n")[0])
    m = re.sub(r"\b\d+(\.\d+)?\b", "N", m)
    return m[:140]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("-I", dest="include", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=default_jobs())
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--slowest", type=int, default=5, help="list the N slowest files")
    ap.add_argument("--rules", default="", help="comma-separated code prefixes to list in full")
    ap.add_argument("--json", help="write every file's diagnostics here")
    ap.add_argument("--alone", action="store_true", help="analyse every file on its own, "
                    "even one that another file of the tree #includes")
    a = ap.parse_args(argv)
    files = sorted(str(p) for p in Path(a.root).rglob("*.cu"))
    if not files:
        print("no .cu files under", a.root, file=sys.stderr)
        return 2
    tasks = [Task(f, AnalysisOptions(include_dirs=include_dirs(f, a.include), use_ptxas=False),
                  CheckOptions(), time_limit=a.time_limit) for f in files]
    t0 = time.perf_counter()
    results: dict[int, TaskResult] = {}
    roots, covered = (list(range(len(tasks))), {}) if a.alone else _plan(tasks, plan)

    def run(indices):
        with WorkerPool(min(a.jobs, max(1, len(indices)))) as pool:
            for j, tr in pool.run([tasks[i] for i in indices]):
                results[indices[j]] = tr

    run(roots)
    through = {}
    if covered:
        ok, alone = confirmed(covered, files, {i: tr.dependencies for i, tr in results.items()})
        run(alone)
        through = {files[j]: files[covered[j][0]] for j in ok}
    wall = time.perf_counter() - t0
    merged = {os.path.abspath(r.path): r for r in
              merge([results[i].result for i in sorted(results)], through)}
    for i, f in enumerate(files):  # a file analysed through its includer: the findings in it
        if i not in results:
            results[i] = TaskResult(merged[os.path.abspath(f)], seconds=0.0)
        else:
            results[i].result = merged[os.path.abspath(f)]
    print(f"analysed through an including file: {len(through)}")

    per_rule: collections.Counter = collections.Counter()
    causes: collections.Counter = collections.Counter()
    failed, listed, secs = [], [], []
    prefixes = tuple(p.strip().upper() for p in a.rules.split(",") if p.strip())
    for i, f in enumerate(files):
        tr = results[i]
        secs.append((tr.seconds, f))
        cl000 = [d for d in tr.result.diagnostics if d.code == "CL000"]
        if cl000:
            failed.append(f)
            causes[cause(cl000[0].message)] += 1
    headers = [r for p, r in merged.items() if p not in {os.path.abspath(f) for f in files}]
    for r in [results[i].result for i in range(len(files))] + headers:
        for d in r.diagnostics:
            per_rule[d.code] += 1
            if prefixes and d.code.startswith(prefixes):
                listed.append(d)

    n = len(files)
    timed = [s for s, _ in secs if s > 0]
    print(f"files: {n}   fully analysed (no CL000): {n - len(failed)} ({100 * (n - len(failed)) / n:.1f}%)"
          f"   wall {wall:.1f} s with {min(a.jobs, n)} workers")
    if timed:
        print(f"seconds per file (analysis inside the worker): mean {statistics.mean(timed):.2f}, "
              f"median {statistics.median(timed):.2f}, max {max(timed):.2f}, sum {sum(timed):.0f}; "
              f"files over 10 s: {sum(s > 10 for s in timed)}, over 30 s: {sum(s > 30 for s in timed)}")
    print("slowest:", ", ".join(f"{os.path.relpath(f, a.root)} {s:.1f}s"
                                for s, f in sorted(secs, reverse=True)[:a.slowest]))
    if causes:
        print("CL000 causes (files):")
        for c, k in causes.most_common():
            print(f"  {k:3d}  {c}")
        for f in failed:
            print("   ", os.path.relpath(f, a.root))
    print(f"headers (not checked themselves) with findings: {len(headers)}")
    print("diagnostics per rule:", ", ".join(f"{c} {k}" for c, k in sorted(per_rule.items())))
    for d in listed:
        print(f"{d.path}:{d.location.line}:{d.location.column}: {d.code} {d.message}")
    if a.json:
        from cudalint.engine import result_to_dict
        Path(a.json).write_text(json.dumps([result_to_dict(results[i].result) for i in range(n)] +
                                         [result_to_dict(r) for r in headers], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
