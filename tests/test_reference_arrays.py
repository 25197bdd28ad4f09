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


# One element's address read or written at once as another type (LeetCUDA's HALF2 and
# LDST128BITS macros, and flash-attn's `half *h = reinterpret_cast<half *>(&R_O[0][j][0])`).
# nvcc 13 for sm_90 reports "0 bytes stack frame" for pun_at_once and via_pointer, and 16 bytes
# for pointer_indexed_at_run_time (the array is in local memory there).
PUNS = """
    #include <cuda_fp16.h>
    #define HALF2(value) (reinterpret_cast<half2 *>(&(value))[0])
    #define LDST128BITS(value) (reinterpret_cast<float4 *>(&(value))[0])

    __global__ void pun_at_once(const half *a, half *o) {
      half R[2][8];
    #pragma unroll
      for (int i = 0; i < 2; ++i)
        LDST128BITS(R[i][0]) = reinterpret_cast<const float4 *>(a)[threadIdx.x * 2 + i];
    #pragma unroll
      for (int i = 0; i < 2; ++i)
    #pragma unroll
        for (int j = 0; j < 8; j += 2)
          HALF2(R[i][j]) = __hadd2(HALF2(R[i][j]), HALF2(R[1 - i][j]));
    #pragma unroll
      for (int i = 0; i < 2; ++i)
        reinterpret_cast<float4 *>(o)[threadIdx.x * 2 + i] = LDST128BITS(R[i][0]);
    }

    __global__ void via_pointer(const float *a, float *o) {
      unsigned R[2][4][2];
    #pragma unroll
      for (int i = 0; i < 2; ++i)
    #pragma unroll
        for (int j = 0; j < 4; ++j) { R[i][j][0] = __float_as_uint(a[threadIdx.x + i * 8 + j]); R[i][j][1] = 7u; }
      float acc = 0.f;
    #pragma unroll
      for (int j = 0; j < 4; ++j) {
        half *h = reinterpret_cast<half *>(&(R[1][j][0]));
        float *f = reinterpret_cast<float *>(&(R[0][j][0]));
        acc += __half2float(h[0]) + __half2float(h[3]) + f[1];
        h[1] = __float2half(acc);
      }
      o[threadIdx.x] = acc;
    }

    __global__ void pointer_indexed_at_run_time(const half *a, half *o) {
      half R[8];
      LDST128BITS(R[0]) = reinterpret_cast<const float4 *>(a)[threadIdx.x];
      half *p = &R[2];
      p[threadIdx.x & 3] = a[0];
      reinterpret_cast<float4 *>(o)[threadIdx.x] = LDST128BITS(R[0]);
    }

    __global__ void pointer_handed_on(const float *a, float *o, float **keep) {
      float R[4];
      for (int i = 0; i < 4; ++i) R[i] = a[i];
      float *p = &R[1];
      keep[threadIdx.x] = p;
      o[threadIdx.x] = R[0];
    }
"""


def _memory(tmp_path: Path) -> dict:
    p = tmp_path / "puns.cu"
    p.write_text(textwrap.dedent(PUNS))
    fa = analyze_file(str(p), AnalysisOptions(use_ptxas=False))
    assert fa.error is None, fa.error
    return {k.function.name: next(v for v in k.variables if v.name == "R") for k in fa.kernels}


def test_element_puns_read_at_once_stay_in_registers(tmp_path):
    r = _memory(tmp_path)
    assert r["pun_at_once"].memory == "register"  # was local: "address used as a pointer"
    assert r["via_pointer"].memory == "register"
    assert r["pointer_indexed_at_run_time"].memory == "local"
    assert "used as a pointer" in r["pointer_indexed_at_run_time"].reason
    assert r["pointer_handed_on"].memory == "local"  # the pointer is stored to memory
