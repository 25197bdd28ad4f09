"""Device code for NVRTC: the part of a ``.cu`` file one kernel needs, and nothing of the host.

``cudalint validate`` compiles a kernel with CuPy's ``RawModule`` (NVRTC). NVRTC compiles
device code only: no ``main()``, no ``<cstdio>``, ``<vector>`` or ``cuda_runtime.h``, no host
function bodies. So rather than the whole file this module hands NVRTC

- every preprocessor definition and conditional of the file (``#define``, ``#if``...),
- the kernel itself (every ``__global__`` definition of that name: a template and its
  specialisations),
- and, transitively, what the kernel's text refers to: ``__device__`` functions, file-scope
  ``__device__`` / ``__constant__`` / ``__shared__`` variables, ``const``/``constexpr``
  constants, structs, unions, enums, typedefs and ``using`` aliases,

in their original order, each preceded by a ``#line`` directive so that NVRTC's messages point
into the user's file. Local headers (``#include "x.cuh"``) are read the same way (their host
code stays behind too); system headers are dropped except the few NVRTC can compile
(``cuda_fp16.h``, ``cuda_bf16.h``, ``cooperative_groups.h``, ``mma.h``, ``cuda/...``); the
fixed-width integer types of ``<cstdint>`` come from a small prelude. Host code is never
compiled and never runs: that is the safety guarantee of ``validate``.

The splitter is lexical (comments, strings, braces and directives), so it needs neither clang
nor a CUDA toolkit, and it is pure: ``extract_device_source(text, kernel)`` is unit-tested.

``apply_edits`` applies cudalint's fix edits (1-based lines and columns, end exclusive) to a
source text, for ``--compare-fix``.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Iterable, Optional

__all__ = ["Chunk", "DeviceSource", "ExtractError", "split_top_level", "extract_device_source",
           "apply_edits", "PRELUDE", "NVRTC_SYSTEM_HEADERS"]

_IDENT = re.compile(r"[A-Za-z_]\w*")

# System headers NVRTC can compile (CuPy passes the CUDA include directory); others are host-only.
NVRTC_SYSTEM_HEADERS = re.compile(
    r"^(cuda_fp16\.h|cuda_bf16\.h|cuda_fp8\.h|cooperative_groups\.h|cooperative_groups/.*|mma\.h|"
    r"cuda/.*|cub/.*|cuda_pipeline.*\.h|cuda_awbarrier.*\.h|sm_\d+_intrinsics\.h)$")

_STDINT = ("int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
           "intptr_t", "uintptr_t", "ptrdiff_t", "size_t")

_SYS_TYPES = (("uint", "unsigned int"), ("ushort", "unsigned short"), ("ulong", "unsigned long"))

PRELUDE = """\
// ---- cudalint validate: NVRTC prelude (the kernel's host code is not compiled) ----
#ifndef CUDALINT_VALIDATE_PRELUDE
#define CUDALINT_VALIDATE_PRELUDE 1
#ifndef CUDALINT_NO_STDINT
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef long long intptr_t;
typedef unsigned long long uintptr_t;
#endif
#endif
"""

_ATTR_CALLS = {"__launch_bounds__", "__align__", "__attribute__", "__declspec", "alignas", "decltype",
               "__cluster_dims__", "__maxnreg__", "__nv_pure__", "noexcept", "__grid_constant__",
               "static_assert", "sizeof", "alignof"}
_DEVICE_QUALS = ("__device__", "__global__")
_VAR_DEVICE = ("__device__", "__constant__", "__shared__", "__managed__")
_KEYWORDS = {
    "if", "else", "for", "while", "do", "return", "switch", "case", "default", "break", "continue",
    "sizeof", "const", "volatile", "static", "extern", "inline", "unsigned", "signed", "int", "char",
    "short", "long", "float", "double", "void", "bool", "true", "false", "struct", "class", "union",
    "enum", "typedef", "template", "typename", "using", "namespace", "auto", "constexpr", "register",
    "restrict", "__restrict__", "__device__", "__global__", "__host__", "__shared__", "__constant__",
    "__forceinline__", "__noinline__", "__managed__", "threadIdx", "blockIdx", "blockDim", "gridDim",
    "warpSize", "operator", "new", "delete", "this", "nullptr", "goto", "public", "private",
    "protected", "friend", "virtual", "mutable", "explicit", "noexcept", "static_cast",
    "reinterpret_cast", "const_cast", "dynamic_cast", "decltype",
}


class ExtractError(Exception):
    """The kernel cannot be found in the file (or its source cannot be split)."""


@dataclass
class Chunk:
    """One top-level piece of a file: a directive, a declaration or a definition."""

    text: str
    line: int  # 1-based line of its first character
    file: str = ""
    kind: str = "decl"  # directive | function | prototype | variable | type | block | other
    names: set = field(default_factory=set)  # what it defines (functions, variables, types, macros)
    device: bool = False  # __device__/__global__ function, or a device/constant/shared variable
    kernel: bool = False  # a __global__ function
    keep_always: bool = False  # directives are emitted unconditionally
    children: list = field(default_factory=list)  # namespace / extern "C" blocks
    opener: str = ""  # "namespace x {" of a block
    refs: set = field(default_factory=set)


@dataclass
class DeviceSource:
    """What NVRTC compiles for one kernel."""

    code: str
    kernel: str  # the plain kernel name
    name_expression: str  # for RawModule(name_expressions=[...]) / get_function()
    kept: list = field(default_factory=list)  # names of what was kept besides the kernel
    dropped_includes: list = field(default_factory=list)
    notes: list = field(default_factory=list)


# --------------------------------------------------------------------------- lexing


def _literal_end(text: str, i: int) -> int:
    """Index of the quote closing the string or character literal opened at ``text[i]`` (or of
    the end of its line, or of the text, when it is not closed there)."""
    c, j, n = text[i], i + 1, len(text)
    while j < n and text[j] != c:
        if text[j] == "\\":
            j += 1
        elif text[j] == "\n":
            break
        j += 1
    return j


# A comment or a literal, leftmost first, as a left-to-right scan meets them: a line comment
# (up to its newline), a block comment (to its end or the text's), a string or character
# literal (to its closing quote; an unclosed one to its line's newline, which it takes, or to
# the end). A backslash escapes the next character, a newline included.
def _literal_pattern(q: str) -> str:
    return q + r"(?:\\.|\\\Z|[^" + q + r"\\\n])*(?:" + q + r"|\n|\Z)"


_LITERAL = {q: re.compile(_literal_pattern(q), re.S) for q in "\"'"}
_COMMENT_OR_LITERAL = re.compile(r"//[^\n]*|/\*.*?(?:\*/|\Z)|" + _literal_pattern('"') + "|"
                                 + _literal_pattern("'"), re.S)


def _blank(m: "re.Match") -> str:
    s = m.group(0)
    if s[0] != "/":
        return s[0] + s[0]  # a literal: its quotes, contents blanked
    if s[1] == "/":
        return ""
    return "\n" * s.count("\n") or " "  # a block comment keeps its line breaks


def _strip_comments_and_strings(text: str) -> str:
    """``text`` with comments removed and string/char literal contents blanked (length kept
    only roughly; used for identifier and brace scanning, never emitted). One regular
    expression (the scan it replaces, a Python loop per character, was most of the device-code
    split's time)."""
    if "/" not in text and '"' not in text and "'" not in text:
        return text
    return _COMMENT_OR_LITERAL.sub(_blank, text)


# What split_top_level's scan stops at: a newline, blanks, a comment, a quote, a brace, a
# semicolon, '#', a run of any other characters, or a lone '/'.
_SCAN = re.compile(r"\n|[ \t\r\f\v]+|//[^\n]*|/\*.*?(?:\*/|\Z)|[\"'{};#]|[^ \t\r\f\v\n/\"'{};#]+|/", re.S)


def split_top_level(text: str, file: str = "", first_line: int = 1) -> list[Chunk]:
    """Split source text into top-level chunks (directives, declarations, definitions). The
    scan goes token by token (``_SCAN``): a comment or a literal is one step, and so is a run of
    ordinary characters."""
    chunks: list[Chunk] = []
    i, n = 0, len(text)
    line = first_line
    start = None  # start offset of the current chunk
    start_line = line
    depth = 0
    at_line_start = True

    def flush(end: int):
        nonlocal start
        if start is not None:
            body = text[start:end]
            if body.strip():
                chunks.append(_classify(body.rstrip(), start_line, file))
            start = None

    scan = _SCAN.match
    while i < n:
        m = scan(text, i)
        c = text[i]
        if c == "\n":
            line += 1
            at_line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i = m.end()
            continue
        if c == "/" and m.end() > i + 1:  # a comment
            end = m.end()
            if text[i + 1] == "*":
                line += text.count("\n", i, end)
            i = end
            continue
        if c == "#" and at_line_start and depth == 0 and start is None:
            # a directive: to the end of the line, with backslash continuations
            j = i
            while True:
                k = text.find("\n", j)
                if k < 0:
                    k = n
                    break
                if text[k - 1] == "\\" or (text[k - 1] == "\r" and text[k - 2] == "\\"):
                    j = k + 1
                    continue
                break
            body = text[i:k]
            chunks.append(_classify(body, line, file, directive=True))
            line += body.count("\n")
            i = k
            continue
        at_line_start = False
        if start is None:
            start = i
            start_line = line
        if c in "\"'":
            j = _LITERAL[c].match(text, i).end()
            line += text.count("\n", i, j)
            i = j
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth <= 0:
                depth = 0
                head = _strip_comments_and_strings(text[start:i])
                head = head[:head.find("{")] if "{" in head else head
                if _ends_at_brace(head):
                    flush(i + 1)
        elif c == ";" and depth == 0:
            flush(i + 1)
        i = m.end()
    flush(n)
    return chunks


def _strip_template_prefix(head: str) -> str:
    h = head.lstrip()
    while h.startswith("template"):
        j = h.find("<")
        if j < 0:
            break
        depth, k = 0, j
        while k < len(h):
            if h[k] == "<":
                depth += 1
            elif h[k] == ">":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        h = h[k + 1:].lstrip()
    return h


def _ends_at_brace(head: str) -> bool:
    """Whether a definition whose body starts after ``head`` ends at its closing brace (a
    function, namespace or extern block) rather than at the next ``;`` (a type or an
    initialiser)."""
    h = _strip_template_prefix(" ".join(head.split()))
    h = _OPERATOR.sub("operator(", h)  # the '=' of `operator+=` is no initialiser
    if re.match(r"^(inline\s+)?namespace\b", h) or re.match(r'^extern\s*"C', h):
        return True
    if re.match(r"^(typedef\s+)?(struct|class|union|enum)\b", h):
        return False
    if _top_level_has(h, "="):
        return False
    return True  # a function, or one a macro declares (GT_HOST { ... }): ends at '}'


def _top_level_has(s: str, ch: str) -> bool:
    depth = 0
    for c in s:
        if c in "([<":
            depth += 1
        elif c in ")]>":
            depth = max(0, depth - 1)
        elif c == ch and depth == 0:
            return True
    return False


_OPERATOR = re.compile(r"\boperator\s*(\(\s*\)|\[\s*\]|[^\w\s(]+|\s[A-Za-z_][\w\s:*&]*?)\s*\(")


def _function_name(head: str) -> Optional[str]:
    """The declared name of a function head (``__global__ void __launch_bounds__(256) k(...)``)."""
    h = _strip_template_prefix(head)
    op = _OPERATOR.search(h)
    if op:  # `float4 operator+=(...)`: named by its symbol (uses are `a += b`, never the name)
        return "operator" + "".join(op.group(1).split())
    for m in re.finditer(r"([A-Za-z_][\w:]*)\s*(<[^()]*>)?\s*\(", h):
        name = m.group(1).split("::")[-1]
        if name in _ATTR_CALLS or name in _KEYWORDS:
            continue
        return name
    return None


def _classify(body: str, line: int, file: str, directive: bool = False) -> Chunk:
    ch = Chunk(text=body, line=line, file=file)
    if directive:
        ch.kind = "directive"
        ch.keep_always = True
        m = re.match(r"#\s*define\s+([A-Za-z_]\w*)", body)
        if m:
            ch.names = {m.group(1)}
            rest = _strip_comments_and_strings(body[m.end():])
            ch.refs = set(_IDENT.findall(rest)) - _KEYWORDS
        return ch
    clean = _strip_comments_and_strings(body)
    brace = clean.find("{")
    head = clean if brace < 0 else clean[:brace]
    h1 = " ".join(head.split())
    ht = _strip_template_prefix(h1)
    refs = set(_IDENT.findall(clean)) - _KEYWORDS
    ch.refs = refs
    m = re.match(r"^(inline\s+)?namespace\s*([A-Za-z_]\w*)?\s*$", ht)
    if brace >= 0 and m:
        ch.kind = "block"
        ch.opener = f"namespace {m.group(2) or ''} {{".replace("  ", " ")
        inner_start = body.find("{") + 1
        inner_end = body.rfind("}")
        inner = body[inner_start:inner_end]
        ch.children = split_top_level(inner, file, line + body[:inner_start].count("\n"))
        ch.names = {m.group(2)} if m.group(2) else set()
        return ch
    if brace >= 0 and re.match(r'^extern\s*"C(\+\+)?"\s*$', ht):
        ch.kind = "block"
        ch.opener = ht + " {"
        inner_start = body.find("{") + 1
        inner_end = body.rfind("}")
        ch.children = split_top_level(body[inner_start:inner_end], file, line + body[:inner_start].count("\n"))
        return ch
    words = set(re.findall(r"[A-Za-z_]\w*", h1))
    tm = re.match(r"^(typedef\s+)?(struct|class|union|enum)(\s+class|\s+struct)?\s*(?:__align__\s*\([^)]*\)\s*)?([A-Za-z_]\w*)?", ht)
    if tm:
        ch.kind = "type"
        if tm.group(4):
            ch.names.add(tm.group(4))
        if tm.group(2) == "enum" and brace >= 0:
            inner = clean[brace + 1:clean.rfind("}")]
            for item in inner.split(","):
                em = re.match(r"\s*([A-Za-z_]\w*)", item)
                if em:
                    ch.names.add(em.group(1))
        tail = clean[clean.rfind("}") + 1:] if brace >= 0 else ""
        ch.names |= set(_IDENT.findall(tail)) - _KEYWORDS - {"__align__"}
        if tm.group(1):  # typedef struct {...} NAME;
            ch.names |= set(_IDENT.findall(tail)) - _KEYWORDS
        return ch
    if ht.startswith("typedef"):
        ch.kind = "type"
        fp = re.search(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)", ht)
        if fp:
            ch.names.add(fp.group(1))
        else:
            ids = _IDENT.findall(re.sub(r"\[[^\]]*\]", "", ht.rstrip(";")))
            if ids:
                ch.names.add(ids[-1])
        return ch
    um = re.match(r"^using\s+([A-Za-z_]\w*)\s*=", ht)
    if um:
        ch.kind = "type"
        ch.names.add(um.group(1))
        return ch
    if ht.startswith(("using ", "static_assert")):
        ch.kind = "other"
        return ch
    is_func_def = brace >= 0 and _ends_at_brace(head)
    fname = _function_name(head) if (is_func_def or "(" in ht) else None
    if is_func_def:
        ch.kind = "function"
        if fname:
            ch.names.add(fname)
        ch.kernel = "__global__" in words
        ch.device = ch.kernel or "__device__" in words or ("constexpr" in words and "__host__" not in words)
        return ch
    # a declaration ending with ';'
    if fname and not _top_level_has(ht.split("=")[0], "[") and not _top_level_has(ht, "=") and \
            re.search(r"\)\s*(const\s*)?(noexcept\s*)?;?\s*$", ht) and not (words & set(_VAR_DEVICE[1:])):
        # a prototype: T f(args); (or a host object built with a constructor: dim3 g(4);)
        ch.kind = "prototype"
        ch.names.add(fname)
        ch.kernel = "__global__" in words
        ch.device = ch.kernel or "__device__" in words
        return ch
    ch.kind = "variable"
    decl = re.split(r"=", ht, maxsplit=1)[0]
    names = set()
    for part in _split_top(ht.rstrip(";"), ","):
        lhs = part.split("=")[0]
        lhs = re.sub(r"\[[^\]]*\]", "", lhs)
        lhs = re.sub(r"\([^)]*\)", "", lhs)
        ids = [x for x in _IDENT.findall(lhs) if x not in _KEYWORDS and not x.startswith("__")]
        if ids:
            names.add(ids[-1])
    ch.names = names
    ch.device = bool(words & set(_VAR_DEVICE)) or bool(re.search(r"\b(const|constexpr)\b", decl))
    return ch


def _split_top(s: str, sep: str) -> list[str]:
    out, depth, cur = [], 0, []
    for c in s:
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth = max(0, depth - 1)
        if c == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    out.append("".join(cur))
    return out


# --------------------------------------------------------------------------- includes


_INCLUDE = re.compile(r'#\s*include\s*([<"])([^>"]+)[>"]')


def _expand_includes(chunks: list[Chunk], base_dir: str, include_dirs: Iterable[str], seen: set,
                     dropped: list, depth: int = 0) -> list[Chunk]:
    out: list[Chunk] = []
    for ch in chunks:
        if ch.kind == "block":
            ch.children = _expand_includes(ch.children, base_dir, include_dirs, seen, dropped, depth)
            out.append(ch)
            continue
        if ch.kind != "directive":
            out.append(ch)
            continue
        if re.match(r"#\s*pragma\s+once\b", ch.text):
            continue
        m = _INCLUDE.match(ch.text.strip())
        if not m:
            out.append(ch)
            continue
        kind, name = m.group(1), m.group(2).strip()
        if NVRTC_SYSTEM_HEADERS.match(name):
            out.append(ch)
            continue
        found = None
        if kind == '"' or True:
            for d in ([base_dir] if kind == '"' else []) + list(include_dirs):
                p = os.path.join(d, name)
                if os.path.isfile(p):
                    found = os.path.abspath(p)
                    break
        if found is None or depth > 16:
            dropped.append(name)
            continue
        if found in seen:
            continue
        seen.add(found)
        try:
            with open(found, encoding="utf-8", errors="replace") as f:
                sub = f.read()
        except OSError:
            dropped.append(name)
            continue
        sub_chunks = split_top_level(sub, found)
        out.extend(_expand_includes(sub_chunks, os.path.dirname(found), include_dirs, seen, dropped, depth + 1))
    return out


# --------------------------------------------------------------------------- extraction


def _flatten(chunks: list[Chunk], ns: tuple = ()) -> list[tuple[Chunk, tuple]]:
    out = []
    for ch in chunks:
        if ch.kind == "block":
            sub = ns + ((ch.opener,) if ch.opener else ())
            out.extend(_flatten(ch.children, sub))
        else:
            out.append((ch, ns))
    return out


def extract_device_source(text: str, kernel: str, path: str = "<source>", include_dirs: Iterable[str] = (),
                          name_expression: Optional[str] = None, defines: Iterable[str] = (),
                          line_directives: bool = True, prelude: bool = True) -> DeviceSource:
    """The device code NVRTC needs to compile ``kernel`` (plain name) from ``text``.

    ``name_expression`` is what CuPy looks the kernel up by (``k<float, 256>`` for a template
    instantiation; the plain name otherwise, qualified with its namespace when it has one).
    ``defines`` are ``-D`` values (``NAME`` or ``NAME=VALUE``) put in front of the code."""
    base_dir = os.path.dirname(os.path.abspath(path)) if path and not path.startswith("<") else os.getcwd()
    dropped: list[str] = []
    seen = {os.path.abspath(path)} if path and not path.startswith("<") else set()
    chunks = _expand_includes(split_top_level(text, path), base_dir, include_dirs, seen, dropped)
    flat = _flatten(chunks)
    targets = [(c, ns) for c, ns in flat if c.kernel and kernel in c.names and c.kind == "function"]
    if not targets:
        others = sorted({n for c, _ in flat if c.kernel and c.kind == "function" for n in c.names})
        raise ExtractError(f"kernel `{kernel}` not found in {os.path.basename(path)}"
                           + (f" (kernels there: {', '.join(others)})" if others else ""))
    keep: set[int] = {id(c) for c, _ in targets}
    keep |= {id(c) for c, _ in flat if c.kernel and kernel in c.names and c.kind == "prototype"}
    # Who defines what: candidates are device functions, device/const variables, types; macros
    # are always emitted but contribute their references when used.
    definers: dict[str, list[Chunk]] = {}
    for c, _ in flat:
        if c.kernel:
            continue  # other kernels are never pulled in
        if c.kind in ("function", "prototype", "variable") and not c.device:
            continue  # host code
        if c.kind == "other":
            continue
        for nm in c.names:
            definers.setdefault(nm, []).append(c)
    work = [c for c, _ in flat if id(c) in keep]
    done_names: set[str] = set()
    while work:
        c = work.pop()
        for r in c.refs:
            if r in done_names:
                continue
            done_names.add(r)
            for d in definers.get(r, ()):
                if id(d) not in keep:
                    keep.add(id(d))
                    work.append(d)
    kept_names = sorted({nm for c, _ in flat if id(c) in keep and not c.kernel and c.kind != "directive"
                         for nm in c.names})
    # Emit in order, re-opening namespaces around kept chunks.
    parts: list[str] = []
    if prelude:
        uses_stdint = any(re.search(r"\b" + t + r"\b", c.text) for c, _ in flat if id(c) in keep or c.kind == "directive"
                          for t in _STDINT[:-2])
        parts.append(PRELUDE if uses_stdint else PRELUDE.replace("#ifndef CUDALINT_NO_STDINT",
                                                                "#if 0  /* no fixed-width types used */"))
        # glibc's <sys/types.h> names, which nvcc's host headers bring into every .cu file
        # (SGEMM_CUDA's kernels count with `uint`) and NVRTC does not know; unless the file
        # defines them itself.
        every = "\n".join(c.text for c, _ in flat)
        for name, ty in _SYS_TYPES:
            used = any(re.search(r"\b" + name + r"\b", c.text) for c, _ in flat if id(c) in keep)
            if used and not re.search(r"(typedef\b[^;]*\b|using\s+|#\s*define\s+)" + name + r"\b", every):
                parts.append(f"typedef {ty} {name};")
    for d in defines or ():
        nm, _, val = d.partition("=")
        parts.append(f"#define {nm} {val or 1}")
    cur_ns: tuple = ()
    for c, ns in flat:
        emit = c.kind == "directive" or id(c) in keep
        if not emit:
            continue
        if c.kind == "directive" and ns:
            # directives inside namespaces: emit in place (namespaces are re-opened as needed)
            pass
        if ns != cur_ns:
            parts.extend("}" for _ in cur_ns)
            parts.extend(ns)
            cur_ns = ns
        if line_directives and c.file and c.kind != "directive":
            parts.append(f'#line {c.line} "{_escape(c.file)}"')
        parts.append(c.text)
    parts.extend("}" for _ in cur_ns)
    qual = ""
    tns = targets[0][1]
    if tns:
        names = [re.match(r"namespace\s*(\w*)", o) for o in tns]
        qual = "::".join(m.group(1) for m in names if m and m.group(1))
        qual = qual + "::" if qual else ""
    expr = name_expression or kernel
    if qual and not expr.startswith(qual):
        expr = qual + expr
    notes = []
    if dropped:
        notes.append("headers not compiled (host-only or not found): " + ", ".join(sorted(set(dropped))))
    return DeviceSource(code="\n".join(parts) + "\n", kernel=kernel, name_expression=expr,
                        kept=kept_names, dropped_includes=sorted(set(dropped)), notes=notes)


def _escape(p: str) -> str:
    return p.replace("\\", "\\\\").replace('"', '\\"')


# --------------------------------------------------------------------------- fixes


def apply_edits(text: str, edits) -> str:
    """Apply fix edits (objects with ``start``/``end`` Locations, 1-based, end exclusive, and
    ``text``) to ``text``. Overlapping edits: the later-starting one is skipped."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln))

    def offset(loc) -> int:
        li = max(1, loc.line) - 1
        if li >= len(lines):
            return len(text)
        return min(starts[li] + max(1, loc.column) - 1, starts[li + 1])

    spans = sorted(((offset(e.start), offset(e.end), e.text) for e in edits), key=lambda s: s[0])
    out, pos = [], 0
    for a, b, t in spans:
        if a < pos:
            continue  # overlaps an edit already applied
        out.append(text[pos:a])
        out.append(t)
        pos = max(b, a)
    out.append(text[pos:])
    return "".join(out)
