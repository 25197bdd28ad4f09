"""Control-flow graphs and barrier intervals (analyzer/cfg.py)."""
from __future__ import annotations

import textwrap

import pytest

from cudalint.analyzer import ir
from cudalint.analyzer.cfg import BARRIER, BRANCH, EXIT, LOOP_COND, RETURN, CFG
from cudalint.analyzer.digraph import ancestors
from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file


def lower(tmp_path, src: str, name: str = "k.cu"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(src))
    fa = analyze_file(str(p), AnalysisOptions())
    assert fa.error is None, fa.error
    return fa


def fn(fa, name):
    f = fa.tu.function(name)
    assert f is not None, name
    return f


TILED = """
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
        __syncthreads();
    }
    P[ty * w + tx] = v;
}
"""


def _nodes_on_line(cfg, line):
    return [n for n in cfg.nodes if n.line == line and n.kind != "entry"]


def test_tiled_product_has_three_intervals_and_one_wraps_the_loop(tmp_path):
    fa = lower(tmp_path, TILED)
    cfg = CFG(fn(fa, "mm"))
    bars = cfg.barriers()
    assert [b.line for b in bars] == [12, 15]
    ivs = cfg.barrier_intervals()
    assert len(ivs) == 3
    entry_iv, first, second = ivs
    # the kernel start reaches the first barrier (and the end, when the loop does not run)
    assert [e.line for e in entry_iv.ends if e.kind == BARRIER] == [12]
    assert not entry_iv.wraps
    # between the barriers: the k-loop reads, nothing of the tile loads
    lines_first = {n.line for n in first.nodes}
    assert 14 in lines_first and 10 not in lines_first and 11 not in lines_first
    assert [e.line for e in first.ends if e.kind == BARRIER] == [15]
    # after the second barrier: around the back edge to the loads of the next iteration
    loop = next(s for s in fn(fa, "mm").statements() if isinstance(s, ir.Loop))
    assert second.wraps == [loop]
    after = {n.line for n in second.after_back_edge[loop]}
    assert {10, 11} <= after
    assert 14 not in {n.line for n in second.nodes}
    assert "around the back edge of the loop at line 9" in second.describe()


def test_missing_second_barrier_puts_loads_and_reads_in_one_interval(tmp_path):
    fa = lower(tmp_path, TILED.replace("            v += Ms[ty][k] * Ns[k][tx];\n        __syncthreads();\n",
                                       "            v += Ms[ty][k] * Ns[k][tx];\n"))
    cfg = CFG(fn(fa, "mm"))
    assert len(cfg.barriers()) == 1
    ivs = cfg.barrier_intervals()
    wrap = ivs[1]
    assert wrap.start.line == 12
    read = [n for n in _nodes_on_line(cfg, 14) if n.kind == "stmt"][0]
    load = [n for n in _nodes_on_line(cfg, 10)][0]
    assert read in wrap.nodes and load in wrap.nodes
    loop = wrap.wraps[0]
    assert load in wrap.after_back_edge[loop] and read not in wrap.after_back_edge[loop]
    assert cfg.same_interval(read, load) is wrap


def test_back_edges_and_loop_structure(tmp_path):
    fa = lower(tmp_path, TILED)
    cfg = CFG(fn(fa, "mm"))
    back = cfg.back_edges()
    # one back edge per loop: step -> condition
    assert len(back) == 2
    assert all(v.kind == LOOP_COND for _, v in back)
    assert sorted(v.line for _, v in back) == [9, 13]
    outer = next(s for s in fn(fa, "mm").statements() if isinstance(s, ir.Loop))
    assert cfg.loop_has_barrier(outer)
    inner = [s for s in fn(fa, "mm").statements() if isinstance(s, ir.Loop)][1]
    assert not cfg.loop_has_barrier(inner)


def test_early_return_makes_later_barrier_control_dependent(tmp_path):
    fa = lower(tmp_path, """
    __global__ void k(float* d, int n)
    {
        __shared__ float s[256];
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i >= n)
            return;
        s[threadIdx.x] = d[i];
        __syncthreads();
        if (n > 3) {
            d[i] = s[0];
        }
        __syncthreads();
    }
    """)
    cfg = CFG(fn(fa, "k"))
    b1, b2 = cfg.barriers()
    ret = next(n for n in cfg.nodes if n.kind == RETURN)
    br = [n for n in cfg.nodes if n.kind == BRANCH]
    early, later = sorted(br, key=lambda n: n.line)
    assert cfg.graph.has_edge(ret, cfg.exit)
    assert early in cfg.controlling_decisions(b1)
    assert early in cfg.controlling_decisions(b2)
    # the barrier after `if (n > 3) {...}` does not depend on that branch
    assert later not in cfg.controlling_decisions(b2)
    assert cfg.postdominates(b2, later)
    assert not cfg.postdominates(b1, early)


