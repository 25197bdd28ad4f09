"""Source plumbing for the pycparser frontend: C tokenizer, system preprocessor, and the map
from positions in the preprocessed text back to the original files.

pycparser parses the output of ``gcc -E``: its coordinates carry the original *line* (through
the ``# N "file"`` line markers) but the *column* of the preprocessed line, where macros are
expanded and whitespace collapsed. :class:`PositionMap` re-tokenizes every original file and
aligns its tokens with the preprocessed ones line by line (``difflib`` on token texts), so
every preprocessed token maps to an original token. A macro invocation in the original
(``TILE``, ``IDX(r, c)``, ``__global__``) is one *pseudo-token* spanning the whole invocation,
and every token of its expansion maps to it -- the same "expansion location" clang reports.
Only original tokens that some preprocessed token maps to are kept (*active* tokens), so code
in ``#if 0`` blocks does not disturb bracket matching.
"""
from __future__ import annotations

import bisect
import difflib
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Optional

from .errors import FrontendError

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE_DIR = os.path.join(HERE, "include")
PRELUDE = os.path.join(INCLUDE_DIR, "c_prelude.h")
FAKE_LIBC = os.path.join(INCLUDE_DIR, "pyc")

# --------------------------------------------------------------------------- tokenizer

_PUNCTS = ["<<<", ">>>", "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
           "!=", "&&", "||", "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##", "::"]
_TOKEN_RE = re.compile(
    r"(?P<nl>\r?\n)"
    r"|(?P<ws>[ \t\f\v\r]+|\\\r?\n)"
    r"|(?P<lc>//(?:[^\n\\]|\\.|\\\n)*)"
    r"|(?P<bc>/\*.*?(?:\*/|\Z))"
    r"|(?P<str>(?:u8|[uUL])?\"(?:[^\"\\\n]|\\.)*\"?)"
    r"|(?P<chr>(?:u8|[uUL])?'(?:[^'\\\n]|\\.)*'?)"
    r"|(?P<num>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.])*)"
    r"|(?P<id>[A-Za-z_$][A-Za-z0-9_$]*)"
    r"|(?P<punct>" + "|".join(re.escape(p) for p in _PUNCTS) + r"|.)",
    re.S)


@dataclass
class Tok:
    text: str
    kind: str  # id num str chr punct macro
    line: int
    col: int  # 1-based column (characters for preprocessed text, bytes for original files)
    end_line: int
    end_col: int  # exclusive
    raw: list = field(default_factory=list)  # macro pseudo-token: the original token texts


@dataclass
class Directive:
    line: int
    text: str  # the directive without the leading '#', continuation lines joined


def _byte_col(line_text: str, char_col: int) -> int:
    if line_text.isascii():
        return char_col
    return len(line_text[:char_col - 1].encode("utf-8")) + 1


def tokenize(text: str, byte_columns: bool = False) -> tuple[list[Tok], list[Directive]]:
    """Tokens of ``text`` outside preprocessor directives, plus the directives."""
    toks: list[Tok] = []
    directives: list[Directive] = []
    lines = text.split("\n") if byte_columns else None
    line, line_start = 1, 0
    at_bol = True
    directive: Optional[list] = None  # [start line, parts]
    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup
        s = m.group()
        start = m.start()
        if kind == "nl":
            if directive is not None:
                directives.append(Directive(directive[0], "".join(directive[1]).strip()))
                directive = None
            line += 1
            line_start = m.end()
            at_bol = True
            continue
        if kind in ("ws", "lc", "bc"):
            if directive is not None:
                directive[1].append(" " if kind != "ws" or not s.startswith("\\") else " ")
            n = s.count("\n")
            if n:
                line += n
                line_start = start + s.rfind("\n") + 1
            continue
        if directive is not None:
            directive[1].append(s)
            continue
        if at_bol and s == "#" and kind == "punct":
            directive = [line, []]
            at_bol = False
            continue
        at_bol = False
        col = start - line_start + 1
        end_col = col + len(s)
        if lines is not None and line - 1 < len(lines):
            lt = lines[line - 1]
            col, end_col = _byte_col(lt, col), _byte_col(lt, end_col)
        toks.append(Tok(s, "punct" if kind == "punct" else kind, line, col, line, end_col))
    if directive is not None:
        directives.append(Directive(directive[0], "".join(directive[1]).strip()))
    return toks, directives


# --------------------------------------------------------------------------- macros

@dataclass
class Macro:
    name: str
    params: Optional[list[str]]  # None for object-like
    body: str


_DEFINE_RE = re.compile(r"define\s+([A-Za-z_$][\w$]*)(\(([^)]*)\))?\s*(.*)$", re.S)
_LINEMARK_RE = re.compile(r'^#\s*(?:line\s+)?(\d+)\s*(?:"((?:[^"\\]|\\.)*)")?')


# --------------------------------------------------------------------------- preprocessing

