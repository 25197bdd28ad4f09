"""The lane model (analyzer/lanes.py): warps, lanes, active lanes, per-warp addresses."""
from __future__ import annotations

import textwrap
from fractions import Fraction

import sympy as sp

from cudalint.analyzer import symbolic as S
from cudalint.analyzer.accesses import analyze_accesses
from cudalint.analyzer.lanes import AddressEvaluator, LaneModel, num, num_bool
from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file


# ------------------------------------------------------------------ lane -> thread


def test_1d_block_lanes():
    m = LaneModel((256, 1, 1))
    assert m.nwarps == 8
    lanes = m.lanes(3)
    assert len(lanes) == 32
    assert (lanes[0].tid, lanes[0].x) == (96, 96)   # t = 32*3 + 0
    assert (lanes[31].x, lanes[31].y) == (127, 0)


def test_2d_block_16x16_warp_is_two_rows():
    m = LaneModel((16, 16, 1))
    lanes = m.lanes(4)  # threads 128..159
    assert [(l.x, l.y) for l in lanes[:2]] == [(0, 8), (1, 8)]  # 128 = 8*16 + 0
    assert [(l.x, l.y) for l in lanes[15:17]] == [(15, 8), (0, 9)]
    assert {l.y for l in lanes} == {8, 9}


def test_3d_block_coordinates():
    m = LaneModel((8, 4, 2))
    # t = 37: x = 37 mod 8 = 5, y = (37 div 8) mod 4 = 4 mod 4 = 0, z = 37 div 32 = 1
    assert m.coords(37) == (5, 0, 1)
    lane = m.lanes(1)[5]
    assert (lane.tid, lane.x, lane.y, lane.z) == (37, 5, 0, 1)


def test_partial_last_warp_has_fewer_lanes():
    m = LaneModel((48, 1, 1))
    assert m.nwarps == 2
    assert len(m.lanes(0)) == 32 and len(m.lanes(1)) == 16   # threads 32..47
    assert m.representative_warps() == [0, 1]


def test_representative_warps():
    assert LaneModel((256, 1, 1)).representative_warps() == [0, 4]
    assert LaneModel((32, 1, 1)).representative_warps() == [0]
    # 100 threads: 4 warps, middle 2, last (3) holds 4 threads
    assert LaneModel((100, 1, 1)).representative_warps() == [0, 2, 3]


# ------------------------------------------------------------------ numeric evaluation


def test_num_evaluates_integer_functions():
    x, y = sp.symbols("x y", integer=True)
    assert num(sp.floor(x / 4) * 8 + sp.Mod(y, 3), {x: 13, y: 7}) == 3 * 8 + 1
    assert num(sp.Piecewise((x, x < 16), (31 - x, True)), {x: 20}) == 11
    assert num(S.BitXor(x, y), {x: 6, y: 3}) == 5
    assert num(x + y, {x: 1}) is None            # y has no value
    assert num_bool(sp.And(x < 4, y > 2), {x: 1, y: 3}) is True
    assert num_bool(sp.And(x < 4, y > 2), {x: 9}) is False   # decided by the first operand
    assert num_bool(sp.Or(x < 4, y > 2), {x: 9}) is None


# ------------------------------------------------------------------ address scenarios


def _scenarios(expr_fn, block=(256, 1, 1), path=(), grid=None, syms=None):
    syms = syms or S.Symbols()

    class L:
        pass
    L.block, L.grid, L.source, L.site, L.param_values = block, grid, "command-line", None, {}
    e = expr_fn(syms)
    b = S.make_bindings(syms, L, {})
    ev = AddressEvaluator(syms, LaneModel(block), b)
    return ev.evaluate(e, path), syms


def test_uniform_part_with_known_trip_count_is_averaged_exactly():
    # a[threadIdx.x + k] for k = 0..7: the warp shifts by 4k bytes -> residues 0,4,...,28, 1/8 each
    def fn(syms):
        k = syms.make(None, "k", S.ITER, trip=sp.Integer(8))
        return 4 * (syms.thread["x"] + k)
    was, _ = _scenarios(fn, block=(32, 1, 1))
    w = was[0]
    assert w.status == "ok"
    residues = sorted(addrs[0] for _, addrs in w.scenarios)
    assert residues == [0, 4, 8, 12, 16, 20, 24, 28]
    assert all(p == Fraction(1, 8) for p, _ in w.scenarios)


def test_uniform_part_multiple_of_256_is_a_single_scenario():
    # b[4096 * k + threadIdx.x]: 16384-byte steps keep the alignment
    def fn(syms):
        k = syms.make(None, "k", S.ITER)
        return 4 * (4096 * k + syms.thread["x"])
    was, _ = _scenarios(fn, block=(32, 1, 1))
    assert [a[0] for _, a in was[0].scenarios] == [0]


