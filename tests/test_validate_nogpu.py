"""``cudalint validate`` without a GPU: the missing-CuPy/GPU message and exit 2, and the pure
parts (buffer sizing from the index analysis, device-source extraction for NVRTC, the
predicted-vs-measured table and JSON, Nsight Compute CSV parsing, the child-process
handling) with synthetic measurements. The GPU runs themselves are in tests/gpu/."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest
import sympy as sp
from typer.testing import CliRunner

from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file
from cudalint.cli import app
from cudalint.commands import validate as V
from cudalint.commands.validate_ncu import derive_metrics, kernel_filter, ncu_command, parse_ncu_csv
from cudalint.commands.validate_plan import PlanError, build_plan, device_globals, interval
from cudalint.commands.validate_report import Row, agree, compare, render_json, render_text, table
from cudalint.commands.validate_source import ExtractError, apply_edits, extract_device_source, split_top_level
from cudalint.rules.diagnostic import Edit, Location

runner = CliRunner()


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def _kernel(tmp_path, src, name, **opts):
    p = _write(tmp_path, "k.cu", src)
    fa = analyze_file(str(p), AnalysisOptions(**opts))
    assert fa.error is None, fa.error
    return next(k for k in fa.kernels if k.function.name == name), fa


# --------------------------------------------------------------------------- no CuPy / no GPU


def _stderr(result) -> str:
    try:
        return result.stderr
    except (ValueError, AttributeError):
        return result.output


def test_no_cupy_message_and_exit_2(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "cupy", None)  # `import cupy` fails, find_spec says absent
    f = _write(tmp_path, "k.cu", "__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }\n")
    r = runner.invoke(app, ["validate", str(f), "--kernel", "k"])
    assert r.exit_code == 2
    err = _stderr(r)
    assert "CuPy is not installed" in err
    assert "pip install 'cudalint[gpu]'" in err


def _fake_cupy(count=None, exc=None):
    rt = types.SimpleNamespace()

    def get_count():
        if exc is not None:
            raise exc
        return count

    rt.getDeviceCount = get_count
    rt.getDeviceProperties = lambda i: {"name": b"Fake GPU", "major": 9, "minor": 0}
    mod = types.ModuleType("cupy")
    mod.cuda = types.SimpleNamespace(runtime=rt)
    return mod


def test_cupy_without_gpu_message_and_exit_2(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(exc=RuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")))
    f = _write(tmp_path, "k.cu", "__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }\n")
    r = runner.invoke(app, ["validate", str(f), "--kernel", "k"])
    assert r.exit_code == 2
    err = _stderr(r)
    assert "no usable NVIDIA GPU" in err and "cudaErrorNoDevice" in err


def test_zero_devices_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(count=0))
    missing, dev = V.gpu_environment()
    assert missing == "no NVIDIA GPU: the CUDA driver reports 0 devices" and dev == {}


def test_gpu_environment_reports_device(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(count=1))
    missing, dev = V.gpu_environment()
    assert missing is None
    assert dev == {"name": "Fake GPU", "major": 9, "minor": 0, "count": 1}


def test_cli_subprocess_exit_2_without_gpu(tmp_path):
    """The installed entry point, as a user runs it on a machine without CuPy or a GPU."""
    missing, _ = V.gpu_environment()
    if missing is None:
        pytest.skip("this machine has CuPy and a GPU")
    f = _write(tmp_path, "k.cu", "__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }\n")
    p = subprocess.run([sys.executable, "-m", "cudalint.cli", "validate", str(f), "--kernel", "k"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.startswith("cudalint validate: error: ")
    assert ("CuPy is not installed" in p.stderr) or ("GPU" in p.stderr) or ("CuPy" in p.stderr)
    assert p.stdout == ""


def test_module_imports_without_cupy():
    code = ("import sys; sys.modules['cupy'] = None\n"
            "import cudalint.commands.validate, cudalint.commands.validate_plan, cudalint.commands.validate_report\n"
            "import cudalint.commands.validate_source, cudalint.commands.validate_ncu, cudalint.cli\n"
            "assert sys.modules['cupy'] is None\n"
            "print('validate' in [c.name for c in cudalint.cli.app.registered_commands])\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "True"


def test_usage_errors_exit_2(tmp_path):
    f = _write(tmp_path, "k.cu", "__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }\n")
    for args, msg in ((["--block", "0,1"], "--block"), (["--param", "n"], "NAME=VALUE"),
                      (["--size", "a=-4"], "positive"), (["--output-format", "xml"], "--output-format")):
        r = runner.invoke(app, ["validate", str(f), "--kernel", "k"] + args)
        assert r.exit_code == 2, args
        assert msg in _stderr(r)
    r = runner.invoke(app, ["validate", str(tmp_path / "missing.cu"), "--kernel", "k"])
    assert r.exit_code == 2 and "no such file" in _stderr(r)


# --------------------------------------------------------------------------- buffer sizing


def test_interval_arithmetic():
    x, y = sp.symbols("x y", integer=True, nonnegative=True)
    env = {x: (0, 31), y: (0, 7)}
    assert interval(4 * (x + 32 * y) + 12, env) == (12, 4 * (31 + 224) + 12)
    assert interval(sp.Mod(5 * x + 3, 64), env) == (0, 63)
    assert interval(sp.Mod(x, 64), env) == (0, 31)
    assert interval(sp.floor(x / 4), env) == (0, 7)
    assert interval(sp.Min(x, 10), env) == (0, 10)
    assert interval(x - 32, env) == (-32, -1)
    from cudalint.analyzer import symbolic as S

    assert interval(S.BitAnd(x * 7, 15), env) == (0, 15)
    assert interval(S.ShiftLeft(y, 2), env) == (0, 28)
    assert interval(S.MemLoad(sp.Symbol("p"), x) + 1, env) is None
    assert interval(x + sp.Symbol("unbound"), env) is None


def test_buffer_sizes_over_the_whole_grid(tmp_path):
    kf, _ = _kernel(tmp_path, """
        __global__ void k(const float* in, float* out, int n, int stride) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) out[i] = in[i * stride + 3];
        }
        """, "k", block=(128, 1, 1), grid=(10, 1, 1), params={"stride": 2})
    plan = build_plan(kf, {"stride": 2, "n": 1280})
    a = {x.name: x for x in plan.args}
    assert a["in"].elements == 1279 * 2 + 3 + 1  # highest index over the grid, + 1
    assert a["out"].elements == 1280
    assert a["in"].read and not a["in"].written and a["out"].written
    assert a["n"].kind == "scalar" and a["n"].value == 1280 and a["n"].source == "--param"
    assert a["stride"].value == 2
    assert a["in"].fill == "float" and a["in"].dtype == "float32"
    job = plan.to_job()
    assert job["grid"] == [10, 1, 1] and job["block"] == [128, 1, 1]
    j_in = next(x for x in job["args"] if x["name"] == "in")
    assert j_in["count"] >= 2562 and j_in["offset"] == 0


def test_buffer_sizes_2d_loop_and_template_constant(tmp_path):
    kf, _ = _kernel(tmp_path, """
        #define W 512
        #define TD 32
        __global__ void t(const float* in, float* out) {
            __shared__ float tile[TD][TD + 1];
            int x = blockIdx.x * TD + threadIdx.x;
            int y = blockIdx.y * TD + threadIdx.y;
            for (int j = 0; j < TD; j += 8)
                tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * W + x];
            __syncthreads();
            for (int j = 0; j < TD; j += 8)
                out[(blockIdx.x * TD + threadIdx.y + j) * W + blockIdx.y * TD + threadIdx.x] = tile[threadIdx.x][threadIdx.y + j];
        }
        """, "t", block=(32, 8, 1), grid=(16, 16, 1))
    plan = build_plan(kf)
    assert {a.name: a.elements for a in plan.args} == {"in": 512 * 512, "out": 512 * 512}
    assert plan.assumptions == []


def test_modulo_index_and_int_buffer_range(tmp_path):
    kf, _ = _kernel(tmp_path, """
        __global__ void m(const int* lut, float* out) {
            out[blockIdx.x * blockDim.x + threadIdx.x] = lut[(5 * threadIdx.x + blockIdx.x) % 64];
        }
        """, "m", block=(256, 1, 1), grid=(4, 1, 1))
    a = {x.name: x for x in build_plan(kf).args}
    assert a["lut"].elements == 64
    assert a["lut"].fill == "int" and a["lut"].int_range == (0, 64)
    assert a["out"].elements == 1024


def test_data_dependent_index_is_sized_from_the_values_read(tmp_path):
    kf, _ = _kernel(tmp_path, """
        __global__ void gather(const float* values, const int* index, float* out, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) out[i] = values[index[i]];
        }
        """, "gather", block=(128, 1, 1), grid=(8, 1, 1))
    plan = build_plan(kf, {"n": 1024})
    a = {x.name: x for x in plan.args}
    # index holds values in [0, 1024) (the smallest sized buffer): values is sized for them
    assert "values read from `index` in [0, 1023]" in a["values"].source
    assert a["values"].elements == 1024
    assert a["index"].int_range == (0, 1024)  # indices read from it stay inside every buffer
    assert any("[0, 1024)" in s for s in plan.assumptions)
    plan2 = build_plan(kf, {"n": 1024}, sizes={"values": 5000})
    assert {x.name: x for x in plan2.args}["values"].elements == 5000


def test_grid_stride_loop_buffer_covers_n(tmp_path):
    """A grid-stride loop with n from the launch site (issue 12: 33554432 elements ran into an
    illegal address with the old 1 M-element fallback): the counter's trip count bounds it."""
    kf, _ = _kernel(tmp_path, """
        __global__ void saxpy(int n, float a, const float* x, float* y) {
            int tid = blockIdx.x * blockDim.x + threadIdx.x;
            int stride = blockDim.x * gridDim.x;
            for (int i = tid; i < n; i += stride)
                y[i] = a * x[i] + y[i];
        }
        int main() { saxpy<<<4096, 256>>>(33554432, 2.0f, 0, 0); }
        """, "saxpy")
    plan = build_plan(kf)
    a = {x.name: x for x in plan.args}
    assert a["n"].value == 33554432 and a["n"].source.startswith("launch site")
    # thread 1048575 (the last) runs i = 1048575 + 31 * 1048576 = n - 1: exactly n elements
    assert a["x"].elements == a["y"].elements == 33554432
    assert a["x"].source == "index analysis over the whole grid"
    # a smaller n from --param: one pass of the grid (trip count 1), so the grid's 1048576 threads
    small = {x.name: x for x in build_plan(kf, {"n": 5000}).args}
    assert small["y"].elements == 1048576


