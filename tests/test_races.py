"""Shared-memory races found by running every thread of a block (analyzer/races.py)."""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from cudalint.analyzer import ir
from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file
from cudalint.analyzer.races import ThreadSet, find_races, sample_blocks, Simt
from cudalint.analyzer.uniformity import Uniformity, _uniform_fn


def races_of(tmp_path, src: str, block=(256, 1, 1), name=None, params=None):
    p = tmp_path / "k.cu"
    p.write_text(textwrap.dedent(src))
    fa = analyze_file(str(p), AnalysisOptions())
    assert fa.error is None, fa.error
    k = fa.tu.kernels[0] if name is None else fa.tu.function(name)
    u = Uniformity(k)
    sim = find_races(k, block, None, params or {}, _uniform_fn(u))
    return sim, sorted(sim.races.values(), key=lambda r: (r.b.range.line, r.a.range.line))


def test_neighbour_read_witness(tmp_path):
    sim, races = races_of(tmp_path, """
    __global__ void k(float* d)
    {
        __shared__ float s[257];
        int t = threadIdx.x;
        s[t] = d[t];
        d[t] = s[t + 1];
    }
    """)
    assert sim.complete
    assert len(races) == 1
    r = races[0]
    assert r.var.name == "s" and r.back_edge is None and r.certain
    assert (r.a.range.line, r.a_write, r.b.range.line, r.b_write) == (6, True, 7, False)
    # thread t+1 writes s[t+1], thread t reads it; the first such pair across warps is 31/32
    w = r.witness
    assert w.thread_a == w.thread_b + 1
    assert r.element == f"s[{w.thread_a}]"
    assert r.cross_warp and not r.warp_confined
    assert w.thread_a // 32 != w.thread_b // 32   # the witness prefers threads of two warps


def test_write_barrier_read_and_own_slot_are_clean(tmp_path):
    sim, races = races_of(tmp_path, """
    __global__ void k(float* d)
    {
        __shared__ float s[256];
        __shared__ float acc[256];
        int t = threadIdx.x;
        s[t] = d[t];
        acc[t] = 0.0f;
        for (int j = 0; j < 4; ++j)
            acc[t] += d[j * 256 + t];
        __syncthreads();
        d[t] = s[255 - t] + acc[t];
    }
    """)
    assert races == [] and sim.complete
    assert sim.epoch == 1


def test_tiled_product_missing_second_barrier_is_a_back_edge_race(tmp_path):
    src = """
    #define T 16
    __global__ void mm(const float* M, const float* N, float* P, int w)
    {
        __shared__ float Ms[T][T];
        __shared__ float Ns[T][T];
        int tx = threadIdx.x, ty = threadIdx.y;
        float v = 0.0f;
        for (int ph = 0; ph < w / T; ++ph) {
            Ms[ty][tx] = M[ty * w + ph * T + tx];
            Ns[ty][tx] = N[(ph * T + ty) * w + tx];
            __syncthreads();
            for (int k = 0; k < T; ++k)
                v += Ms[ty][k] * Ns[k][tx];
            SECOND
        }
        P[ty * w + tx] = v;
    }
    """
    sim, races = races_of(tmp_path, src.replace("SECOND", ""), block=(16, 16, 1), params={"w": 64})
    assert len(races) == 2
    loop = next(s for s in sim.kernel.statements() if isinstance(s, ir.Loop))
    assert all(r.back_edge is loop for r in races)
    by_arr = {r.var.name: r for r in races}
    ms = by_arr["Ms"]
    # the write runs in the later iteration, the read (line 14) in the earlier one
    later = ms.b if ms.later == "b" else ms.a
    assert later.range.line == 10
    assert ms.element.startswith("Ms[") and ms.element.count("[") == 2
    # a row of Ms is read only by the two rows of threads of one warp; Ns crosses warps
    assert not ms.cross_warp and by_arr["Ns"].cross_warp
    assert not ms.warp_confined
    # with the second barrier: nothing, over all 4 iterations
    sim2, races2 = races_of(tmp_path, src.replace("SECOND", "__syncthreads();"), block=(16, 16, 1),
                            params={"w": 64})
    assert races2 == [] and sim2.complete and sim2.epoch == 8


def test_tree_reduction_is_clean_and_runs_every_step(tmp_path):
    sim, races = races_of(tmp_path, """
    __global__ void r(float* d)
    {
        __shared__ float s[512];
        unsigned int t = threadIdx.x;
        s[t] = d[t];
        __syncthreads();
        for (unsigned int st = blockDim.x / 2; st > 0; st >>= 1) {
            if (t < st)
                s[t] += s[t + st];
            __syncthreads();
        }
        if (t == 0) d[0] = s[0];
    }
    """, block=(512, 1, 1))
    assert races == []
    assert sim.epoch == 10  # 1 + log2(512) barriers


