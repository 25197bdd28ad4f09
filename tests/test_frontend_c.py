"""The pycparser frontend (analyzer/frontend/lower_c.py) on the plain-C fixtures: IR shape,
types, CUDA constructs, source positions, launch sites, and errors on bad input."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from cudalint.analyzer import ir
from cudalint.analyzer.frontend import c_source
from cudalint.analyzer.frontend.errors import FrontendError
from cudalint.analyzer.frontend.ir_dump import ir_diff, ir_summary
from cudalint.analyzer.frontend.lower_c import lower_c_file

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "fixtures" / "c"
C_FIXTURES = sorted(FIX.glob("*.cu"))


def lower(name: str) -> ir.TranslationUnit:
    return lower_c_file(str(FIX / name))


def pos(path: Path, needle: str, nth: int = 1, after_line: int = 0) -> tuple[int, int]:
    """1-based (line, column) of the nth occurrence of needle (on lines after after_line)."""
    seen = 0
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if n <= after_line:
            continue
        start = 0
        while True:
            c = line.find(needle, start)
            if c < 0:
                break
            seen += 1
            if seen == nth:
                return n, c + 1
            start = c + 1
    raise AssertionError(f"{needle!r} #{nth} not in {path.name}")


def at(node) -> tuple[int, int]:
    return node.range.line, node.range.column


def exprs(fn: ir.Function, cls=ir.Expr):
    return [e for e in fn.expressions() if isinstance(e, cls)]


def stmts(fn: ir.Function, cls=ir.Stmt):
    return [s for s in fn.statements() if isinstance(s, cls)]


def write(tmp_path: Path, text: str, name: str = "t.cu") -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


# ----------------------------------------------------------------------------- fixtures

def test_fixtures_present():
    assert len(C_FIXTURES) >= 6


@pytest.mark.parametrize("path", C_FIXTURES, ids=lambda p: p.name)
def test_every_fixture_lowers(path: Path):
    tu = lower_c_file(str(path))
    assert tu.frontend == "pycparser"
    assert tu.kernels, "each C fixture defines at least one kernel"
    for fn in tu.functions:
        assert fn.range.line > 0 and fn.range.column > 0
        assert fn.range.file == str(path)
        for e in fn.expressions():
            assert e.range.line > 0 and e.range.column > 0, (fn.name, e)
            assert (e.range.end_line, e.range.end_column) >= (e.range.line, e.range.column), e
        for s in fn.statements():
            assert s.range.line > 0 and s.range.column > 0, (fn.name, s)
    # lowering is deterministic
    assert ir_summary(tu) == ir_summary(lower_c_file(str(path)))


def test_tiled_matmul_kernel():
    path = FIX / "matmul_tiled.cu"
    tu = lower("matmul_tiled.cu")
    assert [f.name for f in tu.kernels] == ["matmul_tiled"]
    k = tu.function("matmul_tiled")
    assert k.kind == "global" and k.return_type.spelling == "void"
    assert [(p.name, p.type.spelling, p.storage) for p in k.params] == [
        ("a", "const float *__restrict", "param"), ("b", "const float *__restrict", "param"),
        ("c", "float *__restrict", "param"), ("width", "int", "param")]
    a = k.params[0].type
    assert a.kind == "pointer" and a.size == 8
    assert a.element.spelling == "const float" and a.element.is_const and a.element.is_float
    assert at(k.params[0]) == pos(path, "const float *__restrict__ a")
    # __shared__ float As[TILE][TILE]: array(16) of array(16) of float, 1024 bytes
    As = next(v for v in k.locals if v.name == "As")
    assert As.storage == "shared" and not As.file_scope
    assert As.type.spelling == "float[16][16]" and As.type.kind == "array"
    assert As.type.extent == 16 and As.type.size == 1024 and As.type.is_float
    assert As.type.element.spelling == "float[16]" and As.type.element.size == 64
    assert As.type.array_extents() == [16, 16]
    assert As.type.innermost_element().spelling == "float"
    assert at(As) == pos(path, "__shared__ float As")
    assert [v.name for v in k.locals] == ["As", "Bs", "tx", "ty", "row", "col", "acc", "t", "k"]
    # `int t, k;` -> two DeclStmts, the second starting at its name (as clang's VarDecl)
    decls = [s for s in stmts(k, ir.DeclStmt) if s.var.name in ("t", "k")]
    assert [at(d) for d in decls] == [pos(path, "int t, k;"), pos(path, "k;", after_line=15)]
    # threadIdx.x / threadIdx.y -> Builtin nodes typed unsigned int
    bis = exprs(k, ir.Builtin)
    assert {(b.name, b.component) for b in bis} == {("threadIdx", "x"), ("threadIdx", "y"),
                                                     ("blockIdx", "x"), ("blockIdx", "y")}
    assert all(b.type == ir.UINT_TYPE for b in bis)
    tx = next(b for b in bis if b.name == "threadIdx" and b.component == "x")
    assert at(tx) == pos(path, "threadIdx.x")
    assert (tx.range.end_line, tx.range.end_column) == (tx.range.line, tx.range.column + len("threadIdx.x"))


def test_tiled_matmul_loops_barriers_and_unroll():
    path = FIX / "matmul_tiled.cu"
    k = lower("matmul_tiled.cu").function("matmul_tiled")
    loops = stmts(k, ir.Loop)
    assert [(lp.kind, lp.unroll) for lp in loops] == [("for", None), ("for", 0)]
    outer, inner = loops
    assert at(outer) == pos(path, "for (t = 0")
    assert len(outer.init) == 1 and isinstance(outer.init[0], ir.ExprStmt)
    init = outer.init[0].expr
    assert isinstance(init, ir.Assign) and init.op == "=" and init.target.name == "t"
    assert isinstance(outer.cond, ir.BinOp) and outer.cond.op == "<"
    assert outer.cond.type.spelling == "bool"  # C++ typing, as clang reports it
    assert isinstance(outer.step, ir.UnaryOp) and outer.step.op == "post++"
    assert isinstance(outer.body, ir.Block)
    # the unrolled loop's body is a single statement, wrapped in a Block
    assert at(inner) == pos(path, "for (k = 0")
    assert len(inner.body.stmts) == 1 and isinstance(inner.body.stmts[0], ir.ExprStmt)
    acc = inner.body.stmts[0].expr
    assert isinstance(acc, ir.Assign) and acc.op == "+=" and acc.target.name == "acc"
    assert at(acc) == pos(path, "acc += As[ty][k]")
    mul = acc.value
    assert isinstance(mul, ir.BinOp) and mul.op == "*" and mul.type.spelling == "float"
    # As[ty][k] = Index(Index(As, ty), k)
    idx = mul.lhs
    assert isinstance(idx, ir.Index) and isinstance(idx.base, ir.Index)
    assert idx.base.base.name == "As" and idx.base.index.name == "ty" and idx.index.name == "k"
    assert idx.base.type.spelling == "float[16]" and idx.type.spelling == "float"
    bars = stmts(k, ir.Barrier)
    assert [(b.name, b.scope) for b in bars] == [("__syncthreads", "block")] * 2
    assert at(bars[0]) == pos(path, "__syncthreads()")
    # a macro-expanded constant is positioned on the macro name (TILE), like clang
    consts = [e for e in exprs(k, ir.Const) if e.value == 16]
    first = pos(path, "TILE + tx")
    c = next(e for e in consts if e.range.line == first[0])
    assert at(c) == (first[0], first[1]) and c.range.end_column == first[1] + len("TILE")


def test_tiled_matmul_launch_site():
    path = FIX / "matmul_tiled.cu"
    tu = lower("matmul_tiled.cu")
    (site,) = tu.launches
    assert site.kernel == "matmul_tiled" and site.caller == "launch_tiled"
    assert site.grid == (64, 64, 1) and site.block == (16, 16, 1) and site.dynamic_smem == 0
    assert (site.grid_text, site.block_text, site.smem_text) == ("blocks", "threads", "")
    line, col = pos(path, "matmul_tiled<<<")
    assert (site.range.line, site.range.column) == (line, col)
    assert site.range.end_column == len("    matmul_tiled<<<blocks, threads>>>(a, b, c, WIDTH);")
    assert [type(a).__name__ for a in site.args] == ["VarRef", "VarRef", "VarRef", "Const"]
    assert site.arg_values == [None, None, None, 1024]
    host = tu.function("launch_tiled")
    assert host.kind == "host"
    (launch,) = exprs(host, ir.LaunchExpr)
    assert launch.site is site and len(launch.config) == 2 and launch.args == site.args
    # dim3 threads = {TILE, TILE, 1}: the C aggregate initializer becomes dim3's constructor
    # call, as clang sees it in CUDA C++
    d = next(s for s in stmts(host, ir.DeclStmt) if s.var.name == "threads")
    assert d.var.type.spelling == "dim3" and d.var.type.kind == "record" and d.var.type.size == 12
    assert isinstance(d.init, ir.Call) and d.init.callee == "dim3"
    assert [a.value for a in d.init.args] == [16, 16, 1]


def test_naive_matmul_declarations_and_host_code():
    path = FIX / "matmul_naive.cu"
    tu = lower("matmul_naive.cu")
    assert [f.name for f in tu.kernels] == ["matmul_naive"]
    main = tu.function("main")
    assert main.kind == "host" and main.return_type.spelling == "int" and main.params == []
    ptrs = [s for s in stmts(main, ir.DeclStmt) if s.var.name in ("d_a", "d_b", "d_c")]
    assert [at(s) for s in ptrs] == [pos(path, "float *d_a"), pos(path, "d_b,"), pos(path, "d_c;")]
    assert all(s.var.type.spelling == "float *" and s.init is None for s in ptrs)
    h = next(s for s in stmts(main, ir.DeclStmt) if s.var.name == "h_a")
    assert isinstance(h.init, ir.Cast) and not h.init.implicit and h.init.type.spelling == "float *"
    malloc = h.init.operand
    assert isinstance(malloc, ir.Call) and malloc.callee == "malloc" and malloc.type.spelling == "void *"
    assert malloc.function is None  # declared in a header, not defined in the file
    size = next(s for s in stmts(main, ir.DeclStmt) if s.var.name == "bytes")
    assert size.var.type.spelling == "size_t"
    sz = [e for e in size.init.walk() if isinstance(e, ir.SizeOf)]
    assert len(sz) == 1 and sz[0].value == 4 and sz[0].type.spelling == "unsigned long"
    # cudaMemcpyHostToDevice is an enum constant: a Const of the enum type
    kinds = [e for e in exprs(main, ir.Const) if e.type.spelling == "cudaMemcpyKind"]
    assert [e.value for e in kinds] == [1, 1, 2]
    (site,) = tu.launches
    assert site.grid == (32, 32, 1) and site.block == (16, 16, 1)
    fmt = next(e for e in exprs(main, ir.Const) if isinstance(e.value, str))
    assert fmt.value == '"c[0] = %f\\n"' and fmt.type.spelling == "const char[11]"


def test_vector_add_launch_bounds_and_constant_propagation():
    path = FIX / "vector_add.cu"
    tu = lower("vector_add.cu")
    k = tu.function("vec_add")
    assert k.launch_bounds == (256, 4)
    assert at(k) == pos(path, "__global__ void __launch_bounds__")
    iff = stmts(k, ir.If)
    assert len(iff) == 1 and iff[0].otherwise is None and len(iff[0].then.stmts) == 1
    assert iff[0].cond.type.spelling == "bool"
    add = iff[0].then.stmts[0].expr.value
    assert isinstance(add, ir.BinOp) and add.op == "+"
    assert add.lhs.type.spelling == "const float" and add.type.spelling == "float"
    i = next(s for s in stmts(k, ir.DeclStmt) if s.var.name == "i")
    assert i.init.type.spelling == "unsigned int"  # int promoted by threadIdx.x (unsigned)
    (site,) = tu.launches
    assert site.block == (256, 1, 1) and site.grid == (4096, 1, 1)
    assert (site.grid_text, site.block_text) == ("blocks", "threads")
    assert site.arg_values == [None, None, None, 1 << 20]


def test_local_arrays_and_unroll_counts():
    tu = lower("local_array_unrolled.cu")
    k = tu.function("stencil5")
    w = next(v for v in k.locals if v.name == "w")
    assert w.storage == "auto" and w.type.spelling == "float[5]" and w.type.size == 20
    loops = stmts(k, ir.Loop)
    assert [lp.unroll for lp in loops] == [0, 5]
    ret = stmts(k, ir.Return)
    assert len(ret) == 1 and ret[0].value is None
    tu2 = lower("local_array_runtime_index.cu")
    k2 = tu2.function("histogram_private")
    counts = next(v for v in k2.locals if v.name == "counts")
    assert counts.type.spelling == "int[8]" and counts.type.size == 32
    path = FIX / "local_array_runtime_index.cu"
    acc = next(e for e in exprs(k2, ir.Assign) if e.op == "+=")
    assert at(acc) == pos(path, "counts[key] += 1")
    assert isinstance(acc.target, ir.Index) and acc.target.index.name == "key"


def test_extern_shared_and_dynamic_smem():
    path = FIX / "extern_shared_reduce.cu"
    tu = lower("extern_shared_reduce.cu")
    k = tu.function("block_sum")
    s = next(v for v in k.locals if v.name == "sdata")
    assert s.storage == "extern_shared"
    assert s.type.kind == "array" and s.type.extent is None and s.type.size is None
    assert s.type.spelling == "float[]"
    loop = stmts(k, ir.Loop)[0]
    assert isinstance(loop.init[0], ir.DeclStmt) and loop.init[0].var.type.spelling == "unsigned int"
    assert isinstance(loop.step, ir.Assign) and loop.step.op == ">>="
    tern = exprs(k, ir.Ternary)
    assert len(tern) == 1 and tern[0].type.spelling == "float"
    assert at(tern[0].cond) == pos(path, "i < n)")  # parentheses are not nodes
    assert at(tern[0]) == pos(path, "(i < n) ?")  # ... but the parent starts at "("
    (site,) = tu.launches
    assert site.dynamic_smem == 512 and site.block == (128, 1, 1) and site.grid is None
    assert site.smem_text == "THREADS * sizeof(float)"


def test_globals_device_helper_and_callees():
    tu = lower("globals_and_helpers.cu")
    assert [(v.name, v.storage, v.file_scope) for v in tu.globals] == [
        ("coeffs", "constant", True), ("bias", "device", True), ("processed", "device", True)]
    assert tu.globals[0].type.spelling == "float[8]" and tu.globals[0].type.size == 32
    fir = tu.function("fir")
    helper = tu.function("fir_tap")
    assert helper.kind == "device" and helper.return_type.spelling == "float"
    assert fir.callees == [helper]
    assert [v.name for v in fir.globals_used] == ["bias", "processed"]
    assert [v.name for v in helper.globals_used] == ["coeffs"]
    calls = [e for e in exprs(fir, ir.Call) if e.callee == "fir_tap"]
    assert len(calls) == 1 and calls[0].function is helper and calls[0].type.spelling == "float"
    atomic = next(e for e in exprs(fir, ir.Call) if e.callee == "atomicAdd")
    assert atomic.type.spelling == "unsigned int"  # overload picked from &processed
    assert atomic.function is None
    # host code references the __constant__ symbol: it appears in main's globals_used too
    main = tu.function("main")
    assert [v.name for v in main.globals_used] == ["coeffs", "bias"]
    (site,) = tu.launches
    assert (site.grid, site.block) == ((16, 1, 1), (64, 1, 1))
    assert [f.name for f in tu.functions if f.kind == "device"] == ["fir_tap"]


def test_control_flow_and_warp_constructs():
    tu = lower("warp_and_switch.cu")
    k = tu.function("classify")
    sw = stmts(k, ir.Switch)
    assert len(sw) == 1
    cases = [s for s in sw[0].body.stmts if isinstance(s, ir.Case)]
    assert [c.value.value if c.value is not None else None for c in cases] == [0, 1, 2, None]
    assert sum(isinstance(s, ir.Break) for s in sw[0].body.stmts) == 2
    assert [lp.kind for lp in stmts(k, ir.Loop)] == ["while", "do", "for"]
    do = stmts(k, ir.Loop)[1]
    assert do.init == [] and do.step is None and isinstance(do.cond, ir.BinOp)
    (sync,) = stmts(k, ir.Barrier)
    assert sync.name == "__syncwarp" and sync.scope == "warp"
    assert [a.value for a in sync.args] == [0xFFFFFFFF]
    ws = [e for e in exprs(k, ir.Builtin) if e.name == "warpSize"]
    assert len(ws) == 1 and ws[0].component == "" and ws[0].type == ir.INT_TYPE
    shfl = next(e for e in exprs(k, ir.Call) if e.callee == "__shfl_down_sync")
    assert shfl.type.spelling == "float" and len(shfl.args) == 4
    cast = next(e for e in exprs(k, ir.Cast))
    assert cast.type.spelling == "float" and cast.implicit is False
    post = [e for e in exprs(k, ir.UnaryOp) if e.op == "post++"]
    assert len(post) == 1 and post[0].operand.name == "steps"
    helper = tu.function("clamp_index")
    assert helper.kind == "device" and k.callees == [helper]
    (ret,) = stmts(helper, ir.Return)
    assert isinstance(ret.value, ir.Ternary) and isinstance(ret.value.otherwise, ir.Ternary)


@pytest.mark.parametrize("path", C_FIXTURES, ids=lambda p: p.name)
def test_fixture_expectations_with_pycparser(path: Path):
    """The inline `// expect:` / `// expect-fact:` of the C fixtures hold with --frontend
    pycparser too (test_fixtures.py checks them with the default clang frontend)."""
    from cudalint.rules.runner import CheckOptions, check_file
    from fixture_facts import RESOLVERS, kernel_at
    from test_fixtures import ITEM_RE, expectations, options_for

    text = path.read_text()
    opts = options_for(text)
    opts.frontend = "pycparser"
    result, fa = check_file(str(path), opts, CheckOptions())
    assert fa.error is None and fa.tu is not None and fa.tu.frontend == "pycparser"
    want, facts = expectations(text)
    got = {(d.location.line, d.code) for d in result.diagnostics}
    assert got == want
    assert facts
    for line, item in facts:
        m = ITEM_RE.match(item)
        args = [a.strip() for a in (m.group("args") or "").split(",") if a.strip()]
        ks = kernel_at(fa, line, m.group("kernel"))
        value = RESOLVERS[m.group("key")](fa, ks[0] if ks else None, line, args)
        assert value == m.group("value").strip(), f"{path.name}:{line}: {item}"


# ----------------------------------------------------------------------------- small inputs

def test_types_literals_and_promotions(tmp_path):
    src = """\
