"""Host-side CUDA runtime use: CL701-CL704 (rules/host_api.py)."""
from __future__ import annotations

import textwrap

import pytest

from cudalint.analyzer.pipeline import AnalysisOptions
from cudalint.rules.runner import CheckOptions, check_file


def check(tmp_path, src: str, select=("CL7",), arch="sm_90"):
    p = tmp_path / "h.cu"
    p.write_text(textwrap.dedent(src).lstrip("\n"))
    res, fa = check_file(str(p), AnalysisOptions(arch=arch), CheckOptions(select=list(select)))
    assert res.error is None, res.error
    return res.diagnostics


def by_code(diags, code):
    return [d for d in diags if d.code == code]


def test_ignored_results_and_their_accepted_forms(tmp_path):
    diags = check(tmp_path, """
    #include <cuda_runtime.h>
    #define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) return 1; } while (0)
    int gpuAssert(cudaError_t e) { return e != cudaSuccess; }
    int main()
    {
        float *a, *b;
        cudaMalloc(&a, 64);
        CHECK(cudaMalloc(&b, 64));
        if (gpuAssert(cudaMemset(a, 0, 64))) return 1;
        cudaError_t kept = cudaMemset(b, 0, 64);
        if (kept != cudaSuccess) return 1;
        cudaError_t lost = cudaDeviceSynchronize();
        (void)cudaFree(a);
        cudaGetLastError();
        cudaFree(b);
        return 0;
    }
    """)
    d = by_code(diags, "CL701")
    assert [(x.location.line, x.location.column) for x in d] == [(7, 5), (12, 24), (15, 5)]
    assert "`cudaMalloc()` is ignored" in d[0].message
    assert "stored in `lost` but never checked" in d[1].message
    # the diagnostic spans the callee's name
    assert (d[2].end_location.line, d[2].end_location.column) == (15, 5 + len("cudaFree"))
    assert d[0].severity == "warning"


LAUNCHES = """
#include <cuda_runtime.h>
#include <cstdio>
__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }
void checkLast(const char* where)
{
    cudaError_t e = cudaPeekAtLastError();
    if (e != cudaSuccess) printf("%s: %s\\n", where, cudaGetErrorString(e));
}
void launch_only(float* x) { k<<<1, 32>>>(x); }
void launch_unchecked_caller(float* x) { k<<<1, 32>>>(x); }
int main()
{
    float* x = 0;
    k<<<1, 32>>>(x);
    checkLast("first");
    launch_only(x);
    if (cudaGetLastError() != cudaSuccess) return 1;
    k<<<1, 32>>>(x);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    k<<<1, 32>>>(x);
    if (x) {
        if (cudaGetLastError() != cudaSuccess) return 1;
    }
    launch_unchecked_caller(x);
    cudaMemcpy(x, x, 4, cudaMemcpyDeviceToDevice);
    return 0;
}
"""


def test_unchecked_launches(tmp_path):
    diags = check(tmp_path, LAUNCHES, select=("CL702",))
    lines = sorted(d.location.line for d in diags)
    # 10: its only caller (line 24) reaches the return unchecked; 18: checking the sync's result
    # is not a launch check, and the launch error (still pending after the sync) is read on one
    # side of `if (x)` only; 20: only one side of `if (x)` checks.
    assert lines == [10, 18, 20]
    msgs = {d.location.line: d.message for d in diags}
    assert "before the return at line 26" in msgs[18]
    assert "before the end of `launch_unchecked_caller`" in msgs[10]
    assert msgs[20].startswith("launch of `k` is not followed by cudaGetLastError()")
    rel = {d.location.line: d.related for d in diags}
    assert rel[18][0].location.line == 26 and rel[18][0].message == "reached unchecked here"
    assert rel[10] == ()


def test_ignored_get_last_error_is_not_a_check(tmp_path):
    diags = check(tmp_path, """
    __global__ void k() {}
    int main()
    {
        k<<<1, 1>>>();
        cudaGetLastError();
        return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
    }
    """, select=("CL702",))
    assert [d.location.line for d in diags] == [4]


def test_macro_with_comma_expression_check(tmp_path):
    diags = check(tmp_path, """
    #include <cstdio>
    __global__ void k() {}
    #define LAUNCH_CHECK() do { cudaError_t e = cudaGetLastError(); if (e) printf("%d", (int)e); } while (0)
    int main()
    {
        k<<<1, 1>>>();
        LAUNCH_CHECK();
        for (int i = 0; i < 3; ++i) {
            k<<<1, 1>>>();
        }
        getLastCudaError_unavailable:
        return 0;
    }
    """, select=("CL702",))
    assert [d.location.line for d in diags] == [9]


