"""Launch values for the symbols of a symbolic address (:class:`Bindings`): block and grid
dimensions from the launch, kernel parameters from ``--param`` or the launch site, and a stated
default where nothing is known.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import sympy as sp

from .cint import int_max
from .symbolic_values import (BLOCKDIM, GRIDDIM, PARAM, Symbols, TEMPLATE)


DEFAULT_PARAM_VALUE = 1024


@dataclass
class Bindings:
    """Numbers for symbols: launch dimensions, ``--param`` values, launch-site arguments.

    ``values`` are known; ``defaults`` are used only where a number is needed and then listed
    as an assumption by the caller (``describe``)."""

    values: dict = field(default_factory=dict)
    sources: dict = field(default_factory=dict)
    defaults: dict = field(default_factory=dict)
    # why a default is what it is, where it is not DEFAULT_PARAM_VALUE (symbol -> text)
    default_why: dict = field(default_factory=dict)
    # symbol -> the sentence a default other than DEFAULT_PARAM_VALUE is stated with
    default_notes: dict = field(default_factory=dict)
    # the launch grid, where known: the values blockIdx takes even in a kernel that never reads
    # gridDim (its symbol then has no binding)
    grid: Optional[tuple] = None
    # xreplace rebuilds (and re-canonicalises) the whole tree; the access, request and lane
    # models bind the same guards and trip counts once per access
    _bound: dict = field(default_factory=dict, repr=False, compare=False)

    def bind(self, e):
        if not isinstance(e, sp.Basic) or not self.values:
            return e
        hit = self._bound.get(e)
        if hit is None or hit[0] != len(self.values):
            if len(self._bound) >= 20_000:
                self._bound.clear()
            hit = self._bound[e] = (len(self.values), e.xreplace(self.values))
        return hit[1]

    def describe(self, s: sp.Symbol) -> str:
        if s in self.values:
            return f"{s.name} = {self.values[s]} {self.sources.get(s, '')}".strip()
        if s in self.default_notes:
            return self.default_notes[s]
        if s in self.defaults:
            return f"{s.name} assumed {self.defaults[s]} ({self.default_why.get(s, 'no value known')})"
        return s.name


def make_bindings(syms: Symbols, launch, params: Optional[dict] = None) -> Bindings:
    """Bind blockDim/gridDim from ``launch`` (a LaunchConfig), kernel parameters from
    ``params`` (``--param``) and then from the launch site, template constants from
    ``params`` too. Parameters left unbound get a stated default."""
    b = Bindings()
    params = params or {}
    block = getattr(launch, "block", None) or (256, 1, 1)
    grid = getattr(launch, "grid", None)
    b.grid = tuple(grid) if grid else None
    src = getattr(launch, "source", "default")
    site = getattr(launch, "site", None)
    where = {"command-line": "from --block", "launch-site":
             f"from the launch at line {site.range.line}" if site is not None else "from the launch site",
             "launch-bounds": "from __launch_bounds__", "default": "(default block, no launch found)"}
    for s, info in syms.info.items():
        if info.kind == BLOCKDIM:
            i = "xyz".index(info.component)
            b.values[s] = sp.Integer(block[i])
            b.sources[s] = where.get(src, "")
            part = getattr(site, "block_partial", None) if src == "default" and site is not None else None
            if part is not None and site.block is None:
                # a block known in some components (`{4, 8, bs / 32}`)
                b.sources[s] = (f"from the launch at line {site.range.line}" if part[i] is not None
                                else f"(assumed: not known at the launch at line {site.range.line})")
        elif info.kind == GRIDDIM:
            if grid:
                b.values[s] = sp.Integer(grid["xyz".index(info.component)])
                b.sources[s] = "from --grid" if src == "command-line" else "from the launch"
            else:
                b.defaults[s] = sp.Integer(DEFAULT_PARAM_VALUE)
        elif info.kind in (PARAM, TEMPLATE):
            name = info.var.name if info.var is not None else info.name
            if name in params and _is_number(params[name]):
                b.values[s] = sp.Integer(int(params[name]))
                b.sources[s] = "from --param"
                continue
            pv = getattr(launch, "param_values", {}) or {}
            if info.kind == PARAM and name in pv and _is_number(pv[name]):
                b.values[s] = sp.Integer(int(pv[name]))
                line = site.range.line if site is not None else "?"
                b.sources[s] = f"from the launch site at line {line}"
                continue
            comp = (getattr(launch, "block_params", None) or {}).get(name) if info.kind == PARAM else None
            if comp in ("x", "y", "z"):
                # every launch passes the block's size in it: the same number as blockDim
                b.defaults[s] = sp.Integer(block["xyz".index(comp)])
                b.default_why[s] = f"every launch passes it as blockDim.{comp}, not known"
                continue
            ranged = (getattr(launch, "param_ranges", {}) or {}).get(name) if info.kind == PARAM else None
            if ranged is not None:
                # several values passed (a host loop's counter): one of them, stated
                b.defaults[s] = sp.Integer(int(ranged[0]))
                b.default_notes[s] = ranged[1]
            elif info.var is None or not info.var.type.is_float:
                b.defaults[s] = sp.Integer(DEFAULT_PARAM_VALUE)
                top = int_max(info.var.type) if info.var is not None else None
                if top is not None and top < DEFAULT_PARAM_VALUE:
                    # a byte or a flag (mumax3's `uint8_t PBC`): 1024 is not one of its values;
                    # the largest one is, as a size would be large
                    b.defaults[s] = sp.Integer(top)
                    b.default_why[s] = (f"no value known; the largest value of its type "
                                        f"{info.var.type.spelling}")
    return b


def _is_number(v) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    return isinstance(v, float) and v.is_integer()