def test_csr_row_bounds_read_from_memory_are_bounded(tmp_path):
    kf, _ = _kernel(tmp_path, """
        __global__ void spmv(const int* rowptr, const int* col, const float* val, const float* x,
                             float* y, int rows) {
            int r = blockIdx.x * blockDim.x + threadIdx.x;
            if (r < rows) {
                float s = 0;
                for (int j = rowptr[r]; j < rowptr[r + 1]; j++)
                    s += val[j] * x[col[j]];
                y[r] = s;
            }
        }
        int main() { spmv<<<4, 256>>>(0, 0, 0, 0, 0, 1024); }
        """, "spmv")
    a = {x.name: x for x in build_plan(kf).args}
    assert a["rowptr"].elements == 1025 and a["y"].elements == 1024 and a["x"].elements == 1024
    # rowptr values in [0, 1023]: j <= 1023 + (1023 - 0) - 1, so val and col need 2046 elements
    assert a["rowptr"].int_range == (0, 1024) and a["col"].int_range == (0, 1024)
    assert a["val"].elements == a["col"].elements == 2046
    assert "`rowptr` in [0, 1023]" in a["val"].source


def test_unbounded_index_is_refused_not_guessed(tmp_path):
    """An index computed into shared memory (or anything else the plan cannot bound) is refused
    with the buffer and --size named, instead of running with a guessed size."""
    kf, _ = _kernel(tmp_path, """
        __global__ void k(const float* in, float* out) {
            __shared__ int idx[256];
            idx[threadIdx.x] = (threadIdx.x * 7919) % 100000;
            __syncthreads();
            out[threadIdx.x] = in[idx[threadIdx.x]];
        }
        int main() { k<<<1, 256>>>(0, 0); }
        """, "k")
    with pytest.raises(PlanError, match=r"cannot size the buffer of `in`.*--size in=ELEMENTS"):
        build_plan(kf)
    a = {x.name: x for x in build_plan(kf, sizes={"in": 100000}).args}
    assert a["in"].elements == 100000 and a["in"].source == "--size"


