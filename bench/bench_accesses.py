"""What the access analysis (symbolic indices, lanes, coalescing, banks) adds to parsing.

    python bench/bench_accesses.py [PATH ...] [--repeat N]

PATH defaults to ../shared/groundtruth/kernels/*.cu. For each file: the time to parse and
lower it (libclang + IR) and the time of ``analyze_accesses`` for every kernel in it, both the
best of N runs; prints per file and the total ratio accesses / parse. The issue's budget is
under 50 %. Ratios, not absolute times, are the figure to track.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from cudalint.analyzer.accesses import analyze_accesses
from cudalint.analyzer.target import DEFAULT_ARCH
from cudalint.analyzer.launch import launch_config, resolve_launch_sites
from cudalint.analyzer.memory import kernel_variables
from cudalint.analyzer.pipeline import AnalysisOptions, FileAnalysis, _read_source, lower

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "groundtruth" / "kernels"


def measure(path: str, repeat: int) -> tuple[float, float]:
    src, err = _read_source(path)
    if src is None:
        raise SystemExit(err)
    opts = AnalysisOptions()
    best_parse = best_acc = float("inf")
    for _ in range(repeat):
        fa = FileAnalysis(path)
        t0 = time.perf_counter()
        tu = lower(path, src, opts, fa)
        t1 = time.perf_counter()
        if tu is None:
            return t1 - t0, 0.0
        resolve_launch_sites(tu)
        work = []
        for k in tu.kernels:
            lc = launch_config(k, tu)
            work.append((k, lc, kernel_variables(k, lc)))
        t2 = time.perf_counter()
        for k, lc, vs in work:
            analyze_accesses(k, lc, vs, DEFAULT_ARCH, {})
        t3 = time.perf_counter()
        best_parse = min(best_parse, t1 - t0)
        best_acc = min(best_acc, t3 - t2)
    return best_parse, best_acc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    files = [str(p) for p in (a.paths or sorted(DEFAULT.glob("*.cu")))]
    if not files:
        print("no files", file=sys.stderr)
        return 2
    tp = ta = 0.0
    for f in files:
        p, acc = measure(f, a.repeat)
        tp += p
        ta += acc
        print(f"{Path(f).name:28} parse {1000 * p:8.1f} ms   accesses {1000 * acc:7.1f} ms   {100 * acc / p:5.1f} %")
    print(f"{'total':28} parse {1000 * tp:8.1f} ms   accesses {1000 * ta:7.1f} ms   {100 * ta / tp:5.1f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
