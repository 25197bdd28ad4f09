"""Block uniformity (static) and warp divergence for a launch (analyzer/uniformity.py)."""
from __future__ import annotations

import textwrap

import pytest

from cudalint.analyzer import ir
from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file
from cudalint.analyzer.uniformity import Uniformity, warp_divergence


def lower(tmp_path, src: str):
    p = tmp_path / "k.cu"
    p.write_text(textwrap.dedent(src))
    fa = analyze_file(str(p), AnalysisOptions())
    assert fa.error is None, fa.error
    return fa


def var(fn: ir.Function, name: str) -> ir.Variable:
    return next(v for v in fn.locals + fn.params if v.name == name)


def line_of(src: str, key: str, nth: int = 0) -> int:
    """The line (1-based, of ``src`` as ``lower`` writes it) of the ``nth`` line containing ``key``."""
    return [n for n, t in enumerate(textwrap.dedent(src).splitlines(), 1) if key in t][nth]


def ifs(fn: ir.Function) -> list[ir.If]:
    return [s for s in fn.statements() if isinstance(s, ir.If)]


KERNEL = """
__global__ void k(const float* in, float* out, int n, int flag)
{
    __shared__ float s[256];
    __shared__ int s_flag;
    unsigned int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * 16;
    float x = in[i];
    float b = in[blockIdx.x];
    int mixed = 0;
    if (tid < 16)
        mixed = 1;
    int any = __syncthreads_or(tid == 3);
    if (tid == 0)
        s_flag = flag;
    __syncthreads();
    for (unsigned int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (tid < st)
            s[tid] += s[tid + st];
        __syncthreads();
    }
    for (int j = tid; j < n; j += blockDim.x)
        out[j] = 0.0f;
    if (s_flag) out[0] = b + row + any + mixed + x;
}
"""


def test_values_uniform_or_not(tmp_path):
    fa = lower(tmp_path, KERNEL)
    f = fa.tu.function("k")
    u = Uniformity(f)
    div = {v.name for v in u.divergent_vars}
    # thread-dependent: threadIdx, values loaded at per-thread addresses, per-thread loop
    # counters, a variable assigned under a thread-dependent condition
    assert {"tid", "i", "x", "mixed", "j"} <= div
    # uniform: blockIdx arithmetic, a load at a uniform address, a block-wide vote, the
    # counter of the tree reduction
    for name in ("row", "b", "any", "st", "n", "flag"):
        assert name not in div, (name, u.reasons.get(var(f, name)))
    assert "threadIdx.x" in u.reasons[var(f, "tid")]
    assert "line 12" in u.reasons[var(f, "mixed")]


def test_conditions(tmp_path):
    fa = lower(tmp_path, KERNEL)
    f = fa.tu.function("k")
    u = Uniformity(f)
    conds = {s.range.line: s.cond for s in ifs(f)}
    assert not u.is_uniform(conds[12])          # tid < 16
    assert not u.is_uniform(conds[19])          # tid < st
    assert u.is_uniform(conds[25])              # s_flag: one shared word, same for all
    loops = [s for s in f.statements() if isinstance(s, ir.Loop)]
    assert u.is_uniform(loops[0].cond)          # st > 0
    assert not u.is_uniform(loops[1].cond)      # j < n with j = tid + ...
    assert u.why_divergent(conds[12]) == "depends on `tid`, which depends on threadIdx.x"
    assert u.why_divergent(conds[19]) == "depends on `tid`, which depends on threadIdx.x"
    # the two barriers are reached by every thread
    assert u.divergent_barriers() == []


