"""`cudalint explain` reproduces the occupancy NVIDIA's tools measured on an H200.

Each ground-truth kernel (../shared/groundtruth/kernels/*.cu, include dir = that folder) is
explained with ptxas register counts; its occupancy, blocks per SM, limiters, registers, static
shared memory and local memory must equal what Nsight Compute and ptxas reported
(measured-h200.json). The kernels launch through the harness' GT_LAUNCH macro (inside a lambda),
which the launch resolution does not follow, so the test passes the measured block and dynamic
shared memory on the command line, as a user would.

Skipped when the ground-truth folder is absent (a user's clone) or nvcc is not installed. The
estimate-only counterpart (no nvcc needed) is in test_resources.py.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cudalint.analyzer.registers import find_nvcc
from cudalint.cli import app

GT_DIR = Path(__file__).resolve().parents[2] / "shared" / "groundtruth"
GT_JSON = GT_DIR / "measured-h200.json"
KERNELS = GT_DIR / "kernels"

needs_gt = pytest.mark.skipif(not GT_JSON.is_file(), reason="../shared/groundtruth not present")
needs_nvcc = pytest.mark.skipif(find_nvcc() is None or bool(os.environ.get("CUDALINT_NO_PTXAS")),
                                 reason="nvcc not found (or CUDALINT_NO_PTXAS set): no ptxas register counts")


def _gt():
    if not GT_JSON.is_file():
        return []
    return sorted(json.loads(GT_JSON.read_text())["kernels"].items())


def explain(path: Path, *args: str) -> dict:
    r = CliRunner().invoke(app, ["explain", str(path), "--output-format", "json", "-I", str(KERNELS), *args],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def _kernel(doc: dict, name: str) -> dict:
    ks = [k for f in doc["files"] for k in f["kernels"] if k["name"] == name]
    assert len(ks) == 1, [k["name"] for f in doc["files"] for k in f["kernels"]]
    return ks[0]


@needs_gt
@needs_nvcc
@pytest.mark.parametrize("name,entry", _gt(), ids=[n for n, _ in _gt()])
def test_explain_reproduces_measured_occupancy(name, entry):
    block = ",".join(map(str, entry["block"]))
    doc = explain(GT_DIR / entry["file"], "--arch", "sm_90", "--block", block,
                  "--dynamic-smem", str(entry["dyn_smem"]))
    k = _kernel(doc, name)
    assert k["launch"]["block"] == entry["block"] and k["launch"]["source"] == "command-line"
    res, occ = k["resources"], k["occupancy"]
    # resources: exactly what ptxas printed for the measured build
    assert res["registers_source"] == "ptxas"
    assert res["registers"] == entry["ptxas_registers"]
    assert res["static_smem_bytes"] == entry["static_smem_bytes"]
    assert res["local_bytes"] == entry["stack_frame_bytes"] + entry["spill_bytes"]
    assert res["spill_bytes"] == entry["spill_bytes"]
    # occupancy: what Nsight Compute measured
    assert occ["occupancy"] * 100 == pytest.approx(entry["theoretical_occupancy_pct"], abs=1e-9)
    assert occ["active_blocks_per_sm"] == entry["blocks_per_sm"]
    measured = {{"shared_mem": "shared_memory"}.get(x, x) for x in entry["occupancy_limiters"]}
    assert set(occ["limiters"]) == measured
    assert occ["registers_per_thread"] == entry["ptxas_registers"]
    assert occ["threads_per_block"] == entry["block"][0] * entry["block"][1] * entry["block"][2]


@needs_gt
@needs_nvcc
def test_named_cases_text_and_json():
    """The two occupancy kernels the issue names: 62.5 % at 40 KB of shared memory, 25 % at 127
    registers; the text form says the same and names the change that reaches the next step."""
    doc = explain(KERNELS / "occ_smem_40k.cu", "--block", "256")
    occ = _kernel(doc, "occ_smem_40k")["occupancy"]
    assert (occ["occupancy_pct"], occ["active_blocks_per_sm"], occ["limiters"]) == (62.5, 5, ["shared_memory"])
    assert occ["smem_per_block"] == 40960 and occ["block_limits"]["shared_memory"] == 5
    assert any("of shared memory per block fits 1 more block" in s for s in occ["next_steps"])

    doc = explain(KERNELS / "occ_regs_heavy.cu", "--block", "256")
    k = _kernel(doc, "occ_regs_heavy")
    occ = k["occupancy"]
    assert (occ["occupancy_pct"], occ["active_blocks_per_sm"], occ["limiters"]) == (25.0, 2, ["registers"])
    assert occ["registers_per_thread"] == 127 and k["resources"]["registers_source"] == "ptxas"
    # 96 registers -> 3072 per warp -> 5 warps per sub-partition = 20 warps = 2 blocks still;
    # 80 registers -> 2560 per warp -> 6 warps per sub-partition = 24 warps = 3 blocks
    assert occ["next_steps"][0].startswith("≤ 80 registers per thread (`__launch_bounds__` or `-maxrregcount`) "
                                           "fits 1 more block")

    r = CliRunner().invoke(app, ["explain", str(KERNELS / "occ_regs_heavy.cu"), "-I", str(KERNELS),
                                 "--block", "256"], catch_exceptions=False)
    assert r.exit_code == 0
    assert "127 registers per thread (from ptxas)" in r.output
    assert "occupancy (sm_90): 25.0% - 2 blocks of 256 threads, 16 of 64 warps per SM; limited by registers" in r.output


@needs_gt
@needs_nvcc
def test_harness_lambda_launch_is_found():
    """The GT harness launches inside a lambda (`GT_LAUNCH`): that launch site gives the block
    shape, so explain reproduces the measured occupancy without --block."""
    doc = explain(KERNELS / "smem_row_f32.cu")
    k = _kernel(doc, "smem_row_f32")
    assert k["launch"]["source"] == "launch-site"
    assert k["launch"]["block"] == [32, 32, 1]
    assert k["occupancy"]["launch_source"] == "launch-site"
    # measured on the H200 with 32x32 blocks: 2 blocks/SM
    assert k["occupancy"]["active_blocks_per_sm"] == 2


def test_default_block_is_flagged_in_json(tmp_path):
    """No launch anywhere: occupancy is for the stated default and says so."""
    f = tmp_path / "k.cu"
    f.write_text("__global__ void k(float* a) { a[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f; }\n")
    doc = explain(f)
    k = _kernel(doc, "k")
    assert k["launch"]["source"] == "default"
    assert k["occupancy"]["launch_source"] == "default"
    assert any("default block of 256 threads" in a for a in k["occupancy"]["assumptions"])
    assert k["occupancy"]["threads_per_block"] == 256


def test_default_block_says_whether_a_launch_was_found(tmp_path):
    """A launch whose block size is not known (llm.c's `dim3 block_dim = {4, 8, (unsigned)
    block_size/32}` with block_size a runtime value) is not 'no launch configuration found'."""
    f = tmp_path / "k.cu"
    f.write_text("__global__ void k(float* a) { a[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f; }\n"
                 "void run(float* a, int bs) { k<<<4, bs>>>(a); }\n")
    k = _kernel(explain(f), "k")
    assert k["launch"]["source"] == "default"
    text = " ".join(k["occupancy"]["assumptions"] + k["launch"].get("assumptions", []))
    assert "the block size of the launch at line 2 is not known" in text
    assert "no launch configuration found" not in text
