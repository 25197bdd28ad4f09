"""The device-code split's lexical scans (analyzer/device_source.py) run on regular
expressions; these references are the per-character scans they replaced (as they were in
3882ea8), and the two must agree exactly: on every fixture and on random strings made of the
characters that matter (comment and literal delimiters, escapes, braces, newlines)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from cudalint.analyzer.device_source import _classify, _ends_at_brace, _strip_comments_and_strings, split_top_level

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(p for p in (ROOT / "fixtures").rglob("*") if p.suffix in (".cu", ".cuh", ".h"))
ALPHABET = ["/", "*", '"', "'", "\\", "\n", "\r", "a", " ", "{", "}", ";", "#", "(", ")", "template", "__global__"]


def _reference_literal_end(text: str, i: int) -> int:
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


def reference_strip(text: str) -> str:
    """``text`` with comments removed and string/char literal contents blanked (length kept
    only roughly; used for identifier and brace scanning, never emitted)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            seg = text[i:(n if j < 0 else j + 2)]
            out.append("\n" * seg.count("\n") or " ")
            i = n if j < 0 else j + 2
            continue
        if c in "\"'":
            j = _reference_literal_end(text, i)
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def reference_split(text: str, file: str = "", first_line: int = 1) -> list[Chunk]:
    """Split source text into top-level chunks (directives, declarations, definitions)."""
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

    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            at_line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        # comments
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            end = n if j < 0 else j + 2
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
            j = _reference_literal_end(text, i)
            line += text.count("\n", i, min(j + 1, n))
            i = j + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth <= 0:
                depth = 0
                head = reference_strip(text[start:i])
                head = head[:head.find("{")] if "{" in head else head
                if _ends_at_brace(head):
                    flush(i + 1)
        elif c == ";" and depth == 0:
            flush(i + 1)
        i += 1
    flush(n)
    return chunks


def _random_texts(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        yield "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 16)))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_scans_agree_with_the_reference_on_a_fixture(path):
    text = path.read_text(encoding="utf-8", errors="replace")
    assert _strip_comments_and_strings(text) == reference_strip(text)
    assert repr(split_top_level(text, str(path))) == repr(reference_split(text, str(path)))


def test_the_scans_agree_with_the_reference_on_random_text():
    for text in _random_texts(13, 40_000):
        assert _strip_comments_and_strings(text) == reference_strip(text), repr(text)
        assert repr(split_top_level(text)) == repr(reference_split(text)), repr(text)


def test_what_the_strip_keeps():
    # comments go (a block comment keeps its line breaks), literals keep only their quotes,
    # an unclosed literal ends at its line and takes the newline
    assert _strip_comments_and_strings('a // c\nb /* x\ny */ c "s{" \'}\' "open\nd') == 'a \nb \n c "" \'\' ""d'
