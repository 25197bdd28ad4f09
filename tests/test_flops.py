"""Counting floating-point operations and global accesses (analyzer/flops.py), through the real
frontend: each test writes a small kernel, analyses it and checks the per-thread counts."""
from __future__ import annotations

import sympy as sp
import pytest

from cudalint.analyzer import flops
from cudalint.analyzer.flops import FLOP_TABLE, count_function, to_number
from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file


def kernels(tmp_path, src: str, name: str = "k.cu", **opts):
    p = tmp_path / name
    p.write_text(src)
    fa = analyze_file(str(p), AnalysisOptions(**opts))
    assert fa.error is None, fa.error
    return {k.name: k for k in fa.kernels}


def counts(tmp_path, body: str, params: str = "const float* a, const float* b, float* out, int n",
           prelude: str = "", **opts):
    src = f"{prelude}\n__global__ void k({params})\n{{\n{body}\n}}\n"
    k = kernels(tmp_path, src, **opts)["k"]
    return count_function(k.function, k.launch, opts.get("params"))


def num(x):
    v = to_number(x)
    assert v is not None, f"{x} is symbolic"
    return v


# ----------------------------------------------------------------------------- flops

@pytest.mark.parametrize("expr, want", [
    ("a[i] + b[i]", 1),
    ("a[i] * b[i] + 1.0f", 2),              # a multiply-add written out: 2
    ("fmaf(a[i], b[i], 1.0f)", 2),          # the same as a call: 2
    ("__fmaf_rn(a[i], b[i], 1.0f)", 2),
    ("a[i] / b[i] - 3.0f", 2),
    ("-a[i]", 0),                           # a sign flip is free
    ("sqrtf(a[i]) * 2.0f", 2),              # table: sqrtf 1
    ("__expf(a[i])", 1),
    ("fabsf(a[i]) + fmaxf(a[i], b[i])", 1),  # fabsf/fmaxf: 0
    ("(float)(i * 3 + n / 2)", 0),          # integer index arithmetic never counts
    ("a[i] < b[i] ? a[i] : b[i]", 0),       # comparisons are not flops
    ("a[i] > 0.0f ? a[i] * b[i] + 1.0f : a[i]", 2),  # ?: counts the heavier side
])
def test_expression_flops(tmp_path, expr, want):
    c = counts(tmp_path, f"int i = threadIdx.x;\nout[i] = {expr};")
    assert num(c.total.flops) == want


def test_compound_assignment_and_increment(tmp_path):
    c = counts(tmp_path, """
    int i = threadIdx.x;
    float x = a[i];
    x += b[i];          // 1
    x *= b[i] * 2.0f;   // 1 + 1
    x++;                // 1
    int j = 0;
    j += 4; j++;        // integers: 0
    out[i] = x;""")
    assert num(c.total.flops) == 4


def test_double_precision_bucket(tmp_path):
    c = counts(tmp_path, "int i = threadIdx.x;\nout[i] = (double)a[i] * 2.0 + 1.0f * b[i];")
    assert num(c.total.flops) == 3
    assert num(c.total.flops_fp64) == 2


def test_vector_lanes_and_member_access(tmp_path):
    c = counts(tmp_path, """
    int i = threadIdx.x;
    float4 v = in[i];          // one 16-byte load
    v.x += 1.0f; v.y *= 3.0f; v.z -= 2.0f; v.w *= 0.5f;
    out[i] = v;                // one 16-byte store
    float y = half2x[i].y;     // 4 bytes read through a float2
    """, params="const float4* in, float4* out, const float2* half2x")
    t = c.total
    assert (num(t.flops), num(t.loads), num(t.stores)) == (4, 2, 1)
    assert num(t.load_bytes) == 16 + 4 and num(t.store_bytes) == 16


