"""The device code of a whole ``.cu`` file, without its host code, for a register report.

nvcc compiles a file's host code too, and real code bases carry host code that today's
compilers reject (``cudaThreadSynchronize``, removed in CUDA 13, is all over PolyBench/GPU)
while every kernel compiles. To read ptxas' register report anyway, cudalint compiles only
what the kernels need: every ``__global__`` function of the file and, transitively, the
``__device__`` functions, device/constant variables, constants, types and macros they refer
to (the lexical splitter of ``device_source``, which ``validate`` already uses to
hand one kernel to NVRTC). Each kept piece keeps its ``#line``, so compiler messages point into
the user's file.

Template kernels are compiled only where instantiated; their instantiations live in host code
(``k<float, 256><<<g, b>>>(...)``), so the host text is scanned for ``name<...>`` uses of each
template kernel whose arguments name nothing host-local, and they become explicit
instantiation requests (:attr:`DeviceCode.instantiations`): a host-side address-of for nvcc,
name expressions for NVRTC.

Pure and lexical (no clang, no toolkit): it runs before the file is parsed, so the compiler can
work while cudalint analyses.
"""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from typing import Iterable, Optional

__all__ = ["DeviceCode", "device_code", "instantiation_stub"]

_IDENT = re.compile(r"[A-Za-z_]\w*")
# What may appear in a template argument list besides names the file defines.
_ARG_WORDS = {"int", "unsigned", "signed", "long", "short", "char", "float", "double", "bool", "void",
              "const", "volatile", "true", "false", "sizeof", "size_t", "half", "__half", "__nv_bfloat16",
              "int2", "int4", "float2", "float3", "float4", "double2", "uint", "uchar", "ushort",
              "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
              "uchar4", "uint2", "uint4", "char4", "short2", "ulong", "std", "nullptr"}


@dataclass
class DeviceCode:
    """Device-only source of a file."""

    code: str
    kernels: list[str]  # plain names of the kernels kept
    instantiations: list[str] = field(default_factory=list)  # "k<float, 256>" (template kernels)
    system_includes: list[str] = field(default_factory=list)  # <...> headers the file includes
    notes: list[str] = field(default_factory=list)
    template_kernels: list[str] = field(default_factory=list)  # compiled only where instantiated
    # What a batch of several files' device code in one compile must know (analyzer/ptxas_batch):
    names: set = field(default_factory=set)  # top-level names it declares (not macros)
    refs: set = field(default_factory=set)  # identifiers it uses (directives' included)
    macros: set = field(default_factory=set)  # names it #defines or #undefs
    redeclarations: dict = field(default_factory=dict)  # name -> text: `namespace cg = ...;`, typedefs
    using_directives: set = field(default_factory=set)  # `using namespace X;` (normalised)
    kept_includes: list = field(default_factory=list)  # <...> headers left in the code (cuda_fp16.h...)
    files: set = field(default_factory=set)  # the files its pieces come from (the file, its headers)
    pragmas: list = field(default_factory=list)  # top-level #pragma lines
    # Before its last kept <...> include (where a batch's earlier file may have included it already):
    defined_before_include: set = field(default_factory=set)  # #defined names (the header may test them)
    tested_before_include: set = field(default_factory=set)  # #if/#ifdef/#undef names (it may define them)
    used_before_include: set = field(default_factory=set)  # identifiers of code (it may declare them)
    extern_c: bool = False  # a piece in an extern "C" block: its name is not mangled
    global_data: bool = False  # __device__/__managed__ variables, string literals, asserts: gmem
    foreign_operators: bool = False  # an operator overload on types it does not define
    late_using: bool = False  # a using-directive after a definition
    # `extern __shared__ T x[];`: cicc aligns it to 16 bytes, and ptxas then rounds every kernel's
    # static shared memory in the compile up to 16 (4 -> 16 bytes)
    dynamic_shared: bool = False
    unused_dynamic_shared: bool = False  # one is declared but not used (dropped, then no rounding)
    static_shared: bool = False  # other __shared__ variables: only their sizes get rounded

    @property
    def has_templates(self) -> bool:
        return bool(self.template_kernels)

    @property
    def uninstantiated(self) -> list[str]:
        """Template kernels no instantiation request names: compiling the device code alone
        reports nothing for them."""
        named = {re.split(r"\s*<", i, 1)[0].split("::")[-1].strip() for i in self.instantiations}
        return [k for k in self.template_kernels if k not in named]

    @property
    def digest(self) -> str:
        h = hashlib.sha256(self.code.encode("utf-8", "surrogateescape"))
        for s in self.instantiations + ["\0"] + self.system_includes:
            h.update(b"\0" + s.encode())
        return h.hexdigest()

    def source_for_nvcc(self, system_headers=True) -> str:
        """The code with the instantiation requests and the file's system headers: all of them
        (True), none (False) or those listed (nvcc compiles host-only headers fine; device code
        rarely needs their declarations, and without them the compile is about a third faster)."""
        heads = self.system_includes if system_headers is True else (system_headers or [])
        head = "".join(f"#include <{h}>\n" for h in heads)
        return head + self.code + instantiation_stub(self.instantiations)

    def needed_system_includes(self) -> list[str]:
        """The left-out ``<...>`` headers that the code names something of (a kernel taking a
        ``curandState *``, a ``uint8_t``, ``CUDART_PI_F``): without them its compile
        is bound to fail. Where the code names such a thing and none of the headers is known to
        declare it, all of them."""
        if not self.system_includes:
            return []
        unresolved = self.refs - self.names
        need: list[str] = []
        for header, names in _HEADER_DECLARES:
            if not any(names.match(r) for r in unresolved):
                continue
            hit = [h for h in self.system_includes if header.match(h)]
            if not hit:  # declared by some header that includes it (cuda.h includes stdint.h)
                return list(self.system_includes)
            need += hit
        return [h for h in self.system_includes if h in need]


