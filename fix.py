"""`check --fix`: apply the fixes rules attach to their diagnostics, with ruff's semantics.

* A fix applies when it is ``safe``, or with ``--unsafe-fixes`` also when ``unsafe``
  (:meth:`Fix.applies`); the same predicate counts ``fixable`` in ``--statistics``.
* Each round applies a set of fixes whose edits do not overlap (identical fixes offered by
  several diagnostics count once), then re-analyses the new text; fixes left out because
  they overlapped come back, recomputed, in the next round. At most :data:`MAX_ROUNDS` rounds.
* A file that does not parse (or has clang errors inside a kernel) is never written, and a
  round whose result no longer parses is dropped: the file keeps the last text that did.
* What is reported afterwards is the last round's analysis: only what remains.

Edits use 1-based lines and byte columns (end exclusive), like every Location.
"""
from __future__ import annotations

import dataclasses
import difflib
import os
from dataclasses import dataclass, field
from typing import Callable, Optional

from .rules.diagnostic import Diagnostic, Edit, FileResult

#: Fix-and-recheck rounds per file (ruff uses 100; our fixes rarely cascade).
MAX_ROUNDS = 10


@dataclass
class FixOutcome:
    path: str
    original: bytes
    fixed: bytes  # equal to ``original`` when nothing applied
    result: FileResult  # the analysis of ``fixed``
    applied: int = 0  # diagnostics whose fix was applied
    rounds: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.fixed != self.original

    def diff(self) -> str:
        a = self.original.decode("utf-8", "replace").splitlines(keepends=True)
        b = self.fixed.decode("utf-8", "replace").splitlines(keepends=True)
        return "".join(difflib.unified_diff(a, b, self.path, self.path))


def fixable(d: Diagnostic, unsafe_fixes: bool) -> bool:
    """Whether ``check --fix`` (with or without ``--unsafe-fixes``) applies ``d``'s fix."""
    return d.fix is not None and bool(d.fix.edits) and d.fix.applies(unsafe_fixes)


def _offsets(data: bytes) -> list[int]:
    starts = [0]
    i = data.find(b"\n")
    while i >= 0:
        starts.append(i + 1)
        i = data.find(b"\n", i + 1)
    return starts


def _span(e: Edit, starts: list[int], size: int) -> Optional[tuple[int, int]]:
    def off(line: int, col: int) -> Optional[int]:
        if not 1 <= line <= len(starts):
            return None
        line_end = starts[line] - 1 if line < len(starts) else size
        o = starts[line - 1] + col - 1
        return o if starts[line - 1] <= o <= line_end + 1 else None

    a, b = off(e.start.line, e.start.column), off(e.end.line, e.end.column)
    if a is None or b is None or b < a or b > size:
        return None
    return a, b


def select_fixes(diagnostics: list[Diagnostic], data: bytes, path: str,
                 unsafe_fixes: bool) -> tuple[list[tuple[int, int, bytes]], int]:
    """Non-overlapping edits (byte spans) to apply to ``data`` and how many diagnostics they
    fix. Fixes are taken in source order; one overlapping an already taken fix waits for the
    next round; an identical fix from another diagnostic is counted but applied once."""
    starts = _offsets(data)
    taken: list[tuple[int, int, bytes]] = []
    seen: set = set()
    count = 0
    cands = [d for d in diagnostics if fixable(d, unsafe_fixes)
             and os.path.abspath(d.path) == os.path.abspath(path)]
    for d in sorted(cands, key=lambda d: min((e.start.line, e.start.column) for e in d.fix.edits)):
        spans = [_span(e, starts, len(data)) for e in d.fix.edits]
        if any(s is None for s in spans):
            continue  # an edit outside the text: stale, skip
        edits = tuple(sorted((a, b, e.text.encode("utf-8")) for (a, b), e in zip(spans, d.fix.edits)))
        if edits in seen:
            count += 1
            continue
        if any(_overlaps(x, y) for x in edits for y in taken) or any(
                _overlaps(x, y) for i, x in enumerate(edits) for y in edits[i + 1:]):
            continue
        seen.add(edits)
        taken.extend(edits)
        count += 1
    return sorted(taken), count


def _overlaps(x: tuple[int, int, bytes], y: tuple[int, int, bytes]) -> bool:
    (a0, a1, _), (b0, b1, _) = x, y
    if a0 == a1 or b0 == b1:  # an insertion conflicts with anything at or around its point
        return a0 <= b1 and b0 <= a1
    return a0 < b1 and b0 < a1


