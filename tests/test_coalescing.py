"""Global coalescing (analyzer/coalescing.py) and the CL201/CL202/CL203 rules.

Expected values come from the sector arithmetic written next to each case (32-byte sectors,
buffers 256-byte aligned), seed Tables 5.10/5.11 for compute capability 2.x, and the H200
measurements quoted in shared/groundtruth/README.md."""
from __future__ import annotations

import json
import textwrap

import pytest

from cudalint.analyzer.coalescing import sm1x_transactions, units_touched, warp_request_cost
from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file
from cudalint.reporters.explain import explain_json, render_explain_text
from cudalint.rules.runner import CheckOptions, check_file

WARP = range(32)


# ------------------------------------------------------------------ sectors (sm_50+)


def test_units_touched():
    assert units_touched([4 * l for l in WARP], 4, 32) == 4          # 128 B from 0
    assert units_touched([4 + 4 * l for l in WARP], 4, 32) == 5      # bytes 4..131
    assert units_touched([8 * l for l in WARP], 4, 32) == 8          # 256 B span
    assert units_touched([16 * l for l in WARP], 16, 32) == 16       # float4: 512 B
    assert units_touched([30], 4, 32) == 2                           # bytes 30..33 straddle


@pytest.mark.parametrize("addrs,E,sectors,eff,pattern,stride", [
    ([4 * l for l in WARP], 4, 4, 1.0, "coalesced", None),
    ([4 * (31 - l) for l in WARP], 4, 4, 1.0, "coalesced", None),         # permuted
    ([4 + 4 * l for l in WARP], 4, 5, 0.8, "misaligned", None),           # 128 / 160
    ([8 * l for l in WARP], 4, 8, 0.5, "strided", 2),                     # 128 / 256
    ([128 * l for l in WARP], 4, 32, 0.125, "strided", 32),               # 128 / 1024
    ([0] * 32, 4, 1, 0.125, "broadcast", None),                           # 4 / 32
    ([l for l in WARP], 1, 1, 1.0, "coalesced", None),                    # char: 32 B
    ([8 * l for l in WARP], 8, 8, 1.0, "coalesced", None),                # float2
    ([16 * l for l in WARP], 16, 16, 1.0, "coalesced", None),             # float4
])
def test_sector_model(addrs, E, sectors, eff, pattern, stride):
    c = warp_request_cost(addrs, E, (9, 0))
    assert c.sectors_per_request == sectors
    assert c.efficiency == pytest.approx(eff)
    assert c.pattern == pattern
    assert c.stride == stride


def test_half_warp_broadcast_rows_are_cheap_but_not_contiguous():
    # mm_naive's A[row*n + k] with a 16x16 block: lanes 0-15 one word, 16-31 another word
    # 4096 bytes away -> 2 sectors (H200 measured 2), 8 useful bytes of 64 fetched.
    c = warp_request_cost([0] * 16 + [4096] * 16, 4)
    assert c.sectors_per_request == 2 and c.efficiency == pytest.approx(8 / 64)
    assert c.contiguous_sectors == 4  # cheaper than a contiguous warp: not an uncoalesced access


# ------------------------------------------------------------------ seed Tables 5.10 / 5.11


def test_seed_table_5_10_cached_sm20():
    # Cached loads fetch 128-byte lines.
    aligned = warp_request_cost([4 * l for l in WARP], 4, (2, 0), "load")
    assert (aligned.sectors_per_request, aligned.efficiency) == (1, 1.0)        # 128/128
    permuted = warp_request_cost([4 * ((l * 7) % 32) for l in WARP], 4, (2, 0), "load")
    assert (permuted.sectors_per_request, permuted.efficiency) == (1, 1.0)
    mis = warp_request_cost([4 + 4 * l for l in WARP], 4, (2, 0), "load")
    assert (mis.sectors_per_request, mis.efficiency) == (2, 0.5)                # 128/256
    scattered = warp_request_cost([1024 * l for l in WARP], 4, (2, 0), "load")
    assert scattered.sectors_per_request == 32
    assert scattered.efficiency == pytest.approx(0.03125)                      # 128/(32*128)
    few = warp_request_cost([1024 * l for l in range(4)], 4, (2, 0), "load")
    assert few.efficiency == pytest.approx(1 / 32)   # N=4 words: 16 B needed of 4*128 fetched


def test_seed_table_5_11_uncached_sm20():
    kw = dict(cc=(2, 0), kind="load", cached=False)
    aligned = warp_request_cost([4 * l for l in WARP], 4, **kw)
    assert (aligned.sectors_per_request, aligned.efficiency) == (4, 1.0)        # 4 x 32-B segments
    mis = warp_request_cost([4 + 4 * l for l in WARP], 4, **kw)
    assert (mis.sectors_per_request, mis.efficiency) == (5, 0.8)                # 128/160
    scattered = warp_request_cost([1024 * l for l in WARP], 4, **kw)
    assert scattered.efficiency == pytest.approx(0.125)                        # 128/(32*32)
    # stores bypass L1 on sm_2x: 32-byte segments even without the hint
    st = warp_request_cost([4 + 4 * l for l in WARP], 4, (2, 0), "store")
    assert st.sectors_per_request == 5


