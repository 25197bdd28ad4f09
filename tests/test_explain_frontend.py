"""`explain` parses each file in a forked frontend process (isolation.Frontend) while it loads
the analyses: a libclang crash or hang there is that file's error (exit 2), never a traceback or
the end of the run, and the other files are still explained."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from launcher_probe import run_launcher

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "fixtures" / "examples" / "matmul.cu"

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork")

SETUP = """
import cudalint.analyzer.lowering as lowering
real = lowering.lower_file
taken = REPORT["lowered_here"] = []
def lower_file(path, source, opts):
    if os.getpid() != parent and path.endswith("crash.cu"):
        crash_here()
    if os.getpid() != parent and path.endswith("hang.cu"):
        time.sleep(600)
    if os.getpid() == parent:
        taken.append(os.path.basename(path))  # lowered here: the frontend process gave nothing
    return real(path, source, opts)
lowering.lower_file = lower_file
"""


def _run(args, tmp_path):
    return run_launcher(SETUP, args, tmp_path)


def test_explain_takes_the_ir_from_its_frontend_process(tmp_path):
    out, text, err = _run(["explain", str(FIXTURE), "--output-format", "json"], tmp_path)
    assert out["code"] == 0 and out["lowered_here"] == [] and not out["children_left"], err
    kernels = [k["name"] for f in json.loads(text)["files"] for k in f["kernels"]]
    assert kernels == ["matmul_naive", "matmul_tiled"]


def test_a_crash_or_a_hang_while_parsing_is_that_files_error(tmp_path):
    crash, hang = tmp_path / "crash.cu", tmp_path / "hang.cu"
    for f in (crash, hang):
        f.write_text("__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }\n")
    cfg = tmp_path / "cudalint.toml"
    cfg.write_text("time-limit = 2\n")
    # Without ptxas: a cold compile of matmul.cu in its frontend process (this test's cache is
    # new) competes with its parse, which then overran the 2 s on a loaded machine as soon as
    # the analyses loaded faster than that (the limit counts from the fork, not from the read).
    out, text, err = run_launcher(SETUP, ["explain", str(crash), str(hang), str(FIXTURE), "--config", str(cfg)],
                                  tmp_path, CUDALINT_NO_PTXAS="1")
    assert out["code"] == 2 and not out["children_left"], err
    assert "Traceback" not in text + err
    assert "crashed (signal SIGSEGV) while parsing this file" in text + err
    assert "per-file time limit of 2 s" in text + err
    assert "kernel matmul_tiled" in text  # the other file is still explained


def test_more_files_than_frontends_are_parsed_here(tmp_path):
    # every frontend process parses at once: a run of more files than MAX_FRONTENDS parses
    # in-process, as before, instead of forking one per file
    from cudalint.isolation import MAX_FRONTENDS

    files = []
    for i in range(MAX_FRONTENDS + 1):
        f = tmp_path / f"k{i}.cu"
        f.write_text(f"__global__ void k{i}(float* a) {{ a[threadIdx.x] = 1.0f; }}\n")
        files.append(str(f))
    out, text, err = _run(["explain", *files], tmp_path)
    assert out["code"] == 0 and sorted(out["lowered_here"]) == sorted(os.path.basename(f) for f in files), err
    few, _, _ = _run(["explain", *files[:MAX_FRONTENDS]], tmp_path)
    assert few["code"] == 0 and few["lowered_here"] == []