def test_device_function_flops_and_accesses_are_inlined(tmp_path):
    c = counts(tmp_path, "int i = threadIdx.x;\nout[i] = dot3(a + 3 * i) * 0.5f;",
               prelude="__device__ float dot3(const float* p) { return p[0] * p[0] + p[1] * p[1] + p[2]; }")
    t = c.total
    assert num(t.flops) == 5  # 2 mul + 2 add in dot3, 1 mul at the call
    assert num(t.loads) == 5 and num(t.stores) == 1


def test_flop_table_is_documented():
    doc = flops.__doc__
    for name in ("fmaf", "__fmaf_rn", "sqrtf", "__expf", "sincosf", "fabsf", "fmaxf", "rsqrtf"):
        assert name in FLOP_TABLE
        assert name.rstrip("f") in doc or name in doc
    assert FLOP_TABLE["fmaf"] == FLOP_TABLE["fma"] == 2
    assert FLOP_TABLE["sincosf"] == 2 and FLOP_TABLE["__hfma2"] == 4
    assert FLOP_TABLE["fabsf"] == FLOP_TABLE["fminf"] == 0


# ----------------------------------------------------------------------------- global accesses

def test_read_modify_write_is_one_load_and_one_store(tmp_path):
    c = counts(tmp_path, "int i = threadIdx.x;\nout[i] += a[i];\nout[i + 1]++;")
    t = c.total
    assert (num(t.loads), num(t.stores), num(t.flops)) == (3, 2, 2)


def test_what_is_not_a_global_access(tmp_path):
    c = counts(tmp_path, """
    __shared__ float tile[256];
    float local[4];
    int i = threadIdx.x;
    tile[i] = 1.0f;                 // shared
    local[i & 3] = tile[255 - i];   // local + shared
    const float* p = &a[i];         // address only
    float* s = tile;                // a pointer to shared memory
    s[i] = coeff[i & 15];           // shared store, constant load
    out[i] = local[0];              // the one global access
    """, prelude="__constant__ float coeff[16];")
    t = c.total
    assert (num(t.loads), num(t.stores), num(t.atomics)) == (0, 1, 0)


def test_pointers_derived_from_parameters_and_device_variables(tmp_path):
    c = counts(tmp_path, """
    int i = threadIdx.x;
    const float* src = a + blockIdx.x * 512;   // still global memory
    float v = src[i] + *(src + 256) + bias;     // 3 loads (bias is a __device__ variable)
    v += __ldg(&b[i]);                          // 1 load
    atomicAdd(&counter, 1);                     // 1 atomic
    table[i & 63] = v;                          // 1 store to a __device__ array
    """, prelude="__device__ float bias;\n__device__ int counter;\n__device__ float table[64];")
    t = c.total
    assert (num(t.loads), num(t.stores), num(t.atomics)) == (4, 1, 1)
    assert num(t.accesses) == 6
    kinds = sorted((a.array, a.kind) for a in c.accesses)
    # accesses are named as written: through the local pointer `src`
    assert kinds == [("b", "load"), ("bias", "load"), ("counter", "atomic"), ("src", "load"),
                     ("src", "load"), ("table", "store")]


# ----------------------------------------------------------------------------- trip counts

def test_constant_trip_counts_and_nesting(tmp_path):
    c = counts(tmp_path, """
    float s = 0.0f;
    for (int i = 0; i < 10; ++i)          // 10
        for (int j = 8; j >= 0; j -= 2)   // 5: 8 6 4 2 0
            s += a[i * 9 + j];
    for (int m = threadIdx.x; m < 10240; m += 256)   // 40 for thread 0
        s += 1.0f;
    out[threadIdx.x] = s;""")
    t = c.total
    assert num(t.loads) == 50
    assert num(t.flops) == 50 + 40
    trips = [(lc.line, lc.trip) for lc in c.loops]
    assert [tr for _, tr in trips] == [10, 5, 40]
    assert any("thread 0" in a for a in c.assumptions)


