"""The analysing process a one-file check starts before reading its command line (preload.py):
used for the one file, stopped when the run does not need it, never left behind, and a crash
in it is still the file's CL000."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from cudalint.preload import one_file_check
from launcher_probe import run_launcher

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "fixtures" / "examples" / "matmul.cu"

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork")


def test_which_arguments_start_it(tmp_path):
    a, b = tmp_path / "a.cu", tmp_path / "b.cuh"
    a.write_text("\n")
    b.write_text("\n")
    (tmp_path / "dir").mkdir()
    f = str(a)
    assert one_file_check(["check", f]) and one_file_check([f]) and one_file_check([f, "--no-cache"])
    assert one_file_check(["check", "--select", "CL2", f, "--output-format", "json"])
    assert not one_file_check(["check", f, str(b)])  # two files: the pool or the in-process loop
    assert not one_file_check(["check", str(tmp_path / "dir")])  # a directory: how many inside?
    assert one_file_check(["check", f, "-I", str(tmp_path / "dir")])  # an option's value
    assert not one_file_check(["check", str(tmp_path / "missing.cu")])
    assert not one_file_check(["explain", f]) and not one_file_check(["check", f, "--help"])
    assert not one_file_check([]) and not one_file_check(["--version"])


SETUP = """
import cudalint.preload as preload
took = REPORT["took"] = []
real_take = preload.take
def take():
    a = real_take()
    took.append(a is not None)
    return a
preload.take = take
if os.environ.get("PROBE_CRASH"):
    import cudalint.engine as engine
    engine.run_task = lambda task: crash_here()
REPORT["sympy_here"] = lambda: "sympy" in sys.modules
"""


def _run(args, tmp_path, **env) -> tuple[dict, str]:
    out, report, _ = run_launcher(SETUP, args, tmp_path, **env)
    return out, report


def test_a_one_file_check_is_analysed_by_the_process_started_first(tmp_path):
    out, report = _run(["check", str(FIXTURE), "--no-cache"], tmp_path)
    assert out["took"] == [True] and out["code"] == 1
    assert not out["children_left"] and not out["sympy_here"]  # analysed elsewhere, all reaped
    alone, same = _run(["check", str(FIXTURE), "--no-cache"], tmp_path, CUDALINT_NO_FORK="1")
    assert alone["took"] == [] and alone["sympy_here"]  # no fork: analysed in the process itself
    assert report == same and "matmul_tiled" in report


def test_a_run_that_does_not_need_it_stops_it(tmp_path):
    cached, _ = _run(["check", str(FIXTURE)], tmp_path)
    assert cached["took"] == [True]
    again, _ = _run(["check", str(FIXTURE)], tmp_path)  # from the result cache
    assert again["took"] == [] and again["code"] == 1 and not again["children_left"]


def test_a_crash_in_it_is_the_files_cl000(tmp_path):
    out, report = _run(["check", str(FIXTURE), "--no-cache"], tmp_path, PROBE_CRASH="1")
    assert out["took"] == [True] and out["code"] == 2 and not out["children_left"]
    assert "CL000" in report and "crashed (signal SIGSEGV)" in report


def test_the_analysing_process_loads_what_the_first_analysis_needs_while_the_ir_is_not_there():
    # isolation._read_all takes the idle steps one by one only while nothing can be read yet
    from cudalint.isolation import _read_all

    r, w = os.pipe()
    taken = []

    def first():
        taken.append(1)
        os.write(w, b"IR")  # the frontend process answers during the first step
        os.close(w)

    assert _read_all(r, idle=[first, lambda: taken.append(2)]) == b"IR"
    assert taken == [1]  # the second step is dropped: the IR came
    r, w = os.pipe()
    os.write(w, b"IR")
    os.close(w)
    assert _read_all(r, idle=[lambda: taken.append(3)]) == b"IR" and taken == [1]  # there already


def test_after_the_warm_up_the_first_analysis_imports_nothing(tmp_path):
    # engine.WARM_UP_MODULES is what a first analysis imports whatever the file: after the
    # steps, analysing matmul.cu (in this process, its IR lowered beforehand) loads no module
    import subprocess
    import sys

    probe = f"""
import pickle, sys
from cudalint.engine import Task, load_analyses, run_task, warm_up_steps
from cudalint.analyzer import lowering
from cudalint.analyzer.options import AnalysisOptions
from cudalint.rules.options import CheckOptions
assert load_analyses() is None
path = {str(FIXTURE)!r}
low = lowering.lower_file(path, lowering.read_source(path)[0], AnalysisOptions())
lowering.expect(path, AnalysisOptions(), lambda: low)
before = set(sys.modules)
for step in warm_up_steps():
    step()
warmed = set(sys.modules) - before
res = run_task(Task(path, AnalysisOptions(), CheckOptions())).result
print(sorted(set(sys.modules) - before - warmed), "sympy.tensor.tensor" in warmed, len(res.diagnostics) > 0)
"""
    # (without ptxas: what a compile imports depends on the toolkit installed)
    env = dict(os.environ, CUDALINT_CACHE_DIR=str(tmp_path / "cache"), CUDALINT_NO_PTXAS="1")
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["[]", "True", "True"]