# What the <...> headers the device-only compile leaves out declare that device code uses,
# by the identifiers naming it (cuda-samples' failures of a compile without them: curandState,
# CUtexObject, uint32_t, CUDART_PI_F, cufftComplex, FLT_MAX). assert, INT_MAX and the std::
# functions of device code need nothing: what nvcc includes first declares them (int32_t too,
# through sys/types.h; not uint32_t).
_HEADER_DECLARES = [(re.compile(h), re.compile(n)) for h, n in (
    (r"curand\w*\.h$", r"curand"),
    (r"cufft\w*\.h$", r"cufft"),
    (r"cuComplex\.h$", r"cu(Float|Double)?Complex$|cuC[A-Z]\w*$|make_cu(Float|Double)?Complex$"),
    (r"math_constants\.h$", r"CUDART_(?!VERSION$)"),
    (r"(cuda|cudaEGL|cudaGL|cudaVDPAU|cudaD3D\w*)\.h$", r"CU[a-z]\w*$"),
    (r"(float\.h|cfloat)$", r"(FLT|DBL|LDBL)_[A-Z]+(_[A-Z]+)?$"),
    (r"(stdint\.h|cstdint|inttypes\.h|cinttypes)$", r"uint(8|16|32|64)_t$|u?int(ptr|max)_t$"),
)]


def instantiation_stub(exprs: Iterable[str]) -> str:
    """Host-side references that make nvcc instantiate (and so compile) template kernels."""
    lines = [f"static void *const __cudalint_instantiate_{i} = (void *)&{e};" for i, e in enumerate(exprs)]
    return ("\n#line 1 \"<cudalint: template instantiations>\"\n" + "\n".join(lines) + "\n") if lines else ""


def _balanced_angle(text: str, i: int) -> Optional[int]:
    """Index just past the ``>`` closing the ``<`` at ``text[i]``, or None."""
    depth = 0
    for j in range(i, min(len(text), i + 400)):
        c = text[j]
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
            if depth == 0:
                return j + 1
        elif c in ";{}":
            return None
    return None


