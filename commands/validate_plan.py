"""What ``cudalint validate`` launches: buffer sizes, fill, scalar values (pure, no GPU).

Each pointer parameter gets a buffer large enough for every element the kernel can touch over
the **whole grid**: the byte offset of each of its accesses (``analyzer/accesses.py``'s symbolic
address, the same one the coalescing model uses) is bounded by interval arithmetic with

- ``threadIdx`` in ``[0, blockDim - 1]`` and ``blockIdx`` in ``[0, gridDim - 1]``,
- each loop's iteration number in ``[0, trip count - 1]``,
- kernel parameters at their ``--param`` / launch-site values (or the stated default).

Branch conditions (``if (i < n)``) are ignored, so a guarded access is sized for the grid: a
bound that is never too small. A counted loop's counter is bounded by its trip count, also for a
grid-stride loop (``for (i = tid; i < n; i += blockDim.x * gridDim.x)`` touches ``n`` elements).
Integer buffers are filled with random values in ``[0, smallest sized buffer)``; an offset that
depends on values read from a buffer the kernel never writes (a gather ``v[idx[i]]``, CSR row
bounds) is bounded with those values' range in a second pass. An offset that still cannot be
bounded is refused with the index and ``--size ARG=ELEMENTS`` to pass: the kernel is never run
with a buffer that may be too small. Floating-point buffers hold values in ``[0.5, 1.5)`` (never
zeros); bytes ``1..100``. The total is capped (``max_total_bytes``): buffers are bounded.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Optional
from ..analyzer.texture_calls import texture_refusal

__all__ = ["ArgSpec", "GlobalSpec", "LaunchPlan", "PlanError", "offset_bounds", "interval",
           "buffer_bounds", "build_plan", "numpy_dtype", "DEFAULT_MAX_TOTAL_BYTES", "DEFAULT_SCALAR"]

DEFAULT_MAX_TOTAL_BYTES = 8 << 30  # 8 GiB of buffers at most
SLACK_BYTES = 256  # past the last element, like the ground-truth harness
ALIGN = 256
DEFAULT_SCALAR = 1024  # the static analysis' default for a parameter with no value


class PlanError(Exception):
    """The kernel cannot be launched safely as asked (usage error, exit 2)."""


@dataclass
class ArgSpec:
    name: str
    kind: str  # buffer | scalar
    ctype: str  # the C spelling
    dtype: str  # numpy dtype name of one component
    components: int = 1  # per element: 4 for float4, bytes for a struct
    elements: int = 0  # buffer: elements of ctype's pointee
    front_pad: int = 0  # buffer: elements before the pointer (negative offsets)
    fill: str = "float"  # float | int | bytes | bool | none
    int_range: Optional[tuple[int, int]] = None
    value: Optional[float] = None  # scalar
    source: str = ""  # where the size/value comes from
    elem_bytes: int = 0
    read: bool = False
    written: bool = False
    fields: list = field(default_factory=list)  # struct: [{"name", "offset", "dtype", "value"|"buffer"}]
    member_of: str = ""  # buffer of a pointer field of a struct passed by value

    @property
    def bytes(self) -> int:
        return (self.elements + self.front_pad) * self.elem_bytes + (SLACK_BYTES if self.kind == "buffer" else 0)

    def to_job(self) -> dict:
        d = {"name": self.name, "kind": self.kind, "ctype": self.ctype, "dtype": self.dtype}
        if self.member_of:
            d["member_of"] = self.member_of
        if self.kind == "struct":
            d.update(size=self.elem_bytes, fields=list(self.fields))
            return d
        if self.kind == "buffer":
            d.update(count=(self.elements + self.front_pad) * self.components + math.ceil(SLACK_BYTES / max(1, self.elem_bytes // self.components)),
                     offset=self.front_pad * self.components, fill=self.fill,
                     int_range=list(self.int_range) if self.int_range else None)
        else:
            d["value"] = self.value
        return d

    def to_json(self) -> dict:
        d = {"name": self.name, "kind": self.kind, "type": self.ctype}
        if self.kind == "buffer":
            d.update(elements=self.elements, bytes=self.bytes, fill=self.fill, source=self.source,
                     read=self.read, written=self.written)
            if self.front_pad:
                d["front_pad_elements"] = self.front_pad
            if self.int_range:
                d["int_range"] = list(self.int_range)
        elif self.kind == "struct":
            d.update(bytes=self.elem_bytes, fields=list(self.fields), source=self.source)
        else:
            d.update(value=self.value, source=self.source)
        return d


@dataclass
class GlobalSpec:
    """A file-scope ``__device__``/``__constant__`` variable without an initialiser: filled
    with random data like the buffers."""

    name: str
    dtype: str
    count: int
    fill: str
    int_range: Optional[tuple[int, int]] = None

    def to_job(self) -> dict:
        return {"name": self.name, "dtype": self.dtype, "count": self.count, "fill": self.fill,
                "int_range": list(self.int_range) if self.int_range else None}


@dataclass
class LaunchPlan:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    dynamic_smem: int
    args: list[ArgSpec]
    globals: list[GlobalSpec] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)

    @property
    def total_bytes(self) -> int:
        return sum(a.bytes for a in self.args if a.kind == "buffer")

    def to_job(self) -> dict:
        return {"grid": list(self.grid), "block": list(self.block), "dynamic_smem": self.dynamic_smem,
                "args": [a.to_job() for a in self.args], "globals": [g.to_job() for g in self.globals]}

    def to_json(self) -> dict:
        return {"grid": list(self.grid), "block": list(self.block), "dynamic_smem": self.dynamic_smem,
                "arguments": [a.to_json() for a in self.args], "total_buffer_bytes": self.total_bytes}


# --------------------------------------------------------------------------- types

_VEC = re.compile(r"^(u?char|u?short|u?int|u?long|u?longlong|float|double|half|__half|__nv_bfloat16)([1-4])$")
_VEC_BASE = {"char": "int8", "uchar": "uint8", "short": "int16", "ushort": "uint16", "int": "int32",
             "uint": "uint32", "long": "int64", "ulong": "uint64", "longlong": "int64",
             "ulonglong": "uint64", "float": "float32", "double": "float64", "half": "float16",
             "__half": "float16", "__nv_bfloat16": "uint16"}


def _base_spelling(spelling: str) -> str:
    s = re.sub(r"\b(const|volatile|__restrict__|restrict|__restrict|struct|enum)\b", " ", spelling)
    s = s.replace("*", " ").replace("&", " ")
    s = " ".join(s.split())
    s = s.split("::")[-1]
    return s


def numpy_dtype(t) -> tuple[Optional[str], int, str]:
    """(numpy dtype of one component, components per element, fill kind) for a CType, or
    (None, 0, why) when it cannot be made from random data."""
    if t is None:
        return None, 0, "unknown type"
    s = _base_spelling(t.spelling)
    size = t.size
    if t.kind == "vector":
        m = _VEC.match(s)
        base = _VEC_BASE.get(m.group(1)) if m else ("float32" if t.is_float else "int32")
        lanes = t.lanes or (int(m.group(2)) if m else 1)
        kind = "float" if base.startswith("float") else "int"
        return base, lanes, kind
    if t.kind == "scalar":
        if s in ("bool", "_Bool"):
            return "bool", 1, "bool"
        if t.is_float or s in ("float", "double", "half", "__half", "__nv_bfloat16", "long double"):
            if s == "__nv_bfloat16":
                return "uint16", 1, "bytes"  # random bit patterns are not all finite; keep it simple
            return {2: "float16", 4: "float32", 8: "float64"}.get(size or 4, "float32"), 1, "float"
        unsigned = "unsigned" in s or s.startswith("u") or s in ("size_t", "uintptr_t")
        bits = 8 * (size or 4)
        if bits not in (8, 16, 32, 64):
            return None, 0, f"unsupported scalar `{t.spelling}`"
        return ("uint" if unsigned else "int") + str(bits), 1, "int"
    if t.kind in ("record", "void", "unknown") and size:
        return "uint8", size, "bytes"
    if t.kind == "void":
        return "uint8", 1, "bytes"
    if t.kind == "pointer":
        return None, 0, f"pointer to pointer `{t.spelling}` (buffers of pointers cannot be made up)"
    if t.kind == "array" and size:
        return "uint8", size, "bytes"
    return None, 0, f"type `{t.spelling}` of unknown size"


# --------------------------------------------------------------------------- intervals


def interval(e, env: dict):
    """(lo, hi) of the sympy expression ``e`` when each symbol ranges over ``env[symbol]``
    (a (lo, hi) pair), or None when it cannot be bounded (data-dependent, opaque, unknown)."""
    import sympy as sp

    from ..analyzer import symbolic as S

    def iv(x):
        if isinstance(x, (int, float)):
            return (x, x)
        if x.is_Number:
            v = float(x) if not x.is_Integer else int(x)
            return (v, v)
        if x.is_Symbol:
            return env.get(x)
        if isinstance(x, S.MemLoad):
            # a value read from a buffer whose contents the plan chose (see build_plan)
            return env.get(("memload", str(x.args[0])))
        if isinstance(x, S.Opaque):
            return None
        if x.is_Add:
            lo = hi = 0
            for a in x.args:
                r = iv(a)
                if r is None:
                    return None
                lo, hi = lo + r[0], hi + r[1]
            return (lo, hi)
        if x.is_Mul:
            lo = hi = 1
            for a in x.args:
                r = iv(a)
                if r is None:
                    return None
                cands = [lo * r[0], lo * r[1], hi * r[0], hi * r[1]]
                lo, hi = min(cands), max(cands)
            return (lo, hi)
        if x.is_Pow:
            b, p = iv(x.base), x.exp
            if b is not None and p == -1 and b[0] > 0:  # a division by a positive quantity
                return (1 / b[1], 1 / b[0])
            if b is None or not p.is_Integer or int(p) < 0:
                return None
            k = int(p)
            cands = [b[0] ** k, b[1] ** k]
            lo = 0 if (k % 2 == 0 and b[0] <= 0 <= b[1]) else min(cands)
            return (lo, max(cands))
        if isinstance(x, sp.Mod):
            a, m = iv(x.args[0]), iv(x.args[1])
            if m is None or m[0] != m[1] or m[0] <= 0:
                return None if a is None else (min(a[0], 0), max(a[1], 0))
            mm = m[0]
            if a is not None and 0 <= a[0] and a[1] < mm:
                return a
            if a is not None and a[0] >= 0:
                return (0, mm - 1)
            return (-(mm - 1), mm - 1)
        if isinstance(x, (sp.floor, sp.ceiling)):
            a = iv(x.args[0])
            if a is None:
                return None
            f = math.floor if isinstance(x, sp.floor) else math.ceil
            return (f(a[0]), f(a[1]))
        if isinstance(x, (sp.Min, sp.Max)):
            rs = [iv(a) for a in x.args]
            if isinstance(x, sp.Min):
                known = [r for r in rs if r is not None]
                if not known:
                    return None
                # min is at most any known operand's hi; its lo needs every operand
                hi = min(r[1] for r in known)
                lo = min(r[0] for r in rs) if all(r is not None for r in rs) else None
                return None if lo is None else (lo, hi)
            if any(r is None for r in rs):
                return None
            return (max(r[0] for r in rs), max(r[1] for r in rs))
        if isinstance(x, sp.Abs):
            a = iv(x.args[0])
            if a is None:
                return None
            if a[0] >= 0:
                return a
            return (0 if a[1] >= 0 else -a[1], max(-a[0], a[1]))
        if isinstance(x, S.BitAnd):
            a, b = iv(x.args[0]), iv(x.args[1])
            nonneg = [r for r in (a, b) if r is not None and r[0] >= 0]
            if nonneg:
                return (0, min(r[1] for r in nonneg))
            return None
        if isinstance(x, (S.BitOr, S.BitXor)):
            a, b = iv(x.args[0]), iv(x.args[1])
            if a is None or b is None or a[0] < 0 or b[0] < 0:
                return None
            top = (1 << int(max(a[1], b[1])).bit_length()) - 1
            return (0, top)
        if isinstance(x, S.ShiftLeft):
            a, k = iv(x.args[0]), iv(x.args[1])
            if a is None or k is None or k[0] != k[1] or k[0] < 0:
                return None
            return (a[0] * 2 ** int(k[0]), a[1] * 2 ** int(k[0]))
        if isinstance(x, S.ShiftRight):
            a, k = iv(x.args[0]), iv(x.args[1])
            if a is None or k is None or k[0] != k[1] or k[0] < 0:
                return None
            d = 2 ** int(k[0])
            return (math.floor(a[0] / d), math.floor(a[1] / d))
        if isinstance(x, sp.Piecewise):
            rs = [iv(a.expr) for a in x.args]
            if any(r is None for r in rs):
                return None
            return (min(r[0] for r in rs), max(r[1] for r in rs))
        if isinstance(x, (sp.Rational,)):
            return (float(x), float(x))
        return None

    try:
        return iv(e)
    except (TypeError, ValueError, OverflowError, RecursionError, AttributeError):
        return None


def symbol_ranges(syms, bindings, block, grid, params: Optional[dict] = None) -> tuple[dict, list[str]]:
    """Ranges of every symbol of one kernel's analysis over the whole grid (see module doc)."""
    from ..analyzer import symbolic as S

    env: dict = {}
    notes: list[str] = []
    params = params or {}
    for s, info in syms.info.items():
        k = info.kind
        if k == S.THREAD:
            env[s] = (0, block["xyz".index(info.component or "x")] - 1)
        elif k == S.BLOCK:
            env[s] = (0, grid["xyz".index(info.component or "x")] - 1)
        elif k == S.BLOCKDIM:
            v = block["xyz".index(info.component or "x")]
            env[s] = (v, v)
        elif k == S.GRIDDIM:
            v = grid["xyz".index(info.component or "x")]
            env[s] = (v, v)
        elif k in (S.PARAM, S.TEMPLATE):
            name = info.var.name if info.var is not None else info.name
            v = None
            if name in params:
                v = params[name]
            elif s in bindings.values and bindings.values[s].is_number:
                v = bindings.values[s]
            elif s in bindings.defaults:
                v = bindings.defaults[s]
            if v is not None:
                v = float(v) if not float(v).is_integer() else int(v)
                env[s] = (v, v)
    _iteration_ranges(syms, env)
    return env, notes


