"""Symbolic values as the user wrote them, for messages.

The symbolic walk (:mod:`.symbolic`) names the values it cannot express after where they
come from, with markers that keep them apart: ``stride~L65_2`` (``stride`` as it changes in
the loop at line 65, second such symbol), ``x@entry``/``x@exit_L63`` (a loop-carried value at
a loop's entry or exit), ``?f(...)`` (a value it does not model), ``name[...]`` for a value
read from memory or from another lane. Those markers are internal: a message names the
user's variable (``stride``), a call as a call (``atomicAggInc(...)``, ``__shfl_down_sync(...)``)
and says in words what the marker meant.
"""
from __future__ import annotations

import re

import sympy as sp

_LOOP_MARK = re.compile(r"([A-Za-z_]\w*)(?:~L\d+(?:_\d+)?|@entry(?:_\d+)?|@exit(?:_L\d+)?(?:_\d+)?|@warp)")
_OPAQUE_CALL = re.compile(r"\?([A-Za-z_][\w:]*)\(")
_OPAQUE = re.compile(r"\?([A-Za-z_][\w:]*)")
#: MemLoad names that are calls, not arrays (their "index" is the call's arguments).
_CALL_PREFIXES = ("atomic", "__shfl", "__ballot", "__any", "__all", "__match", "__reduce",
                  "__activemask", "curand")


def user_text(x) -> str:
    """``x`` (a sympy expression or its text) with the walker's internal markers replaced by
    the user's names."""
    s = sp.sstr(x) if isinstance(x, sp.Basic) else str(x)
    s = _LOOP_MARK.sub(r"\1", s)
    s = _OPAQUE_CALL.sub(r"\1(", s)
    s = _OPAQUE.sub(r"\1", s)
    s = re.sub(r"\b([A-Za-z_]\w*)\[\]", r"\1[...]", s)  # a load whose address is not shown
    for p in _CALL_PREFIXES:
        s = re.sub(r"\b(" + re.escape(p) + r"\w*)\[([^\[\]]*)\]", r"\1(...)", s)
    return s


def symbol_name(name: str) -> str:
    """One symbol's name as the user wrote it (``stride~L65_2`` -> ``stride``)."""
    return user_text(name)