def device_code(path: str, include_dirs: Iterable[str] = (), text: Optional[str] = None) -> DeviceCode:
    """Device-only code of ``path`` (all its kernels). Raises ``ValueError`` when the file has
    no kernel, ``OSError`` when it cannot be read."""
    from .device_source import (_expand_includes, _flatten, _strip_comments_and_strings,
                                            split_top_level)

    if text is None:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    apath = os.path.abspath(path)
    dropped: list[str] = []
    chunks = _expand_includes(split_top_level(text, apath), os.path.dirname(apath), list(include_dirs),
                              {apath}, dropped)
    flat = _flatten(chunks)
    kernels = [(c, ns) for c, ns in flat if c.kernel and c.kind == "function"]
    if not kernels:
        raise ValueError("no __global__ function in the file")
    keep: set[int] = {id(c) for c, _ in kernels}
    keep |= {id(c) for c, _ in flat if c.kernel and c.kind == "prototype"}
    # Device operator overloads are used without their name (`a += b` on float4): all kept.
    keep |= {id(c) for c, _ in flat if c.device and c.kind == "function"
             and any(n.startswith("operator") for n in c.names)}
    definers: dict[str, list] = {}
    macros: set[str] = set()
    for c, _ in flat:
        if c.kind == "directive":
            macros |= c.names
        head = _strip_comments_and_strings(c.text).strip()
        if re.match(r"using\s+namespace\b", head):
            keep.add(id(c))  # `using namespace cooperative_groups;`: names in scope for what follows
            continue
        alias = re.match(r"namespace\s+([A-Za-z_]\w*)\s*=", head)
        if alias:  # `namespace cg = cooperative_groups;`
            definers.setdefault(alias.group(1), []).append(c)
            continue
        if c.kernel or c.kind == "other" or (c.kind in ("function", "prototype", "variable") and not c.device):
            continue
        for nm in c.names:
            definers.setdefault(nm, []).append(c)

    # Template kernels and the instantiations that host code asks for.
    templ: dict[str, tuple] = {}
    for c, ns in kernels:
        if re.match(r"\s*template\b", _strip_comments_and_strings(c.text)):
            for nm in c.names:
                templ[nm] = ns
    insts: list[str] = []
    seeds: set[str] = set()
    if templ:
        pat = re.compile(r"\b(" + "|".join(map(re.escape, sorted(templ))) + r")\s*<")
        known = set(definers) | macros | _ARG_WORDS
        for c, _ in flat:
            if id(c) in keep and c.kind == "function":
                continue  # the kernels' own text (definitions, recursion) instantiates nothing new
            clean = _strip_comments_and_strings(c.text)
            for m in pat.finditer(clean):
                end = _balanced_angle(clean, m.end() - 1)
                if end is None:
                    continue
                args = clean[m.end():end - 1]
                words = set(_IDENT.findall(args))
                if not args.strip() or words - known:
                    continue  # a host-local name (a template parameter of the caller, a local)
                ns = templ[m.group(1)]
                qual = "::".join(mm.group(1) for o in ns if (mm := re.match(r"namespace\s*(\w+)", o)))
                expr = (qual + "::" if qual else "") + m.group(1) + "<" + " ".join(args.split()) + ">"
                if expr not in insts:
                    insts.append(expr)
                    seeds |= words
    work = [c for c, _ in flat if id(c) in keep]
    for nm in seeds:
        for d in definers.get(nm, ()):
            if id(d) not in keep:
                keep.add(id(d))
                work.append(d)
    done: set[str] = set()
    while work:
        c = work.pop()
        for r in c.refs:
            if r in done:
                continue
            done.add(r)
            for d in definers.get(r, ()):
                if id(d) not in keep:
                    keep.add(id(d))
                    work.append(d)
    keep -= _dead_using_directives(flat, keep)
    parts: list[str] = []
    cur: tuple = ()
    emitted = [(c, ns) for c, ns in flat if c.kind == "directive" or id(c) in keep]
    for c, ns in flat:
        if c.kind != "directive" and id(c) not in keep:
            # A dropped piece can hold conditionals (`#ifdef __CUDACC__ __host__ __device__
            # #endif` before a function, a header's closing `#endif`): keep them balanced.
            parts.extend(_conditionals(c.text))
            continue
        if ns != cur:
            parts.extend("}" for _ in cur)
            parts.extend(ns)
            cur = ns
        if c.file and c.kind != "directive":
            parts.append('#line {} "{}"'.format(c.line, c.file.replace("\\", "\\\\").replace('"', '\\"')))
        parts.append(c.text)
    parts.extend("}" for _ in cur)
    system = _system_includes(text, dropped)
    notes = []
    missing = sorted(set(dropped) - set(system))
    if missing:
        notes.append("headers not found for the device-only compile: " + ", ".join(missing))
    dcode = DeviceCode(code="\n".join(parts) + "\n", kernels=sorted({n for c, _ in kernels for n in c.names}),
                       instantiations=insts, system_includes=system, notes=notes, template_kernels=sorted(templ))
    _batch_facts(dcode, emitted)
    return dcode


_USING_NS = re.compile(r"using\s+namespace\s+(::)?\s*([A-Za-z_][\w\s:]*?)\s*;")
# Namespaces a system header also opens: a directive naming one may serve names from there.
_SYSTEM_NAMESPACES = {"std", "cooperative_groups", "nvcuda", "cub", "thrust", "cuda", "__gnu_cxx"}


def _ns_path(ns: tuple) -> tuple:
    return tuple(mm.group(1) for o in ns if (mm := re.match(r"\s*(?:inline\s+)?namespace\s+(\w+)", o)))


