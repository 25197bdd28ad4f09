"""Tokens of macro-written code: clang_tokenize lexes from where a range's start is *spelled*
(a macro's #define) to its end (the use), so every loop written by a macro lexed everything in
between (bm3d's CImg.h: 2 MB per loop, 14 s per file). ``range_tokens`` lexes only what is read,
and yields exactly the tokens libclang's own call does."""
from __future__ import annotations

import clang.cindex as ci
import pytest

from cudalint.analyzer import ir
from cudalint.analyzer.frontend import clang_cursors
from cudalint.analyzer.frontend.clang_fast import preorder
from cudalint.analyzer.frontend.lower_clang import lower_translation_unit
from cudalint.analyzer.frontend.parse import parse_file

FILLER_LINES = 1500  # between the macros' definitions and their uses: 4 tokens each

SOURCE = """\
#define FOR_EACH(i, n) for (int i = 0; i < (n); ++i)
#define FOR_STEP(i, lo, n, s) for (int i = (lo); i < (n); i += (s))
struct Box { float v[64]; };
""" + "".join(f"static int filler_{k} = {k};\n" for k in range(FILLER_LINES)) + """\
__device__ float total(const Box *b, int n) {
  float s = 0.f;
  FOR_EACH(i, n) { s += b->v[i]; }
  FOR_EACH(j, n) FOR_EACH(k, j) { s += b->v[j] * b->v[k]; }
  FOR_STEP(m, 1, n, 2) { s -= b->v[m]; }
  return s;
}
__global__ void kernel(Box *b, float *out, int n) {
  out[threadIdx.x] = total(b, n);
}
"""


@pytest.fixture(scope="module")
def parsed(tmp_path_factory):
    f = tmp_path_factory.mktemp("tok") / "macro_loops.cu"
    f.write_text(SOURCE)
    r = parse_file(str(f))
    assert not r.errors, r.errors
    return str(f), r.tu


class _Lexed:
    """Counts the tokens clang_tokenize hands back (what it lexed)."""

    def __init__(self, monkeypatch):
        self.tokens = 0
        real = ci.conf.lib.clang_tokenize

        def counting(tu, extent, mem, count):
            real(tu, extent, mem, count)
            self.tokens += count._obj.value

        monkeypatch.setattr(ci.conf.lib, "clang_tokenize", counting)


def test_macro_loops_lex_only_their_headers(parsed, monkeypatch):
    path, tu = parsed
    lexed = _Lexed(monkeypatch)
    out = lower_translation_unit(tu, path, SOURCE)
    fn = next(f for f in out.functions if f.name == "total")
    # before: each of the 4 loops lexed from its macro's #define to its use (FILLER_LINES * 4
    # tokens each time: 27000 in all); now about 1 KB from each #define
    assert lexed.tokens < FILLER_LINES, lexed.tokens
    loops = []

    def collect(stmts):
        for s in stmts:
            if isinstance(s, ir.Loop):
                loops.append(s)
                collect(s.body.stmts)
            elif isinstance(s, ir.Block):
                collect(s.stmts)

    collect(fn.body.stmts)
    # the clauses are placed as written: `int i = 0` / `i < (n)` / `++i` (or `i += (s)`)
    assert len(loops) == 4
    for lp in loops:
        assert lp.kind == "for" and len(lp.init) == 1 and lp.cond is not None and lp.step is not None
        assert lp.cond.op == "<"


def test_range_tokens_are_libclangs_own(parsed):
    """The loops' ranges (from the #define to the use) and their headers' (to the body): the
    same tokens as TokenGroup.get_tokens, read to the end, and as the lowering reads them."""
    path, tu = parsed
    fn = next(c for c in tu.cursor.get_children() if c.spelling == "total" and c.is_definition())
    loops = [c for c in preorder(fn) if c.kind == ci.CursorKind.FOR_STMT]
    assert len(loops) == 4
    long = 0
    for c in loops:
        body = list(c.get_children())[-1]
        for i, ext in enumerate((c.extent, ci.SourceRange.from_locations(c.extent.start,
                                                                          body.extent.start))):
            want = [(t.int_data[1], t.spelling) for t in ci.TokenGroup.get_tokens(tu, ext)]
            got = [(t.int_data[1], t.spelling) for t in clang_cursors.range_tokens(tu, ext)]
            assert got == want
            long += len(want) > 4 * FILLER_LINES
            if i == 0:
                bounded = [(t.int_data[1], t.spelling) for t in clang_cursors.cursor_tokens(c)]
                assert bounded == want[:clang_cursors.TOKEN_LIMIT]
                offs = clang_cursors._with_offsets(clang_cursors.cursor_tokens(c))
                assert [(o, t.int_data[1]) for o, t in offs] == \
                    [(t.extent.start.offset, t.int_data[1]) for t in clang_cursors.cursor_tokens(c)]
    assert long >= 4  # these do run from the #define to the use
