"""Every memory access of a kernel, with its cost: the ``accesses[]`` facts of ``explain``.

For each global, shared, local and constant access (device functions the kernel calls are
inlined, so their accesses count too) this records the source location, the array, the
memory space, load or store (``a[i] += x`` is one of each), the element size, the index as a
sympy expression, and what one warp-level request costs:

- global and local: ``sectors_per_request`` and ``efficiency`` (``analyzer/coalescing.py``);
  local memory interleaves 4-byte words across the 32 lanes, so a thread's element ``i`` lives
  at ``(i * 32 + lane) * 4``: a constant index costs 4 sectors, a per-lane index up to 32;
- shared: ``wavefronts_per_request`` (``analyzer/banks.py``);
- a ``pattern`` (coalesced, misaligned, strided, broadcast, data-dependent, unknown) and the
  assumptions the numbers rest on (launch values, stated defaults, sampling).

The pipeline stores the result in ``KernelFacts.accesses``, an :class:`AccessTable`
(``to_json()`` -> list of dicts; ``reporters/explain_text.py`` renders it as text).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import sympy as sp

from . import ir, loops
from . import symbolic as S
from .banks import SharedCost, WarpSyncHazard, shared_cost, warp_sync_hazards
from .coalescing import GlobalCost, global_cost
from .constant_cache import constant_cost
from .display import user_text
from .lanes import AddressEvaluator, LaneModel
from .launch import default_reason
from .read_only_path import load_path
from .target import DEFAULT_ARCH, Target, load_target
from .texture_patterns import fill_access as fill_texture_access


@dataclass
class Access:
    line: int
    column: int
    end_line: int
    end_column: int
    array: str  # the name written in the source
    base: str  # the object it belongs to (`in` for `src[t]` with `src = in + ...`)
    space: str  # global | shared | local | constant | texture | surface
    kind: str  # load | store
    element_bytes: Optional[int]
    index: str
    pattern: str
    stride: Optional[int] = None
    sectors_per_request: Optional[float] = None
    efficiency: Optional[float] = None
    wavefronts_per_request: Optional[float] = None
    assumptions: list = field(default_factory=list)
    function: str = ""
    atomic: bool = False
    exact: bool = True  # no stated default or sampled value was needed
    why: str = ""  # for data-dependent/unknown: what makes it so
    # The request model (analyzer/requests.py): False when the compiler keeps the value in a
    # register; warp-level requests for the launch (None: unknown); requests per block, the
    # weight of the kernel-level averages; and why the count differs from the source.
    issued: bool = True
    requests: Optional[float] = None
    weight: Optional[float] = None
    request_note: str = ""
    # The load's data path when it is not the plain one: "read-only" (__ldg), "read-only
    # (compiler may choose)" (a const __restrict__ pointer), a cache hint (__ldcg, ...).
    path: str = ""
    # Texture and surface accesses (analyzer/texture_patterns.py, texture_bindings.py).
    footprint: Optional[tuple] = None  # texels along x, y, z one warp request spans
    texels_per_request: Optional[float] = None
    backing: str = ""  # the memory behind the object, where the host code shows it
    filter_mode: Optional[str] = None  # linear | point | None (not shown by the host code)
    binding: object = field(default=None, repr=False)  # texture_bindings.Binding
    # A global access's warps (lanes.WarpAddresses, evaluated for the kernel's block shape):
    # which bytes the lanes touch, for findings that look at several accesses together.
    warps: object = field(default=None, repr=False)
    # extras for rules (not serialised)
    contiguous_sectors: Optional[float] = None
    min_sectors: Optional[float] = None
    launch_assumed: bool = False
    ideal_sectors: Optional[float] = None
    ways: Optional[float] = None
    min_wavefronts: Optional[float] = None
    # the worst iteration's degree where the lanes that run a shared access change with a
    # loop's iteration (``ways`` is then the mean; requests.guarded_wavefronts)
    worst_ways: Optional[float] = None
    fused: int = 1  # loads of consecutive elements nvcc issues as one vector load (_fused_vector)
    # Of the requests counted, the share that moves data: below 1 where nvcc predicates a short
    # branch, so that warps whose lanes all fail its condition still issue the instruction
    # (requests.predicated); the counters scale this access's figure by it.
    moving_share: float = 1.0
    addresses_per_request: Optional[float] = None  # constant: distinct addresses a warp asks for
    # the launch passes the pointer into its allocation: (bytes, argument text, launch line)
    base_offset: Optional[tuple] = None
    event: Optional[S.AccessEvent] = field(default=None, repr=False)
    range: Optional[ir.SourceRange] = field(default=None, repr=False)
    variable: Optional[ir.Variable] = field(default=None, repr=False)
    cost: object = field(default=None, repr=False)

    def to_json(self) -> dict:
        d = {
            "line": self.line,
            "column": self.column,
            "array": self.array,
            "space": self.space,
            "kind": self.kind,
            "element_bytes": self.element_bytes,
            "index": self.index,
            "pattern": self.pattern,
            "stride": self.stride,
            "sectors_per_request": _round(self.sectors_per_request),
            "efficiency": _round(self.efficiency, 4),
            "wavefronts_per_request": _round(self.wavefronts_per_request),
            "issued": self.issued,
            "requests": self.requests,
            "assumptions": list(self.assumptions) + ([self.request_note] if self.request_note else []),
        }
        if self.base and self.base != self.array:
            d["base"] = self.base
        if self.function:
            d["function"] = self.function
        if self.atomic:
            d["atomic"] = True
        if self.moving_share != 1.0:
            d["moving_share"] = _round(self.moving_share, 4)
        if self.space == "constant":
            d["addresses_per_request"] = _round(self.addresses_per_request)
        if self.path:
            d["path"] = self.path
        if self.space in ("texture", "surface"):
            d["footprint"] = list(self.footprint) if self.footprint else None
            d["texels_per_request"] = _round(self.texels_per_request)
            d["backing"] = self.backing or None
            d["filter_mode"] = self.filter_mode
        return d


def _round(v, nd: int = 3):
    if v is None:
        return None
    r = round(float(v), nd)
    return int(r) if r.is_integer() else r


class PlainText(str):
    """A string that rich prints verbatim (index expressions contain ``[...]``)."""

    def __rich__(self):
        from rich.text import Text
        return Text(str(self))


class AccessTable:
    """The accesses of one kernel: ``to_json()`` is the DESIGN.md ``accesses[]`` list."""

    def __init__(self, accesses: list[Access], hazards: Optional[list[WarpSyncHazard]] = None,
                 kernel: str = "", evaluator: Optional[AddressEvaluator] = None, target: Optional[Target] = None,
                 error: str = ""):
        self.accesses = accesses
        self.error = error
        self.hazards = hazards or []
        self.kernel = kernel
        self.evaluator = evaluator
        self.target = target
        self.notes: list[str] = []  # about the table as a whole (e.g. calls not inlined)

    def __iter__(self):
        return iter(self.accesses)

    def __len__(self):
        return len(self.accesses)

    def __getitem__(self, i):
        return self.accesses[i]

    def to_json(self) -> list:
        return [a.to_json() for a in self.accesses]

# --------------------------------------------------------------------------- analysis


def _space_map(variables) -> dict:
    out = {}
    for v in variables or []:
        if v.variable is not None:
            out[v.variable] = v.memory
    return out


def _space_of_factory(variables):
    known = _space_map(variables)

    def space_of(var: ir.Variable) -> str:
        m = known.get(var)
        if m is not None:
            return m
        if var.storage in ("shared", "extern_shared"):
            return "shared"
        if var.storage == "constant":
            return "constant"
        if var.storage in ("device", "managed", "static", "host"):
            return "global"
        if var.storage == "param":
            return "global"
        return "local"
    return space_of


def _local_address(offset: sp.Expr, syms: S.Symbols, block: tuple) -> sp.Expr:
    """Local memory: 4-byte word ``w`` of a thread's frame sits at ``(w * 32 + lane) * 4``."""
    t = syms.thread
    bx, by, _ = block
    linear = t["x"] + bx * t["y"] + bx * by * t["z"]
    lane = sp.Mod(linear, 32)
    return sp.floor(offset / 4) * 128 + 4 * lane + sp.Mod(offset, 4)


