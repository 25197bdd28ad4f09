"""The pycparser frontend: plain-C CUDA files to the project's IR.

    lower_c_file(path, include_dirs=(), defines=()) -> ir.TranslationUnit  (frontend="pycparser")

Pipeline: the system C preprocessor runs on the file with the C prelude
(``include/c_prelude.h``, which turns the CUDA qualifiers into ``_Alignas(__cudalint_*)``
markers that pycparser can parse) and minimal libc headers (``include/pyc/``); launches
``k<<<g, b, s, t>>>(args)`` are rewritten in the preprocessed text, length for length, into
``k(  g, b, s, t)  (args)`` (a call of a call, recognised again by the kernel name's position);
pycparser parses the result; :mod:`.c_source` maps every preprocessed token back to the
original file so that ranges are in original lines and columns; and :class:`CLowerer` lowers
the AST with the conventions of ``lower_clang.py`` so that both frontends give the same IR on
plain C:

* what is lowered: kernels and host (and host-device) functions defined in the main file;
  device functions on demand, when something lowered calls them (wherever defined, except the
  bundled headers); file-scope variables of the main file (``globals`` holds those whose storage
  is not ``host``), and file-scope variables of headers when referenced;
* ``threadIdx.x`` -> Builtin (unsigned int); bare ``threadIdx`` -> VarRef of a ``builtin``
  variable; ``warpSize`` -> Builtin('warpSize', '') (int);
* implicit conversions and parentheses are not represented, explicit casts are; expression
  types are computed with C++ rules (comparisons and ``!``/``&&``/``||`` are ``bool``, a char
  literal is ``char``), as clang types CUDA;
* ``#pragma unroll [N]`` before a loop -> ``Loop.unroll`` (0 = full; N evaluated, macros too).

Ranges: 1-based line/column (bytes) of the original file; the start is the first token of the
construct as clang reports it (a macro-expanded construct starts at the macro invocation;
a declaration at its first specifier, a later declarator of ``int a, b;`` at its name; a
parenthesised operand extends its parent to the parenthesis). The end (exclusive) is the end of
the construct's last token: for expression and return statements the end of the expression (no
``;``); for declarations the end of the initializer or declarator (no ``;``); for a do-loop its
``)``; for a block its ``}``; for a macro expansion the end of the macro invocation.
"""
from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass, field, replace
from typing import Optional

from pycparser import c_ast, c_parser

from .. import ir
from . import c_types as ct
from .c_source import INCLUDE_DIR, FileToks, PositionMap, preprocess
from .c_types import T, to_ctype
from .errors import FrontendError

BUILTIN_VARS = {"threadIdx", "blockIdx", "blockDim", "gridDim"}
BLOCK_BARRIERS = {"__syncthreads", "__syncthreads_count", "__syncthreads_and",
                  "__syncthreads_or", "__barrier_sync"}
WARP_BARRIERS = {"__syncwarp"}
MARK = "__cudalint_"

# Overloaded CUDA functions, typed from their arguments (C cannot overload).
_RET_POINTEE = {"atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicInc",
                "atomicDec", "atomicCAS", "atomicAnd", "atomicOr", "atomicXor",
                "atomicAdd_block", "atomicAdd_system", "__ldg", "__ldcg", "__ldcs"}
_RET_ARG2 = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
             "__reduce_add_sync"}
_RET_ARITH = {"min", "max"}


