"""Start-up cost: what a `cudalint check` answered without analysing anything imports.

Importing the analyses (sympy, numpy, libclang) costs about a third of a second; a run whose
files are empty or all in the result cache must not pay it (issue 13: `check empty.cu` and a
cached fixture within 0.3 / 0.25 s). Asserted on the modules loaded, not on times, so the test
holds on a loaded machine.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "fixtures" / "examples" / "matmul.cu"
HEAVY = ("sympy", "networkx", "numpy", "clang.cindex", "asyncio", "pygls")

PROBE = """
import json, sys
from cudalint.launcher import main
try:
    main(sys.argv[1:])
except SystemExit as e:
    code = e.code
import gc
print(json.dumps({"code": code, "heavy": [m for m in %r if m in sys.modules], "frozen": gc.get_freeze_count()}))
""" % (HEAVY,)


def _run(args, cache_dir) -> dict:
    env = dict(os.environ, CUDALINT_CACHE_DIR=str(cache_dir))
    p = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                       env=env, timeout=300)
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_an_empty_file_loads_no_analysis(tmp_path):
    empty = tmp_path / "empty.cu"
    empty.write_text("\n")
    out = _run(["check", str(empty), "--no-cache"], tmp_path / "cache")
    assert out["code"] == 0 and out["heavy"] == []
    # the command line's objects are frozen at the end: no last collection walks them at exit
    assert out["frozen"] > 10_000


def test_a_result_cache_hit_loads_no_analysis(tmp_path):
    cache = tmp_path / "cache"
    first = _run(["check", str(FIXTURE)], cache)
    assert first["code"] == 1  # the cold run did analyse: matmul.cu has findings
    second = _run(["check", str(FIXTURE)], cache)
    assert second["code"] == first["code"] and second["heavy"] == []


def test_a_one_file_run_loads_the_analyses_in_its_child_while_the_file_parses(tmp_path):
    # A forked child imports the analyses while another parses and lowers the file
    # (isolation.isolated); the parent, which only waits for the result, never loads them.
    out = _run(["check", str(FIXTURE), "--no-cache"], tmp_path / "cache")
    assert out["code"] == 1 and out["heavy"] == []
    env = dict(os.environ, CUDALINT_CACHE_DIR=str(tmp_path / "cache"), CUDALINT_NO_FORK="1")
    p = subprocess.run([sys.executable, "-c", PROBE, "check", str(FIXTURE), "--no-cache"],
                       capture_output=True, text=True, env=env, timeout=300)
    alone = json.loads(p.stdout.strip().splitlines()[-1])
    assert alone["code"] == 1 and "sympy" in alone["heavy"]  # without the fork: in this process


@pytest.mark.skipif(not os.path.isdir("/proc/self/task") or (os.cpu_count() or 1) < 2,
                    reason="counts threads in /proc, needs two cores")
def test_loading_the_analyses_starts_no_blas_threads():
    # numpy's OpenBLAS starts a spinning thread per core at import unless told otherwise
    # (engine.load_analyses); the analyses do no linear algebra. Importing the package as a
    # library leaves the user's setting alone.
    probe = ("import os; import cudalint.analyzer; from cudalint.engine import load_analyses; "
             "assert 'OPENBLAS_NUM_THREADS' not in os.environ; assert load_analyses() is None; "
             "print(len(os.listdir('/proc/self/task')))")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert int(p.stdout.split()[-1]) == 1


def test_starting_a_files_compile_loads_no_analysis(tmp_path):
    # engine.start_ptxas decides whether a selected rule reads registers without the rules
    # (they import the analyses): a pool's parent spawns its workers at once, a --jobs 1 run
    # compiles while it imports (before: 0.4 s of imports first; 2 files took 1.2 s, now 0.9)
    probe = (
        "import sys; from cudalint.engine import Task, start_ptxas; "
        "from cudalint.analyzer.options import AnalysisOptions; from cudalint.rules.options import CheckOptions; "
        "from cudalint.analyzer import ptxas_jobs; "
        f"start_ptxas(Task({str(FIXTURE)!r}, AnalysisOptions(), CheckOptions())); "
        f"start_ptxas(Task({str(FIXTURE)!r}, AnalysisOptions(arch='sm_80'), CheckOptions(select=['CL2']))); "
        "print(len(ptxas_jobs._jobs), [m for m in %r if m in sys.modules]); ptxas_jobs.finish(wait=False)" % (HEAVY,))
    env = dict(os.environ, CUDALINT_CACHE_DIR=str(tmp_path / "cache"))
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split(None, 1) == ["1", "[]\n"]  # one compile started (not the CL2-only one), nothing heavy


def test_the_analysing_process_imports_no_pool_and_no_resource_readers(tmp_path):
    # The analysing process of a one-file check and the parent of a cached run have no use for
    # multiprocessing (engine's pool: +socket, +subprocess) or importlib.resources' readers
    # (+zipfile): 20 to 30 ms of imports. A pool still works (test_engine).
    probe = ("import sys; from cudalint.engine import load_analyses, warm_up_steps; "
             "from cudalint.analyzer.target import load_target; "
             "assert load_analyses() is None; [s() for s in warm_up_steps()]; load_target('sm_80'); "
             "print([m for m in ('multiprocessing', 'importlib.resources', 'zipfile', 'networkx') if m in sys.modules])")
    env = dict(os.environ, CUDALINT_CACHE_DIR=str(tmp_path / "cache"))
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"
