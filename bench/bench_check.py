"""Time `cudalint check` as a user runs it against a bare libclang parse of the same files:
cold, warm (result cache), parallel, and the command line on one small file.

    python bench/bench_check.py [PATH ...] [-I DIR ...] [--per-file-dir] [--sample N]
                                [--repeat N] [--jobs N] [--no-ptxas] [--fixture FILE]
                                [--profile OUT]

PATH defaults to fixtures/. ``--per-file-dir`` adds each file's own directory to its include
path (as a build would); ``--sample N`` takes N files spread evenly over the sorted list. The
issue's set (40 cuda-samples files):

    python bench/bench_check.py /work/src/cuda-samples/Samples/0_Introduction \\
        /work/src/cuda-samples/Samples/2_Concepts_and_Techniques \\
        -I /work/src/cuda-samples/Common --per-file-dir --sample 40

What users get: ptxas (nvcc, or NVRTC) is on when a compiler is found (``--no-ptxas`` turns it
off), through the same path as the CLI (``engine.check_files``). Phases, medians of
``--repeat`` runs, in this one process after a warm-up file (imports, the precompiled prelude):

* **bare parse**: ``Index.parse`` of every file with cudalint's clang arguments, the prelude
  included as text (no PCH): what clang alone costs;
* **cold**: ``check_files(jobs=1)``, result cache and ptxas cache empty; its breakdown: clang
  parse, lowering to IR, the analyses (less the wait for ptxas), the rules, the time the
  analysis *waited* for ptxas (its critical path) and the compile time ptxas spent in the
  background;
* **cold, ptxas cached**: result cache empty, ptxas' reports on disk;
* **warm**: every file from the result cache;
* **parallel**: ``check_files(jobs=N)``, both caches empty: worker processes, start-up included
  (on 2 cores or fewer ``--jobs N`` analyses in one process, engine.pool_size: the line says how
  many analysing processes ran);
* **CLI**: ``cudalint --version``, ``cudalint check EMPTY.cu``, ``cudalint check FIXTURE``
  with ptxas' cache warm and ``--no-cache``, and from the result cache (separate processes:
  start-up included).

The issue's budgets: cold <= 2x bare parse; warm <= 5 % of cold; parallel (2 jobs) <= 0.6 of
cold; one fixture <= 0.6 s cold with ptxas' cache warm, <= 0.25 s from the result cache;
``--version`` and an empty file <= 0.3 s. On a shared machine, compare the ratios of one run.
"""
from __future__ import annotations

import argparse
import functools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import clang.cindex as ci

from cudalint.analyzer.frontend.parse import FrontendOptions, build_args
from cudalint.analyzer.pipeline import AnalysisOptions
from cudalint.cli import collect_files
from cudalint.engine import ResultCache, RunStats, Task, check_files, default_jobs
from cudalint.rules.runner import CheckOptions

ROOT = Path(__file__).resolve().parents[1]


def include_dirs(f: str, a) -> list[str]:
    return list(a.include) + ([os.path.dirname(os.path.abspath(f))] if a.per_file_dir else [])


def bare_parse(files, a, index) -> float:
    args = {f: build_args(f, FrontendOptions(include_dirs=include_dirs(f, a))) for f in files}
    t0 = time.perf_counter()
    for f in files:
        try:
            index.parse(f, args=args[f], options=0x200)
        except ci.TranslationUnitLoadError:
            pass
    return time.perf_counter() - t0


def tasks_for(files, a) -> list[Task]:
    return [Task(f, AnalysisOptions(include_dirs=include_dirs(f, a), use_ptxas=not a.no_ptxas), CheckOptions())
            for f in files]


# ----------------------------------------------------------------------------- phase timers
PHASES = defaultdict(float)
_local = threading.local()


def _timed(name: str, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kw):
        if threading.current_thread() is not threading.main_thread():
            return _background(name, fn, *args, **kw)
        outer = getattr(_local, "active", None)
        if outer is not None and outer != "analyses":
            return fn(*args, **kw)  # nested in another timed phase (not the analyses): counted there
        _local.active = name
        t0 = time.perf_counter()
        try:
            return fn(*args, **kw)
        finally:
            dt = time.perf_counter() - t0
            PHASES[name] += dt
            if outer == "analyses":
                PHASES["analyses"] -= dt  # the analyses' own time excludes the ptxas wait
            _local.active = outer
    return wrapper


