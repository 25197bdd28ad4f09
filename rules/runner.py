"""Run the rules over an analysed file and collect diagnostics (CL000 included)."""
from __future__ import annotations

import os
import re
import signal
import threading
import traceback
from contextlib import contextmanager
from dataclasses import replace
from typing import Optional

from ..analyzer.pipeline import AnalysisOptions, FileAnalysis, analyze_file, needed_facts
from .context import RuleContext
from .options import DEFAULT_TIME_LIMIT_S, CheckOptions  # noqa: F401  (re-exported)
from .diagnostic import Diagnostic, FileResult, Location
from .registry import RULES, all_rules


def _cl000(path: str, message: str, line: int = 0, column: int = 0, kernel: Optional[str] = None) -> Diagnostic:
    all_rules()  # the rule table may not be loaded yet (e.g. a timeout during analysis)
    r = RULES["CL000"]
    line, column = max(line, 1), max(column, 1)
    return Diagnostic(r.code, r.name, r.severity, message, path, Location(line, column),
                      Location(line, column + 1), kernel)


_NAME_ERROR = re.compile(r"^(unknown type name|use of undeclared identifier|no (template|type|member) named)")


def _with_hint(message: str, missing: tuple = (), hash_errors: tuple = ()) -> str:
    """A name clang cannot find usually means the file is not a translation unit of its own
    (a kernel file that another ``.cu`` ``#include``s after defining its types and macros) or
    lacks its -I/-D flags: say so, since the message alone reads like a bug in the user's code.
    Where the parse hit an ``#error`` or did not find #includes, name them first: that is where
    the name was to come from."""
    if not _NAME_ERROR.match(message):
        return message
    why = []
    if hash_errors:
        why.append(f"#error at {hash_errors[0]}")
    if missing:
        why.append("not found: " + ", ".join(f"<{h}>" for h in missing[:3])
                   + (f" and {len(missing) - 3} more" if len(missing) > 3 else ""))
    lead = "; ".join(why) + "; pass" if why else "defined elsewhere? pass"
    return (message + f" ({lead} the -I/-D or compile_commands.json the file needs; a file that "
            "another .cu #includes is checked through that file)")