def test_tree_reduction_without_barrier_races(tmp_path):
    sim, races = races_of(tmp_path, """
    __global__ void r(float* d)
    {
        __shared__ float s[256];
        unsigned int t = threadIdx.x;
        s[t] = d[t];
        __syncthreads();
        for (unsigned int st = 128; st > 0; st >>= 1) {
            if (t < st)
                s[t] += s[t + st];
        }
        if (t == 0) d[0] = s[0];
    }
    """)
    assert races
    r = races[0]
    # e.g. thread 64 writes s[64] (st = 128) while thread 0 reads s[0 + 64] (st = 64)
    assert r.var.name == "s" and r.back_edge is None


def test_last_warp_unrolled_is_warp_confined(tmp_path):
    src = """
    __global__ void r(float* d)
    {
        __shared__ float s[64];
        unsigned int t = threadIdx.x;
        s[t] = d[t];
        __syncthreads();
        if (t < 32) {
            s[t] += s[t + 32];
            s[t] += s[t + 16];
            s[t] += s[t + 8];
        }
        if (t == 0) d[0] = s[0];
    }
    """
    sim, races = races_of(tmp_path, src, block=(64, 1, 1))
    assert races and all(r.warp_confined and not r.cross_warp for r in races)
    # a 32-thread block: the same code is one warp's business, but nothing confines it to
    # a warp of a larger block: it is an ordinary race
    sim, races = races_of(tmp_path, src.replace("s[64]", "s[96]"), block=(32, 1, 1))
    assert races and not any(r.warp_confined for r in races)
    assert all(r.witness.same_warp for r in races)


def test_syncwarp_orders_lanes_of_a_warp(tmp_path):
    sim, races = races_of(tmp_path, """
    __global__ void r(float* d)
    {
        __shared__ float s[32];
        unsigned int t = threadIdx.x;
        float v = d[t];
        for (int off = 16; off > 0; off >>= 1) {
            s[t] = v;
            __syncwarp();
            v += s[(t + off) % 32];
            __syncwarp();
        }
        d[t] = v;
    }
    """, block=(32, 1, 1))
    assert races == []


def test_thread_dependent_condition_selects_the_threads(tmp_path):
    sim, races = races_of(tmp_path, """
    __global__ void k(float* d)
    {
        __shared__ float s[256];
        int t = threadIdx.x;
        if (t < 128)
            s[t] = d[t];
        if (t >= 128)
            d[t] = s[t];          // other threads' slots, none of them written
        if (t == 200)
            d[0] = s[5];          // written by thread 5: a race
    }
    """)
    assert len(races) == 1
    r = races[0]
    assert r.b.range.line == 11 and (r.witness.thread_a, r.witness.thread_b) == (5, 200)
    assert r.element == "s[5]"


def test_data_dependent_condition_gives_possible_race(tmp_path):
    sim, races = races_of(tmp_path, """
    __global__ void k(const float* d, float* out)
    {
        __shared__ float best;
        float v = d[threadIdx.x];
        if (v > 0.5f)
            best = v;
        out[threadIdx.x] = best;
    }
    """)
    assert races
    assert all(not r.certain for r in races)


def test_uniform_unknown_condition_explores_both_sides_separately(tmp_path):
    sim, races = races_of(tmp_path, """
    __global__ void k(float* d, int mode)
    {
        __shared__ float s[256];
        int t = threadIdx.x;
        if (mode > 2)
            s[t] = d[t];
        else
            d[t] = s[t + 1];
    }
    """)
    # never both in one run: no race
    assert races == []
    assert sim._decisions == 1


def test_atomics_do_not_race_with_each_other(tmp_path):
    sim, races = races_of(tmp_path, """
    __global__ void hist(const int* keys, int* out)
    {
        __shared__ int bins[16];
        if (threadIdx.x < 16) bins[threadIdx.x] = 0;
        __syncthreads();
        atomicAdd(&bins[keys[threadIdx.x] & 15], 1);
        atomicAdd(&bins[threadIdx.x % 16], 1);
        __syncthreads();
        if (threadIdx.x < 16) out[threadIdx.x] = bins[threadIdx.x];
    }
    """)
    assert races == []


def test_extern_shared_arrays_alias(tmp_path):
    sim, races = races_of(tmp_path, """
    __global__ void k(float* d)
    {
        extern __shared__ float a[];
        extern __shared__ float b[];
        int t = threadIdx.x;
        a[t] = d[t];
        d[t] = b[t + 1];
    }
    """)
    assert len(races) == 1 and races[0].element.startswith("a[")


def test_same_value_stores_are_benign(tmp_path):
    sim, races = races_of(tmp_path, """
    __global__ void k(float* d)
    {
        __shared__ int done;
        done = 1;
        __syncthreads();
        if (done) d[threadIdx.x] = 0.0f;
    }
    """)
    assert races == []