def test_compute_1x_half_warp_segments():
    # cc 1.3: each half-warp of aligned floats is one 64-B transaction (128-B segment halved)
    n, fetched = sm1x_transactions(list(WARP), [4 * l for l in WARP], 4, (1, 3))
    assert (n, fetched) == (2, 128)
    # offset by one float: half 0 uses bytes 4..67 (one 128-B segment), half 1 bytes 68..131
    # (upper 64 B of segment 0 + 32 B of segment 1): 3 transactions, 224 bytes
    n, fetched = sm1x_transactions(list(WARP), [4 + 4 * l for l in WARP], 4, (1, 3))
    assert (n, fetched) == (3, 128 + 64 + 32)
    # cc 1.0: a misaligned half-warp is serialised, one transaction per lane
    n, _ = sm1x_transactions(list(WARP), [4 + 4 * l for l in WARP], 4, (1, 0))
    assert n == 32


def test_seed_tables_through_the_analysis_sm20(tmp_path):
    # --arch sm_20: plain loads are cached (128-B lines, Table 5.10); __ldcg (ld.global.cg)
    # bypasses L1 and is served in 32-B segments (Table 5.11); stores always use segments.
    _, fa = _check(tmp_path, """
        __global__ void k(const float* a, const float* b, const float* c, float* out) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            float x = a[i] + a[i + 1] + a[i * 64];
            float y = __ldcg(&b[i]) + __ldcg(&b[i + 1]) + __ldcg(&c[i * 64]);
            out[i + 1] = x + y;
        }""", arch="sm_20", block=(256, 1, 1))
    tab = list(fa.kernels[0].accesses)
    got = [(a.array, a.sectors_per_request, round(a.efficiency, 5)) for a in tab]
    assert got == [
        ("a", 1, 1.0), ("a", 2, 0.5), ("a", 32, 0.03125),        # Table 5.10: lines
        ("b", 4, 1.0), ("b", 5, 0.8), ("c", 32, 0.125),          # Table 5.11: 32-B segments
        ("out", 5, 0.8),                                          # store: segments
    ]


# ------------------------------------------------------------------ through the analysis


def _src(tmp_path, src, name="k.cu"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(src))
    return str(p)


def _check(tmp_path, src, copts=None, **opts):
    res, fa = check_file(_src(tmp_path, src), AnalysisOptions(**opts), copts or CheckOptions())
    return res.diagnostics, fa


def _acc(fa, array, kind="load", kernel=None):
    for k in fa.kernels:
        if kernel and k.function.name != kernel:
            continue
        for a in k.accesses:
            if a.array == array and a.kind == kind:
                return a
    raise KeyError(array)


NAIVE = """
__global__ void matmul(const float* A, const float* B, float* C, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float sum = 0.0f;
        for (int k = 0; k < n; ++k)
            sum += A[row * n + k] * B[k * n + col];
        C[row * n + col] = sum;
    }
}
"""


def test_seed_naive_matrix_product_two_loads_per_iteration(tmp_path):
    diags, fa = _check(tmp_path, NAIVE, block=(16, 16, 1), params={"n": 1024})
    tab = fa.kernels[0].accesses
    in_loop = [a for a in tab if a.kind == "load" and a.event.loops]
    assert sorted(a.array for a in in_loop) == ["A", "B"]          # two loads per iteration
    assert all(a.event.loops[-1].it.name == "k" for a in in_loop)
    A, B = _acc(fa, "A"), _acc(fa, "B")
    # A: 2 distinct words (rows ty, ty+1) -> 2 sectors; B: 16 floats shared by both rows -> 2
    assert (A.sectors_per_request, B.sectors_per_request) == (2, 2)
    assert (A.efficiency, B.efficiency) == (pytest.approx(0.125), 1.0)
    assert "n = 1024 from --param" in A.assumptions
    assert not [d for d in diags if d.code.startswith("CL2")]


def test_data_dependent_index_never_cl201(tmp_path):
    diags, fa = _check(tmp_path, """
        __global__ void scatter(const float* a, const int* perm, float* out, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            out[perm[i] * 32] = a[perm[i]];
        }""", block=(256, 1, 1))
    codes = sorted(d.code for d in diags)
    assert codes == ["CL203", "CL203"]
    assert all(d.severity == "info" for d in diags)
    assert _acc(fa, "out", "store").sectors_per_request is None


def test_coalesced_kernel_has_no_cl2xx(tmp_path):
    diags, _ = _check(tmp_path, """
        __global__ void saxpy(float a, const float* x, float* y, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) y[i] = a * x[i] + y[i];
        }""", block=(128, 1, 1))
    assert not [d for d in diags if d.code.startswith(("CL2", "CL3"))]