def _iteration_ranges(syms, env: dict) -> None:
    """Loop counters: [0, trip - 1], trips evaluated with the ranges found so far (outer loops
    may appear in inner trip counts: repeat a few times)."""
    from ..analyzer import symbolic as S

    iters = [(s, info) for s, info in syms.info.items() if info.kind == S.ITER]
    for _ in range(4):
        changed = False
        for s, info in iters:
            if info.trip is None:
                continue
            r = interval(info.trip, env)
            if r is None:
                continue
            rng = (0, max(0, math.ceil(r[1]) - 1))
            if env.get(s) != rng:
                env[s] = rng
                changed = True
        if not changed:
            break


@dataclass
class BufferBound:
    """Bytes of one pointer parameter's buffer that the kernel can touch."""

    name: str
    lo: Optional[float] = None  # lowest byte offset (negative: before the pointer)
    hi: Optional[float] = None  # one past the highest byte
    bounded: bool = True
    accesses: int = 0
    loads: int = 0
    stores: int = 0
    why: str = ""


def offset_bounds(offset, elem_bytes: int, env: dict) -> Optional[tuple[float, float]]:
    """[lowest byte, one past the highest byte] one access can touch, or None."""
    r = interval(offset, env)
    if r is None:
        return None
    return (r[0], r[1] + (elem_bytes or 1))


