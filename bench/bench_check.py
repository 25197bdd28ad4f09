"""Time `cudalint check` against a bare libclang parse of the same files, in one process.

    python bench/bench_check.py [PATH ...] [-I DIR ...] [--repeat N]

PATH defaults to fixtures/. Prints per-phase totals and the ratios cudalint / bare parse
(the parse with exactly the arguments cudalint uses, so the ratio is what our lowering,
analyses and rules add on top of clang). Ratios, not absolute times, are the figure to track.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import clang.cindex as ci

from cudalint.analyzer.frontend.parse import FrontendOptions, build_args
from cudalint.analyzer.pipeline import AnalysisOptions
from cudalint.cli import collect_files
from cudalint.rules.runner import CheckOptions, check_file


def bare_parse(files, fopts, index) -> float:
    t0 = time.perf_counter()
    for f in files:
        try:
            index.parse(f, args=build_args(f, fopts))
        except ci.TranslationUnitLoadError:
            pass
    return time.perf_counter() - t0


def full_check(files, aopts) -> float:
    t0 = time.perf_counter()
    for f in files:
        check_file(f, aopts, CheckOptions())
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=[str(Path(__file__).resolve().parents[1] / "fixtures")])
    ap.add_argument("-I", dest="include", action="append", default=[])
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    files = collect_files([Path(p) for p in a.paths])
    if not files:
        print("no files", file=sys.stderr)
        return 2
    fopts = FrontendOptions(include_dirs=a.include)
    aopts = AnalysisOptions(include_dirs=a.include, use_ptxas=False)
    index = ci.Index.create()
    full_check(files[:1], aopts)  # warm up imports and the prelude
    bare, full = [], []
    for _ in range(a.repeat):
        bare.append(bare_parse(files, fopts, index))
        full.append(full_check(files, aopts))
    b, f = statistics.median(bare), statistics.median(full)
    print(f"files: {len(files)}  repeat: {a.repeat} (medians)")
    print(f"bare libclang parse : {b * 1000:8.1f} ms  ({b / len(files) * 1000:.1f} ms/file)")
    print(f"cudalint check      : {f * 1000:8.1f} ms  ({f / len(files) * 1000:.1f} ms/file)")
    print(f"ratio check / parse : {f / b:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