#include <stdint.h>
struct S { char c; double d; int i; };
typedef struct { float2 a; float4 b; } V;
__global__ void k(unsigned u, long int l, const float *const p, float **pp, uint32_t w,
                  struct S *s, V *v, float arr[], int n)
{
    unsigned short us = 1;
    int r0 = us + us;
    long r1 = l + u;
    unsigned long long r2 = 10u + 10L + 0x80000000 + 'a';
    float f = 1.5f;
    double d = 1.5;
    int b = (n < 3) + !n;
    float4 q = v->b;
    double x = s->d + s[1].i + q.w + v->a.y;
    int z = sizeof(struct S) + sizeof(V) + sizeof q;
}
"""
    tu = lower_c_file(write(tmp_path, src))
    k = tu.function("k")
    ps = {p.name: p.type for p in k.params}
    assert ps["u"].spelling == "unsigned int" and ps["l"].spelling == "long" and ps["l"].size == 8
    assert ps["p"].spelling == "const float *const" and ps["p"].is_const
    assert ps["pp"].spelling == "float **" and ps["pp"].element.spelling == "float *"
    assert ps["w"].spelling == "uint32_t" and ps["w"].size == 4
    assert ps["s"].spelling == "struct S *" and ps["s"].element.size == 24  # padding
    assert ps["v"].element.size == 32  # float2 (8) + pad + float4 (16, aligned 16)
    assert ps["arr"].spelling == "float[]"  # array parameters keep their written type
    inits = {s.var.name: s.init for s in stmts(k, ir.DeclStmt)}
    assert inits["r0"].type.spelling == "int"  # unsigned short promotes to int
    assert inits["r1"].type.spelling == "long"  # long can hold every unsigned int
    lits = [e for e in inits["r2"].walk() if isinstance(e, ir.Const)]
    assert [(e.value, e.type.spelling) for e in lits] == [
        (10, "unsigned int"), (10, "long"), (0x80000000, "unsigned int"), (97, "char")]
    assert inits["r2"].type.spelling == "long"  # (10u + 10L) is long; long holds unsigned int
    assert (inits["f"].value, inits["f"].type.spelling) == (1.5, "float")
    assert inits["d"].type.spelling == "double"
    assert inits["b"].type.spelling == "int"  # bool + bool
    assert inits["b"].lhs.type.spelling == "bool" and inits["b"].rhs.type.spelling == "bool"
    q = next(v for v in k.locals if v.name == "q")
    assert q.type.kind == "vector" and q.type.lanes == 4 and q.type.size == 16 and q.type.is_float
    mem = [e for e in inits["x"].walk() if isinstance(e, ir.Member)]
    assert [(m.member, m.arrow, m.type.spelling) for m in mem] == [
        ("d", True, "double"), ("i", False, "int"), ("w", False, "float"), ("y", False, "float"),
        ("a", True, "float2")]
    assert inits["x"].type.spelling == "double"
    sizes = [e.value for e in inits["z"].walk() if isinstance(e, ir.SizeOf)]
    assert sizes == [24, 32, 16]


def test_macros_columns_tabs_and_inactive_code(tmp_path):
    src = ("#define IDX(r, c) ((r) * 16 + (c))\n"
           "#if 0\n"
           "__global__ void gone(void) { { {\n"
           "#endif\n"
           "__global__ void k(float *a,\n"
           "\t\t  int   n)\n"
           "{\n"
           "\tint  i  =   threadIdx.x;\n"
           "\ta[IDX(i,\n"
           "\t      n)]  =  i;\n"
           "}\n")
    tu = lower_c_file(write(tmp_path, src))
    assert [f.name for f in tu.functions] == ["k"]
    k = tu.function("k")
    assert at(k) == (5, 1) and (k.range.end_line, k.range.end_column) == (11, 2)
    assert at(k.params[1]) == (6, 5)  # tabs count one column, as in clang
    d = stmts(k, ir.DeclStmt)[0]
    assert at(d) == (8, 2) and at(d.init) == (8, 14)
    (asg,) = [s.expr for s in stmts(k, ir.ExprStmt)]
    assert at(asg) == (9, 2) and at(asg.value) == (10, 16)
    idx = asg.target.index  # every node of the expansion sits at the macro invocation
    assert all(at(e) == (9, 4) for e in idx.walk())
    assert (idx.range.end_line, idx.range.end_column) == (10, 10)


def test_unroll_pragmas(tmp_path):
    src = """\
