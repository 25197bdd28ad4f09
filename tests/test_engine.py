"""Scale: the result cache, the process pool (parallel, crash- and hang-isolated), --jobs."""
from __future__ import annotations

import dataclasses
import json
import os
import signal
import time

import pytest

from typer.testing import CliRunner

import cudalint.engine as engine
from cuda_sources import CLEAN, kernel
from launcher_probe import crash_here
from cudalint.analyzer.pipeline import AnalysisOptions
from cudalint.cli import app
from cudalint.engine import ResultCache, RunStats, Task, WorkerPool, check_files
from cudalint.rules.runner import CheckOptions


def summary(results):
    return [(os.path.basename(r.path), r.error is not None,
             [(d.location.line, d.code, d.message) for d in r.diagnostics]) for r in results]


def task(path, **aopts):
    return Task(str(path), AnalysisOptions(**aopts), CheckOptions())


# ---------------------------------------------------------------------------------- cache
def test_cache_hit_and_invalidation(tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    hdr = inc / "stride.h"
    hdr.write_text("#define STRIDE 4\n")
    k = tmp_path / "k.cu"
    k.write_text('#include "stride.h"\n#include "later.h"\n'
                 "__global__ void g(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x * STRIDE]; }\n")
    cache = ResultCache(tmp_path / "cache")

    def go(**aopts):
        st = RunStats()
        res = check_files([task(k, include_dirs=[str(inc)], **aopts)], jobs=1, cache=cache, stats=st)
        return st, summary(res)

    st, cold = go()
    assert (st.analysed, st.cached) == (1, 0)
    assert any("4 elements apart" in m for _, c, m in cold[0][2] if c == "CL201")
    st, warm = go()
    assert (st.analysed, st.cached) == (1 - 1, 1) and warm == cold
    assert (tmp_path / "cache" / "CACHEDIR.TAG").exists()
    # touching the header (same content) keeps the entry
    os.utime(hdr, (time.time() + 5, time.time() + 5))
    st, _ = go()
    assert st.cached == 1
    # changing the included header's content invalidates it
    hdr.write_text("#define STRIDE 8\n")
    st, changed = go()
    assert st.analysed == 1
    assert any("8 elements apart" in m for _, c, m in changed[0][2] if c == "CL201")
    # other options: another entry
    st, _ = go(arch="sm_80")
    assert st.analysed == 1
    st, _ = go()
    assert st.cached == 1
    # a header that was missing (stubbed) appears: re-analysed
    (tmp_path / "later.h").write_text("// now it exists\n")
    st, _ = go()
    assert st.analysed == 1
    # the file's own content
    k.write_text(k.read_text() + "\n// edited\n")
    st, _ = go()
    assert st.analysed == 1


def test_cache_stays_valid_for_a_header_that_exists_but_is_not_found(tmp_path):
    """`#include <lib/x.h>` next to the file but without -I: still missing on every run, so the
    entry must stay valid (it is re-analysed only when what could be found changes)."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "x.h").write_text("#define X 1\n")
    k = tmp_path / "k.cu"
    k.write_text("#include <lib/x.h>\n" + CLEAN)
    cache = ResultCache(tmp_path / "cache")
    for expected in ((1, 0), (0, 1), (0, 1)):
        st = RunStats()
        res = check_files([task(k)], jobs=1, cache=cache, stats=st)
        assert (st.analysed, st.cached) == expected
        assert any("header <lib/x.h> not found" in n for n in res[0].notes)
    (tmp_path / "lib" / "x.h").unlink()  # what could be found changed: re-analysed
    st = RunStats()
    check_files([task(k)], jobs=1, cache=cache, stats=st)
    assert st.analysed == 1


def test_warm_run_costs_almost_nothing(tmp_path):
    files = []
    for i in range(4):
        f = tmp_path / f"k{i}.cu"
        f.write_text(kernel(c14=f"  // file {i}"))
        files.append(f)
    cache = ResultCache(tmp_path / "cache")
    t0 = time.perf_counter()
    cold = check_files([task(f) for f in files], jobs=1, cache=cache)
    t1 = time.perf_counter()
    st = RunStats()
    warm = check_files([task(f) for f in files], jobs=1, cache=cache, stats=st)
    t2 = time.perf_counter()
    assert st.cached == 4 and summary(warm) == summary(cold)
    assert t2 - t1 < (t1 - t0) / 4


def test_uncacheable_results_are_not_stored(tmp_path):
    missing = tmp_path / "nope.cu"
    cache = ResultCache(tmp_path / "cache")
    check_files([task(missing)], jobs=1, cache=cache)
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").rglob("*.json"))


def test_cli_no_cache_and_cache_dir(tmp_path, monkeypatch):
    k = tmp_path / "k.cu"
    k.write_text(CLEAN)
    cache_dir = tmp_path / "c"
    monkeypatch.setenv("CUDALINT_CACHE_DIR", str(cache_dir))
    runner = CliRunner()
    from cudalint import __version__
    results = cache_dir / __version__
    assert runner.invoke(app, ["check", str(k), "--no-cache"]).exit_code == 0
    assert not results.exists()
    assert runner.invoke(app, ["check", str(k)]).exit_code == 0
    assert list(results.rglob("*.json"))
    assert runner.invoke(app, ["check", str(k), "--jobs", "0"]).exit_code == 2


# ----------------------------------------------------------------------------------- pool
def test_parallel_results_equal_serial_in_order(tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "default_jobs", lambda: 4)  # a pool even on a 2-core CI machine
    files = []
    for i in range(5):
        f = tmp_path / f"k{i}.cu"
        f.write_text(kernel() if i % 2 else CLEAN)
        files.append(f)
    files.append(tmp_path / "missing.cu")
    serial = check_files([task(f) for f in files], jobs=1)
    st = RunStats()
    parallel = check_files([task(f) for f in files], jobs=2, stats=st)
    assert st.workers == 2
    assert summary(parallel) == summary(serial)
    assert [os.path.basename(r.path) for r in parallel] == [f.name for f in files]


def test_two_cores_analyse_in_one_process(tmp_path, monkeypatch):
    """On 2 cores one process already uses both (parse ahead, compiles): --jobs 2 runs there,
    with no pool (a pool was measured 1.08x slower)."""
    monkeypatch.setattr(engine, "default_jobs", lambda: 2)
    spawned = []
    monkeypatch.setattr(engine.WorkerPool, "__init__", lambda self, *a, **k: spawned.append(a) or None)
    files = []
    for i in range(3):
        f = tmp_path / f"k{i}.cu"
        f.write_text(kernel())
        files.append(f)
    st = RunStats()
    res = check_files([task(f) for f in files], jobs=2, stats=st)
    assert st.workers == 1 and spawned == []
    assert summary(res) == summary(check_files([task(f) for f in files], jobs=1))
    assert engine.pool_size(2, 3) == 1 and engine.pool_size(8, 3) == 1
    monkeypatch.setattr(engine, "default_jobs", lambda: 4)
    assert engine.pool_size(2, 3) == 2 and engine.pool_size(8, 3) == 3 and engine.pool_size(1, 3) == 1



def test_a_file_whose_registers_are_still_compiling_is_analysed_later(tmp_path, monkeypatch):
    """In one process the analysis follows the compiles' order, but takes a later file first
    when the next one's report is still compiling; every result stays in its place."""
    from cudalint.analyzer import ptxas_jobs

    files = []
    for i in range(4):
        f = tmp_path / f"k{i}.cu"
        f.write_text(kernel() + "\n" * (40 - i))  # biggest first: k0 .. k3
        files.append(f)
    compiling = {str(files[1])}
    monkeypatch.setattr(ptxas_jobs, "pending", lambda path, opts: path in compiling)
    analysed = []
    real = engine._guarded
    monkeypatch.setattr(engine, "_guarded", lambda t: (analysed.append(os.path.basename(t.path)), real(t))[1])
    tasks = [task(f) for f in files]
    res = check_files(tasks, jobs=1)
    assert analysed == ["k0.cu", "k2.cu", "k3.cu", "k1.cu"]
    assert [r.path for r in res] == [str(f) for f in files]
    compiling.clear()
    analysed.clear()
    assert summary(check_files(tasks, jobs=1)) == summary(res)
    assert analysed == ["k0.cu", "k1.cu", "k2.cu", "k3.cu"]

@dataclasses.dataclass
class CrashingTask(Task):
    """Kills the worker process that unpickles it, the way libclang's SIGILL would."""

    def __setstate__(self, state):
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.kill(os.getpid(), signal.SIGILL)


@dataclasses.dataclass
class HangingTask(Task):
    """Never returns (code stuck where the in-process time limit cannot interrupt it)."""

    def __setstate__(self, state):
        self.__dict__.update(state)
        time.sleep(600)


def test_worker_crash_becomes_cl000_and_the_run_goes_on(tmp_path):
    good = tmp_path / "good.cu"
    good.write_text(kernel())
    crash = tmp_path / "crash.cu"
    crash.write_text(CLEAN)
    tasks = [task(good), CrashingTask(str(crash), AnalysisOptions(), CheckOptions()), task(good)]
    with WorkerPool(2) as pool:
        out = dict(pool.run(tasks))
    assert sorted(out) == [0, 1, 2]
    bad = out[1].result
    assert bad.error and [d.code for d in bad.diagnostics] == ["CL000"]
    assert "crashed (signal SIGILL)" in bad.diagnostics[0].message
    assert [d.code for d in out[0].result.diagnostics] == ["CL201", "CL201", "CL702"]
    assert summary([out[2].result]) == summary([out[0].result])


def test_hung_worker_is_killed_after_the_time_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "KILL_GRACE_S", 0.5)
    f = tmp_path / "k.cu"
    f.write_text(CLEAN)
    t0 = time.monotonic()
    with WorkerPool(1) as pool:
        out = dict(pool.run([HangingTask(str(f), AnalysisOptions(), CheckOptions(), time_limit=1.0),
                             task(f)]))
    assert time.monotonic() - t0 < 60
    assert "per-file time limit of 1 s" in out[0].result.diagnostics[0].message
    assert "`--time-limit SECONDS`" in out[0].result.diagnostics[0].message  # how to allow more
    assert out[1].result.diagnostics == [] and out[1].result.error is None


