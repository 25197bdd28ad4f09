"""Shared-memory banks (analyzer/banks.py) and the CL301/CL302 rules.

Bank of a 4-byte word w = w mod 32 (sm_20+) or w mod 16 (sm_1x); a pass serves 128 bytes
(32 lanes of 4 B, 16 lanes of 8 B, 8 lanes of 16 B); wavefronts = sum over passes of the
largest number of distinct words one bank must deliver."""
from __future__ import annotations

import textwrap

import pytest

from cudalint.analyzer.banks import padded_address, wavefronts
from cudalint.analyzer.pipeline import AnalysisOptions
from cudalint.rules.runner import CheckOptions, check_file

WARP = list(range(32))


@pytest.mark.parametrize("addrs,E,wf,passes", [
    ([4 * l for l in WARP], 4, 1, 1),            # row: 32 banks once
    ([128 * l for l in WARP], 4, 32, 1),         # [32][32] column: word 32 l -> bank 0 for all
    ([132 * l for l in WARP], 4, 1, 1),          # [32][33] column: bank (33 l) mod 32 = l
    ([8 * l for l in WARP], 4, 2, 1),            # stride 2: lanes l, l+16 share bank 2l mod 32
    ([12 * l for l in WARP], 4, 1, 1),           # stride 3 (odd): conflict-free
    ([0] * 32, 4, 1, 1),                         # broadcast
    ([4 * (l // 2) for l in WARP], 4, 1, 1),     # pairs share words: 16 words, 16 banks
    ([l for l in WARP], 1, 1, 1),                # chars: 8 words, lanes sharing a word broadcast
    ([8 * l for l in WARP], 8, 2, 2),            # double: two half-warps of 128 B
    ([16 * l for l in WARP], 8, 4, 2),           # double stride 2: per half-warp banks 4l, 4l+1 -> 2-way
    ([16 * l for l in WARP], 16, 4, 4),          # float4: four quarter-warps of 128 B
    ([0] * 32, 8, 2, 2),                         # double broadcast: one wavefront per pass
])
def test_wavefronts(addrs, E, wf, passes):
    assert wavefronts(WARP, addrs, E) == (wf, passes)


def test_sm1x_sixteen_banks_half_warps():
    # 16 banks: a warp of consecutive floats is two conflict-free half-warp passes
    assert wavefronts(WARP, [4 * l for l in WARP], 4, banks=16) == (2, 2)
    # stride 2 per half-warp: banks 2l mod 16 for l = 0..15 -> lanes l, l+8 collide: 2 each
    assert wavefronts(WARP, [8 * l for l in WARP], 4, banks=16) == (4, 2)


def test_inactive_lanes_do_not_count():
    # only lanes 0..15 of a column read of [32][32]: 16 distinct words in bank 0
    assert wavefronts(list(range(16)), [128 * l for l in range(16)], 4) == (16, 1)


def test_padded_address():
    import sympy as sp
    i, j = sp.symbols("i j", integer=True)
    # float tile[32][32] padded by 1: (i * 33 + j) * 4
    assert sp.expand(padded_address([i, j], [32, 32], 4, 1) - 4 * (33 * i + j)) == 0
    # 3-D: a[4][8][16] padded by 2 -> strides 8*18 and 18
    assert sp.expand(padded_address([i, j, 0], [4, 8, 16], 4, 2) - 4 * (144 * i + 18 * j)) == 0


# ------------------------------------------------------------------ through the analysis


def _check(tmp_path, src, copts=None, **opts):
    p = tmp_path / "k.cu"
    p.write_text(textwrap.dedent(src))
    res, fa = check_file(str(p), AnalysisOptions(**opts), copts or CheckOptions())
    return res.diagnostics, fa, p


def _acc(fa, array, kind="load", nth=0):
    got = [a for k in fa.kernels for a in k.accesses if a.array == array and a.kind == kind]
    return got[nth]


TILE = """
__global__ void k(const float* in, float* out) {
    __shared__ float tile[32][32];
    tile[threadIdx.y][threadIdx.x] = in[blockIdx.x * 1024 + threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * 1024 + threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
"""


def test_seed_tile_column_32_way_and_padding_fix(tmp_path):
    diags, fa, path = _check(tmp_path, TILE, block=(32, 32, 1))
    assert _acc(fa, "tile", "store").wavefronts_per_request == 1
    assert _acc(fa, "tile").wavefronts_per_request == 32
    d = [x for x in diags if x.code == "CL301"]
    assert len(d) == 1 and d[0].location.line == 6 and d[0].severity == "warning"
    assert "32-way bank conflict" in d[0].message and "tile[32][33]" in d[0].message
    # the fix edits the last extent of the declaration: [32][32] -> [32][33]
    (edit,) = d[0].fix.edits
    line = path.read_text().splitlines()[edit.start.line - 1]
    assert edit.start.line == 3 and line[edit.start.column - 1:edit.end.column - 1] == "32"
    assert edit.text == "33"
    fixed = line[:edit.start.column - 1] + edit.text + line[edit.end.column - 1:]
    assert "tile[32][33]" in fixed
    # applying the fix makes the kernel clean
    p2 = tmp_path / "fixed.cu"
    p2.write_text(path.read_text().replace(line, fixed))
    res, fa2 = check_file(str(p2), AnalysisOptions(block=(32, 32, 1)), CheckOptions())
    assert not [x for x in res.diagnostics if x.code.startswith("CL3")]
    assert _acc(fa2, "tile").wavefronts_per_request == 1


def test_padding_fix_for_macro_extent_and_doubles(tmp_path):
    diags, fa, path = _check(tmp_path, """
        #define T 32
        __global__ void k(const double* in, double* out) {
            __shared__ double tile[T][T];
            tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * T + threadIdx.x];
            __syncthreads();
            out[threadIdx.y * T + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
        }""", block=(32, 32, 1))
    # doubles, column of a 256-byte row: each half-warp has 16 lanes on banks {0, 1}:
    # 16 wavefronts per pass, 2 passes = 32 (2 without conflicts) -> 16-way
    ld = _acc(fa, "tile")
    assert (ld.wavefronts_per_request, ld.min_wavefronts, ld.ways) == (32, 2, 16)
    d = [x for x in diags if x.code == "CL301"]
    assert len(d) == 1 and "16-way" in d[0].message
    assert d[0].fix.edits[0].text == "T + 1"


def test_stride2_two_way_is_info(tmp_path):
    diags, fa, _ = _check(tmp_path, """
        __global__ void k(const float* in, float* out) {
            __shared__ float s[512];
            s[threadIdx.x] = in[threadIdx.x];
            s[threadIdx.x + 256] = in[threadIdx.x + 256];
            __syncthreads();
            out[threadIdx.x] = s[2 * threadIdx.x];
        }""", block=(256, 1, 1))
    assert _acc(fa, "s").wavefronts_per_request == 2
    d = [x for x in diags if x.code == "CL301"]
    assert len(d) == 1 and d[0].severity == "info" and d[0].fix is None  # 1-D: no padding fix
    # options: warning from 2 ways
    copts = CheckOptions(rule_options={"CL301": {"warning_ways": 2}})
    diags, _, _ = _check(tmp_path, """
        __global__ void k(const float* in, float* out) {
            __shared__ float s[512];
            s[threadIdx.x] = in[threadIdx.x];
            __syncthreads();
            out[threadIdx.x] = s[2 * threadIdx.x];
        }""", copts, block=(256, 1, 1))
    assert [x.severity for x in diags if x.code == "CL301"] == ["warning"]


def test_seed_tiled_matmul_conflict_free(tmp_path):
    diags, fa, _ = _check(tmp_path, """
        #define TILE 16
        __global__ void mm(const float* A, const float* B, float* C, int n) {
            __shared__ float As[TILE][TILE];
            __shared__ float Bs[TILE][TILE];
            int tx = threadIdx.x, ty = threadIdx.y;
            int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
            float sum = 0.0f;
            for (int t = 0; t < n / TILE; ++t) {
                As[ty][tx] = A[row * n + t * TILE + tx];
                Bs[ty][tx] = B[(t * TILE + ty) * n + col];
                __syncthreads();
                for (int k = 0; k < TILE; ++k)
                    sum += As[ty][k] * Bs[k][tx];
                __syncthreads();
            }
            C[row * n + col] = sum;
        }""", block=(16, 16, 1))
    tab = fa.kernels[0].accesses
    shared = [a for a in tab if a.space == "shared"]
    assert len(shared) == 4
    assert all(a.ways == 1 for a in shared)
    # As[ty][k..k+3] is one LDS.128 (nvcc 13, in the ground truth's mm_tiled16 SASS): the
    # warp's two rows are two addresses, one per half-warp: 2 wavefronts, the least possible
    # (H200: 1.2 wavefronts per shared load over the kernel, (4 * 2 + 16 * 1) / 20)
    fused = [a for a in shared if a.fused > 1]
    assert [(a.fused, a.wavefronts_per_request, a.min_wavefronts) for a in fused] == [(4, 2, 2)]
    assert all(a.wavefronts_per_request == 1 for a in shared if a.fused == 1)
    assert not [d for d in diags if d.code.startswith(("CL2", "CL3"))]


def test_data_dependent_shared_index_is_not_a_conflict(tmp_path):
    diags, fa, _ = _check(tmp_path, """
        __global__ void k(const int* bins, int* out) {
            __shared__ int hist[256];
            hist[threadIdx.x] = 0;
            __syncthreads();
            atomicAdd(&hist[bins[blockIdx.x * 256 + threadIdx.x]], 1);
            int v = hist[bins[threadIdx.x] * 32];
            __syncthreads();
            out[blockIdx.x * 256 + threadIdx.x] = v + hist[threadIdx.x];
        }""", block=(256, 1, 1))
    assert _acc(fa, "hist").pattern == "data-dependent"
    assert not [d for d in diags if d.code == "CL301"]


# ------------------------------------------------------------------ CL302


REDUCE = """
__global__ void k(const float* in, float* out) {
    __shared__ float s[256];
    int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * 256 + tid];
    __syncthreads();
    if (tid < 32) {
        s[tid] += s[tid + 32];
        s[tid] += s[tid + 16];
        s[tid] += s[tid + 8];
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
"""


def test_cl302_unrolled_last_warp(tmp_path):
    diags, fa, _ = _check(tmp_path, REDUCE, block=(256, 1, 1))
    d = [x for x in diags if x.code == "CL302"]
    # s[tid + 32] reads words written before the barrier; s[tid + 16] reads what lane tid+16
    # wrote one line above: the first lockstep dependence, reported once per region
    assert [x.location.line for x in d] == [9]
    assert "lockstep" in d[0].message and d[0].related[0].location.line == 8


def test_cl302_volatile_is_fine_before_volta_and_syncwarp_always(tmp_path):
    """`volatile` keeps the shared value out of registers; before Volta a warp ran in lockstep,
    so the volatile last-warp reduction was the accepted form (sm_61: no finding). Since sm_70
    (independent thread scheduling) lanes of a warp need not run in lockstep: lane 0 may read
    s[16] before lane 16 has added s[48] to it (the programming guide's compute capability 7.x
    section; NVIDIA rewrote these reductions with __syncwarp()). The rule's own how-to-fix
    says so, but volatile silenced it on every GPU."""
    vol = REDUCE.replace("__shared__ float s[256];", "__shared__ volatile float s[256];")
    diags, _, _ = _check(tmp_path, vol, block=(256, 1, 1), arch="sm_61")
    assert not [x for x in diags if x.code == "CL302"]
    diags, _, _ = _check(tmp_path, vol, block=(256, 1, 1), arch="sm_70")
    d = [x for x in diags if x.code == "CL302"]
    assert [x.location.line for x in d] == [9] and d[0].related[0].location.line == 8
    assert "`volatile` keeps the value out of registers but does not order the lanes" in d[0].message
    diags, _, _ = _check(tmp_path, """
        __global__ void k(const float* in, float* out) {
            __shared__ float s[64];
            int tid = threadIdx.x;
            s[tid] = in[tid];
            __syncthreads();
            if (tid < 32) {
                float v = s[tid] + s[tid + 32];
                __syncwarp();
                s[tid] = v;
                __syncwarp();
                v += s[tid + 16];
                __syncwarp();
                s[tid] = v;
            }
            if (tid == 0) out[blockIdx.x] = s[0];
        }""", block=(64, 1, 1))
    assert not [x for x in diags if x.code == "CL302"]


def test_cl302_loop_in_device_function_and_not_confined(tmp_path):
    src = """
        __device__ void last_warp(float* s, int tid) {
            for (int o = 16; o > 0; o /= 2) s[tid] += s[tid + o];
        }
        __global__ void k(const float* in, float* out) {
            __shared__ float s[256];
            int tid = threadIdx.x;
            s[tid] = in[blockIdx.x * 256 + tid];
            __syncthreads();
            if (tid < 32) last_warp(s, tid);
            if (tid == 0) out[blockIdx.x] = s[0];
        }"""
    diags, _, _ = _check(tmp_path, src, block=(256, 1, 1))
    d = [x for x in diags if x.code == "CL302"]
    assert len(d) == 1 and d[0].location.line == 3 and "previous iteration" in d[0].message
    # with a 32 x 8 block `threadIdx.x < 32` holds for every thread: nothing is confined
    # to one warp, so this is not warp-synchronous code (a race checker's business)
    diags, _, _ = _check(tmp_path, src, block=(32, 8, 1))
    assert not [x for x in diags if x.code == "CL302"]


def test_sm13_half_warps_through_the_analysis(tmp_path):
    # compute 1.3: 16 banks, each half-warp is its own request pass
    diags, fa, _ = _check(tmp_path, """
        __global__ void k(const float* in, float* out) {
            __shared__ float s[512];
            s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
            __syncthreads();
            out[blockIdx.x * 256 + threadIdx.x] = s[2 * threadIdx.x];
        }""", arch="sm_13", block=(256, 1, 1))
    st, ld = _acc(fa, "s", "store"), _acc(fa, "s")
    assert (st.wavefronts_per_request, st.ways) == (2, 1)      # two conflict-free passes
    assert (ld.wavefronts_per_request, ld.ways) == (4, 2)      # banks 2l mod 16: 2-way per pass
    g = _acc(fa, "in")
    # global: each half-warp's 64 contiguous bytes is one 64-B transaction (128-B segment halved)
    assert (g.sectors_per_request, g.efficiency, g.pattern) == (2, 1.0, "coalesced")
    assert [d.code for d in diags if d.code.startswith("CL3")] == ["CL301"]


def test_struct_of_doubles_moves_as_64_bit_requests(tmp_path):
    # A whole copy of a 32-byte struct of four doubles (8-byte aligned; Rodinia lavaMD's
    # FOUR_VECTOR) is four 64-bit accesses, not eight 32-bit ones. Each: lanes 32 bytes apart; a
    # half-warp (16 lanes x 8 bytes) spans 512 bytes, words 8l and 8l+1 -> banks {0,1,8,9,16,17,
    # 24,25}, 4 lanes each: 4 wavefronts per half, 8 per request, 2 without conflicts = 4-way.
    # (As 4-byte parts it was 8-way, "1 without conflicts".)
    diags, fa, _ = _check(tmp_path, """
    struct Four { double v, x, y, z; };
    __global__ void copy_in(const Four* in, double* out)
    {
        __shared__ Four box[128];
        box[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
        __syncthreads();
        out[blockIdx.x * 128 + threadIdx.x] = box[0].v;
    }
    int main() { Four* in; double* out; copy_in<<<64, 128>>>(in, out); return 0; }
    """, use_ptxas=False)
    a = _acc(fa, "box", "store")
    assert (a.wavefronts_per_request, a.min_wavefronts, a.ways) == (8, 2, 4)
    cl301 = [d.message for d in diags if d.code == "CL301"]
    assert cl301 == ["4-way bank conflict: shared store `box[threadIdx.x]` needs 8 wavefronts per "
                     "request (2 without conflicts)"]


def test_instantiations_with_different_findings_name_their_kernel(tmp_path):
    # SGEMM_CUDA's kernels 5-8 run as <128, 128, ...> (256 threads) and <64, 64, ...> (64
    # threads): one load, a 4-way conflict in one and a 2-way one in the other. Without the
    # kernel's name the two findings at one line contradict each other; CL401 already names it.
    # Bs[8 * (tid % (BN / 8))]: BN = 128 -> 16 distinct words 8c, banks 0/8/16/24 serve 4 each;
    # BN = 64 -> 8 words, 2 each. t[2 * tid] is 2-way in both (lanes l, l + 16): one finding.
    diags, fa, _ = _check(tmp_path, """
        template <int BN>
        __global__ void tiles(const float* in, float* out) {
            __shared__ float Bs[BN * 8];
            __shared__ float t[512];
            for (int i = threadIdx.x; i < BN * 8; i += blockDim.x) Bs[i] = in[i];
            t[2 * threadIdx.x] = in[threadIdx.x];
            __syncthreads();
            out[threadIdx.x] = Bs[(threadIdx.x % (BN / 8)) * 8] + t[2 * threadIdx.x];
        }
        int main() {
            float *in, *out;
            tiles<128><<<1, 256>>>(in, out);
            tiles<64><<<1, 64>>>(in, out);
            return 0;
        }""")
    got = sorted((d.location.line, d.message.split(" bank conflict")[0]) for d in diags if d.code == "CL301")
    assert got == [(7, "2-way"), (9, "2-way"), (9, "`tiles<128>`: 4-way"), (9, "`tiles<64>`: 2-way")]


def test_fused_loads_follow_nvcc_sass():
    # What nvcc 13 -arch=sm_90 emitted (cuobjdump -sass on an H100 host): examples/matmul.cu 4
    # LDS.128 + 16 LDS per tile (Ms[ty][k..k+3] fused), fix/pad_shape_used.cu 8 LDS.128 (row_sum's
    # 32 consecutive floats), barriers/branch_on_loaded_value.cu 43 LDS and no LDS.128: its
    # buf[ty][k] loads sit under a branch in a loop with a barrier and shared stores.
    from pathlib import Path

    from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file

    fx = Path(__file__).resolve().parents[1] / "fixtures"

    def fused(name):
        fa = analyze_file(str(fx / name), AnalysisOptions(use_ptxas=False))
        return sorted(a.fused for k in fa.kernels for a in k.accesses
                      if a.space == "shared" and a.kind == "load" and a.fused > 1)

    assert fused("examples/matmul.cu") == [4]
    assert fused("fix/pad_shape_used.cu") == [4]
    assert fused("barriers/branch_on_loaded_value.cu") == []


# One LDS.128 of one warp at 14 patterns of float4 indices (tests/microbench/lds128_patterns.cu,
# inline ld.shared.v4.f32), measured with Nsight Compute on an H200 (sm_90):
# l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum per smsp__sass_inst_executed_op_shared_ld.
LDS128_MEASURED = {
    "p_bcast": (lambda l: 0, 2), "p_div16": (lambda l: l // 16, 2),
    "p_div4_x2": (lambda l: (l // 4) * 2, 2), "p_mod4": (lambda l: l % 4, 4),
    "p_mod16_x2": (lambda l: (l % 16) * 2, 8), "p_contig": (lambda l: l, 4),
    "p_mod8": (lambda l: l % 8, 4), "p_div8": (lambda l: l // 8, 2), "p_x2": (lambda l: l * 2, 8),
    "p_div2": (lambda l: l // 2, 2), "p_mod2": (lambda l: l % 2, 2),
    "p_x8": (lambda l: (l * 8) % 256, 32), "p_div4": (lambda l: l // 4, 2),
    "p_rev_pairs": (lambda l: l ^ 1, 4),
}


@pytest.mark.parametrize("name", sorted(LDS128_MEASURED))
def test_128_bit_wavefronts_match_the_h200(name):
    from cudalint.analyzer.banks import wavefronts

    index, measured = LDS128_MEASURED[name]
    lanes = list(range(32))
    wf, _ = wavefronts(lanes, [index(l) * 16 for l in lanes], 16)
    assert wf == measured


def test_doubling_loop_with_unknown_bound_takes_only_its_own_values(tmp_path):
    """`for (st = 1; st < n; st *= 2)` with `n` a parameter of no known value (the book "Learn
    CUDA Programming"'s reductions and scans bound the stride by a size): `st` is 1, 2, 4, ...
    and nothing else. The bound had no value, so `st` was sampled from stand-ins such as 3, 5,
    7, 31, 33, 100 that the loop never gives: 21.25 wavefronts. Now n takes its stated default
    1024 (said in the message), st = 1 .. 512. By hand, warp 0 (index = 2*st*tid, index < 256):
    st=1: 2-way; 2: 4; 4: 8; 8: lanes 0-15 on banks 0/16, 8; 16: lanes 0-7 on bank 0, 8;
    32: 4; 64: 2; 128, 256, 512: lane 0 only, 1. One request each: 39/10 = 3.9."""
    diags, fa, _ = _check(tmp_path, """
        __global__ void k(float *out, int n)
        {
            __shared__ float s[256];
            s[threadIdx.x] = 0.0f;
            __syncthreads();
            for (int st = 1; st < n; st *= 2) {
                int index = 2 * st * threadIdx.x;
                if (index < 256)
                    s[index] += 1.0f;
                __syncthreads();
            }
            if (threadIdx.x == 0)
                out[0] = s[0];
        }
        void run(float *out, int n) { k<<<1, 256>>>(out, n); }
    """)
    a = _acc(fa, "s", "store", nth=1)
    assert a.wavefronts_per_request == pytest.approx(3.9)
    d = [d for d in diags if d.code == "CL301"]
    assert len(d) == 1 and "3.9 wavefronts" in d[0].message
    assert "1, 2, ..., 512" in d[0].message and "n assumed 1024" in d[0].message


def test_while_loop_doubling_takes_only_its_own_values(tmp_path):
    """The work-efficient scan's up-sweep of "Learn CUDA Programming" (chapter 7, scan_v2.cu)
    doubles `offset` at the end of a `while` body; only `for` steps were recognised, so
    `offset` was sampled from stand-ins it never takes (3, 5, 7, ...): 11.25 wavefronts.
    By hand, 512 threads, length assumed 1024, offset = 1 .. 512; warp 0 stores
    s[2*offset*(tid+1) - 1] (lane stride 2*offset words) while it is below 1024:
    offset 1: 2-way; 2: 4; 4: 8; 8: 16; 16: 32; 32: 16 lanes on one bank, 16; 64: 8; 128: 4;
    256: 2; 512: 1. One request each: 93/10 = 9.3."""
    diags, fa, _ = _check(tmp_path, """
        #define B 512
        __global__ void up(float *d, int length)
        {
            __shared__ float s[2 * B];
            int tid = threadIdx.x;
            s[tid] = d[tid];
            s[tid + B] = d[tid + B];
            int offset = 1;
            while (offset < length) {
                __syncthreads();
                int ia = offset * (2 * tid + 1) - 1;
                int ib = offset * (2 * tid + 2) - 1;
                if (ib < 2 * B)
                    s[ib] += s[ia];
                offset <<= 1;
            }
            __syncthreads();
            d[tid] = s[tid];
        }
        void run(float *d, int n) { up<<<1, B>>>(d, n); }
    """)
    a = _acc(fa, "s", "store", nth=2)
    assert a.wavefronts_per_request == pytest.approx(9.3)
    d = [d for d in diags if d.code == "CL301" and d.location.line == 15]
    assert d and all("9.3 wavefronts" in x.message and "1, 2, ..., 512" in x.message
                     and "length assumed 1024" in x.message for x in d)


def test_parameter_passed_as_the_block_size_defaults_to_the_block(tmp_path):
    """`n` is passed as blockDim.x at every launch (ggml's argsort passes ncols_pad so), and its
    value is not known: the block is assumed 256, so `n` is 256 too, not the generic 1024 (which
    ran the doubling loop past the block), and the guard `t * k < n` decides the active lanes
    for each value of k (a guard naming a size of no known value was dropped: every lane
    counted, 15.875; before both, 19.1). By hand, warp 0, s[t*k] while t*k < 256:
    k=1: 1; 2: 2-way; 4: 4; 8: 8; 16: lanes 0-15 on banks 0/16, 8; 32: lanes 0-7 on bank 0, 8;
    64: 4; 128: 2. 37/8 = 4.625 (with n = 1024 it would be 93/10 = 9.3)."""
    diags, fa, _ = _check(tmp_path, """
        __global__ void kern(float *d, int n)
        {
            extern __shared__ float s[];
            int t = threadIdx.x;
            s[t] = d[t];
            __syncthreads();
            for (int k = 1; k < n; k *= 2) {
                if (t * k < n)
                    s[t * k] += 1.0f;
                __syncthreads();
            }
            d[t] = s[t];
        }
        void run(float *d, int n) { kern<<<1, n, n * sizeof(float)>>>(d, n); }
    """)
    a = _acc(fa, "s", "store", nth=1)
    assert a.wavefronts_per_request == pytest.approx(4.625)
    assert "n assumed 256 (every launch passes it as blockDim.x, not known)" in a.assumptions
    assert any("1, 2, ..., 128" in n for n in a.assumptions)
