"""Inline assembly that nvcc accepts and clang rejects, respelled so clang parses it.

cudalint keeps ``asm`` operands opaque (the template string is never interpreted), so only
the spelling has to get past clang's parser. Two forms occur in real CUDA code:

* a PTX special register written with one ``%`` in an extended ``asm`` template
  (``"mov.u64 %0, %globaltimer;"``): clang wants ``%%`` and reports "invalid % escape in
  inline assembly string"; nvcc passes the template to ptxas as written.
* operands of one group not separated by a comma (``:: "r"(v) "l"(p)``): clang expects ``)``.

:func:`respell` rewrites both **without changing the length of any line** (the ``%`` of an
invalid escape becomes a space, the blank between ``)`` and the next operand's constraint
string becomes a comma), so every line and column clang reports still points into the
original file.
"""
from __future__ import annotations

import re

__all__ = ["respell", "respell_launches", "ASM_ERRORS", "LAUNCH_ERRORS"]

#: clang errors that an nvcc-accepted inline-asm spelling produces.
ASM_ERRORS = ("invalid % escape in inline assembly string", "expected ')'")

#: clang's error at a kernel launch whose ``<<<`` is split by blanks.
LAUNCH_ERRORS = ("expected expression",)

#: ``< < <``, ``<< <``, ``< <<``: a launch's ``<<<`` split by blanks (clang-format writes
#: ``kernel < < < grid, block >>> (...)`` inside macros). nvcc takes it as a launch; clang, for
#: which ``<<<`` is one token, reports "expected expression". No valid C++ has three ``<`` in a
#: row separated only by blanks. Its closing ``>>>`` may be split the same way:
#: Visual Studio's formatter writes ``kernel << < grid, block >> > (...)`` (the book "Learn CUDA
#: Programming", Rodinia's particlefilter), which nvcc accepts. The closer is only looked for
#: after an opener, before the next ``;`` or opener: ``>> >`` alone closes nested templates.
_LAUNCH_OPEN = re.compile(r"<[ \t]*<[ \t]*<")
_LAUNCH_CLOSE = re.compile(r">[ \t]*>[ \t]*>|;|<[ \t]*<[ \t]*<")

_ASM_START = re.compile(r"\b(?:asm|__asm__|__asm)\b(?:\s+(?:volatile|__volatile__|goto|inline))*\s*\(")


def _string_end(text: str, i: int) -> int:
    """Index just past the string literal starting at ``text[i] == '"'``."""
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == '"' or c == "\n":
            return j + 1
        j += 1
    return j


def _fix_escapes(lit: str) -> str:
    """An extended-asm template literal with each invalid ``%`` escape's ``%`` blanked."""
    out = list(lit)
    k = 1
    while k < len(lit) - 1:
        if lit[k] != "%":
            k += 1
            continue
        nxt = lit[k + 1] if k + 1 < len(lit) - 1 else ""
        after = lit[k + 2] if k + 2 < len(lit) - 1 else ""
        if nxt == "%":
            k += 2
            continue
        ok = nxt in "={|}[" or nxt.isdigit() or (nxt.isalpha() and (after.isdigit() or after == "["))
        if not ok and nxt:
            out[k] = " "
        k += 1
    return "".join(out)


def _respell_one(text: str, start: int) -> tuple[str, int]:
    """Respell the asm statement whose ``(`` is at ``start``; return (new text, end index)."""
    depth, i, section = 1, start + 1, 0
    chars = list(text)
    template: list[tuple[int, int]] = []
    last_close = -1  # index of the last ')' closing an operand's expression, at depth 1
    while i < len(text) and depth > 0:
        c = text[i]
        if c == '"':
            j = _string_end(text, i)
            if section == 0:
                template.append((i, j))
            elif last_close >= 0 and depth == 1:
                gap = text[last_close + 1:i]
                if gap and gap.isspace():
                    chars[last_close + 1] = ","  # `"r"(a) "l"(b)` -> `"r"(a),"l"(b)`
            last_close = -1
            i = j
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 1:
                last_close = i
        elif c == ":" and depth == 1:
            if text[i + 1:i + 2] == ":":  # `::` is two empty sections
                section += 1
                i += 1
            section += 1
            last_close = -1
        elif not c.isspace() and depth == 1:
            last_close = -1
        i += 1
    if section > 0:  # extended asm: the template's % escapes are interpreted
        for a, b in template:
            chars[a:b] = _fix_escapes(text[a:b])
    return "".join(chars), i


def respell_launches(text: str) -> str:
    """``text`` with every launch ``<<<`` and its ``>>>`` split by blanks joined, the blanks
    moved after each (same length, same lines)."""
    if "<" not in text:
        return text
    chars = None
    pos = 0
    while True:
        m = _LAUNCH_OPEN.search(text, pos)
        if m is None:
            break
        if re.search(r"\boperator[ \t]*$", text[max(0, m.start() - 40):m.start()]):
            pos = m.start() + 2  # `operator<< <T>(...)`: explicit template arguments
            continue
        spans = [m.span()]
        c = _LAUNCH_CLOSE.search(text, m.end())
        if c is not None and c.group(0)[0] == ">":
            spans.append(c.span())
        for a, b in spans:
            if b - a > 3:
                if chars is None:
                    chars = list(text)
                chars[a:b] = list(text[a] * 3 + " " * (b - a - 3))
        pos = spans[-1][1] if len(spans) > 1 else m.end()
    return text if chars is None else "".join(chars)


def respell(text: str) -> str:
    """``text`` with every nvcc-accepted inline-asm spelling clang rejects rewritten in place
    (same length, same lines). Text without such asm comes back unchanged."""
    if "asm" not in text:
        return text
    pos = 0
    while True:
        m = _ASM_START.search(text, pos)
        if m is None:
            return text
        text, pos = _respell_one(text, m.end() - 1)