def test_buffer_task_reports_real_paths(tmp_path):
    (tmp_path / "stride.h").write_text("#define STRIDE 8\n")
    real = tmp_path / "k.cu"
    real.write_text("// on disk: nothing\n")
    src = '#include "stride.h"\n__global__ void g(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x * STRIDE]; }\n'
    tr = engine.run_task(Task(str(real), AnalysisOptions(), CheckOptions(), source=src))
    assert tr.result.path == str(real)
    assert [d.code for d in tr.result.diagnostics] == ["CL201"]
    assert tr.result.diagnostics[0].path == str(real)


def test_progress_bar_does_not_disturb_results(tmp_path):
    files = []
    for i in range(engine.PROGRESS_MIN_FILES):
        f = tmp_path / f"k{i}.cu"
        f.write_text(CLEAN.replace("scale", f"scale{i}"))
        files.append(f)
    with_bar = check_files([task(f) for f in files], jobs=1, progress=True)
    without = check_files([task(f) for f in files], jobs=1, progress=False)
    assert summary(with_bar) == summary(without)


def test_single_file_run_survives_a_crash_and_a_hang(tmp_path, monkeypatch):
    # A single-file run (the pre-commit and editor case) analyses in a forked child: a signal
    # in libclang's C code (here a SIGSEGV raised in the analysis) or a hang the in-process
    # alarm cannot interrupt becomes the file's CL000, exit 2, never the end of cudalint.
    good, crash, hang = (tmp_path / n for n in ("good.cu", "crash.cu", "hang.cu"))
    good.write_text(kernel())
    crash.write_text(CLEAN)
    hang.write_text(CLEAN)
    real = engine.run_task

    def run(t):
        if t.path.endswith("crash.cu"):
            crash_here()
        if t.path.endswith("hang.cu"):
            signal.signal(signal.SIGALRM, signal.SIG_IGN)  # stuck where no alarm is seen
            time.sleep(600)
        return real(t)

    monkeypatch.setattr(engine, "run_task", run)
    monkeypatch.setattr(engine, "KILL_GRACE_S", 0.5)
    t0 = time.monotonic()
    res = [check_files([t], jobs=1)[0]
           for t in (task(crash), dataclasses.replace(task(hang), time_limit=1.0), task(good))]
    assert time.monotonic() - t0 < 60
    assert [d.code for d in res[0].diagnostics] == ["CL000"]
    assert "crashed (signal SIGSEGV)" in res[0].diagnostics[0].message
    assert "per-file time limit of 1 s" in res[1].diagnostics[0].message
    assert [d.code for d in res[2].diagnostics] == ["CL201", "CL201", "CL702"]


