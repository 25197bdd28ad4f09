"""Statement lowering for :class:`.lower_c.CLowerer`: blocks and scopes, ``#pragma unroll``,
branches, loops, switch and local declarations.
"""
from __future__ import annotations

import re
from typing import Optional

from pycparser import c_ast, c_parser

from .. import ir
from . import c_types as ct
from .c_types import to_ctype
from .lower_c_symbols import BLOCK_BARRIERS, WARP_BARRIERS, Scope


class StmtLowering:
    """Mixin of :class:`.lower_c.CLowerer`: reads and writes its state."""

    # ------------------------------------------------------------------ statements
    def block(self, n) -> ir.Block:
        if isinstance(n, c_ast.Compound) and not self._synthetic(n):
            i = self._at(n.coord)
            sp = (i, self.ft.match[i]) if i is not None and i in self.ft.match else None
            b = self._set_span(ir.Block(self._range(sp, n.coord), []), sp)
            self.scopes.append(Scope())
            try:
                b.stmts = self._items(n.block_items or [])
            finally:
                self.scopes.pop()
            return b
        if isinstance(n, c_ast.Compound):  # pragma + statement made into a compound by pycparser
            self.scopes.append(Scope())
            try:
                stmts = self._items(n.block_items or [])
            finally:
                self.scopes.pop()
            sp = self._stmts_span(stmts)
            rng = self._range(sp, n.coord)
            pr = self._pragma_start(n.block_items[0]) if n.block_items else None
            if pr is not None:
                rng = ir.SourceRange(rng.file, pr[0], pr[1], rng.end_line, rng.end_column)
            return self._set_span(ir.Block(rng, stmts), sp)
        self.scopes.append(Scope())
        try:
            stmts = self.stmt(n)
        finally:
            self.scopes.pop()
        sp = self._stmts_span(stmts)
        b = ir.Block(self._range(sp, getattr(n, "coord", None)), stmts)
        return self._set_span(b, sp)

    def _synthetic(self, n: c_ast.Compound) -> bool:
        i = self._at(n.coord)
        if i is not None and self._txt(i) == "{":
            return False
        items = n.block_items or []
        return bool(items) and isinstance(items[0], c_ast.Pragma)

    def _pragma_start(self, p) -> Optional[tuple[int, int]]:
        if not isinstance(p, c_ast.Pragma) or p.coord is None:
            return None
        try:
            with open(p.coord.file, encoding="utf-8", errors="replace") as f:
                lines = f.read().split("\n")
            text = lines[p.coord.line - 1]
            k = text.index("#")
            return p.coord.line, len(text[:k].encode("utf-8")) + 1
        except (OSError, IndexError, ValueError):
            return None

    def _stmts_span(self, stmts) -> Optional[tuple[int, int]]:
        sps = [self.span.get(id(s)) for s in stmts]
        sps = [s for s in sps if s is not None]
        if not sps:
            return None
        return sps[0][0], sps[-1][1]

    def _items(self, items) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        unroll: Optional[int] = None
        pending = False
        for it in items:
            if isinstance(it, c_ast.Pragma):
                u = self._unroll_value(it.string or "")
                if u is not False:
                    unroll, pending = u, True
                continue
            lowered = self.stmt(it)
            if pending and isinstance(it, (c_ast.For, c_ast.While, c_ast.DoWhile)):
                for s in lowered:
                    if isinstance(s, ir.Loop):
                        s.unroll = unroll
                        break
            pending = False
            unroll = None
            out.extend(lowered)
        # `case 1: case 2: x;` -- clang nests the labels, so an empty case ends where the
        # statement after it ends
        for i in range(len(out) - 2, -1, -1):
            s = out[i]
            if isinstance(s, ir.Case) and id(s) in self._empty_cases and id(out[i + 1]) in self.span \
                    and id(s) in self.span:
                sp = (self.span[id(s)][0], self.span[id(out[i + 1])][1])
                self.span[id(s)] = sp
                s.range = self._range(sp)
        return out

    def _unroll_value(self, text: str):
        """None/int for an unroll pragma (0 = full), False for another pragma."""
        m = re.match(r"\s*unroll\b\s*(.*)$", text, re.S)
        if not m:
            return False
        arg = m.group(1).strip()
        if not arg:
            return 0
        arg = self._expand_macros(arg)
        try:
            node = c_parser.CParser().parse(f"int __cudalint_x = ({arg});").ext[0].init
        except Exception:
            return 0
        v = self._ceval(node)
        return int(v) if isinstance(v, (int, float)) else 0

    def _expand_macros(self, text: str, depth: int = 0) -> str:
        if depth > 16:
            return text

        def sub(m):
            mac = self.macros.get(m.group(0))
            if mac is not None and mac.params is None:
                return "(" + self._expand_macros(mac.body, depth + 1) + ")"
            return m.group(0)
        return re.sub(r"[A-Za-z_]\w*", sub, text)

    def _set_span(self, s, sp):
        self._keep.append(s)
        if sp is not None:
            self.span[id(s)] = sp
        return s

    def stmt(self, n) -> list[ir.Stmt]:
        if isinstance(n, c_ast.Compound):
            return [self.block(n)]
        if isinstance(n, c_ast.Decl):
            return self._local_decl(n)
        if isinstance(n, c_ast.DeclList):
            out = []
            for d in n.decls:
                out.extend(self._local_decl(d))
            return out
        if isinstance(n, (c_ast.Typedef,)):
            self.typedefs[n.name] = ct.typedef(n.name, self._type(n.type))
            return []
        if isinstance(n, c_ast.If):
            kw = self._at(n.coord)
            cond = self.expr(n.cond)
            then = self.block(n.iftrue)
            other = self.block(n.iffalse) if n.iffalse is not None else None
            end = self.span.get(id(other if other is not None else then))
            sp = (kw, end[1]) if kw is not None and end else None
            return [self._set_span(ir.If(self._range(sp, n.coord), cond, then, other), sp)]
        if isinstance(n, c_ast.For):
            kw = self._at(n.coord)
            self.scopes.append(Scope())
            try:
                init: list[ir.Stmt] = []
                if isinstance(n.init, c_ast.DeclList):
                    for d in n.init.decls:
                        init.extend(self._local_decl(d))
                elif isinstance(n.init, c_ast.Decl):
                    init.extend(self._local_decl(n.init))
                elif n.init is not None:
                    e = self.expr(n.init)
                    sp = self._ext(e)
                    init.append(self._set_span(ir.ExprStmt(self._range(sp, n.init.coord), e), sp))
                cond = self.expr(n.cond) if n.cond is not None else None
                step = self.expr(n.next) if n.next is not None else None
                body = self.block(n.stmt)
            finally:
                self.scopes.pop()
            end = self.span.get(id(body))
            sp = (kw, end[1]) if kw is not None and end else None
            return [self._set_span(ir.Loop(self._range(sp, n.coord), "for", init, cond, step, body), sp)]
        if isinstance(n, c_ast.While):
            kw = self._at(n.coord)
            cond = self.expr(n.cond)
            body = self.block(n.stmt)
            end = self.span.get(id(body))
            sp = (kw, end[1]) if kw is not None and end else None
            return [self._set_span(ir.Loop(self._range(sp, n.coord), "while", [], cond, None, body), sp)]
        if isinstance(n, c_ast.DoWhile):
            kw = self._at(n.coord)
            body = self.block(n.stmt)
            cond = self.expr(n.cond)
            ce = self._ext(cond)
            sp = None
            if kw is not None and ce is not None:
                last = ce[1] if self._txt(ce[1]) == ")" else ce[1] + 1
                sp = (kw, last)
            return [self._set_span(ir.Loop(self._range(sp, n.coord), "do", [], cond, None, body), sp)]
        if isinstance(n, c_ast.Return):
            kw = self._at(n.coord)
            val = self.expr(n.expr) if n.expr is not None else None
            sp = None
            if kw is not None:
                ve = self._ext(val) if val is not None else None
                sp = (kw, ve[1] if ve else kw)
            return [self._set_span(ir.Return(self._range(sp, n.coord), val), sp)]
        if isinstance(n, (c_ast.Break, c_ast.Continue)):
            kw = self._at(n.coord)
            sp = (kw, kw) if kw is not None else None
            cls = ir.Break if isinstance(n, c_ast.Break) else ir.Continue
            return [self._set_span(cls(self._range(sp, n.coord)), sp)]
        if isinstance(n, c_ast.Switch):
            kw = self._at(n.coord)
            cond = self.expr(n.cond)
            body = self.block(n.stmt)
            end = self.span.get(id(body))
            sp = (kw, end[1]) if kw is not None and end else None
            return [self._set_span(ir.Switch(self._range(sp, n.coord), cond, body), sp)]
        if isinstance(n, (c_ast.Case, c_ast.Default)):
            kw = self._at(n.coord)
            val = self.expr(n.expr) if isinstance(n, c_ast.Case) else None
            rest: list[ir.Stmt] = []
            for s in n.stmts or []:
                rest.extend(self.stmt(s))
            colon = None
            if kw is not None:
                j = kw
                while j + 1 < len(self.ft) and self._txt(j) != ":":
                    j += 1
                colon = j
            end = self.span.get(id(rest[0])) if rest else None
            sp = (kw, end[1] if end else colon) if kw is not None else None
            case = self._set_span(ir.Case(self._range(sp, n.coord), val), sp)
            if not rest:
                self._empty_cases.add(id(case))
            return [case] + rest
        if isinstance(n, c_ast.Label):
            kw = self._at(n.coord)
            sp = (kw, kw) if kw is not None else None
            label = ir.OtherStmt(self._range(sp, n.coord), "label " + n.name)
            out = [self._set_span(label, sp)]
            if n.stmt is not None:
                rest = self.stmt(n.stmt)
                end = self.span.get(id(rest[0])) if rest else None
                if sp is not None and end is not None:  # clang's LabelStmt covers its statement
                    sp = (sp[0], end[1])
                    self._set_span(label, sp)
                    label.range = self._range(sp)
                out.extend(rest)
            return out
        if isinstance(n, c_ast.Goto):
            kw = self._at(n.coord)
            sp = (kw, kw + 1) if kw is not None else None
            return [self._set_span(ir.OtherStmt(self._range(sp, n.coord), "goto_stmt"), sp)]
        if isinstance(n, (c_ast.EmptyStatement, c_ast.Pragma)):
            return []
        if type(n).__name__ == "AttributedStatement":
            return self.stmt(n.stmt)
        if isinstance(n, (c_ast.Struct, c_ast.Union, c_ast.Enum)):
            self._type(n)
            return []
        # an expression statement
        e = self.expr(n)
        sp = self._ext(e)
        rng = self._range(sp, getattr(n, "coord", None))
        if isinstance(e, ir.Call) and e.callee in BLOCK_BARRIERS | WARP_BARRIERS:
            scope = "warp" if e.callee in WARP_BARRIERS else "block"
            return [self._set_span(ir.Barrier(rng, e.callee, scope, e.args), sp)]
        return [self._set_span(ir.ExprStmt(rng, e), sp)]

    def _local_decl(self, d: c_ast.Decl) -> list[ir.Stmt]:
        if d.name is None:
            self._type(d.type)
            return []
        if "typedef" in (d.storage or []):
            self.typedefs[d.name] = ct.typedef(d.name, self._type(d.type))
            return []
        if isinstance(d.type, c_ast.FuncDecl):
            self._declare_function(d)
            return []
        t, marks, kw = self._decl_parts(d)
        if "shared" in marks:
            storage = "extern_shared" if "extern" in kw else "shared"
        elif "constant" in marks:
            storage = "constant"
        elif "static" in kw:
            storage = "static"
        else:
            storage = "auto"
        v = ir.Variable(d.name, to_ctype(t), storage, ir.SourceRange.unknown(self.path),
                        uid=self._new_uid())
        self.var_t[id(v)] = t
        self.scopes[-1][d.name] = v
        self._locals.append(v)
        init = self.expr(d.init, init_type=t) if d.init is not None else None
        if init is not None and t.is_const:
            cv = self._ceval(d.init)
            if cv is not None:
                self.const_vals[id(v)] = cv
        sp = self._decl_span(d, init)
        v.range = self._range(sp, d.coord)
        return [self._set_span(ir.DeclStmt(v.range, v, init), sp)]