def test_cl201_message_and_severity_scale(tmp_path):
    src = """
        __global__ void k(const float* a, const float* b, float* out) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            out[i] = a[2 * i] + b[i * 32];
        }"""
    diags, _ = _check(tmp_path, src, block=(256, 1, 1))
    by_col = {d.location.column: d for d in diags if d.code == "CL201"}
    assert len(by_col) == 2
    msgs = sorted(by_col.values(), key=lambda d: d.location.column)
    assert "8 sectors per request" in msgs[0].message and "50% of the fetched bytes" in msgs[0].message
    assert "32 sectors per request" in msgs[1].message and "12.5%" in msgs[1].message
    assert all(d.severity == "warning" for d in msgs)
    # thresholds are options: with warning_efficiency 0.25 the stride-2 load is only info
    copts = CheckOptions(rule_options={"CL201": {"warning_efficiency": 0.25}})
    diags, _ = _check(tmp_path, src, copts, block=(256, 1, 1))
    sev = sorted((d.location.column, d.severity) for d in diags if d.code == "CL201")
    assert [s for _, s in sev] == ["info", "warning"]
    # and min_ratio 3 drops the stride-2 finding (8 / 4 = 2x) altogether
    copts = CheckOptions(rule_options={"CL201": {"min_ratio": 3}})
    diags, _ = _check(tmp_path, src, copts, block=(256, 1, 1))
    assert len([d for d in diags if d.code == "CL201"]) == 1


def test_assumed_parameter_makes_cl201_info(tmp_path):
    src = """
        __global__ void k(const float* a, float* out, int pitch) {
            out[threadIdx.x] = a[threadIdx.x * pitch];
        }"""
    diags, _ = _check(tmp_path, src, block=(64, 1, 1))
    d = [d for d in diags if d.code == "CL201"]
    assert len(d) == 1 and d[0].severity == "info" and "pitch assumed 1024" in d[0].message
    # with the value given the finding is confident...
    diags, _ = _check(tmp_path, src, block=(64, 1, 1), params={"pitch": 64})
    assert [x.severity for x in diags if x.code == "CL201"] == ["warning"]
    # ...and with pitch = 1 the access is coalesced
    diags, fa = _check(tmp_path, src, block=(64, 1, 1), params={"pitch": 1})
    assert not [x for x in diags if x.code == "CL201"]
    assert _acc(fa, "a").sectors_per_request == 4


def test_launch_site_argument_binds_parameter(tmp_path):
    diags, fa = _check(tmp_path, """
        __global__ void k(const float* a, float* out, int stride) {
            out[blockIdx.x * blockDim.x + threadIdx.x] = a[(blockIdx.x * blockDim.x + threadIdx.x) * stride];
        }
        void run(const float* a, float* out) {
            k<<<1024, 256>>>(a, out, 4);
        }""")
    a = _acc(fa, "a")
    assert a.sectors_per_request == 16   # 4 floats = 16 B apart: 32 lanes x 16 B = 512 B = 16 sectors
    assert any(n.startswith("stride = 4 from the launch site at line 6") for n in a.assumptions)


def test_host_loop_counter_argument_is_analysed_at_its_largest_value(tmp_path):
    # The blog's stride benchmark: a warm-up launch with s = 1, then s = 1..32 in a loop.
    # Before, the warm-up's s = 1 was taken (coalesced, no finding) though the program runs
    # s = 32; with only the loop the default 1024 was assumed. Hand count at s = 32 (float):
    # lanes 128 B apart -> each lane its own sector: 32 sectors, 128 / 1024 B = 12.5%.
    src = """
        __global__ void stride(float* a, int s) {
            int i = (blockDim.x * blockIdx.x + threadIdx.x) * s;
            a[i] = a[i] + 1;
        }
        void run(float* d_a, int n) {
            stride<<<n / 256, 256>>>(d_a, 1);
            for (int i = 1; i <= 32; i++)
                stride<<<n / 256, 256>>>(d_a, i);
        }"""
    diags, fa = _check(tmp_path, src)
    a = _acc(fa, "a")
    assert (a.sectors_per_request, a.efficiency) == (32, pytest.approx(0.125))
    note = ("s assumed 32, the largest of the values 1..32 that the launches at lines 7 and 9 "
            "pass (`i` of the loop at line 8)")
    assert note in a.assumptions
    # one value of several (s = 1 is coalesced): an info that says which, not a warning
    d = [x for x in diags if x.code == "CL201"]
    assert [x.severity for x in d] == ["info", "info"] and all(note in x.message for x in d)
    # a counter stepping by 4 below 30 ends at 28: 28 floats = 112 B apart, still 32 sectors;
    # a doubling counter 1, 2, 4, 8 ends at 8: 32 B apart -> 32 sectors as well
    for loop, values in (("int i = 0; i < 30; i += 4", "28, the largest of the values 0..28 in steps of 4"),
                         ("int i = 1; i < 16; i *= 2", "8, the largest of the values 1..8 times 2")):
        _, fa = _check(tmp_path, src.replace("int i = 1; i <= 32; i++", loop))
        assert any(n.startswith(f"s assumed {values} and ") or n.startswith(f"s assumed {values} that")
                   for n in _acc(fa, "a").assumptions), _acc(fa, "a").assumptions
    # a warm-up outside the loop's values is named: 1..31 and 64
    _, fa = _check(tmp_path, src.replace("(d_a, 1);", "(d_a, 64);").replace("i <= 32", "i < 32"))
    a = _acc(fa, "a")
    assert ("s assumed 64, the largest of the values 1..31 and 64 that the launches at lines 7 and 9 "
            "pass (`i` of the loop at line 8)") in a.assumptions
    assert a.sectors_per_request == 32
    # different constants at two launches without a loop: the first launch's value, as before
    _, fa = _check(tmp_path, src.replace("for (int i = 1; i <= 32; i++)", "").replace("(d_a, i)", "(d_a, 2)"))
    a = _acc(fa, "a")
    assert any(n.startswith("s = 1 from the launch site at line 7") for n in a.assumptions)
    assert a.sectors_per_request == 4
    # a counter written in the body has no known range: the stated default stays
    _, fa = _check(tmp_path, src.replace("stride<<<n / 256, 256>>>(d_a, i);",
                                         "{ stride<<<n / 256, 256>>>(d_a, i); i += n; }"))
    assert not any("the largest of the values 1..32" in n for n in _acc(fa, "a").assumptions)


