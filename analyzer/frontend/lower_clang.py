"""Lower a libclang translation unit into the project's IR (``cudalint.analyzer.ir``).

What gets lowered:
- every kernel (``__global__``) defined in the main file; for a function template, each
  specialization the file uses (launch or explicit instantiation) is lowered from clang's own
  instantiated body (concrete types, template arguments substituted), and the primary template
  is lowered too, with unbound non-type parameters as :class:`ir.TemplateParam`, when no
  instantiation is found;
- device functions called from kernels (wherever they are defined, except the prelude);
- host functions of the main file (for launch sites and host-API checks);
- file-scope ``__device__``/``__constant__``/``__shared__``/``__managed__`` variables.

Implicit conversions and parentheses are dropped; explicit casts are kept.
"""
from __future__ import annotations

import functools
import itertools
import os
import re
from typing import Optional

import clang.cindex as ci

from .. import ir
from .clang_ext import binary_operator, evaluate, specialized_template, unary_operator

CK = ci.CursorKind
TK = ci.TypeKind

BUILTIN_VARS = {"threadIdx", "blockIdx", "blockDim", "gridDim"}
BLOCK_BARRIERS = {"__syncthreads", "__syncthreads_count", "__syncthreads_and",
                  "__syncthreads_or", "__barrier_sync"}
WARP_BARRIERS = {"__syncwarp"}
VECTOR_RE = re.compile(r"^(u?char|u?short|u?int|u?long|u?longlong|float|double)([1-4])$")
# Type kinds whose size/evaluation libclang cannot answer without aborting.
_NO_SIZE_KINDS = {"DEPENDENT", "OVERLOAD", "INVALID", "DEPENDENTSIZEDARRAY", "UNEXPOSED",
                  "AUTO", "TEMPLATETYPEPARM", "DEPENDENTSIZEDEXTVECTOR"}
_TOP_KINDS = {CK.VAR_DECL, CK.FUNCTION_DECL, CK.FUNCTION_TEMPLATE, CK.CXX_METHOD}
PRELUDE_MARK = os.sep + "frontend" + os.sep + "include" + os.sep


def _is_prelude(path: str) -> bool:
    return PRELUDE_MARK in path


def _attrs(c: ci.Cursor) -> set[CK]:
    return {ch.kind for ch in c.get_children() if ch.kind.is_attribute()}


def function_kind(c: ci.Cursor) -> str:
    a = _attrs(c)
    if CK.CUDAGLOBAL_ATTR in a:
        return "global"
    dev, host = CK.CUDADEVICE_ATTR in a, CK.CUDAHOST_ATTR in a
    if dev and host:
        return "host_device"
    if dev:
        return "device"
    return "host"


def _file(loc) -> str:
    return loc.file.name if loc.file is not None else ""


def srange(c: ci.Cursor) -> ir.SourceRange:
    e = c.extent
    s, t = e.start, e.end
    return ir.SourceRange(_file(s), s.line, s.column, t.line, t.column)