#define TILE 8
#define UNROLL_ALL _Pragma("unroll")
__global__ void k(float *a, int n)
{
    int i;
#pragma unroll TILE
    for (i = 0; i < 8; i++) a[i] = 0;
#pragma unroll (4)
    for (i = 0; i < 8; i++) a[i] = 1;
#pragma unroll 1
    for (i = 0; i < n; i++) a[i] = 2;
    UNROLL_ALL
    for (i = 0; i < 4; i++) a[i] = 3;
#pragma unroll 2
    while (n--) a[n] = 4;
    for (i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) a[j] = 5;
}
"""
    k = lower_c_file(write(tmp_path, src)).function("k")
    loops = stmts(k, ir.Loop)
    assert [(lp.kind, lp.unroll, at(lp)) for lp in loops] == [
        ("for", 8, (7, 5)), ("for", 4, (9, 5)), ("for", 1, (11, 5)), ("for", 0, (13, 5)),
        ("while", 2, (15, 5)), ("for", None, (16, 5)), ("for", 0, (18, 9))]
    # `for (...) #pragma unroll for (...)`: the body Block starts at the pragma, as in clang
    body = loops[5].body
    assert len(body.stmts) == 1 and body.stmts[0] is loops[6] and at(body) == (17, 1)


def test_launch_rewrite_leaves_strings_and_shifts_alone(tmp_path):
    src = """\