def buffer_bounds(kf, params: Optional[dict] = None, load_ranges: Optional[dict] = None) -> dict[str, BufferBound]:
    """Per pointer parameter of the kernel: the byte range its accesses can touch over the grid.
    ``load_ranges``: {buffer name: (lo, hi)} of the values the kernel reads from that buffer
    (indices read from memory: a gather, CSR row bounds)."""
    tab = kf.accesses
    out: dict[str, BufferBound] = {}
    for p in kf.function.params:
        if p.type.kind == "pointer":
            out[p.name] = BufferBound(p.name)
    if tab is None or getattr(tab, "evaluator", None) is None:
        for b in out.values():
            b.bounded, b.why = False, "accesses not analysed"
        return out
    ev = tab.evaluator
    grid = kf.launch.grid or (1, 1, 1)
    env, _ = symbol_ranges(ev.syms, ev.b, tuple(kf.launch.block), tuple(grid), params)
    if load_ranges:
        env.update({("memload", k): v for k, v in load_ranges.items()})
        _iteration_ranges(ev.syms, env)  # trip counts may read memory (CSR row bounds)
    by_var = {id(p): p.name for p in kf.function.params if p.type.kind == "pointer"}
    for a in tab.accesses:  # p.x of a struct p passed by value: a buffer of its own
        v = a.variable
        if v is not None and v.storage == "param" and "." in v.name and id(v) not in by_var:
            by_var[id(v)] = v.name
            out.setdefault(v.name, BufferBound(v.name))
    for a in tab.accesses:
        var = a.variable
        name = by_var.get(id(var)) if var is not None else None
        if name is None:
            continue
        b = out[name]
        b.accesses += 1
        b.loads += a.kind == "load"
        b.stores += a.kind == "store"
        ev_ = a.event
        if ev_ is None:
            b.bounded, b.why = False, "access without an address"
            continue
        r = offset_bounds(ev_.offset, a.element_bytes or 1, env)
        if r is None:
            b.bounded = False
            b.why = (f"index `{a.index}` at line {a.line} depends on data read from memory"
                     if a.pattern == "data-dependent" else f"index `{a.index}` at line {a.line} cannot be bounded")
            continue
        b.lo = r[0] if b.lo is None else min(b.lo, r[0])
        b.hi = r[1] if b.hi is None else max(b.hi, r[1])
    return out