class Lowerer:
    def __init__(self, tu: ci.TranslationUnit, path: str, source_text: Optional[str] = None):
        self.tu = tu
        self.path = os.path.abspath(path)
        text = source_text if source_text is not None else _read(path)
        self.source_lines = text.splitlines()
        self.source_bytes = text.encode("utf-8")
        self.defines = _simple_defines(text)
        self.out = ir.TranslationUnit(path=path)
        self.vars: dict[str, ir.Variable] = {}  # USR/hash -> Variable
        self.functions: dict[str, ir.Function] = {}  # key -> Function
        self._uid = 0
        # per-function state
        self._locals: Optional[list] = None
        self._globals_used: Optional[list] = None
        self._callees: Optional[list] = None
        self._dependent = False
        self._current_function = ""
        self._main_decls: list = []

    # ------------------------------------------------------------------ entry
    def run(self) -> ir.TranslationUnit:
        kernels_cursors: list[ci.Cursor] = []
        templates: list[ci.Cursor] = []
        host_cursors: list[ci.Cursor] = []
        self._main_decls = list(self._top_level(self.tu.cursor))
        for c in self._main_decls:
            if c.kind == CK.VAR_DECL and self._in_main(c):
                self._file_var(c)
            elif c.kind == CK.FUNCTION_DECL and c.is_definition() and self._in_main(c):
                k = function_kind(c)
                (kernels_cursors if k == "global" else host_cursors).append(c)
            elif c.kind == CK.FUNCTION_TEMPLATE and c.is_definition() and self._in_main(c):
                if function_kind(c) == "global":
                    templates.append(c)
                else:
                    host_cursors.append(c)
            elif c.kind == CK.CXX_METHOD and c.is_definition() and self._in_main(c):
                host_cursors.append(c)
        for c in kernels_cursors:
            self.lower_function(c)
        for c in host_cursors:
            if function_kind(c) in ("host", "host_device") and c.kind != CK.FUNCTION_TEMPLATE:
                self.lower_function(c)
        # Template specializations referenced anywhere (launch sites, explicit instantiation).
        specs = self._specializations(templates)
        for t in templates:
            found = specs.get(t.hash, [])
            for s in found:
                self.lower_function(s, primary=t)
            if not found:
                self.lower_function(t, dependent=True)
        # Device functions reached from the above were lowered on demand.
        return self.out

    def _top_level(self, root: ci.Cursor):
        """Top-level declarations of the main file, descending into namespaces and extern "C"
        blocks opened there. Kinds are filtered before locations: a parse that includes the
        C++ standard library has tens of thousands of top-level cursors and asking each for
        its file is the expensive part."""
        for c in root.get_children():
            k = c.kind
            if k in (CK.NAMESPACE, CK.LINKAGE_SPEC, CK.UNEXPOSED_DECL):
                if self._in_main(c):
                    yield from self._top_level(c)
            elif k in _TOP_KINDS and self._in_main(c):
                yield c

    def _in_main(self, c: ci.Cursor) -> bool:
        f = c.location.file
        return f is not None and os.path.abspath(f.name) == self.path

    def _specializations(self, templates: list[ci.Cursor]) -> dict[int, list[ci.Cursor]]:
        # Explicit instantiations (`template __global__ void k<4>(float*);`) are not exposed
        # by libclang as cursors; such kernels are analysed as the primary template.
        if not templates:
            return {}
        wanted = {t.hash for t in templates}
        out: dict[int, list[ci.Cursor]] = {}
        seen: set[str] = set()
        for c in (x for top in self._main_decls for x in top.walk_preorder()):
            if c.kind != CK.DECL_REF_EXPR:
                continue
            ref = c.referenced
            if ref is None or ref.kind != CK.FUNCTION_DECL or ref.get_num_template_arguments() <= 0:
                continue
            tmpl = specialized_template(ref)
            if tmpl is None or tmpl.hash not in wanted:
                continue
            key = ref.displayname + "|" + _targs_key(ref)
            if key in seen:
                continue
            seen.add(key)
            out.setdefault(tmpl.hash, []).append(ref)
        return out

    # ------------------------------------------------------------------ variables
    def _new_uid(self) -> int:
        self._uid += 1
        return self._uid

    def _file_var(self, c: ci.Cursor) -> ir.Variable:
        key = c.get_usr() or str(c.hash)
        v = self.vars.get(key)
        if v is not None:
            return v
        a = _attrs(c)
        extern = c.storage_class == ci.StorageClass.EXTERN
        if CK.CUDASHARED_ATTR in a:
            storage = "extern_shared" if extern else "shared"
        elif CK.CUDACONSTANT_ATTR in a:
            storage = "constant"
        elif "__managed__" in _tokens_text(c) or _has_managed(c):
            storage = "managed"
        elif CK.CUDADEVICE_ATTR in a:
            storage = "device"
        else:
            storage = "static" if c.storage_class == ci.StorageClass.STATIC else "host"
        v = ir.Variable(c.spelling, self.ctype(c.type), storage, srange(c), file_scope=True,
                        uid=self._new_uid())
        self.vars[key] = v
        if storage != "host":
            self.out.globals.append(v)
        return v

    def _local_var(self, c: ci.Cursor, param: bool = False) -> ir.Variable:
        a = _attrs(c)
        extern = c.storage_class == ci.StorageClass.EXTERN
        if param:
            storage = "param"
        elif CK.CUDASHARED_ATTR in a:
            storage = "extern_shared" if extern else "shared"
        elif CK.CUDACONSTANT_ATTR in a:
            storage = "constant"
        elif c.storage_class == ci.StorageClass.STATIC:
            storage = "static"
        else:
            storage = "auto"
        t = c.type
        is_ref = t.kind in (TK.LVALUEREFERENCE, TK.RVALUEREFERENCE)
        v = ir.Variable(c.spelling, self.ctype(t), storage, srange(c), is_reference=is_ref,
                        uid=self._new_uid())
        self.vars[str(c.hash) + ":" + (c.get_usr() or "") + f"@{c.location.line}:{c.location.column}"] = v
        self.vars[_cursor_key(c)] = v
        return v

    # ------------------------------------------------------------------ types
    def ctype(self, t: ci.Type) -> ir.CType:
        try:
            return self._ctype(t, 0)
        except Exception:  # libclang type queries can fail on odd dependent types
            return ir.CType(t.spelling)

    def _ctype(self, t: ci.Type, depth: int) -> ir.CType:
        spelling = t.spelling
        is_const = t.is_const_qualified()
        is_vol = t.is_volatile_qualified()
        if depth > 8:
            return ir.CType(spelling)
        if t.kind in (TK.LVALUEREFERENCE, TK.RVALUEREFERENCE):
            return self._ctype(t.get_pointee(), depth + 1)
        can = t.get_canonical()
        k = can.kind
        if k.name in _NO_SIZE_KINDS or t.kind.name in ("DEPENDENT", "OVERLOAD", "INVALID") or \
                spelling.startswith("<"):
            # Asking libclang for the size of these aborts the process (LLVM assertion).
            return ir.CType(spelling, "unknown", None, is_const=is_const)
        size = t.get_size()
        size = size if size is not None and size > 0 else None
        if k in (TK.POINTER, TK.BLOCKPOINTER):
            el = self._ctype(t.get_pointee(), depth + 1)
            return ir.CType(spelling, "pointer", 8, element=el, is_const=is_const, is_volatile=is_vol)
        if k in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY, TK.DEPENDENTSIZEDARRAY, TK.VARIABLEARRAY):
            el = self._ctype(can.element_type, depth + 1)
            if el.kind == "unknown" and t.kind in (TK.CONSTANTARRAY, TK.DEPENDENTSIZEDARRAY,
                                                   TK.INCOMPLETEARRAY, TK.VARIABLEARRAY):
                el = self._ctype(t.element_type, depth + 1)  # keeps 'T' instead of 'type-parameter-0-0'
            n = can.element_count if k == TK.CONSTANTARRAY else None
            if n is not None and n < 0:
                n = None
            sz = el.size * n if (el.size and n is not None) else None
            return ir.CType(spelling, "array", sz, element=el, extent=n, is_float=el.is_float,
                            is_const=is_const, is_volatile=is_vol)
        if k == TK.VOID:
            return ir.CType(spelling, "void", None)
        if k in (TK.RECORD, TK.ELABORATED) or can.kind == TK.RECORD:
            name = can.spelling.replace("const ", "").replace("volatile ", "").replace("struct ", "").strip()
            m = VECTOR_RE.match(name)
            if m:
                return ir.CType(spelling, "vector", size, is_float=m.group(1) in ("float", "double"),
                                is_const=is_const, is_volatile=is_vol, lanes=int(m.group(2)))
            try:
                align = t.get_align()
            except Exception:  # an incomplete or dependent record
                align = None
            return ir.CType(spelling, "record", size, is_float=name in ("__half", "half", "__nv_bfloat16"),
                            is_const=is_const, is_volatile=is_vol,
                            align=align if align is not None and align > 0 else None)
        if k == TK.ENUM:
            return ir.CType(spelling, "scalar", size or 4, is_const=is_const)
        if k.name in ('FLOAT', 'DOUBLE', 'LONGDOUBLE', 'HALF', 'FLOAT16', 'FLOAT128', 'BFLOAT16'):
            return ir.CType(spelling, "scalar", size, is_float=True, is_const=is_const, is_volatile=is_vol)
        if k in (TK.FUNCTIONPROTO, TK.FUNCTIONNOPROTO):
            return ir.CType(spelling, "function", None)
        if k in (TK.DEPENDENT, TK.UNEXPOSED) or size is None:
            return ir.CType(spelling, "unknown", None, is_const=is_const)
        return ir.CType(spelling, "scalar", size, is_const=is_const, is_volatile=is_vol)

    # ------------------------------------------------------------------ functions
    def lower_function(self, c: ci.Cursor, primary: Optional[ci.Cursor] = None,
                       dependent: bool = False) -> Optional[ir.Function]:
        key = _cursor_key(c) + "|" + _targs_key(c)
        if key in self.functions:
            return self.functions[key]
        kind = function_kind(c if primary is None else primary)
        name = c.spelling
        display = name
        bindings: dict = {}
        tparams: list[str] = []
        tmpl = primary if primary is not None else (c if c.kind == CK.FUNCTION_TEMPLATE else None)
        if tmpl is not None:
            tparams = [ch.spelling for ch in tmpl.get_children()
                       if ch.kind in (CK.TEMPLATE_TYPE_PARAMETER, CK.TEMPLATE_NON_TYPE_PARAMETER,
                                      CK.TEMPLATE_TEMPLATE_PARAMETER)]
        if primary is not None:
            bindings, args_text = self._bindings(c, tparams)
            display = f"{name}<{', '.join(args_text)}>"
        fn = ir.Function(name=name, kind=kind, params=[], body=None, range=srange(c),
                         return_type=self.ctype(c.result_type) if c.kind != CK.FUNCTION_TEMPLATE else ir.UNKNOWN_TYPE,
                         display_name=display, template_params=tparams, template_bindings=bindings,
                         mangled_name=c.mangled_name or "")
        self.functions[key] = fn
        saved = (self._locals, self._globals_used, self._callees, self._dependent,
                 self._current_function)
        self._current_function = display
        self._locals, self._globals_used, self._callees = [], [], []
        self._dependent = dependent
        try:
            fn.launch_bounds = self._launch_bounds(c if primary is None else primary, c)
            body_cursor = None
            for ch in c.get_children():
                if ch.kind == CK.PARM_DECL:
                    fn.params.append(self._local_var(ch, param=True))
                elif ch.kind == CK.COMPOUND_STMT:
                    body_cursor = ch
            if body_cursor is not None:
                fn.body = self.block(body_cursor)
            fn.locals = self._locals
            fn.globals_used = self._globals_used
            fn.callees = self._callees
        finally:
            (self._locals, self._globals_used, self._callees, self._dependent,
             self._current_function) = saved
        self.out.functions.append(fn)
        return fn

    def _bindings(self, spec: ci.Cursor, tparams: list[str]):
        bindings: dict = {}
        texts: list[str] = []
        n = spec.get_num_template_arguments()
        for i in range(max(n, 0)):
            kind = _targ_kind(spec, i)
            pname = tparams[i] if i < len(tparams) else f"#{i}"
            if kind == ci.TemplateArgumentKind.TYPE:
                t = spec.get_template_argument_type(i)
                bindings[pname] = self.ctype(t)
                texts.append(t.spelling)
            elif kind == ci.TemplateArgumentKind.INTEGRAL:
                v = spec.get_template_argument_value(i)
                bindings[pname] = v
                texts.append(str(v))
            else:
                texts.append("?")
        return bindings, texts

    def _launch_bounds(self, decl: ci.Cursor, spec: ci.Cursor):
        for ch in decl.get_children():
            if ch.kind.is_attribute() and "launch_bounds" in (ch.spelling or "") or \
                    ch.kind == CK.UNEXPOSED_ATTR and "launch_bounds" in _tokens_text(ch):
                nums = []
                for e in ch.get_children():
                    v = None if self._dependent else evaluate(e)
                    nums.append(int(v) if isinstance(v, (int, float)) else None)
                if not nums:
                    # the arguments as written: each must be a literal (or a #define of one);
                    # `__launch_bounds__(WIN_SX, CTMIN(..., 8))` has no known first argument
                    nums = self._launch_bounds_args(_tokens_text(ch))
                if nums and nums[0] is not None:
                    return (nums[0], nums[1] if len(nums) > 1 else None)
        # Fall back on the source text (attribute cursors are not always exposed).
        text = self._decl_head_text(decl)
        # only the declaration's own head: `__launch_bounds__` precedes the function's name
        cut = re.search(r"\b" + re.escape(decl.spelling) + r"\s*[(<]", text)
        text = text[:cut.start()] if cut else text
        m = re.search(r"__launch_bounds__\s*\(([^)]*)\)", text)
        if m:
            parts = [p.strip() for p in m.group(1).split(",")]
            vals = [_int_or_none(p) if _int_or_none(p) is not None else
                    _int_or_none(self.defines.get(p, "")) for p in parts]
            if vals and vals[0] is not None:
                return (vals[0], vals[1] if len(vals) > 1 else None)
        return None

    def _launch_bounds_args(self, text: str) -> list:
        """``__launch_bounds__(A, B)`` -> [A, B] as ints (None where an argument is not a literal
        or a #define of one); top-level commas only."""
        i = text.find("(")
        if i < 0:
            return []
        depth, cur, parts = 0, "", []
        for ch in text[i:]:
            if ch == "(":
                depth += 1
                if depth == 1:
                    continue
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    break
            if ch == "," and depth == 1:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        parts.append(cur)
        out = []
        for p_ in (x.strip() for x in parts):
            while p_.startswith("(") and p_.endswith(")"):
                p_ = p_[1:-1].strip()
            v = _int_or_none(p_)
            out.append(v if v is not None else _int_or_none(self.defines.get(p_, "")))
        return out

    def _decl_head_text(self, decl: ci.Cursor) -> str:
        """The declaration's source text before its name (where `__launch_bounds__` is)."""
        st, name = decl.extent.start, decl.location
        if st.file is None or name.file is None or st.file.name != name.file.name or \
                os.path.abspath(st.file.name) != self.path or not 0 <= name.offset - st.offset < 600:
            return ""
        return self.source_bytes[st.offset:name.offset].decode("utf-8", "replace")

    def _text(self, c: ci.Cursor) -> str:
        """Source text of a cursor in the main file ('' when its extent is not usable, e.g.
        an expansion from a macro defined elsewhere)."""
        st, en = c.extent.start, c.extent.end
        if st.file is None or en.file is None or st.file.name != en.file.name or \
                os.path.abspath(st.file.name) != self.path:
            return ""
        a, b = st.offset, en.offset
        if b < a or b - a > 400:
            return ""
        return self.source_bytes[a:b].decode("utf-8", "replace")

    def _device_function(self, ref: ci.Cursor) -> Optional[ir.Function]:
        """Lower a called device function (on demand), or return None if unavailable."""
        if ref is None or ref.kind not in (CK.FUNCTION_DECL, CK.FUNCTION_TEMPLATE, CK.CXX_METHOD):
            return None
        loc = ref.location.file
        if loc is None or _is_prelude(loc.name):
            return None
        if function_kind(ref) == "global":
            return None
        d = ref.get_definition() if not ref.is_definition() else ref
        if d is None:
            return None
        primary = specialized_template(d) if d.get_num_template_arguments() > 0 else None
        if primary is not None and primary.kind != CK.FUNCTION_TEMPLATE:
            primary = None
        return self.lower_function(d, primary=primary, dependent=d.kind == CK.FUNCTION_TEMPLATE)

    # ------------------------------------------------------------------ statements
    def block(self, c: ci.Cursor) -> ir.Block:
        b = ir.Block(srange(c), [])
        if c.kind == CK.COMPOUND_STMT:
            for ch in c.get_children():
                b.stmts.extend(self.stmt(ch))
        else:
            b.stmts.extend(self.stmt(c))
        return b

    def stmt(self, c: ci.Cursor) -> list[ir.Stmt]:
        k = c.kind
        r = srange(c)
        if k == CK.COMPOUND_STMT:
            return [self.block(c)]
        if k == CK.DECL_STMT:
            out: list[ir.Stmt] = []
            for d in c.get_children():
                if d.kind == CK.VAR_DECL:
                    v = self._local_var(d)
                    self._locals.append(v)
                    init = self._var_init(d)
                    out.append(ir.DeclStmt(srange(d), v, init))
            return out
        if k == CK.IF_STMT:
            kids = [ch for ch in c.get_children()]
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
            kids = list(c.get_children())
            if len(kids) < 2:
                return [ir.OtherStmt(r, "while")]
            return [ir.Loop(r, "while", [], self.expr(kids[-2]), None, self.block(kids[-1]),
                            unroll=self._unroll_pragma(c))]
        if k == CK.DO_STMT:
            kids = list(c.get_children())
            if len(kids) < 2:
                return [ir.OtherStmt(r, "do")]
            return [ir.Loop(r, "do", [], self.expr(kids[1]), None, self.block(kids[0]),
                            unroll=self._unroll_pragma(c))]
        if k == CK.CXX_FOR_RANGE_STMT:
            kids = list(c.get_children())
            body = self.block(kids[-1]) if kids else ir.Block(r, [])
            return [ir.Loop(r, "for", [], None, None, body)]
        if k == CK.RETURN_STMT:
            kids = list(c.get_children())
            return [ir.Return(r, self.expr(kids[0]) if kids else None)]
        if k == CK.BREAK_STMT:
            return [ir.Break(r)]
        if k == CK.CONTINUE_STMT:
            return [ir.Continue(r)]
        if k == CK.SWITCH_STMT:
            kids = list(c.get_children())
            if len(kids) < 2:
                return [ir.OtherStmt(r, "switch")]
            return [ir.Switch(r, self.expr(kids[-2]), self.block(kids[-1]))]
        if k in (CK.CASE_STMT, CK.DEFAULT_STMT):
            kids = list(c.get_children())
            out = [ir.Case(r, self.expr(kids[0]) if k == CK.CASE_STMT and kids else None)]
            if kids:
                out.extend(self.stmt(kids[-1]))
            return out
        if k == CK.LABEL_STMT:
            out = [ir.OtherStmt(r, "label " + c.spelling)]
            for ch in c.get_children():
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
            for ch in c.get_children():
                out.extend(self.stmt(ch))
            return out
        if k.is_expression():
            e = self.expr(c)
            if isinstance(e, ir.Call) and e.callee in BLOCK_BARRIERS | WARP_BARRIERS:
                scope = "warp" if e.callee in WARP_BARRIERS else "block"
                return [ir.Barrier(r, e.callee, scope, e.args)]
            if isinstance(e, ir.Call) and e.callee == "sync" and _is_cg_block_sync(c):
                return [ir.Barrier(r, "cg::sync", _cg_sync_scope(e), [])]
            return [ir.ExprStmt(r, e)]
        if k.is_declaration():
            return []
        return [ir.OtherStmt(r, k.name.lower())]

    def _var_init(self, d: ci.Cursor) -> Optional[ir.Expr]:
        kids = [ch for ch in d.get_children()
                if not ch.kind.is_attribute() and ch.kind not in (CK.TYPE_REF, CK.TEMPLATE_REF,
                                                                  CK.NAMESPACE_REF)]
        if not kids:
            return None
        # Array extents appear as children before the initializer; the initializer is the
        # last expression child, and only present if the declaration has '='/'('/'{'.
        last = kids[-1]
        if not last.kind.is_expression():
            return None
        if not self._has_initializer(d) and not _macro_scalar_init(d, last):
            return None  # none written (a class type's implicit default construction)
        return self.expr(last)

    def _has_initializer(self, d: ci.Cursor) -> bool:
        """Whether the declaration writes an initializer: after the name and any array
        extents comes '=', '(' or '{'. Read from the source (tokens of a range that starts in
        a macro expansion come back empty from libclang)."""
        name, end = d.location, d.extent.end
        tail = ""
        if name.file is not None and end.file is not None and name.file.name == end.file.name \
                and name.offset <= end.offset:
            # the file's own bytes: clang_tokenize costs milliseconds per call deep in a big
            # header (CImg.h), and a file's text is what the tokens would spell anyway
            src = self.source_bytes if os.path.abspath(name.file.name) == self.path else \
                _file_bytes(name.file.name)
            tail = src[name.offset:end.offset].decode("utf-8", "replace")
        if not tail:
            # a declaration written by a macro can report a huge token range (to the end of
            # the file): the initializer, if any, is among the first tokens
            toks = [t.spelling for t in _tokens(d, 48)]
            if d.spelling in toks:
                toks = toks[toks.index(d.spelling):]
            tail = " ".join(toks)
        tail = tail[len(d.spelling):] if tail.startswith(d.spelling) else tail
        tail = re.sub(r"^\s*(\[[^\]]*\]\s*)*", "", tail)
        return tail[:1] in ("=", "(", "{")

    def _for(self, c: ci.Cursor) -> ir.Stmt:
        r = srange(c)
        kids = list(c.get_children())
        # libclang omits absent for-clauses; place children by their offset against the ';'s
        # of the loop header.
        semis = self._for_semicolons(c, kids[-1] if kids else None)
        init: list[ir.Stmt] = []
        cond = step = None
        body_c = kids[-1] if kids else None
        start, end = c.extent.start.offset, c.extent.end.offset
        if kids and (len(semis) < 2 or not all(start <= x <= end for x in semis[:2])):
            # A loop header written by a macro (``FOR_KERNEL_LOOP(i, n) { ... }``): the ';'
            # found are the macro definition's (or none), not at the children's offsets.
            # Place the clauses by kind.
            init, cond, step = self._for_clauses_by_kind(kids[:-1])
            body = self.block(body_c) if body_c is not None else ir.Block(r, [])
            return ir.Loop(r, "for", init, cond, step, body, unroll=self._unroll_pragma(c))
        for ch in kids[:-1]:
            off = ch.extent.start.offset
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
        a = c.extent.start
        b = body.extent.start if body is not None else c.extent.end
        if a.file is not None and b.file is not None and a.file.name == b.file.name and a.offset < b.offset:
            src = self.source_bytes if os.path.abspath(a.file.name) == self.path else _file_bytes(a.file.name)
            text = src[a.offset:b.offset]
            if re.match(rb"for\s*\(", text):
                return _header_semicolons(text, a.offset)
        return _for_header_semicolons(c, body)

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
        tests = [(ch, e) for ch, e in exprs if _is_test(e)]
        updates = [(ch, e) for ch, e in exprs if not _is_test(e)]
        if tests:
            cond = tests[0][1]
        if updates:
            if not init and (len(updates) > 1 or (cond is not None and updates[0][0].extent.start.offset
                                                  < tests[0][0].extent.start.offset)):
                ch, e = updates.pop(0)
                init.append(ir.ExprStmt(srange(ch), e))
            if updates:
                step = updates[-1][1]
        return init, cond, step

    def _unroll_pragma(self, c: ci.Cursor) -> Optional[int]:
        """``#pragma unroll [N]`` on the lines right above the loop (pragmas are not cursors)."""
        line = c.extent.start.line
        if _file(c.extent.start) and os.path.abspath(_file(c.extent.start)) != self.path:
            return None
        i = line - 2
        while i >= 0:
            text = self.source_lines[i].strip() if i < len(self.source_lines) else ""
            if not text or text.startswith("//"):
                i -= 1
                continue
            m = re.match(r"#\s*pragma\s+unroll\b\s*(\(?\s*(\w+)\s*\)?)?", text)
            if m:
                arg = m.group(2)
                if arg is None:
                    return 0
                v = _int_or_none(arg)
                if v is None:
                    v = _int_or_none(self.defines.get(arg, ""))
                return v if v is not None else 0
            if text.startswith("#pragma"):
                i -= 1
                continue
            return None
        return None

    # ------------------------------------------------------------------ expressions
    def expr(self, c: ci.Cursor) -> ir.Expr:
        try:
            return self._expr(c)
        except RecursionError:
            return ir.Unknown(srange(c), ir.UNKNOWN_TYPE, "<too deep>")

    def _expr(self, c: ci.Cursor) -> ir.Expr:
        k = c.kind
        r = srange(c)
        if k in (CK.UNEXPOSED_EXPR, CK.PAREN_EXPR):
            kids = list(c.get_children())
            if len(kids) == 1:
                return self._expr(kids[0])
            if not kids:
                v = self._eval(c)
                if v is not None:
                    return ir.Const(r, self.ctype(c.type), v)
                return ir.Unknown(r, self.ctype(c.type), "")
            return ir.Unknown(r, self.ctype(c.type), _tokens_text(c), [self._expr(x) for x in kids])
        t = self.ctype(c.type)
        if k == CK.INTEGER_LITERAL or k == CK.CHARACTER_LITERAL:
            v = self._eval(c, force=True)
            if v is None:
                v = _int_or_none(_first_token(c)) or 0
            return ir.Const(r, t, int(v))
        if k == CK.FLOATING_LITERAL:
            v = self._eval(c, force=True)
            if v is None:
                try:
                    v = float(_first_token(c).rstrip("fFlL"))
                except ValueError:
                    v = 0.0
            return ir.Const(r, t, float(v))
        if k == CK.CXX_BOOL_LITERAL_EXPR:
            return ir.Const(r, t, _first_token(c) == "true")
        if k == CK.CXX_NULL_PTR_LITERAL_EXPR or k == CK.GNU_NULL_EXPR:
            return ir.Const(r, t, 0)
        if k == CK.STRING_LITERAL:
            return ir.Const(r, t, c.spelling)
        if k == CK.DECL_REF_EXPR:
            if not c.spelling:
                # A substituted non-type template argument (`TILE` in `f<32>`): its value is
                # the literal child.
                kids = [x for x in c.get_children() if x.kind.is_expression()]
                if len(kids) == 1:
                    return self._expr(kids[0])
                v = self._eval(c)
                if v is not None:
                    return ir.Const(r, t, v)
            return self._declref(c, r, t)
        if k == CK.MEMBER_REF_EXPR:
            ref = c.referenced
            if ref is not None and ref.kind == CK.VAR_DECL:
                # `obj.size` naming a static data member (llm.c's `x128::size`): the member's
                # value, not a read of the object.
                v = self._eval(c)
                if v is not None:
                    return ir.Const(r, t, v)
                return self._declref(c, r, t)
            kids = list(c.get_children())
            if kids:
                base = self._expr(kids[0])
                if isinstance(base, ir.VarRef) and base.var.name in BUILTIN_VARS and \
                        c.spelling in ("x", "y", "z") and base.var.storage == "builtin":
                    return ir.Builtin(r, ir.UINT_TYPE, base.var.name, c.spelling)
                arrow = "->" in _tokens_between(c, kids[0])
                return ir.Member(r, t, base, c.spelling, arrow)
            return ir.Member(r, t, ir.Unknown(r, ir.UNKNOWN_TYPE, "this"), c.spelling, True)
        if k == CK.ARRAY_SUBSCRIPT_EXPR:
            kids = list(c.get_children())
            if len(kids) == 2:
                return ir.Index(r, t, self._expr(kids[0]), self._expr(kids[1]))
        if k == CK.BINARY_OPERATOR:
            kids = list(c.get_children())
            op = binary_operator(c) or _infix_op(c, kids)
            if len(kids) == 2:
                lhs, rhs = self._expr(kids[0]), self._expr(kids[1])
                if op == "=":
                    return ir.Assign(r, t, "=", lhs, rhs)
                return ir.BinOp(r, t, op, lhs, rhs)
        if k == CK.COMPOUND_ASSIGNMENT_OPERATOR:
            kids = list(c.get_children())
            op = binary_operator(c) or _infix_op(c, kids)
            if len(kids) == 2:
                return ir.Assign(r, t, op, self._expr(kids[0]), self._expr(kids[1]))
        if k == CK.UNARY_OPERATOR:
            kids = list(c.get_children())
            op = unary_operator(c) or _prefix_op(c)
            if kids:
                return ir.UnaryOp(r, t, op, self._expr(kids[0]))
        if k == CK.CONDITIONAL_OPERATOR:
            kids = list(c.get_children())
            if len(kids) == 3:
                return ir.Ternary(r, t, self._expr(kids[0]), self._expr(kids[1]), self._expr(kids[2]))
        if k in (CK.CSTYLE_CAST_EXPR, CK.CXX_STATIC_CAST_EXPR, CK.CXX_REINTERPRET_CAST_EXPR,
                 CK.CXX_CONST_CAST_EXPR, CK.CXX_DYNAMIC_CAST_EXPR, CK.CXX_FUNCTIONAL_CAST_EXPR):
            kids = [x for x in c.get_children() if x.kind.is_expression()]
            if kids:
                return ir.Cast(r, t, self._expr(kids[-1]))
        if k == CK.CALL_EXPR:
            return self._call(c, r, t)
        if k == CK.INIT_LIST_EXPR:
            return ir.InitList(r, t, [self._expr(x) for x in c.get_children()])
        if k == CK.LAMBDA_EXPR:
            # Not modelled as a value, but its body is lowered so that what it does (e.g. a
            # kernel launch inside `[&]{ k<<<g, b>>>(...); }`) is visible to the analyses.
            body = next((x for x in c.get_children() if x.kind == CK.COMPOUND_STMT), None)
            parts: list = []
            if body is not None:
                for st in ir.walk_stmt(self.block(body)):
                    parts.extend(st.exprs())
            return ir.Unknown(r, t, "<lambda>", parts)
        if k == CK.CXX_UNARY_EXPR:  # sizeof / alignof
            v = self._eval(c)
            return ir.SizeOf(r, t, int(v) if v is not None else None)
        kids = [x for x in c.get_children() if x.kind.is_expression()]
        return ir.Unknown(r, t, _tokens_text(c)[:200], [self._expr(x) for x in kids])

    def _eval(self, c: ci.Cursor, force: bool = False):
        if self._dependent and not force:
            return None
        if c.type.kind.name in ("DEPENDENT", "OVERLOAD", "INVALID") or \
                c.type.get_canonical().kind.name in _NO_SIZE_KINDS:
            return None  # error-recovery or dependent expressions: clang's evaluator aborts
        try:
            return evaluate(c)
        except Exception:
            return None

    def _declref(self, c: ci.Cursor, r: ir.SourceRange, t: ir.CType) -> ir.Expr:
        ref = c.referenced
        name = c.spelling
        if ref is None:
            return ir.Unknown(r, t, name)
        rk = ref.kind
        if rk == CK.VAR_DECL and name in BUILTIN_VARS and ref.location.file is not None and \
                _is_prelude(ref.location.file.name):
            v = ir.Variable(name, t, "builtin", r, file_scope=True)
            return ir.VarRef(r, t, v)
        if rk == CK.VAR_DECL and name == "warpSize" and (ref.location.file is None or _is_prelude(ref.location.file.name)):
            return ir.Builtin(r, ir.INT_TYPE, "warpSize", "")
        if rk == CK.TEMPLATE_NON_TYPE_PARAMETER:
            return ir.TemplateParam(r, t, name)
        if rk in (CK.VAR_DECL, CK.PARM_DECL):
            key = _cursor_key(ref)
            v = self.vars.get(key)
            if v is None and rk == CK.VAR_DECL and ref.semantic_parent is not None and \
                    ref.semantic_parent.kind in (CK.TRANSLATION_UNIT, CK.NAMESPACE, CK.LINKAGE_SPEC):
                v = self._file_var(ref)
            if v is None:
                # e.g. a static class member or a variable from a header: keep its value if
                # it is a constant, else a fresh variable record.
                val = self._eval(c)
                if val is not None and ref.type.is_const_qualified():
                    return ir.Const(r, t, val)
                v = self._file_var(ref) if rk == CK.VAR_DECL else ir.Variable(name, t, "auto", r)
            if v.file_scope and self._globals_used is not None and v not in self._globals_used \
                    and v.storage not in ("host",):
                self._globals_used.append(v)
            if v.file_scope and v.storage in ("host", "static") and ref.type.is_const_qualified():
                val = self._eval(c)
                if val is not None:
                    return ir.Const(r, t, val)
            if not v.file_scope and v.storage == "auto" and rk == CK.VAR_DECL and \
                    ref.type.is_const_qualified() and not ref.type.is_volatile_qualified() and \
                    t.kind == "scalar":
                # `const int UNROLL = 8;` / `constexpr int`: a compile-time constant wherever it
                # is used (trip counts of loops the compiler unrolls, array extents).
                val = self._eval(c)
                if val is not None:
                    return ir.Const(r, t, val)
            return ir.VarRef(r, t, v)
        if rk == CK.ENUM_CONSTANT_DECL:
            return ir.Const(r, t, ref.enum_value)
        if rk in (CK.FUNCTION_DECL, CK.FUNCTION_TEMPLATE, CK.CXX_METHOD):
            return ir.FuncRef(r, t, name)
        return ir.Unknown(r, t, name)

    def _call(self, c: ci.Cursor, r: ir.SourceRange, t: ir.CType) -> ir.Expr:
        kids = list(c.get_children())
        # A kernel launch: callee, then the configuration call, then the arguments.
        if len(kids) >= 2 and kids[1].kind == CK.CALL_EXPR and kids[1].spelling in (
                "cudaConfigureCall", "__cudaPushCallConfiguration"):
            return self._launch(c, kids, r, t)
        name = c.spelling
        ref = c.referenced
        # Operator calls in templates and on class types: treat like the built-in operator.
        if name.startswith("operator") and len(name) > 8:
            op = name[8:].strip()
            args = [self._expr(x) for x in kids if x.kind.is_expression() and
                    not (x.kind == CK.UNEXPOSED_EXPR and x.spelling == name)]
            args = [a for a in args if not isinstance(a, ir.FuncRef)]
            if op in ("=",) and len(args) == 2:
                return ir.Assign(r, t, "=", args[0], args[1])
            if op.endswith("=") and op not in ("==", "!=", "<=", ">=") and len(args) == 2:
                return ir.Assign(r, t, op, args[0], args[1])
            if op == "[]" and len(args) == 2:
                return ir.Index(r, t, args[0], args[1])
            if len(args) == 2:
                return ir.BinOp(r, t, op, args[0], args[1])
            if len(args) == 1:
                return ir.UnaryOp(r, t, op, args[0])
        args_c = kids[1:] if kids and not (ref is not None and ref.kind == CK.CONSTRUCTOR) else kids
        if ref is not None and ref.kind == CK.CONSTRUCTOR:
            args_c = [x for x in kids if x.kind.is_expression()]
        args_c = [x for x in args_c if x.kind.is_expression() and not _is_default_arg(x)]
        if ref is not None and ref.kind == CK.CONSTRUCTOR and len(args_c) == 1 and \
                _same_extent(args_c[0], c):
            # An implicit conversion or copy (`dim3 b = 256`, passing a struct by value):
            # the constructor call adds nothing to model.
            return self._expr(args_c[0])
        args = [self._expr(x) for x in args_c]
        if not name and kids:
            callee = self._expr(kids[0])
            name = callee.name if isinstance(callee, ir.FuncRef) else _callee_spelling(kids[0])
            if isinstance(callee, ir.Member):
                name = callee.member
        call = ir.Call(r, t, name, args)
        if ref is not None and ref.kind == CK.CXX_METHOD and kids:
            # Keep the object of a method call (x.sync()) as the first argument.
            obj = kids[0]
            if obj.kind == CK.MEMBER_REF_EXPR:
                ok = list(obj.get_children())
                if ok:
                    call.args.insert(0, self._expr(ok[0]))
        fn = self._device_function(ref) if ref is not None else None
        if fn is not None:
            call.function = fn
            if self._callees is not None and fn not in self._callees:
                self._callees.append(fn)
        return call

    def _launch(self, c, kids, r, t) -> ir.Expr:
        callee_c = kids[0]
        cfg = [x for x in list(kids[1].get_children())[1:]  # drop the configure function itself
               if not _is_default_arg(x)]
        args = [self._expr(x) for x in kids[2:]]
        cfg_ir = [self._expr(x) for x in cfg]
        ref = _find_ref(callee_c)
        kname = ref.spelling if ref is not None else callee_c.spelling
        targs: tuple = ()
        if ref is not None and ref.get_num_template_arguments() > 0:
            tparams = []
            tmpl = specialized_template(ref)
            if tmpl is not None:
                tparams = [ch.spelling for ch in tmpl.get_children()
                           if ch.kind in (CK.TEMPLATE_TYPE_PARAMETER, CK.TEMPLATE_NON_TYPE_PARAMETER)]
            _, texts = self._bindings(ref, tparams)
            targs = tuple(texts)
        texts = [self._text(x) for x in cfg]
        site = ir.LaunchSite(kernel=kname, template_args=targs, range=r, args=args,
                             grid_text=texts[0] if texts else "", block_text=texts[1] if len(texts) > 1 else "",
                             smem_text=texts[2] if len(texts) > 2 else "",
                             stream_text=texts[3] if len(texts) > 3 else "")
        site.caller = self._current_function
        self.out.launches.append(site)
        return ir.LaunchExpr(r, t, site, cfg_ir, args)