def test_last_error_check_after_the_call_counts(tmp_path):
    diags = check(tmp_path, """
    #include <cstdio>
    #define cudaCheckError() { cudaError_t e = cudaGetLastError(); if (e != cudaSuccess) printf("%d", (int)e); }
    int main(int argc, char** argv)
    {
        float* a;
        cudaSetDevice(0);
        cudaMalloc(&a, 64);
        cudaCheckError();
        cudaMemset(a, 0, 64);
        if (argc > 1) {
            cudaCheckError();
        }
        cudaFree(a);
        cudaGetLastError();
        cudaCheckError();
        return 0;
    }
    """, select=("CL701",))
    # 6/7: checked by the macro on line 8; 9: only one path checks; 13: the error is
    # discarded by the bare cudaGetLastError() before the check
    assert [d.location.line for d in diags] == [9, 13]


def test_deprecated_calls_and_fixes(tmp_path):
    diags = check(tmp_path, """
    #include <cuda_runtime.h>
    int main()
    {
        if (cudaThreadSynchronize() != cudaSuccess) return 1;
        cudaArray_t arr = 0;
        float h[4];
        if (cudaMemcpyToArray(arr, 0, 0, h, sizeof h, cudaMemcpyHostToDevice)) return 1;
        return cudaThreadExit();
    }
    """, select=("CL703",))
    assert [d.location.line for d in diags] == [4, 7, 8]
    sync, arr, exit_ = diags
    assert sync.fix is not None
    (e,) = sync.fix.edits
    assert e.text == "cudaDeviceSynchronize"
    assert (e.start.line, e.start.column, e.end.column) == (4, 9, 9 + len("cudaThreadSynchronize"))
    assert arr.fix is None and "cudaMemcpy2DToArray" in arr.message and "different parameters" in arr.message
    assert exit_.fix.edits[0].text == "cudaDeviceReset"
    assert sync.to_json()["fix"]["edits"][0]["content"] == "cudaDeviceSynchronize"


def test_launch_limits(tmp_path):
    src = """
    __global__ void k(float* x) { x[0] = 0.0f; }
    __global__ void __launch_bounds__(64) lb(float* x) { x[0] = 0.0f; }
    __global__ void dyn(float* x) { extern __shared__ float b[]; b[threadIdx.x] = x[0]; }
    int main()
    {
        float* x = 0;
        k<<<1, dim3(2, 2, 65)>>>(x);
        k<<<dim3(1, 1, 70000), 32>>>(x);
        k<<<dim3(1u << 31, 1, 1), 32>>>(x);
        lb<<<1, 128>>>(x);
        lb<<<1, 64>>>(x);
        dyn<<<1, 32, 50 * 1024>>>(x);
        dyn<<<1, 32, 48 * 1024>>>(x);
        return 0;
    }
    """
    diags = check(tmp_path, src, select=("CL704",))
    msgs = {d.location.line: d.message for d in diags}
    assert sorted(msgs) == [7, 8, 9, 10, 12]
    assert "block dimension z = 65 exceeds 64" in msgs[7]
    assert "grid dimension z = 70000 exceeds 65535" in msgs[8]
    assert "grid dimension x = 2147483648 exceeds 2147483647" in msgs[9]
    assert "__launch_bounds__(64)" in msgs[10]
    assert "51200 bytes of dynamic shared memory exceed the default 49152" in msgs[12]
    assert all(d.severity == "error" for d in diags)
    # with the opt-in attribute set for `dyn`, 50 KB is fine
    src2 = src.replace("        dyn<<<1, 32, 50 * 1024>>>(x);",
                       "        cudaFuncSetAttribute(dyn, cudaFuncAttributeMaxDynamicSharedMemorySize, 50 * 1024);\n"
                       "        dyn<<<1, 32, 50 * 1024>>>(x);")
    diags2 = check(tmp_path, src2, select=("CL704",))
    assert not any("dynamic shared memory" in d.message for d in diags2)
    # sm_1x: 512 threads per block, 65535 blocks in x, no z grid
    diags3 = check(tmp_path, src, select=("CL704",), arch="sm_13")
    assert any("grid dimension x = 2147483648 exceeds 65535" in d.message for d in diags3)


def test_launches_of_one_macro_expansion_are_one_finding(tmp_path):
    """LeetCUDA's TORCH_BINDING_ELEM_ADD writes three launches of one kernel (three branches on
    the tensor's shape) in each expansion: all three sit at the expansion's place, and CL702
    said the same thing three times there (419 of 660 CL702 on LeetCUDA were such copies)."""
    diags = check(tmp_path, """
    __global__ void k(float *a) { a[threadIdx.x] = 0.0f; }
    #define BIND(name) void name(float *a, int n) { \\
        if (n > 4) { k<<<1, 32>>>(a); } else if (n > 2) { k<<<2, 32>>>(a); } else { k<<<4, 32>>>(a); } }
    BIND(run)
    void plain(float *a) { k<<<1, 32>>>(a); }
    """, select=("CL702",))
    got = [(d.location.line, d.message.split(" would go unnoticed")[-1]) for d in by_code(diags, "CL702")]
    assert got == [(4, " (3 such launches, written by the macro expanded here)"), (5, "")]


