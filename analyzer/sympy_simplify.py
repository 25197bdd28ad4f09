"""``sympy.simplify`` without the import of ``sympy.physics.units`` it makes on first use.

``simplify()`` ends with ``from sympy.physics.units import Quantity`` and, only when the
expression contains a physical quantity, simplifies the units. The first call so imports the
whole units package (si, mks, prefixes...): 0.12 s of CPU, a seventh of checking a small file
(sympy issue #14673). cudalint's expressions are built from symbols, numbers and integer
functions, never from quantities, so that test is always false for them.

While no one has imported the units package, a call here lets that one import find a
stand-in module whose ``Quantity`` no expression is an instance of, and removes it as soon as
the call returns: every step of ``simplify`` runs as before, and a later real import of
``sympy.physics.units`` (by the user's code in the same process) loads the real package.
"""
from __future__ import annotations

import sys
import threading
import types

import sympy as sp

_UNITS = "sympy.physics.units"
_lock = threading.Lock()


class _NoQuantity:
    """What the stand-in calls ``Quantity``: not a sympy class, so ``expr.has()`` of it is
    False for every expression (as ``has(Quantity)`` is for expressions without units)."""


def simplify(expr):
    """``sp.simplify(expr)``, the same result, without importing ``sympy.physics.units``."""
    if _UNITS in sys.modules:  # imported already (or a call of ours is in progress)
        return sp.simplify(expr)
    with _lock:
        if _UNITS in sys.modules:
            return sp.simplify(expr)
        stand_in = types.ModuleType(_UNITS, "stand-in while cudalint simplifies (analyzer/sympy_simplify.py)")
        stand_in.Quantity = _NoQuantity
        sys.modules[_UNITS] = stand_in
        try:
            return sp.simplify(expr)
        finally:
            if sys.modules.get(_UNITS) is stand_in:
                del sys.modules[_UNITS]