# --------------------------------------------------------------------------- the plan


def _scalar_value(p, params: dict, launch) -> tuple[float, str]:
    if p.name in params:
        return params[p.name], "--param"
    pv = getattr(launch, "param_values", {}) or {}
    if p.name in pv and isinstance(pv[p.name], (int, float)) and not isinstance(pv[p.name], bool):
        line = launch.site.range.line if getattr(launch, "site", None) is not None else "?"
        return pv[p.name], f"launch site (line {line})"
    if p.type.is_float:
        return 1.0, "default (no value given; pass --param)"
    return DEFAULT_SCALAR, f"default {DEFAULT_SCALAR} (no value given; pass --param), as the static analysis assumed"


def build_plan(kf, params: Optional[dict] = None, sizes: Optional[dict] = None,
               max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES, globals_: Optional[list] = None,
               struct_layouts: Optional[dict] = None) -> LaunchPlan:
    """The launch of kernel facts ``kf``: grid, block, dynamic shared memory and every argument.

    ``params``: ``--param`` values; ``sizes``: ``--size ARG=ELEMENTS``; ``struct_layouts``:
    {parameter: (fields, bytes, why)} of structs passed by value (``validate_struct``). Raises
    PlanError when the kernel cannot be run safely (unknown grid, pointer to pointer, an index
    that cannot be bounded, buffers over the cap)."""
    params = dict(params or {})
    sizes = dict(sizes or {})
    launch = kf.launch
    why = texture_refusal(kf.function)
    if why:
        raise PlanError(why)
    if launch.grid is None:
        raise PlanError("the grid is not known (no launch site with a constant grid): pass --grid X[,Y[,Z]]")
    block, grid = tuple(launch.block), tuple(launch.grid)
    threads = block[0] * block[1] * block[2]
    total_threads = threads * grid[0] * grid[1] * grid[2]
    layouts = dict(struct_layouts or {})
    names = {p.name for p in kf.function.params}
    names |= {f"{k}.{f.name}" for k, (fs, _, _) in layouts.items() for f in (fs or ())}
    for k in list(sizes) + list(params):
        if k not in names:
            raise PlanError(f"`{k}` is not a parameter of {kf.name} (parameters: {', '.join(p.name for p in kf.function.params) or 'none'})")
    assumptions: list[str] = []
    if launch.source == "default":
        assumptions.append("block of 256 threads assumed (no launch configuration found; pass --block)")
    bounds = buffer_bounds(kf, params)
    args: list[ArgSpec] = []
    pending_fallback: list[ArgSpec] = []
    for p in kf.function.params:
        t = p.type
        if t.kind == "pointer":
            dt, comps, fill = numpy_dtype(t.element)
            if dt is None:
                raise PlanError(f"parameter `{p.name}`: {fill}")
            elem_bytes = (t.element.size if t.element is not None and t.element.size else
                          _dtype_bytes(dt) * comps)
            a = ArgSpec(p.name, "buffer", t.spelling, dt, comps, fill=fill, elem_bytes=elem_bytes)
            _size_buffer(a, bounds.get(p.name), sizes, pending_fallback, assumptions)
            args.append(a)
        elif t.kind == "record" and p.name in layouts:
            args.extend(_struct_args(p, layouts[p.name], params, bounds, sizes, pending_fallback, assumptions))
        elif t.kind in ("scalar", "vector") or (t.kind == "unknown" and t.size):
            dt, comps, fill = numpy_dtype(t)
            if dt is None or comps != 1:
                raise PlanError(f"parameter `{p.name}` of type `{t.spelling}` cannot be passed by value yet")
            v, src = _scalar_value(p, params, launch)
            if fill == "int" and isinstance(v, float) and not v.is_integer():
                raise PlanError(f"--param {p.name}: `{t.spelling}` needs an integer (got {v})")
            a = ArgSpec(p.name, "scalar", t.spelling, dt, value=v, source=src, fill="none",
                        elem_bytes=_dtype_bytes(dt))
            if src.startswith("default"):
                assumptions.append(f"{p.name} = {v}: {src}")
            args.append(a)
        else:
            raise PlanError(f"parameter `{p.name}` of type `{t.spelling}` cannot be passed by value yet")
    # Integer buffers hold random values in [0, smallest sized buffer): an index read from one
    # (a gather, CSR row bounds) then has a known range, and the buffers it indexes are sized
    # for it in a second pass. What is still unbounded is refused, never guessed.
    buf_elems = [a.elements for a in args if a.kind == "buffer" and a.elements  # (pending: 0)
                 and a.source != "not accessed by the kernel"]
    smallest = min(buf_elems) if buf_elems else max(1, total_threads)
    for a in args:
        if a.kind == "buffer" and a.fill == "int" and a.int_range is None:
            a.int_range = (0, max(1, min(smallest, _int_max(a.dtype) + 1)))
    if pending_fallback:
        ranges = _load_ranges(args, bounds)
        again = buffer_bounds(kf, params, ranges)
        for a in pending_fallback:
            b = again.get(a.name)
            if b is None or not b.bounded or b.hi is None:
                why = (b.why if b is not None and b.why else a.source.split("(", 1)[1].rstrip(")"))
                raise PlanError(f"cannot size the buffer of `{a.name}`: {why.split('; pass')[0]}; the kernel "
                                f"could read or write past any size chosen here: pass --size {a.name}=ELEMENTS")
            a.elements = max(1, math.ceil(b.hi / a.elem_bytes))
            if b.lo is not None and b.lo < 0:
                a.front_pad = math.ceil(math.ceil(-b.lo / ALIGN) * ALIGN / a.elem_bytes)
            src = ", ".join(f"`{k}` in [{lo}, {hi}]" for k, (lo, hi) in sorted(ranges.items())
                            if any(x.name == k and x.fill != "float" for x in args))
            a.source = f"index analysis over the whole grid, with the values read from {src}"
    if any(a.kind == "buffer" and a.fill == "int" for a in args):
        assumptions.append(f"integer buffers hold random values in [0, {smallest}) so that indices read "
                           "from them stay inside every buffer")
    for g in globals_ or []:
        if g.fill == "int" and g.int_range is None:
            g.int_range = (0, max(1, min(smallest, _int_max(g.dtype) + 1)))
    plan = LaunchPlan(grid, block, launch.dynamic_smem or 0, args, list(globals_ or []), assumptions)
    if plan.total_bytes > max_total_bytes:
        raise PlanError(f"the buffers would take {plan.total_bytes / 2**20:.0f} MiB, over the limit of "
                        f"{max_total_bytes / 2**20:.0f} MiB: pass --size ARG=ELEMENTS or a smaller --grid/--param")
    return plan