def test_block_index_with_unknown_grid_visits_every_word_offset():
    # a[blockIdx.x + threadIdx.x]: 4 * blockIdx.x mod 256 -> 64 residues, uniform
    def fn(syms):
        bx = syms.builtin("blockIdx", "x")
        return 4 * (bx + syms.thread["x"])
    was, _ = _scenarios(fn, block=(32, 1, 1))
    assert len(was[0].scenarios) == 64


def test_path_condition_deactivates_lanes():
    def fn(syms):
        return 4 * syms.thread["x"]
    syms = S.Symbols()
    tx = syms.thread["x"]
    was, _ = _scenarios(fn, block=(256, 1, 1), path=(sp.Lt(tx, 16),), syms=syms)
    w0 = next(w for w in was if w.warp == 0)
    assert len(w0.lanes) == 16
    w4 = next(w for w in was if w.warp == 4)
    assert w4.status == "inactive"


def test_lane_varying_load_is_data_dependent():
    def fn(syms):
        return 4 * S.MemLoad(sp.Symbol("idx"), syms.thread["x"])
    was, _ = _scenarios(fn)
    assert {w.status for w in was} == {"data-dependent"}


def test_uniform_load_keeps_lane_pattern():
    # a[p[0] + threadIdx.x]: the loaded value shifts the whole warp; lanes stay contiguous
    def fn(syms):
        return 4 * (S.MemLoad(sp.Symbol("p"), sp.Integer(0)) + syms.thread["x"])
    was, _ = _scenarios(fn, block=(32, 1, 1))
    assert was[0].status == "ok"
    assert [a for _, a in was[0].scenarios] == [[4 * l for l in range(32)]]
    assert any("assumed to keep the access aligned" in n for n in was[0].notes)


# ------------------------------------------------------------------ through the analysis


def _accesses(tmp_path, src, **opts):
    p = tmp_path / "k.cu"
    p.write_text(textwrap.dedent(src))
    fa = analyze_file(str(p), AnalysisOptions(**opts))
    return list(fa.kernels[0].accesses)


def test_worst_warp_is_reported(tmp_path):
    # Warp 0 reads a[t] (aligned: 4 sectors), warp 1 reads a[t + 1] (5 sectors): the interior
    # warp is worse and is the one reported.
    acc = _accesses(tmp_path, """
        __global__ void k(const float* a, float* b) {
            int t = threadIdx.x;
            b[t] = a[t + (t >= 32 ? 1 : 0)];
        }""", block=(64, 1, 1))
    a = next(x for x in acc if x.array == "a")
    assert a.sectors_per_request == 5
    assert a.cost.per_warp == {0: 4.0, 1: 5.0}


def test_partial_warp_inactive_lanes(tmp_path):
    # 40 threads: warp 1 has 8 lanes reading 32 contiguous bytes = 1 sector; warp 0 costs 4
    acc = _accesses(tmp_path, """
        __global__ void k(const float* a, float* b) { b[threadIdx.x] = a[threadIdx.x]; }""",
                    block=(40, 1, 1))
    a = next(x for x in acc if x.array == "a")
    assert a.cost.per_warp == {0: 4.0, 1: 1.0}
    assert a.sectors_per_request == 4


def test_sampled_when_thread_part_has_uniform_unknowns(tmp_path):
    # a[threadIdx.x * s] with s loop-carried (halving): the stride is not known -> sampled,
    # stated, and never 'exact'
    acc = _accesses(tmp_path, """
        __global__ void k(float* a) {
            for (int s = 64; s > 0; s >>= 1) a[threadIdx.x * s] = 0.0f;
        }""", block=(32, 1, 1))
    a = acc[0]
    assert not a.exact
    assert any("sampled" in n for n in a.assumptions)


def test_parameter_default_is_stated(tmp_path):
    acc = _accesses(tmp_path, """
        __global__ void k(const float* a, float* b, int n) { b[threadIdx.x] = a[threadIdx.x * n]; }""",
                    block=(32, 1, 1))
    a = next(x for x in acc if x.array == "a")
    assert "n assumed 1024 (no value known)" in a.assumptions
    assert a.sectors_per_request == 32 and not a.exact


def test_analyze_accesses_api(tmp_path):
    p = tmp_path / "k.cu"
    p.write_text("__global__ void k(float* a) { a[threadIdx.x * 2] = 0.0f; }\n")
    fa = analyze_file(str(p), AnalysisOptions(block=(64, 1, 1)))
    k = fa.kernels[0]
    tab = analyze_accesses(k.function, k.launch, k.variables, "sm_90", {})
    assert [a.sectors_per_request for a in tab] == [8]