def lower_c_file(path: str, include_dirs=(), defines=()) -> ir.TranslationUnit:
    """Preprocess, parse and lower a plain-C CUDA file. Raises :class:`FrontendError`."""
    if not os.path.isfile(path):
        raise FrontendError("file not found", path=path)
    pp = preprocess(path, include_dirs, defines)
    pm = PositionMap(pp.text, pp.macros, skip_dirs=(INCLUDE_DIR,))
    text, launch_keys = _rewrite_launches(pp.text, pm)
    parser = c_parser.CParser()
    try:
        ast = parser.parse(text, path)
    except c_parser.ParseError as e:
        raise _parse_error(str(e), parser, pm, path) from None
    except (AssertionError, RecursionError, IndexError, TypeError, ValueError) as e:
        raise FrontendError(f"pycparser failed: {type(e).__name__}: {e}", path=path) from None
    lw = CLowerer(path, pm, pp.macros, launch_keys)
    tu = lw.run(ast)
    for h in pp.stubbed:
        tu.notes.append(f"header <{h}> not found; analysed without it (pass its directory with -I)")
    try:
        from ..launch import resolve_launch_sites
        resolve_launch_sites(tu)
    except Exception:  # launch resolution is best effort here; the pipeline redoes it
        pass
    return tu


# --------------------------------------------------------------------------- launches, errors

def _rewrite_launches(text: str, pm: PositionMap) -> tuple[str, set]:
    """``k<<<a, b>>>(x)`` -> ``k(  a, b)  (x)`` in place; returns the kernel-name positions."""
    toks = pm.pp_tokens
    edits: dict[int, str] = {}
    keys: set = set()
    n = len(toks)
    i = 0
    while i < n:
        f, line, t, off = toks[i]
        open_len = 0
        if t.text == "<<<":
            open_len = 1
        elif t.text == "<<" and i + 1 < n and toks[i + 1][2].text == "<":
            open_len = 2
        if not open_len or i == 0 or toks[i - 1][2].kind != "id":
            i += 1
            continue
        depth, j, close = 0, i + open_len, None
        while j < n:
            tt = toks[j][2].text
            if tt in ("(", "[", "{"):
                depth += 1
            elif tt in (")", "]", "}"):
                depth -= 1
                if depth < 0:
                    break
            elif depth == 0 and tt == ">>>":
                close = (j, 1)
                break
            elif depth == 0 and tt == ">>" and j + 1 < n and toks[j + 1][2].text == ">":
                close = (j, 2)
                break
            elif depth == 0 and tt == ";":
                break
            j += 1
        if close is None:
            i += 1
            continue
        for k in range(open_len):
            o, tk = toks[i + k][3], toks[i + k][2]
            edits[o] = ("(" if k == 0 else " ") + " " * (len(tk.text) - 1)
        for k in range(close[1]):
            o, tk = toks[close[0] + k][3], toks[close[0] + k][2]
            edits[o] = (")" if k == 0 else " ") + " " * (len(tk.text) - 1)
        kf, kl, kt, _ = toks[i - 1]
        keys.add((kf, kl, kt.col))
        i = close[0] + close[1]
    if not edits:
        return text, keys
    out = []
    last = 0
    for o in sorted(edits):
        out.append(text[last:o])
        out.append(edits[o])
        last = o + len(edits[o])
    out.append(text[last:])
    return "".join(out), keys


_ERR_RE = re.compile(r"^(.*?):(\d+)(?::(\d+))?: (.*)$", re.S)


def _parse_error(msg: str, parser, pm: PositionMap, path: str) -> FrontendError:
    fname, line, col, text = None, None, None, msg
    m = _ERR_RE.match(msg)
    if m:
        fname, line, col, text = m.group(1), int(m.group(2)), m.group(3), m.group(4)
        col = int(col) if col else None
    else:
        if ": " in msg:
            text = msg.split(": ", 1)[1]
        try:  # pycparser gave no position: use the token where parsing stopped
            ts = parser._tokens
            tok = ts._buffer[min(ts._index, len(ts._buffer) - 1)] if ts._buffer else None
            if tok is None and ts._index > 0:
                tok = ts._buffer[ts._index - 1]
            if tok is not None:
                fname, line, col = tok.filename, tok.lineno, tok.column
        except Exception:
            pass
    if fname is not None and line is not None:
        hit = pm.lookup(fname, line, col)
        if hit is not None:
            ft, i = hit
            t = ft.toks[i]
            return FrontendError(f"parse error: {text}", t.line, t.col, ft.path)
        if os.path.abspath(fname).startswith(INCLUDE_DIR):
            text += f" (in the bundled header {os.path.basename(fname)})"
        return FrontendError(f"parse error: {text}", line, None, fname or path)
    return FrontendError(f"parse error: {text}", None, None, path)


