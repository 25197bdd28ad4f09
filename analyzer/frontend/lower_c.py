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

:class:`CLowerer` holds the file- and function-level lowering; its parts are mixins:
declarations and types (:mod:`.lower_c_types`), source positions (:mod:`.lower_c_spans`),
statements (:mod:`.lower_c_stmts`) and expressions (:mod:`.lower_c_exprs`); literals are read by
:mod:`.c_literals` and the shared names and records live in :mod:`.lower_c_symbols`.
"""
from __future__ import annotations

import os
import re
from typing import Optional

from pycparser import c_ast, c_parser

from .. import ir
from . import c_types as ct
from .c_source import INCLUDE_DIR, FileToks, PositionMap, preprocess
from .c_types import T, to_ctype
from .errors import FrontendError
from .lower_c_symbols import FuncInfo, FileVar, Scope
from .lower_c_exprs import ExprLowering
from .lower_c_spans import SpanLowering
from .lower_c_stmts import StmtLowering
from .lower_c_types import TypeLowering


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



# --------------------------------------------------------------------------- lowering

class CLowerer(TypeLowering, SpanLowering, StmtLowering, ExprLowering):
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
        self.scopes: list[Scope] = []
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
        self.scopes = [Scope()]
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

