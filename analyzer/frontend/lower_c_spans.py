"""Source positions for :class:`.lower_c.CLowerer`: pycparser coordinates mapped back to the
original file's tokens, the start and end of declarations, and IR nodes built with their range
and type.
"""
from __future__ import annotations

from typing import Optional

from pycparser import c_ast

from .. import ir
from . import c_types as ct
from .c_types import T, to_ctype


class SpanLowering:
    """Mixin of :class:`.lower_c.CLowerer`: reads and writes its state."""

    # ------------------------------------------------------------------ positions
    def _at(self, coord) -> Optional[int]:
        if coord is None:
            return None
        hit = self.pm.lookup(coord.file, coord.line, coord.column)
        if hit is None or hit[0] is not self.ft:
            return None
        return hit[1]

    def _txt(self, i: Optional[int]) -> str:
        return self.ft.text(i) if (self.ft is not None and i is not None) else ""

    def _ext(self, e) -> Optional[tuple[int, int]]:
        sp = self.span.get(id(e))
        if sp is None or self.ft is None:
            return sp
        f, l = sp
        m = self.ft.match
        while f - 1 >= 0 and self._txt(f - 1) == "(" and m.get(f - 1) == l + 1:
            f -= 1
            l += 1
        return f, l

    def _range(self, sp: Optional[tuple[int, int]], coord=None) -> ir.SourceRange:
        if sp is not None and self.ft is not None:
            a, b = self.ft.toks[sp[0]], self.ft.toks[sp[1]]
            return ir.SourceRange(self.ft.path, a.line, a.col, b.end_line, b.end_col)
        if coord is not None:
            c = coord.column or 0
            return ir.SourceRange(coord.file, coord.line, c, coord.line, c)
        return ir.SourceRange.unknown(self.path)

    def _decl_start(self, i: int, param: bool = False) -> int:
        """First token of the declaration whose declarator name is token i (clang's VarDecl
        extent: a later declarator of ``int a, *b;`` starts at its name ``b``)."""
        toks, m = self.ft, self.ft.match
        j = i
        while j - 1 >= 0:
            t = toks.text(j - 1)
            if t in (")", "]"):
                o = m.get(j - 1)
                if o is None:
                    break
                j = o
                continue
            if t == "}":
                o = m.get(j - 1)
                if o is not None and o - 1 >= 0 and (
                        toks.text(o - 1) in ("struct", "union", "enum") or
                        toks.text(o - 2) in ("struct", "union", "enum")):
                    # a declaration that defines its tag: clang's VarDecl starts at the name
                    return i
                break
            if t == "," and not param:
                return i
            if t in (";", "{", ",", "(", ":"):
                break
            j -= 1
        return j

    def _declarator_end(self, i: int) -> int:
        toks, m = self.ft, self.ft.match
        j = i
        while toks.text(j + 1) in ("[", "(") and (j + 1) in m:
            j = m[j + 1]
        return j

    @staticmethod
    def _name_coord(d):
        """Coordinate of the declared name (pycparser's Decl.coord is the declarator's first
        token, e.g. the '*' of ``*p``)."""
        t = getattr(d, "type", None)
        while t is not None and not isinstance(t, c_ast.TypeDecl):
            t = getattr(t, "type", None)
        if t is not None and t.coord is not None:
            return t.coord
        return d.coord

    def _decl_span(self, d: c_ast.Decl, init_ir=None) -> Optional[tuple[int, int]]:
        i = self._at(self._name_coord(d))
        if i is None:
            return None
        first = self._decl_start(i)
        last = self._declarator_end(i)
        if init_ir is not None:
            e = self._ext(init_ir)
            if e is not None:
                last = max(last, e[1])
        return first, last

    def _decl_range(self, d: c_ast.Decl, t: T) -> ir.SourceRange:
        saved = self.ft
        nc = self._name_coord(d)
        hit = self.pm.lookup(nc.file, nc.line, nc.column) if nc else None
        if hit is not None:
            self.ft = hit[0]
        try:
            sp = self._decl_span(d)
            if sp is not None and d.init is not None:
                # the initializer's end without lowering it: scan to the ';' or ',' at depth 0
                j = sp[1]
                toks, m = self.ft, self.ft.match
                while j + 1 < len(toks) and toks.text(j + 1) not in (";", ","):
                    j = m.get(j + 1, j + 1) if toks.text(j + 1) in ("(", "[", "{") else j + 1
                sp = (sp[0], j)
            return self._range(sp, d.coord)
        finally:
            self.ft = saved

    # ------------------------------------------------------------------ IR construction
    def _mk(self, cls, sp, t: T, coord=None, ctype: Optional[ir.CType] = None, **kw):
        e = cls(self._range(sp, coord), ctype if ctype is not None else to_ctype(t), **kw)
        self._keep.append(e)  # side tables are keyed by id(): keep every node alive
        self.T[id(e)] = t
        if sp is not None:
            self.span[id(e)] = sp
        return e

    def _t(self, e) -> T:
        return self.T.get(id(e), ct.UNKNOWN)

    # ------------------------------------------------------------------ scopes
    def _lookup_local(self, name: str) -> Optional[ir.Variable]:
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        return None