def test_early_exit_keeps_later_values_uniform_but_barriers_divergent(tmp_path):
    fa = lower(tmp_path, """
    __global__ void k(float* d, int n, int rounds)
    {
        __shared__ float s[256];
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i >= n)
            return;
        int half = blockDim.x / 2;
        s[threadIdx.x] = d[i];
        __syncthreads();
        for (int r = 0; r < rounds; ++r) {
            if (d[r * 256 + threadIdx.x] == 0.0f)
                break;
            __syncthreads();
        }
        int after = 0;
        for (int r = 0; r < rounds; ++r) {
            if (d[r] == 0.0f)
                break;
            after = r;
        }
        d[i] = s[half] + after;
    }
    """)
    f = fa.tu.function("k")
    u = Uniformity(f)
    div = {v.name for v in u.divergent_vars}
    assert "half" not in div          # defined after the early return: the leavers never read it
    assert "after" not in div         # the second loop's break depends on d[r]: uniform address
    bars = u.divergent_barriers()
    assert sorted(b.line for b, _ in bars) == [10, 14]
    reasons = {b.line: d.line for b, d in bars}
    assert reasons[10] == 6           # the early return
    assert reasons[14] == 12          # the data-dependent break of the same loop


def test_loop_counter_divergent_after_thread_dependent_break(tmp_path):
    fa = lower(tmp_path, """
    __global__ void k(int* d)
    {
        int c = 0;
        for (c = 0; c < 8; ++c) {
            if (d[threadIdx.x * 8 + c] < 0)
                break;
        }
        d[threadIdx.x] = c;
    }
    """)
    f = fa.tu.function("k")
    u = Uniformity(f)
    assert var(f, "c") in u.divergent_vars


def test_device_function_return_uniformity(tmp_path):
    fa = lower(tmp_path, """
    __device__ int lane() { return threadIdx.x % 32; }
    __device__ int twice(int v) { return 2 * v; }
    __global__ void k(int* d, int n)
    {
        int a = twice(n);
        int b = lane();
        int c = twice(threadIdx.x);
        d[threadIdx.x] = a + b + c;
    }
    """)
    f = fa.tu.function("k")
    u = Uniformity(f)
    div = {v.name for v in u.divergent_vars}
    assert div == {"b", "c"}
    assert "lane()" in u.reasons[var(f, "b")]


DIVERGE = """
__global__ void k(float* a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = 1.0f;
    if (threadIdx.x / 32 == 0)
        a[0] = 2.0f;
    if (threadIdx.x % 2)
        a[1] = 3.0f;
}
int main()
{
    float* a = 0;
    int n = 2000;
    k<<<(n + 511) / 512, 512>>>(a, n);
    return 0;
}
"""


def test_seed_quick_exercise_one_divergent_warp(tmp_path):
    fa = lower(tmp_path, DIVERGE)
    kf = fa.kernels[0]
    assert kf.launch.grid == (4, 1, 1) and kf.launch.block == (512, 1, 1)
    d = warp_divergence(kf.function, kf.launch.block, kf.launch.grid, kf.launch.param_values)
    assert d.whole_grid and d.blocks == 4
    by_line = {b.stmt.range.line: b for b in d.branches.values()}
    bound = by_line[5]
    assert (bound.warps_executing, bound.warps_divergent) == (64, 1)
    assert bound.exact and not bound.interleaved and not bound.block_uniform
    assert bound.example_block == (3, 0, 0) and bound.example_warp == 14   # threads 1984..2015
    aligned = by_line[7]
    assert (aligned.warps_executing, aligned.warps_divergent) == (64, 0)
    parity = by_line[9]
    assert (parity.warps_executing, parity.warps_divergent) == (64, 64)
    assert parity.interleaved and parity.fraction == 1.0


def test_unknown_bound_gives_no_count(tmp_path):
    fa = lower(tmp_path, DIVERGE.replace("int n = 2000;", "int n = rand();"))
    kf = fa.kernels[0]
    d = warp_divergence(kf.function, kf.launch.block, (4, 1, 1), {})
    bound = next(b for b in d.branches.values() if b.stmt.range.line == 5)
    # `n` has no value: the condition is unknown for every thread, nothing is counted
    assert (bound.executions, bound.unknown_executions, bound.warps_divergent) == (1, 1, 0)
    assert not bound.exact


