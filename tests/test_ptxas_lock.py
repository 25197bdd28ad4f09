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
