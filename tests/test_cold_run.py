"""The one-file cold run (issue 13): work a run skips must change no answer."""
from __future__ import annotations

import textwrap

import pytest

from cudalint.analyzer import simt, uniformity
from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file
from cudalint.analyzer.uniformity import has_if, warp_divergence

NO_IF = """
__device__ float mad(float a, float b, float c) { return a * b + c; }
__global__ void k(const float* a, float* b, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = a[blockIdx.x * 64 + t];
    __syncthreads();
    float v = 0.0f;
    for (int j = 0; j < 64; ++j)
        v = mad(s[j], s[(t + j) % 64], v);
    b[blockIdx.x * 64 + t] = v;
}
int main() { float *a, *b; k<<<8, 64>>>(a, b, 512); return 0; }
"""

IF_IN_CALLEE = """
__device__ float pick(float a, int t) { if (t % 2 == 0) return a; return -a; }
__global__ void k(const float* a, float* b)
{
    int t = threadIdx.x;
    b[t] = pick(a[t], t);
}
int main() { float *a, *b; k<<<2, 64>>>(a, b); return 0; }
"""


def _kernel(tmp_path, src):
    p = tmp_path / "k.cu"
    p.write_text(textwrap.dedent(src))
    fa = analyze_file(str(p), AnalysisOptions(facts=frozenset()))
    assert fa.error is None, fa.error
    return fa.tu.kernels[0], fa


def test_a_kernel_without_if_is_not_simulated_for_divergence(tmp_path, monkeypatch):
    k, _ = _kernel(tmp_path, NO_IF)
    assert not has_if(k)
    # what the run measures on such a kernel: nothing (the interpreter records only `if`s)
    sim, whole = simt.branch_divergence(k, (64, 1, 1), (8, 1, 1), {})
    assert sim.steps > 0 and sim.branches == {} and whole and sim.complete

    def boom(*a, **kw):
        raise AssertionError("simulated a kernel that has no if")

    monkeypatch.setattr(uniformity, "branch_divergence", boom)
    d = warp_divergence(k, (64, 1, 1), (8, 1, 1), {})
    assert d == uniformity.DivergenceFacts(branches={}, complete=sim.complete, whole_grid=whole,
                                           blocks=len(sim.ts.blocks))
    assert d.blocks == 8


def test_an_if_in_a_called_device_function_is_still_measured(tmp_path, monkeypatch):
    k, _ = _kernel(tmp_path, IF_IN_CALLEE)
    assert has_if(k)
    runs = []
    real = simt.branch_divergence

    def spy(*a, **kw):
        runs.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(uniformity, "branch_divergence", spy)
    d = warp_divergence(k, (64, 1, 1), (2, 1, 1), {})
    assert runs == [1]
    (ws,) = d.branches.values()
    # t % 2 == 0 splits every warp of both blocks, even and odd lanes interleaved
    assert (ws.warps_executing, ws.warps_divergent) == (4, 4) and ws.interleaved