def test_tree_reduction_divergence_counts(tmp_path):
    fa = lower(tmp_path, """
    __global__ void r(float* d)
    {
        __shared__ float s[256];
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
    """)
    kf = fa.kernels[0]
    d = warp_divergence(kf.function, (256, 1, 1), None, {})
    br = next(b for b in d.branches.values() if b.stmt.range.line == 9)
    # 8 iterations x 8 warps; st = 16, 8, 4, 2, 1 split warp 0
    assert br.executions == 8
    assert (br.warps_executing, br.warps_divergent) == (64, 5)
    assert not br.interleaved and br.scope == "block"


def test_reused_counter_is_judged_by_the_definitions_that_reach_each_use(tmp_path):
    # HeCBench's bh kernel: `j` first walks the grid per thread, then counts a tree
    # reduction down from a constant. The second loop's barrier is reached by every thread;
    # only the definitions that reach a use matter, not every assignment of the variable.
    fa = lower(tmp_path, """
    __global__ void k(const float* in, float* out, int n)
    {
        __shared__ float s[256];
        int i = threadIdx.x, j;
        float m = 0.0f;
        for (j = i + blockIdx.x * 256; j < n; j += 256 * gridDim.x)
            m += in[j];
        s[i] = m;
        for (j = 256 / 2; j > 0; j /= 2) {
            __syncthreads();
            if (i < j)
                s[i] += s[i + j];
        }
        if (j == 0) out[blockIdx.x] = s[0];
    }
    """)
    f = fa.tu.function("k")
    u = Uniformity(f)
    loops = [s for s in f.statements() if isinstance(s, ir.Loop)]
    assert not u.is_uniform(loops[0].cond)      # j < n with j = i + ...: per thread
    assert u.is_uniform(loops[1].cond)          # j > 0 with j = 128, 64, ...: the same for all
    assert u.divergent_barriers() == []
    cond = {s.range.line: s.cond for s in ifs(f)}
    assert not u.is_uniform(cond[12])           # i < j: i is per thread
    # `j` after the second loop is only ever the reduction counter: uniform there
    assert u.is_uniform(cond[15])               # j == 0 after the reduction loop


def test_reaching_definitions_in_one_sweep(tmp_path, monkeypatch):
    """Reaching definitions are solved visiting nodes in reverse postorder: each node's
    predecessors are read once, not at every revisit (a long loop body cost one sweep per node
    in the old last-in-first-out order: HeCBench segsort-cuda/main.cu 2.1 s)."""
    body = "\n".join(f"        a{j} = a{j - 1} + i;" for j in range(1, 40))
    decls = "\n".join(f"    int a{j} = 0;" for j in range(40))
    fa = lower(tmp_path, f"""
    __global__ void k(int* out, int n)
    {{
    {decls}
        for (int i = 0; i < n; i++) {{
            a0 = a39 + threadIdx.x;
    {body}
        }}
        out[threadIdx.x] = a39;
    }}
    """)
    fn = fa.tu.function("k")
    from cudalint.analyzer.digraph import DiGraph
    calls, on = [], []
    orig = DiGraph.predecessors
    monkeypatch.setattr(DiGraph, "predecessors", lambda g, n: (on and calls.append(n)) or orig(g, n))
    reaching = Uniformity._reaching

    def counted(self):
        on.append(1)
        try:
            reaching(self)
        finally:
            on.clear()
    monkeypatch.setattr(Uniformity, "_reaching", counted)
    u = Uniformity(fn)
    nodes = len(u.cfg.graph.nodes)
    assert len(calls) == nodes, (len(calls), nodes)
    assert var(fn, "a39") in u.divergent_vars  # threadIdx.x flows around the loop