# ---------------------------------------------------------------------- helpers

def _macro_scalar_init(d: ci.Cursor, last: ci.Cursor) -> bool:
    """A scalar/pointer declared inside a macro expansion (``cudaError_t e = (call);`` in a
    CHECK macro): its tokens are the macro invocation's, so the source cannot tell whether an
    initializer is written; an expression child of a non-array, non-class variable is one."""
    try:
        loc = d.location
        if loc.file is None:
            return False
        import linecache
        linecache.checkcache(loc.file.name)
        text = linecache.getline(loc.file.name, loc.line)
        if text[loc.column - 1:].startswith(d.spelling):
            return False  # the declaration is spelled here: not a macro expansion
        k = d.type.get_canonical().kind
    except Exception:
        return False
    return k not in (TK.RECORD, TK.CONSTANTARRAY, TK.INCOMPLETEARRAY, TK.VARIABLEARRAY,
                     TK.DEPENDENTSIZEDARRAY) and last.kind.is_expression()


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _targ_kind(c: ci.Cursor, i: int):
    """The template argument kind, or None for kinds the Python bindings do not know
    (libclang 18 reports e.g. kind 8, a pack, which the enum lacks)."""
    try:
        return c.get_template_argument_kind(i)
    except ValueError:
        return None


def _callee_spelling(c: ci.Cursor) -> str:
    """Name of an unresolved callee (a call on dependent types inside a template)."""
    for x in c.walk_preorder():
        if x.kind in (CK.OVERLOADED_DECL_REF, CK.DECL_REF_EXPR, CK.MEMBER_REF_EXPR) and x.spelling:
            return x.spelling
    return ""


