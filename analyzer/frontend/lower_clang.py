"""Lower a libclang translation unit into the project's IR (``cudalint.analyzer.ir``).

What gets lowered:
- every kernel (``__global__``) defined in the main file or in a project header it includes
  (``project_files.ProjectScope``: not a system header, not the prelude, not excluded); for a function template, each
  specialization the file uses (launch or explicit instantiation) is lowered from clang's own
  instantiated body (concrete types, template arguments substituted), and the primary template
  is lowered too, with unbound non-type parameters as :class:`ir.TemplateParam`, when no
  instantiation is found;
- device functions called from kernels (wherever they are defined, except the prelude);
- host functions of the main file and of its project headers (launch sites, host-API checks);
- file-scope ``__device__``/``__constant__``/``__shared__``/``__managed__`` variables.

Implicit conversions and parentheses are dropped; explicit casts are kept.

:class:`Lowerer` holds declarations, types and functions; statements are lowered in
:mod:`.lower_clang_stmts`, expressions in :mod:`.lower_clang_exprs`, and the cursor/token
helpers they share live in :mod:`.clang_cursors`.
"""
from __future__ import annotations

import os
import re
from typing import Optional

import clang.cindex as ci

from .. import ir
from .clang_ext import evaluate, specialized_template
from . import clang_fast
from .clang_fast import children, preorder
from .clang_cursors import (
    CK, NO_SIZE_KINDS, TK, TOP_KINDS, VECTOR_RE, attrs, cursor_key, file_bytes, function_kind,
    has_managed, int_or_none, is_prelude, read_text, simple_defines, srange, targ_kind, targs_key,
    tokens_text
)
from .lower_clang_exprs import ExprLowering
from .lower_clang_stmts import StmtLowering


_SCOPE_IDS = {CK.NAMESPACE.value, CK.LINKAGE_SPEC.value, CK.UNEXPOSED_DECL.value}
_TOP_IDS = {k.value for k in TOP_KINDS}



#: Host function template instantiations whose bodies are searched for kernel launches (a
#: file dispatching on every head dimension and stage count has a few dozen).
_MAX_HOST_INSTANTIATIONS = 256
# What makes a header's host function worth lowering eagerly (Lowerer._with_gpu_work).
_GPU_API = re.compile(rb"<<<[^;]*>>>|\b(?:cuda|cu[A-Z]|cublas|cufft|curand|cusparse|cusolver|cudnn|cutensor|"
                      rb"nvrtc|nccl|nvjpeg|nvtx)\w*")
_MACRO_CALL = re.compile(rb"\b([A-Z][A-Z0-9_]*[A-Z0-9])\s*\(")
_MACRO_DEF = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)((?:[^\n]|\\\n)*)", re.M)
_IDENT = re.compile(rb"[A-Za-z_]\w*")