def _size_buffer(a: ArgSpec, b: Optional[BufferBound], sizes: dict, pending: list, assumptions: list) -> None:
    """Elements of buffer ``a`` from ``--size``, else its accesses' bounds (or pending: sized
    in build_plan's second pass, or refused)."""
    if b is not None:
        a.read, a.written = b.loads > 0, b.stores > 0
    if a.name in sizes:
        a.elements = int(sizes[a.name])
        a.source = "--size"
    elif b is None or b.accesses == 0:
        a.elements = max(1, math.ceil(ALIGN / a.elem_bytes))
        a.source = "not accessed by the kernel"
    elif b.bounded and b.hi is not None:
        a.elements = max(1, math.ceil(b.hi / a.elem_bytes))
        if b.lo is not None and b.lo < 0:
            pad_bytes = math.ceil(-b.lo / ALIGN) * ALIGN
            a.front_pad = math.ceil(pad_bytes / a.elem_bytes)
            assumptions.append(f"`{a.name}` is indexed up to {int(-b.lo)} bytes before the pointer: "
                               f"{pad_bytes} bytes allocated in front")
        a.source = "index analysis over the whole grid"
    else:
        a.source = f"fallback ({b.why}; pass --size {a.name}=N)"
        pending.append(a)
    if a.fill == "bool":
        a.int_range = (0, 2)