def test_misaligned_constant_offset_vs_sliding_window(tmp_path):
    diags, fa = _check(tmp_path, """
        #define TAPS 8
        __global__ void k(const float* x, const float* y, float* out) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            float acc = y[i + 3];
            #pragma unroll
            for (int t = 0; t < TAPS; ++t) acc += x[i + t];
            out[i] = acc;
        }""", block=(128, 1, 1))
    # y[i + 3]: always 12 bytes off -> 5 sectors, CL202
    assert [d.location.line for d in diags if d.code == "CL202"] == [5]
    # x[i + t]: t = 0..7 shifts by 0..28 bytes: 4 sectors once, 5 seven times -> 4.875 on average
    x = _acc(fa, "x")
    assert x.sectors_per_request == pytest.approx(4.875)
    assert x.pattern == "misaligned"


def test_2d_block_too_narrow_is_strided(tmp_path):
    # block 4 x 64: a warp is 8 rows of 4 floats (16 B each) -> 8 sectors instead of 4
    diags, fa = _check(tmp_path, """
        __global__ void k(const float* img, float* out) {
            int x = blockIdx.x * blockDim.x + threadIdx.x;
            int y = blockIdx.y * blockDim.y + threadIdx.y;
            out[y * 4096 + x] = img[y * 4096 + x];
        }""", block=(4, 64, 1))
    assert _acc(fa, "img").sectors_per_request == 8
    assert {d.code for d in diags if d.code.startswith("CL2")} == {"CL201"}


def test_local_memory_interleaving(tmp_path):
    # float arr[64] indexed per lane: local memory keeps word w of lane l at (32 w + l) * 4,
    # so a constant index is 4 sectors and a per-lane index 32 (H200: 32 measured).
    _, fa = _check(tmp_path, """
        __global__ void k(const float* in, float* out) {
            float arr[64];
            #pragma unroll
            for (int j = 0; j < 64; ++j) arr[j] = in[j];
            out[threadIdx.x] = arr[(threadIdx.x * 5) & 63];   // expect: CL101
        }""", block=(256, 1, 1))
    st = _acc(fa, "arr", "store")
    ld = _acc(fa, "arr", "load")
    assert (st.space, st.sectors_per_request) == ("local", 4)
    assert (ld.space, ld.sectors_per_request) == ("local", 32)


def test_explain_json_and_text(tmp_path):
    path = _src(tmp_path, NAIVE)
    fa = analyze_file(path, AnalysisOptions(block=(16, 16, 1)))
    doc = json.loads(json.dumps(explain_json([fa], "sm_90")))
    acc = doc["files"][0]["kernels"][0]["accesses"]
    assert [a["array"] for a in acc] == ["A", "B", "C"]
    keys = {"line", "column", "array", "space", "kind", "element_bytes", "index", "pattern",
            "sectors_per_request", "efficiency", "wavefronts_per_request", "assumptions"}
    assert all(keys <= set(a) for a in acc)
    a = acc[0]
    assert (a["line"], a["space"], a["kind"], a["element_bytes"]) == (8, "global", "load", 4)
    assert a["sectors_per_request"] == 2 and a["efficiency"] == 0.125
    assert "n assumed 1024 (no value known)" in a["assumptions"]
    text = render_explain_text([fa], "sm_90")
    assert "accesses:" in text and "sect/req" in text
    assert "k + n*threadIdx.y" in text or "n*threadIdx.y" in text   # brackets survive rich
    assert "A " in text and "strided (1024)" in text


