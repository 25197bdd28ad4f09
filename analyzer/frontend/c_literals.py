"""C literals as the pycparser frontend reads them: integer literals with their C++ type
(suffix and value decide it, as clang types CUDA), floating literals, character literals and the
bytes of a string literal (escapes decoded).
"""
from __future__ import annotations

import re
import struct


from . import c_types as ct
from .c_types import T


_INT_RE = re.compile(r"^(0[xX][0-9a-fA-F']+|0[bB][01']+|[0-9']+)([uUlLzZ]*)$")


def int_literal(text: str) -> tuple[int, T]:
    m = _INT_RE.match(text)
    if not m:
        raise ValueError(text)
    digits, suf = m.group(1).replace("'", ""), m.group(2).lower()
    if digits[:2].lower() == "0x":
        v, dec = int(digits, 16), False
    elif digits[:2].lower() == "0b":
        v, dec = int(digits[2:], 2), False
    elif len(digits) > 1 and digits[0] == "0":
        v, dec = int(digits, 8), False
    else:
        v, dec = int(digits), True
    u = "u" in suf
    nl = min(suf.count("l"), 2)
    if u:
        cands = [["unsigned int", "unsigned long", "unsigned long long"],
                 ["unsigned long", "unsigned long long"], ["unsigned long long"]][nl]
    elif dec:
        cands = [["int", "long", "long long"], ["long", "long long"], ["long long"]][nl]
    else:
        cands = [["int", "unsigned int", "long", "unsigned long", "long long", "unsigned long long"],
                 ["long", "unsigned long", "long long", "unsigned long long"],
                 ["long long", "unsigned long long"]][nl]
    for c in cands:
        bits = ct.SCALAR_SIZE[c] * 8
        hi = (1 << bits) - 1 if c.startswith("unsigned") else (1 << (bits - 1)) - 1
        if v <= hi:
            return v, ct.scalar(c)
    return v, ct.scalar(cands[-1])


def float_literal(text: str) -> tuple[float, T]:
    s = text.replace("'", "")
    t = ct.DOUBLE
    hexf = s[:2].lower() == "0x"
    if s[-1] in "fF" and (not hexf or "p" in s.lower()):
        s, t = s[:-1], ct.FLOAT
    elif s[-1] in "lL":
        s, t = s[:-1], ct.scalar("long double")
    v = float.fromhex(s) if hexf else float(s)
    if t is ct.FLOAT:
        v = struct.unpack("f", struct.pack("f", v))[0]
    return v, t


_ESC = {"n": 10, "t": 9, "r": 13, "0": 0, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92, "'": 39,
        '"': 34, "?": 63}


def char_literal(text: str) -> int:
    body = text[text.index("'") + 1: text.rindex("'")]
    if not body:
        return 0
    if body[0] != "\\":
        return ord(body[0])
    if body[1] in "xX":
        return int(body[2:], 16)
    if body[1].isdigit():
        return int(body[1:], 8)
    return _ESC.get(body[1], ord(body[1]))



def string_bytes(lit: str) -> bytes:
    """The bytes of a (possibly concatenated) C string literal, escapes decoded."""
    out = bytearray()
    for m in re.finditer(r'"((?:[^"\\]|\\.)*)"', lit):
        s = m.group(1)
        i = 0
        while i < len(s):
            ch = s[i]
            if ch != "\\":
                out.extend(ch.encode("utf-8"))
                i += 1
                continue
            nx = s[i + 1] if i + 1 < len(s) else ""
            if nx in "xX":
                j = i + 2
                while j < len(s) and s[j] in "0123456789abcdefABCDEF":
                    j += 1
                out.append(int(s[i + 2:j] or "0", 16) & 0xFF)
                i = j
            elif nx.isdigit():
                j = i + 1
                while j < len(s) and j < i + 4 and s[j] in "01234567":
                    j += 1
                out.append(int(s[i + 1:j], 8) & 0xFF)
                i = j
            else:
                out.append(_ESC.get(nx, ord(nx) if nx else 0))
                i += 2
    return bytes(out)