def find_preprocessor() -> list[str]:
    """The command that runs the system C preprocessor, e.g. ``['/usr/bin/gcc', '-E']``.

    ``$CUDALINT_CPP`` overrides the search (e.g. ``"clang -E"``)."""
    env = os.environ.get("CUDALINT_CPP")
    if env:
        return shlex.split(env)
    for name, extra in (("gcc", ["-E"]), ("cc", ["-E"]), ("clang", ["-E"]), ("cpp", [])):
        p = shutil.which(name)
        if p:
            return [p] + extra
    raise FrontendError("no C preprocessor found for the pycparser frontend: install gcc "
                        "(or cpp/clang), or set CUDALINT_CPP to a preprocessor command")


_CPP_DIAG_RE = re.compile(r"^(.*?):(\d+):(\d+): (fatal error|error): (.*)$")
_MISSING_RE = re.compile(r"^(.+?): No such file or directory$")


@dataclass
class Preprocessed:
    text: str  # with #define/#undef lines blanked (pycparser cannot read them)
    macros: dict  # name -> Macro (the last definition)
    stubbed: list[str]  # headers that were not found and were replaced by empty files


def preprocess(path: str, include_dirs=(), defines=(), max_stubs: int = 32) -> Preprocessed:
    cpp = find_preprocessor()
    stubdir = tempfile.mkdtemp(prefix="cudalint-stubs-")
    stubbed: list[str] = []
    try:
        while True:
            args = list(cpp) + ["-x", "c", "-std=c11", "-nostdinc", "-dD",
                                "-D__CUDACC__=1", "-D__cudalint__=1", "-D__CUDALINT_PYCPARSER__=1"]
            for d in include_dirs:
                args += ["-I", str(d)]
            args += ["-I", FAKE_LIBC, "-I", stubdir]
            for d in defines:
                args.append("-D" + str(d))
            args += ["-include", PRELUDE, path]
            try:
                proc = subprocess.run(args, capture_output=True, text=True, errors="replace")
            except OSError as e:
                raise FrontendError(f"cannot run the C preprocessor {cpp[0]}: {e}", path=path)
            if proc.returncode == 0:
                break
            diags = []
            missing = None
            for ln in proc.stderr.splitlines():
                m = _CPP_DIAG_RE.match(ln)
                if not m:
                    continue
                diags.append(m)
                mm = _MISSING_RE.match(m.group(5))
                if mm and missing is None:
                    missing = mm.group(1)
            if missing and len(stubbed) < max_stubs and missing not in stubbed and \
                    not os.path.isabs(missing):
                target = os.path.join(stubdir, missing)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "w") as f:
                    f.write("/* cudalint: stub for a header that was not found */\n")
                stubbed.append(missing)
                continue
            if diags:
                m = diags[0]
                raise FrontendError(f"preprocessor: {m.group(5)}", int(m.group(2)),
                                    int(m.group(3)), m.group(1))
            msg = proc.stderr.strip().splitlines()
            raise FrontendError("preprocessor failed: " + (msg[0] if msg else f"exit {proc.returncode}"),
                                path=path)
    finally:
        shutil.rmtree(stubdir, ignore_errors=True)
    text, macros = _strip_defines(proc.stdout)
    return Preprocessed(text, macros, stubbed)


def _strip_defines(text: str) -> tuple[str, dict]:
    """Blank the ``#define``/``#undef`` lines that ``-dD`` leaves in the output (keeping the
    line count) and collect the macro definitions."""
    macros: dict[str, Macro] = {}
    out = text.split("\n")
    for i, ln in enumerate(out):
        if not ln.startswith("#"):
            continue
        s = ln[1:].lstrip()
        if s.startswith("define"):
            m = _DEFINE_RE.match(s)
            if m:
                params = None
                if m.group(2) is not None:
                    params = [p.strip() for p in m.group(3).split(",") if p.strip()]
                macros[m.group(1)] = Macro(m.group(1), params, m.group(4).strip())
            out[i] = ""
        elif s.startswith("undef"):
            parts = s.split()
            if len(parts) > 1:
                macros.pop(parts[1], None)
            out[i] = ""
    return "\n".join(out), macros


# --------------------------------------------------------------------------- position map

class FileToks:
    """The active tokens of one original file, with bracket matching."""

    def __init__(self, path: str, toks: list[Tok]):
        self.path = path
        self.toks = toks
        self.match: dict[int, int] = {}
        stack: list[int] = []
        pairs = {")": "(", "]": "[", "}": "{"}
        for i, t in enumerate(toks):
            if t.kind != "punct":
                continue
            if t.text in ("(", "[", "{"):
                stack.append(i)
            elif t.text in pairs:
                # tolerate unbalanced code: pop to the nearest opener of the right kind
                j = len(stack) - 1
                while j >= 0 and toks[stack[j]].text != pairs[t.text]:
                    j -= 1
                if j >= 0:
                    o = stack[j]
                    del stack[j:]
                    self.match[o] = i
                    self.match[i] = o

    def __len__(self):
        return len(self.toks)

    def text(self, i: int) -> str:
        return self.toks[i].text if 0 <= i < len(self.toks) else ""

    def source_text(self, i: int, j: int) -> str:
        """Original tokens i..j joined by single spaces (macro invocations as written)."""
        out = []
        for t in self.toks[max(i, 0): j + 1]:
            out.extend(t.raw if t.raw else [t.text])
        return " ".join(out)