STRIDED = """
__global__ void k(const int* in, int* out, int n)
{
    __shared__ int s[256];
    int localIdx = threadIdx.x;
    int localSize = blockDim.x;
    int pos = localIdx;
    int g = blockIdx.x * blockDim.x + threadIdx.x;   /* threadIdx.x + blockIdx.x*blockDim.x */
    int off = threadIdx.x + 1;                        /* not threadIdx.x + k*blockDim.x */
    int some = threadIdx.x;
    if (threadIdx.x < 5)
        some += blockDim.x;                           /* k differs between threads */
    int down = threadIdx.x - blockDim.x;              /* k = -1: C division truncates */
    if (g / blockDim.x == 3) __syncthreads();         /* blockIdx.x: uniform */
    if (off / blockDim.x == 0) __syncthreads();       /* the last thread gets 1 */
    if (some / blockDim.x == 0) __syncthreads();
    if (down / (int)blockDim.x == 0) __syncthreads(); /* thread 0: -1, the others: 0 */
    while (true) {
        s[threadIdx.x] = pos < n ? in[pos] : 0;
        __syncthreads();
        out[pos % n] = s[(threadIdx.x + 1) % blockDim.x];
        __syncthreads();
        pos += localSize;
        if (((pos / localSize) * localSize) >= n) break;  /* k*blockDim.x: the same for all */
    }
    for (int i = threadIdx.x; (i / blockDim.x) * blockDim.x < n; i += blockDim.x) {
        s[threadIdx.x] = i < n ? in[i] : 0;
        __syncthreads();
    }
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        s[threadIdx.x] = in[j];
        __syncthreads();
    }
}
"""


def test_quotient_of_a_block_strided_index_is_uniform(tmp_path):
    # i = threadIdx.x + k*blockDim.x with k >= 0 the same for the block: i / blockDim.x == k.
    # The loop that keeps every thread for the same trips so that its barrier is safe
    # (HeCBench ss: `((stringPos/localSize)*localSize) >= searchLength`) is not divergent; the
    # forms that are not (threadIdx.x + 1, k set by some threads, k < 0, i < n) still are.
    fa = lower(tmp_path, STRIDED)
    u = Uniformity(fa.kernels[0].function)
    divergent = sorted(d.line for d in u.divergent_decisions)
    barriers = sorted(b.line for b, _ in u.divergent_barriers())
    src = textwrap.dedent(STRIDED).splitlines()
    line = {key: next(n for n, t in enumerate(src, 1) if key in t) for key in (
        "g / blockDim.x", "off / blockDim.x", "some / blockDim.x", "down / (int)", "(pos / localSize)",
        "(i / blockDim.x)", "j < n", "if (threadIdx.x < 5)")}
    assert line["g / blockDim.x"] not in divergent
    assert line["(pos / localSize)"] not in divergent
    assert line["(i / blockDim.x)"] not in divergent
    assert {line["off / blockDim.x"], line["some / blockDim.x"], line["down / (int)"], line["j < n"],
            line["if (threadIdx.x < 5)"]} <= set(divergent)
    # the barriers under the three divergent quotients and in the j loop, none other
    assert barriers == sorted([line["off / blockDim.x"], line["some / blockDim.x"], line["down / (int)"],
                               line["j < n"] + 2])


LEAVING = """
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ void tail(float* s) { s[threadIdx.x] *= 2.0f; __syncthreads(); }
__device__ void grid_tail(float* s) { s[threadIdx.x] *= 2.0f; cg::this_grid().sync(); }
__device__ void dev(float* s, int n) {
    if (threadIdx.x >= n) return;                   // back to h, which then ends
    __syncthreads();
}
__global__ void k(float* d, int n, int rows) {
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;                             // leaves: only exits
    s[threadIdx.x] = d[i];
    __syncthreads();
    for (int r = threadIdx.x; r < rows; r += 64) {  // trips per thread, a barrier after the loop
        s[threadIdx.x] += d[r];
        __syncthreads();
    }
    __syncthreads();
    for (int r = threadIdx.x; r < rows; r += 64) {  // trips per thread, nothing after the loop
        s[threadIdx.x] += d[r];
        __syncthreads();
    }
}
__global__ void t(float* d) {
    __shared__ float s[256];
    s[threadIdx.x] = d[threadIdx.x];
    if (threadIdx.x < 32) tail(s);                  // the others leave
}
__global__ void h(float* d, int n) {
    __shared__ float s[256];
    dev(s, n);
}
__global__ void g(float* d, int n) {
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;                             // a grid sync waits for every thread
    s[threadIdx.x] = d[i];
    grid_tail(s);
}
"""


