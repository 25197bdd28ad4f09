"""Cursor, token and source helpers shared by the libclang lowering (``lower_clang*``):
the CUDA names the lowering recognises, a cursor's kind and range, its tokens and text (bounded:
libclang reports runaway ranges inside macro expansions), for-header semicolons, and the keys
that identify declarations and template instantiations.
"""
from __future__ import annotations

import functools
import itertools
import os
import re
from typing import Optional

import clang.cindex as ci

from .. import ir
from . import clang_fast
from .clang_fast import children, preorder

CK = ci.CursorKind
TK = ci.TypeKind

BUILTIN_VARS = {"threadIdx", "blockIdx", "blockDim", "gridDim"}
BLOCK_BARRIERS = {"__syncthreads", "__syncthreads_count", "__syncthreads_and",
                  "__syncthreads_or", "__barrier_sync"}
WARP_BARRIERS = {"__syncwarp"}
VECTOR_RE = re.compile(r"^(u?char|u?short|u?int|u?long|u?longlong|float|double)([1-4])$")
# Type kinds whose size/evaluation libclang cannot answer without aborting.
NO_SIZE_KINDS = {"DEPENDENT", "OVERLOAD", "INVALID", "DEPENDENTSIZEDARRAY", "UNEXPOSED",
                  "AUTO", "TEMPLATETYPEPARM", "DEPENDENTSIZEDEXTVECTOR"}
TOP_KINDS = {CK.VAR_DECL, CK.FUNCTION_DECL, CK.FUNCTION_TEMPLATE, CK.CXX_METHOD}
PRELUDE_MARK = os.sep + "frontend" + os.sep + "include" + os.sep


def is_prelude(path: str) -> bool:
    return PRELUDE_MARK in path


def attrs(c: ci.Cursor) -> set[CK]:
    return {ch.kind for ch in children(c) if ch.kind.is_attribute()}


def function_kind(c: ci.Cursor) -> str:
    a = attrs(c)
    if CK.CUDAGLOBAL_ATTR in a:
        return "global"
    dev, host = CK.CUDADEVICE_ATTR in a, CK.CUDAHOST_ATTR in a
    if dev and host:
        return "host_device"
    if dev:
        return "device"
    return "host"


def loc_file(loc) -> str:
    return loc.file.name if loc.file is not None else ""


def srange(c: ci.Cursor) -> ir.SourceRange:
    s, t = clang_fast.extent(c)
    return ir.SourceRange(s[0], s[1], s[2], t[1], t[2])



# ---------------------------------------------------------------------- helpers

def macro_scalar_init(d: ci.Cursor, last: ci.Cursor) -> bool:
    """A variable declared inside a macro expansion (``cudaError_t e = (call);`` in a CHECK
    macro, ``dim3 block(256 / (n));`` in a launcher macro): its tokens are the macro
    invocation's, so the source cannot tell whether an initializer is written. For a scalar or
    pointer, an expression child is one. For a class (``dim3``), clang always gives a
    constructor call, written or not: the initializer is written when some expression under
    that call has a source location (an implicit default construction has only the
    constructor's default arguments, which have none)."""
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
    if not last.kind.is_expression() or k in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY,
                                              TK.VARIABLEARRAY, TK.DEPENDENTSIZEDARRAY):
        return False
    if k != TK.RECORD:
        return True
    return any(x.location.file is not None for x in itertools.islice(preorder(last), 1, 64))


def read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def targ_kind(c: ci.Cursor, i: int):
    """The template argument kind, or None for kinds the Python bindings do not know
    (libclang 18 reports e.g. kind 8, a pack, which the enum lacks)."""
    try:
        return c.get_template_argument_kind(i)
    except ValueError:
        return None


def callee_spelling(c: ci.Cursor) -> str:
    """Name of an unresolved callee (a call on dependent types inside a template)."""
    for x in preorder(c):
        if x.kind in (CK.OVERLOADED_DECL_REF, CK.DECL_REF_EXPR, CK.MEMBER_REF_EXPR) and x.spelling:
            return x.spelling
    return ""


def is_default_arg(c: ci.Cursor) -> bool:
    """A defaulted argument the source does not write (clang's CXXDefaultArgExpr)."""
    if c.kind != CK.UNEXPOSED_EXPR:
        return False
    st, en = clang_fast.extent(c)
    if not st[0]:
        return True
    return st[3] == en[3] and next(iter(children(c)), None) is None


def same_extent(a: ci.Cursor, b: ci.Cursor) -> bool:
    (sa, ea), (sb, eb) = clang_fast.extent(a), clang_fast.extent(b)
    return (sa[3], ea[3]) == (sb[3], eb[3]) and bool(sa[0]) and bool(sb[0]) and sa[0] == sb[0]


def simple_defines(text: str) -> dict:
    """`#define NAME VALUE` object-like macros of the file (for `#pragma unroll NAME`)."""
    return {m.group(1): m.group(2).strip() for m in
            re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n/]+)", text, re.M)}