# --------------------------------------------------------------------------- literals

_INT_RE = re.compile(r"^(0[xX][0-9a-fA-F']+|0[bB][01']+|[0-9']+)([uUlLzZ]*)$")


def int_literal(text: str) -> tuple[int, T]:
    m = _INT_RE.match(text)
    if not m:
        raise ValueError(text)
    digits, suf = m.group(1).replace("'", ""), m.group(2).lower()
    if digits[:2].lower() == "0x":
        v, dec = int(digits, 16), False
    elif digits[:2].lower() == "0b":
        v, dec = int(digits[2:], 2), False
    elif len(digits) > 1 and digits[0] == "0":
        v, dec = int(digits, 8), False
    else:
        v, dec = int(digits), True
    u = "u" in suf
    nl = min(suf.count("l"), 2)
    if u:
        cands = [["unsigned int", "unsigned long", "unsigned long long"],
                 ["unsigned long", "unsigned long long"], ["unsigned long long"]][nl]
    elif dec:
        cands = [["int", "long", "long long"], ["long", "long long"], ["long long"]][nl]
    else:
        cands = [["int", "unsigned int", "long", "unsigned long", "long long", "unsigned long long"],
                 ["long", "unsigned long", "long long", "unsigned long long"],
                 ["long long", "unsigned long long"]][nl]
    for c in cands:
        bits = ct.SCALAR_SIZE[c] * 8
        hi = (1 << bits) - 1 if c.startswith("unsigned") else (1 << (bits - 1)) - 1
        if v <= hi:
            return v, ct.scalar(c)
    return v, ct.scalar(cands[-1])


def float_literal(text: str) -> tuple[float, T]:
    s = text.replace("'", "")
    t = ct.DOUBLE
    hexf = s[:2].lower() == "0x"
    if s[-1] in "fF" and (not hexf or "p" in s.lower()):
        s, t = s[:-1], ct.FLOAT
    elif s[-1] in "lL":
        s, t = s[:-1], ct.scalar("long double")
    v = float.fromhex(s) if hexf else float(s)
    if t is ct.FLOAT:
        v = struct.unpack("f", struct.pack("f", v))[0]
    return v, t


_ESC = {"n": 10, "t": 9, "r": 13, "0": 0, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92, "'": 39,
        '"': 34, "?": 63}


def char_literal(text: str) -> int:
    body = text[text.index("'") + 1: text.rindex("'")]
    if not body:
        return 0
    if body[0] != "\\":
        return ord(body[0])
    if body[1] in "xX":
        return int(body[2:], 16)
    if body[1].isdigit():
        return int(body[1:], 8)
    return _ESC.get(body[1], ord(body[1]))


# --------------------------------------------------------------------------- symbols

@dataclass
class FuncInfo:
    name: str
    decls: list = field(default_factory=list)  # c_ast.Decl nodes (prototypes and definition)
    defn: Optional[c_ast.FuncDef] = None
    file: str = ""
    markers: set = field(default_factory=set)
    launch_bounds: Optional[c_ast.Node] = None
    type: T = ct.UNKNOWN  # function type: elem = result, params


@dataclass
class FileVar:
    decl: c_ast.Decl
    type: T
    storage: str
    file: str
    var: Optional[ir.Variable] = None
    value: Optional[object] = None  # constant value of a const variable with a constant init


class _Scope(dict):
    pass


# --------------------------------------------------------------------------- lowering