def test_threads_that_only_leave_do_not_hold_up_a_barrier(tmp_path):
    # PTX `exit`: a thread that has exited no longer counts at a barrier. A decision whose
    # other sides reach no barrier before the kernel ends (an early return, a per-thread loop
    # with nothing synchronising after it) cannot leave one waiting; a loop followed by a
    # barrier can, and so can a device function's return, which goes back to its caller.
    from cudalint.analyzer.uniformity import released_by_exit
    fa = lower(tmp_path, LEAVING)
    at = lambda key, nth=0: line_of(LEAVING, key, nth)
    u = Uniformity(fa.tu.function("k"))
    bars = {b.line: d for b, d in u.divergent_barriers()}
    assert sorted(bars) == [at("__syncthreads();", n) for n in (2, 3, 4, 5)]
    assert bars[at("__syncthreads();", 3)].line == at("r < rows", 0)
    assert not u.leaving_only(bars[at("__syncthreads();", 3)])   # the barrier after the loop
    assert bars[at("__syncthreads();", 5)].line == at("r < rows", 1)
    assert u.leaving_only(bars[at("__syncthreads();", 5)])
    ut = Uniformity(fa.tu.function("t"))
    [(b, d)] = ut.divergent_barriers()
    assert b.line == at("tail(s);") and ut.leaving_only(d)
    # the barrier after the early return is not divergent for any other reason: the return is it
    for n in (2, 4):  # after the early return, nothing else divergent controls them
        assert bars[at("__syncthreads();", n)].line == at("if (i >= n) return;", 0)
        assert u.leaving_only(bars[at("__syncthreads();", n)])
    assert all(released_by_exit(b) for b, _ in u.divergent_barriers())
    dev = Uniformity(fa.tu.function("dev"))
    [(b, d)] = dev.divergent_barriers()
    assert not dev.leaving_only(d)
    ug = Uniformity(fa.tu.function("g"))
    [(b, d)] = ug.divergent_barriers()
    assert ug.leaving_only(d) and not released_by_exit(b)


def test_cl601_severity_follows_what_the_turned_away_threads_do(tmp_path):
    from cudalint.rules.runner import CheckOptions, check_file
    p = tmp_path / "k.cu"
    p.write_text(textwrap.dedent(LEAVING))
    result, _ = check_file(str(p), AnalysisOptions(use_ptxas=False, block=(256, 1, 1)), CheckOptions())
    at = lambda key, nth=0: line_of(LEAVING, key, nth)
    sev = {d.location.line: d.severity for d in result.diagnostics if d.code == "CL601"}
    # dev's own return goes back to its caller, h, which ends there: the threads that return
    # leave the kernel (an error before; device_fn_early_return_last_call.cu has the twin
    # whose caller synchronises again, still an error)
    assert sev == {at("__syncthreads();", 1): "warning",
                   at("__syncthreads();", 2): "warning",   # after the early return
                   at("__syncthreads();", 3): "error",     # the loop with a barrier after it
                   at("__syncthreads();", 4): "warning",   # after the early return (and the loop)
                   at("__syncthreads();", 5): "warning",   # the loop with none after it
                   at("tail(s);"): "warning",
                   at("grid_tail(s);"): "error"}           # grid.sync after the early return
    msg = next(d.message for d in result.diagnostics if d.location.line == at("__syncthreads();", 2))
    assert "PTX `exit`" in msg and "cannot hang" in msg


MEMBERS = """
struct Pair { int2 a; int b; };
__global__ void k(const float* img, float* out, int h, int step)
{
    __shared__ float s[256];
    int2 p;
    p.x = threadIdx.x * step;               // per thread
    p.y = blockIdx.y * step;                // the same for the block
    if (p.y >= h && p.y < h + step - 1)     // uniform: p.x's definition does not reach p.y
        p.y = h - 1;
    else if (p.y >= h) return;
    if (p.x < 5) out[0] = 1.0f;             // divergent
    int2 q = make_int2(threadIdx.x, 0);
    if (q.y > 0) out[1] = 1.0f;             // a whole-variable definition: divergent
    Pair r;
    r.a.x = threadIdx.x;
    r.a.y = 3;
    r.b = blockIdx.x;
    if (r.a.y + r.b > 1) out[2] = 1.0f;     // uniform
    if (r.a.x > 1) out[3] = 1.0f;           // divergent
    s[threadIdx.x] = img[p.y * 256 + p.x];
    __syncthreads();
    out[p.y * 256 + p.x] = s[255 - threadIdx.x];
}
"""