def test_single_file_run_survives_a_crash_and_a_hang_in_its_frontend_process(tmp_path, monkeypatch):
    # The file is parsed and lowered in a process of its own (isolation._lower_in_child), where
    # libclang's C code runs: a signal there is the file's CL000 saying so; a hang there runs
    # the analysing process into its time limit; a Python error there is redone, and
    # reported, by the analysis itself.
    if not engine._can_fork():
        pytest.skip("the one-file run forks only when no other thread runs")
    from cudalint.analyzer import lowering

    good, crash, hang, bug = (tmp_path / n for n in ("good.cu", "crash.cu", "hang.cu", "bug.cu"))
    for f in (crash, hang, bug):
        f.write_text(CLEAN)
    good.write_text(kernel())
    real = lowering.lower_file
    parent = os.getpid()

    def lower_file(path, source, opts):
        if os.getpid() != parent and path.endswith("crash.cu"):
            crash_here()
        if os.getpid() != parent and path.endswith("hang.cu"):
            time.sleep(600)
        if path.endswith("bug.cu"):
            raise ValueError("a bug in the lowering")
        return real(path, source, opts)

    monkeypatch.setattr(lowering, "lower_file", lower_file)
    monkeypatch.delenv("CUDALINT_NO_FORK", raising=False)
    t0 = time.monotonic()
    res = [check_files([t], jobs=1)[0] for t in
           (task(crash), dataclasses.replace(task(hang), time_limit=1.0), task(bug), task(good))]
    assert time.monotonic() - t0 < 60
    assert [d.code for d in res[0].diagnostics] == ["CL000"]
    assert "crashed (signal SIGSEGV) while parsing this file" in res[0].diagnostics[0].message
    assert [d.code for d in res[1].diagnostics] == ["CL000"]
    assert "per-file time limit of 1 s" in res[1].diagnostics[0].message
    assert "internal error while analysing: ValueError: a bug in the lowering" in res[2].diagnostics[0].message
    assert [d.code for d in res[3].diagnostics] == ["CL201", "CL201", "CL702"]