def test_struct_of_arrays_passed_by_value(tmp_path):
    """`SoA3 p` by value (issue 12: refused before): its bytes come from clang's layout, each
    pointer field gets a buffer of its own sized by the accesses p.x[i], p.y[i], p.z[i]."""
    from cudalint.commands.validate import _struct_layouts

    src = """
        struct SoA3 { float *x; float *y; float *z; };
        struct Cfg { int n; char tag; double scale; };
        __global__ void soa(SoA3 p, Cfg c, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) { p.x[i] *= 2.0f; p.y[i] += p.z[i + 1]; }
        }
        int main() { SoA3 p; Cfg c; soa<<<1024, 128>>>(p, c, 131072); }
        """
    kf, fa = _kernel(tmp_path, src, "soa")
    accs = kf.to_json()["accesses"]
    assert {a["array"] for a in accs} == {"p.x", "p.y", "p.z"}
    # coalesced (4 sectors), p.z[i + 1] one float off (5): addresses known, not opaque
    assert {(a["array"], a["sectors_per_request"]) for a in accs} == {("p.x", 4), ("p.y", 4), ("p.z", 5)}
    layouts = _struct_layouts(kf, fa.path, [], [], "c++17", "sm_90")
    plan = build_plan(kf, {"c.scale": 0.5}, struct_layouts=layouts)
    a = {x.name: x for x in plan.args}
    assert a["p"].kind == "struct" and a["p"].elem_bytes == 24
    assert [(f["name"], f["offset"], f.get("buffer")) for f in a["p"].fields] == [
        ("x", 0, "p.x"), ("y", 8, "p.y"), ("z", 16, "p.z")]
    assert a["p.x"].elements == 131072 and a["p.z"].elements == 131073 and a["p.x"].member_of == "p"
    # Cfg: int at 0, char at 4, double at 8 (16 bytes); values from --param or the default
    assert a["c"].elem_bytes == 16
    assert [(f["name"], f["offset"], f["dtype"], f["value"]) for f in a["c"].fields] == [
        ("n", 0, "int32", 1024), ("tag", 4, "int8", 1024), ("scale", 8, "float64", 0.5)]
    assert any("c.n = 1024" in x for x in plan.assumptions)
    job = plan.to_job()
    kernel_args = [x["name"] for x in job["args"] if not x.get("member_of")]
    assert kernel_args == ["p", "c", "n"]  # the kernel's parameters, in order
    with pytest.raises(PlanError, match="not a parameter"):
        build_plan(kf, {"c.nope": 1}, struct_layouts=layouts)


def test_runner_packs_a_struct_with_its_c_layout():
    import numpy as np

    from cudalint.commands import validate_runner as VR

    class Buf:
        def __init__(self, ptr):
            self.data = type("D", (), {"ptr": ptr})

    a = {"name": "p", "kind": "struct", "size": 24,
         "fields": [{"name": "x", "offset": 0, "dtype": "uint64", "buffer": "p.x"},
                    {"name": "n", "offset": 8, "dtype": "int32", "value": 7},
                    {"name": "s", "offset": 16, "dtype": "float64", "value": 0.5}]}
    v = VR._struct_value(np, a, {"p.x": Buf(0x7F0012345600)})
    raw = bytes(v)
    assert len(raw) == 24
    assert int.from_bytes(raw[0:8], "little") == 0x7F0012345600
    assert int.from_bytes(raw[8:12], "little") == 7 and raw[12:16] == b"\0" * 4
    assert np.frombuffer(raw[16:24], dtype=np.float64)[0] == 0.5


def test_negative_offsets_get_front_padding(tmp_path):
    kf, _ = _kernel(tmp_path, """
        __global__ void s(const float* in, float* out) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            out[i] = in[i - 4] + in[i + 4];
        }
        """, "s", block=(64, 1, 1), grid=(2, 1, 1))
    plan = build_plan(kf)
    a = {x.name: x for x in plan.args}
    assert a["in"].front_pad == 64  # 16 bytes before the pointer, rounded to 256 B of floats
    assert a["in"].elements == 128 + 4
    assert a["in"].to_job()["offset"] == 64