def _background(name: str, fn, *args, **kw):
    """A phase run in a helper thread (a parse ahead, a compile): off the critical path."""
    name = name if "background" in name else f"{name} (background)"
    t0 = time.perf_counter()
    try:
        return fn(*args, **kw)
    finally:
        with _phase_lock:
            PHASES[name] += time.perf_counter() - t0


_phase_lock = threading.Lock()


def instrument() -> None:
    """Wrap the stages of one file's check (where this version of cudalint has them)."""
    import importlib

    for mod, attr, name in [("cudalint.analyzer.frontend.parse", "parse_file", "clang parse"),
                            ("cudalint.analyzer.frontend.lower_clang", "lower_translation_unit", "lowering to IR"),
                            ("cudalint.analyzer.pipeline", "analyze_kernel", "analyses"),
                            ("cudalint.analyzer.pipeline", "kernel_facts_before_registers", "analyses"),
                            ("cudalint.analyzer.pipeline", "kernel_facts_from_registers", "analyses"),
                            ("cudalint.analyzer.frontend.parse_ahead", "take", "parse-ahead wait (critical path)"),
                            ("cudalint.analyzer.resources", "_ptxas_report", "ptxas wait (critical path)"),
                            ("cudalint.rules.runner", "check_analysis", "rules"),
                            ("cudalint.analyzer.ptxas_jobs", "_compile", "ptxas compiles (background)"),
                            ("cudalint.analyzer.ptxas_batch", "compile_batch", "ptxas compiles (background)")]:
        try:
            m = importlib.import_module(mod)
            setattr(m, attr, _timed(name, getattr(m, attr)))
        except (ImportError, AttributeError):
            pass


def reset_ptxas_memo() -> None:
    try:
        from cudalint.analyzer import ptxas_jobs
        ptxas_jobs._jobs.clear()
    except ImportError:
        pass
    try:  # older versions memoised reports in resources._ptxas_cached
        from cudalint.analyzer import resources
        resources._ptxas_cached.cache_clear()
    except AttributeError:
        pass


def timed_check(files, a, jobs: int, cache_dir: Path, fresh_ptxas: bool) -> tuple[float, RunStats]:
    if fresh_ptxas:
        shutil.rmtree(Path(os.environ["CUDALINT_CACHE_DIR"]) / "ptxas", ignore_errors=True)
    reset_ptxas_memo()
    st = RunStats()
    t0 = time.perf_counter()
    check_files(tasks_for(files, a), jobs=jobs, cache=ResultCache(cache_dir), stats=st)
    return time.perf_counter() - t0, st


def sample(files: list[str], n: int) -> list[str]:
    if n <= 0 or n >= len(files):
        return files
    step = len(files) / n
    return [files[int(i * step)] for i in range(n)]


CLI = [shutil.which("cudalint") or "cudalint"]