def _struct_args(p, layout, params: dict, bounds: dict, sizes: dict, pending: list, assumptions: list) -> list:
    """A struct passed by value: its bytes (pointer fields pointing at buffers of their own,
    named ``p.field``, scalar fields from --param or the default), then those buffers."""
    fields, size, why = layout
    if fields is None:
        raise PlanError(f"parameter `{p.name}` of type `{p.type.spelling}`: {why}")
    out: list = []
    desc: list = []
    for f in fields:
        full = f"{p.name}.{f.name}"
        if f.kind == "pointer":
            if f.is_float:
                dt, fill = {2: "float16", 8: "float64"}.get(f.pointee_size, "float32"), "float"
            elif f.pointee_size in (1, 2, 4, 8) and "struct" not in f.pointee and "*" not in f.pointee:
                dt, fill = ("uint" if f.pointee.startswith("unsigned") else "int") + str(8 * f.pointee_size), "int"
            else:
                dt, fill = "uint8", "bytes"
            comps = f.pointee_size if fill == "bytes" else 1
            a = ArgSpec(full, "buffer", f"{f.pointee} *", dt, comps, fill=fill, elem_bytes=f.pointee_size)
            _size_buffer(a, bounds.get(full), sizes, pending, assumptions)
            a.member_of = p.name
            out.append(a)
            desc.append({"name": f.name, "offset": f.offset, "dtype": "uint64", "buffer": full})
        elif f.kind == "scalar":
            if full in params:
                v, src = params[full], "--param"
            else:
                v, src = (1.0, "default") if f.is_float else (DEFAULT_SCALAR, "default")
                assumptions.append(f"{full} = {v}: default (no value given; pass --param {full}=V)")
            desc.append({"name": f.name, "offset": f.offset, "dtype": f.dtype, "value": v, "source": src})
        else:
            desc.append({"name": f.name, "offset": f.offset, "dtype": f"V{f.size}", "zero": True})
            assumptions.append(f"{full}: {f.size} bytes of zeros (a nested aggregate is not filled)")
    s = ArgSpec(p.name, "struct", p.type.spelling, "void", fill="none", elem_bytes=size, fields=desc,
                source="by value, layout from clang")
    return [s] + out