def test_members_of_a_local_struct_are_judged_apart(tmp_path):
    # HeCBench bm3d: `p.x = p_rectangle_start + tid*params.p; p.y = start_point.y +
    # blockIdx.y*params.p;` then `if (p.y >= stacks_dim.y ...) return;` before __syncthreads():
    # the early return is the same for the whole block, not divergent because of p.x.
    fa = lower(tmp_path, MEMBERS)
    u = Uniformity(fa.tu.function("k"))
    line = lambda key: line_of(MEMBERS, key)
    div = {d.line for d in u.divergent_decisions}
    assert line("p.y >= h && p.y") not in div and line("else if (p.y >= h)") not in div
    assert line("if (p.x < 5)") in div and line("if (q.y > 0)") in div and line("if (r.a.x > 1)") in div
    assert line("r.a.y + r.b > 1") not in div
    assert u.divergent_barriers() == []
    why = u.why_divergent(next(d for d in u.divergent_decisions if d.line == line("if (p.x < 5)")).expr)
    assert why == "depends on `p.x`, which depends on threadIdx.x"


CALLS = """
__device__ int closest(float my_dist, int my_index) {
    __shared__ float d[256];
    __shared__ int idx[256];
    d[threadIdx.x] = my_dist;
    idx[threadIdx.x] = my_index;
    __syncthreads();
    if (threadIdx.x == 0)
        for (int j = 1; j < blockDim.x; j++)
            if (d[j] < d[0]) { d[0] = d[j]; idx[0] = idx[j]; }
    __syncthreads();
    return idx[0];                      // the same for the whole block
}
__device__ int plus_one(int v) { return v + 1; }
__global__ void k(const float* dist, int* out) {
    int best = closest(dist[threadIdx.x], threadIdx.x);
    if (best >= 0) out[0] = best;       // uniform: the callee returns a shared word
    if (plus_one(threadIdx.x) > 3) out[1] = 1;   // divergent: the result is the argument's
    if (plus_one(blockIdx.x) > 3) out[2] = 1;    // uniform
}
"""


def test_a_call_with_thread_dependent_arguments_can_return_a_uniform_value(tmp_path):
    # HeCBench qtclustering: cnt++ under `if (closest_point_reduction(min_dist, ...) >= 0)`
    # made the loop `while (cnt < point_count && flag)` divergent: 4 wrong CL601 errors.
    fa = lower(tmp_path, CALLS)
    u = Uniformity(fa.tu.function("k"))
    line = lambda key: line_of(CALLS, key)
    div = {d.line for d in u.divergent_decisions}
    assert line("if (best >= 0)") not in div
    assert line("plus_one(threadIdx.x) > 3") in div
    assert line("plus_one(blockIdx.x) > 3") not in div
    d = next(d for d in u.divergent_decisions if d.line == line("plus_one(threadIdx.x) > 3"))
    assert u.why_divergent(d.expr) == "depends on threadIdx.x"