def _is_default_arg(c: ci.Cursor) -> bool:
    """A defaulted argument the source does not write (clang's CXXDefaultArgExpr)."""
    if c.kind != CK.UNEXPOSED_EXPR:
        return False
    st, en = c.extent.start, c.extent.end
    if st.file is None:
        return True
    return st.offset == en.offset and next(iter(c.get_children()), None) is None


def _same_extent(a: ci.Cursor, b: ci.Cursor) -> bool:
    ea, eb = a.extent, b.extent
    return (ea.start.offset, ea.end.offset) == (eb.start.offset, eb.end.offset) and \
        ea.start.file is not None and eb.start.file is not None and \
        ea.start.file.name == eb.start.file.name


def _simple_defines(text: str) -> dict:
    """`#define NAME VALUE` object-like macros of the file (for `#pragma unroll NAME`)."""
    return {m.group(1): m.group(2).strip() for m in
            re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n/]+)", text, re.M)}


def _cursor_key(c: ci.Cursor) -> str:
    loc = c.location
    return f"{c.spelling}@{_file(loc)}:{loc.line}:{loc.column}:{c.kind.value}"


def _targs_key(c: ci.Cursor) -> str:
    n = c.get_num_template_arguments()
    if n <= 0:
        return ""
    parts = []
    for i in range(n):
        kind = _targ_kind(c, i)
        if kind == ci.TemplateArgumentKind.TYPE:
            parts.append(c.get_template_argument_type(i).spelling)
        elif kind == ci.TemplateArgumentKind.INTEGRAL:
            parts.append(str(c.get_template_argument_value(i)))
        else:
            parts.append("?")
    return ",".join(parts)