class CLowerer:
    def __init__(self, path: str, pm: PositionMap, macros: dict, launch_keys: set):
        self.path = path
        self.abspath = os.path.abspath(path)
        self.pm = pm
        self.macros = macros
        self.launch_keys = launch_keys
        self.out = ir.TranslationUnit(path=path, frontend="pycparser")
        self.typedefs: dict[str, T] = {}
        self.tags: dict[str, T] = {}  # 'struct S' / 'union U' / 'enum E' -> T
        self.enum_consts: dict[str, tuple[int, T]] = {}
        self.funcs: dict[str, FuncInfo] = {}
        self.fvars: dict[str, FileVar] = {}
        self.functions: dict[str, ir.Function] = {}
        self._uid = 0
        self.scopes: list[_Scope] = []
        self.ft: Optional[FileToks] = None
        self.T: dict[int, T] = {}
        self.span: dict[int, tuple[int, int]] = {}
        self.var_t: dict[int, T] = {}
        self.const_vals: dict[int, object] = {}
        self._empty_cases: set[int] = set()
        self._keep: list = []
        # per function
        self._locals: Optional[list] = None
        self._globals_used: Optional[list] = None
        self._callees: Optional[list] = None
        self._current = ""
        self._anon = 0

    # ------------------------------------------------------------------ entry
    def run(self, ast: c_ast.FileAST) -> ir.TranslationUnit:
        order: list[tuple[str, object]] = []
        for ext in ast.ext:
            if isinstance(ext, c_ast.FuncDef):
                info = self._declare_function(ext.decl)
                if info.defn is None:
                    info.defn = ext
                    info.file = ext.decl.coord.file if ext.decl.coord else ""
                if self._in_main(ext.decl.coord):
                    order.append(("func", info))
            elif isinstance(ext, c_ast.Decl):
                self._file_decl(ext, order)
            elif isinstance(ext, c_ast.Typedef):
                self.typedefs[ext.name] = ct.typedef(ext.name, self._type(ext.type))
        for what, obj in order:
            if what == "var":
                self._file_var(obj)
        kernels = [o for w, o in order if w == "func" and self._kind(o) == "global"]
        others = [o for w, o in order if w == "func" and self._kind(o) in ("host", "host_device")]
        for info in kernels:
            self.lower_function(info)
        for info in others:
            self.lower_function(info)
        return self.out

    def _in_main(self, coord) -> bool:
        return coord is not None and os.path.abspath(coord.file) == self.abspath

    def _in_prelude(self, fname: str) -> bool:
        return os.path.abspath(fname).startswith(INCLUDE_DIR + os.sep)

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
            return len(_string_bytes(init.value)) + 1
        return None

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

    # ------------------------------------------------------------------ functions
    def lower_function(self, info: FuncInfo) -> Optional[ir.Function]:
        if info.name in self.functions:
            return self.functions[info.name]
        d = info.defn
        if d is None:
            return None
        nc = self._name_coord(d.decl)
        hit = self.pm.lookup(nc.file, nc.line, nc.column) if nc else None
        saved_ft = self.ft
        self.ft = hit[0] if hit is not None else None
        ftype = self._type(d.decl.type)
        name_i = hit[1] if hit is not None else None
        body_sp = None
        bi = self._at(d.body.coord)
        if bi is not None and bi in self.ft.match:
            body_sp = (bi, self.ft.match[bi])
        fsp = None
        if name_i is not None:
            fsp = (self._decl_start(name_i), body_sp[1] if body_sp else name_i)
        fn = ir.Function(name=info.name, kind=self._kind(info), params=[], body=None,
                         range=self._range(fsp, d.decl.coord),
                         return_type=to_ctype(ftype.elem if ftype.kind == "function" else ct.UNKNOWN))
        self.functions[info.name] = fn
        saved = (self._locals, self._globals_used, self._callees, self._current, self.scopes)
        self._locals, self._globals_used, self._callees = [], [], []
        self._current = info.name
        self.scopes = [_Scope()]
        try:
            fn.launch_bounds = self._launch_bounds(info)
            fdecl = d.decl.type
            if isinstance(fdecl, c_ast.FuncDecl) and fdecl.args is not None:
                for p in fdecl.args.params:
                    if not isinstance(p, c_ast.Decl):
                        continue
                    # libclang types an array parameter as written (float[]), not decayed
                    pt = self._type(p.type)
                    if pt.kind == "function":
                        pt = ct.pointer_to(pt)
                    if pt.kind == "void" and p.name is None:
                        continue
                    psp = None
                    pi = self._at(self._name_coord(p)) if p.name else None
                    if pi is not None:
                        psp = (self._decl_start(pi, param=True), self._declarator_end(pi))
                    v = ir.Variable(p.name or "", to_ctype(pt), "param", self._range(psp, p.coord),
                                    uid=self._new_uid())
                    self.var_t[id(v)] = pt
                    fn.params.append(v)
                    if p.name:
                        self.scopes[-1][p.name] = v
            fn.body = self.block(d.body)
            fn.locals = self._locals
            fn.globals_used = self._globals_used
            fn.callees = self._callees
        finally:
            (self._locals, self._globals_used, self._callees, self._current, self.scopes) = saved
            self.ft = saved_ft
        self.out.functions.append(fn)
        return fn

    def _launch_bounds(self, info: FuncInfo):
        lb = info.launch_bounds
        if lb is None:
            return None
        args = lb.args.exprs if lb.args is not None else []
        nums = []
        for a in args:
            v = self._ceval(a)
            nums.append(int(v) if isinstance(v, (int, float)) else None)
        if not nums:
            return None
        return (nums[0], nums[1] if len(nums) > 1 else None)

    # ------------------------------------------------------------------ statements
    def block(self, n) -> ir.Block:
        if isinstance(n, c_ast.Compound) and not self._synthetic(n):
            i = self._at(n.coord)
            sp = (i, self.ft.match[i]) if i is not None and i in self.ft.match else None
            b = self._set_span(ir.Block(self._range(sp, n.coord), []), sp)
            self.scopes.append(_Scope())
            try:
                b.stmts = self._items(n.block_items or [])
            finally:
                self.scopes.pop()
            return b
        if isinstance(n, c_ast.Compound):  # pragma + statement made into a compound by pycparser
            self.scopes.append(_Scope())
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
        self.scopes.append(_Scope())
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
            self.scopes.append(_Scope())
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
            b = _string_bytes(n.value)
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