def _dead_using_directives(flat, keep: set) -> set:
    """``using namespace X;`` pieces where X is a namespace of the file's (or its quoted
    headers') own code of which no kept piece is part: the directive names what the device
    code no longer declares, and nvcc rejects it (interval.cu's vendored boost:
    ``using namespace boost::numeric;`` with none of boost's interval code kept)."""
    from .device_source import _strip_comments_and_strings

    opened: set = set()
    used: set = set()
    directives = []
    for c, ns in flat:
        path = _ns_path(ns)
        m = _USING_NS.match(_strip_comments_and_strings(c.text).strip()) if c.kind != "directive" else None
        if m:
            directives.append((c, path, m))
        for i in range(1, len(path) + 1):
            opened.add(path[:i])
            if id(c) in keep and not m:
                used.add(path[:i])
    dead = set()
    for c, path, m in directives:
        want = tuple(x.strip() for x in m.group(2).split("::") if x.strip())
        if not want or want[0] in _SYSTEM_NAMESPACES:
            continue
        # lookup from the directive's own namespace outwards (from the global one when `::X`)
        cands = [want] if m.group(1) else [path[:k] + want for k in range(len(path), -1, -1)]
        known = [q for q in cands if q in opened]
        if known and not any(q in used for q in known):
            dead.add(id(c))
    return dead


_UNDEF = re.compile(r"#\s*undef\s+([A-Za-z_]\w*)")
_KEPT_INCLUDE = re.compile(r"#\s*include\s*[<\"]([^>\"]+)[>\"]")
_EXTERN_C = re.compile(r'\bextern\s*"C"')
_EXTERN_SHARED = re.compile(r"\bextern\s+(?:[\w()]+\s+)*?__shared__\b[^;]*?\b([A-Za-z_]\w*)\s*\[\s*\]")
_UNQUALIFIED = re.compile(r"(?<![\w.:>])([A-Za-z_]\w*)")
_DIRECTIVE_WORDS = {"if", "ifdef", "ifndef", "elif", "else", "endif", "defined", "undef", "pragma",
                    "include", "line", "error", "warning"}
_DEVICE_STORAGE = re.compile(r"\b__managed__\b|\bstatic\s+__device__\b|\b__device__\s+static\b")
_BUILTIN_WORDS = _ARG_WORDS | {"operator", "inline", "static", "__device__", "__host__", "__forceinline__",
                               "__inline__", "return", "friend", "constexpr", "noexcept"}


def _batch_facts(dcode: DeviceCode, emitted: list) -> None:
    """The names, uses, macros and headers of the emitted pieces (what batching must know)."""
    from .device_source import _strip_comments_and_strings

    seen_definition = False
    pending: dict = {"defined": set(), "tested": set(), "used": set()}  # since the last kept include
    for c, ns in emitted:
        clean = " ".join(_strip_comments_and_strings(c.text).split())
        if c.file:
            dcode.files.add(c.file)
        if c.kind == "directive":
            _directive_facts(dcode, clean, pending)
            continue
        # names looked up from here (not `cg::sync`, `x.sync`): those an earlier include could add to
        pending["used"] |= c.refs & set(_UNQUALIFIED.findall(_strip_comments_and_strings(c.text)))
        for o in ns:
            m = re.match(r"namespace\s+([A-Za-z_]\w*)", o)
            if m:
                dcode.names.add(m.group(1))
            if o.startswith("extern"):
                dcode.extern_c = True
        if _EXTERN_C.search(c.text):
            dcode.extern_c = True
        dcode.names |= c.names
        dcode.refs |= c.refs
        if re.match(r"using\s+namespace\b", clean):
            dcode.using_directives.add(clean)
            dcode.late_using |= seen_definition or bool(ns)
            continue
        using_decl = re.match(r"using\s+[\w:]*::(\w+)\s*;$", clean)
        if using_decl:  # `using std::min;`: declares min here
            dcode.names.add(using_decl.group(1))
            dcode.redeclarations[using_decl.group(1)] = clean
            continue
        alias = re.match(r"namespace\s+(\w+)\s*=", clean)
        if not ns and (alias or (c.kind == "type" and "{" not in clean and len(c.names) == 1
                                 and re.match(r"(typedef|using)\b", clean))):
            dcode.redeclarations[alias.group(1) if alias else next(iter(c.names))] = clean
            if alias:
                dcode.names.add(alias.group(1))
            continue
        seen_definition = True
        if c.kind == "variable" and c.device and re.search(r"\b(__device__|__managed__)\b", clean):
            dcode.global_data = True
        for name in _EXTERN_SHARED.findall(clean):
            dcode.dynamic_shared = True
            if len(re.findall(r"\b" + re.escape(name) + r"\b", clean)) < 2:
                dcode.unused_dynamic_shared = True
        if c.kind == "function" and (_DEVICE_STORAGE.search(clean) or _global_literals(c.text)):
            # a function-scope static __device__ variable; printf's format strings and assert's
            # messages are global data too
            dcode.global_data = True
    text = _strip_comments_and_strings(dcode.code)
    dcode.static_shared = len(re.findall(r"\b__shared__\b", text)) > len(_EXTERN_SHARED.findall(text))
    for c, _ in emitted:
        if c.kind == "function" and any(n.startswith("operator") for n in c.names):
            head = _strip_comments_and_strings(c.text).split("{", 1)[0]
            params = head[head.rfind("(", 0, head.rfind(")")) + 1:head.rfind(")")] if "(" in head else ""
            types = set()
            for p in params.split(","):
                ids = [w for w in _IDENT.findall(p.split("=")[0]) if w not in _BUILTIN_WORDS]
                types |= set(ids[:-1] if len(ids) > 1 else ids)  # the last of several: its name
            # safe only on its own types: another file's expression never has one of those
            if not types or not types <= dcode.names - set(dcode.redeclarations):
                dcode.foreign_operators = True