def test_device_function_inlined_with_pointer_argument(tmp_path):
    sim, races = races_of(tmp_path, """
    __device__ void put(float* buf, int i, float v) { buf[i] = v; }
    __device__ float get(const float* buf, int i) { return buf[i]; }
    __global__ void k(float* d)
    {
        __shared__ float s[256];
        put(s, threadIdx.x, d[threadIdx.x]);
        d[threadIdx.x] = get(s, (threadIdx.x + 1) % 256);
    }
    """)
    assert len(races) == 1
    r = races[0]
    assert r.a.range.line == 2 and r.b.range.line == 3   # the accesses inside the helpers


def test_thread_set_layout_and_sampling():
    ts = ThreadSet((16, 4, 2), (3, 1, 1), [(0, 0, 0), (2, 0, 0)])
    assert ts.n == 256 and ts.threads_per_block == 128
    assert (ts.tx[17], ts.ty[17], ts.tz[17]) == (1, 1, 0)
    assert (ts.tx[64], ts.ty[64], ts.tz[64]) == (0, 0, 1)
    assert ts.bx[200] == 2 and ts.warp[200] == 4 + (200 - 128) // 32
    assert ts.describe(17) == "thread (1,1,0)"
    blocks, whole = sample_blocks((4, 1, 1), (512, 1, 1))
    assert whole and len(blocks) == 4
    blocks, whole = sample_blocks((1000, 1000, 1), (256, 1, 1))
    assert not whole and len(blocks) == 25 and (999, 999, 0) in blocks


def test_budget_stops_the_run_but_keeps_results(tmp_path):
    p = tmp_path / "k.cu"
    p.write_text(textwrap.dedent("""
    __global__ void k(float* d, int n)
    {
        __shared__ float s[257];
        s[threadIdx.x] = 1.0f;
        d[threadIdx.x] = s[threadIdx.x + 1];
        for (int i = 0; i < 100000; ++i)
            for (int j = 0; j < 100000; ++j)
                d[i] += j;
    }
    """))
    fa = analyze_file(str(p), AnalysisOptions())
    k = fa.tu.kernels[0]
    sim = Simt(k, ThreadSet((64, 1, 1), None, [(0, 0, 0)]), {}, budget=500).run()
    assert not sim.complete and "500" in sim.incomplete_reason
    assert len(sim.races) == 1


def test_explain_shows_barriers_and_races():
    import json as _json

    from typer.testing import CliRunner

    from cudalint.cli import app

    fix = Path(__file__).resolve().parents[1] / "fixtures" / "barriers"
    r = CliRunner().invoke(app, ["explain", str(fix / "tiled_missing_second_barrier.cu"),
                                 "--output-format", "json"], catch_exceptions=False)
    sync = _json.loads(r.output)["files"][0]["kernels"][0]["sync"]
    assert sync["block"] == [16, 16, 1] and sync["barriers"] == [15]
    assert sync["races_checked"] and sync["complete"]
    assert {(x["array"], x["first"]["line"], x["second"]["line"], x["across_back_edge_of_loop"])
            for x in sync["races"]} == {("Ms", 13, 17, 12), ("Ns", 14, 17, 12)}
    r = CliRunner().invoke(app, ["explain", str(fix / "tiled_correct.cu")], catch_exceptions=False)
    assert "barriers and races (block 16x16x1 simulated)" in r.output
    assert "    races: 0" in r.output


def test_block_uniform_values_of_unknown_parameters_are_the_same_bits(tmp_path):
    # Parboil cutcp's pattern: every thread of the block stores the region's start and the bin
    # of its centre, computed from blockIdx, an unknown float `h`, an unknown int and gridDim
    # (no grid known): the same bits whichever thread's store lands last, and every thread
    # reads back the value it stored itself. Per-thread values (threadIdx in them) still race.
    sim, races = races_of(tmp_path, """
    __global__ void k(float h, int zr, float* region, float* out)
    {
        __shared__ float* addr;
        __shared__ int3 bin;
        __shared__ float scale;
        __shared__ int mine;
        addr = region + ((zr * gridDim.y + blockIdx.y) * (gridDim.x >> 2) + (blockIdx.x >> 2)) * 512;
        bin.x = (int) floorf((8 * (blockIdx.x >> 2) + 4) * h * 0.25f);
        bin.y = (int) floorf((8 * blockIdx.y + 4) * h * 0.25f);
        scale = rsqrtf(h * h + 1.0f);
        mine = (int) floorf(h * threadIdx.x);
        int t = threadIdx.x;
        addr[t] = (bin.x + bin.y) * scale + mine;
    }
    """, block=(64, 1, 1))
    lines = sorted({(r.a.range.line, r.b.range.line) for r in races})
    # only `mine` (line 12, per-thread values) races: its stores with each other, and its
    # read at line 14 with another thread's store
    assert lines == [(12, 12), (12, 14)], lines
    assert all(r.var.name == "mine" for r in races)
    assert all(r.certain for r in races)
