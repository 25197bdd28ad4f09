"""Global-memory races (analyzer/global_races.py, rules CL606/CL607)."""
from __future__ import annotations

import textwrap

from cudalint.analyzer.global_races import global_blocks, who
from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file


def sync_of(tmp_path, src: str, **opts):
    p = tmp_path / "k.cu"
    p.write_text(textwrap.dedent(src))
    fa = analyze_file(str(p), AnalysisOptions(use_ptxas=False, **opts))
    assert fa.error is None, fa.error
    ks = fa.kernels[0].sync
    if ks.sim.glog is None:
        return ks, None
    return ks, sorted(ks.sim.glog.races.values(), key=lambda r: (r.inter, r.b.range.line))


def test_blocks_simulated_side_by_side():
    # 0, 1 and the last along each dimension the kernel reads; the diagonal neighbour for 2-D
    assert global_blocks((8, 1, 1), {"x"}) == ([(0, 0, 0), (1, 0, 0), (7, 0, 0)], "")
    assert global_blocks((4, 3, 1), {"x", "y"})[0] == [(0, 0, 0), (1, 0, 0), (3, 0, 0), (0, 1, 0),
                                                       (0, 2, 0), (1, 1, 0)]
    # no blockIdx read and no grid: one block, and it says so
    blocks, note = global_blocks(None, set())
    assert blocks == [(0, 0, 0)] and "assumed one block" in note


def test_off_by_one_block_stride_witness(tmp_path):
    ks, races = sync_of(tmp_path, """
    __global__ void k(const float* in, float* out)
    {
        int i = blockIdx.x * (blockDim.x - 1) + threadIdx.x;
        out[i] = in[blockIdx.x * blockDim.x + threadIdx.x];
    }
    int main() { float *a, *b; k<<<8, 256>>>(a, b); return 0; }
    """)
    assert len(races) == 1
    r = races[0]
    # block b covers 255*b .. 255*b+255: block 0's last thread and block 1's first meet at 255
    assert r.inter and r.certain and r.element == "out[255]"
    assert {who(ks.sim.ts, r.thread_a), who(ks.sim.ts, r.thread_b)} == \
        {"block 0, thread 255", "block 1, thread 0"}


def test_atomic_index_unique_or_shared(tmp_path):
    src = """
    __global__ void k(const float* in, float* out, unsigned int* c)
    {
        unsigned int slot = atomicAdd(c, ADDEND);
        out[slot] = in[blockIdx.x * blockDim.x + threadIdx.x];
    }
    int main() { float *a, *b; unsigned int* c; k<<<4, 128>>>(a, b, c); return 0; }
    """
    _, races = sync_of(tmp_path, src.replace("ADDEND", "1u"))
    assert races == []
    _, races = sync_of(tmp_path, src.replace("ADDEND", "0u"))
    # every thread reads the counter unchanged: all store to one (unknown) element
    assert [(r.inter, r.byte_off, r.certain) for r in races] == [(False, None, False), (True, None, False)]


#: A race only for x = 185 (15 + x == 200): found by probing the parameter's slope.
PARAM_RACE = """
    __global__ void k(float* A, int x)
    {
        if (threadIdx.x == 15)
            A[threadIdx.x + x] = threadIdx.x;
        if (threadIdx.x == 200)
            A[threadIdx.x] = threadIdx.x;
    }
"""


def test_parameter_value_that_makes_the_race(tmp_path):
    _, races = sync_of(tmp_path, PARAM_RACE, block=(512, 1, 1), grid=(1, 1, 1))
    # 15 + x == 200 only for x = 185
    assert [(r.assumed, r.element) for r in races] == [("x = 185", "A[200]")]


def test_grid_barrier_orders_blocks_and_explain_says_so(tmp_path):
    src = """
    #include <cooperative_groups.h>
    namespace cg = cooperative_groups;
    __global__ void k(const float* in, float* part, float* total)
    {
        if (threadIdx.x == 0)
            part[blockIdx.x] = in[blockIdx.x * blockDim.x];
        SYNC;
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            float s = 0.0f;
            for (int b = 0; b < gridDim.x; ++b)
                s += part[b];
            *total = s;
        }
    }
    """
    ks, races = sync_of(tmp_path, src.replace("SYNC", "cg::this_grid().sync()"), block=(64, 1, 1), grid=(16, 1, 1))
    assert races == []
    g = ks.to_json()["global"]
    assert g["grid_barriers"] == 1 and g["complete"] and g["arrays"] == ["part", "total"]
    assert g["blocks"] == [[0, 0, 0], [1, 0, 0], [15, 0, 0]] and g["grid"] == [16, 1, 1]
    ks, races = sync_of(tmp_path, src.replace("SYNC", "__syncthreads()"), block=(64, 1, 1), grid=(16, 1, 1))
    assert [(r.inter, r.element, r.a_write, r.b_write) for r in races] == [(True, "part[1]", True, False)]