# A block-wide all-reduce (ggml fattn-common.cuh, flash_attn_mask_to_KV_max): each warp votes,
# lane 0 of each stores its answer, and after the barrier *every* warp votes again on the same
# 32 shared words buf[tid % 32]: one answer for the block, so the `break` keeps it together.
# The vote goes through a template helper whose other branch (a shuffle butterfly) is dead for
# width 32, called from a template kernel that nothing instantiates.
ALL_REDUCE = """
template <int width = 32>
__device__ __forceinline__ int vote_all(int x) {
    if (width == 32) {
        return __all_sync(0xffffffff, x);
    } else {
        for (int offset = width / 2; offset > 0; offset >>= 1)
            x = __shfl_xor_sync(0xffffffff, x, offset, width) && x;
        return x;
    }
}
template <int ncols>
__global__ void kv_max(const float* mask, int* out, int n) {
    __shared__ int buf[32];
    const int tid = threadIdx.x;
    if (tid < 32) buf[tid] = 1;
    __syncthreads();
    int k = n - 1;
    for (; k >= 0; k--) {
        int all = isinf(mask[k * 128 + tid]);
        all = vote_all(all);
        if (tid % 32 == 0) buf[tid / 32] = all;
        __syncthreads();
        all = buf[tid % 32];
        __syncthreads();
        all = vote_all(all);
        if (!all) break;                 // uniform: every warp voted on buf[0..31]
    }
    if (tid == 0) out[blockIdx.x] = k;
}
__device__ int vote(int x) { return __all_sync(0xffffffff, x); }
__global__ void near_misses(const int* in, int* out, int n) {
    __shared__ int buf[32];
    int a = vote(in[threadIdx.x]);                      // one answer per warp only
    if (a) out[0] = 1;
    int b = vote(buf[threadIdx.x / 32]);                // indexed by the warp, not the lane
    if (b) out[1] = 1;
    int c = __all_sync(0x0000ffff, buf[threadIdx.x % 32]);   // half the warp votes
    if (c) out[2] = 1;
    int d = 0;
    if (threadIdx.x / 32 == 0) d = vote(buf[threadIdx.x % 32]);   // warp 0 alone
    if (d) out[3] = 1;
    int e = vote(buf[threadIdx.x % 32]);                // every warp, the same words
    if (e) out[4] = 1;
}
"""


def test_a_warp_vote_on_the_same_words_in_every_warp_is_block_uniform(tmp_path):
    fa = lower(tmp_path, ALL_REDUCE)
    line = lambda key, nth=0: line_of(ALL_REDUCE, key, nth)
    kv = fa.tu.function("kv_max")
    u = Uniformity(kv, block=(128, 1, 1))
    assert u.divergent_barriers() == []
    assert line("if (!all) break;") not in {d.line for d in u.divergent_decisions}
    # rows of 48 threads: threadIdx.x % 32 is not the lane, warps differ
    u48 = Uniformity(kv, block=(48, 2, 1))
    assert {b.line for b, _ in u48.divergent_barriers()} == {line("__syncthreads();", 1), line("__syncthreads();", 2)}
    # the block unknown: not assumed to be made of whole warps
    assert Uniformity(kv).divergent_barriers() != []
    nm = Uniformity(fa.tu.function("near_misses"), block=(128, 1, 1))
    div = {d.line for d in nm.divergent_decisions}
    assert {line("if (a)"), line("if (b)"), line("if (c)"), line("if (d)")} <= div
    assert line("if (e)") not in div


def test_a_branch_fixed_at_compile_time_is_never_entered(tmp_path):
    # vote_all<32>: `if (width == 32)` holds, so the butterfly branch is dead code; it was
    # lowered from the template's own body, with width bound to 32 (clang declared the
    # specialization but never instantiated it: its caller is an uninstantiated template)
    fa = lower(tmp_path, ALL_REDUCE)
    from cudalint.analyzer.cfg import CFG
    call = next(x for x in fa.tu.function("kv_max").expressions()
                if isinstance(x, ir.Call) and x.callee == "vote_all")
    fn = call.function
    assert fn is not None and fn.template_bindings == {"width": 32}
    cfg = CFG(fn)
    live = cfg.reachable()
    returns = [n for n in cfg.nodes if n.kind == "return"]
    assert [n.line for n in returns if n in live] == [line_of(ALL_REDUCE, "return __all_sync")]
    assert [n.line for n in returns if n not in live] == [line_of(ALL_REDUCE, "return x;")]