#: At most this many tokens are read of one cursor: inside a macro expansion libclang can
#: report a range that runs to the end of the file (CImg.h: millions of tokens per loop).
TOKEN_LIMIT = 4096


#: At most this many bytes of a cursor's range are lexed: clang_tokenize lexes the whole
#: range before the first token comes back, and inside macro expansions libclang reports ranges
#: that run far past the construct (CImg.h: seconds per file on for-loops and declarations).
LEX_BYTES = 4096


def _tokens(c: ci.Cursor, limit: int = TOKEN_LIMIT):
    ext = c.extent
    a, b = ext.start, ext.end
    odd = a.file is None or b.file is None or a.file.name != b.file.name or b.offset < a.offset
    if (odd or b.offset - a.offset > LEX_BYTES) and a.file is not None:
        try:
            tu = c.translation_unit
            end = ci.SourceLocation.from_offset(tu, ext.start.file, ext.start.offset + LEX_BYTES)
            return itertools.islice(tu.get_tokens(extent=ci.SourceRange.from_locations(ext.start, end)), limit)
        except Exception:  # noqa: BLE001 - a location libclang refuses: no tokens
            return iter(())
    return itertools.islice(c.get_tokens(), limit)


def _tokens_text(c: ci.Cursor) -> str:
    """The cursor's source text, whitespace collapsed: read from the file when its range is
    plain (one file, in order), else from libclang's tokens (macro expansions)."""
    a, b = c.extent.start, c.extent.end
    if a.file is not None and b.file is not None and a.file.name == b.file.name and \
            a.offset <= b.offset and b.offset - a.offset <= LEX_BYTES:
        text = _file_bytes(a.file.name)[a.offset:b.offset].decode("utf-8", "replace")
        if text:
            return " ".join(text.split())
    try:
        return " ".join(t.spelling for t in _tokens(c))
    except Exception:
        return ""


