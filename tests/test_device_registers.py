"""Registers from the device code alone: host code nvcc rejects costs nothing, NVRTC gives the
same counts as nvcc, compiles run in the background and only when a selected rule needs them."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from cudalint.analyzer import nvrtc, ptxas_jobs
from cudalint.analyzer import registers as R
from cudalint.analyzer.device_code import device_code
from cudalint.analyzer.registers import ptxas_resources

NVCC = R.find_nvcc()
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not found")
needs_nvrtc = pytest.mark.skipif(nvrtc.find_nvrtc() is None, reason="NVRTC not installed")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDALINT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CUDALINT_PTXAS_BACKEND", raising=False)


# A PolyBench-style file: the kernels compile, the host code does not with CUDA 13
# (cudaThreadSynchronize was removed), and a template kernel is launched from host code.
OLD_HOST = r"""
#include <stdio.h>
#include <stdlib.h>
#define N 1024
#define BS 128
typedef float DATA_TYPE;
struct Pair { float a, b; };
__device__ float twice(float x) { return 2.0f * x; }
__global__ void saxpy(DATA_TYPE *x, DATA_TYPE *y, DATA_TYPE alpha) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) y[i] = alpha * twice(x[i]) + y[i];
}
template <typename T, int B>
__global__ void scale(T *p) { __shared__ T s[B]; s[threadIdx.x] = p[threadIdx.x]; __syncthreads();
                              p[threadIdx.x] = s[B - 1 - threadIdx.x] * (T)3; }