def analyze_accesses(kernel: ir.Function, launch, variables=None, target: "Target | str" = DEFAULT_ARCH,
                     params: Optional[dict] = None, requests: bool = True) -> AccessTable:
    """Collect and cost every memory access of ``kernel`` for ``launch`` (a LaunchConfig) on
    ``target`` (the pipeline passes its Target; an arch spelling is accepted for scripts).
    Without ``requests`` the accesses' request counts (``requests``, ``weight``) are left
    unknown: only the predicted counters read them."""
    target = load_target(target)
    walker = S.Walker(kernel, _space_of_factory(variables)).run()
    syms = walker.syms
    bindings = S.make_bindings(syms, launch, params)
    block = tuple(launch.block) if launch is not None else (256, 1, 1)
    model = LaneModel(block, target.warp_size or 32)
    ev = AddressEvaluator(syms, model, bindings)
    launch_note = None
    if launch is not None and launch.source in ("default", "launch-bounds"):
        launch_note = (f"block {'x'.join(map(str, block))} "
                       + (f"assumed ({default_reason(launch)})" if launch.source == "default"
                          else "from __launch_bounds__"))
    out: list[Access] = []
    # loops that store to shared memory: their loads may not be fused (a store may alias one)
    stored = frozenset(id(li.loop) for x in walker.events if x.kind == "store" and x.space == "shared"
                       for li in x.loops)
    offsets = getattr(launch, "param_offsets", None) or {}
    for e in walker.events:
        out.append(_make_access(e, ev, target, syms, bindings, block, kernel, launch_note, stored,
                                offsets))
    hazards = warp_sync_hazards(walker.events, ev, independent_threads=target.major >= 7)
    table = AccessTable(out, hazards, kernel.display_name, ev, target)
    table.notes = list(walker.notes)
    from .requests import annotate
    annotate(table, launch, counts=requests)
    return table


