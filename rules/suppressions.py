"""Suppression comments, applied to a file's diagnostics after the rules ran.

    x = a[i * 32];  // cudalint: ignore[CL201] -- stride is intended
    // cudalint: ignore-next-line[CL201,CL3] reason text
    // cudalint: file-ignore[CL5]

* ``ignore[...]`` silences the listed codes on the comment's own line; ``ignore-next-line[...]``
  on the line after the comment; ``file-ignore[...]`` in the whole file.
* Codes are full codes (``CL201``) or prefixes (``CL2``, ``CL``); ``ALL`` or a bare directive
  without brackets (``// cudalint: ignore``) silences every code.
* Anything after the bracket is the reason (free text; ``--``, ``:`` or ``because`` may lead).
* A suppression (or one code of it) that silences nothing is reported as CL010
  (unused-suppression), with a fix that removes it; so is a directive cudalint does not know.
  Codes of rules that are not enabled in this run are not reported as unused (they could not
  fire). CL000 (a file that cannot be analysed) is never suppressed.

Comments are found by a small lexer that skips string and character literals, so
``"// cudalint: ignore[CL201]"`` in a string is not a suppression.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

from .diagnostic import Diagnostic, Edit, Fix, Location

# Comments and the literals that may contain comment-like text (raw strings first).
_LEX_RE = re.compile(
    r'R"(?P<delim>[^()\\\s]{0,16})\((?:.|\n)*?\)(?P=delim)"'
    r'|"(?:\\.|[^"\\\n])*"'
    r"|'(?:\\.|[^'\\\n])*'"
    r"|(?P<line>//[^\n]*)"
    r"|(?P<block>/\*(?:.|\n)*?(?:\*/|\Z))"
)
_DIRECTIVE_RE = re.compile(r"cudalint\s*:\s*(?P<kind>[A-Za-z][\w-]*)")
_KINDS = {"ignore": "line", "ignore-next-line": "next-line", "file-ignore": "file"}
_CODE_RE = re.compile(r"^(?:ALL|CL\d{0,3})$")


@dataclass
class Suppression:
    kind: str  # "line" | "next-line" | "file"
    codes: tuple[str, ...]  # empty: every code
    line: int  # line of the directive (1-based)
    column: int  # byte column of the directive's comment (1-based)
    end_line: int
    end_column: int  # exclusive
    target_line: int  # line silenced (0 for file-ignore)
    reason: str = ""
    comment_start: int = 0  # character offsets of the whole comment in the source
    comment_end: int = 0
    bracket: Optional[tuple[int, int]] = None  # offsets of the text between [ and ]
    used: set = field(default_factory=set)  # codes (of ``codes``, or "*") that matched

    def matches(self, code: str) -> Optional[str]:
        """The entry of ``codes`` that covers ``code`` (``"*"`` for a catch-all), or None."""
        if not self.codes:
            return "*"
        best = None
        for c in self.codes:
            if c == "ALL" or code.startswith(c):
                if best is None or len(c) > len(best):
                    best = c
        return best

    def covers_line(self, line: int) -> bool:
        return self.kind == "file" or self.target_line == line


@dataclass
class BadDirective:
    message: str
    line: int
    column: int
    end_column: int


class _Positions:
    """Character offset -> (line, byte column), both 1-based."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0]
        for m in re.finditer("\n", text):
            self.starts.append(m.end())

    def at(self, offset: int) -> tuple[int, int]:
        import bisect
        i = bisect.bisect_right(self.starts, offset) - 1
        line_start = self.starts[i]
        col = len(self.text[line_start:offset].encode("utf-8", "surrogatepass")) + 1
        return i + 1, col


def parse_suppressions(source: str) -> tuple[list[Suppression], list[BadDirective]]:
    """All suppression directives in ``source`` (and malformed ones)."""
    sups: list[Suppression] = []
    bad: list[BadDirective] = []
    if "cudalint" not in source:
        return sups, bad
    pos = None
    for m in _LEX_RE.finditer(source):
        kind_group = "line" if m.group("line") is not None else "block" if m.group("block") is not None else None
        if kind_group is None:
            continue
        comment = m.group(kind_group)
        body_off = 2
        body = comment[2:-2] if kind_group == "block" and comment.endswith("*/") else comment[2:]
        d = _DIRECTIVE_RE.search(body)
        if d is None:
            continue
        # Only a directive at the start of the comment counts ("// see cudalint: docs" does not).
        if body[:d.start()].strip(" \t*/!<"):
            continue
        pos = pos or _Positions(source)
        start_off, end_off = m.start(), m.end()
        line, col = pos.at(start_off)
        end_line, end_col = pos.at(end_off)
        kind = d.group("kind").lower()
        if kind not in _KINDS:
            dl, dc = pos.at(m.start() + body_off + d.start())
            bad.append(BadDirective(f"unknown cudalint directive `{d.group('kind')}` (expected ignore, "
                                    "ignore-next-line or file-ignore)", dl, dc, dc + len(d.group(0))))
            continue
        rest = body[d.end():]
        codes: tuple[str, ...] = ()
        bracket = None
        reason = rest
        stripped = rest.lstrip()
        if stripped.startswith("["):
            lead = len(rest) - len(stripped)
            close = stripped.find("]")
            if close < 0:
                dl, dc = pos.at(m.start() + body_off + d.start())
                bad.append(BadDirective("suppression without a closing `]`", dl, dc, dc + len(d.group(0))))
                continue
            inner = stripped[1:close]
            raw = [c.strip().upper() for c in re.split(r"[,\s]+", inner) if c.strip()]
            wrong = [c for c in raw if not _CODE_RE.match(c)]
            if wrong:
                dl, dc = pos.at(m.start() + body_off + d.start())
                bad.append(BadDirective(f"not a rule code in suppression: {', '.join(wrong)}",
                                        dl, dc, dc + len(d.group(0))))
                continue
            codes = tuple(dict.fromkeys(raw))
            if "ALL" in codes:
                codes = ()
            b0 = m.start() + body_off + d.end() + lead + 1
            bracket = (b0, b0 + len(inner))
            reason = stripped[close + 1:]
        reason = re.sub(r"^\s*(?:--|—|:|;|-|because\b)?\s*", "", reason).strip()
        if kind_group == "block":
            reason = reason.rstrip("*/ ").strip()
        sk = _KINDS[kind]
        target = line if sk == "line" else (end_line + 1 if sk == "next-line" else 0)
        sups.append(Suppression(sk, codes, line, col, end_line, end_col, target, reason,
                                start_off, end_off, bracket))
    return sups, bad