def test_break_continue_and_switch_edges(tmp_path):
    fa = lower(tmp_path, """
    __global__ void k(int* d, int n)
    {
        for (int i = 0; i < n; ++i) {
            if (d[i] < 0)
                break;
            if (d[i] == 0)
                continue;
            switch (d[i]) {
            case 1: d[i] = 2; break;
            default: d[i] = 3;
            }
            __syncthreads();
        }
    }
    """)
    cfg = CFG(fn(fa, "k"))
    brk = [n for n in cfg.nodes if n.kind == "break"]
    cont = [n for n in cfg.nodes if n.kind == "continue"]
    assert len(brk) == 2 and len(cont) == 1
    loop_brk = min(brk, key=lambda n: n.line)
    # the loop's break leaves the loop: its successor is the exit of the kernel
    assert list(cfg.graph.successors(loop_brk)) == [cfg.exit]
    # continue goes to the step (++i), which closes the loop
    (step,) = list(cfg.graph.successors(cont[0]))
    assert step.kind == "loop_step"
    # the switch's break goes to the barrier after the switch
    sw_brk = max(brk, key=lambda n: n.line)
    assert [s.kind for s in cfg.graph.successors(sw_brk)] == [BARRIER]
    bar = cfg.barriers()[0]
    # reached only if neither the break nor the continue was taken
    decs = {d.line for d in cfg.controlling_decisions(bar)}
    assert {5, 7} <= decs


def test_host_function_cfg_has_launch_and_exit(tmp_path):
    fa = lower(tmp_path, """
    __global__ void k(float* x) { x[threadIdx.x] = 0.0f; }
    int main()
    {
        float* x = 0;
        for (int r = 0; r < 3; ++r)
            k<<<1, 32>>>(x);
        return 0;
    }
    """)
    cfg = CFG(fn(fa, "main"))
    launch = [n for n in cfg.nodes if any(isinstance(x, ir.LaunchExpr) for e in n.exprs() for x in e.walk())]
    assert len(launch) == 1 and launch[0].line == 7
    assert launch[0] in ancestors(cfg.graph, cfg.exit)
    # the launch is inside the loop: it reaches itself through the back edge
    assert any(s in ancestors(cfg.graph, launch[0]) for s in cfg.graph.successors(launch[0]))
    assert len(cfg.barrier_intervals()) == 1
    assert any(e.kind == EXIT for e in cfg.barrier_intervals()[0].ends)


@pytest.mark.parametrize("header, clauses", [
    ("int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x",
     ("decl", "<", "+=")),
    ("i = threadIdx.x; i < n; i++", ("expr", "<", "post++")),
    ("; i < n; i++", (None, "<", "post++")),
    ("i = 0; ; i++", ("expr", None, "post++")),
    ("int i = 0; i != n;", ("decl", "!=", None)),
])
def test_for_header_written_by_a_macro_keeps_its_clauses(tmp_path, header, clauses):
    # The header's tokens are the macro's definition, not at the loop: the clauses are placed
    # by kind. (A lost condition made the loop infinite, so every later barrier looked divergent.)
    f = fn(lower(tmp_path, f"""
    #define LOOP(...) for (__VA_ARGS__)
    __global__ void k(float* a, int n) {{
        int i;
        LOOP({header}) a[i] = 0.0f;
        __syncthreads();
        a[0] = 1.0f;
    }}"""), "k")
    (lp,) = [s for s in f.statements() if isinstance(s, ir.Loop)]
    init = None if not lp.init else ("decl" if isinstance(lp.init[0], ir.DeclStmt) else "expr")
    cond = lp.cond.op if lp.cond is not None else None
    step = (lp.step.op if lp.step is not None else None)
    assert (init, cond, step) == clauses
    g = CFG(f)
    exits = [n for n in g.graph.nodes if n.kind == LOOP_COND]
    if clauses[1] is not None:  # a loop with a condition has its exit edge
        assert any(g.graph.edges[e]["label"] is False for e in g.graph.out_edges(exits[0]))


CONST_ARM = """
#define WARP_SZ 32
typedef long fr_t;
__device__ void exchange(fr_t* x) {
    const unsigned Z = 256 / sizeof(fr_t);       // 32
    (Z > WARP_SZ) ? __syncthreads() : __syncwarp();
}
__global__ void k(fr_t* out, const fr_t* in) {
    const unsigned Z_COUNT = 256 / sizeof(fr_t);  // 32
    __shared__ fr_t x[256];
    int tid = threadIdx.x;
    do {
        if (in[tid] > 0)
            continue;
        x[tid] = in[tid];
        (Z_COUNT > WARP_SZ) ? __syncthreads() : __syncwarp();
        (Z_COUNT >= WARP_SZ) ? __syncthreads() : __syncwarp();
        exchange(x);
        out[tid] = x[tid ^ 1];
    } while (0);
}
"""


def test_the_arm_a_constant_condition_rules_out_is_no_barrier(tmp_path):
    # HeCBench bitpermute: `(Z_COUNT > WARP_SZ) ? __syncthreads() : __syncwarp();` with
    # Z_COUNT = 256 / sizeof(long) = 32 only ever runs __syncwarp.
    fa = lower(tmp_path, CONST_ARM)
    cfg = CFG(fn(fa, "k"))
    src = textwrap.dedent(CONST_ARM).splitlines()
    assert [n.line for n in cfg.barriers()] == [n for n, t in enumerate(src, 1) if "Z_COUNT >= WARP_SZ" in t]
    assert CFG(fn(fa, "exchange")).barriers() == []