def _make_access(e: S.AccessEvent, ev: AddressEvaluator, target: Target, syms: S.Symbols,
                 bindings: S.Bindings, block: tuple, kernel: ir.Function,
                 launch_note: Optional[str], stored_loops: frozenset = frozenset(),
                 offsets: Optional[dict] = None) -> Access:
    r = e.node.range
    space = e.space
    notes: list[str] = []
    if space == "unknown":
        space = "global"
        notes.append("pointer of unknown origin; assumed to point to global memory")
    A = Access(line=r.line, column=r.column, end_line=r.end_line, end_column=r.end_column,
               array=e.name or e.array, base=e.pointer.name or e.name, space=space, kind=e.kind,
               element_bytes=e.elem_bytes, index=_index_text(e, syms, bindings), pattern="unknown",
               function="" if e.function is kernel else e.function.display_name,
               atomic=e.atomic, event=e, range=r, variable=e.pointer.base)
    if space in ("global", "local", "shared"):
        addr = e.offset if space != "local" else _local_address(e.offset, syms, block)
        base = e.pointer.base
        off = (offsets or {}).get(base.name) if space == "global" and base is not None and \
            base.storage == "param" and base in kernel.params else None
        if off is not None and isinstance(addr, sp.Basic):
            # the launch passes the buffer's pointer moved by a constant (`d_in + RADIUS`): the
            # kernel's addresses are that far from the buffer's 256-byte alignment
            addr = addr + off[0]
            A.base_offset = off
            notes.append(f"`{base.name}` points {off[0]} bytes past `{off[1]}` at the launch at line "
                         f"{off[2]} (buffers assumed 256-byte aligned)")
        wa = ev.evaluate(addr, e.path)
        parts = _request_parts(e.elem, e.elem_bytes)
        if len(parts) > 1:
            notes.append(f"a {e.elem_bytes}-byte `{e.elem.spelling}` is moved as {len(parts)} separate "
                         f"{parts[0][1]}-byte requests; the figures are per request")
        if space == "shared":
            banks, width = target.shared_memory_banks or 32, target.bank_width_bytes or 4
            fused = _fused_vector(e, syms, bindings, stored_loops) if len(parts) == 1 else None
            if fused is not None:
                addr, vec = fused
                wa = ev.evaluate(addr, e.path)
                A.fused = vec // e.elem_bytes
                notes.append(f"nvcc fuses the {A.fused} loads of consecutive elements of the unrolled "
                             f"loop at line {e.loops[-1].loop.range.line} into one {vec * 8}-bit "
                             f"load (LDS.{vec * 8}); the figures are per {vec * 8}-bit request")
            c: SharedCost = shared_cost(wa, fused[1] if fused else e.elem_bytes, banks, width)
            if len(parts) > 1 and c.wavefronts_per_request is not None:
                pcs = [shared_cost(ev.evaluate(addr + o, e.path), b, banks, width) for o, b in parts]
                if all(x.wavefronts_per_request is not None for x in pcs):
                    c.wavefronts_per_request = sum(x.wavefronts_per_request for x in pcs) / len(pcs)
                    c.min_wavefronts = sum(x.min_wavefronts for x in pcs) / len(pcs)
                    c.ways = c.wavefronts_per_request / c.min_wavefronts
            A.wavefronts_per_request = c.wavefronts_per_request
            A.ways = c.ways
            A.min_wavefronts = c.min_wavefronts
        else:
            cached = {"ca": True, "cg": False}.get(e.cache) if space == "global" else None
            if space == "global":
                A.warps = wa
            c: GlobalCost = global_cost(wa, e.elem_bytes, target.cc_tuple, e.kind, cached)
            if len(parts) > 1 and c.sectors_per_request is not None:
                pcs = [global_cost(ev.evaluate(addr + o, e.path), b, target.cc_tuple, e.kind, cached)
                       for o, b in parts]
                if all(x.sectors_per_request is not None for x in pcs):
                    n = len(pcs)
                    needed = sum(x.efficiency * x.sectors_per_request for x in pcs)
                    fetched = sum(x.sectors_per_request for x in pcs)
                    c.sectors_per_request = fetched / n
                    c.efficiency = needed / fetched if fetched else None
                    c.contiguous_sectors = sum(x.contiguous_sectors for x in pcs) / n
                    c.min_sectors = sum(x.min_sectors for x in pcs) / n
                    c.ideal_sectors = sum(x.ideal_sectors for x in pcs) / n
            A.sectors_per_request = c.sectors_per_request
            A.efficiency = c.efficiency
            A.contiguous_sectors = c.contiguous_sectors
            A.min_sectors = c.min_sectors
            A.ideal_sectors = c.ideal_sectors
        A.pattern = c.pattern
        A.stride = c.stride
        if space == "local" and c.pattern not in ("data-dependent", "unknown"):
            # The interleaved layout hides the per-thread index: describe that instead.
            raw = global_cost(ev.evaluate(e.offset, e.path), e.elem_bytes, target.cc_tuple, e.kind)
            if raw.pattern == "broadcast" or (raw.active_lanes == 1):
                A.pattern, A.stride = "coalesced", None
            elif raw.pattern not in ("data-dependent", "unknown") and c.pattern != "coalesced":
                A.pattern = "strided"
                A.stride = raw.stride
        A.exact = c.exact
        A.why = c.why
        A.cost = c
        notes.extend(n for n in c.notes if n not in notes)
    elif space in ("texture", "surface") and e.texture is not None:
        fill_texture_access(A, e, ev, bindings, syms)
        notes.extend(n for n in A.assumptions if n not in notes)
    elif space == "constant":
        wa = ev.evaluate(e.offset, e.path)
        cc = constant_cost(wa, e.elem_bytes)
        A.pattern = cc.pattern  # broadcast or divergent: "coalesced" means nothing here
        A.addresses_per_request = cc.addresses_per_request
        A.why = cc.why
        A.exact = cc.exact
        A.cost = cc
        notes.extend(n for n in cc.notes if n not in notes)
        if cc.pattern == "divergent":
            notes.append(f"the constant cache serves the {_round(cc.addresses_per_request, 2)} distinct "
                         "addresses of a warp request one after another")
    A.path = load_path(e)
    # Where the numbers come from.
    used = e.offset.free_symbols if isinstance(e.offset, sp.Basic) else set()
    for s in sorted(used, key=lambda s: s.name):
        info = syms.info.get(s)
        if info is not None and info.kind in (S.PARAM, S.TEMPLATE) and s in bindings.values:
            d = bindings.describe(s)
            if d not in notes:
                notes.append(d)
    if launch_note and A.pattern not in ("data-dependent",):
        notes.append(launch_note)
        A.launch_assumed = True
    notes.extend(n for n in e.notes if n not in notes)
    A.assumptions = notes
    return A