template <typename T> void launch_generic(T *p) { scale<T, 64><<<1, 64>>>(p); }
void host_helper(DATA_TYPE *x) { for (int i = 0; i < N; i++) x[i] = rand(); }
int main() {
    DATA_TYPE *x, *y;
    cudaMalloc(&x, N * sizeof(DATA_TYPE)); cudaMalloc(&y, N * sizeof(DATA_TYPE));
    saxpy<<<N / BS, BS>>>(x, y, 2.0f);
    scale<float, BS><<<1, BS>>>(x);
    const int local_bs = 64;
    scale<float, local_bs><<<1, local_bs>>>(y);
    cudaThreadSynchronize();
    printf("done\n");
    return 0;
}
"""


def test_device_code_keeps_kernels_and_what_they_use_only(tmp_path):
    src = tmp_path / "old.cu"
    src.write_text(OLD_HOST)
    dc = device_code(str(src))
    assert dc.kernels == ["saxpy", "scale"]
    assert "twice" in dc.code and "typedef float DATA_TYPE" in dc.code
    for host in ("int main", "host_helper", "cudaThreadSynchronize", "launch_generic", "struct Pair"):
        assert host not in dc.code, host
    # the launch with macro arguments is requested; the one inside a host template (T unknown) is not
    assert dc.instantiations == ["scale<float, BS>"] and dc.has_templates and dc.uninstantiated == []
    assert dc.system_includes == ["stdio.h", "stdlib.h"]
    assert f'#line 9 "{src}"' in dc.code  # compiler messages point into the user's file


def test_device_code_without_kernels_raises(tmp_path):
    src = tmp_path / "host.cu"
    src.write_text("int main() { return 0; }\n")
    with pytest.raises(ValueError):
        device_code(str(src))


# A header in the style of cuda-samples' helpers: an include guard, an `#ifdef __CUDACC__`
# around the qualifiers of a host function, and float4 operators used without their names.
HELPERS = r"""
#ifndef HELPERS_H
#define HELPERS_H
struct f4 { float x, y, z, w; };
inline __host__ __device__ void operator+=(f4 &a, f4 b) { a.x += b.x; a.y += b.y; }
inline __host__ __device__ f4 operator*(f4 a, float s) { a.x *= s; a.y *= s; return a; }
#ifdef __CUDACC__
__host__ __device__
#endif
inline int unused_host_helper(int a) { return a; }
#endif
"""
USES_HELPERS = r"""
#include "helpers.h"
__global__ void acc(f4 *out, const f4 *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { f4 t = out[i]; t += in[i] * 2.0f; out[i] = t; }
}
"""


def _balanced(code: str) -> bool:
    depth = 0
    for ln in code.splitlines():
        m = re.match(r"\s*#\s*(if|ifdef|ifndef|endif)\b", ln)
        if m:
            depth += -1 if m.group(1) == "endif" else 1
            if depth < 0:
                return False
    return depth == 0


def test_device_code_keeps_conditionals_balanced_and_operators(tmp_path):
    (tmp_path / "helpers.h").write_text(HELPERS)
    f = tmp_path / "k.cu"
    f.write_text(USES_HELPERS)
    dc = device_code(str(f))
    assert _balanced(dc.code)  # the dropped helper's `#endif` is kept
    assert "unused_host_helper" not in dc.code
    assert "operator+=" in dc.code and "operator*" in dc.code  # used as `+=` and `*` only



# interval.cu's shape: a quoted header pulls in a vendored host library (its own copy of boost
# under -I) and then opens its namespace with a using-directive; the kernels use none of it.
VENDORED_LIB = r"""
#ifndef LIB_ROUNDING_H
#define LIB_ROUNDING_H
namespace vlib { namespace numeric {
template <class T> struct rounded { T lo, hi; };
template <class T> rounded<T> widen(rounded<T> r) { r.lo -= 1; r.hi += 1; return r; }
} }
#endif
"""
CPU_SIDE = r"""
#include "vlib/numeric.hpp"
using vlib::numeric::rounded;
using namespace vlib::numeric;
namespace mine { struct gpu_pair { float a, b; }; }
using namespace mine;
inline void cpu_reference(rounded<float> *r) { *r = widen(*r); }
"""
USES_VENDORED = r"""
#include "cpu_side.h"
__global__ void bisect(gpu_pair *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i].a = 0.5f * (p[i].a + p[i].b);
}
int main() { return 0; }
"""


def _vendored(tmp_path):
    (tmp_path / "vlib").mkdir()
    (tmp_path / "vlib" / "numeric.hpp").write_text(VENDORED_LIB)
    (tmp_path / "cpu_side.h").write_text(CPU_SIDE)
    f = tmp_path / "interval_like.cu"
    f.write_text(USES_VENDORED)
    return f


def test_using_directive_for_a_namespace_nothing_kept_is_dropped(tmp_path):
    f = _vendored(tmp_path)
    dc = device_code(str(f), [str(tmp_path)])
    assert "cpu_reference" not in dc.code and "struct rounded" not in dc.code
    assert "using namespace vlib::numeric;" not in dc.code  # names what the device code no longer has
    assert "using namespace mine;" in dc.code  # the kernel's gpu_pair comes from there


@needs_nvcc
def test_a_vendored_host_library_costs_no_extra_compile(tmp_path, monkeypatch):
    f = _vendored(tmp_path)
    runs = []
    real = R._run
    monkeypatch.setattr(R, "_run", lambda cmd, *a, **k: (runs.append(cmd), real(cmd, *a, **k))[1])
    rep = ptxas_resources(str(f), "sm_90", [str(tmp_path)], use_cache=False)
    assert rep.ok and rep.mode == "device code only"
    assert [k.plain_name for k in rep.functions.values()] == ["bisect"]
    assert sum("-cubin" in c and "--dryrun" not in c for c in runs) == 1  # no failed device-only attempt, no whole-file run

@needs_nvcc
def test_device_code_with_helpers_compiles_alone(tmp_path):
    (tmp_path / "helpers.h").write_text(HELPERS)
    f = tmp_path / "k.cu"
    f.write_text(USES_HELPERS + "int main() { return undeclared_host_call(); }\n")  # host code nvcc rejects
    rep = ptxas_resources(str(f), "sm_90", use_cache=False)
    assert rep.ok and rep.mode == "device code only"
    assert [k.plain_name for k in rep.functions.values()] == ["acc"]


def test_template_kernel_only_host_templates_instantiate_is_named(tmp_path):
    src = tmp_path / "t.cu"
    src.write_text("template <typename T> __global__ void k(T *p) { p[0] = 1; }\n"
                   "template <typename T> void run(T *p) { k<T><<<1, 1>>>(p); }\n"
                   "void go(float *p) { run(p); }\n")
    dc = device_code(str(src))
    assert dc.instantiations == [] and dc.uninstantiated == ["k"]


def _direct(code: str, tmp_path: Path, arch: str = "sm_90") -> dict[str, int]:
    """Registers per entry function as `nvcc -Xptxas -v` prints them for ``code``, read with this
    test's own expression."""
    f = tmp_path / "direct.cu"
    f.write_text(code)
    p = subprocess.run([NVCC, "-cubin", f"-arch={arch}", "-Xptxas", "-v", "-o", os.devnull, str(f)],
                       capture_output=True, text=True, check=True)
    out, cur = {}, None
    for line in (p.stdout + p.stderr).splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            cur = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and cur:
            out[cur] = int(m.group(1))
            cur = None
    return out


