"""One compile per device code across processes: a second process asking for the same report
while the first compiles waits on the cache's lock and reads the first one's report (the parent
of a worker pool compiles, the workers read)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NVCC = shutil.which("nvcc")

pytestmark = pytest.mark.skipif(NVCC is None or not hasattr(os, "fork"), reason="needs nvcc and POSIX")


def test_two_processes_compile_once(tmp_path):
    log = tmp_path / "calls.log"
    wrapper = tmp_path / "nvcc"
    # counts the compiles (not the version probes), and is slow enough for both to overlap
    wrapper.write_text(textwrap.dedent(f"""\
        #!/bin/sh
        case "$*" in *-cubin*) echo x >> {log}; sleep 1;; esac
        exec {NVCC} "$@"
        """))
    wrapper.chmod(0o755)
    src = ROOT / "fixtures" / "examples" / "matmul.cu"
    code = ("import sys; from cudalint.analyzer.registers import ptxas_resources; "
            f"r = ptxas_resources({str(src)!r}, 'sm_90'); "
            "print(r.ok, r.cached, sorted(k.plain_name for k in r.kernels.values()))")
    env = dict(os.environ, CUDALINT_CACHE_DIR=str(tmp_path / "cache"), CUDALINT_NVCC=str(wrapper))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=300)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert log.read_text().count("x") == 1  # one nvcc compile for both
    # both got the kernels; exactly one of them read the other's report from the cache
    assert sorted(o.split(" ", 2)[1] for o in outs) == ["False", "True"]
    assert outs[0].split(" ", 2)[2] == outs[1].split(" ", 2)[2]
    assert "matmul" in outs[0].split(" ", 2)[2]


@pytest.mark.parametrize("select,compiles", [([], 1), (["CL2"], 0)])
def test_a_one_file_run_compiles_in_its_frontend_process(tmp_path, monkeypatch, select, compiles):
    # isolation._prefetch_registers: the process that parses the file compiles its report while
    # the other still imports the analyses; that one reads it from ptxas' cache (one compile in
    # all). None when no selected rule reads registers.
    import threading

    from cudalint.analyzer import lowering
    from cudalint.analyzer.options import AnalysisOptions
    from cudalint.engine import Task, check_files
    from cudalint.rules.options import CheckOptions

    if threading.active_count() != 1:
        pytest.skip("another thread runs: the one-file run would not fork")
    log = tmp_path / "calls.log"
    wrapper = tmp_path / "nvcc"
    wrapper.write_text(textwrap.dedent(f"""\
        #!/bin/sh
        case "$*" in *-cubin*) echo "$PPID" >> {log};; esac
        exec {NVCC} "$@"
        """))
    wrapper.chmod(0o755)
    real_take = lowering.take

    def take(path, opts, source):  # in the analysing process
        with open(tmp_path / "analysing.pid", "w") as f:
            f.write(str(os.getpid()))
        return real_take(path, opts, source)

    monkeypatch.setattr(lowering, "take", take)
    from cudalint.analyzer import ptxas_jobs
    monkeypatch.setattr(ptxas_jobs, "_jobs", {})  # reports earlier tests left in memory
    monkeypatch.setenv("CUDALINT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CUDALINT_NVCC", str(wrapper))
    monkeypatch.delenv("CUDALINT_NO_FORK", raising=False)
    src = ROOT / "fixtures" / "examples" / "matmul.cu"
    res = check_files([Task(str(src), AnalysisOptions(), CheckOptions(select=select))], jobs=1)[0]
    assert res.error is None
    pids = log.read_text().split() if log.exists() else []
    assert len(pids) == compiles
    analysing = (tmp_path / "analysing.pid").read_text()
    # compiled by neither the analysing process nor this one (which would mean that the
    # analysis asked for a report it did not find: a second compile)
    assert all(p not in (analysing, str(os.getpid())) for p in pids), (pids, analysing, os.getpid())