def _removal_fix(source: str, s: Suppression, pos: _Positions, keep: list[str]) -> Fix:
    if keep and s.bracket is not None:
        a, b = s.bracket
        return Fix("remove the unused codes from the suppression",
                   (Edit(Location(*pos.at(a)), Location(*pos.at(b)), ",".join(keep)),))
    # Remove the whole comment, with the whitespace before it; a comment alone on its line
    # takes the line with it.
    a, b = s.comment_start, s.comment_end
    line_start = source.rfind("\n", 0, a) + 1
    line_end = source.find("\n", b)
    line_end = len(source) if line_end < 0 else line_end
    if not source[line_start:a].strip() and not source[b:line_end].strip():
        a, b = line_start, min(line_end + 1, len(source))
    else:
        while a > line_start and source[a - 1] in " \t":
            a -= 1
    return Fix("remove the unused suppression", (Edit(Location(*pos.at(a)), Location(*pos.at(b)), ""),))


def apply_suppressions(diagnostics: Iterable[Diagnostic], source: str, path: str,
                       enabled: Callable[[str], bool] = lambda code: True,
                       known_codes: Optional[Iterable[str]] = None,
                       severity_overrides: Optional[dict] = None) -> list[Diagnostic]:
    """Drop suppressed diagnostics and add CL010 for unused or malformed suppressions.

    ``enabled(code)`` says whether a rule ran in this check (codes of rules that did not run
    are not called unused); ``known_codes`` are all registered rule codes (a suppression code
    that matches none is reported as unknown).
    """
    diagnostics = list(diagnostics)
    sups, bad = parse_suppressions(source or "")
    if not sups and not bad:
        return diagnostics
    kept: list[Diagnostic] = []
    for d in diagnostics:
        if d.code == "CL000":
            kept.append(d)
            continue
        hit = False
        for s in sups:
            if not s.covers_line(d.location.line):
                continue
            c = s.matches(d.code)
            if c is not None:
                s.used.add(c)
                hit = True
        if not hit:
            kept.append(d)
    if not enabled("CL010"):
        return kept
    known = sorted(set(known_codes or ()))
    sev = (severity_overrides or {}).get("CL010", "warning")
    pos = _Positions(source)
    extra: list[Diagnostic] = []

    def cl010(message: str, line: int, col: int, end_line: int, end_col: int, fix: Optional[Fix] = None):
        extra.append(Diagnostic("CL010", "unused-suppression", sev, message, path,
                                Location(line, col), Location(end_line, end_col), None, fix))

    where = {"line": "on this line", "next-line": "on the next line", "file": "in this file"}
    for s in sups:
        if not s.codes:
            if "*" not in s.used:
                cl010(f"unused suppression: no diagnostic {where[s.kind]} to silence",
                      s.line, s.column, s.end_line, s.end_column, _removal_fix(source, s, pos, []))
            continue
        unused, unknown = [], []
        for c in s.codes:
            if c in s.used or "CL010".startswith(c):
                continue  # codes that may silence CL010 itself are not checked for use
            rules_here = [k for k in known if k.startswith(c)] if known else [c]
            if known and not rules_here:
                unknown.append(c)
            elif any(enabled(k) for k in rules_here):
                unused.append(c)
        dead = unused + unknown
        if not dead:
            continue
        keep = [c for c in s.codes if c not in dead]
        parts = []
        if unused:
            parts.append(f"{', '.join(unused)} {'matches' if len(unused) == 1 else 'match'} "
                         f"no diagnostic {where[s.kind]}")
        if unknown:
            parts.append(f"no rule {'code' if len(unknown) == 1 else 'codes'} {', '.join(unknown)}")
        cl010("unused suppression: " + "; ".join(parts), s.line, s.column, s.end_line,
              s.end_column, _removal_fix(source, s, pos, keep))
    for b in bad:
        cl010(f"malformed suppression: {b.message}", b.line, b.column, b.line, b.end_column)
    # A CL010 can itself be silenced (file-ignore[CL010], or ignore[CL010] on its line).
    for d in extra:
        if not any(s.codes and s.covers_line(d.location.line) and s.matches("CL010") is not None
                   for s in sups):
            kept.append(d)
    return kept