def cli_time(args: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run([*CLI, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def cli_phase(a, env: dict) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="cudalint-bench-cli-") as tmp:
        empty = Path(tmp) / "empty.cu"
        empty.write_text("")
        res = Path(tmp) / "results"
        e = dict(env)
        cli_time(["check", a.fixture, "--no-cache"], e)  # ptxas' report and the PCH on disk
        out: dict[str, list[float]] = defaultdict(list)
        for _ in range(max(3, a.repeat)):
            out["cudalint --version"].append(cli_time(["--version"], e))
            out["check empty.cu"].append(cli_time(["check", str(empty), "--no-cache"], e))
            out["check fixture, ptxas cached, --no-cache"].append(cli_time(["check", a.fixture, "--no-cache"], e))
            e2 = dict(e, CUDALINT_CACHE_DIR=str(res))
            cli_time(["check", a.fixture], e2)
            out["check fixture from the result cache"].append(cli_time(["check", a.fixture], e2))
            shutil.rmtree(res, ignore_errors=True)
        return {k: statistics.median(v) for k, v in out.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=[str(ROOT / "fixtures")])
    ap.add_argument("-I", dest="include", action="append", default=[])
    ap.add_argument("--per-file-dir", action="store_true", help="add each file's directory to -I")
    ap.add_argument("--sample", type=int, default=0, help="use N files spread over the sorted list")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=min(2, default_jobs()), help="workers of the parallel phase")
    ap.add_argument("--no-ptxas", action="store_true", help="turn ptxas off (not what users get)")
    ap.add_argument("--fixture", default=str(ROOT / "fixtures" / "examples" / "matmul.cu"))
    ap.add_argument("--skip-cli", action="store_true")
    ap.add_argument("--only-cold", action="store_true", help="bare parse and the cold run only (quick A/B)")
    ap.add_argument("--cli", help="the command to time (default: the cudalint script on PATH)")
    ap.add_argument("--profile", help="write a cProfile of one cold single-process run here")
    a = ap.parse_args(argv)
    files = sample(sorted(collect_files([Path(p) for p in a.paths])), a.sample)
    if a.cli:
        import shlex
        CLI[:] = shlex.split(a.cli)
    if not files:
        print("no files", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="cudalint-bench-"))
    os.environ["CUDALINT_CACHE_DIR"] = str(work / "tool-caches")  # ptxas reports, the PCH
    try:
        from cudalint.analyzer.registers import find_nvcc
        compiler = "off" if a.no_ptxas else (find_nvcc() or "NVRTC or none")
        index = ci.Index.create()
        timed_check(files[:1], a, 1, work / "warmup", True)  # imports, the arch probe, the PCH
        instrument()
        if a.profile:
            import cProfile
            cProfile.runctx("timed_check(files, a, 1, work / 'prof', True)", globals(), locals(), a.profile)
            print(f"profile written to {a.profile}")
        runs = defaultdict(list)
        breakdown = []
        analysed = cached = 0
        procs = 0  # analysing processes of the parallel run (engine.pool_size)
        for r in range(a.repeat):
            runs["bare"].append(bare_parse(files, a, index))
            PHASES.clear()
            t, st = timed_check(files, a, 1, work / f"c{r}", True)
            runs["cold"].append(t)
            breakdown.append(dict(PHASES))
            analysed = st.analysed
            if a.only_cold:
                runs["warm"].append(float("nan"))
                runs["cold_ptxas_cached"].append(float("nan"))
                runs["parallel"].append(float("nan"))
                continue
            t, st = timed_check(files, a, 1, work / f"c{r}", False)
            runs["warm"].append(t)
            cached = st.cached
            t, _ = timed_check(files, a, 1, work / f"d{r}", False)
            runs["cold_ptxas_cached"].append(t)
            t, pst = timed_check(files, a, a.jobs, work / f"p{r}", True)
            runs["parallel"].append(t)
            procs = pst.workers
        m = {k: statistics.median(v) for k, v in runs.items()}
        n = len(files)
        # the cores matter to the parallel ratio: a 1-process run already keeps a second core
        # busy (parse-ahead, ptxas), so 2 workers on 2 cores have nothing left to gain
        print(f"files: {n}  repeat: {a.repeat} (medians)  ptxas: {compiler}  cores: {os.cpu_count()}  "
              f"cold analysed {analysed}, warm from cache {cached}")
        print(f"bare libclang parse           : {m['bare']:8.2f} s  ({m['bare'] / n * 1000:.0f} ms/file)")
        print(f"cold, 1 process               : {m['cold']:8.2f} s")
        keys = sorted({k for b in breakdown for k in b})
        order = ["clang parse", "parse-ahead wait (critical path)", "lowering to IR", "analyses", "rules",
                 "ptxas wait (critical path)", "clang parse (background)"]
        for k in order + [k for k in keys if k not in order]:
            v = statistics.median(b.get(k, 0.0) for b in breakdown)
            print(f"    {k:<32}: {v:8.2f} s")
        accounted = statistics.median(sum(v for k, v in b.items() if "background" not in k) for b in breakdown)
        print(f"    {'other (cache, I/O, set-up)':<32}: {m['cold'] - accounted:8.2f} s")
        print(f"cold, ptxas cached            : {m['cold_ptxas_cached']:8.2f} s")
        print(f"warm (result cache)           : {m['warm']:8.2f} s")
        print(f"cold, --jobs {a.jobs} ({procs} process{'es' if procs != 1 else ''})   : {m['parallel']:8.2f} s")
        print(f"ratio cold / bare parse       : {m['cold'] / m['bare']:8.2f}x   (budget 2x)")
        print(f"ratio warm / cold             : {m['warm'] / m['cold']:8.3f}    (budget 0.05)")
        print(f"ratio --jobs {a.jobs} / cold        : {m['parallel'] / m['cold']:8.2f}    (budget 0.6 for 2)")
        if not a.skip_cli and not a.only_cold:
            env = dict(os.environ)
            for k, v in cli_phase(a, env).items():
                budget = {"cudalint --version": 0.3, "check empty.cu": 0.3,
                          "check fixture, ptxas cached, --no-cache": 0.6,
                          "check fixture from the result cache": 0.25}[k]
                print(f"CLI {k:<40}: {v:6.2f} s  (budget {budget} s)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