def _kernels_only(text: str, *sizes: int) -> str:
    """OLD_HOST with its host functions cut out by hand (and the template instantiated)."""
    keep = text.split("template <typename T> void launch_generic")[0]
    return keep + "".join(f"template __global__ void scale<float, {n}>(float *);\n" for n in sizes or (128,))


@needs_nvcc
def test_host_code_nvcc_rejects_costs_no_registers(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDALINT_PTXAS_BACKEND", "nvcc")
    src = tmp_path / "old.cu"
    src.write_text(OLD_HOST)
    assert "cudaThreadSynchronize" in _whole_file_fails(src)  # the premise
    rep = ptxas_resources(src, "sm_90")
    assert rep.ok and rep.mode == "device code only", rep.reason
    want = _direct(_kernels_only(OLD_HOST), tmp_path)
    assert {k: v.registers for k, v in rep.kernels.items()} == want
    assert rep.find("scale").static_smem_bytes == 128 * 4


@needs_nvcc
def test_explain_says_where_the_registers_came_from(tmp_path, monkeypatch):
    from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file

    monkeypatch.setenv("CUDALINT_PTXAS_BACKEND", "nvcc")
    src = tmp_path / "old.cu"
    src.write_text(OLD_HOST)
    fa = analyze_file(str(src), AnalysisOptions())
    res = {k.name: k.resources for k in fa.kernels}
    want = _direct(_kernels_only(OLD_HOST, 128, 64), tmp_path)
    assert res["saxpy"].registers_source == "ptxas" and res["saxpy"].registers == want["_Z5saxpyPfS_f"]
    # scale<float, local_bs> names a host-local constant: found through clang's instantiations
    assert {n for n in res} == {"saxpy", "scale<float, 128>", "scale<float, 64>"}, set(res)
    for n, mangled in (("scale<float, 128>", "_Z5scaleIfLi128EEvPT_"), ("scale<float, 64>", "_Z5scaleIfLi64EEvPT_")):
        assert res[n].registers_source == "ptxas" and res[n].registers == want[mangled], n


@needs_nvcc
def test_whole_file_tried_first_says_why_it_failed(tmp_path, monkeypatch):
    """A template kernel only a host template instantiates sends the whole file to nvcc first;
    when its host code fails, the device code alone still gives the other kernels' counts and
    explain says why the whole file was not used."""
    from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file

    monkeypatch.setenv("CUDALINT_PTXAS_BACKEND", "nvcc")
    src = tmp_path / "mixed.cu"
    src.write_text(OLD_HOST.replace("scale<float, BS><<<1, BS>>>(x);", "launch_generic(x);")
                   .replace("scale<float, local_bs><<<1, local_bs>>>(y);", ""))
    rep = ptxas_resources(src, "sm_90")
    assert rep.ok and rep.mode == "device code only" and "cudaThreadSynchronize" in rep.host_error
    want = _direct(_kernels_only(OLD_HOST), tmp_path)
    assert rep.find("saxpy").registers == want["_Z5saxpyPfS_f"]
    fa = analyze_file(str(src), AnalysisOptions())
    res = {k.name: k.resources for k in fa.kernels}
    assert res["saxpy"].registers_source == "ptxas"
    assert any("device code alone" in n and "cudaThreadSynchronize" in n for n in res["saxpy"].notes)


@needs_nvcc
@needs_nvrtc
def test_nvrtc_and_nvcc_agree(tmp_path, monkeypatch):
    src = tmp_path / "old.cu"
    src.write_text(OLD_HOST)
    other = tmp_path / "k.cu"
    from tests.test_registers import SRC
    other.write_text(SRC)
    for f in (src, other):
        monkeypatch.setenv("CUDALINT_PTXAS_BACKEND", "nvcc")
        a = ptxas_resources(f, "sm_90", use_cache=False)
        monkeypatch.setenv("CUDALINT_PTXAS_BACKEND", "nvrtc")
        b = ptxas_resources(f, "sm_90", use_cache=False)
        assert a.ok and b.ok and b.nvcc_version.startswith("NVRTC")
        ra = {k: (v.registers, v.static_smem_bytes, v.spill_bytes) for k, v in a.kernels.items()}
        rb = {k: (v.registers, v.static_smem_bytes, v.spill_bytes) for k, v in b.kernels.items()}
        assert ra == rb and ra, f.name


@needs_nvrtc
def test_without_nvcc_nvrtc_gives_exact_registers(tmp_path, monkeypatch):
    monkeypatch.setattr(R, "find_nvcc", lambda nvcc=None: None)
    src = tmp_path / "old.cu"
    src.write_text(OLD_HOST)
    rep = ptxas_resources(src, "sm_90")
    assert rep.ok and rep.mode == "device code only" and "NVRTC" in rep.nvcc_version
    # saxpy: 2 pointers + alpha, one guarded FMA; the count is ptxas', the same as nvcc's (above)
    assert rep.find("saxpy").registers >= 8 and rep.find("scale").static_smem_bytes == 512
    if NVCC:
        assert {k: v.registers for k, v in rep.kernels.items()} == _direct(_kernels_only(OLD_HOST), tmp_path)


# --------------------------------------------------------------------------- scheduling
def test_background_job_is_used_once(tmp_path, monkeypatch):
    calls = []

    def fake(path, arch, inc, defs, extra):
        calls.append(path)
        return R.PtxasReport(ok=False, reason="fake", arch=arch)

    monkeypatch.setattr(R, "ptxas_resources", fake)
    monkeypatch.setattr(ptxas_jobs, "_jobs", {})
    src = tmp_path / "a.cu"
    src.write_text("__global__ void k(int *p) { p[0] = 1; }\n")
    from cudalint.analyzer.pipeline import AnalysisOptions
    opts = AnalysisOptions()
    ptxas_jobs.start(str(src), opts)
    ptxas_jobs.start(str(src), opts)
    rep = ptxas_jobs.report(str(src), opts.arch, [], [], opts.std)
    assert rep.reason == "fake" and calls == [str(src.resolve())]
    src.write_text("__global__ void k(int *p) { p[0] = 2; }  \n")  # edited: a new compile
    ptxas_jobs.report(str(src), opts.arch, [], [], opts.std)
    assert len(calls) == 2


@pytest.mark.parametrize("select,compiled", [(["CL2"], False), (["CL6", "CL7"], False), (["CL4"], True),
                                             (["CL101"], True), ([], True)])
def test_ptxas_only_when_a_selected_rule_needs_it(tmp_path, monkeypatch, select, compiled):
    from cudalint.engine import Task, run_task
    from cudalint.analyzer.pipeline import AnalysisOptions
    from cudalint.rules.runner import CheckOptions

    calls = []
    monkeypatch.setattr(R, "ptxas_resources", lambda *a, **k: calls.append(a) or R.PtxasReport(ok=False, reason="x"))
    monkeypatch.setattr(ptxas_jobs, "_jobs", {})
    src = tmp_path / "a.cu"
    src.write_text("__global__ void k(float *p) { p[threadIdx.x * 2] = 1.0f; }\n")
    tr = run_task(Task(str(src), AnalysisOptions(), CheckOptions(select=select)))
    assert tr.result.error is None
    assert bool(calls) == compiled


def test_compiles_run_side_by_side_when_allowed(tmp_path, monkeypatch):
    """set_threads(n): up to n compiles at once (a many-file run with idle cores); 1 by default."""
    import threading
    import time as _time

    running, peak, lock = [0], [0], threading.Lock()

    def fake_compile(key, instantiations=()):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        _time.sleep(0.3)
        with lock:
            running[0] -= 1
        return key[0]

    monkeypatch.setattr(ptxas_jobs, "_compile", fake_compile)
    monkeypatch.setattr(ptxas_jobs, "_jobs", {})
    monkeypatch.setenv("CUDALINT_PTXAS_BATCH", "1")  # one file per compile: the threads are the subject
    from cudalint.analyzer.options import AnalysisOptions

    files = []
    for n in range(4):
        f = tmp_path / f"k{n}.cu"
        f.write_text(f"__global__ void k{n}(float* a) {{ a[0] = {n}; }}\n")
        files.append(str(f))
    for threads, want in ((1, 1), (3, 3)):
        ptxas_jobs.set_threads(threads)
        ptxas_jobs._jobs.clear()
        peak[0] = 0
        try:
            for f in files:
                ptxas_jobs.start(f, AnalysisOptions(arch="sm_90"))
            got = [ptxas_jobs.report(f, "sm_90", [], [], "c++17") for f in files]
        finally:
            ptxas_jobs.set_threads(1)
        assert got == [os.path.abspath(f) for f in files] and peak[0] == want


def _whole_file_fails(src) -> str:
    """nvcc's errors for the whole file, which must not compile."""
    whole = subprocess.run([NVCC, "-cubin", "-arch=sm_90", "-o", os.devnull, str(src)], capture_output=True, text=True)
    assert whole.returncode != 0
    return whole.stderr


def _nvcc_runs(monkeypatch) -> list:
    """The source of every nvcc run from now on (the run still happens)."""
    runs = []
    real = R._nvcc_run
    monkeypatch.setattr(R, "_nvcc_run", lambda cmd, *a, **k: runs.append(cmd[-1]) or real(cmd, *a, **k))
    return runs


MISSING_LIB = """#include <cstdio>
#include <cudalint_test_not_installed.h>
__global__ void k(float *x) { x[threadIdx.x] = lib_scale(x[threadIdx.x]); }
int main() { k<<<1, 32>>>(nullptr); return 0; }
"""


@needs_nvcc
def test_a_header_the_file_includes_and_nvcc_cannot_find_is_not_compiled_again(tmp_path, monkeypatch):
    # The device code needs the library; nvcc cannot find its header. The device-only compile
    # with the system headers fails on it, and so would the whole file (it includes the header
    # itself, searched in the same directories): that third compile is not run. Nor is the
    # second: the header is in none of the directories nvcc searches, so the device code with
    # its system headers stops on it as well (registers._absent_include; the same report).
    monkeypatch.setenv("CUDALINT_PTXAS_BACKEND", "nvcc")
    src = tmp_path / "lib.cu"
    src.write_text(MISSING_LIB)
    assert "cudalint_test_not_installed.h: No such file" in _whole_file_fails(src)  # the premise
    runs = _nvcc_runs(monkeypatch)
    rep = ptxas_resources(src, "sm_90", use_cache=False)
    assert not rep.ok and len(runs) == 1 and str(src) not in runs  # the device code alone, once
    assert rep.reason.startswith(f"nvcc failed for sm_90: {src}:2:10: cudalint_test_not_installed.h: "
                                 "No such file or directory (so the whole file was not compiled)")


def test_a_missing_header_reached_through_another_header_still_compiles_the_whole_file(tmp_path):
    # Inlined into the device code, a project header's "quoted" includes resolve elsewhere than
    # in the whole file: only a header the source itself includes decides.
    src = tmp_path / "a.cu"
    src.write_text('#include "proj.h"\n__global__ void k() {}\n')
    rep = R.PtxasReport(ok=False, reason="nvcc failed for sm_90: a.cu (device code):3:10: fatal error: "
                                         "util.h: No such file or directory")
    assert R._includes_missing_header(src, rep) is None
    src.write_text('#include "proj.h"\n  #  include "util.h"\n__global__ void k() {}\n')
    assert R._includes_missing_header(src, rep) == ("2:14", "util.h")  # where gcc puts it: the quote


@needs_nvcc
def test_a_failure_for_a_missing_header_is_cached_until_the_header_appears(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDALINT_PTXAS_BACKEND", "nvcc")
    src = tmp_path / "lib.cu"
    src.write_text(MISSING_LIB)
    runs = _nvcc_runs(monkeypatch)
    first = ptxas_resources(src, "sm_90")
    assert not first.ok and len(runs) == 1  # the header is seen missing before a second compile
    assert first.missing["header"] == "cudalint_test_not_installed.h"
    assert str(tmp_path) in first.missing["dirs"] and "/usr/include" in first.missing["dirs"]
    again = ptxas_resources(src, "sm_90")
    assert not again.ok and again.cached and len(runs) == 1 and again.reason == first.reason  # no compile
    # the header is installed (in the file's own directory, where nvcc looks first)
    (tmp_path / "cudalint_test_not_installed.h").write_text(
        "__device__ inline float lib_scale(float x) { return 3.0f * x; }\n")
    now = ptxas_resources(src, "sm_90")
    assert now.ok and not now.cached and len(runs) == 2 and now.find("k") is not None


# simpleTextureDrv's shape: the kernel's parameter type comes from the driver API's <cuda.h>,
# which the device-only compile leaves out with the file's other system headers.
DRIVER_TYPES = r"""
#include <cuda.h>
#include <vector>
#include <iostream>
__global__ void fetch(float *out, CUtexObject tex, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(tex, i);
}
int main() { std::vector<float> v(4); std::cout << v.size(); return 0; }
"""
# What the headers nvcc always reads declare: int32_t (sys/types.h), INT_MAX, assert (FLT_MAX
# is not there: float.h).
NEEDS_NOTHING = r"""
#include <cassert>
#include <climits>
#include <cstdio>
__global__ void clamp(float *x, int32_t n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(n < INT_MAX);
    if (i < n) x[i] = fminf(x[i], (float)UINT_MAX);
}
"""


def test_the_system_headers_device_code_names_something_of(tmp_path):
    f = tmp_path / "drv.cu"
    f.write_text(DRIVER_TYPES)
    assert device_code(str(f)).needed_system_includes() == ["cuda.h"]
    g = tmp_path / "plain.cu"
    g.write_text(NEEDS_NOTHING)
    assert device_code(str(g)).needed_system_includes() == []
    # uint32_t is declared by no header the file names: some header must include stdint.h
    h = tmp_path / "u32.cu"
    h.write_text("#include <stdio.h>\n#include <math.h>\n"
                 "__global__ void k(uint32_t *p) { p[threadIdx.x] = 1u; }\n")
    assert device_code(str(h)).needed_system_includes() == ["stdio.h", "math.h"]
    k = tmp_path / "flt.cu"
    k.write_text("#include <vector>\n#include <cfloat>\n"
                 "__global__ void k(float *p) { p[threadIdx.x] = FLT_MAX; }\n")
    assert device_code(str(k)).needed_system_includes() == ["cfloat"]


@needs_nvcc
@pytest.mark.parametrize("text, compiles", [(DRIVER_TYPES, 1), (NEEDS_NOTHING, 1),
                                             (NEEDS_NOTHING.replace("(float)UINT_MAX", "FLT_MAX")
                                              .replace("<cstdio>", "<cfloat>"), 1)])
def test_device_code_naming_a_system_header_s_types_compiles_once(tmp_path, monkeypatch, text, compiles):
    f = tmp_path / "k.cu"
    f.write_text(text)
    runs = []
    real = R._run
    monkeypatch.setattr(R, "_run", lambda cmd, *a, **k: (runs.append(cmd), real(cmd, *a, **k))[1])
    rep = ptxas_resources(str(f), "sm_90", use_cache=False)
    assert rep.ok and rep.mode == "device code only", rep.reason
    assert sum("-cubin" in c and "--dryrun" not in c for c in runs) == compiles


@needs_nvcc
def test_a_header_checked_alone_is_compiled_as_cuda(tmp_path):
    # a template kernel instantiated only by host templates: the whole file is compiled first
    h = tmp_path / "scale.cuh"
    h.write_text("template <typename T, int B>\n"
                 "__global__ void scale(T *p) { p[threadIdx.x] *= (T)B; }\n"
                 "template <typename T> void launch(T *p) { scale<T, 64><<<1, 64>>>(p); }\n"
                 "template void launch<float>(float *);\n")
    rep = ptxas_resources(str(h), "sm_90", use_cache=False)
    assert rep.ok and rep.mode == "whole file", rep.reason  # not "Don't know what to do with"
    assert [f.demangled for f in rep.functions.values() if f.is_entry] == ["void scale<float, 64>(float*)"]