def test_plan_errors(tmp_path):
    kf, _ = _kernel(tmp_path, """
        __global__ void k(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }
        """, "k", block=(32, 1, 1))
    with pytest.raises(PlanError, match="--grid"):
        build_plan(kf)
    kf, _ = _kernel(tmp_path, """
        __global__ void k(const float* in, float* out) {
            size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
            out[i] = in[i * 1024];
        }
        """, "k", block=(1024, 1, 1), grid=(65535, 1, 1))
    with pytest.raises(PlanError, match="over the limit"):
        build_plan(kf, max_total_bytes=1 << 30)
    with pytest.raises(PlanError, match="not a parameter"):
        build_plan(kf, sizes={"nope": 4})


def test_scalars_from_launch_site_and_defaults(tmp_path):
    kf, _ = _kernel(tmp_path, """
        __global__ void k(float* out, int n, float scale) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) out[i] = scale;
        }
        int main() { float* d; k<<<4, 128>>>(d, 512, 2.0f); return 0; }
        """, "k")
    plan = build_plan(kf)
    a = {x.name: x for x in plan.args}
    assert plan.grid == (4, 1, 1) and plan.block == (128, 1, 1)
    assert a["n"].value == 512 and a["n"].source.startswith("launch site")
    assert a["scale"].dtype == "float32"
    kf2, _ = _kernel(tmp_path, """
        __global__ void k(float* out, int n) { out[threadIdx.x] = n; }
        """, "k", block=(32, 1, 1), grid=(1, 1, 1))
    plan2 = build_plan(kf2)
    assert {x.name: x for x in plan2.args}["n"].value == 1024
    assert any("n = 1024" in s for s in plan2.assumptions)


def test_vector_types_and_device_globals(tmp_path):
    kf, fa = _kernel(tmp_path, """
        __constant__ float coeffs[8];
        __constant__ float init[2] = {1.0f, 2.0f};
        __device__ unsigned int counter;
        __global__ void v(const float4* in, float4* out) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            float4 a = in[i];
            a.x *= coeffs[i % 8] + init[0];
            out[i] = a;
            atomicAdd(&counter, 1u);
        }
        """, "v", block=(64, 1, 1), grid=(2, 1, 1))
    plan = build_plan(kf, globals_=device_globals(kf, fa.source))
    a = {x.name: x for x in plan.args}
    assert a["in"].dtype == "float32" and a["in"].components == 4 and a["in"].elements == 128
    assert a["in"].elem_bytes == 16
    g = {x.name: x for x in plan.globals}
    assert set(g) == {"coeffs", "counter"}  # `init` keeps its initialiser
    assert g["coeffs"].count == 8 and g["coeffs"].dtype == "float32"
    assert g["counter"].dtype == "uint32" and g["counter"].fill == "int"


# --------------------------------------------------------------------------- device source


SRC = """\
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include <cuda_fp16.h>
#pragma once
#define TILE 16
#define IDX(r, c) ((r) * TILE + (c))

struct Pair { float a, b; };
enum Mode { ADD = 1, MUL = 2 };
typedef float real;
static const int kUnused = 3;
constexpr int kScale = 2;
__constant__ float bias[4];
int host_counter = 0;

static void host_helper(std::vector<int>& v) { v.push_back(1); }

__device__ inline real combine(Pair p, int mode) {
    return mode == ADD ? p.a + p.b : p.a * p.b;
}

__global__ void other(float* x) { x[0] = host_counter; }

__global__ void __launch_bounds__(256) target(const Pair* in, float* out) {
    __shared__ float s[TILE * TILE];
    int t = threadIdx.x;
    s[t] = combine(in[t], MUL) * kScale + bias[t % 4];
    __syncthreads();
    out[IDX(blockIdx.x, t % TILE)] = s[(t + 1) % (TILE * TILE)];
}

int main() {
    std::vector<int> v;
    host_helper(v);
    float* d;
    cudaMalloc(&d, 4);
    target<<<1, 256>>>(nullptr, d);
    printf("%d\\n", (int)v.size());
    return 0;
}
"""


def test_extraction_keeps_what_the_kernel_needs_and_no_host_code():
    ds = extract_device_source(SRC, "target", "/src/k.cu")
    code = ds.code
    for needed in ("struct Pair", "enum Mode", "typedef float real;", "constexpr int kScale", "__constant__ float bias",
                   "__device__ inline real combine", "__global__ void __launch_bounds__(256) target",
                   "#define TILE 16", "#define IDX(r, c)", "#include <cuda_fp16.h>"):
        assert needed in code, needed
    for host in ("int main", "host_helper", "host_counter", "__global__ void other", "<vector>", "<cstdio>",
                 "cuda_runtime.h", "#pragma once", "kUnused", "printf"):
        assert host not in code, host
    assert '#line 25 "/src/k.cu"' in code  # NVRTC's messages point at the user's file
    assert code.count("{") == code.count("}")
    assert ds.name_expression == "target"
    assert set(ds.kept) >= {"Pair", "Mode", "ADD", "MUL", "real", "kScale", "bias", "combine"}
    assert "cuda_runtime.h" in ds.dropped_includes and "vector" in ds.dropped_includes
    assert "#if 0" in code  # no fixed-width integer types used: the prelude's typedefs are off


def test_extraction_missing_kernel_lists_the_others():
    with pytest.raises(ExtractError, match=r"kernel `nope` not found.*other, target"):
        extract_device_source(SRC, "nope", "/src/k.cu")