def test_warp_cost_weights_are_exact_fractions():
    # scenario weights summed over their common denominator give the exact expectations:
    # a third of the time 4 sectors, two thirds 1 sector -> 2 sectors per request
    from fractions import Fraction

    from cudalint.analyzer.coalescing import global_cost
    from cudalint.analyzer.lanes import Lane, WarpAddresses
    lanes = [Lane(i, i, i, 0, 0) for i in range(32)]
    w = WarpAddresses(0, "ok", lanes, [(Fraction(1, 3), [4 * i for i in range(32)]),
                                       (Fraction(2, 3), [0] * 32)])
    c = global_cost([w], 4, (9, 0), "load")
    assert c.sectors_per_request == 2.0
    # needed bytes: (1/3 * 128 + 2/3 * 4) / (1/3 * 128 + 2/3 * 32) = (136/3) / (192/3)
    assert c.efficiency == float(Fraction(136, 192))


SPLIT = """
#include <cuda_fp16.h>
#define HALF2(value) (reinterpret_cast<half2 *>(&(value))[0])
__global__ void add_f16x8(half *a, half *c, int N) {
    int idx = 8 * (blockIdx.x * blockDim.x + threadIdx.x);
    half2 r0 = HALF2(a[idx + 0]);
    half2 r1 = HALF2(a[idx + 2]);
    half2 r2 = HALF2(a[idx + 4]);
    half2 r3 = HALF2(a[idx + 6]);
    if ((idx + 0) < N) { HALF2(c[idx + 0]) = r0; }
    if ((idx + 2) < N) { HALF2(c[idx + 2]) = r1; }
    if ((idx + 4) < N) { HALF2(c[idx + 4]) = r2; }
    if ((idx + 6) < N) { HALF2(c[idx + 6]) = r3; }
}
__global__ void gap(const float *a, float *out) {
    int t = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    out[t / 4] = a[t] + a[t + 1] + a[t + 3];
}
__global__ void rgb(const float *p, float *out) {
    int t = 3 * (blockIdx.x * blockDim.x + threadIdx.x);
    out[t / 3] = p[t] + p[t + 1] + p[t + 2];
}
__global__ void tile_rows(half *a, half *out) {
    int tid = threadIdx.x;
    int addr = (tid / 2) * 1024 + ((tid % 2 == 0) ? 0 : 4);
    half2 r0 = HALF2(a[addr + 0]);
    half2 r1 = HALF2(a[addr + 2]);
    HALF2(out[tid * 4]) = r0;
    HALF2(out[tid * 4 + 2]) = r1;
}
"""


def test_one_piece_per_thread_split_into_accesses_is_not_uncoalesced(tmp_path):
    """LeetCUDA's f16x8 kernels: a thread's 16 contiguous bytes read as four half2 accesses.
    Lane l reads bytes [16l + 4j, 16l + 4j + 4) in access j: each request spans 32 x 16 B =
    512 B = 16 sectors and uses 32 x 4 B = 128 B (25%), but the four requests together use all
    512 B. Not an uncoalesced access: one info finding per group, at its lowest address, saying
    that one 16-byte access would need 1 request instead of 4."""
    diags, fa = _check(tmp_path, SPLIT, block=(256, 1, 1))
    a0 = _acc(fa, "a", kernel="add_f16x8")
    assert (a0.sectors_per_request, a0.efficiency, a0.stride) == (16, 0.25, 4)
    f = sorted((d.location.line, d.severity) for d in diags
               if d.code == "CL201" and d.kernel == "add_f16x8")
    assert f == [(6, "info"), (10, "info")]  # the loads (lines 6-9), the stores (10-13)
    m = {d.location.line: d.message for d in diags if d.code == "CL201"}
    assert m[6].startswith("global load `HALF2(a[idx + 0])` and 3 more (lines 6-9): each thread "
                           "reads 16 contiguous bytes as 4 separate 4-byte accesses, so each warp "
                           "request touches 16 sectors and uses 25% of them")
    assert "1 16-byte vector access per thread" in m[6] and "1 request instead of 4" in m[6]
    # Each store has its own bounds guard (idx + 2j < N): the same guard shifted, still a group.
    assert "global store `HALF2(c[idx + 0])` and 3 more (lines 10-13)" in m[10]
    # a[t + 2] is never read: a[t], a[t + 1], a[t + 3] each waste 3/4 of their sectors
    # (32 lanes x 16 B = 16 sectors for 128 useful bytes): uncoalesced, warnings as before.
    g = [d for d in diags if d.code == "CL201" and d.kernel == "gap"]
    assert len(g) == 3 and all(d.severity == "warning" and "16 sectors per request" in d.message
                               for d in g)
    # 12 bytes per thread (lanes 12 B apart: 384 B = 12 sectors, 128 B used, 33.3%): a group,
    # but no vector type reads 12 bytes at once, so no vector is suggested.
    (r,) = [d for d in diags if d.code == "CL201" and d.kernel == "rgb"]
    assert r.severity == "info" and "reads 12 contiguous bytes as 3 separate 4-byte accesses" in \
        r.message and "touches 12 sectors and uses 33.3%" in r.message
    assert r.message.endswith("but each request moves 3 times the sectors it uses through L1")
    # LeetCUDA's hgemm tile load (s_a rows of 8 halves): lanes 2m and 2m+1 read the first and the
    # second 8 bytes of row m's 16, rows 2048 B apart. Each lane's +2 piece fills its own gap,
    # but each row uses 16 of its sector's 32 bytes: 16 sectors, 256 of 512 B used together.
    # Not a whole piece: both loads keep their warning; the stores to `out` are one.
    t = sorted((d.location.line, d.severity, d.message[:40]) for d in diags
               if d.code == "CL201" and d.kernel == "tile_rows")
    assert [(ln, sev) for ln, sev, _ in t] == [(26, "warning"), (27, "warning"), (28, "info")]