def test_a_launcher_template_instantiated_twice_gives_one_finding(tmp_path):
    """LeetCUDA's flash-attn launchers: `template <int kHeadDim> void launch(...)` instantiated
    for each head dimension; every instantiation's launch and cudaFuncSetAttribute gave the same
    message at the same line (with -I for its utils.h: 297 CL701 and 95 CL401 copies)."""
    diags = check(tmp_path, """
    __global__ void k(float *a) { a[threadIdx.x] = 0.0f; }
    template <int D> void launch(float *a) {
        cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 98304);
        cudaMalloc(&a, 64);
        k<<<1, 32>>>(a);
    }
    void run(float *a, int d) { if (d == 64) launch<64>(a); else launch<128>(a); }
    """)
    # One CL701 per ignored call (they were two each); one CL702 for the launch, that says it
    # stands for both instantiations (the two, differing only in launch<64> / launch<128>, were
    # kept as two before: SHOC S3D's RunTest<float>/<double> doubled 27 warnings that way).
    assert [(d.code, d.location.line) for d in diags] == [("CL701", 3), ("CL701", 4), ("CL702", 5)]
    assert "(2 such launches, one per instantiation of the function)" in diags[2].message


NESTED = """
__global__ void child(int *d, unsigned int n)
{
    if (threadIdx.x < n) d[threadIdx.x] += 1;
}

__global__ void parent(int *d, unsigned int n)
{
    if (threadIdx.x == 0) {
        child<<<1, n>>>(d, n);
        cudaDeviceSynchronize();
    }
    __syncthreads();
}

int main()
{
    int *d = 0;
    parent<<<1, 32>>>(d, 32);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    return cudaGetLastError() != cudaSuccess;
}
"""


def test_device_side_device_synchronize_is_removed(tmp_path):
    """The textbook's nestedReduce: a parent kernel waits for its child grid with
    cudaDeviceSynchronize(). Deprecated in CUDA 11.6 and gone from CUDA 12's dynamic
    parallelism: on sm_90 it does not compile; on sm_80 only with CUDA_FORCE_CDP1_IF_SUPPORTED.
    The host's call (line 20) is the ordinary one: not reported."""
    diags = check(tmp_path, NESTED, select=("CL703",))
    (d,) = by_code(diags, "CL703")
    assert d.location.line == 10 and d.severity == "warning"
    assert "`cudaDeviceSynchronize()` in device code" in d.message
    assert "it does not compile for sm_90" in d.message
    (d80,) = by_code(check(tmp_path, NESTED, select=("CL703",), arch="sm_80"), "CL703")
    assert "for sm_80 CUDA 12 compiles it only with -DCUDA_FORCE_CDP1_IF_SUPPORTED" in d80.message


def test_a_query_on_its_own_line_is_not_an_ignored_error(tmp_path):
    # The book "CUDA 编程" times kernels with `cudaEventRecord(start); cudaEventQuery(start);`,
    # the query unchecked on purpose: it returns cudaErrorNotReady while the event is pending,
    # which a CHECK macro would take for a failure. CL701 reported it (11 times in the book);
    # a query's result stored and never read, and other calls, still are.
    diags = check(tmp_path, """
    #include <cuda_runtime.h>
    #define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) return 1; } while (0)
    int main()
    {
        cudaEvent_t start;
        cudaStream_t s;
        CHECK(cudaEventCreate(&start));
        CHECK(cudaStreamCreate(&s));
        CHECK(cudaEventRecord(start));
        cudaEventQuery(start);
        cudaStreamQuery(s);
        cudaError_t lost = cudaEventQuery(start);
        cudaEventDestroy(start);
        return 0;
    }
    """)
    d = by_code(diags, "CL701")
    assert [(x.location.line, x.location.column) for x in d] == [(12, 24), (13, 5)], d
    assert "`cudaEventQuery()` is stored in `lost`" in d[0].message
    assert "`cudaEventDestroy()` is ignored" in d[1].message


def test_one_unchecked_launch_in_a_host_template_is_one_finding(tmp_path):
    # SHOC S3D's RunTest<real> (float and double) launches 27 kernels unchecked: 54 identical
    # warnings, two at each launch, before; one each now, saying it stands for both.
    from pathlib import Path
    src = (Path(__file__).resolve().parent.parent / "fixtures" / "host" / "launch_in_template.cu").read_text()
    diags = [d for d in check(tmp_path, src) if d.code == "CL702"]
    assert [d.location.line for d in diags] == [10]
    assert "(2 such launches, one per instantiation of the function)" in diags[0].message