def cursor_key(c: ci.Cursor) -> str:
    name, line, col, _ = clang_fast.location(c.location, c._tu)
    return f"{c.spelling}@{name}:{line}:{col}:{c._kind_id}"


def targs_key(c: ci.Cursor) -> str:
    n = c.get_num_template_arguments()
    if n <= 0:
        return ""
    parts = []
    for i in range(n):
        kind = targ_kind(c, i)
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


def cursor_tokens(c: ci.Cursor, limit: int = TOKEN_LIMIT):
    ext = c.extent
    a, b = ext.start, ext.end
    odd = a.file is None or b.file is None or a.file.name != b.file.name or b.offset < a.offset
    if (odd or b.offset - a.offset > LEX_BYTES) and a.file is not None:
        try:
            tu = c.translation_unit
            end = ci.SourceLocation.from_offset(tu, ext.start.file, ext.start.offset + LEX_BYTES)
            return itertools.islice(range_tokens(tu, ci.SourceRange.from_locations(ext.start, end)), limit)
        except Exception:  # noqa: BLE001 - a location libclang refuses: no tokens
            return iter(())
    return itertools.islice(range_tokens(c.translation_unit, ext), limit)


#: The first lex of a long range covers this many bytes; each further one eight times more.
CHUNK_BYTES = 1024
_MACRO_BIT = 1 << 31  # clang::SourceLocation::MacroIDBit of a raw encoding


def _location(ext: ci.SourceRange, raw: int) -> ci.SourceLocation:
    loc = ci.SourceLocation()
    loc.ptr_data[0], loc.ptr_data[1] = ext.ptr_data[0], ext.ptr_data[1]
    loc.int_data = raw
    return loc


def _range(ext: ci.SourceRange, begin: int, end: int) -> ci.SourceRange:
    r = ci.SourceRange()
    r.ptr_data[0], r.ptr_data[1] = ext.ptr_data[0], ext.ptr_data[1]
    r.begin_int_data, r.end_int_data = begin, end
    return r


def _entry_start(tu, ext: ci.SourceRange, raw: int) -> int:
    """Where the file entry of the file location ``raw`` starts in the source manager's offset
    space (a file location's raw encoding is its entry's start plus its offset in the file)."""
    return raw - clang_fast.location(_location(ext, raw), tu)[3]


def range_tokens(tu, ext: ci.SourceRange):
    """The tokens ``TokenGroup.get_tokens(tu, ext)`` yields, lexed only as far as they are read.

    clang_tokenize lexes the file from where the range's start is *spelled* to where its end
    is, all before the first token comes back. A loop or expression written by a macro starts
    in the macro's definition, so its range can span everything from the ``#define`` to the use
    (bm3d's CImg.h: 2 MB lexed for each of hundreds of loops whose header ends a few tokens in).
    Lexing is deterministic from the start, so a range ending earlier in the same file gives a
    prefix of the same tokens: lex CHUNK_BYTES, then 8x more, up to the range's own end."""
    b, e = ext.begin_int_data, ext.end_int_data
    lo = 0  # where lexing starts, when the end is a file location in the same file entry
    if e and not e & _MACRO_BIT and (b & _MACRO_BIT or e - b > CHUNK_BYTES):
        lo = b
        if b & _MACRO_BIT:  # lexing starts where b is spelled: at (or before) its first token
            first = next(ci.TokenGroup.get_tokens(tu, _range(ext, b, b)), None)
            lo = first.int_data[1] if first is not None else 0
        if lo and _entry_start(tu, ext, lo) != _entry_start(tu, ext, e):
            lo = 0  # across files: no tokens
    if not lo or e - lo <= CHUNK_BYTES:  # short, across files or ending in a macro: as is
        yield from ci.TokenGroup.get_tokens(tu, ext)
        return
    done, size = 0, CHUNK_BYTES
    while True:
        end = min(lo + size, e)
        toks = list(ci.TokenGroup.get_tokens(tu, _range(ext, b, end)))
        yield from toks[done:]
        if end == e:
            return
        done, size = len(toks), size * 8


def tokens_text(c: ci.Cursor) -> str:
    """The cursor's source text, whitespace collapsed: read from the file when its range is
    plain (one file, in order), else from libclang's tokens (macro expansions)."""
    a, b = clang_fast.extent(c)
    if a[0] and b[0] and a[0] == b[0] and a[3] <= b[3] and b[3] - a[3] <= LEX_BYTES:
        text = file_bytes(a[0])[a[3]:b[3]].decode("utf-8", "replace")
        if text:
            return " ".join(text.split())
    try:
        return " ".join(t.spelling for t in cursor_tokens(c))
    except Exception:
        return ""


def first_token(c: ci.Cursor) -> str:
    for t in cursor_tokens(c, 1):
        return t.spelling
    return ""