def test_symbolic_trip_counts_named_after_the_bound(tmp_path):
    c = counts(tmp_path, """
    float s = 0.0f;
    for (int t = 0; t < n / 16; ++t)
        for (int k = 0; k < 16; ++k)
            s += a[t * 16 + k] * b[k];
    out[threadIdx.x] = s;""")
    n = sp.Symbol("n", positive=True)
    assert sp.simplify(c.total.flops - 2 * n) == 0
    assert sp.simplify(c.total.loads - 2 * n) == 0
    assert str(c.loops[0].trip) == "n/16"
    assert c.symbols == {"n": "kernel parameter n"}


def test_triangular_loops_are_summed_not_multiplied(tmp_path):
    # sum over n = 0..M-1 of (N - n - 1) iterations = M*N - M*(M+1)/2; each does 2 loads and
    # 2 flops. (Multiplying the trips instead left the outer variable `n` in the counts and
    # made HeCBench's libor CGMA negative.) The second nest counts down: j = N-1 .. 0, and
    # the inner loop runs N - j times: N*(N+1)/2 flops in all.
    c = counts(tmp_path, """
    float s = 0.0f;
    for (int n = 0; n < M; n++)
        for (int i = n + 1; i < N; i++)
            s += a[i] * b[n];
    for (int j = N - 1; j >= 0; j--)
        for (int q = j; q < N; q++)
            s += 1.0f;
    out[threadIdx.x] = s;""", params="const float* a, const float* b, float* out, int M, int N")
    M, N = sp.Symbol("M", positive=True), sp.Symbol("N", positive=True)
    assert {str(x) for x in sp.sympify(c.total.flops).free_symbols} == {"M", "N"}
    tri = M * N - M * (M + 1) / 2
    assert sp.simplify(c.total.loads - 2 * tri) == 0
    assert sp.simplify(c.total.flops - (2 * tri + N * (N + 1) / 2)) == 0
    # with numbers: M = 4, N = 10 -> 9 + 8 + 7 + 6 = 30 inner iterations; 55 in the second nest
    t = c.total.subs({M: 4, N: 10})
    assert (num(t.loads), num(t.flops)) == (60, 60 + 55)


def test_unknown_loops_get_a_trip_symbol(tmp_path):
    c = counts(tmp_path, """
    float x = a[threadIdx.x];
    while (x > 1.0f)
        x *= 0.5f;
    out[threadIdx.x] = x;""")
    (lc,) = c.loops
    assert lc.trip_source == "unknown"
    assert str(c.total.flops) == f"trips(line {lc.line})"  # named for the user, no internal symbol


def test_parameter_values_bind_the_symbols(tmp_path):
    src = """
__global__ void k(const float* a, float* out, int n, int reps)
{
    float s = 0.0f;
    for (int r = 0; r < reps; ++r)
        for (int j = 0; j < n; j += 4)
            s += a[j];
    out[threadIdx.x] = s;
}
int main() { float* p; k<<<1, 32>>>(p, p, 1000, 7); return 0; }
"""
    k = kernels(tmp_path, src)["k"]
    c = count_function(k.function, k.launch)  # launch-site values: n = 1000, reps = 7
    assert num(c.resolved.flops) == 7 * 250
    assert c.value_sources["n"].startswith("launch site line")
    c = count_function(k.function, k.launch, {"reps": 2})  # --param wins
    assert num(c.resolved.loads) == 2 * 250
    assert c.value_sources["reps"] == "--param"
    # unresolved, the counts stay expressions in the parameters
    assert str(c.total.loads) == "n*reps/4"


def test_if_else_counts_the_heavier_branch(tmp_path):
    c = counts(tmp_path, """
    int i = threadIdx.x;
    if (i < n) out[i] = a[i] * b[i] + a[i] * 2.0f;   // no else: counted as taken
    if (i & 1) out[i] = a[i];
    else out[i] = a[i] * b[i];""")
    t = c.total
    assert num(t.flops) == 3 + 1
    assert num(t.loads) == 3 + 2
    assert any("if/else" in a for a in c.assumptions)