class PositionMap:
    """Maps (file, line, column) of preprocessed tokens to active original tokens."""

    def __init__(self, pp_text: str, macros: dict, skip_dirs=()):
        self.files: dict[str, FileToks] = {}
        self.index: dict[tuple, tuple[FileToks, int]] = {}
        self.pp_tokens: list[tuple[str, int, Tok, int]] = []  # (file, line, tok, offset)
        self._skip = tuple(os.path.abspath(d) + os.sep for d in skip_dirs)
        self._func_macros = {n for n, m in macros.items() if m.params is not None}
        self._obj_macros = {n for n, m in macros.items() if m.params is None}
        self._build(pp_text)

    # -- preprocessed side
    def _pp_lines(self, text: str):
        """Yield (file, line, physical line text, offset) like pycparser's line tracking."""
        fname, line = "", 1
        off = 0
        for phys in text.split("\n"):
            s = phys.lstrip()
            if s.startswith("#"):
                m = _LINEMARK_RE.match(s)
                if m:
                    line = int(m.group(1))
                    if m.group(2) is not None:
                        fname = m.group(2).encode("latin-1", "backslashreplace").decode("unicode_escape") \
                            if "\\" in m.group(2) else m.group(2)
                    off += len(phys) + 1
                    continue
                yield fname, line, None, off  # a pragma (or other directive) line
            else:
                yield fname, line, phys, off
            line += 1
            off += len(phys) + 1

    def _build(self, pp_text: str) -> None:
        groups: dict[str, list[tuple[int, list[Tok]]]] = {}
        for fname, line, phys, off in self._pp_lines(pp_text):
            if phys is None or not phys.strip():
                continue
            toks, _ = tokenize(phys)
            for t in toks:
                t.line = line
                t.end_line = line
                self.pp_tokens.append((fname, line, t, off + t.col - 1))
            groups.setdefault(fname, []).append((line, toks))
        for fname, glist in groups.items():
            if not fname or fname.startswith("<") or self._skipped(fname):
                continue
            try:
                with open(fname, encoding="utf-8", errors="replace") as f:
                    src = f.read()
            except OSError:
                continue
            self._align_file(fname, src, glist)

    def _skipped(self, fname: str) -> bool:
        a = os.path.abspath(fname)
        return any(a.startswith(d) for d in self._skip)

    # -- original side
    def _orig_tokens(self, src: str) -> list[Tok]:
        toks, _ = tokenize(src, byte_columns=True)
        out: list[Tok] = []
        i = 0
        n = len(toks)
        while i < n:
            t = toks[i]
            if t.kind == "id" and t.text in self._func_macros and i + 1 < n and toks[i + 1].text == "(":
                depth, j = 0, i + 1
                while j < n:
                    if toks[j].text == "(":
                        depth += 1
                    elif toks[j].text == ")":
                        depth -= 1
                        if depth == 0:
                            break
                    j += 1
                j = min(j, n - 1)
                out.append(Tok("\0" + t.text, "macro", t.line, t.col, toks[j].end_line, toks[j].end_col,
                               raw=[x.text for x in toks[i:j + 1]]))
                i = j + 1
                continue
            if t.kind == "id" and t.text in self._obj_macros:
                out.append(Tok("\0" + t.text, "macro", t.line, t.col, t.end_line, t.end_col, raw=[t.text]))
            else:
                out.append(t)
            i += 1
        return out

    def _align_file(self, fname: str, src: str, glist) -> None:
        orig = self._orig_tokens(src)
        lines = [t.line for t in orig]
        mapped: dict[int, list[tuple[int, int]]] = {}  # orig idx -> [(pp line, pp col)]
        for gi, (line, pp) in enumerate(glist):
            nxt = glist[gi + 1][0] if gi + 1 < len(glist) else None
            if nxt is None or nxt <= line:
                nxt = line + 1 if nxt is not None else 1 << 30
            lo = bisect.bisect_left(lines, line)
            hi = bisect.bisect_left(lines, nxt)
            window = orig[lo:hi]
            a = [t.text for t in pp]
            b = [t.text for t in window]
            sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
            for tag, i1, i2, j1, j2 in sm.get_opcodes():
                if tag == "equal":
                    for k in range(i2 - i1):
                        mapped.setdefault(lo + j1 + k, []).append((line, pp[i1 + k].col))
                elif tag in ("replace", "delete"):
                    if not window:
                        continue
                    j = j1 if tag == "replace" else max(j1 - 1, 0)
                    j = min(j, len(window) - 1)
                    for k in range(i1, i2):
                        mapped.setdefault(lo + j, []).append((line, pp[k].col))
        active = sorted(mapped)
        ft = FileToks(fname, [orig[i] for i in active])
        self.files[fname] = ft
        for ai, oi in enumerate(active):
            for (line, col) in mapped[oi]:
                self.index[(fname, line, col)] = (ft, ai)

    def lookup(self, fname: str, line: int, col: Optional[int]) -> Optional[tuple[FileToks, int]]:
        if col is None:
            return None
        return self.index.get((fname, line, col))
