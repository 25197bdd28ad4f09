"""Resolvers for `// expect-fact: KEY(ARGS)=VALUE` comments in fixtures.

A resolver receives the FileAnalysis, the kernel whose source range contains the comment's
line (or None), the line number and the argument list from KEY(ARGS); it returns the fact's
value as a string, or raises LookupError when the fact does not exist there. Analyses add their
keys here (one function per key), so fixture files can state any fact the tool computes.
"""
from __future__ import annotations

import os
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
    here = os.path.abspath(fa.path)  # kernels of included headers have lines of their own
    ks = [k for k in fa.kernels if k.function.range.line <= line <= k.function.range.end_line
          and os.path.abspath(k.function.range.file or fa.path) == here]
    if name:
        ks = [k for k in fa.kernels if k.name.replace(" ", "") == name.replace(" ", "")]
    return ks


# ---- accesses (issue 3): KEY(ARRAY[,load|store]) on the line of the access -----------------

def _access_on_line(fa, kernel, line: int, args: list[str]):
    """The access of ARRAY on ``line`` (ARRAY may be the name written or the base object),
    optionally of one kind; searched in ``kernel`` or, for a line inside a device function,
    in every kernel of the file."""
    if not args:
        raise LookupError("which array? e.g. sectors_per_request(A)")
    name = args[0]
    kind = args[1] if len(args) > 1 else None
    kernels = [kernel] if kernel is not None else list(fa.kernels)
    found = []
    for k in kernels:
        for a in (k.accesses or []):
            if a.line == line and name in (a.array, a.base) and (kind is None or a.kind == kind):
                found.append(a)
    if not found:
        raise LookupError(f"no access of {name!r} on line {line}")
    return found


def _one(found, field_name: str):
    vals = {getattr(a, field_name) for a in found}
    if len(vals) != 1:
        raise LookupError(f"{field_name} differs between the accesses on this line ({sorted(map(str, vals))}); "
                          "add ,load or ,store")
    v = vals.pop()
    if isinstance(v, float):
        v = round(v, 4)
    return "none" if v is None else _fmt(v)


for _key in ("sectors_per_request", "efficiency", "pattern", "wavefronts_per_request", "stride",
             "element_bytes", "addresses_per_request", "space", "path", "footprint",
             "texels_per_request", "filter_mode"):
    def _make_access(key):
        @resolver(key)
        def r(fa, kernel, line, args):
            return _one(_access_on_line(fa, kernel, line, args), key)
        return r
    _make_access(_key)


# ---- resources and occupancy (issue 4): kernel-level, e.g. occupancy=0.625; limiter=shared_memory

def _fact(kernel, name: str):
    if kernel is None or getattr(kernel, name) is None:
        raise LookupError(f"no {name} facts for this line")
    return getattr(kernel, name)


for _key in ("registers", "registers_source", "static_smem_bytes", "local_bytes", "spill_bytes"):
    def _make_res(key):
        @resolver(key)
        def r(fa, kernel, line, args):
            return _fmt(getattr(_fact(kernel, "resources"), key))
        return r
    _make_res(_key)


for _key in ("occupancy", "active_blocks_per_sm", "active_warps_per_sm", "can_launch", "warps_per_block"):
    def _make_occ(key):
        @resolver(key)
        def r(fa, kernel, line, args):
            v = getattr(_fact(kernel, "occupancy").result, key)
            return _fmt(round(v, 6) if isinstance(v, float) else v)
        return r
    _make_occ(_key)


@resolver("limiter")
def _limiter(fa, kernel, line, args):
    """Binding limiters, comma-joined in the calculator's order (warps,registers,shared_memory,blocks)."""
    return ",".join(_fact(kernel, "occupancy").result.limiters)


# --- CGMA and roofline (analyzer/cgma.py): `cgma.FIELD` and `roofline.FIELD` read the
# kernel's explain JSON (`cgma.hot_loop=16`, `cgma.kernel=2*n/(2*n + 1)`, `roofline.bound=memory`);
# `tiling(ARRAY)=DIMS:REUSE` (e.g. `tiling(M)=x:16`, `none` when ARRAY has no reuse finding).
def _json_field(kernel, name: str, key: str) -> str:
    obj = _fact(kernel, name)
    data = obj.to_json()
    for part in key.split("."):
        if not isinstance(data, dict) or part not in data:
            raise LookupError(f"no {name}.{key} fact")
        data = data[part]
    return "null" if data is None else _fmt(data)


for _key in ("kernel", "limit", "expression", "kernel_loads_only", "limit_loads_only", "hot_loop",
             "hot_loop_info.line", "hot_loop_info.trip_count", "flops", "flops_fp64",
             "global_accesses", "global_loads", "global_stores", "bytes_per_access", "precision"):
    def _make_cgma(key):
        @resolver("cgma." + key)
        def r(fa, kernel, line, args):
            return _json_field(kernel, "cgma", key)
        return r
    _make_cgma(_key)


for _key in ("device", "balance_cgma", "bound", "attainable_gflops", "peak_gflops", "word_bytes",
             "precision", "cgma"):
    def _make_roof(key):
        @resolver("roofline." + key)
        def r(fa, kernel, line, args):
            return _json_field(kernel, "roofline", key)
        return r
    _make_roof(_key)


@resolver("tiling")
def _tiling(fa, kernel, line, args):
    found = [t for t in _fact(kernel, "cgma").tiling if not args or t.array == args[0]]
    if not found:
        return "none"
    return ",".join(f"{'+'.join(t.dimensions)}:{t.reuse}" for t in found)


# ---- barriers and divergence (issue 6): facts of the `if` on the line --------------------------

def _warp_split(fa, kernel, line: int):
    ks = [kernel] if kernel is not None else list(fa.kernels)
    for k in ks:
        found = k.sync.divergence.at_line(line) if k.sync is not None else []
        if found:
            return found[0]
    raise LookupError(f"no `if` executed on line {line}")


@resolver("divergent_warps")
def _divergent_warps(fa, kernel, line, args):
    return _fmt(_warp_split(fa, kernel, line).warps_divergent)


@resolver("warps_at_branch")
def _warps_at_branch(fa, kernel, line, args):
    return _fmt(_warp_split(fa, kernel, line).warps_executing)


@resolver("barrier_intervals")
def _barrier_intervals(fa, kernel, line, args):
    return _fmt(len(kernel.sync.cfg.barrier_intervals()))


# ---- texture/surface accesses (issue 18): the memory behind the object, from the host code:
# `resource(tex)=pitch2D`, `allocation(tex)=cudaMallocPitch` (`none` when not shown).
@resolver("resource")
def _resource(fa, kernel, line, args):
    found = _access_on_line(fa, kernel, line, args)
    vals = {a.binding.resource if a.binding is not None else None for a in found}
    if len(vals) != 1:
        raise LookupError("accesses on this line differ")
    v = vals.pop()
    return "none" if v is None else v


@resolver("allocation")
def _allocation(fa, kernel, line, args):
    found = _access_on_line(fa, kernel, line, args)
    vals = {a.binding.allocation.call if a.binding is not None and a.binding.allocation is not None
            else None for a in found}
    if len(vals) != 1:
        raise LookupError("accesses on this line differ")
    v = vals.pop()
    return "none" if v is None else v