def _load_ranges(args: list, bounds: dict) -> dict:
    """{buffer: (lo, hi)} of the values the kernel can read from buffers it never writes (their
    contents are the plan's random fill): integers in ``int_range``, booleans 0..1, bytes 1..100,
    floats (a cast to int) 0..1."""
    out = {}
    for a in args:
        b = bounds.get(a.name)
        if a.kind != "buffer" or b is None or b.stores:
            continue
        if a.fill in ("int", "bool") and a.int_range:
            out[a.name] = (a.int_range[0], a.int_range[1] - 1)
        elif a.fill == "bytes":
            out[a.name] = (1, 100)
        elif a.fill == "float":
            out[a.name] = (0, 1)
    return out


def _dtype_bytes(dt: str) -> int:
    if dt == "bool":
        return 1
    m = re.search(r"(\d+)$", dt)
    return int(m.group(1)) // 8 if m else 1


def _int_max(dt: str) -> int:
    bits = _dtype_bytes(dt) * 8
    return (1 << (bits - 1)) - 1 if dt.startswith("int") else (1 << bits) - 1


def device_globals(kf, source_text: str) -> list[GlobalSpec]:
    """File-scope ``__device__``/``__constant__`` variables the kernel uses that have no
    initialiser in the source: filled with random data (never zeros) before the launch."""
    out: list[GlobalSpec] = []
    lines = source_text.splitlines()
    seen = set()
    funcs, stack = [], [kf.function]
    while stack:
        f = stack.pop()
        if any(f is g for g in funcs):
            continue
        funcs.append(f)
        stack.extend(getattr(f, "callees", []) or [])
    for v in [v for f in funcs for v in (getattr(f, "globals_used", []) or [])]:
        if v.storage not in ("device", "constant") or v.name in seen:
            continue
        seen.add(v.name)
        ln = v.range.line
        decl = " ".join(lines[ln - 1:max(ln, v.range.end_line)]) if 0 < ln <= len(lines) else ""
        if re.search(r"\b" + re.escape(v.name) + r"\b[^;]*=", decl):
            continue  # initialised in the source: keep its values
        t = v.type
        elem = t.innermost_element() if t.kind == "array" else t
        dt, comps, fill = numpy_dtype(elem)
        if dt is None or not t.size or not elem.size:
            continue
        count = (t.size // elem.size) * comps
        out.append(GlobalSpec(v.name, dt, count, fill, (0, 2) if fill == "bool" else None))
    return out
