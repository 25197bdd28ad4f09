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


def test_parameter_value_that_makes_the_race(tmp_path):
    _, races = sync_of(tmp_path, """
    __global__ void k(float* A, int x)
    {
        if (threadIdx.x == 15)
            A[threadIdx.x + x] = threadIdx.x;
        if (threadIdx.x == 200)
            A[threadIdx.x] = threadIdx.x;
    }
    """, block=(512, 1, 1), grid=(1, 1, 1))
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