# A column kernel launched once per column from a host loop (PolyBench gramschmidt_kernel2):
# `k` is not known statically. Lanes are 2048 floats (8 KB) apart, so each lane has a sector of
# its own whatever k is (k only moves the whole warp): 32 sectors, 4 of 32 bytes used. r[k][k]
# is one word for the warp: 1 sector for any k. Neither figure rests on a value of k.
HOST_LOOP_COLUMN = """
    __global__ void column_scale(const float* a, const float* r, float* q, int k) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        q[i * 2048 + k] = a[i * 2048 + k] / r[k * 2048 + k];
    }
    __global__ void row_shift(const float* a, float* q, int k) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        q[i] = a[i + k];
    }
    void run(const float* a, const float* r, float* q) {
        for (int k = 0; k < 2048; k++) {
            column_scale<<<8, 256>>>(a, r, q, k);
            row_shift<<<8, 256>>>(a, q, k);
        }
    }"""


def test_default_that_only_moves_the_warp_is_not_an_assumption(tmp_path):
    diags, fa = _check(tmp_path, HOST_LOOP_COLUMN)
    for arr, kind in (("a", "load"), ("q", "store")):
        acc = _acc(fa, arr, kind, kernel="column_scale")
        assert (acc.sectors_per_request, acc.efficiency, acc.pattern) == (32, 0.125, "strided")
        assert not any("assumed" in n for n in acc.assumptions), acc.assumptions
    r = _acc(fa, "r", kernel="column_scale")
    assert (r.sectors_per_request, r.pattern) == (1, "broadcast")
    assert not any("assumed" in n for n in r.assumptions)
    d = sorted((x.location.column, x.severity) for x in diags
               if x.code == "CL201" and x.kernel == "column_scale")
    # both are confident warnings (they were info, "k assumed 1024 (no value known)")
    assert d == [(5, "warning"), (23, "warning")], d
    assert not any("k assumed" in x.message for x in diags if x.kernel == "column_scale")
    # a[i + k]: aligned (4 sectors) when k is a multiple of 8 floats, else 5: here the figure
    # does rest on an assumed value, and says so. k is the host loop's counter, 0..2047: the
    # largest, 2047, is assumed (it was the default 1024, aligned: 4 sectors, true of 256 of
    # the 2048 launches); at 2047 the warp's bytes 8188..8315 span 5 sectors
    acc = _acc(fa, "a", kernel="row_shift")
    assert acc.sectors_per_request == 5
    assert ("k assumed 2047, the largest of the values 0..2047 that the launch at line 13 passes "
            "(`k` of the loop at line 11)") in acc.assumptions


def test_load_served_from_a_register_is_not_called_uncoalesced(tmp_path):
    # PolyBench CORR's symmat[j1*M + j2] += ...: the load of the accumulator is forwarded from
    # the store before the loop (nvcc keeps it in a register; the H100 measured no load on the
    # line), the store is issued every iteration. Lanes 32 floats apart: 32 sectors a store.
    diags, fa = _check(tmp_path, """
        __global__ void acc(float* s, float* a) {
            int i = threadIdx.x;
            s[i * 32] = 0.0f;
            for (int j = 0; j < 64; j++)
                s[i * 32] += a[j];
        }
        void run(float* s, float* a) { acc<<<1, 32>>>(s, a); }""")
    ld = _acc(fa, "s", "load")
    assert ld.issued is False and ld.sectors_per_request == 32
    msgs = [(d.location.line, d.message) for d in diags if d.code == "CL201"]
    assert [line for line, _ in msgs] == [4, 6], msgs
    assert all(m.startswith("uncoalesced global store `s[i * 32]`") for _, m in msgs), msgs


LOOP_PIECES = """
#define SEGM 4
__global__ void chunk(int *out, const int *in)
{
    int idx = threadIdx.x * SEGM;
    int v[SEGM];
    for (int i = 0; i < SEGM; i++) v[i] = in[idx + i];
    for (int i = 0; i < SEGM; i++) out[idx + i] = v[SEGM - 1 - i];
}

__global__ void half_chunk(int *out, const int *in)
{
    int idx = threadIdx.x * SEGM;
    for (int i = 0; i < 2; i++) out[idx + i] = in[idx + i];
}

__global__ void row_per_thread(int *out, const int *in)
{
    int row = threadIdx.x * 32;
    for (int c = 0; c < 32; c++) out[row + c] = 2 * in[row + c];
}
"""