def _fused_vector(e: S.AccessEvent, syms: S.Symbols, bindings: S.Bindings,
                  stored_loops: frozenset = frozenset()) -> Optional[tuple]:
    """``(address, bytes)`` of the vector load nvcc makes of a fully unrolled loop's loads of
    consecutive shared-memory elements (``regN[i] = Bs[base + i]``, i < 8: two LDS.128), else
    None. The loop's counter must step the address by one element, the loop move a multiple of
    8 or 16 bytes, and every other term of the address be a multiple of that (nvcc proves the
    alignment; it places static shared arrays itself). The address returned counts vectors
    with a counter of its own (trip: the loop's bytes over the vector's). Measured on an H100
    (tests/data/sgemm-measured.json): SGEMM_CUDA's kernel 6 `regN[i] = Bs[dotIdx * BN +
    threadCol * TN + i]` issues LDS.128 at 8 of 4 ideal wavefronts, the conflict of 16-byte
    lanes served a quarter-warp at a time, not the 4-way of the 4-byte loads in the source.
    Not where the iterations' loads cannot be moved together: a barrier in the loop, a
    condition inside it on the load's path, or a store to shared memory in it (nvcc 13 keeps
    fixtures/barriers/branch_on_loaded_value.cu's `buf[ty][k]` as 4-byte LDS)."""
    E = e.elem_bytes
    if e.kind != "load" or e.atomic or e.volatile or E not in (4, 8) or not e.loops or \
            not isinstance(e.offset, sp.Expr):
        return None
    li = e.loops[-1]
    loop = li.loop
    if loop.unroll == 1 or not loops.fully_unrolled(loop) or li.has_barrier or \
            len(e.path) > li.path_len or id(loop) in stored_loops:
        return None
    offset = sp.expand(bindings.bind(e.offset))
    if not isinstance(offset, sp.Expr):
        return None
    it = li.it
    if it is None or it not in offset.free_symbols or li.trip is None:
        return None
    trip = bindings.bind(li.trip)
    if not (isinstance(trip, sp.Basic) and trip.is_Integer and 1 < int(trip) <= 64):
        return None
    coeff = offset.coeff(it)
    if coeff != E:
        return None
    rest = sp.expand(offset - coeff * it)
    if rest.has(it) or any(not t.as_coeff_Mul()[0].is_Integer for t in sp.Add.make_args(rest)):
        return None
    total = int(trip) * E
    for vec in (16, 8):
        if vec <= E or total % vec:
            continue
        if all(int(t.as_coeff_Mul()[0]) % vec == 0 for t in sp.Add.make_args(rest)):
            n = syms.make(("vector", it, vec), f"{it.name}_v{vec}", S.ITER, loop=loop,
                          trip=sp.Integer(total // vec))
            return rest + vec * n, vec
    return None


def _request_parts(elem: Optional[ir.CType], size: Optional[int]) -> list[tuple[int, int]]:
    """How the hardware moves one element: a single request for 1/2/4/8/16-byte scalars and
    vector types (LDG.64/.128), and for an 8- or 16-byte struct aligned to its size
    (`struct alignas(16)`, llm.c's x128: one 128-bit access); a larger struct of 8- or 16-byte
    alignment as one request per 8 or 16 bytes (a struct of four doubles: four 64-bit
    accesses); else one 4-byte request per word (a struct of 4-byte alignment, a float3: the
    compiler cannot widen it)."""
    if not size or elem is None:
        return [(0, size or 0)]
    if elem.kind != "record" and size in (1, 2, 4, 8, 16):
        return [(0, size)]
    if elem.kind == "record" and size in (8, 16) and (elem.align or 0) >= size:
        return [(0, size)]
    if elem.kind == "record" and size > 16:
        a = min(elem.align or 0, 16)
        if a in (8, 16) and size % a == 0:
            return [(a * i, a) for i in range(size // a)]
    if size <= 4 or size % 4:
        return [(0, size)]
    return [(4 * i, 4) for i in range(size // 4)]


def _index_text(e: S.AccessEvent, syms: S.Symbols, bindings: S.Bindings) -> str:
    """The element index, with the launch's blockDim substituted (shorter, and what the
    numbers were computed with; other parameters stay symbolic)."""
    dims = {s: v for s, v in bindings.values.items()
            if syms.info.get(s) is not None and syms.info[s].kind == S.BLOCKDIM}
    try:
        key = (e.offset, e.elem_bytes, frozenset(dims.items()))
        hit = _INDEX_TEXTS.get(key)
    except TypeError:  # an unhashable offset
        key = hit = None
    if hit is not None:
        return hit
    q = e.index_expr()
    if q is None:
        text = user_text(e.index_text())
    else:
        text = user_text(sp.expand(q.xreplace(dims)) if dims else q)
    if key is not None:
        if len(_INDEX_TEXTS) >= 20_000:
            _INDEX_TEXTS.clear()
        _INDEX_TEXTS[key] = text
    return text


#: (offset, element size, blockDim values) -> index text: the accesses of a kernel (and of
#: its inlined copies, and of the same kernel for other facts) repeat their addresses.
_INDEX_TEXTS: dict = {}


def kernel_mean(table: AccessTable, space: str, kind: str, field_name: str) -> Optional[float]:
    """Mean of ``field_name`` over the accesses of one space and kind (the kernel-wide figure
    the ground truth reports), ignoring accesses without a number."""
    vals = [getattr(a, field_name) for a in table.accesses
            if a.space == space and a.kind == kind and not a.atomic and getattr(a, field_name) is not None]
    if not vals:
        return None
    return sum(vals) / len(vals)
