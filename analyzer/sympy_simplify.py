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

Two steps of ``simplify`` redo work whose result they already have; while a call runs
(:func:`_shortcuts`), they are given it, the result unchanged:

- Every ``Max(0, n - 2)`` of an expression is rebuilt each time a pass (the deep
  simplification, ``factor_terms``, ``gcd_terms``...) walks into it, and each rebuilding
  compares the arguments pairwise (``MinMaxBase._find_localzeros``, itself calling
  ``factor_terms``). A count of HeCBench's lrn has 132 of them, a few distinct: 1452
  constructions, 44 different, half of its simplification time. The same arguments build the
  same object: ``Min``/``Max`` are memoised by their arguments for the call.
- ``Factors(d)`` of a dict (``gcd_terms``, ``factor_terms``, under ``cancel``) first tests
  ``d in (None, S.One)``: ``S.One == d`` turns the whole dict into a sorted sympy ``Dict`` to
  find that it is not a number (a third of simplifying qtclustering's counts of hundreds of
  terms). A sympy integer is never equal to a dict: ``Integer == dict`` answers False at once.
"""
from __future__ import annotations

import contextlib
import collections
import sys
import threading
import types

import sympy as sp
from sympy.core.numbers import Integer
from sympy.core.parameters import global_parameters
from sympy.functions.elementary.miscellaneous import MinMaxBase

_UNITS = "sympy.physics.units"
_lock = threading.RLock()
_DICTS = (dict, collections.defaultdict)  # what Factors are built from


class _NoQuantity:
    """What the stand-in calls ``Quantity``: not a sympy class, so ``expr.has()`` of it is
    False for every expression (as ``has(Quantity)`` is for expressions without units)."""


@contextlib.contextmanager
def _shortcuts():
    """While in the block, ``Min(*args)``/``Max(*args)`` of arguments already built in it return
    the object built then, and ``Integer == dict`` (or defaultdict) is False without converting the dict (what
    sympy's answer is once converted). The memo's key holds what a construction depends on: the
    class, the arguments (sympy equality is structural and tells apart symbols of other
    assumptions; their types too, ``2`` and ``2.0``), the options and ``evaluate``. Entered
    under ``_lock``: the patched methods are sympy's, for every thread."""
    original_new = MinMaxBase.__dict__["__new__"]
    original_eq = Integer.__dict__["__eq__"]
    build = original_new.__func__
    memo: dict = {}

    def new(cls, *args, **options):
        try:
            key = (cls, args, tuple(map(type, args)), tuple(sorted(options.items())),
                   bool(global_parameters.evaluate))
            hit = memo.get(key)
        except TypeError:  # an unhashable or unorderable argument: build it
            return build(cls, *args, **options)
        if hit is None:
            hit = memo[key] = build(cls, *args, **options)
        return hit

    def eq(self, other):
        if type(other) in _DICTS:  # sympy converts it to a Dict, not a Number: False
            return False
        return original_eq(self, other)

    MinMaxBase.__new__ = staticmethod(new)
    Integer.__eq__ = eq
    try:
        yield
    finally:
        MinMaxBase.__new__ = original_new
        Integer.__eq__ = original_eq


def simplify(expr):
    """``sp.simplify(expr)``, the same result, without importing ``sympy.physics.units`` and
    without the repeated work of the module docstring."""
    with _lock, _shortcuts():
        if _UNITS in sys.modules:  # imported already
            return sp.simplify(expr)
        stand_in = types.ModuleType(_UNITS, "stand-in while cudalint simplifies (analyzer/sympy_simplify.py)")
        stand_in.Quantity = _NoQuantity
        sys.modules[_UNITS] = stand_in
        try:
            return sp.simplify(expr)
        finally:
            if sys.modules.get(_UNITS) is stand_in:
                del sys.modules[_UNITS]