def apply_edits(data: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    out, pos = [], 0
    for a, b, text in sorted(edits):
        out.append(data[pos:a])
        out.append(text)
        pos = b
    out.append(data[pos:])
    return b"".join(out)


def unparsed(result: FileResult) -> bool:
    """Whether the analysis could not read the whole file (never write such a file)."""
    return result.error is not None or any(d.code == "CL000" for d in result.diagnostics)


def fix_file(path: str, original: bytes, result: FileResult, recheck: Callable[[str], FileResult],
             unsafe_fixes: bool) -> FixOutcome:
    """Apply fixes to one file's text until none applies (or :data:`MAX_ROUNDS`); ``recheck``
    analyses a text as that file. Nothing is written here."""
    out = FixOutcome(path, original, original, result)
    if unparsed(result):
        return out
    try:
        original.decode("utf-8")
    except UnicodeDecodeError:
        out.notes.append("not UTF-8: fixes are not applied to this file")
        return out
    data = original
    for _ in range(MAX_ROUNDS):
        edits, n = select_fixes(result.diagnostics, data, path, unsafe_fixes)
        if not edits:
            break
        new = apply_edits(data, edits)
        if new == data:
            break
        out.rounds += 1
        again = recheck(new.decode("utf-8"))
        if unparsed(again):
            out.notes.append("a fix made the file unparsable; the fixes of that round were not applied")
            break
        data, result = new, again
        out.applied += n
    out.fixed, out.result = data, result
    return out


def fix_results(tasks: list, results: list[FileResult], unsafe_fixes: bool,
                jobs: Optional[int] = None) -> list[FixOutcome]:
    """Fix every file of ``tasks`` (engine Tasks) given its first ``results``. Re-checks run
    through the engine with the new text as an editor buffer (crash-isolated, not cached)."""
    from .engine import check_files

    outcomes = []
    for task, res in zip(tasks, results):
        try:
            with open(task.path, "rb") as f:
                original = f.read()
        except OSError:
            outcomes.append(FixOutcome(task.path, b"", b"", res))
            continue

        def recheck(text: str, task=task) -> FileResult:
            return check_files([dataclasses.replace(task, source=text)], jobs=1, cache=None)[0]

        outcomes.append(fix_file(task.path, original, res, recheck, unsafe_fixes))
    return outcomes


def write_fixed(outcomes: list[FixOutcome]) -> list[str]:
    """Write the changed files (same bytes elsewhere); returns the paths written."""
    written = []
    for o in outcomes:
        if o.changed:
            with open(o.path, "wb") as f:
                f.write(o.fixed)
            written.append(o.path)
    return written


def run_fix(tasks: list, results: list[FileResult], unsafe_fixes: bool, diff: bool, fix_only: bool,
            jobs: Optional[int] = None) -> tuple[list[FileResult], Optional[int]]:
    """The CLI's ``--fix`` / ``--fix-only`` / ``--diff``: fix, write (unless ``diff``), say
    what happened on stderr. Returns the results to report and, when nothing more is to be
    reported (``--fix-only``, ``--diff``), the exit status."""
    import sys

    outcomes = fix_results(tasks, results, unsafe_fixes, jobs)
    applied = sum(o.applied for o in outcomes)
    remaining = sum(len(o.result.diagnostics) for o in outcomes)
    broken = any(unparsed(o.result) for o in outcomes)
    hidden = sum(fixable(d, True) and not fixable(d, unsafe_fixes) for o in outcomes for d in o.result.diagnostics)
    for o in outcomes:
        for n in o.notes:
            sys.stderr.write(f"cudalint: {o.path}: {n}\n")
    more = (f" ({hidden} more fixable with --unsafe-fixes)" if hidden else "")
    if diff:
        text = "".join(o.diff() for o in outcomes if o.changed)
        sys.stdout.write(text)
        sys.stderr.write(f"cudalint: would fix {applied} finding(s){more}\n")
        return [o.result for o in outcomes], 2 if broken else (1 if text else 0)
    written = write_fixed(outcomes)
    if fix_only:
        sys.stderr.write(f"cudalint: fixed {applied} finding(s) in {len(written)} file(s){more}\n")
        return [o.result for o in outcomes], 2 if broken else 0
    sys.stderr.write(f"cudalint: {applied + remaining} finding(s) ({applied} fixed, {remaining} remaining)"
                     f"{more}\n")
    return [o.result for o in outcomes], None