def _first_token(c: ci.Cursor) -> str:
    for t in _tokens(c, 1):
        return t.spelling
    return ""


def _tokens_between(c: ci.Cursor, first_child: ci.Cursor) -> str:
    """The text right after ``first_child`` (a few tokens)."""
    end = first_child.extent.end.offset
    out = []
    for t in _tokens(c):
        if t.extent.start.offset >= end:
            out.append(t.spelling)
            if len(out) >= 4:
                break
    return " ".join(out)[:8]


def _infix_op(c: ci.Cursor, kids) -> str:
    if len(kids) != 2:
        return "?"
    end = kids[0].extent.end.offset
    for t in _tokens(c):
        if t.extent.start.offset >= end:
            return t.spelling
    return "?"


def _prefix_op(c: ci.Cursor) -> str:
    toks = [t.spelling for t in _tokens(c)]
    if not toks:
        return "?"
    if toks[0] in ("++", "--"):
        return "pre" + toks[0]
    if toks[-1] in ("++", "--"):
        return "post" + toks[-1]
    return toks[0]


_TEST_OPS = {"<", "<=", ">", ">=", "==", "!=", "&&", "||"}


def _is_test(e: ir.Expr) -> bool:
    """Whether ``e`` reads as a loop condition (a comparison or logical test)."""
    while isinstance(e, ir.Cast):
        e = e.operand
    if isinstance(e, ir.BinOp):
        return e.op in _TEST_OPS
    if isinstance(e, ir.UnaryOp):
        return e.op == "!"
    return e.type.spelling == "bool"