def test_threads_active_is_thread_active_for_each_thread():
    # the batched form (one compiled loop per condition) answers what the per-thread one does:
    # False where a condition fails, None where one depends on an unknown, else True
    syms = S.Symbols()
    tx, ty = syms.thread["x"], syms.thread["y"]
    n = sp.Symbol("n", integer=True)  # no value: conditions on it are unknown
    block = (16, 4, 1)

    class L:
        pass
    L.block, L.grid, L.source, L.site, L.param_values = block, None, "command-line", None, {}
    ev = AddressEvaluator(syms, LaneModel(block), S.make_bindings(syms, L, {}))
    paths = [(sp.Lt(tx, 5),), (sp.Lt(tx, n), sp.Ge(ty, 2)), (sp.Eq(sp.Mod(tx + ty, 3), 0), sp.Lt(tx, n)), ()]
    tids = range(64)
    for path in paths:
        assert ev.threads_active(tids, path) == [ev.thread_active(t, path) for t in tids]
    got = ev.threads_active(tids, paths[1])
    # thread 40 is (x 8, y 2): y >= 2 holds, x < n unknown; thread 3 is (x 3, y 0): y < 2
    assert got[40] is None and got[3] is False
    assert ev.threads_active(tids, paths[0]).count(True) == 5 * 4  # x < 5 in each of 4 rows


def test_spread_is_the_convolution_with_the_multiples_of_g():
    # lanes._spread(a, g, M) == _convolve(a, {g*i % M: 1}, M): the same weight per residue
    import random

    from cudalint.analyzer.lanes import _convolve, _spread
    rng = random.Random(7)
    M = 256
    for g in (1, 2, 4, 32, 64, 128, 256):
        a = {rng.randrange(M): rng.randrange(1, 50) for _ in range(rng.randrange(1, 40))}
        assert _spread(a, g, M) == _convolve(a, {(g * i) % M: 1 for i in range(M // g)}, M)
    # by hand: {0: 1, 4: 2} spread over the multiples of 128 mod 256
    assert _spread({0: 1, 4: 2}, 128, 256) == {0: 1, 4: 2, 128: 1, 132: 2}


# A loop whose trip count depends on the thread: `for (k = threadIdx.z; k < 8; k += blockDim.z)`
# with an 8-deep block makes one iteration in every thread (llm.c matmul_backward_bias_kernel8's
# final reduction). Its counter is 0, not any value: by hand, the 8 lanes with threadIdx.x == 0
# of a warp (threadIdx.z fixed) write 2-byte elements 16 bytes apart, from byte
# 128*blockIdx.x + 2*threadIdx.z: 128 bytes, 4 sectors (12.5% used). Before, the counter's
# term (16 bytes per iteration) was spread over every residue: 4.5 sectors, 11.1%.
ONE_TRIP = """
__global__ void bias(unsigned short *dbias, const float *acc)
{
    for (int k = threadIdx.z; k < 8; k += blockDim.z) {
        if (threadIdx.x == 0)
            dbias[blockIdx.x * 64 + threadIdx.y * 8 + k] = (unsigned short)acc[k];
    }
}
void run(unsigned short *d, const float *a, int n)
{
    bias<<<n, dim3(4, 8, 8)>>>(d, a);
}
"""


def test_counter_of_a_loop_every_thread_runs_once_is_zero(tmp_path):
    from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file

    p = tmp_path / "one_trip.cu"
    p.write_text(ONE_TRIP)
    fa = analyze_file(str(p), AnalysisOptions(use_ptxas=False))
    k = fa.kernels[0]
    assert k.launch.block == (4, 8, 8)
    st = next(a for a in k.accesses if a.kind == "store" and a.space == "global")
    assert st.sectors_per_request == 4


def test_default_of_a_byte_or_flag_parameter_is_one_of_its_values(tmp_path):
    # mumax3 passes its periodic-boundary flags as `uint8_t PBC` and tests `PBC & 1`: the
    # stated default 1024 is no value of a byte (1024 & 1 == 0 picked the branch no such byte
    # flag can pick by accident). Its type's largest value is stated instead: 255 (an
    # unsigned byte), 1 (bool). By hand: 255 & 1 = 1, so a[threadIdx.x * 1] is 32 contiguous
    # floats, 4 sectors; flag = 1 makes c[2 * threadIdx.x] 2 floats apart: 256 bytes, 8
    # sectors. Before: 1024 & 1 = 0 (every lane reads a[0], 1 sector) and 2048 floats apart
    # (32 sectors).
    acc = _accesses(tmp_path, """
        __global__ void k(const float* a, const float* c, float* b, unsigned char wrap, bool flag) {
            b[threadIdx.x] = a[threadIdx.x * (wrap & 1)] + c[threadIdx.x * 2 * flag];
        }""", block=(32, 1, 1))
    a = next(x for x in acc if x.array == "a")
    c = next(x for x in acc if x.array == "c")
    assert "wrap assumed 255 (no value known; the largest value of its type unsigned char)" in a.assumptions
    assert a.sectors_per_request == 4
    assert "flag assumed 1 (no value known; the largest value of its type bool)" in c.assumptions
    assert c.sectors_per_request == 8