def test_divergence_count_on_an_assumed_block_says_so(tmp_path):
    """The interleaved tree reduction of "Learn CUDA Programming" (chapter 3), launched with a
    block size read at run time: CL604 counted with the default block of 256 but said "in a
    block of 256x1x1 threads" as if the launch gave it. By hand, block 256 (8 warps), stride
    1..128 (8 executions): `i % (2*st) == 0` splits every warp for st = 1..16 (5 x 8 = 40),
    the warps holding a multiple of 64 for st = 32 (4), of 128 for 64 (2), of 256 for 128 (1):
    47 of 64 warp executions."""
    from cudalint.rules.runner import CheckOptions, check_file
    src = textwrap.dedent("""\
        __global__ void r(float *d, unsigned n)
        {
            extern __shared__ float s[];
            unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
            s[threadIdx.x] = (i < n) ? d[i] : 0.0f;
            __syncthreads();
            for (unsigned st = 1; st < blockDim.x; st *= 2) {
                if ((i % (2 * st)) == 0)
                    s[threadIdx.x] += s[threadIdx.x + st];
                __syncthreads();
            }
            if (threadIdx.x == 0)
                d[blockIdx.x] = s[0];
        }
        void run(float *d, int nt, int n) { r<<<(n + nt - 1) / nt, nt, nt * sizeof(float)>>>(d, n); }
        """)
    p = tmp_path / "k.cu"
    p.write_text(src)
    res, _ = check_file(str(p), AnalysisOptions(), CheckOptions())
    d = [d for d in res.diagnostics if d.code == "CL604"]
    assert len(d) == 1 and d[0].location.line == 8
    assert "47 of the 64 warp executions" in d[0].message
    assert ("in a block of 256x1x1 threads (assumed: the block size of the launch at line 15 "
            "is not known)") in d[0].message


def test_thread_index_chains_are_followed_once_per_definition(tmp_path, monkeypatch):
    """``a7 < blockDim.x`` with a7 a copy of a copy ... of threadIdx.x, each copy made on both
    sides of an if: every thread passes, so the barrier under it is not divergent. Each
    definition is followed once: a7 is looked up once, and each of its 2 definitions names a6,
    each of whose 2 definitions names a5, ...: 1 + 2 * 7 = 15 look-ups of reaching definitions
    (a0 twice), not one per path through the copies (2**7 = 128 paths; SHOC QTC's
    macro-expanded candidates spent 40 s of 170 here)."""
    copies = "\n".join(f"    int a{j}; if (p > {j}) a{j} = a{j - 1}; else a{j} = a{j - 1};" for j in range(1, 8))
    src = f"""
    __global__ void k(int* out, int p)
    {{
        int a0 = threadIdx.x;
    {copies}
        if (a7 < blockDim.x) __syncthreads();
        out[threadIdx.x] = a7;
    }}
    """
    fa = lower(tmp_path, src)
    fn = fa.tu.function("k")
    calls = []
    plain = Uniformity._plain_defs
    monkeypatch.setattr(Uniformity, "_plain_defs", lambda self, v, at: calls.append(v.name) or plain(self, v, at))
    u = Uniformity(fn)
    assert line_of(src, "a7 < blockDim.x") not in {d.line for d in u.divergent_decisions}
    assert not list(u.divergent_barriers())
    assert calls.count("a7") == 1 and calls.count("a0") == 2 and len(calls) == 15, calls


def test_a_device_function_s_early_return_called_last_by_its_kernel_is_a_warning():
    # fixtures/barriers/device_fn_early_return_last_call.cu: the threads sort_prefix turns away
    # leave the kernel without another barrier (a warning, was an error); after
    # sort_prefix_then, tail_sync synchronises again, so that one stays an error
    from pathlib import Path

    from cudalint.analyzer.pipeline import AnalysisOptions
    from cudalint.rules.runner import check_file

    fx = Path(__file__).resolve().parents[1] / "fixtures" / "barriers" / "device_fn_early_return_last_call.cu"
    res, _ = check_file(str(fx), AnalysisOptions(use_ptxas=False))
    got = sorted((d.location.line, d.severity) for d in res.diagnostics if d.code == "CL601")
    assert got == [(14, "warning"), (23, "error")]