def test_one_piece_per_thread_read_by_a_counted_loop_is_not_uncoalesced(tmp_path):
    """The textbook's shuffle example (test_shfl_xor_array): each thread reads its 4 ints with a
    loop, in[4t + i] for i = 0..3. Each iteration's request spans 32 x 16 B = 512 B = 16
    sectors and uses 128 B (25%), but the 4 iterations together use every byte of them, as
    the same reads written as 4 statements do: an info, one per loop, not an uncoalesced
    warning. A loop covering only half of each thread's 16 bytes (i < 2) leaves half of every
    sector unused: still uncoalesced (16 sectors, 25% per request); so is a thread walking a
    row longer than one vector access."""
    diags, fa = _check(tmp_path, LOOP_PIECES, block=(32, 1, 1))
    a = _acc(fa, "in", kernel="chunk")
    assert (a.sectors_per_request, a.efficiency, a.stride) == (16, 0.25, 4)
    f = sorted((d.location.line, d.severity) for d in diags if d.code == "CL201" and d.kernel == "chunk")
    assert f == [(7, "info"), (8, "info")]
    m = {d.location.line: d.message for d in diags if d.code == "CL201" and d.kernel == "chunk"}
    assert m[7].startswith("global load `in[idx + i]` in the loop at line 7: each thread reads 16 "
                           "contiguous bytes as 4 separate 4-byte accesses, one per iteration, so "
                           "each warp request touches 16 sectors and uses 25% of them; together "
                           "the 4 requests use every byte of those sectors")
    assert "global store `out[idx + i]` in the loop at line 8: each thread writes 16" in m[8]
    h = [d for d in diags if d.code == "CL201" and d.kernel == "half_chunk"]
    assert len(h) == 2 and all(d.severity == "warning" and d.message.startswith("uncoalesced")
                               for d in h)
    # A thread walking its own 128-byte row: each iteration's request touches 32 sectors for
    # 128 useful bytes (12.5%), and a warp's 4 KB of rows would have to stay in L1 for 8
    # iterations for the loop to use them whole: no vector access reads 128 bytes, still
    # uncoalesced.
    r = [d for d in diags if d.code == "CL201" and d.kernel == "row_per_thread"]
    assert len(r) == 2 and all(d.message.startswith("uncoalesced") and "32 sectors per request" in
                               d.message for d in r)


def test_block_narrower_than_a_warp_names_its_rows(tmp_path):
    """The textbook's checkThreadIndex: a 4 x 2 block over an 8-wide int matrix. Its one warp
    has 8 lanes: (tx, ty) reads A[8 ty + tx], two rows of 4 contiguous ints (bytes 0-15 and
    32-47): 2 sectors for 32 bytes, 50%. Adjacent lanes are adjacent elements, so the message
    names the rows (4 elements, starts 8 apart), not 'neighbouring lanes 1 element apart'."""
    diags, fa = _check(tmp_path, """
        __global__ void show(const int* A, int* out, const int nx) {
            int ix = threadIdx.x + blockIdx.x * blockDim.x;
            int iy = threadIdx.y + blockIdx.y * blockDim.y;
            out[iy * 8 + ix] = A[iy * 8 + ix] + 1;
        }""", block=(4, 2, 1))
    a = _acc(fa, "A")
    assert (a.sectors_per_request, a.efficiency, a.stride) == (2, 0.5, 1)
    (d,) = [d for d in diags if d.code == "CL201" and "`A[" in d.message]
    assert "`A[iy * 8 + ix]`: the warp's lanes read rows of 4 contiguous elements whose starts " \
        "are 8 elements apart; 2 sectors per request where contiguous elements would need 1, 50%" \
        in d.message
    # the store out[iy * 8 + ix] writes the same rows: it says so (it said 'read')
    (d,) = [d for d in diags if d.code == "CL201" and "`out[" in d.message]
    assert "store `out[iy * 8 + ix]`: the warp's lanes write rows of 4 contiguous elements" in d.message


def test_a_thread_s_own_variable_read_through_its_address(tmp_path):
    """XSBench: `uint64_t seed = ...; mat = pick_mat(&seed);` where pick_mat updates and reads
    `*seed`: the variable is each thread's own (a register), not one memory word that every lane
    reads, so an index computed from it is not a broadcast. Here bump(&s) makes s = 3 * tid + 1:
    table[3 * tid + 1] spans bytes 4..379, 12 sectors; from a constant s = 5 every lane reads
    table[16], one sector. (It was a 1-sector broadcast either way.)"""
    src = """
    __device__ int bump(int *s) { *s = *s * 3 + 1; return *s; }
    __global__ void k(const float *table, const float *table2, float *out) {
        int s = threadIdx.x;
        int m = bump(&s);
        int c = 5;
        int u = bump(&c);
        out[threadIdx.x] = table[m] + table2[u] + s;
    }
    int main() { float *t, *t2, *o; k<<<1, 32>>>(t, t2, o); return 0; }
    """
    _, fa = _check(tmp_path, src, use_ptxas=False)
    per_thread = _acc(fa, "table")
    assert per_thread.sectors_per_request == 12
    uniform = _acc(fa, "table2")
    assert uniform.sectors_per_request == 1


