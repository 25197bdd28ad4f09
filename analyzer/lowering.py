"""From a source file to IR: the frontend's part of the pipeline, and nothing of the analyses.

:func:`lower_file` parses (libclang, or pycparser for plain C) and lowers one file into an
:class:`~.ir.TranslationUnit` with what the parse said about it (a :class:`Lowered`). It imports
no analysis (no sympy or numpy): a one-file run lowers its file in a process of its
own, started before the analyses load in another, and hands the IR over pickled
(``isolation.isolated``; a lowered file pickles in a millisecond or two, lowering it took tens).
:func:`expect` tells this module where such a lowering will arrive from, and :func:`take` is how
the pipeline gets it; without one, the pipeline lowers the file itself.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

from . import ir
from .options import AnalysisOptions, frontend_options


@dataclass
class ParseProblem:
    message: str
    line: int = 0
    column: int = 0
    file: str = ""


@dataclass
class Lowered:
    """A file's IR and what its parse said: ``error`` when it cannot be analysed at all,
    ``kernel_errors`` (clang errors inside a kernel or what it calls: that kernel is skipped),
    ``notes``, the files it ``#include``\\ d and the user's files among them (``scope``).
    ``source`` is the text that was lowered (a file edited since is lowered again)."""
    source: str
    tu: Optional[ir.TranslationUnit] = None
    error: Optional[ParseProblem] = None
    kernel_errors: list[tuple[str, ParseProblem]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    dependencies: list[str] = field(default_factory=list)
    scope: Optional[object] = None  # frontend.project_files.ProjectScope
    missing_headers: list[str] = field(default_factory=list)  # #includes not found (stubbed empty)
    hash_errors: list[str] = field(default_factory=list)  # "int.h:38: Must define ..." (#error hit)


def read_source(path: str) -> tuple[Optional[str], Optional[str]]:
    """The file's text (UTF-8, else Latin-1) or None with why not."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        return None, f"cannot read file: {e.strerror or e}"
    if b"\x00" in data[:8192]:
        return None, "binary file (contains NUL bytes), not CUDA source"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return data.decode("latin-1"), None


def lower_file(path: str, source: str, opts: AnalysisOptions) -> Lowered:
    """Parse ``path`` (whose text is ``source``) with the selected frontend and lower it."""
    out = Lowered(source)
    if opts.frontend == "pycparser":
        from .frontend.errors import FrontendError
        from .frontend.lower_c import lower_c_file
        try:
            out.tu = lower_c_file(path, include_dirs=opts.include_dirs, defines=opts.defines)
        except FrontendError as e:
            out.error = ParseProblem(e.message, e.line or 0, e.column or 0, path)
        return out
    from .frontend import parse_ahead
    from .frontend.lower_clang import lower_translation_unit
    from .frontend.parse import parse_file
    from .frontend.project_files import ProjectScope

    fopts = frontend_options(opts)
    pr = parse_ahead.take(path, fopts) or parse_file(path, fopts)
    out.missing_headers = list(pr.stubbed_headers)
    for h in pr.stubbed_headers:
        out.notes.append(f"header <{h}> not found; analysed without it (pass its directory with -I)")
    if pr.fatal or pr.tu is None:
        first = pr.errors[0] if pr.errors else None
        msg = first.message if first else (getattr(pr, "message", "") or "cannot parse file")
        out.error = ParseProblem(msg, first.line if first else 0, first.column if first else 0, path)
        return out
    out.dependencies = pr.included_files()
    out.scope = ProjectScope(path, opts.exclude, opts.headers)
    tu = lower_translation_unit(pr.tu, path, source, out.scope)
    out.tu = tu
    main = os.path.abspath(path)
    errors = list(pr.errors)
    out.hash_errors = hash_errors(errors, main, source)
    if errors:
        # An error inside a kernel (or a device function it calls) makes that kernel's facts
        # unreliable; errors elsewhere (host code) only get a note.
        for fn in tu.kernels:
            spans = [fn] + callees(fn)
            for e in errors:
                for f in spans:
                    r = f.range
                    same_file = os.path.abspath(e.file or main) == os.path.abspath(r.file or main)
                    if same_file and (r.line, r.column) <= (e.line, e.column) <= (r.end_line, r.end_column):
                        out.kernel_errors.append((fn.display_name, ParseProblem(e.message, e.line, e.column, e.file)))
                        break
                else:
                    continue
                break
        outside = [e for e in errors if not any(p.line == e.line and p.message == e.message
                                                   for _, p in out.kernel_errors)]
        for e in outside[:3]:
            out.notes.append(f"clang error outside kernels (ignored for the analysis): "
                             f"{os.path.basename(e.file or path)}:{e.line}:{e.column}: {e.message}")
        if not tu.kernels and not tu.functions and errors:
            e = errors[0]
            out.error = ParseProblem(e.message, e.line, e.column, e.file)
    return out


_HASH_ERROR = re.compile(r"^\s*#\s*error\b")


def hash_errors(errors, main: str, source: str) -> list[str]:
    """The ``#error`` directives the parse reached ("int.h:38: Must define one of SHORT, INT, or
    LONG"): the file wants a -D (or an -I) that was not given, whatever clang says next."""
    from .source_text import source_lines

    out, own = [], source.splitlines()  # the file as analysed (an editor's buffer, maybe)
    main = os.path.abspath(main)
    for e in errors:
        f = os.path.abspath(e.file or main)
        lines = own if f == main else source_lines(f)
        if 0 < e.line <= len(lines) and _HASH_ERROR.match(lines[e.line - 1]):
            out.append(f"{os.path.basename(f)}:{e.line}: {e.message}")
    return out


def callees(fn: ir.Function) -> list[ir.Function]:
    """Every function ``fn`` calls, directly or not (each once; ``fn`` itself not, even when
    it recurses)."""
    out, stack, seen = [], list(fn.callees), {id(fn)}
    while stack:
        f = stack.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        out.append(f)
        stack.extend(f.callees)
    return out


# --------------------------------------------------------------------------------------------
# A lowering done elsewhere (another process)
# --------------------------------------------------------------------------------------------
class FrontendGone(BaseException):
    """The process lowering the file ended without a result (a signal in libclang's C code).
    A BaseException: the analysis' own handlers must not turn it into an internal error; the
    process that started both reports it (``isolation.isolated``)."""


_expected: dict[tuple, Callable[[], Optional[Lowered]]] = {}


def _key(path: str, opts: AnalysisOptions) -> tuple:
    # what lower_file reads of the options (facts and the rest do not change the IR)
    return (os.path.abspath(path), repr(frontend_options(opts)), opts.frontend, tuple(opts.exclude), opts.headers)


def expect(path: str, opts: AnalysisOptions, receive: Callable[[], Optional[Lowered]]) -> None:
    """The lowering of ``path`` with ``opts`` will come from ``receive()``: a :class:`Lowered`,
    None (lower it here after all: the other side failed in Python, where this process would
    fail the same way and say where), or :class:`FrontendGone`."""
    _expected[_key(path, opts)] = receive


def take(path: str, opts: AnalysisOptions, source: str) -> Optional[Lowered]:
    """The lowering :func:`expect` announced for this file, options and text, or None."""
    receive = _expected.pop(_key(path, opts), None)
    if receive is None:
        return None
    got = receive()
    return got if got is not None and got.source == source else None