def test_extraction_templates_namespaces_and_local_headers(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "helpers.cuh").write_text(textwrap.dedent("""\
        #pragma once
        #include <cstdint>
        __device__ __forceinline__ uint32_t mix(uint32_t x) { return x * 2654435761u; }
        __device__ float unused_helper(float x) { return x; }
        inline void host_only() { }
        """))
    src = textwrap.dedent("""\
        #include "inc/helpers.cuh"
        namespace lib {
        template <typename T, int B>
        __global__ void scale(T* data, uint32_t seed) {
            int i = blockIdx.x * B + threadIdx.x;
            data[i] = data[i] * (T)(mix(seed + i) & 7u);
        }
        void launch(float* d) { scale<float, 128><<<4, 128>>>(d, 7u); }
        }  // namespace lib
        """)
    ds = extract_device_source(src, "scale", str(tmp_path / "k.cu"), name_expression="scale<float, 128>")
    assert ds.name_expression == "lib::scale<float, 128>"
    assert "__device__ __forceinline__ uint32_t mix" in ds.code
    assert "unused_helper" not in ds.code and "host_only" not in ds.code and "void launch" not in ds.code
    assert "typedef unsigned int uint32_t;" in ds.code and "#ifndef CUDALINT_NO_STDINT" in ds.code
    assert "namespace lib {" in ds.code
    assert ds.code.count("{") == ds.code.count("}")