__global__ void k(int *x, int s) { x[0] = s >> 1; }
void host(int *x)
{
    const char *msg = "k<<<1, 1>>>(x)";
    int s = 256 >> 2;
    k<<<2, s << 1>>>(x, s);
    k<<< 4 , 32 , 0 , 0 >>>(x, 1);
}
"""
    tu = lower_c_file(write(tmp_path, src))
    host = tu.function("host")
    msg = next(s for s in stmts(host, ir.DeclStmt) if s.var.name == "msg")
    assert msg.init.value == '"k<<<1, 1>>>(x)"'
    assert [(l.grid, l.block, l.range.line, l.range.column) for l in tu.launches] == [
        ((2, 1, 1), (128, 1, 1), 6, 5), ((4, 1, 1), (32, 1, 1), 7, 5)]
    assert tu.launches[0].block_text == "s << 1"
    assert tu.launches[1].stream_text == "0" and tu.launches[1].dynamic_smem == 0
    assert len(exprs(host, ir.LaunchExpr)) == 2


def test_missing_headers_are_stubbed_with_a_note(tmp_path):
    path = write(tmp_path, '#include "helper_cuda.h"\n__global__ void k(int *a) { a[0] = 1; }\n')
    tu = lower_c_file(path)
    assert [f.name for f in tu.kernels] == ["k"]
    assert any("helper_cuda.h" in n and "-I" in n for n in tu.notes)


def test_include_dirs_and_defines(tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "tile.h").write_text("#define TILE 8\n__device__ int twice(int x) { return 2 * x; }\n")
    path = write(tmp_path, '#include "tile.h"\n'
                           '__global__ void k(int *a) { __shared__ int s[TILE * SCALE]; a[0] = twice(s[0]); }\n')
    tu = lower_c_file(path, include_dirs=[str(inc)], defines=["SCALE=3"])
    k = tu.function("k")
    assert k.locals[0].type.spelling == "int[24]"
    (call,) = [e for e in exprs(k, ir.Call)]
    assert call.function is not None and call.function.range.file.endswith("tile.h")


# ----------------------------------------------------------------------------- errors

def test_syntax_error_position(tmp_path):
    path = write(tmp_path, "#define N 4\n__global__ void k(float *a)\n{\n    a[0] = a[1] +* ;\n}\n")
    with pytest.raises(FrontendError) as ei:
        lower_c_file(path)
    e = ei.value
    assert (e.line, e.column) == (4, 20) and e.path == path
    assert "parse error" in e.message
    assert str(e).startswith(f"{path}:4:20: ")


def test_missing_semicolon_reports_next_line(tmp_path):
    path = write(tmp_path, "__global__ void k(float *a)\n{\n    int i = threadIdx.x\n    a[i] = 0;\n}\n")
    with pytest.raises(FrontendError) as ei:
        lower_c_file(path)
    assert (ei.value.line, ei.value.column) == (4, 5)


def test_lexer_error_position(tmp_path):
    path = write(tmp_path, "__global__ void k(float *a) {\n\ta[0] = 1 @ 2;\n}\n")
    with pytest.raises(FrontendError) as ei:
        lower_c_file(path)
    assert (ei.value.line, ei.value.column) == (2, 11)


def test_cxx_input_is_a_frontend_error(tmp_path):
    path = write(tmp_path, "template <typename T>\n__global__ void k(T *a) { a[0] = 1; }\n")
    with pytest.raises(FrontendError) as ei:
        lower_c_file(path)
    assert ei.value.line == 1


def test_preprocessor_error(tmp_path):
    path = write(tmp_path, '\n#error "no C here"\n')
    with pytest.raises(FrontendError) as ei:
        lower_c_file(path)
    assert ei.value.line == 2 and "no C here" in ei.value.message


def test_missing_file():
    with pytest.raises(FrontendError):
        lower_c_file(str(FIX / "does_not_exist.cu"))


def test_no_preprocessor(monkeypatch):
    monkeypatch.delenv("CUDALINT_CPP", raising=False)
    monkeypatch.setattr(c_source.shutil, "which", lambda name: None)
    with pytest.raises(FrontendError) as ei:
        lower_c_file(str(FIX / "vector_add.cu"))
    assert "preprocessor" in ei.value.message and "CUDALINT_CPP" in ei.value.message


def test_preprocessor_override(monkeypatch):
    monkeypatch.setenv("CUDALINT_CPP", "/nonexistent/cpp -E")
    with pytest.raises(FrontendError) as ei:
        lower_c_file(str(FIX / "vector_add.cu"))
    assert "/nonexistent/cpp" in ei.value.message


def test_frontend_error_pickles():
    import pickle
    e = pickle.loads(pickle.dumps(FrontendError("bad", 3, 4, "x.cu")))
    assert (e.message, e.line, e.column, e.path) == ("bad", 3, 4, "x.cu")


# ----------------------------------------------------------------------------- ir_summary

def test_ir_summary_ignores_uids_and_ends_but_sees_structure(tmp_path):
    base = "__global__ void k(int *a) { int i = threadIdx.x; a[i] = i + 1; }\n"
    s1 = ir_summary(lower_c_file(write(tmp_path, base, "a.cu")))
    # same code, different uids (an extra variable first) and end columns (longer literal)
    s2 = ir_summary(lower_c_file(write(tmp_path, base.replace("i + 1", "i + 100"), "b.cu")))
    diff = ir_diff(s1, s2)
    assert diff == ["functions[0]<k@1:1>.body.stmts[1]<ExprStmt@1:50>.expr.value.rhs.value: 1 != 100"]
    s3 = ir_summary(lower_c_file(write(tmp_path, base.replace("i + 1", "i - 1"), "c.cu")))
    assert any(d.endswith("op: '+' != '-'") for d in ir_diff(s1, s3))
    k = s1["functions"][0]
    assert k["kind"] == "global" and k["locals"] == ["i:auto@1:29"]
    assert k["body"]["stmts"][0]["init"] == {
        "expr": "Builtin", "at": "1:37", "type": "unsigned int <scalar 4>",
        "name": "threadIdx", "component": "x"}