def _distinct(diags: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics less exact copies: the same rule saying the same thing at the same place
    (a host function template instantiated for each head dimension, each instantiation's launch
    giving the same CL401 and the same CL701 at one line) is one finding."""
    seen, out = set(), []
    for d in diags:
        key = (d.code, d.severity, d.path, d.location, d.end_location, d.message, repr(d.fix),
               repr(d.related))
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _where(fa: FileAnalysis, e) -> str:
    """The file a parse problem is located in: a header of the user's, else the checked file."""
    return fa.shown_path(e.file)


def check_analysis(fa: FileAnalysis, copts: CheckOptions) -> FileResult:
    all_rules()  # make sure every rule module is registered
    res = FileResult(path=fa.path, notes=list(fa.notes))
    if fa.error is not None:
        e = fa.error
        res.error = e.message
        hint = _with_hint(e.message, tuple(fa.missing_headers), tuple(fa.hash_errors))
        res.diagnostics.append(_cl000(_where(fa, e), hint, e.line, e.column))
        return res
    for kname, e in fa.kernel_errors:
        hint = _with_hint(e.message, tuple(fa.missing_headers), tuple(fa.hash_errors))
        res.diagnostics.append(_cl000(_where(fa, e), f"kernel `{kname}` not analysed: {hint}",
                                      e.line, e.column, kname))
    if fa.kernel_errors:
        res.error = "clang errors inside kernels"
    ctx = RuleContext(fa, fa.target, copts.rule_options, copts.severity_overrides)
    for rule in all_rules():
        if rule.check is None or not copts.enabled(rule.code):
            continue
        res.diagnostics.extend(rule.check(ctx) or ())
    # named first: two instantiations saying the same thing stay two named findings when a
    # third says otherwise; then exact copies are one
    res.diagnostics = _suppress(fa, _distinct(_name_instantiations(res.diagnostics)), copts)
    res.diagnostics.sort(key=Diagnostic.sort_key)
    main = os.path.abspath(fa.path)
    res.header_kernels = [[k.function.range.file, k.function.range.line, k.name, k.launch.source]
                          for k in fa.kernels
                          if os.path.abspath(k.function.range.file or fa.path) != main]
    return res


def _name_instantiations(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Findings of one rule at one place that differ between kernels (the instantiations of a
    template: ``sgemmVectorize<128, 128, 8, 8, 8>`` has a 4-way conflict where ``<64, 64, 8, 8,
    8>`` has a 2-way one) name their kernel first, as CL401 does (`` `k<128>`: ...``); without
    it the two messages at one line contradict each other. One message shared by several
    instantiations was already reported once."""
    groups: dict = {}
    for d in diagnostics:
        groups.setdefault((d.path, d.location.line, d.location.column, d.code), []).append(d)
    out = []
    for d in diagnostics:
        g = groups[(d.path, d.location.line, d.location.column, d.code)]
        if d.kernel and len({x.kernel for x in g}) > 1 and len({x.message for x in g}) > 1 \
                and f"`{d.kernel}`" not in d.message:
            d = replace(d, message=f"`{d.kernel}`: {d.message}")
        out.append(d)
    return out


def _suppress(fa: FileAnalysis, diagnostics: list[Diagnostic], copts: CheckOptions) -> list[Diagnostic]:
    """Suppression comments of each file apply to the findings located in it. Unused ones are
    reported (CL010) only in the checked file: a header's may serve another includer."""
    from .suppressions import apply_suppressions
    main = os.path.abspath(fa.path)
    by_file: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_file.setdefault(os.path.abspath(d.path), []).append(d)
    out = apply_suppressions(by_file.pop(main, []), fa.source, fa.path, copts.enabled,
                             RULES, copts.severity_overrides)
    for path, ds in by_file.items():
        if copts.per_file_ignores:
            from ..config import per_file_codes
            off = per_file_codes(copts.per_file_ignores, path)
            ds = [d for d in ds if not any(d.code.startswith(c) for c in off)]
        out += apply_suppressions(ds, "\n".join(fa.lines_of(path)), path,
                                  lambda c: c != "CL010" and copts.enabled(c), RULES,
                                  copts.severity_overrides)
    return out




#: What a time-out's CL000 adds: how to give a big file more time.
RAISE_LIMIT = "; `--time-limit SECONDS` (or `time-limit` in the configuration) allows more"


class AnalysisTimeout(BaseException):
    """A BaseException so that broad `except Exception` blocks in analyses cannot swallow it."""
    pass


@contextmanager
def time_limit(seconds: Optional[float]):
    """Interrupt the analysis of one file after ``seconds`` (SIGALRM; main thread only, and
    clang's own C code finishes its current call before the interrupt is seen)."""
    usable = seconds and seconds > 0 and hasattr(signal, "setitimer") and \
        threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def on_alarm(signum, frame):
        # Fire again soon: an exception raised while Python runs a finalizer or a gc callback
        # is printed and dropped, and the analysis would go on unbounded.
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        raise AnalysisTimeout(f"analysis exceeded the per-file time limit of {seconds:g} s{RAISE_LIMIT}")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def effective_options(aopts: AnalysisOptions, copts: "CheckOptions") -> AnalysisOptions:
    """``aopts`` with ``facts`` set to what the selected rules read (unless set already): a run
    whose rules read no resources computes none, and so never runs ptxas."""
    if aopts.facts is None:
        codes = [r.code for r in all_rules() if r.check is not None and copts.enabled(r.code)]
        aopts = replace(aopts, facts=needed_facts(codes))
    return aopts


def check_file(path: str, aopts: Optional[AnalysisOptions] = None,
               copts: Optional[CheckOptions] = None,
               time_limit_s: Optional[float] = DEFAULT_TIME_LIMIT_S) -> tuple[FileResult, Optional[FileAnalysis]]:
    """Analyse and check one file. Never raises: an internal failure or a file that takes
    longer than ``time_limit_s`` becomes CL000."""
    copts = copts or CheckOptions()
    try:
        aopts = effective_options(aopts or AnalysisOptions(), copts)
        with time_limit(time_limit_s):
            fa = analyze_file(path, aopts)
            return check_analysis(fa, copts), fa
    except AnalysisTimeout as exc:
        msg = str(exc)
        return FileResult(path=path, diagnostics=[_cl000(path, msg)], error=msg), None
    except Exception as exc:  # a bug in cudalint must not abort the other files
        if isinstance(exc, RecursionError) or "RecursionError" in str(exc):  # ctypes wraps it
            msg = ("the code is nested too deeply for cudalint's analysis (e.g. an expression "
                   "of more than about a thousand operands); the file was not analysed")
            return FileResult(path=path, diagnostics=[_cl000(path, msg)], error=msg), None
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" at {tb[-1].name}:{tb[-1].lineno}" if tb else ""
        msg = f"internal error while analysing: {type(exc).__name__}: {exc}{where}"
        return FileResult(path=path, diagnostics=[_cl000(path, msg)], error=msg), None