_EXPLAIN_SRC = """
__device__ int hits;

__global__ void shifted(const float* in, float* out, float* tmp)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tmp[i] = in[i];
    out[i + 512] = tmp[i];
}

__global__ void no_block_index(float* out)
{
    out[threadIdx.x] = 1.0f;
    hits = 0;
}

int main()
{
    float *a, *b, *c;
    shifted<<<8, 256>>>(a, b, c);
    shifted<<<8, 256>>>(a, b, c);
    no_block_index<<<8, 256>>>(a);
    return 0;
}
"""


def _explain(tmp_path, *args):
    import json
    from typer.testing import CliRunner
    from cudalint.cli import app
    p = tmp_path / "k.cu"
    p.write_text(_EXPLAIN_SRC)
    r = CliRunner().invoke(app, ["explain", str(p), *args], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output if "json" not in args else {k["name"]: k for k in json.loads(r.output)["files"][0]["kernels"]}


def test_explain_lists_arrays_blocks_and_budget(tmp_path):
    # `in` is a pointer to const: never written, not tracked; tmp and out are written
    ks = _explain(tmp_path, "--output-format", "json")
    g = ks["shifted"]["sync"]["global"]
    assert g["arrays"] == ["out", "tmp"] and g["written"] == ["out", "tmp"]
    assert g["blocks"] == [[0, 0, 0], [1, 0, 0], [7, 0, 0]] and g["grid"] == [8, 1, 1]
    assert g["grid_blocks"] == 8 and g["coverage"] == "sample" and g["complete"] is True
    # the kernel never reads blockIdx: blocks 0 and 1 stand for every pair of the 8
    g2 = ks["no_block_index"]["sync"]["global"]
    assert g2["arrays"] == ["hits", "out"] and g2["blocks"] == [[0, 0, 0], [1, 0, 0]]
    assert g2["coverage"] == "alike" and g2["complete"] is True
    text = _explain(tmp_path)
    assert ("global memory: 2 array(s) checked (out, tmp) across 3 block(s) (0,0,0), (1,0,0), "
            "(7,0,0) of grid 8x1x1; finished within its budget") in text
    assert "blocks: a sample of 3 blocks of 8" in text
    assert "blocks: the kernel never reads blockIdx" in text


def test_explain_says_when_the_budget_stopped_the_check(tmp_path, monkeypatch):
    from cudalint.analyzer import global_races
    # 3 blocks x 256 threads x 3 global accesses = 2304 thread-accesses; stop after 1000
    monkeypatch.setattr(global_races, "MAX_ENTRIES", 1000)
    ks = _explain(tmp_path, "--output-format", "json", "--kernel", "shifted")
    g = ks["shifted"]["sync"]["global"]
    assert g["complete"] is False and "more than 1000 global-memory thread-accesses" in g["incomplete_reason"]
    text = _explain(tmp_path, "--kernel", "shifted")
    assert "the check stopped early (more than 1000 global-memory thread-accesses), so more may exist" in text


def test_no_global_check_without_cl606_cl607_and_the_same_shared_races(tmp_path):
    from cudalint.analyzer.pipeline import needed_facts
    src = """
    __global__ void k(float* out)
    {
        __shared__ float s[256];
        s[threadIdx.x] = out[blockIdx.x * 256 + threadIdx.x];
        out[0] = s[(threadIdx.x + 1) % 256];
    }
    int main() { float* a; k<<<8, 256>>>(a); return 0; }
    """
    ks_all, g_all = sync_of(tmp_path, src)
    ks_602, _ = sync_of(tmp_path, src, facts=needed_facts(["CL602", "CL603"]))
    assert ks_602.sim.glog is None
    # out[0]: written by all (within a block and across), read by thread 0 of block 0
    assert sorted((r.inter, r.element, r.a_write, r.b_write) for r in g_all) == [
        (False, "out[0]", False, True), (False, "out[0]", True, True),
        (True, "out[0]", False, True), (True, "out[0]", True, True)]
    # CL602/CL603 see the same run (the same blocks) with or without the global check
    assert ks_602.sim.ts.blocks == ks_all.sim.ts.blocks == [(0, 0, 0), (1, 0, 0), (7, 0, 0)]
    key = lambda ks: sorted((r.a.range.line, r.b.range.line, r.a_write, r.b_write) for r in ks.races)
    assert key(ks_602) == key(ks_all) == [(5, 6, True, False)]


def test_blocks_farther_apart_whose_addresses_meet_are_run(tmp_path):
    # block b writes a[256b + 512 + t] and reads a[256b + t]: block 0's stores meet block 2's
    # loads, a pair the sample (blocks 0, 1, 15) does not hold; a second run adds block 2
    ks, races = sync_of(tmp_path, """
    __global__ void k(float* a)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        a[i + 512] = 2.0f * a[i];
    }
    int main() { float* a; k<<<16, 256>>>(a); return 0; }
    """)
    assert [(r.inter, r.element) for r in races] == [(True, "a[512]")]
    r = races[0]
    assert {who(r.ts, r.thread_a), who(r.ts, r.thread_b)} == {"block 0, thread 0", "block 2, thread 0"}
    g = ks.to_json()["global"]
    assert g["blocks"][:4] == [[0, 0, 0], [1, 0, 0], [15, 0, 0], [2, 0, 0]] and g["coverage"] == "sample"
    assert "added, where the addresses of blocks that many apart meet" in g["coverage_note"]


def test_a_statement_pair_met_again_is_not_paired_again(tmp_path, monkeypatch):
    # Every iteration stores to one element per block, at an index the run does not know
    # (`base` is loaded): each iteration's store races with itself, the same possible race of
    # the same statement. Pairing each of the 8 iterations' entries (blocks 0, 1 and 3 side by
    # side, 3 x 128 x 128 entry pairs each) would only find it again: one piece of the first
    # one gives the witness, the other iterations cannot turn it into a certain race.
    from cudalint.analyzer import global_races
    seen = {"pairs": 0}
    same_stores = global_races.same_stores

    def counting(rw, ro, wi, oi):
        seen["pairs"] += len(wi)
        return same_stores(rw, ro, wi, oi)

    monkeypatch.setattr(global_races, "same_stores", counting)
    ks, races = sync_of(tmp_path, """
    __global__ void k(float* out, const int* idx)
    {
        int base = idx[blockIdx.x];
        for (int i = 0; i < 8; ++i)
            out[base + i] = threadIdx.x;
    }
    int main() { float* a; int* b; k<<<4, 128>>>(a, b); return 0; }
    """)
    assert ks.sim.glog.complete
    assert [(r.inter, r.certain, r.byte_off) for r in races] == [(False, False, None)]
    r = races[0]
    assert r.a is r.b and {who(ks.sim.ts, r.thread_a), who(ks.sim.ts, r.thread_b)} == \
        {"block 3, thread 0", "block 3, thread 32"}
    assert seen["pairs"] <= 4096  # was 8 x 3 x 128 x 128 = 393216


def test_parameter_slope_runs_do_not_look_for_races(tmp_path, monkeypatch):
    # The runs at x = 0 and x = 1 only measure how the indices move with x; only the run
    # without x and the one at x = 185 pair their accesses.
    from cudalint.analyzer import global_races
    paired = set()
    check = global_races.GlobalLog._check

    def counting(self, *args, **kwargs):
        paired.add(id(self))
        return check(self, *args, **kwargs)

    monkeypatch.setattr(global_races.GlobalLog, "_check", counting)
    _, races = sync_of(tmp_path, PARAM_RACE, block=(512, 1, 1), grid=(1, 1, 1))
    assert [(r.assumed, r.element) for r in races] == [("x = 185", "A[200]")]
    assert len(paired) == 2  # was 4


#: A data-dependent early return, then warp 0 alone stores (llm.c's wte_backward_kernel): the
#: threads of the other warps may or may not have left at the first return, but if they had
#: not, they certainly leave at the second.
LEAVE_THEN_SELECT = """
    __global__ void k(float* dst, const int* info)
    {
        int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
        int size = info[blockIdx.x];
        if (warp >= size) return;
        float a = info[blockIdx.x * blockDim.x + threadIdx.x];
        if (COND) return;
        dst[blockIdx.x * 32 + lane] = a;
    }
    int main() { float* d; int* i; k<<<4, 256>>>(d, i); return 0; }
"""


def test_a_thread_that_may_have_left_and_else_leaves_is_gone(tmp_path):
    ks, races = sync_of(tmp_path, LEAVE_THEN_SELECT.replace("COND", "warp != 0"))
    assert races == []  # only warp 0's 32 lanes store, each its own element of its block's row
    # the second return depends on loaded data too: threads 0 and 32 may both store dst[0]
    ks, races = sync_of(tmp_path, LEAVE_THEN_SELECT.replace("COND", "warp != 0 && a > 0.0f"))
    assert [(r.inter, r.certain, r.element) for r in races] == [(False, False, "dst[0]")]
    assert {who(ks.sim.ts, r.thread_a) for r in races} | {who(ks.sim.ts, r.thread_b) for r in races} >= \
        {"block 0, thread 0"}


#: LULESH's integrateStress (HeCBench lulesh): after `if (k >= numElem) return;` (numElem not
#: known), each thread zeroes a row of its own `Real_t B[3][8]` in a loop, then adds to it
#: through two device functions.
LOCAL_ROW = """
    __device__ void addto(float* a, float v) { *a += v; }
    __device__ void rows(float pf[8], const float* x) {
        for (int i = 0; i < 8; ++i) pf[i] = 0.0f;
        addto(&pf[0], x[0]);
    }
    __global__ void k(const float* x, float* out, int n) {
        int t = blockIdx.x * blockDim.x + threadIdx.x;
        if (t >= n) return;
        float B[3][8];
        rows(B[0], x + 8 * t);
        out[t] = B[0][0];
    }
    int main(int argc, char** argv) { float *x, *o; k<<<4, 256>>>(x, o, argc); return 0; }
"""


def test_registers_stored_after_a_possible_early_return_keep_their_values(tmp_path):
    # A thread that may have returned, and otherwise certainly runs the loop, either stores
    # `i` or never reads it again: the loop's counter stays known, the loop is not cut short,
    # and pf still points at the thread's own B (it was forgotten, and became a global array
    # `pf` written by every thread: 12 false CL606 warnings on lulesh).
    ks, races = sync_of(tmp_path, LOCAL_ROW)
    assert races == []
    assert ks.sim.glog.arrays == ["out"]  # no global `pf`


def test_other_access_in_another_file_is_named_by_file(tmp_path):
    # Rodinia myocyte's shape: block 0 runs a device function of an included file that writes
    # out[0..1]; block 1 writes out[k] for k = 0, 1 in the .cu. The other access is in part.cuh.
    from cudalint.rules.runner import CheckOptions, check_file
    (tmp_path / "part.cuh").write_text(textwrap.dedent("""\
        __constant__ float table[4];
        __device__ void first(float* out)
        {
            out[0] = 1.0f;
            out[1] = 2.0f;
        }
        """))
    p = tmp_path / "k.cu"
    p.write_text(textwrap.dedent("""\
        #include "part.cuh"
        __global__ void k(float* out)
        {
            if (threadIdx.x == 0) {
                if (blockIdx.x == 0)
                    first(out);
                else
                    for (int j = 0; j < 2; j++)
                        out[j] = 3.0f;
                table[1] = 0.0f;
            }
        }
        int main() { float* o; k<<<2, 32>>>(o); return 0; }
        """))
    res, _ = check_file(str(p), AnalysisOptions(use_ptxas=False), CheckOptions(select=["CL605", "CL607"]))
    got = {(d.code, d.location.line): d.message for d in res.diagnostics}
    assert set(got) == {("CL607", 9), ("CL605", 10)}
    assert "writes it at part.cuh:4 (`out[0]`)" in got[("CL607", 9)]
    assert "also conflicts with 1 other access (part.cuh:5)" in got[("CL607", 9)]
    assert "(declared at part.cuh:1)" in got[("CL605", 10)]


def test_select_on_an_unknown_but_equal_condition_stores_equal_values(tmp_path):
    # HeCBench graphB+ ccHopCount: the 32 lanes of a warp share v, so they load the same label
    # and store `(l == h) ? 0 : 7` into count[l]: the condition is not known, but equal for the
    # lanes (one provenance token), so the stored values are equal -- a benign race, as
    # `count[l] = l + 1` already was. A selection on a per-thread condition still races.
    src = """
    __device__ unsigned long long hi;
    __global__ void k(const int* label, int* count)
    {
        const int v = (threadIdx.x + blockIdx.x * 256) / 32;
        const int h = hi & 0xffffffff;
        const int l = label[v];
        if (l == v)
            count[l] = COND ? 0 : 7;
    }
    int main() { int *a, *b; k<<<8, 256>>>(a, b); return 0; }
    """
    _, races = sync_of(tmp_path, src.replace("COND", "(l == h)"))
    assert races == []
    _, races = sync_of(tmp_path, src.replace("COND", "(threadIdx.x & 1)"))
    assert len(races) == 1 and not races[0].inter and races[0].b.range.line == 9


def test_array_parameter_keeps_its_target_after_a_truncated_loop(tmp_path):
    # HeCBench rsmt buildMST: each warp passes its own row of a __shared__ array as
    # `int dist[64]`; an inner loop of unknown trip count writes dist[j]. The interpreter stops
    # such a loop after a few trips and forgets what the loop assigned -- it forgot the
    # parameter itself, so the next outer iteration's dist[j] became a *global* array `dist`
    # shared by all warps: a CL606 warning between warps 0 and 1, which never touch the same
    # row. Writing dist[j] does not move `dist`; assigning the pointer still does.
    src = """
    __device__ void relax(int n, const int* x, int dist[64])
    {
        const int lane = threadIdx.x % 32;
        for (int cnt = 0; cnt < 3; cnt++) {
            __syncwarp();
            for (int j = lane; j < n; j += 32) {
                int d = dist[j];
                if (d > x[j]) dist[j] = x[j];
            }
            MOVE
        }
    }
    __device__ void mid(int n, const int* x, int* out)
    {
        __shared__ int dist[4][64];
        relax(n, x, dist[threadIdx.x / 32]);
        __syncwarp();
        out[threadIdx.x] = dist[threadIdx.x / 32][threadIdx.x % 32];
    }
    __global__ void k(int n, const int* x, int* out)
    {
        mid(n, x, out + blockIdx.x * 128);
    }
    int main(int argc, char** argv) { int *x, *o; k<<<8, 128>>>(argc, x, o); return 0; }
    """
    ks, races = sync_of(tmp_path, src.replace("MOVE", ""))
    assert races in (None, []) and not any(r.var.name == "dist" for r in ks.races)
    # the loop moves the pointer itself: after the truncated loop it is not known any more
    from cudalint.analyzer.simt import _loop_rebinds
    from cudalint.analyzer import ir
    p = tmp_path / "k.cu"
    fa = analyze_file(str(p), AnalysisOptions(use_ptxas=False))
    relax = next(f for f in fa.tu.functions if f.name == "relax")
    outer = next(s for s in relax.body.walk() if isinstance(s, ir.Loop))
    assert {v.name for v in _loop_rebinds(outer)} == {"cnt", "j", "d"}
    p.write_text(textwrap.dedent(src.replace("MOVE", "dist = dist + 1;")))
    fa = analyze_file(str(p), AnalysisOptions(use_ptxas=False))
    relax = next(f for f in fa.tu.functions if f.name == "relax")
    outer = next(s for s in relax.body.walk() if isinstance(s, ir.Loop))
    assert "dist" in {v.name for v in _loop_rebinds(outer)}


def _cl606(tmp_path, src):
    from cudalint.rules.runner import CheckOptions, check_file

    p = tmp_path / "k.cu"
    p.write_text(textwrap.dedent(src))
    res, _ = check_file(str(p), AnalysisOptions(use_ptxas=False), CheckOptions(select=["CL606"]))
    return [d.message for d in res.diagnostics if d.code == "CL606"]


def test_race_says_which_thread_dimension_the_index_ignores(tmp_path):
    # PolyBench ATAX: 32x8 blocks over a 1-D grid, i from threadIdx.x only. Threads (0,0) and
    # (0,1) write tmp[0]; so do the other 6 threads with threadIdx.x = 0, whatever barrier
    # were put between the statements.
    msgs = _cl606(tmp_path, """
    __global__ void atax1(const float* A, const float* x, float* tmp, int ny)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        tmp[i] = 0;
        for (int j = 0; j < ny; j++)
            tmp[i] += A[i * 4096 + j] * x[j];
    }
    int main() { float *a, *x, *t; atax1<<<128, dim3(32, 8)>>>(a, x, t, 4096); return 0; }
    """)
    assert len(msgs) == 1, msgs
    assert ("the index does not depend on threadIdx.y: the 8 threads along y (blockDim.y = 8) "
            "with the same threadIdx.x all access that element") in msgs[0]
    # out[threadIdx.y]: the 32 threads of a row write one element
    msgs = _cl606(tmp_path, """
    __global__ void rows(float* out) { out[threadIdx.y] = threadIdx.x; }
    int main() { float *o; rows<<<1, dim3(32, 4)>>>(o); return 0; }
    """)
    assert len(msgs) == 1 and "does not depend on threadIdx.x: the 32 threads along x (blockDim.x = 32) " \
        "with the same threadIdx.y" in msgs[0], msgs
    # a[i + 1] += ...: threads i and i + 1 meet, but each index uses threadIdx.x: no such note
    msgs = _cl606(tmp_path, """
    __global__ void shift(float* a) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        a[i] = 2.0f * a[i];
        a[i + 1] += 1.0f;
    }
    int main() { float *a; shift<<<4, 256>>>(a); return 0; }
    """)
    assert msgs and not any("does not depend" in m for m in msgs), msgs
    # one element for a whole 1-D block (a flag): the plain message
    msgs = _cl606(tmp_path, """
    __global__ void flag(int* f) { *f = 1 + threadIdx.x; }
    int main() { int *f; flag<<<1, 256>>>(f); return 0; }
    """)
    assert msgs and not any("does not depend" in m for m in msgs), msgs


def test_the_owner_of_the_last_chunk_writes_alone(tmp_path):
    """A grid-stride loop over chunks where the block holding the last one writes a total
    (HeCBench mpc's `if (chunk == chunksm1) compressed[0] = ...`): chunk takes 0, 264, ... in
    block 0 and 1, 265, ... in block 1, so whatever n is, one (block, iteration) at most has
    chunk == chunksm1. Not a race; the near misses stay races."""
    src = """
    int n_at_run_time();
    __global__ void k(int n, long* c, const int* lim)
    {
        int chunksm1 = (n + 1023) / 1024 - 1;
        for (int chunk = blockIdx.x; chunk <= chunksm1; chunk += gridDim.x) {
            if (threadIdx.x == 1023) {
                if (COND) c[0] = chunk;
            }
        }
    }
    int main() { long* c; int* l; k<<<264, 1024>>>(n_at_run_time(), c, l); return 0; }
    """
    _, races = sync_of(tmp_path, src.replace("COND", "chunk == chunksm1"))
    assert races == []
    # blocks 0 and 1 both test 0 (chunk / 2): when chunksm1 is 0 both write
    _, races = sync_of(tmp_path, src.replace("COND", "chunk / 2 == chunksm1"))
    assert [r.element for r in races] == ["c[0]"] and races[0].inter
    # a bound read per block is not one value in the whole grid
    _, races = sync_of(tmp_path, src.replace("COND", "chunk == lim[blockIdx.x]"))
    assert [r.element for r in races] == ["c[0]"]


def test_volatile_accesses_do_not_race(tmp_path):
    """The chained scan's hand-off (HeCBench mpc): block b spins on goffset[b] until its
    predecessor publishes, then publishes goffset[b + 1]; through a volatile pointer these are
    relaxed system-scope accesses in the PTX memory model, which do not form data races. The
    same code through a plain pointer races (block 0 writes goffset[1], block 1 reads it)."""
    src = """
    __global__ void k(QUAL int* goffset, int* out)
    {
        int bid = blockIdx.x;
        int bid1 = (bid + 1 == (int)gridDim.x) ? 0 : bid + 1;
        if (threadIdx.x == 0) {
            int st = 0;
            if (bid > 0) {
                do { st = goffset[bid]; } while (st < 0);
            }
            goffset[bid1] = st + 1;
            out[bid] = st;
        }
    }
    int main() { int *g, *o; k<<<8, 32>>>(g, o); return 0; }
    """
    _, races = sync_of(tmp_path, src.replace("QUAL", "volatile"))
    assert races == []
    _, races = sync_of(tmp_path, src.replace("QUAL", ""))
    assert races and all(r.var.name == "goffset" and r.inter for r in races)
