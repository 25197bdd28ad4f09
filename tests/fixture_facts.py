"""Resolvers for `// expect-fact: KEY(ARGS)=VALUE` comments in fixtures.

A resolver receives the FileAnalysis, the kernel whose source range contains the comment's
line (or None), the line number and the argument list from KEY(ARGS); it returns the fact's
value as a string, or raises LookupError when the fact does not exist there. Analyses add their
keys here (one function per key), so fixture files can state any fact the tool computes.
"""
from __future__ import annotations

from typing import Callable, Optional

RESOLVERS: dict[str, Callable] = {}


def resolver(key: str):
    def deco(fn):
        RESOLVERS[key] = fn
        return fn
    return deco


def _fmt(v) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (list, tuple)):
        return ",".join(_fmt(x) for x in v)
    return str(v)


def _variable(kernel, line: int, args: list[str]):
    name = args[0] if args else None
    cands = [v for v in kernel.variables if (name is None or v.name == name)]
    on_line = [v for v in cands if v.line == line]
    pick = on_line or cands
    if not pick:
        raise LookupError(f"no variable {name!r} in kernel {kernel.name}")
    return pick[0]


for _field in ("memory", "scope", "lifetime", "bytes"):
    def _make(f):
        @resolver(f)
        def r(fa, kernel, line, args):
            if kernel is None:
                # A file-scope declaration: any kernel that uses it lists it.
                for k in fa.kernels:
                    try:
                        v = _variable(k, line, args)
                    except LookupError:
                        continue
                    if v.line == line:
                        return _fmt(getattr(v, f))
                raise LookupError(f"no kernel uses a variable declared on line {line}")
            return _fmt(getattr(_variable(kernel, line, args), f))
        return r
    _make(_field)


@resolver("launch.block")
def _block(fa, kernel, line, args):
    return _fmt(kernel.launch.block)


@resolver("launch.grid")
def _grid(fa, kernel, line, args):
    return _fmt(kernel.launch.grid) if kernel.launch.grid else "unknown"


@resolver("launch.source")
def _source(fa, kernel, line, args):
    return kernel.launch.source


@resolver("launch.dynamic_smem")
def _dsmem(fa, kernel, line, args):
    return _fmt(kernel.launch.dynamic_smem)


@resolver("kernels")
def _kernels(fa, kernel, line, args):
    return ",".join(sorted(k.name.replace(" ", "") for k in fa.kernels))


def kernel_at(fa, line: int, name: Optional[str] = None):
    """The kernel whose definition spans ``line`` (instantiations: all share the range, the
    caller disambiguates with ``@kernel<...>``)."""
    ks = [k for k in fa.kernels if k.function.range.line <= line <= k.function.range.end_line]
    if name:
        ks = [k for k in fa.kernels if k.name.replace(" ", "") == name.replace(" ", "")]
    return ks
