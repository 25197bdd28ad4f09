"""Statement lowering for :class:`.lower_clang.Lowerer`: blocks, declarations and whether they
have an initializer, loops (for-header clauses read from the source when libclang drops them)
and ``#pragma unroll``.
"""
from __future__ import annotations

import os
import re
from typing import Optional

import clang.cindex as ci

from .. import ir
from . import clang_fast
from .clang_fast import children
from .clang_cursors import (
    BLOCK_BARRIERS, CK, WARP_BARRIERS, cg_sync_scope, cursor_tokens, file_bytes,
    for_header_semicolons, header_semicolons, int_or_none, is_cg_block_sync, is_test,
    syncs_the_grid,
    macro_scalar_init, srange
)


class StmtLowering:
    """Mixin of :class:`.lower_clang.Lowerer`: reads and writes its per-function state."""

    def block(self, c: ci.Cursor) -> ir.Block:
        b = ir.Block(srange(c), [])
        if c.kind == CK.COMPOUND_STMT:
            for ch in children(c):
                b.stmts.extend(self.stmt(ch))
        else:
            b.stmts.extend(self.stmt(c))
        return b

    def stmt(self, c: ci.Cursor) -> list[ir.Stmt]:
        k = c.kind
        if k == CK.COMPOUND_STMT:
            return [self.block(c)]
        if k == CK.DECL_STMT:
            out: list[ir.Stmt] = []
            for d in children(c):
                if d.kind == CK.VAR_DECL:
                    v = self._local_var(d)
                    self._locals.append(v)
                    mark = len(self.cub_barriers)
                    init = self._var_init(d)
                    if isinstance(init, ir.InitList):
                        self._list_inits[v] = init  # a launch's `void *args[] = {&a, ...}`
                    out.append(ir.DeclStmt(srange(d), v, init))
                    out.extend(self._cub_barrier_after(mark, srange(d)))
            return out
        r = srange(c)
        if k == CK.IF_STMT:
            kids = [ch for ch in children(c)]
            pre: list[ir.Stmt] = []
            # `if (T x = ...)` / `if (init; cond)`: leading declarations
            while len(kids) > 2 and kids[0].kind in (CK.DECL_STMT, CK.VAR_DECL):
                d = kids.pop(0)
                pre.extend(self.stmt(d) if d.kind == CK.DECL_STMT else [])
            if len(kids) < 2:
                return [ir.OtherStmt(r, "if")]
            cond = self.expr(kids[0])
            then = self.block(kids[1])
            other = self.block(kids[2]) if len(kids) > 2 else None
            return pre + [ir.If(r, cond, then, other)]
        if k == CK.FOR_STMT:
            return [self._for(c)]
        if k == CK.WHILE_STMT:
            kids = children(c)
            if len(kids) < 2:
                return [ir.OtherStmt(r, "while")]
            return [ir.Loop(r, "while", [], self.expr(kids[-2]), None, self.block(kids[-1]),
                            unroll=self._unroll_pragma(c))]
        if k == CK.DO_STMT:
            kids = children(c)
            if len(kids) < 2:
                return [ir.OtherStmt(r, "do")]
            return [ir.Loop(r, "do", [], self.expr(kids[1]), None, self.block(kids[0]),
                            unroll=self._unroll_pragma(c))]
        if k == CK.CXX_FOR_RANGE_STMT:
            kids = children(c)
            body = self.block(kids[-1]) if kids else ir.Block(r, [])
            return [ir.Loop(r, "for", [], None, None, body)]
        if k == CK.RETURN_STMT:
            kids = children(c)
            return [ir.Return(r, self.expr(kids[0]) if kids else None)]
        if k == CK.BREAK_STMT:
            return [ir.Break(r)]
        if k == CK.CONTINUE_STMT:
            return [ir.Continue(r)]
        if k == CK.SWITCH_STMT:
            kids = children(c)
            if len(kids) < 2:
                return [ir.OtherStmt(r, "switch")]
            return [ir.Switch(r, self.expr(kids[-2]), self.block(kids[-1]))]
        if k in (CK.CASE_STMT, CK.DEFAULT_STMT):
            kids = children(c)
            out = [ir.Case(r, self.expr(kids[0]) if k == CK.CASE_STMT and kids else None)]
            if kids:
                out.extend(self.stmt(kids[-1]))
            return out
        if k == CK.LABEL_STMT:
            out = [ir.OtherStmt(r, "label " + c.spelling)]
            for ch in children(c):
                out.extend(self.stmt(ch))
            return out
        if k == CK.NULL_STMT:
            return []
        if k in (CK.GOTO_STMT, CK.ASM_STMT, CK.MS_ASM_STMT, CK.CXX_TRY_STMT,
                 CK.INDIRECT_GOTO_STMT):
            return [ir.OtherStmt(r, k.name.lower())]
        if k == CK.UNEXPOSED_STMT:
            # AttributedStmt (e.g. [[likely]]) or #pragma-annotated loops: lower the children.
            out = []
            for ch in children(c):
                out.extend(self.stmt(ch))
            return out
        if k.is_expression():
            mark = len(self.cub_barriers)
            e = self.expr(c)
            if isinstance(e, ir.Call) and e.callee in BLOCK_BARRIERS | WARP_BARRIERS:
                scope = "warp" if e.callee in WARP_BARRIERS else "block"
                return [ir.Barrier(r, e.callee, scope, e.args)]
            if isinstance(e, ir.Call) and e.callee == "sync" and is_cg_block_sync(c):
                grid = bool(e.args) and "grid_group" in e.args[0].type.spelling or syncs_the_grid(c)
                return [ir.Barrier(r, "cg::sync", cg_sync_scope(e), [], grid=grid)]
            return [ir.ExprStmt(r, e)] + self._cub_barrier_after(mark, r)
        if k.is_declaration():
            return []
        return [ir.OtherStmt(r, k.name.lower())]

    def _cub_barrier_after(self, mark: int, r: ir.SourceRange) -> list:
        """The block barrier a CUB block collective called in the statement just lowered
        executes (the calls met since ``mark``), placed after the statement."""
        met = self.cub_barriers[mark:]
        del self.cub_barriers[mark:]
        if not met:
            return []
        return [ir.Barrier(r, "cub::" + met[0], "block", [])]

    def _var_init(self, d: ci.Cursor) -> Optional[ir.Expr]:
        kids = [ch for ch in children(d)
                if not ch.kind.is_attribute() and ch.kind not in (CK.TYPE_REF, CK.TEMPLATE_REF,
                                                                  CK.NAMESPACE_REF)]
        if not kids:
            return None
        # Array extents appear as children before the initializer; the initializer is the
        # last expression child, and only present if the declaration has '='/'('/'{'.
        last = kids[-1]
        if not last.kind.is_expression():
            return None
        if not self._has_initializer(d) and not macro_scalar_init(d, last):
            return None  # none written (a class type's implicit default construction)
        return self.expr(last)

    def _has_initializer(self, d: ci.Cursor) -> bool:
        """Whether the declaration writes an initializer: after the name and any array
        extents comes '=', '(' or '{'. Read from the source (tokens of a range that starts in
        a macro expansion come back empty from libclang)."""
        name = clang_fast.location(d.location, d._tu)
        end = clang_fast.extent(d)[1]
        tail = ""
        if name[0] and end[0] and name[0] == end[0] and name[3] <= end[3]:
            # the file's own bytes: clang_tokenize costs milliseconds per call deep in a big
            # header (CImg.h), and a file's text is what the tokens would spell anyway
            src = self.source_bytes if os.path.abspath(name[0]) == self.path else \
                file_bytes(name[0])
            tail = src[name[3]:end[3]].decode("utf-8", "replace")
        if not tail:
            # a declaration written by a macro can report a huge token range (to the end of
            # the file): the initializer, if any, is among the first tokens
            toks = [t.spelling for t in cursor_tokens(d, 48)]
            if d.spelling in toks:
                toks = toks[toks.index(d.spelling):]
            tail = " ".join(toks)
        tail = tail[len(d.spelling):] if tail.startswith(d.spelling) else tail
        tail = re.sub(r"^\s*(\[[^\]]*\]\s*)*", "", tail)
        return tail[:1] in ("=", "(", "{")

    def _for(self, c: ci.Cursor) -> ir.Stmt:
        r = srange(c)
        kids = children(c)
        # libclang omits absent for-clauses; place children by their offset against the ';'s
        # of the loop header.
        semis = self._for_semicolons(c, kids[-1] if kids else None)
        init: list[ir.Stmt] = []
        cond = step = None
        body_c = kids[-1] if kids else None
        start, end = (x[3] for x in clang_fast.extent(c))
        if kids and (len(semis) < 2 or not all(start <= x <= end for x in semis[:2])):
            # A loop header written by a macro (``FOR_KERNEL_LOOP(i, n) { ... }``): the ';'
            # found are the macro definition's (or none), not at the children's offsets.
            # Place the clauses by kind.
            init, cond, step = self._for_clauses_by_kind(kids[:-1])
            body = self.block(body_c) if body_c is not None else ir.Block(r, [])
            return ir.Loop(r, "for", init, cond, step, body, unroll=self._unroll_pragma(c))
        for ch in kids[:-1]:
            off = clang_fast.extent(ch)[0][3]
            if semis and off < semis[0]:
                if ch.kind == CK.DECL_STMT or ch.kind.is_statement() and not ch.kind.is_expression():
                    init.extend(self.stmt(ch))
                else:
                    init.append(ir.ExprStmt(srange(ch), self.expr(ch)))
            elif len(semis) > 1 and off < semis[1]:
                if ch.kind == CK.DECL_STMT:  # for (...; T x = ...; ...)
                    init.extend(self.stmt(ch))
                else:
                    cond = self.expr(ch)
            else:
                step = self.expr(ch)
        body = self.block(body_c) if body_c is not None else ir.Block(r, [])
        return ir.Loop(r, "for", init, cond, step, body, unroll=self._unroll_pragma(c))

    def _for_semicolons(self, c: ci.Cursor, body: Optional[ci.Cursor]) -> list[int]:
        """The two ';' of a for-header, found in the file's text between ``for`` and the body
        (no clang_tokenize: it costs milliseconds per call deep in a big header). A header
        that does not read ``for (`` there was written by a macro: libclang's tokens are tried,
        and the caller places the clauses by kind when their offsets do not fit."""
        a = clang_fast.extent(c)[0]
        b = clang_fast.extent(body)[0] if body is not None else clang_fast.extent(c)[1]
        if a[0] and b[0] and a[0] == b[0] and a[3] < b[3]:
            src = self.source_bytes if os.path.abspath(a[0]) == self.path else file_bytes(a[0])
            text = src[a[3]:b[3]]
            if re.match(rb"for\s*\(", text):
                return header_semicolons(text, a[3])
        return for_header_semicolons(c, body)

    def _for_clauses_by_kind(self, kids: list) -> tuple:
        """(init, cond, step) of a for-header whose ';' cannot be seen: all three present are
        in order; otherwise a declaration is the init, a comparison or logical test the
        condition, and an assignment/increment the step (the init when it comes first and
        another assignment follows)."""
        init: list[ir.Stmt] = []
        cond = step = None
        if len(kids) == 3:
            a, b, d = kids
            init = self.stmt(a) if a.kind == CK.DECL_STMT or not a.kind.is_expression() \
                else [ir.ExprStmt(srange(a), self.expr(a))]
            return init, self.expr(b), self.expr(d)
        exprs = []
        for ch in kids:
            if ch.kind == CK.DECL_STMT or (ch.kind.is_statement() and not ch.kind.is_expression()):
                init.extend(self.stmt(ch))
            else:
                exprs.append((ch, self.expr(ch)))
        tests = [(ch, e) for ch, e in exprs if is_test(e)]
        updates = [(ch, e) for ch, e in exprs if not is_test(e)]
        if tests:
            cond = tests[0][1]
        if updates:
            if not init and (len(updates) > 1 or (cond is not None and clang_fast.extent(updates[0][0])[0][3]
                                                  < clang_fast.extent(tests[0][0])[0][3])):
                ch, e = updates.pop(0)
                init.append(ir.ExprStmt(srange(ch), e))
            if updates:
                step = updates[-1][1]
        return init, cond, step

    def _unroll_pragma(self, c: ci.Cursor) -> Optional[int]:
        """``#pragma unroll [N]`` on the lines right above the loop (pragmas are not cursors)."""
        name, line = clang_fast.extent(c)[0][:2]
        lines = self.source_lines if not name or os.path.abspath(name) == self.path else \
            self._lines_of(name)
        i = line - 2
        while i >= 0:
            text = lines[i].strip() if i < len(lines) else ""
            if not text or text.startswith("//"):
                i -= 1
                continue
            m = re.match(r"#\s*pragma\s+unroll\b\s*(\(?\s*(\w+)\s*\)?)?", text)
            if m:
                arg = m.group(2)
                if arg is None:
                    return 0
                v = int_or_none(arg)
                if v is None:
                    v = int_or_none(self.defines.get(arg, ""))
                return v if v is not None else 0
            if text.startswith("#pragma"):
                i -= 1
                continue
            return None
        return None