def test_each_worker_is_told_its_next_file_and_gets_it():
    # Two workers over five files (0 first): each gets a file and is told of the one it will
    # get next, so that file's compile runs during this one's analysis; no file is told to two.
    from cudalint.engine import _pick

    pending, ahead = [4, 3, 2, 1, 0], {}
    got = [("A", _pick(pending, ahead, "A")), ("B", _pick(pending, ahead, "B")),
           ("A", _pick(pending, ahead, "A")), ("B", _pick(pending, ahead, "B")),
           ("A", _pick(pending, ahead, "A"))]
    assert got == [("A", (0, 1)), ("B", (2, 3)), ("A", (1, 4)), ("B", (3, None)), ("A", (4, None))]
    assert pending == [] and ahead == {}


def test_a_file_another_worker_took_is_not_waited_for():
    from cudalint.engine import _pick

    pending, ahead = [2, 1], {"A": 0}  # A was told of 0, which a replacement worker took
    assert _pick(pending, ahead, "A") == (1, 2)


def test_an_editor_buffer_gets_ptxas_registers_through_its_quoted_includes(tmp_path):
    # The buffer is analysed as a copy in a temporary directory; the compile for registers must
    # search the real file's directory as the parse does (it gave an estimate before).
    from cudalint.analyzer.registers import find_nvcc

    if find_nvcc() is None:
        pytest.skip("nvcc not found")
    (tmp_path / "h.cuh").write_text("__device__ float twice(float x) { return 2 * x; }\n")
    src = '#include "h.cuh"\n__global__ void k(float* a) { a[threadIdx.x] = twice(a[threadIdx.x]); }\n'
    (tmp_path / "a.cu").write_text("// the saved file differs from the buffer\n")
    tr = engine.run_task(Task(str(tmp_path / "a.cu"), AnalysisOptions(), CheckOptions(), source=src,
                              editor_facts=True))
    assert '"registers_source": "ptxas"' in json.dumps(tr.facts)


def test_the_analyses_load_once_a_process():
    # the editor server checks file after file in one process: a second load must not freeze
    # (and so keep from the collector) the objects the server built since the first
    import gc

    from cudalint.engine import load_analyses

    assert load_analyses() is None
    frozen = gc.get_freeze_count()
    garbage = [[i] for i in range(1000)]
    assert load_analyses() is None
    assert gc.get_freeze_count() == frozen
    del garbage
