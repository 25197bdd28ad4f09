"""Declarations and types for :class:`.lower_c.CLowerer`: CUDA markers and function
declarations, file-scope variables, C types with C++ rules (records, enums, typedefs), constant
evaluation of C expressions and the parts of a declaration.
"""
from __future__ import annotations

from typing import Optional

from pycparser import c_ast

from .. import ir
from . import c_types as ct
from .c_types import T, to_ctype
from .c_literals import int_literal, float_literal, char_literal, string_bytes
from .lower_c_symbols import MARK, FuncInfo, FileVar


class TypeLowering:
    """Mixin of :class:`.lower_c.CLowerer`: reads and writes its state."""

    # ------------------------------------------------------------------ declarations
    def _markers(self, decl: c_ast.Decl) -> tuple[set, Optional[c_ast.Node]]:
        out: set = set()
        lb = None
        for a in getattr(decl, "align", None) or []:
            x = a.alignment
            if isinstance(x, c_ast.ID) and x.name.startswith(MARK):
                out.add(x.name[len(MARK):])
            elif isinstance(x, c_ast.FuncCall) and isinstance(x.name, c_ast.ID) and \
                    x.name.name == MARK + "launch_bounds":
                out.add("launch_bounds")
                lb = x
        return out, lb

    def _declare_function(self, decl: c_ast.Decl) -> FuncInfo:
        info = self.funcs.get(decl.name)
        if info is None:
            info = FuncInfo(decl.name, file=decl.coord.file if decl.coord else "")
            self.funcs[decl.name] = info
        info.decls.append(decl)
        m, lb = self._markers(decl)
        info.markers |= m
        if lb is not None:
            info.launch_bounds = lb
        try:
            info.type = self._type(decl.type)
        except Exception:
            pass
        return info

    def _file_decl(self, d: c_ast.Decl, order: list) -> None:
        if d.name is None:
            self._type(d.type)  # struct/union/enum definition
            return
        if "typedef" in (d.storage or []):
            self.typedefs[d.name] = ct.typedef(d.name, self._type(d.type))
            return
        if isinstance(d.type, c_ast.FuncDecl):
            self._declare_function(d)
            return
        t, marks, storage_kw = self._decl_parts(d)
        if "shared" in marks:
            storage = "extern_shared" if "extern" in storage_kw else "shared"
        elif "constant" in marks:
            storage = "constant"
        elif "managed" in marks:
            storage = "managed"
        elif "device" in marks:
            storage = "device"
        else:
            storage = "static" if "static" in storage_kw else "host"
        fv = self.fvars.get(d.name)
        if fv is None:
            fv = FileVar(d, t, storage, d.coord.file if d.coord else "")
            self.fvars[d.name] = fv
        if d.init is not None and t.is_const:
            v = self._ceval(d.init)
            if v is not None:
                fv.value = v
        if self._in_main(d.coord):
            order.append(("var", d.name))

    def _file_var(self, name: str) -> ir.Variable:
        fv = self.fvars[name]
        if fv.var is not None:
            return fv.var
        d = fv.decl
        rng = self._decl_range(d, fv.type)
        v = ir.Variable(name, self._var_ctype(fv.type), fv.storage, rng, file_scope=True,
                        uid=self._new_uid())
        fv.var = v
        self.var_t[id(v)] = fv.type
        if fv.value is not None:
            self.const_vals[id(v)] = fv.value
        if fv.storage != "host":
            self.out.globals.append(v)
        return v

    def _new_uid(self) -> int:
        self._uid += 1
        return self._uid

    def _kind(self, info: FuncInfo) -> str:
        m = info.markers
        if "global" in m:
            return "global"
        if "device" in m and "host" in m:
            return "host_device"
        if "device" in m:
            return "device"
        return "host"

    # ------------------------------------------------------------------ types
    def _type(self, n) -> T:
        if isinstance(n, c_ast.TypeDecl):
            base = self._base_type(n.type)
            return ct.with_quals(base, self._quals(n.quals))
        if isinstance(n, c_ast.PtrDecl):
            return ct.pointer_to(self._type(n.type), self._quals(n.quals))
        if isinstance(n, c_ast.ArrayDecl):
            el = self._type(n.type)
            dim = None
            if n.dim is not None:
                v = self._ceval(n.dim)
                dim = int(v) if isinstance(v, (int, float)) else None
            return ct.array_of(el, dim)
        if isinstance(n, c_ast.FuncDecl):
            ret = self._type(n.type)
            params, variadic = [], False
            if n.args is not None:
                for p in n.args.params:
                    if isinstance(p, c_ast.EllipsisParam):
                        variadic = True
                        continue
                    if not hasattr(p, "type"):  # K&R identifier list
                        continue
                    pt = self._type(p.type)
                    if pt.kind == "void" and len(n.args.params) == 1:
                        continue
                    params.append(self._adjust_param(pt))
            return T("function", "", "", elem=ret, params=tuple(params), variadic=variadic)
        if isinstance(n, c_ast.Typename):
            return self._type(n.type)
        if isinstance(n, c_ast.Decl):
            return self._type(n.type)
        if type(n).__name__ == "AttributedType":
            return self._type(n.type)
        if isinstance(n, (c_ast.IdentifierType, c_ast.Struct, c_ast.Union, c_ast.Enum)):
            return self._base_type(n)
        return ct.UNKNOWN

    @staticmethod
    def _quals(quals) -> tuple:
        out = []
        for q in quals or []:
            if q == "restrict":
                out.append("__restrict")
            elif q in ("const", "volatile"):
                out.append(q)
        return tuple(out)

    def _adjust_param(self, t: T) -> T:
        """Array parameters decay to pointers; clang keeps spelling them as written."""
        if t.kind == "array" and t.typedef_of is None:
            return T("pointer", ct.spell(t), "", elem=t.elem, size=8, align=8)
        if t.kind == "function" and t.typedef_of is None:
            return ct.pointer_to(t)
        return t

    def _base_type(self, n) -> T:
        if isinstance(n, c_ast.IdentifierType):
            names = list(n.names)
            if len(names) == 1 and names[0] in self.typedefs:
                return self.typedefs[names[0]]
            return self._builtin(names)
        if isinstance(n, (c_ast.Struct, c_ast.Union)):
            return self._record(n)
        if isinstance(n, c_ast.Enum):
            return self._enum(n)
        if type(n).__name__ == "AttributedType":
            return self._base_type(n.type)
        return ct.UNKNOWN

    @staticmethod
    def _builtin(names: list[str]) -> T:
        s = set(names)
        longs = names.count("long")
        uns = "unsigned" in s
        if "void" in s:
            return ct.VOID
        if "_Bool" in s or "bool" in s:
            return ct.BOOL
        if "char" in s:
            return ct.scalar("unsigned char" if uns else ("signed char" if "signed" in s else "char"))
        if "float" in s:
            return ct.FLOAT
        if "double" in s:
            return ct.scalar("long double" if longs else "double")
        if "short" in s:
            return ct.scalar("unsigned short" if uns else "short")
        if longs >= 2:
            return ct.scalar("unsigned long long" if uns else "long long")
        if longs == 1:
            return ct.scalar("unsigned long" if uns else "long")
        if s & {"int", "signed", "unsigned"}:
            return ct.scalar("unsigned int" if uns else "int")
        return T("unknown", " ".join(names), " ".join(names))

    def _record(self, n) -> T:
        kw = "union" if isinstance(n, c_ast.Union) else "struct"
        tag = n.name if n.name is not None else self._unnamed(kw, n.coord)
        key = f"{kw} {tag}"
        t = self.tags.get(key)
        if t is None:
            m = ct.is_vector_name(tag)
            rec = ct.RecordInfo()
            if m:
                t = T("vector", key, tag, lanes=int(m.group(2)), is_float=m.group(1) in ("float", "double"),
                      rec=rec)
            else:
                t = T("record", key, tag, rec=rec)
            self.tags[key] = t
        if n.decls is None:
            return t
        fields = []
        size: Optional[int] = 0
        align = 1
        for d in n.decls:
            if not isinstance(d, c_ast.Decl):
                continue
            ft = self._type(d.type)
            fa = max(ct.align_of(ft), 1)
            fsz = ct.size_of(ft)
            if kw == "struct":
                if fsz is None and not (ft.kind == "array" and ft.extent is None):
                    size = None
                if size is not None:
                    size = (size + fa - 1) // fa * fa + (fsz or 0)
            elif size is not None:
                size = max(size, fsz or 0)
            align = max(align, fa)
            if d.name:
                fields.append(ct.Field(d.name, ft))
            elif ct.fields_of(ft):  # anonymous member struct/union
                fields.extend(ct.fields_of(ft))
        if t.kind == "vector":
            align = max(align, ct.VECTOR_ALIGN.get(tag, align))
        if size is not None:
            size = (size + align - 1) // align * align
        t.rec.size, t.rec.align, t.rec.fields = size, align, tuple(fields)
        return t

    def _unnamed(self, kw: str, coord) -> str:
        """clang's name for an anonymous tag: ``(unnamed struct at FILE:LINE:COL)``."""
        if coord is not None:
            hit = self.pm.lookup(coord.file, coord.line, coord.column)
            if hit is not None:
                ft, i = hit
                if ft.text(i) == "{" and ft.text(i - 1) == kw:  # pycparser points at the brace
                    i -= 1
                t = ft.toks[i]
                return f"(unnamed {kw} at {ft.path}:{t.line}:{t.col})"
            return f"(unnamed {kw} at {coord.file}:{coord.line}:{coord.column})"
        self._anon += 1
        return f"(unnamed {kw} #{self._anon})"

    def _enum(self, n: c_ast.Enum) -> T:
        tag = n.name if n.name is not None else self._unnamed("enum", n.coord)
        key = f"enum {tag}"
        t = self.tags.get(key)
        if t is None:
            t = T("enum", key, tag, size=4, align=4)
            self.tags[key] = t
        if n.values is not None:
            v = -1
            ctype = ct.canonical(t)
            for e in n.values.enumerators:
                if e.value is not None:
                    x = self._ceval(e.value)
                    v = int(x) if isinstance(x, (int, float)) else v + 1
                else:
                    v += 1
                self.enum_consts[e.name] = (v, ctype)
        return t

    def _var_ctype(self, t: T) -> ir.CType:
        return to_ctype(t)

    # ------------------------------------------------------------------ constant evaluation
    def _ceval(self, n):
        try:
            return self._ce(n)
        except (ZeroDivisionError, ValueError, TypeError, OverflowError, RecursionError,
                AttributeError, KeyError, IndexError):
            return None

    def _ce(self, n):
        if isinstance(n, c_ast.Constant):
            if n.type == "char":
                return char_literal(n.value)
            if n.type in ("float", "double", "long double"):
                return float_literal(n.value)[0]
            if n.type == "string":
                return None
            return int_literal(n.value)[0]
        if isinstance(n, c_ast.ID):
            if n.name in self.enum_consts:
                return self.enum_consts[n.name][0]
            v = self._lookup_local(n.name)
            if v is not None:
                return self.const_vals.get(id(v))
            fv = self.fvars.get(n.name)
            if fv is not None:
                return fv.value
            return None
        if isinstance(n, c_ast.UnaryOp):
            if n.op == "sizeof":
                t = self._type(n.expr) if isinstance(n.expr, c_ast.Typename) else self._static_type(n.expr)
                return ct.size_of(ct.canonical(t)) if t is not None else None
            a = self._ce(n.expr)
            if a is None:
                return None
            return {"-": lambda: -a, "+": lambda: a, "~": lambda: ~int(a),
                    "!": lambda: int(not a)}.get(n.op, lambda: None)()
        if isinstance(n, c_ast.BinaryOp):
            a = self._ce(n.left)
            b = self._ce(n.right)
            if a is None or b is None:
                return None
            op = n.op
            isint = isinstance(a, int) and isinstance(b, int)
            if op == "/":
                if isint:
                    q = abs(a) // abs(b)
                    return q if (a >= 0) == (b >= 0) else -q
                return a / b
            if op == "%":
                return a - b * (abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1))
            f = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                 "<<": lambda: a << b, ">>": lambda: a >> b, "&": lambda: a & b,
                 "|": lambda: a | b, "^": lambda: a ^ b, "<": lambda: int(a < b),
                 ">": lambda: int(a > b), "<=": lambda: int(a <= b), ">=": lambda: int(a >= b),
                 "==": lambda: int(a == b), "!=": lambda: int(a != b),
                 "&&": lambda: int(bool(a) and bool(b)), "||": lambda: int(bool(a) or bool(b))}
            return f[op]()
        if isinstance(n, c_ast.TernaryOp):
            c = self._ce(n.cond)
            if c is None:
                return None
            return self._ce(n.iftrue if c else n.iffalse)
        if isinstance(n, c_ast.Cast):
            v = self._ce(n.expr)
            t = ct.canonical(self._type(n.to_type))
            if v is None:
                return None
            if t.kind == "scalar" and t.canon in ct.FLOAT_RANK:
                return float(v)
            if t.kind in ("scalar", "enum"):
                return int(v)
            return v
        return None

    def _static_type(self, n) -> Optional[T]:
        """Type of an expression without lowering it (for sizeof in constant expressions)."""
        if isinstance(n, c_ast.ID):
            v = self._lookup_local(n.name)
            if v is not None:
                return self.var_t.get(id(v))
            fv = self.fvars.get(n.name)
            return fv.type if fv is not None else None
        if isinstance(n, c_ast.ArrayRef):
            b = self._static_type(n.name)
            return ct.canonical(b).elem if b is not None and ct.canonical(b).elem is not None else None
        if isinstance(n, c_ast.UnaryOp) and n.op == "*":
            b = self._static_type(n.expr)
            return ct.canonical(b).elem if b is not None else None
        if isinstance(n, c_ast.Constant):
            return self._literal(n)[1]
        return None

    def _decl_parts(self, d) -> tuple:
        """(type, CUDA markers, storage keywords) of a declaration; ``T a[] = {...}`` gets its
        extent from the initializer."""
        t = self._type(d.type)
        if d.init is not None and t.kind == "array" and t.extent is None:
            n = self._init_count(d.init)
            if n is not None:
                t = ct.array_of(t.elem, n)
        marks, _ = self._markers(d)
        return t, marks, d.storage or []

    def _init_count(self, init) -> Optional[int]:
        if isinstance(init, c_ast.InitList):
            return len(init.exprs)
        if isinstance(init, c_ast.Constant) and init.type == "string":
            return len(string_bytes(init.value)) + 1
        return None