def _file_bytes(path: str) -> bytes:
    """A source file's bytes (cached while its size and modification time stay the same: the
    editor server lives long and headers change under it)."""
    try:
        st = os.stat(path)
    except OSError:
        return b""
    return _read_bytes(path, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=64)
def _read_bytes(path: str, mtime_ns: int, size: int) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def _header_semicolons(text: bytes, base: int) -> list[int]:
    """Offsets (``base`` + index) of the ';' at parenthesis depth 1 of ``for (...)`` in
    ``text``, skipping comments, strings and character literals."""
    out: list[int] = []
    depth, i, n = 0, 0, len(text)
    while i < n:
        ch = text[i:i + 1]
        if text.startswith(b"//", i):
            j = text.find(b"\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith(b"/*", i):
            j = text.find(b"*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if ch in (b'"', b"'"):
            j = i + 1
            while j < n and text[j:j + 1] != ch:
                j += 2 if text[j:j + 1] == b"\\" else 1
            i = j + 1
            continue
        if ch == b"(":
            depth += 1
        elif ch == b")":
            depth -= 1
            if depth == 0:
                break
        elif ch == b";" and depth == 1:
            out.append(base + i)
        i += 1
    return out


def _for_header_semicolons(c: ci.Cursor, body: Optional[ci.Cursor] = None) -> list[int]:
    """Offsets of the two ';' that separate the clauses of a for-loop header. Only the header
    is lexed (up to the body), not the whole loop: clang_tokenize lexes all of its range."""
    depth = 0
    out: list[int] = []
    started = False
    toks = None
    if body is not None:
        a, b = c.extent.start, body.extent.start
        if a.file is not None and b.file is not None and a.file.name == b.file.name and a.offset < b.offset:
            try:
                toks = itertools.islice(c.translation_unit.get_tokens(
                    extent=ci.SourceRange.from_locations(a, b)), TOKEN_LIMIT)
            except Exception:
                toks = None
    for t in (toks if toks is not None else _tokens(c)):
        s = t.spelling
        if s == "(":
            depth += 1
            started = True
            continue
        if s == ")":
            depth -= 1
            if started and depth == 0:
                break
            continue
        if started and depth == 1 and s == ";":
            out.append(t.extent.start.offset)
    return out


def _find_ref(c: ci.Cursor) -> Optional[ci.Cursor]:
    for x in c.walk_preorder():
        if x.kind in (CK.DECL_REF_EXPR, CK.OVERLOADED_DECL_REF):
            return x.referenced
    return None


def _is_cg_block_sync(c: ci.Cursor) -> bool:
    text = _tokens_text(c)
    return "sync" in text and ("block" in text or "cta" in text or "grid" not in text)


def _cg_sync_scope(call: ir.Call) -> str:
    """`tile.sync()` / `cg::sync(tile)` on a thread_block_tile or coalesced group synchronizes
    a warp (or part of one), not the block."""
    grp = call.args[0].type.spelling if call.args else ""
    if "tile" in grp or "coalesced" in grp or ("thread_group" in grp and "thread_block" not in grp):
        return "warp"  # a generic thread_group here is a tiled_partition(...) of the block
    return "block"


def _has_managed(c: ci.Cursor) -> bool:
    return any(ch.kind.is_attribute() and "managed" in (ch.spelling or "") for ch in c.get_children())


def _int_or_none(s: str) -> Optional[int]:
    s = s.strip().rstrip("uUlL")
    try:
        return int(s, 0)
    except ValueError:
        return None


def lower_translation_unit(tu: ci.TranslationUnit, path: str,
                           source_text: Optional[str] = None) -> ir.TranslationUnit:
    return Lowerer(tu, path, source_text).run()