class Lowerer(StmtLowering, ExprLowering):
    def __init__(self, tu: ci.TranslationUnit, path: str, source_text: Optional[str] = None,
                 scope=None):
        self.tu = tu
        self.path = os.path.abspath(path)
        self.scope = scope  # ProjectScope: which included files are the user's (None: main only)
        self._in_scope: dict[str, bool] = {}
        text = source_text if source_text is not None else read_text(path)
        self.source_lines = text.splitlines()
        self.source_bytes = text.encode("utf-8")
        self.defines = simple_defines(text)
        self.out = ir.TranslationUnit(path=path)
        self.vars: dict[str, ir.Variable] = {}  # USR/hash -> Variable
        self.functions: dict[str, ir.Function] = {}  # key -> Function
        self._uid = 0
        self._ctypes: dict = {}  # (type kind, QualType pointer) -> CType
        self._fkinds: dict = {}  # function cursor -> global | device | host | host_device
        self._header_lines: dict[str, list[str]] = {}
        self._has_launch_bounds: dict[str, bool] = {}  # file -> its text names __launch_bounds__
        # per-function state
        self._locals: Optional[list] = None
        self._globals_used: Optional[list] = None
        self._callees: Optional[list] = None
        self._dependent = False
        self._current_function = ""
        self._main_decls: list = []
        self._list_inits: dict = {}  # local Variable -> its braced initializer (ir.InitList)

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
                k = self.function_kind(c)
                (kernels_cursors if k == "global" else host_cursors).append(c)
            elif c.kind == CK.FUNCTION_TEMPLATE and c.is_definition() and self._in_main(c):
                if self.function_kind(c) == "global":
                    templates.append(c)
                else:
                    host_cursors.append(c)
            elif c.kind == CK.CXX_METHOD and c.is_definition() and self._in_main(c):
                host_cursors.append(c)
        for c in kernels_cursors:
            self.lower_function(c)
        host_cursors = [c for c in host_cursors
                        if self.function_kind(c) in ("host", "host_device") and c.kind != CK.FUNCTION_TEMPLATE]
        for c in self._with_gpu_work(host_cursors, kernels_cursors + templates):
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

    def _with_gpu_work(self, hosts: list, kernels: list) -> list:
        """The host functions to lower now: all of the main file's, and those of the user's
        headers whose text can touch the GPU. A header's plain host code (helper_image.h's file
        readers, helper_string.h's argument parsing, a StopWatch class: half the lowering of
        cuda-samples files) is lowered only if a function lowered here calls it (on demand,
        as any callee): it has no launch, no CUDA call and no finding of its own.

        A header function touches the GPU when its text has a launch (``<<<``), a name of the
        runtime or driver API or of a CUDA library (``cudaMalloc``, ``cuLaunchKernel``,
        ``cublasSgemm``..., also inside a checking macro's arguments), a call of an all-capitals
        macro not known to be plain (:meth:`_plain_macros`), or the name of a kernel, of a
        main-file function or of a header function that touches the GPU (a caller whose
        arguments reach a launch)."""
        heads, main = [], []
        for c in hosts:
            in_main = os.path.abspath(clang_fast.location(c.location, c._tu)[0]) == self.path
            (main if in_main or self.function_kind(c) != "host" else heads).append(c)
        if not heads:
            return hosts
        names = {c.spelling for c in kernels} | {c.spelling for c in main}
        texts = []
        for c in heads:
            st, en = clang_fast.extent(c)
            texts.append(self._bytes_of(st[0])[st[3]:en[3]] if st[0] and st[0] == en[0] and en[3] > st[3]
                         else None)
        plain = self._plain_macros({clang_fast.location(c.location, c._tu)[0] for c in heads} | {self.path})
        words = []
        for c, text in zip(heads, texts):
            if text is None or _GPU_API.search(text) or any(
                    m not in plain for m in _MACRO_CALL.findall(text)):
                names.add(c.spelling)
                words.append(None)  # touches the GPU (or its text cannot be read: kept)
            else:
                words.append(set(_IDENT.findall(text)))
        grew = True
        while grew:  # a caller of what touches the GPU touches it too
            grew = False
            wanted = {n.encode() for n in names}
            for i, c in enumerate(heads):
                if words[i] is not None and not wanted.isdisjoint(words[i]):
                    words[i] = None
                    names.add(c.spelling)
                    grew = True
        drop = {id(c) for c, w in zip(heads, words) if w is not None}
        return [c for c in hosts if id(c) not in drop]

    def _plain_macros(self, files: set) -> set[bytes]:
        """Names of the macros defined in ``files`` whose expansion cannot touch the GPU
        (helper_string.h's ``STRNCASECMP``, ``FOPEN``): no CUDA name, no launch, and only such
        macros inside (any definition, where ``#if`` branches give several). A macro defined
        elsewhere may hide a CUDA call."""
        bodies: dict = {}
        for f in files:
            try:
                data = self._bytes_of(f)
            except OSError:
                continue
            if b"define" not in data:
                continue
            for m in _MACRO_DEF.finditer(data):
                bodies.setdefault(m.group(1), []).append(m.group(2))
        plain = {n for n, bs in bodies.items() if not any(_GPU_API.search(b) for b in bs)}
        grew = True
        while grew:  # a macro that calls one that may touch the GPU may too
            grew = False
            for n in list(plain):
                if any(x not in plain and x != n for b in bodies[n] for x in _MACRO_CALL.findall(b)):
                    plain.discard(n)
                    grew = True
        return plain

    def _top_level(self, root: ci.Cursor):
        """Top-level declarations of the main file, descending into namespaces and extern "C"
        blocks opened there. Kinds are filtered before locations: a parse that includes the
        C++ standard library has tens of thousands of top-level cursors and asking each for
        its file is the expensive part."""
        for c in children(root):
            k = c._kind_id  # the kind's number: no CursorKind lookup per top-level cursor
            if k in _SCOPE_IDS:
                if self._in_main(c):
                    yield from self._top_level(c)
            elif k in _TOP_IDS and self._in_main(c):
                yield c

    def _in_main(self, c: ci.Cursor) -> bool:
        """In the main file or in one of the user's headers (see ``project_files``)."""
        loc = c.location
        name = clang_fast.location(loc, c._tu)[0]
        if not name:
            return False
        hit = self._in_scope.get(name)
        if hit is None:
            ap = os.path.abspath(name)
            hit = ap == self.path or (self.scope is not None and
                                      self.scope.contains(ap, loc.is_in_system_header))
            self._in_scope[name] = hit
        return hit

    def _bytes_of(self, name: str) -> bytes:
        """The bytes of a file of the translation unit (the main file's may be an editor buffer)."""
        return self.source_bytes if os.path.abspath(name) == self.path else file_bytes(name)

    def _lines_of(self, name: str) -> list[str]:
        """The lines of a header of the translation unit (read once per lowering)."""
        lines = self._header_lines.get(name)
        if lines is None:
            lines = self._header_lines[name] = self._bytes_of(name).decode("utf-8", "replace").splitlines()
        return lines

    def _specializations(self, templates: list[ci.Cursor]) -> dict[int, list[ci.Cursor]]:
        # Explicit instantiations (`template __global__ void k<4>(float*);`) are not exposed
        # by libclang as cursors; such kernels are analysed as the primary template.
        if not templates:
            return {}
        wanted = {t.hash for t in templates}
        out: dict[int, list[ci.Cursor]] = {}
        seen: set[str] = set()
        declref = CK.DECL_REF_EXPR.value
        # The bodies to look in: the file's own code, then the instantiated bodies of the host
        # function templates it uses (``launch<64>(...)`` in a switch on a run-time size, whose
        # body launches ``kernel<64, kThreads>``: dependent in the template, concrete in clang's
        # instantiation of it), and theirs in turn.
        bodies = list(self._main_decls)
        hosts: set[str] = set()
        while bodies:
            body = bodies.pop(0)
            for c in preorder(body):
                if c._kind_id != declref:
                    continue
                ref = c.referenced
                if ref is None or ref.kind != CK.FUNCTION_DECL or ref.get_num_template_arguments() <= 0:
                    continue
                tmpl = specialized_template(ref)
                if tmpl is None:
                    continue
                key = ref.displayname + "|" + targs_key(ref)
                if tmpl.hash not in wanted:
                    if (key not in hosts and len(hosts) < _MAX_HOST_INSTANTIATIONS and ref.is_definition()
                            and self.function_kind(tmpl) == "host" and self._in_main(tmpl)):
                        hosts.add(key)
                        bodies.append(ref)
                    continue
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
        a = attrs(c)
        extern = c.storage_class == ci.StorageClass.EXTERN
        if CK.CUDASHARED_ATTR in a:
            storage = "extern_shared" if extern else "shared"
        elif CK.CUDACONSTANT_ATTR in a:
            storage = "constant"
        elif "__managed__" in tokens_text(c) or has_managed(c):
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
        a = attrs(c)
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
        _, line, col, _ = clang_fast.location(c.location, c._tu)
        self.vars[str(c.hash) + ":" + (c.get_usr() or "") + f"@{line}:{col}"] = v
        self.vars[cursor_key(c)] = v
        return v

    # ------------------------------------------------------------------ types
    def ctype(self, t: ci.Type) -> ir.CType:
        # One answer per clang type: a CXType is (kind, QualType, unit), and the QualType
        # pointer (qualifiers in its low bits) names the type for the unit's lifetime.
        key = (t._kind_id, t.data[0])
        hit = self._ctypes.get(key) if key[1] else None
        if hit is None:
            try:
                hit = self._ctype(t, 0)
            except Exception:  # libclang type queries can fail on odd dependent types
                hit = ir.CType(t.spelling)
            if key[1]:
                self._ctypes[key] = hit
        return hit

    def function_kind(self, c: ci.Cursor) -> str:
        """``function_kind`` once per declaration (it reads the cursor's attribute children)."""
        k = self._fkinds.get(c)
        if k is None:
            k = self._fkinds[c] = function_kind(c)
        return k

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
        if k.name in NO_SIZE_KINDS or t.kind.name in ("DEPENDENT", "OVERLOAD", "INVALID") or \
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
                            align=align if align is not None and align > 0 else None,
                            fields=_field_offsets(can))
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
                       dependent: bool = False, spec: Optional[ci.Cursor] = None) -> Optional[ir.Function]:
        """Lower function ``c``. ``spec``: a specialization of template ``c`` that clang
        declared but did not instantiate (called from a template that is never instantiated):
        ``c``'s body is lowered, dependent, with ``spec``'s template arguments bound."""
        key = cursor_key(spec if spec is not None else c) + "|" + targs_key(spec if spec is not None else c)
        if key in self.functions:
            return self.functions[key]
        kind = self.function_kind(c if primary is None else primary)
        name = c.spelling
        display = name
        bindings: dict = {}
        tparams: list[str] = []
        tmpl = primary if primary is not None else (c if c.kind == CK.FUNCTION_TEMPLATE else None)
        if tmpl is not None:
            tparams = [ch.spelling for ch in children(tmpl)
                       if ch.kind in (CK.TEMPLATE_TYPE_PARAMETER, CK.TEMPLATE_NON_TYPE_PARAMETER,
                                      CK.TEMPLATE_TEMPLATE_PARAMETER)]
        if primary is not None:
            bindings, args_text = self._bindings(spec if spec is not None else c, tparams)
            display = f"{name}<{', '.join(args_text)}>"
        fn = ir.Function(name=name, kind=kind, params=[], body=None, range=srange(c),
                         return_type=self.ctype(c.result_type) if c.kind != CK.FUNCTION_TEMPLATE else ir.UNKNOWN_TYPE,
                         display_name=display, template_params=tparams, template_bindings=bindings,
                         mangled_name=(spec if spec is not None else c).mangled_name or "")
        self.functions[key] = fn
        saved = (self._locals, self._globals_used, self._callees, self._dependent,
                 self._current_function)
        self._current_function = display
        self._locals, self._globals_used, self._callees = [], [], []
        self._dependent = dependent
        try:
            fn.launch_bounds = self._launch_bounds(c if primary is None else primary, c)
            body_cursor = None
            for ch in children(c):
                if ch.kind == CK.PARM_DECL:
                    fn.params.append(self._local_var(ch, param=True))
                    if kind == "host":  # host flow binds an omitted argument to its default
                        dflt = [x for x in children(ch) if x.kind.is_expression()]
                        if dflt:
                            fn.params[-1].default = self.expr(dflt[-1])
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
            kind = targ_kind(spec, i)
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
        for ch in children(decl):
            if ch.kind.is_attribute() and "launch_bounds" in (ch.spelling or "") or \
                    ch.kind == CK.UNEXPOSED_ATTR and "launch_bounds" in tokens_text(ch):
                nums = []
                for e in children(ch):
                    v = None if self._dependent else evaluate(e)
                    nums.append(int(v) if isinstance(v, (int, float)) else None)
                if not nums:
                    # the arguments as written: each must be a literal (or a #define of one);
                    # `__launch_bounds__(WIN_SX, CTMIN(..., 8))` has no known first argument
                    nums = self._launch_bounds_args(tokens_text(ch))
                if nums and nums[0] is not None:
                    return (nums[0], nums[1] if len(nums) > 1 else None)
        # Fall back on the source text (attribute cursors are not always exposed).
        text = self._decl_head_text(decl)
        if not text:
            return None
        # only the declaration's own head: `__launch_bounds__` precedes the function's name
        cut = re.search(r"\b" + re.escape(decl.spelling) + r"\s*[(<]", text)
        text = text[:cut.start()] if cut else text
        m = re.search(r"__launch_bounds__\s*\(([^)]*)\)", text)
        if m:
            parts = [p.strip() for p in m.group(1).split(",")]
            vals = [int_or_none(p) if int_or_none(p) is not None else
                    int_or_none(self.defines.get(p, "")) for p in parts]
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
            v = int_or_none(p_)
            out.append(v if v is not None else int_or_none(self.defines.get(p_, "")))
        return out

    def _decl_head_text(self, decl: ci.Cursor) -> str:
        """The declaration's source text before its name (where `__launch_bounds__` is)."""
        st = clang_fast.extent(decl)[0]
        name = clang_fast.location(decl.location, decl._tu)
        if not st[0] or not name[0] or st[0] != name[0] or not 0 <= name[3] - st[3] < 600:
            return ""
        data = self._bytes_of(st[0])
        has = self._has_launch_bounds.get(st[0])
        if has is None:
            has = self._has_launch_bounds[st[0]] = b"__launch_bounds__" in data
        if not has:
            return ""  # what the caller looks for is not in the file
        return data[st[3]:name[3]].decode("utf-8", "replace")

    def _text(self, c: ci.Cursor) -> str:
        """Source text of a cursor, read from its own file ('' when its extent is not usable,
        e.g. an expansion from a macro defined elsewhere)."""
        st, en = clang_fast.extent(c)
        if not st[0] or not en[0] or st[0] != en[0]:
            return ""
        a, b = st[3], en[3]
        if b < a or b - a > 400:
            return ""
        return self._bytes_of(st[0])[a:b].decode("utf-8", "replace")

    def _device_function(self, ref: ci.Cursor) -> Optional[ir.Function]:
        """Lower a called device function (on demand), or return None if unavailable."""
        if ref is None or ref.kind not in (CK.FUNCTION_DECL, CK.FUNCTION_TEMPLATE, CK.CXX_METHOD):
            return None
        loc = clang_fast.location(ref.location, ref._tu)[0]
        if not loc or is_prelude(loc):
            return None
        if self.function_kind(ref) == "global":
            return None
        d = ref.get_definition() if not ref.is_definition() else ref
        if d is None and ref.kind == CK.FUNCTION_DECL and ref.get_num_template_arguments() > 0:
            # a specialization never instantiated (its caller is a template no one
            # instantiates): the template's body with the specialization's arguments
            primary = specialized_template(ref)
            tdef = primary.get_definition() if primary is not None and primary.kind == CK.FUNCTION_TEMPLATE else None
            if tdef is not None and tdef.kind == CK.FUNCTION_TEMPLATE:
                self._in_main(tdef)
                return self.lower_function(tdef, primary=tdef, dependent=True, spec=ref)
        if d is None:
            return None
        self._in_main(d)  # remember whether its file is the user's (where findings go)
        primary = specialized_template(d) if d.get_num_template_arguments() > 0 else None
        if primary is not None and primary.kind != CK.FUNCTION_TEMPLATE:
            primary = None
        return self.lower_function(d, primary=primary, dependent=d.kind == CK.FUNCTION_TEMPLATE)





def _field_offsets(t) -> tuple:
    """(name, byte offset) of each named field of record type ``t`` as clang laid it out;
    () for a dependent or incomplete record (its layout is not known)."""
    out = []
    try:
        for f in t.get_fields():
            bits = f.get_field_offsetof()
            if f.spelling and bits is not None and bits >= 0 and bits % 8 == 0:
                out.append((f.spelling, bits // 8))
    except Exception:  # noqa: BLE001 - libclang raises on dependent layouts
        return ()
    return tuple(out)


def lower_translation_unit(tu: ci.TranslationUnit, path: str,
                           source_text: Optional[str] = None, scope=None) -> ir.TranslationUnit:
    """``scope`` (a ``project_files.ProjectScope``) adds the user's headers to the main file."""
    return Lowerer(tu, path, source_text, scope).run()
