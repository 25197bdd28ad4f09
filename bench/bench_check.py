"""Time `cudalint check` against a bare libclang parse of the same files: cold, warm (result
cache) and parallel.

    python bench/bench_check.py [PATH ...] [-I DIR ...] [--per-file-dir] [--sample N]
                                [--repeat N] [--jobs N] [--profile OUT]

PATH defaults to fixtures/. ``--per-file-dir`` adds each file's own directory to its include
path (as a build would); ``--sample N`` takes N files spread evenly over the sorted list.

Phases (medians of ``--repeat`` runs, all in this process after one warm-up file):

* **bare parse**: ``clang.cindex.Index.parse`` of every file with exactly the arguments
  cudalint uses (so the ratios are what the lowering, analyses, rules and cache add to clang);
* **cold**: ``check_files(jobs=1)`` with a fresh, empty result cache (what a first run costs,
  cache writes included), single process;
* **warm**: the same again: every file from the cache (content, headers, options unchanged);
* **parallel**: ``check_files(jobs=N)`` with a fresh cache: worker processes, start-up included.

The issue's budget: cold <= 2x bare parse, warm <= 1/4 of cold. Ratios, not absolute times,
are the figure to track. For the record: a public code base was measured with

    python bench/bench_check.py /tmp/cuda-samples/Samples -I /tmp/cuda-samples/Common \\
        --per-file-dir --sample 40
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import clang.cindex as ci

from cudalint.analyzer.frontend.parse import FrontendOptions, build_args
from cudalint.analyzer.pipeline import AnalysisOptions
from cudalint.cli import collect_files
from cudalint.engine import ResultCache, RunStats, Task, check_files, default_jobs
from cudalint.rules.runner import CheckOptions


def include_dirs(f: str, a) -> list[str]:
    return list(a.include) + ([os.path.dirname(os.path.abspath(f))] if a.per_file_dir else [])


def bare_parse(files, a, index) -> tuple[float, float]:
    """(wall, CPU) seconds."""
    args = {f: build_args(f, FrontendOptions(include_dirs=include_dirs(f, a))) for f in files}
    t0, c0 = time.perf_counter(), time.process_time()
    for f in files:
        try:
            index.parse(f, args=args[f])
        except ci.TranslationUnitLoadError:
            pass
    return time.perf_counter() - t0, time.process_time() - c0


def tasks_for(files, a) -> list[Task]:
    return [Task(f, AnalysisOptions(include_dirs=include_dirs(f, a), use_ptxas=False), CheckOptions())
            for f in files]


def timed_check(files, a, jobs: int, cache_dir: Path | None) -> tuple[tuple[float, float], RunStats]:
    """((wall, CPU of this process) seconds, stats)."""
    cache = ResultCache(cache_dir) if cache_dir is not None else None
    st = RunStats()
    t0, c0 = time.perf_counter(), time.process_time()
    check_files(tasks_for(files, a), jobs=jobs, cache=cache, stats=st)
    return (time.perf_counter() - t0, time.process_time() - c0), st


def sample(files: list[str], n: int) -> list[str]:
    if n <= 0 or n >= len(files):
        return files
    step = len(files) / n
    return [files[int(i * step)] for i in range(n)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=[str(Path(__file__).resolve().parents[1] / "fixtures")])
    ap.add_argument("-I", dest="include", action="append", default=[])
    ap.add_argument("--per-file-dir", action="store_true", help="add each file's directory to -I")
    ap.add_argument("--sample", type=int, default=0, help="use N files spread over the sorted list")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=default_jobs(), help="workers of the parallel phase")
    ap.add_argument("--profile", help="write a cProfile of one cold single-process run here")
    a = ap.parse_args(argv)
    files = sample(sorted(collect_files([Path(p) for p in a.paths])), a.sample)
    if not files:
        print("no files", file=sys.stderr)
        return 2
    index = ci.Index.create()
    timed_check(files[:1], a, 1, None)  # warm up imports, the arch probe and the prelude
    if a.profile:
        import cProfile
        cProfile.runctx("timed_check(files, a, 1, None)", globals(), locals(), a.profile)
        print(f"profile written to {a.profile}")
    bare, cold, warm, par = [], [], [], []
    analysed = cached = 0
    for _ in range(a.repeat):
        bare.append(bare_parse(files, a, index))
        with tempfile.TemporaryDirectory(prefix="cudalint-bench-") as tmp:
            t, st = timed_check(files, a, 1, Path(tmp) / "c1")
            cold.append(t)
            analysed = st.analysed
            t, st = timed_check(files, a, 1, Path(tmp) / "c1")
            warm.append(t)
            cached = st.cached
            t, _ = timed_check(files, a, a.jobs, Path(tmp) / "c2")
            par.append(t)
    med = lambda xs, i: statistics.median(x[i] for x in xs)  # noqa: E731
    b, c, w, p = (med(x, 0) for x in (bare, cold, warm, par))
    bc, cc, wc = (med(x, 1) for x in (bare, cold, warm))
    n = len(files)
    print(f"files: {n}  repeat: {a.repeat} (medians)  cold analysed {analysed}, warm from cache {cached}")
    print(f"{'':25}   {'wall':>9}      {'CPU':>9}")
    print(f"bare libclang parse      : {b * 1000:9.1f} ms  {bc * 1000:9.1f} ms  ({b / n * 1000:.1f} ms/file)")
    print(f"cold, 1 process          : {c * 1000:9.1f} ms  {cc * 1000:9.1f} ms  ({c / n * 1000:.1f} ms/file)")
    print(f"warm (cache), 1 process  : {w * 1000:9.1f} ms  {wc * 1000:9.1f} ms  ({w / n * 1000:.2f} ms/file)")
    print(f"cold, {a.jobs:2d} workers       : {p * 1000:9.1f} ms  {'':>12}  ({p / n * 1000:.1f} ms/file)")
    print(f"ratio cold / bare parse  : {c / b:9.2f}x    {cc / bc:8.2f}x   (budget 2x)")
    print(f"ratio warm / cold        : {w / c:9.3f}     {wc / cc:8.3f}    (budget 0.25)")
    print(f"ratio parallel / cold    : {p / c:9.2f}     (wall; {os.cpu_count()} CPUs here)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