def _global_literals(text: str) -> bool:
    """Whether a function's text has string literals outside ``asm(...)`` statements, or
    asserts: data the compiler places in global memory."""
    from .device_source import _literal_end

    if re.search(r"\b(assert|__assert\w*)\s*\(", text):
        return True
    text = _EXTERN_C.sub("extern", text)  # a linkage, not data
    i, n = 0, len(text)
    asm_depth = None  # the paren depth an asm statement's operands open at
    depth = 0
    while i < n:
        ch = text[i]
        if ch == "/" and text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
            continue
        if ch == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if ch in "\"'":
            if ch == '"' and asm_depth is None:
                return True
            i = _literal_end(text, i) + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if asm_depth is not None and depth < asm_depth:
                asm_depth = None
        elif (ch == "a" or ch == "_") and asm_depth is None:
            m = re.match(r"(asm|__asm__|__asm)\b\s*(volatile\b|__volatile__\b)?\s*(goto\b)?\s*\(", text[i:i + 40])
            if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
                i += m.end()
                depth += 1
                asm_depth = depth
                continue
        i += 1
    return False


def _directive_facts(dcode: DeviceCode, text: str, pending: dict) -> None:
    m = re.match(r"#\s*define\s+([A-Za-z_]\w*)", text)
    if m:
        dcode.macros.add(m.group(1))
        body = set(_IDENT.findall(text[m.end():]))
        dcode.refs |= body
        pending["defined"].add(m.group(1))
        pending["used"] |= body
        return
    if (m := _UNDEF.match(text)):
        dcode.macros.add(m.group(1))
        pending["tested"].add(m.group(1))
        return
    if (m := _KEPT_INCLUDE.match(text)):
        dcode.kept_includes.append(m.group(1).strip())
        dcode.defined_before_include |= pending["defined"]
        dcode.tested_before_include |= pending["tested"]
        dcode.used_before_include |= pending["used"]
        return
    if re.match(r"#\s*pragma\b", text):
        dcode.pragmas.append(text)
    # the names a conditional tests (#if X, #ifdef X) are uses too
    words = set(_IDENT.findall(text[1:])) - _DIRECTIVE_WORDS
    dcode.refs |= words
    pending["tested"] |= words


def _conditionals(text: str) -> list[str]:
    """The preprocessor conditional lines of ``text`` (with their continuation lines)."""
    if "#" not in text:
        return []
    out = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b", lines[i])
        if m:
            j = i
            while lines[j].endswith("\\") and j + 1 < len(lines):
                j += 1
            out.append("\n".join(lines[i:j + 1]))
            i = j + 1
        else:
            i += 1
    return out


_SYS_INCLUDE = re.compile(r"^\s*#\s*include\s*<([^>]+)>", re.M)


def _system_includes(text: str, dropped: list[str]) -> list[str]:
    """``<...>`` headers that were left out of the device code (not found in the include
    dirs): nvcc finds them in its own search path."""
    names = set(dropped)
    return [n for n in dict.fromkeys(m.group(1).strip() for m in _SYS_INCLUDE.finditer(text)) if n in names]
