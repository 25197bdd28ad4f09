"""The IR's traversals (iterative, for speed) visit the same nodes in the same pre-order as the
plain recursive definitions, on every function of real fixtures."""
from __future__ import annotations

from pathlib import Path

from cudalint.analyzer import ir
from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file

ROOT = Path(__file__).resolve().parents[1]
FILES = ["examples/matmul.cu", "barriers/macro_grid_stride_loops.cu", "barriers/inplace_transpose_two_warps.cu",
         "barriers/global_memcpy.cu", "examples/transpose.cu"]


def rec_expr(e):
    yield e
    for c in e.children():
        if c is not None:
            yield from rec_expr(c)


def rec_stmt(s):
    yield s
    if isinstance(s, ir.Block):
        for c in s.stmts:
            yield from rec_stmt(c)
        return
    if isinstance(s, ir.Loop):
        for i in s.init:
            yield from rec_stmt(i)
    for b in s.child_blocks():
        yield from rec_stmt(b)


def test_walks_match_recursive_definition():
    stmts = exprs = 0
    fns = []
    for name in FILES:
        fa = analyze_file(str(ROOT / "fixtures" / name), AnalysisOptions(use_ptxas=False))
        assert fa.tu is not None, name
        fns += fa.tu.functions
    for fn in fns:
        if fn.body is None:
            continue
        got = list(ir.walk_stmt(fn.body))
        want = list(rec_stmt(fn.body))
        assert [id(s) for s in got] == [id(s) for s in want]
        stmts += len(got)
        for st in got:
            for e in st.exprs():
                a, b = list(e.walk()), list(rec_expr(e))
                assert [id(x) for x in a] == [id(x) for x in b]
                exprs += len(a)
        assert [id(x) for x in fn.expressions()] == [id(x) for st in want for e in st.exprs() for x in rec_expr(e)]
    assert stmts > 100 and exprs > 500  # the fixtures hold loops, branches and nested expressions