def test_a_pointer_passed_into_its_allocation_at_the_launch(tmp_path):
    """OLCF hw2's stencil_1d<<<...>>>(d_in + RADIUS, d_out + RADIUS) with RADIUS 3: every access
    through `in` starts 12 bytes into a 256-byte aligned allocation. A warp of 32 floats then
    spans bytes 12..139: 5 sectors, not 4 (the H200 measured 3 for that kernel's 16-thread
    blocks, bytes 12..75); `&d[8]` starts on a sector boundary (32 bytes): 4."""
    src = """
    #define RADIUS 3
    __global__ void k(const float *in, float *out) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        out[i] = in[i];
    }
    int main() {
        float *d_in, *d_out;
        cudaMalloc(&d_in, 1 << 20); cudaMalloc(&d_out, 1 << 20);
        k<<<64, 32>>>(d_in + RADIUS, &d_out[8]);
        return 0;
    }
    """
    diags, fa = _check(tmp_path, src, use_ptxas=False)
    assert _acc(fa, "in").sectors_per_request == 5
    assert _acc(fa, "out", "store").sectors_per_request == 4
    (d,) = [d for d in diags if d.code == "CL202"]
    assert d.location.line == 5 and "`in` points 12 bytes past `d_in` at the launch" in d.message


def test_a_clamped_neighbour_in_a_kernel_that_never_reads_griddim(tmp_path):
    """mumax3's exchange stencil reads the right neighbour min(ix + 1, Nx - 1) (hclampx) on a grid
    of exactly Nx / 32 blocks. Blocks 0..6: elements 32b+1..32b+32, 5 sectors; block 7: lane 31
    clamps onto lane 30's element, 225..255, 4 sectors: (7 * 5 + 4) / 8 = 4.875 (the H200: 4.86).
    The kernel never reads gridDim, so the block index was sampled over arbitrary values, half of
    them past the grid where every lane clamps (1 sector): 4.0 predicted."""
    src = """
    __global__ void k(const float* mx, float* out, int Nx) {
        int ix = blockIdx.x * blockDim.x + threadIdx.x;
        if (ix >= Nx) return;
        out[ix] = mx[min(ix + 1, Nx - 1)];
    }
    int main() { float *a, *b; k<<<8, 32>>>(a, b, 256); return 0; }
    """
    _, fa = _check(tmp_path, src, use_ptxas=False)
    assert _acc(fa, "mx").sectors_per_request == pytest.approx(4.875)


def test_an_access_only_the_last_warp_makes(tmp_path):
    """SHOC stencil2d copies the right halo column with the block's last thread (`lidCol ==
    lszCol - 1`): no lane of the representative warps (0 and the middle one) executes it, so it
    had no figure; the H200 measured 1 sector per request. The warps that do execute it are
    evaluated instead: one lane, one 4-byte word: 1 sector."""
    src = """
    __global__ void k(const float* in, float* out) {
        int t = threadIdx.x;
        if (t == blockDim.x - 1) out[blockIdx.x] = in[blockIdx.x * blockDim.x + t + 1];
    }
    int main() { float *a, *b; k<<<64, 256>>>(a, b); return 0; }
    """
    _, fa = _check(tmp_path, src, use_ptxas=False)
    assert _acc(fa, "in").sectors_per_request == 1
    assert _acc(fa, "out", "store").sectors_per_request == 1
def test_access_in_a_macro_argument_is_quoted_as_written(tmp_path):
    # mumax3's exchange reads `aLUT2d[symidx(r0, regions[i_])]`: clang gives the inner access
    # the macro invocation's empty range, so its message quoted the symbolic index
    # (`regions[256*blockIdx.x + threadIdx.x + 1]`, with mumax3's wrap/clamp choices a
    # Piecewise of Mod and Max); it is `regions[j]` in the source. Its cost by hand: 32 bytes
    # one byte past a sector boundary, 2 sectors where 1 would do (CL202).
    diags, _ = _check(tmp_path, """
        #define PICK(a, b) ((a) < (b) ? (b) : (a))
        __global__ void k(float* out, const float* lut, const unsigned char* regions) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            int j = i + 1;
            out[i] = lut[PICK(3, regions[j])];
        }""", block=(256, 1, 1))
    cl202 = [d for d in diags if d.code == "CL202"]
    assert len(cl202) == 1
    assert cl202[0].message.startswith("misaligned global load `regions[j]`: 2 sectors per request instead of 1")
