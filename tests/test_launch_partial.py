"""A launch whose block is known in some components only (llm.c matmul_backward_bias8:
``dim3 block_dim = {4, 8, (unsigned)block_size/32}`` with block_size a run-time value; ``dim3
block(16, n)``): the known components are used, the unknown ones get the rest of the stated
default of 256 threads, and the messages say which component was assumed and to what.

Hand-worked values (block 4x8x8: a warp is threadIdx.x 0..3 x threadIdx.y 0..7 at one
threadIdx.z, lane = x + 4y):

- ``s[threadIdx.x][threadIdx.y]`` with ``float s[4][8]``: word 8x + y, 32 different words
  0..31 in the 32 banks: 1 wavefront. Seen through the old 256x1x1 default (y = 0, x = lane)
  it was word 8x: banks 0, 8, 16, 24, 8 lanes each: 8 wavefronts (a wrong CL301).
- ``out[threadIdx.x * 32 + threadIdx.y]`` (float): for each x, y = 0..7 are 8 contiguous floats
  (32 bytes, one sector); 4 values of x: 4 sectors for 128 requested bytes, 100%. Through
  256x1x1 it was a stride of 32 floats: 32 sectors, 12.5% (a wrong CL201).
"""
from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from cudalint.cli import app

SRC = """\
__global__ void k(float* out)
{
    __shared__ float s[4][8];
    s[threadIdx.x][threadIdx.y] = out[threadIdx.x * 32 + threadIdx.y];
    __syncthreads();
    out[threadIdx.x * 32 + threadIdx.y] = s[threadIdx.x][threadIdx.y] + threadIdx.z;
}

void run(float* out, int block_size)
{
    dim3 block_dim = {4, 8, (unsigned)block_size / 32};
    k<<<1, block_dim>>>(out);
}
"""


def _run(*args: str) -> str:
    r = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return r.output


def _explain(path: Path) -> dict:
    out = _run("explain", str(path), "--output-format", "json")
    ks = [k for f in json.loads(out)["files"] for k in f["kernels"]]
    assert len(ks) == 1
    return ks[0]


def test_known_components_are_kept(tmp_path):
    f = tmp_path / "k.cu"
    f.write_text(SRC)
    k = _explain(f)
    assert k["launch"]["block"] == [4, 8, 8]
    assert k["occupancy"]["threads_per_block"] == 256
    text = " ".join(k["launch"]["assumptions"] + k["occupancy"]["assumptions"])
    assert "blockDim.x = 4, blockDim.y = 8" in text
    assert "assumed blockDim.z = 8" in text
    assert "1-D" not in text
    shared = [a for a in k["accesses"] if a["space"] == "shared"]
    assert shared and all(a["wavefronts_per_request"] == 1 for a in shared)
    glob = [a for a in k["accesses"] if a["space"] == "global"]
    assert len(glob) == 2
    assert all(a["sectors_per_request"] == 4 and a["efficiency"] == 1 for a in glob)
    assert all(any("assumed blockDim.z = 8" in s for s in a["assumptions"]) for a in glob)


def test_no_wrong_conflict_or_coalescing_finding(tmp_path):
    f = tmp_path / "k.cu"
    f.write_text(SRC)
    out = _run("check", str(f), "--select", "CL2,CL3", "--exit-zero")
    assert "CL301" not in out and "CL201" not in out, out


def test_unknown_second_component(tmp_path):
    """``dim3 block(16, n)``: x = 16 known, y the rest of 256 (16), z = 1 (dim3's default)."""
    f = tmp_path / "k.cu"
    f.write_text("__global__ void k(float* a) { a[threadIdx.y * 16 + threadIdx.x] = 1.0f; }\n"
                 "void run(float* a, int n) { dim3 block(16, n); k<<<1, block>>>(a); }\n")
    k = _explain(f)
    assert k["launch"]["block"] == [16, 16, 1]
    text = " ".join(k["launch"]["assumptions"])
    assert "blockDim.x = 16, blockDim.z = 1" in text and "assumed blockDim.y = 16" in text


def test_one_d_unknown_stays_the_default(tmp_path):
    """``dim3 block(n, 1, 1)`` tells no more than the stated 1-D default: 256x1x1 as before."""
    f = tmp_path / "k.cu"
    f.write_text("__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }\n"
                 "void run(float* a, int n) { dim3 block(n, 1, 1); k<<<1, block>>>(a); }\n")
    k = _explain(f)
    assert k["launch"]["block"] == [256, 1, 1]
    assert any("the block size of the launch at line 2 is not known" in a
               for a in k["occupancy"]["assumptions"])