def _line_slice(path: str, r: ir.SourceRange) -> str:
    if not r.line or r.line != r.end_line or os.path.abspath(r.file or "") != os.path.abspath(path):
        return ""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return ""
    return lines[r.line - 1][r.column - 1:r.end_column - 1] if r.line <= len(lines) else ""


def _string_bytes(lit: str) -> bytes:
    """The bytes of a (possibly concatenated) C string literal, escapes decoded."""
    out = bytearray()
    for m in re.finditer(r'"((?:[^"\\]|\\.)*)"', lit):
        s = m.group(1)
        i = 0
        while i < len(s):
            ch = s[i]
            if ch != "\\":
                out.extend(ch.encode("utf-8"))
                i += 1
                continue
            nx = s[i + 1] if i + 1 < len(s) else ""
            if nx in "xX":
                j = i + 2
                while j < len(s) and s[j] in "0123456789abcdefABCDEF":
                    j += 1
                out.append(int(s[i + 2:j] or "0", 16) & 0xFF)
                i = j
            elif nx.isdigit():
                j = i + 1
                while j < len(s) and j < i + 4 and s[j] in "01234567":
                    j += 1
                out.append(int(s[i + 1:j], 8) & 0xFF)
                i = j
            else:
                out.append(_ESC.get(nx, ord(nx) if nx else 0))
                i += 2
    return bytes(out)