def _with_offsets(tokens):
    """(offset in its file, token) of each token, as ``t.extent.start.offset`` reads it. The
    tokens of one lex share a file entry, so the offset is the raw location less the entry's
    start: one location call for the lot instead of four ctypes calls per token."""
    base = None
    for t in tokens:
        raw = t.int_data[1]
        if base is None:
            base = raw - clang_fast.location(t.location, t._tu)[3]
        yield raw - base, t


def tokens_between(c: ci.Cursor, first_child: ci.Cursor) -> str:
    """The text right after ``first_child`` (a few tokens)."""
    end = clang_fast.extent(first_child)[1][3]
    out = []
    for off, t in _with_offsets(cursor_tokens(c)):
        if off >= end:
            out.append(t.spelling)
            if len(out) >= 4:
                break
    return " ".join(out)[:8]


def infix_op(c: ci.Cursor, kids) -> str:
    if len(kids) != 2:
        return "?"
    end = clang_fast.extent(kids[0])[1][3]
    for off, t in _with_offsets(cursor_tokens(c)):
        if off >= end:
            return t.spelling
    return "?"


def prefix_op(c: ci.Cursor) -> str:
    toks = [t.spelling for t in cursor_tokens(c)]
    if not toks:
        return "?"
    if toks[0] in ("++", "--"):
        return "pre" + toks[0]
    if toks[-1] in ("++", "--"):
        return "post" + toks[-1]
    return toks[0]


TEST_OPS = {"<", "<=", ">", ">=", "==", "!=", "&&", "||"}


def is_test(e: ir.Expr) -> bool:
    """Whether ``e`` reads as a loop condition (a comparison or logical test)."""
    while isinstance(e, ir.Cast):
        e = e.operand
    if isinstance(e, ir.BinOp):
        return e.op in TEST_OPS
    if isinstance(e, ir.UnaryOp):
        return e.op == "!"
    return e.type.spelling == "bool"


def file_bytes(path: str) -> bytes:
    """A source file's bytes (cached while its size and modification time stay the same: the
    editor server lives long and headers change under it)."""
    try:
        st = os.stat(path)
    except OSError:
        return b""
    return read_bytes(path, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=64)
def read_bytes(path: str, mtime_ns: int, size: int) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def header_semicolons(text: bytes, base: int) -> list[int]:
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


def for_header_semicolons(c: ci.Cursor, body: Optional[ci.Cursor] = None) -> list[int]:
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
                tu = c.translation_unit
                toks = itertools.islice(range_tokens(tu, ci.SourceRange.from_locations(a, b)),
                                        TOKEN_LIMIT)
            except Exception:
                toks = None
    for t in (toks if toks is not None else cursor_tokens(c)):
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


def find_ref(c: ci.Cursor) -> Optional[ci.Cursor]:
    for x in preorder(c):
        if x.kind in (CK.DECL_REF_EXPR, CK.OVERLOADED_DECL_REF):
            return x.referenced
    return None


def is_cg_block_sync(c: ci.Cursor) -> bool:
    text = tokens_text(c)
    return "sync" in text and ("block" in text or "cta" in text or "grid" not in text)


def syncs_the_grid(call: ci.Cursor, depth: int = 0) -> bool:
    """A ``sync()`` method of the program's own class (a multi-GPU peer group) whose body
    synchronizes the grid: ``grid.sync()`` / ``cg::sync(grid)`` on a ``grid_group``, directly or
    through another such method."""
    ref = call.referenced
    body = ref.get_definition() if ref is not None else None
    if body is None or depth > 3 or "cooperative_groups" in (body.semantic_parent.type.spelling or ""):
        return False
    for n in preorder(body):
        if n.kind != CK.CALL_EXPR or n.spelling != "sync":
            continue
        # `grid.sync()`: the object under the member reference; `cg::sync(grid)`: an argument
        if "grid_group" in " ".join(g.type.spelling for a in children(n) for g in (a, *children(a))):
            return True
        if n.referenced is not None and n.referenced != ref and syncs_the_grid(n, depth + 1):
            return True
    return False


def cg_sync_scope(call: ir.Call) -> str:
    """`tile.sync()` / `cg::sync(tile)` on a thread_block_tile or coalesced group synchronizes
    a warp (or part of one), not the block."""
    grp = call.args[0].type.spelling if call.args else ""
    if "tile" in grp or "coalesced" in grp or ("thread_group" in grp and "thread_block" not in grp):
        return "warp"  # a generic thread_group here is a tiled_partition(...) of the block
    return "block"


def has_managed(c: ci.Cursor) -> bool:
    return any(ch.kind.is_attribute() and "managed" in (ch.spelling or "") for ch in children(c))


def int_or_none(s: str) -> Optional[int]:
    s = s.strip().rstrip("uUlL")
    try:
        return int(s, 0)
    except ValueError:
        return None
