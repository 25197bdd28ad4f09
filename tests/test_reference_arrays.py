"""Arrays handed by reference to device helpers (``fill(T (&R)[M][N])``): where they live and
what the per-thread simulation sees (LeetCUDA's flash-attn fill_2D_regs on register tiles)."""
from __future__ import annotations

import textwrap
from pathlib import Path

from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file
from cudalint.rules.options import CheckOptions
from cudalint.rules.runner import check_file

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "barriers" / "reference_array_helper.cu"

HELPER = """
    template <typename T, int M, int N>
    __device__ inline void fill(T (&R)[M][N], T val, int s)
    {
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j)
                R[%s][j] = val;
    }

    __global__ void k(float* out, int w)
    {
        float acc[4][2];
        fill<float, 4, 2>(acc, 0.0f, w);
        out[threadIdx.x] = acc[1][1];
    }
"""


def _var(tmp_path: Path, index: str, name: str = "acc"):
    p = tmp_path / "k.cu"
    p.write_text(textwrap.dedent(HELPER % index))
    fa = analyze_file(str(p), AnalysisOptions(use_ptxas=False))  # the rule, not ptxas, decides
    assert fa.error is None, fa.error
    k = next(k for k in fa.kernels if k.function.name == "k")
    return next(v for v in k.variables if v.name == name)


def test_constant_indexed_through_an_inlined_reference_stays_in_registers(tmp_path):
    v = _var(tmp_path, "i")  # i and j are counters of loops of 4 and 2: constants once unrolled
    assert v.memory == "register"


def test_run_time_index_through_the_reference_is_local(tmp_path):
    v = _var(tmp_path, "(i + s) % M")  # s is the kernel argument w: not a constant after unrolling
    assert v.memory == "local"
    assert "used as a pointer" in v.reason


def test_two_helper_calls_on_each_threads_own_arrays_do_not_race():
    # before: the reference was simulated as an array of the helper's own in global memory, and
    # the two calls (-INFINITY, then 0) made every thread's R[0][0] a write-write race (CL606)
    res, _ = check_file(str(FIXTURE), AnalysisOptions(use_ptxas=False), CheckOptions())
    assert res.error is None
    assert [d.code for d in res.diagnostics] == []
