"""Expression lowering for :class:`.lower_c.CLowerer`: literals, names and built-ins, member and
index accesses, operators typed with C++ rules, casts, initializer lists, calls (overloaded CUDA
functions typed from their arguments) and kernel launches.
"""
from __future__ import annotations

import os

from typing import Optional

from pycparser import c_ast

from .. import ir
from . import c_types as ct
from .c_types import T, to_ctype
from .c_literals import int_literal, float_literal, char_literal, string_bytes
from .lower_c_symbols import BUILTIN_VARS, FuncInfo


class ExprLowering:
    """Mixin of :class:`.lower_c.CLowerer`: reads and writes its state."""

    # ------------------------------------------------------------------ expressions
    def expr(self, n, init_type: Optional[T] = None) -> ir.Expr:
        try:
            if isinstance(n, c_ast.InitList):
                return self._init_list(n, init_type)
            f = getattr(self, "_e_" + type(n).__name__, None)
            if f is None:
                return self._unknown(n)
            return f(n)
        except RecursionError:
            return self._mk(ir.Unknown, None, ct.UNKNOWN, getattr(n, "coord", None), text="<too deep>")

    def _unknown(self, n) -> ir.Expr:
        i = self._at(getattr(n, "coord", None))
        sp = (i, i) if i is not None else None
        parts = []
        for _, ch in n.children():
            if isinstance(ch, (c_ast.ID, c_ast.Constant, c_ast.BinaryOp, c_ast.UnaryOp,
                               c_ast.FuncCall, c_ast.ArrayRef, c_ast.StructRef, c_ast.Cast)):
                parts.append(self.expr(ch))
        return self._mk(ir.Unknown, sp, ct.UNKNOWN, getattr(n, "coord", None),
                        text=type(n).__name__, parts=parts)

    def _literal(self, n: c_ast.Constant):
        if n.type == "char":
            return char_literal(n.value), ct.CHAR
        if n.type == "string":
            b = string_bytes(n.value)
            return n.value, ct.array_of(ct.with_quals(ct.CHAR, ("const",)), len(b) + 1)
        if n.type in ("float", "double", "long double"):
            return float_literal(n.value)
        return int_literal(n.value)

    def _e_Constant(self, n: c_ast.Constant) -> ir.Expr:
        i = self._at(n.coord)
        sp = None
        if i is not None:
            j = i
            if n.type == "string":
                while self.ft.toks[j + 1:j + 2] and self.ft.toks[j + 1].kind == "str":
                    j += 1
            sp = (i, j)
        try:
            v, t = self._literal(n)
        except (ValueError, IndexError):
            return self._mk(ir.Unknown, sp, ct.UNKNOWN, n.coord, text=n.value)
        return self._mk(ir.Const, sp, t, n.coord, value=v)

    def _e_ID(self, n: c_ast.ID) -> ir.Expr:
        i = self._at(n.coord)
        sp = (i, i) if i is not None else None
        name = n.name
        v = self._lookup_local(name)
        if v is not None:
            return self._mk(ir.VarRef, sp, self.var_t.get(id(v), ct.UNKNOWN), n.coord, var=v)
        if name in self.enum_consts:
            val, t = self.enum_consts[name]
            return self._mk(ir.Const, sp, t, n.coord, value=val)
        fv = self.fvars.get(name)
        if fv is not None:
            if name in BUILTIN_VARS and self._in_prelude(fv.file):
                r = self._range(sp, n.coord)
                bv = ir.Variable(name, to_ctype(fv.type), "builtin", r, file_scope=True)
                self.var_t[id(bv)] = fv.type
                return self._mk(ir.VarRef, sp, fv.type, n.coord, var=bv)
            if name == "warpSize" and self._in_prelude(fv.file):
                return self._mk(ir.Builtin, sp, ct.INT, n.coord, ctype=ir.INT_TYPE,
                                name="warpSize", component="")
            var = self._file_var(name)
            if self._globals_used is not None and var not in self._globals_used and \
                    var.storage != "host":
                self._globals_used.append(var)
            if var.storage in ("host", "static") and fv.type.is_const and fv.value is not None:
                return self._mk(ir.Const, sp, fv.type, n.coord, value=fv.value)
            return self._mk(ir.VarRef, sp, fv.type, n.coord, var=var)
        info = self.funcs.get(name)
        if info is not None:
            return self._mk(ir.FuncRef, sp, info.type, n.coord, name=name)
        return self._mk(ir.Unknown, sp, ct.UNKNOWN, n.coord, text=name)

    def _e_StructRef(self, n: c_ast.StructRef) -> ir.Expr:
        base = self.expr(n.name)
        member = n.field.name
        arrow = n.type == "->"
        be = self._ext(base)
        fi = self._at(n.field.coord)
        sp = (be[0], fi) if be is not None and fi is not None else None
        if isinstance(base, ir.VarRef) and base.var.storage == "builtin" and \
                member in ("x", "y", "z") and not arrow:
            return self._mk(ir.Builtin, sp, ct.UINT, n.coord, ctype=ir.UINT_TYPE,
                            name=base.var.name, component=member)
        bt = self._t(base)
        rec = bt
        if arrow:
            cb = ct.canonical(bt)
            rec = cb.elem if cb.kind in ("pointer", "array") and cb.elem is not None else ct.UNKNOWN
        crec = ct.canonical(rec)
        fields = ct.fields_of(crec)
        ftype = ct.UNKNOWN
        for f in fields or ():
            if f.name == member:
                ftype = f.type
                break
        quals = tuple(q for q in rec.quals if q in ("const", "volatile"))
        if quals and ftype.kind != "unknown":
            ftype = ct.with_quals(ftype, quals)
        return self._mk(ir.Member, sp, ftype, n.coord, base=base, member=member, arrow=arrow)

    def _e_ArrayRef(self, n: c_ast.ArrayRef) -> ir.Expr:
        base = self.expr(n.name)
        idx = self.expr(n.subscript)
        bt, it = self._t(base), self._t(idx)
        cb = ct.canonical(bt)
        if cb.kind in ("pointer", "array"):
            t = cb.elem if bt.typedef_of is not None else bt.elem
        elif ct.canonical(it).kind in ("pointer", "array"):
            t = ct.canonical(it).elem
        else:
            t = ct.UNKNOWN
        be = self._ext(base)
        sp = None
        if be is not None:
            j = be[1] + 1
            if self._txt(j) == "[" and j in self.ft.match:
                sp = (be[0], self.ft.match[j])
            else:
                ie = self._ext(idx)
                sp = (be[0], ie[1] + (1 if ie and self._txt(ie[1] + 1) == "]" else 0)) if ie else be
        return self._mk(ir.Index, sp, t or ct.UNKNOWN, n.coord, base=base, index=idx)

    def _binop_type(self, op: str, lt: T, rt: T) -> T:
        if op in ("<", ">", "<=", ">=", "==", "!=", "&&", "||"):
            return ct.BOOL
        cl, cr = ct.canonical(lt), ct.canonical(rt)
        if op in ("<<", ">>"):
            return ct.promote(lt)
        lp, rp = cl.kind in ("pointer", "array"), cr.kind in ("pointer", "array")
        if op in ("+", "-") and (lp or rp):
            if lp and rp and op == "-":
                return ct.scalar("long")
            p = lt if lp else rt
            cp = ct.canonical(p)
            if cp.kind == "array":
                return ct.pointer_to(cp.elem)
            return ct.unqual(p)
        return ct.arith(lt, rt)

    def _e_BinaryOp(self, n: c_ast.BinaryOp) -> ir.Expr:
        lhs = self.expr(n.left)
        rhs = self.expr(n.right)
        t = self._binop_type(n.op, self._t(lhs), self._t(rhs))
        a, b = self._ext(lhs), self._ext(rhs)
        sp = (a[0], b[1]) if a is not None and b is not None else None
        return self._mk(ir.BinOp, sp, t, n.coord, op=n.op, lhs=lhs, rhs=rhs)

    def _e_Assignment(self, n: c_ast.Assignment) -> ir.Expr:
        target = self.expr(n.lvalue)
        value = self.expr(n.rvalue)
        a, b = self._ext(target), self._ext(value)
        sp = (a[0], b[1]) if a is not None and b is not None else None
        return self._mk(ir.Assign, sp, self._t(target), n.coord, op=n.op, target=target, value=value)

    def _e_UnaryOp(self, n: c_ast.UnaryOp) -> ir.Expr:
        op = n.op
        if op in ("sizeof", "_Alignof", "alignof", "__alignof__"):
            return self._sizeof(n)
        operand = self.expr(n.expr)
        ot = self._t(operand)
        oe = self._ext(operand)
        sp = None
        if op in ("p++", "p--"):
            irop = "post" + op[1:]
            if oe is not None:
                sp = (oe[0], oe[1] + 1 if self._txt(oe[1] + 1) == op[1:] else oe[1])
            t = ct.unqual(ot)
        else:
            irop = "pre" + op if op in ("++", "--") else op
            if oe is not None:
                first = oe[0] - 1 if self._txt(oe[0] - 1) == op else oe[0]
                sp = (first, oe[1])
            if op in ("++", "--"):
                t = ot
            elif op == "!":
                t = ct.BOOL
            elif op == "&":
                t = ct.pointer_to(ot)
            elif op == "*":
                c = ct.canonical(ot)
                t = (ot.elem if ot.typedef_of is None else c.elem) if c.kind in ("pointer", "array") else ct.UNKNOWN
                t = t or ct.UNKNOWN
            else:
                t = ct.promote(ot)
        return self._mk(ir.UnaryOp, sp, t, n.coord, op=irop, operand=operand)

    def _sizeof(self, n: c_ast.UnaryOp) -> ir.Expr:
        kw = self._at(n.coord)
        if isinstance(n.expr, c_ast.Typename):
            t = self._type(n.expr)
            last = None
            if kw is not None and self._txt(kw + 1) == "(" and (kw + 1) in self.ft.match:
                last = self.ft.match[kw + 1]
        else:
            # the operand is not evaluated; type it by lowering into a scratch table
            saved = (self._globals_used, self._callees)
            self._globals_used, self._callees = None, None
            try:
                e = self.expr(n.expr)
            finally:
                self._globals_used, self._callees = saved
            t = self._t(e)
            oe = self._ext(e)
            last = oe[1] if oe is not None else None
        size = ct.size_of(ct.canonical(t)) if n.op == "sizeof" else ct.align_of(ct.canonical(t))
        sp = (kw, last if last is not None else kw) if kw is not None else None
        return self._mk(ir.SizeOf, sp, ct.ULONG, n.coord, value=size)

    def _e_Cast(self, n: c_ast.Cast) -> ir.Expr:
        t = self._type(n.to_type)
        operand = self.expr(n.expr)
        i = self._at(n.coord)
        oe = self._ext(operand)
        sp = (i, oe[1]) if i is not None and oe is not None else None
        return self._mk(ir.Cast, sp, t, n.coord, operand=operand, implicit=False)

    def _e_TernaryOp(self, n: c_ast.TernaryOp) -> ir.Expr:
        cond = self.expr(n.cond)
        a = self.expr(n.iftrue)
        b = self.expr(n.iffalse)
        ta, tb = self._t(a), self._t(b)
        if ta.is_arith and tb.is_arith:
            t = ct.arith(ta, tb)
        else:
            t = ct.unqual(ta) if ta.kind != "unknown" else ct.unqual(tb)
        c, e = self._ext(cond), self._ext(b)
        sp = (c[0], e[1]) if c is not None and e is not None else None
        return self._mk(ir.Ternary, sp, t, n.coord, cond=cond, then=a, otherwise=b)

    def _e_ExprList(self, n: c_ast.ExprList) -> ir.Expr:
        items = [self.expr(x) for x in n.exprs]
        e = items[0]
        for x in items[1:]:
            a, b = self._ext(e), self._ext(x)
            sp = (a[0], b[1]) if a is not None and b is not None else None
            e = self._mk(ir.BinOp, sp, self._t(x), n.coord, op=",", lhs=e, rhs=x)
        return e

    def _init_list(self, n: c_ast.InitList, t: Optional[T]) -> ir.Expr:
        items = []
        elem_t = None
        if t is not None:
            c = ct.canonical(t)
            elem_t = c.elem if c.kind == "array" else None
        for x in n.exprs:
            if isinstance(x, c_ast.NamedInitializer):
                x = x.expr
            items.append(self.expr(x, init_type=elem_t) if isinstance(x, c_ast.InitList) else self.expr(x))
        sp = None
        if items:
            fe = self._ext(items[0])
            if fe is not None:
                j = fe[0] - 1
                while j >= 0 and self._txt(j) != "{":
                    j -= 1
                if j >= 0 and j in self.ft.match:
                    sp = (j, self.ft.match[j])
        if t is not None and ct.canonical(t).kind == "record" and ct.canonical(t).canon == "dim3":
            # CUDA's dim3 is a C++ class: clang sees `dim3 b = {x, y, z}` as a constructor call
            return self._mk(ir.Call, sp, t, n.coord, callee="dim3", args=items)
        return self._mk(ir.InitList, sp, t or ct.UNKNOWN, n.coord, items=items)

    def _e_FuncCall(self, n: c_ast.FuncCall) -> ir.Expr:
        if isinstance(n.name, c_ast.FuncCall) and isinstance(n.name.name, c_ast.ID):
            c = n.name.name.coord
            if c is not None and (c.file, c.line, c.column) in self.launch_keys:
                return self._launch(n)
        argn = n.args.exprs if n.args is not None else []
        name = n.name.name if isinstance(n.name, c_ast.ID) else ""
        local = self._lookup_local(name) if name else None
        callee_first = None
        if isinstance(n.name, c_ast.ID):
            callee_first = self._at(n.name.coord)
            callee_last = callee_first
        else:
            ce = self.expr(n.name)
            sp0 = self._ext(ce)
            callee_first, callee_last = (sp0 if sp0 is not None else (None, None))
            if isinstance(ce, ir.Member):
                name = ce.member
        args = [self.expr(a) for a in argn]
        info = self.funcs.get(name) if name and local is None else None
        t = self._call_type(name, info, args)
        sp = None
        if callee_first is not None:
            j = callee_last + 1
            if self._txt(j) == "(" and j in self.ft.match:
                sp = (callee_first, self.ft.match[j])
            elif args and self._ext(args[-1]) is not None:
                sp = (callee_first, self._ext(args[-1])[1])
            else:
                sp = (callee_first, callee_last)
        call = self._mk(ir.Call, sp, t, n.coord, callee=name, args=args)
        if info is not None and info.defn is not None and self._kind(info) != "global" and \
                not self._in_prelude(info.file):
            fn = self.lower_function(info)
            if fn is not None:
                call.function = fn
                if self._callees is not None and fn not in self._callees:
                    self._callees.append(fn)
        return call

    def _call_type(self, name: str, info: Optional[FuncInfo], args: list) -> T:
        if info is None:
            return ct.UNKNOWN
        if self._in_prelude(info.file) or not info.file:
            if name in _RET_POINTEE and args:
                c = ct.canonical(self._t(args[0]))
                if c.kind == "pointer" and c.elem is not None:
                    return ct.unqual(self._t(args[0]).elem if self._t(args[0]).typedef_of is None else c.elem)
            if name in _RET_ARG2 and len(args) > 1:
                return ct.promote(self._t(args[1]))
            if name in _RET_ARITH and len(args) == 2:
                return ct.canonical(ct.arith(self._t(args[0]), self._t(args[1])))
        ft = info.type
        if ft.kind == "function" and ft.elem is not None:
            return ft.elem
        return ct.UNKNOWN

    def _launch(self, n: c_ast.FuncCall) -> ir.Expr:
        inner = n.name
        kname = inner.name.name
        cfg_n = inner.args.exprs if inner.args is not None else []
        arg_n = n.args.exprs if n.args is not None else []
        cfg = [self.expr(x) for x in cfg_n]
        args = [self.expr(x) for x in arg_n]
        texts = []
        for e in cfg:
            # The argument as written (same text as the libclang frontend gives), when it
            # sits on one line of the main file; else the original tokens joined by spaces.
            text = _line_slice(self.path, e.range) if isinstance(e, ir.Expr) else ""
            if not text:
                sp = self._ext(e)
                text = self.ft.source_text(sp[0], sp[1]) if sp is not None else ""
            texts.append(text)
        ki = self._at(inner.name.coord)
        sp = None
        if ki is not None:
            j, depth = ki + 1, 0
            while j < len(self.ft):
                tx = self._txt(j)
                if tx in ("(", "[", "{"):
                    depth += 1
                elif tx in (")", "]", "}"):
                    depth -= 1
                elif depth == 0 and (tx == ">>>" or (tx == ">>" and self._txt(j + 1) == ">")):
                    j += 1 if tx == ">>>" else 2
                    break
                elif tx == ";":
                    break
                j += 1
            if self._txt(j) == "(" and j in self.ft.match:
                sp = (ki, self.ft.match[j])
            else:
                sp = (ki, ki)
        r = self._range(sp, inner.name.coord)
        site = ir.LaunchSite(kernel=kname, range=r, args=args,
                             grid_text=texts[0] if texts else "",
                             block_text=texts[1] if len(texts) > 1 else "",
                             smem_text=texts[2] if len(texts) > 2 else "",
                             stream_text=texts[3] if len(texts) > 3 else "")
        site.caller = self._current
        self.out.launches.append(site)
        return self._mk(ir.LaunchExpr, sp, ct.VOID, inner.name.coord, site=site, config=cfg, args=args)



# Overloaded CUDA functions, typed from their arguments (C cannot overload).
_RET_POINTEE = {"atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicInc",
                "atomicDec", "atomicCAS", "atomicAnd", "atomicOr", "atomicXor",
                "atomicAdd_block", "atomicAdd_system", "__ldg", "__ldcg", "__ldcs"}
_RET_ARG2 = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
             "__reduce_add_sync"}
_RET_ARITH = {"min", "max"}


def _line_slice(path: str, r: ir.SourceRange) -> str:
    if not r.line or r.line != r.end_line or os.path.abspath(r.file or "") != os.path.abspath(path):
        return ""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return ""
    return lines[r.line - 1][r.column - 1:r.end_column - 1] if r.line <= len(lines) else ""