def test_split_top_level_shapes():
    chunks = split_top_level(textwrap.dedent("""\
        struct S { int a; } s_instance;
        __device__ float table[3] = {1, 2, 3};
        GT_HOST
        {
            int x = 1;
        }
        #define A(x) \\
            (x + 1)
        __global__ void k(float* p);
        """))
    kinds = [(c.kind, sorted(c.names)) for c in chunks]
    assert kinds == [("type", ["S", "s_instance"]), ("variable", ["table"]), ("function", []),
                     ("directive", ["A"]), ("prototype", ["k"])]
    assert chunks[1].device and chunks[4].kernel
    assert chunks[3].text.endswith("(x + 1)")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_extracted_source_compiles_with_nvcc(tmp_path):
    """What NVRTC would get compiles as device code (nvcc stands in for NVRTC here)."""
    ds = extract_device_source(SRC, "target", str(tmp_path / "k.cu"))
    f = tmp_path / "device_only.cu"
    f.write_text(ds.code)
    p = subprocess.run(["nvcc", "-arch=sm_90", "-c", "-o", str(tmp_path / "o.o"), str(f)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr


def test_apply_edits():
    text = "float tile[32][32];\nint x;\nfloat b[8][8];\n"
    edits = [Edit(Location(1, 16), Location(1, 18), "33"), Edit(Location(3, 12), Location(3, 13), "9"),
             Edit(Location(1, 16), Location(1, 17), "X")]  # overlaps the first: skipped
    assert apply_edits(text, edits) == "float tile[32][33];\nint x;\nfloat b[8][9];\n"


def test_compare_fix_edit_from_cl301(tmp_path):
    """The CL301 padding fix applied to a transpose tile: `[32][32]` becomes `[32][33]`."""
    from cudalint.rules.runner import check_file

    p = _write(tmp_path, "t.cu", """\
        __global__ void tr(const float* in, float* out) {
            __shared__ float tile[32][32];
            tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
            __syncthreads();
            out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
        }
        """)
    res, fa = check_file(str(p), AnalysisOptions(block=(32, 32, 1), grid=(1, 1, 1)))
    fixes = [d.fix for d in res.diagnostics if d.fix is not None and d.kernel == "tr"]
    assert fixes
    fixed = apply_edits(fa.source, [e for f in fixes for e in f.edits])
    assert "__shared__ float tile[32][33];" in fixed
    assert extract_device_source(fixed, "tr", str(p)).code.count("tile[32][33]") == 1


# --------------------------------------------------------------------------- report


def _pred(**kw):
    base = {"registers": 20, "registers_source": "ptxas", "local_bytes": 0, "static_smem_bytes": 4096,
            "occupancy_pct": 100.0, "blocks_per_sm": 8,
            "global_ld_sectors_per_request": 4.0, "global_st_sectors_per_request": 4.0,
            "shared_ld_wavefronts_per_request": 32.0, "shared_st_wavefronts_per_request": 1.0,
            "local_ld_sectors_per_request": None, "local_st_sectors_per_request": None}
    base.update(kw)
    return base


RUN = {"ok": True, "status": "ok", "attributes": {"num_regs": 21, "local_size_bytes": 0, "shared_size_bytes": 4096},
       "occupancy": {"blocks_per_sm": 8, "occupancy_pct": 100.0},
       "timing": {"repeat": 20, "median_us": 87.6, "median_warm_us": 80.1}}


def _ncu(**kw):
    d = {"global_ld_sectors_per_request": 4.0, "global_ld_requests": 524288.0,
         "global_st_sectors_per_request": 4.0, "global_st_requests": 524288.0,
         "shared_ld_wavefronts_per_request": 32.23, "shared_ld_requests": 524288.0,
         "shared_st_wavefronts_per_request": 1.08, "shared_st_requests": 524288.0,
         "local_ld_sectors_per_request": None, "local_ld_requests": 0,
         "local_st_sectors_per_request": None, "local_st_requests": 0,
         "theoretical_occupancy_pct": 100.0, "occupancy_limiters": ["warps"]}
    d.update(kw)
    return d


def test_tolerances():
    assert agree("global_ld_sectors_per_request", 4, 4.5)[0] is True
    assert agree("global_ld_sectors_per_request", 4, 4.51)[0] is False
    assert agree("shared_ld_wavefronts_per_request", 32, 32.23)[0] is True
    assert agree("shared_ld_wavefronts_per_request", 1, 1.2)[0] is False  # 20 % off
    assert agree("shared_ld_wavefronts_per_request", 1, 1.08)[0] is True
    assert agree("registers", 20, 22)[0] is True and agree("registers", 20, 23)[0] is False
    assert agree("registers", 100, 110)[0] is True  # 10 % of 110
    assert agree("registers", 20, 24, "estimate")[0] is True
    assert agree("local_bytes", 0, 0)[0] is True and agree("local_bytes", 0, 256)[0] is False
    assert agree("occupancy", 62.5, 62.5)[0] is True and agree("occupancy", 62.5, 50.0)[0] is False
    assert agree("global_st_sectors_per_request", None, 4)[0] is None


def test_compare_rows_all_agree():
    rows = compare(_pred(), RUN, _ncu())
    by = {r.key: r for r in rows}
    assert [r.key for r in rows] == ["registers", "local_bytes", "static_smem_bytes", "occupancy_api", "occupancy_ncu",
                                     "global_ld_sectors_per_request", "global_st_sectors_per_request",
                                     "shared_ld_wavefronts_per_request", "shared_st_wavefronts_per_request", "time_us"]
    assert all(r.agree for r in rows if r.key != "time_us")
    assert by["time_us"].agree is None and by["time_us"].measured == 87.6
    assert by["shared_ld_wavefronts_per_request"].note == "524 288 requests"


def test_compare_rows_flag_disagreements():
    rows = compare(_pred(global_ld_sectors_per_request=4.0, shared_ld_wavefronts_per_request=None),
                   RUN, _ncu(global_ld_sectors_per_request=8.0, local_st_sectors_per_request=16.0, local_st_requests=100))
    by = {r.key: r for r in rows}
    assert by["global_ld_sectors_per_request"].agree is False
    assert by["shared_ld_wavefronts_per_request"].agree is False
    assert "none predicted" in by["shared_ld_wavefronts_per_request"].note
    assert by["local_st_sectors_per_request"].agree is False
    assert "local_ld_sectors_per_request" not in by  # neither predicted nor measured
    txt = table(rows)
    assert txt.count("DIFF") == 3


def test_compare_without_ncu_keeps_predictions_unmeasured():
    rows = compare(_pred(), RUN, None)
    by = {r.key: r for r in rows}
    assert "occupancy_ncu" not in by
    assert by["global_ld_sectors_per_request"].measured is None
    assert by["global_ld_sectors_per_request"].agree is None
    assert by["global_ld_sectors_per_request"].note == "measure with --ncu"


def _doc(rows, **kw):
    d = {"version": 1, "file": "t.cu", "kernel": "tr", "arch": "sm_90",
         "device": {"name": "NVIDIA H100 80GB HBM3", "cc": "9.0"},
         "launch": {"block": [32, 8, 1], "grid": [128, 128, 1], "dynamic_smem": 0, "source": "command-line"},
         "arguments": [{"name": "in", "kind": "buffer", "type": "const float *", "elements": 16, "bytes": 320,
                        "fill": "float", "source": "index analysis over the whole grid"},
                       {"name": "n", "kind": "scalar", "type": "int", "value": 16, "source": "--param"}],
         "run": {"status": "ok"}, "rows": [r.to_json() for r in rows], "assumptions": [], "notes": [],
         "disagreements": sum(1 for r in rows if r.agree is False)}
    d.update(kw)
    return d


def test_render_text_and_json():
    rows = compare(_pred(), RUN, _ncu(global_st_sectors_per_request=5.0))
    doc = _doc(rows)
    txt = render_text(doc)
    assert "cudalint validate: tr (t.cu) on NVIDIA H100 80GB HBM3 (cc 9.0)" in txt
    assert "grid 128x128x1, block 32x8x1" in txt
    assert "in: const float * -> 16 elements (320 B, random float" in txt
    assert "n: int = 16 (--param)" in txt
    line = next(ln for ln in txt.splitlines() if ln.startswith("global store sectors/request"))
    assert "DIFF" in line and " 4 " in line and "5" in line
    assert "1 disagreement between cudalint's predictions and the measurement" in txt
    back = json.loads(render_json(doc))
    row = next(r for r in back["rows"] if r["metric"] == "global_st_sectors_per_request")
    assert row == {"metric": "global_st_sectors_per_request", "label": "global store sectors/request",
                   "predicted": 4.0, "measured": 5.0, "tolerance": "±0.5 sectors", "agree": False,
                   "note": "524 288 requests", "source": "ncu"}


def test_render_fault_and_compare_fix():
    doc = _doc([], run={"status": "fault", "error": "CUDARuntimeError: cudaErrorIllegalAddress"})
    txt = render_text(doc)
    assert "RUN FAULT: CUDARuntimeError: cudaErrorIllegalAddress" in txt
    assert "the kernel did not complete" in txt
    doc = _doc(compare(_pred(), RUN, None), compare_fix={
        "fixes": [{"code": "CL301", "line": 5, "message": "32-way", "fix": "pad `tile` to tile[32][33]"}],
        "original_us": 87.6, "fixed_us": 58.4, "speedup": 87.6 / 58.4})
    txt = render_text(doc)
    assert "applied CL301 at line 5: pad `tile` to tile[32][33]" in txt
    assert "original 87.60 µs, fixed 58.40 µs -> speedup 1.50x" in txt


# --------------------------------------------------------------------------- ncu


def test_ncu_csv_parsing_and_derivation():
    csv_text = "\n".join([
        '==PROF== Connected to process 1',
        '"ID","Kernel Name","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",'
        '"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum","smsp__inst_executed_op_shared_ld.sum",'
        '"sm__maximum_warps_per_active_cycle_pct","gpu__time_duration.sum","launch__occupancy_limit_warps",'
        '"launch__occupancy_limit_registers"',
        '"","","request","sector","","inst","%","nsecond","block","block"',
        '"0","transpose_smem_naive","524,288","2,097,152","16898840","524288","100","87600","8","16"',
    ])
    vals, units = parse_ncu_csv(csv_text)
    assert vals["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 524288
    assert units["gpu__time_duration.sum"] == "nsecond"
    d = derive_metrics(vals, units)
    assert d["global_ld_sectors_per_request"] == 4.0
    assert d["shared_ld_wavefronts_per_request"] == pytest.approx(32.2312, abs=1e-3)
    assert d["global_st_sectors_per_request"] is None
    assert d["theoretical_occupancy_pct"] == 100
    assert d["duration_us"] == pytest.approx(87.6)
    assert d["blocks_per_sm"] == 8 and d["occupancy_limiters"] == ["warps"]
    assert parse_ncu_csv("no csv here") == ({}, {})


def test_ncu_command_line():
    cmd = ncu_command("/usr/bin/ncu", ["a.sum", "b.sum"], "k", ["python", "runner.py", "job.json", "profile"], "/tmp/x.csv")
    assert cmd[:3] == ["/usr/bin/ncu", "--clock-control", "none"]
    assert "a.sum,b.sum" in cmd and cmd[-4:] == ["python", "runner.py", "job.json", "profile"]
    assert kernel_filter("k") in cmd
    import re

    rx = re.compile(kernel_filter("ld_f32")[len("regex:"):])
    assert rx.match("ld_f32") and rx.match("ld_f32<float, 256>") and not rx.match("ld_f32_v2")


# --------------------------------------------------------------------------- child process


def _fake_runner(tmp_path, body: str) -> str:
    p = tmp_path / "fake_runner.py"
    p.write_text(textwrap.dedent(body))
    return str(p)


def test_run_job_timeout_is_reported(monkeypatch, tmp_path):
    monkeypatch.setattr(V, "RUNNER", _fake_runner(tmp_path, "import time\ntime.sleep(60)\n"))
    res = V.run_job(str(tmp_path / "job.json"), "time", timeout=1.0)
    assert res["status"] == "timeout" and res["ok"] is False
    assert "time limit of 1 s" in res["error"]


def test_run_job_parses_result_and_failures(monkeypatch, tmp_path):
    monkeypatch.setattr(V, "RUNNER", _fake_runner(tmp_path, """\
        import json, sys
        print("noise")
        print("CUDALINT_VALIDATE_RESULT " + json.dumps({"ok": False, "stage": "launch", "fault": True,
              "error": "CUDARuntimeError: cudaErrorIllegalAddress"}))
        sys.exit(3)
        """))
    res = V.run_job("job.json", "time", timeout=30)
    assert res["status"] == "fault" and "IllegalAddress" in res["error"]
    monkeypatch.setattr(V, "RUNNER", _fake_runner(tmp_path, "import sys\nsys.stderr.write('boom')\nsys.exit(9)\n"))
    res = V.run_job("job.json", "time", timeout=30)
    assert res["status"] == "error" and "exited with 9" in res["error"] and "boom" in res["error"]


# --------------------------------------------------------------------------- the whole command, GPU mocked


def _mock_gpu(monkeypatch, fault=False, shared_ld=32.23):
    monkeypatch.setattr(V, "gpu_environment", lambda: (None, {"name": "Mock GPU", "major": 9, "minor": 0, "count": 1}))
    jobs = []

    def fake_run(jp, mode, timeout):
        job = json.loads(Path(jp).read_text())
        jobs.append(job)
        if fault:
            return {"ok": False, "status": "fault", "stage": "launch", "error": "CUDARuntimeError: cudaErrorIllegalAddress"}
        fixed = "tile[32][33]" in job["code"]
        return {"ok": True, "status": "ok", "device": {"name": "Mock GPU", "cc": "9.0"},
                "attributes": {"num_regs": 20, "local_size_bytes": 0, "shared_size_bytes": 4224 if fixed else 4096},
                "occupancy": {"blocks_per_sm": 2, "occupancy_pct": 100.0},
                "timing": {"repeat": 5, "median_us": 60.0 if fixed else 90.0, "median_warm_us": 50.0 if fixed else 80.0}}

    def fake_profile(name, work, tag, timeout):
        wf = shared_ld if tag == "original" else 1.04
        return {"ok": True, "derived": _ncu(shared_ld_wavefronts_per_request=wf)}

    monkeypatch.setattr(V, "run_job", fake_run)
    monkeypatch.setattr(V, "_profile", fake_profile)
    return jobs


TRANSPOSE = """\
#define TD 32
__global__ void tr(const float* in, float* out) {
    __shared__ float tile[32][32];
    int x = blockIdx.x * TD + threadIdx.x, y = blockIdx.y * TD + threadIdx.y;
    for (int j = 0; j < TD; j += 8)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * 1024 + x];
    __syncthreads();
    x = blockIdx.y * TD + threadIdx.x; y = blockIdx.x * TD + threadIdx.y;
    for (int j = 0; j < TD; j += 8)
        out[(y + j) * 1024 + x] = tile[threadIdx.x][threadIdx.y + j];
}
int main() { tr<<<dim3(32, 32), dim3(32, 8)>>>(0, 0); return 0; }
"""


def test_command_with_mocked_gpu_json(monkeypatch, tmp_path):
    jobs = _mock_gpu(monkeypatch)
    f = _write(tmp_path, "t.cu", TRANSPOSE)
    r = runner.invoke(app, ["validate", str(f), "--kernel", "tr", "--ncu", "--compare-fix", "--repeat", "5",
                            "--output-format", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["launch"] == {"block": [32, 8, 1], "grid": [32, 32, 1], "dynamic_smem": 0, "source": "launch-site"}
    assert {a["name"]: a["elements"] for a in doc["arguments"]} == {"in": 1024 * 1024, "out": 1024 * 1024}
    rows = {row["metric"]: row for row in doc["rows"]}
    assert rows["shared_ld_wavefronts_per_request"]["predicted"] == 32
    assert rows["shared_ld_wavefronts_per_request"]["agree"] is True
    assert doc["disagreements"] == 0
    cf = doc["compare_fix"]
    assert cf["fixes"][0]["code"] == "CL301" and "tile[32][33]" in cf["fixes"][0]["fix"]
    assert cf["speedup"] == pytest.approx(1.5)
    fixed_rows = {row["metric"]: row for row in cf["rows"]}
    assert fixed_rows["shared_ld_wavefronts_per_request"]["predicted"] == 1
    assert fixed_rows["static_smem_bytes"]["predicted"] == 4224
    # what the child got: device code only, the kernel looked up by name, the padded copy second
    assert len(jobs) == 2 and jobs[0]["name_expression"] == "tr"
    assert "int main" not in jobs[0]["code"] and "tile[32][32]" in jobs[0]["code"]
    assert "tile[32][33]" in jobs[1]["code"] and jobs[1]["args"] == jobs[0]["args"]
    assert jobs[0]["repeat"] == 5 and jobs[0]["grid"] == [32, 32, 1]


def test_command_disagreement_exits_1(monkeypatch, tmp_path):
    _mock_gpu(monkeypatch, shared_ld=1.0)
    f = _write(tmp_path, "t.cu", TRANSPOSE)
    r = runner.invoke(app, ["validate", str(f), "--kernel", "tr", "--ncu"])
    assert r.exit_code == 1
    assert "DIFF" in r.stdout and "1 disagreement" in r.stdout


def test_command_fault_is_reported_not_fatal(monkeypatch, tmp_path):
    _mock_gpu(monkeypatch, fault=True)
    f = _write(tmp_path, "t.cu", TRANSPOSE)
    r = runner.invoke(app, ["validate", str(f), "--kernel", "tr", "--ncu"])
    assert r.exit_code == 1
    assert "RUN FAULT: CUDARuntimeError: cudaErrorIllegalAddress" in r.stdout
    assert "ncu: not profiled: the kernel did not run" in r.stdout


def test_command_unknown_kernel_and_grid(monkeypatch, tmp_path):
    _mock_gpu(monkeypatch)
    f = _write(tmp_path, "t.cu", TRANSPOSE)
    r = runner.invoke(app, ["validate", str(f), "--kernel", "nope"])
    assert r.exit_code == 2 and "no kernel `nope`" in _stderr(r) and "tr" in _stderr(r)
    g = _write(tmp_path, "g.cu", "__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }\n")
    r = runner.invoke(app, ["validate", str(g), "--kernel", "k", "--block", "32"])
    assert r.exit_code == 2 and "pass --grid" in _stderr(r)


def test_register_disagreement_names_both_builds():
    rows = compare(_pred(registers=11), dict(RUN, attributes={"num_regs": 14, "local_size_bytes": 0,
                                                              "shared_size_bytes": 4096}), None)
    r = rows[0]
    assert r.key == "registers" and r.agree is False
    assert r.note == "nvcc's ptxas allocates 11 for the file's build; the NVRTC build that ran uses 14"


def test_run_job_timeout_names_the_stage(monkeypatch, tmp_path):
    monkeypatch.setattr(V, "RUNNER", _fake_runner(tmp_path, """\
        import sys, time
        print("CUDALINT_VALIDATE_STAGE compile", flush=True)
        print("CUDALINT_VALIDATE_STAGE launch", flush=True)
        time.sleep(60)
        """))
    res = V.run_job("job.json", "time", timeout=2.0)
    assert res["status"] == "timeout"
    assert "(stage: launch)" in res["error"]


def test_extraction_declares_uint_for_nvrtc():
    # SGEMM_CUDA's kernels count with `uint`, which nvcc's host headers declare (glibc
    # <sys/types.h>) and NVRTC does not: `validate` failed with 'identifier "uint" is undefined'
    # on the H100. The extracted source declares it when used and not defined by the file.
    src = ("#include <cuda_runtime.h>\n"
           "__global__ void k(float* a) {\n  for (uint i = 0; i < 4; ++i) a[threadIdx.x * 4 + i] = 0.0f;\n}\n")
    code = extract_device_source(src, "k", "/src/k.cu").code
    assert "typedef unsigned int uint;" in code
    assert code.index("typedef unsigned int uint;") < code.index("__global__")
    assert "ushort" not in code  # only what the kernel uses
    own = "typedef unsigned int uint;\n" + src
    assert extract_device_source(own, "k", "/src/k.cu").code.count("typedef unsigned int uint;") == 1
    plain = src.replace("uint i", "int i")
    assert "typedef unsigned int uint;" not in extract_device_source(plain, "k", "/src/k.cu").code
