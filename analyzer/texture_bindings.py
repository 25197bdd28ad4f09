"""What the host code says about the memory behind each texture and surface a kernel uses.

Followed through the host functions of the file (flow-insensitive: the last assignment seen
wins, and a kernel launched with objects that disagree gets no binding):

- allocations: ``cudaMallocArray`` (a 1-D/2-D CUDA array), ``cudaMalloc3DArray`` (3-D, or
  layered with ``cudaArrayLayered``), ``cudaMallocMipmappedArray``, ``cudaMallocPitch``
  (pitch-linear memory and its pitch variable), ``cudaMalloc``/``cudaMallocManaged``
  (linear memory), ``cudaMalloc3D`` (a pitched 3-D block);
- resource descriptions: ``res.resType = cudaResourceTypeArray | Linear | Pitch2D |
  MipmappedArray`` with ``res.res.array.array``, ``res.res.linear.devPtr``,
  ``res.res.pitch2D.devPtr``/``pitchInBytes``;
- texture descriptions: ``td.filterMode``, ``td.normalizedCoords``;
- objects: ``cudaCreateTextureObject(&tex, &res, &td, ...)``, ``cudaCreateSurfaceObject``;
- legacy references: ``texRef.filterMode = ...``, ``cudaBindTexture`` (linear),
  ``cudaBindTexture2D`` (pitch-linear, with its pitch), ``cudaBindTextureToArray``,
  ``cudaBindSurfaceToArray``;
- launches: the object passed for each texture/surface parameter, and the pointer passed
  for each pointer parameter (through host helpers whose every call passes the same thing).

Places are named by variable (or, for struct members, by their source text), so a texture
created in one host function and launched from another through a file-scope variable is found.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from . import ir
from .constprop import evaluate, text
from .texture_calls import texture_space

RES_TYPES = {0: "array", 1: "mipmapped array", 2: "linear", 3: "pitch2D"}
FILTERS = {0: "point", 1: "linear"}
_ARRAY_LAYERED = 0x01  # cudaArrayLayered
_MALLOC_LINEAR = ("cudaMalloc", "cudaMallocManaged", "cudaMallocAsync")


@dataclass
class Allocation:
    kind: str  # CUDA array | 3-D CUDA array | layered CUDA array | mipmapped array | pitch-linear (cudaMallocPitch) | linear (cudaMalloc) | pitched 3-D (cudaMalloc3D)
    call: str
    line: int

    def describe(self) -> str:
        return f"{self.kind}, {self.call} at line {self.line}"


@dataclass
class Binding:
    """The memory behind one texture/surface object or reference."""

    space: str  # texture | surface
    resource: Optional[str] = None  # array | mipmapped array | linear | pitch2D
    backing: object = None  # key of the array or device pointer
    backing_text: str = ""
    allocation: Optional[Allocation] = None
    pitch: Optional[ir.Expr] = None  # pitch2D: the pitch expression
    pitch_from_malloc_pitch: Optional[bool] = None
    filter_mode: Optional[str] = None
    normalized: Optional[bool] = None
    how: str = ""  # cudaCreateTextureObject at line N
    line: int = 0
    range: Optional[ir.SourceRange] = field(default=None, repr=False)  # the creating call

    def describe(self) -> str:
        what = self.resource or "unknown resource"
        if self.allocation is not None:
            mem = f"`{self.backing_text}`: {self.allocation.describe()}"
        elif self.backing_text:
            mem = f"`{self.backing_text}` (allocation not found)"
        else:
            mem = "memory not found"
        return f"{what} over {mem}; {self.how}"


def _strip(e: Optional[ir.Expr]) -> Optional[ir.Expr]:
    while isinstance(e, ir.Cast):
        e = e.operand
    return e


def place(e: Optional[ir.Expr]):
    """A key naming the object an expression denotes (``&x`` -> x)."""
    e = _strip(e)
    if isinstance(e, ir.UnaryOp) and e.op == "&":
        e = _strip(e.operand)
    if isinstance(e, ir.VarRef):
        return e.var
    if isinstance(e, (ir.Member, ir.Index)):
        return ("text", text(e))
    return None


def _pointee(e: Optional[ir.Expr]):
    """The object ``&x`` points to (``x``), for out-parameters."""
    e = _strip(e)
    if isinstance(e, ir.UnaryOp) and e.op == "&":
        return place(e.operand)
    return None


def _key_text(k) -> str:
    if isinstance(k, ir.Variable):
        return k.name
    if isinstance(k, tuple):
        return k[1]
    return "?"


def _int(e: Optional[ir.Expr]) -> Optional[int]:
    e = _strip(e)
    if isinstance(e, ir.Const) and isinstance(e.value, (int, bool)):
        return int(e.value)
    if e is None:
        return None
    v = evaluate(e, {})  # cudaArrayLayered | cudaArraySurfaceLoadStore
    return int(v) if isinstance(v, (int, bool)) else None


def _member_path(e: ir.Expr):
    """``res.res.pitch2D.devPtr`` -> (key of res, ["res", "pitch2D", "devPtr"])."""
    parts = []
    e = _strip(e)
    while isinstance(e, (ir.Member, ir.Index)):
        if isinstance(e, ir.Member):
            parts.append(e.member)
        e = _strip(e.base)
    return place(e), list(reversed(parts))


@dataclass
class HostTextures:
    """Every binding fact of one translation unit (see the module's docstring)."""

    allocations: dict = field(default_factory=dict)  # key -> Allocation
    pitch_vars: set = field(default_factory=set)  # pitches cudaMallocPitch returned
    resources: dict = field(default_factory=dict)  # key -> {"type", "ptr", "pitch"}
    tex_descs: dict = field(default_factory=dict)  # key -> {"filter", "normalized"}
    objects: dict = field(default_factory=dict)  # object key -> Binding
    aliases: dict = field(default_factory=dict)  # host parameter -> key passed by every call
    launch_args: dict = field(default_factory=dict)  # kernel name -> [list of arg keys per launch]

    def resolve(self, k, depth: int = 0):
        while k in self.aliases and depth < 8:
            k, depth = self.aliases[k], depth + 1
        return k

    def binding_of(self, k) -> Optional[Binding]:
        return self.objects.get(self.resolve(k))

    def allocation_of(self, k) -> Optional[Allocation]:
        return self.allocations.get(self.resolve(k))

    def kernel_arg(self, kernel: ir.Function, index: int):
        """The key every launch of ``kernel`` passes as argument ``index`` (None: unknown or
        launches disagree)."""
        got = set()
        for args in self.launch_args.get(kernel.name, []):
            if index >= len(args):
                return None
            got.add(self.resolve(args[index]))
        if len(got) != 1:
            return None
        return got.pop()

    def kernel_binding(self, kernel: ir.Function, obj) -> Optional[Binding]:
        """The binding of a kernel's texture/surface parameter or of a legacy reference."""
        if isinstance(obj, ir.Variable) and obj.storage == "param":
            if obj not in kernel.params:
                return None
            k = self.kernel_arg(kernel, kernel.params.index(obj))
            return self.objects.get(k) if k is not None else None
        return self.objects.get(obj) if obj is not None else None


def _finish(h: HostTextures, b: Binding, res: Optional[dict], td: Optional[dict]) -> None:
    if res is not None:
        b.resource = RES_TYPES.get(res.get("type")) if res.get("type") is not None else b.resource
        b.backing = res.get("ptr")
        if b.resource is None and b.backing is not None:
            b.resource = res.get("guess")
        pe = res.get("pitch")
        if pe is not None:
            b.pitch = pe
    if td is not None:
        b.filter_mode = td.get("filter", b.filter_mode)
        b.normalized = td.get("normalized", b.normalized)
    if b.backing is not None:
        b.backing = h.resolve(b.backing)
        b.backing_text = _key_text(b.backing)
        b.allocation = h.allocations.get(b.backing)


def _call(h: HostTextures, c: ir.Call, legacy: dict) -> None:
    name = (c.callee or "").split("::")[-1]
    a = c.args
    line = c.range.line
    if name == "cudaMallocArray" and a:
        two_d = len(a) > 3 and _int(a[3]) != 0
        h.allocations[_pointee(a[0])] = Allocation("2-D CUDA array" if two_d else "1-D CUDA array",
                                                   name, line)
    elif name == "cudaMalloc3DArray" and a:
        flags = _int(a[3]) if len(a) > 3 else 0
        kind = "layered CUDA array" if flags and flags & _ARRAY_LAYERED else "3-D CUDA array"
        h.allocations[_pointee(a[0])] = Allocation(kind, name, line)
    elif name == "cudaMallocMipmappedArray" and a:
        h.allocations[_pointee(a[0])] = Allocation("mipmapped array", name, line)
    elif name == "cudaMallocPitch" and len(a) >= 2:
        h.allocations[_pointee(a[0])] = Allocation("pitch-linear memory", name, line)
        h.pitch_vars.add(_pointee(a[1]))
    elif name in _MALLOC_LINEAR and a:
        h.allocations[_pointee(a[0])] = Allocation("linear memory", name, line)
    elif name == "cudaMalloc3D" and a:
        h.allocations[_pointee(a[0])] = Allocation("pitched 3-D memory", name, line)
    elif name in ("cudaCreateTextureObject", "cudaCreateSurfaceObject") and len(a) >= 2:
        space = "texture" if "Texture" in name else "surface"
        b = Binding(space, how=f"{name} at line {line}", line=line, range=c.range)
        res = dict(h.resources.get(_pointee(a[1])) or {})
        td = dict(h.tex_descs.get(_pointee(a[2])) or {}) if space == "texture" and len(a) >= 3 else None
        _finish(h, b, res, td)
        h.objects[_pointee(a[0])] = b
    elif name in ("cudaBindTexture", "cudaBindTexture2D", "cudaBindTextureToArray",
                  "cudaBindSurfaceToArray", "cudaBindTextureToMipmappedArray"):
        ref_i = 0 if name.endswith(("Array", "MipmappedArray")) else 1
        if len(a) <= ref_i + 1:
            return
        ref = place(a[ref_i])
        space = "surface" if "Surface" in name else "texture"
        b = Binding(space, how=f"{name} at line {line}", line=line, range=c.range)
        if name == "cudaBindTexture2D":
            pitch = a[-1]
            res = {"type": 3, "ptr": place(a[ref_i + 1]), "pitch": pitch}
        elif name == "cudaBindTexture":
            res = {"type": 2, "ptr": place(a[ref_i + 1])}
        elif "Mipmapped" in name:
            res = {"type": 1, "ptr": place(a[ref_i + 1])}
        else:
            res = {"type": 0, "ptr": place(a[ref_i + 1])}
        _finish(h, b, res, None)
        h.objects[ref] = b


def _assign(h: HostTextures, e: ir.Assign, legacy: dict) -> None:
    root, path = _member_path(e.target)
    if root is None or not path:
        return
    t = getattr(root, "type", None)
    spelling = (t.spelling if t is not None else "") or ""
    last = path[-1]
    if last == "resType":
        h.resources.setdefault(root, {})["type"] = _int(e.value)
    elif last == "devPtr" or (last == "array" and len(path) >= 2) or last == "mipmap":
        r = h.resources.setdefault(root, {})
        r["ptr"] = place(e.value)
        r["guess"] = {"linear": "linear", "pitch2D": "pitch2D", "array": "array",
                      "mipmap": "mipmapped array"}.get(path[-2] if len(path) >= 2 else last)
    elif last == "pitchInBytes":
        h.resources.setdefault(root, {})["pitch"] = e.value
    elif last in ("filterMode", "normalizedCoords"):
        target = legacy if texture_space(spelling) else h.tex_descs
        d = target.setdefault(root, {})
        if last == "filterMode":
            v = _int(e.value)
            d["filter"] = FILTERS.get(v) if v is not None else None
        else:
            v = _int(e.value)
            d["normalized"] = bool(v) if v is not None else None


def host_textures(tu: Optional[ir.TranslationUnit]) -> HostTextures:
    """The binding facts of ``tu`` (memoised on it)."""
    h = HostTextures()
    if tu is None:
        return h
    cached = getattr(tu, "_host_textures", None)
    if cached is not None:
        return cached
    legacy: dict = {}
    hosts = [f for f in tu.functions if not f.is_kernel and f.kind in ("host", "host_device")
             and f.body is not None]
    calls_of: dict = {}
    events = []
    for f in hosts:
        for st in ir.walk_stmt(f.body):
            if isinstance(st, ir.DeclStmt) and st.init is not None:
                events.append(("decl", st))
            for x in (st.exprs() if not isinstance(st, ir.DeclStmt) else
                      ([st.init] if st.init is not None else [])):
                for y in x.walk():
                    events.append(("expr", y))
    # In program order within each function: an object takes the descriptors as they are at
    # its creation (one cudaResourceDesc is often reused for several textures).
    for kind, y in events:
        if kind == "decl":
            h.resources.pop(y.var, None)
            h.tex_descs.pop(y.var, None)
            src = place(y.init)
            if src is not None and src != y.var and (
                    texture_space(y.var.type.spelling) or y.var.type.kind == "pointer"):
                h.aliases[y.var] = src  # cudaTextureObject_t t = tex; float *p = d;
            continue
        if isinstance(y, ir.Assign):
            _assign(h, y, legacy)
            if y.op == "=" and isinstance(_strip(y.target), ir.VarRef):
                v = _strip(y.target).var
                src = place(y.value)
                if src is not None and src != v and (texture_space(v.type.spelling)
                                                     or v.type.kind == "pointer"):
                    h.aliases[v] = src
        elif isinstance(y, ir.Call):
            name = (y.callee or "").split("::")[-1]
            if name == "memset" and y.args:
                k = _pointee(y.args[0])
                h.resources.pop(k, None)
                h.tex_descs.pop(k, None)
            _call(h, y, legacy)
            if y.function is not None and y.function.body is not None and not y.function.is_kernel:
                calls_of.setdefault(y.function, []).append(y)
        elif isinstance(y, ir.LaunchExpr):
            h.launch_args.setdefault(y.site.kernel, []).append([place(a) for a in y.args])
    # A legacy reference's attributes are read at launch time: its last setting applies.
    for ref, attrs in legacy.items():
        b = h.objects.get(ref)
        if b is not None:
            b.filter_mode = attrs.get("filter", b.filter_mode)
            b.normalized = attrs.get("normalized", b.normalized)
    # Host helpers: a parameter stands for what every call passes.
    for fn, calls in calls_of.items():
        for i, p in enumerate(fn.params):
            got = {place(c.args[i]) if i < len(c.args) else None for c in calls}
            if len(got) == 1 and None not in got:
                h.aliases[p] = got.pop()
    for b in h.objects.values():
        if b.backing is not None:
            b.backing = h.resolve(b.backing)
            b.allocation = h.allocations.get(b.backing)
        if b.pitch is not None:
            b.pitch_from_malloc_pitch = h.resolve(place(b.pitch)) in h.pitch_vars
    try:
        tu._host_textures = h
    except AttributeError:
        pass
    return h


def annotate_accesses(table, kernel: ir.Function, tu: Optional[ir.TranslationUnit]) -> None:
    """Name the backing memory and the filter mode of every texture/surface access of
    ``table`` (an ``accesses.AccessTable``) where the host code shows them; say so where not."""
    if table is None or not any(a.space in ("texture", "surface") for a in table.accesses):
        return
    h = host_textures(tu)
    for a in table.accesses:
        ev = a.event
        if a.space not in ("texture", "surface") or ev is None or ev.texture is None:
            continue
        b = h.kernel_binding(kernel, a.variable)
        if b is None:
            a.assumptions.append(f"the memory behind `{a.array}` is not shown by the host code of this "
                                 "file (no cudaCreate*Object/cudaBind* reaching this kernel's launch)")
            continue
        a.backing = b.describe()
        a.binding = b
        fp = a.footprint or ()
        rows = fp[1] if len(fp) > 1 else 1
        if b.resource in ("linear", "pitch2D") and (rows > 1 or a.pattern == "column"):
            a.assumptions.append(f"`{a.array}` reads row-major (pitch-linear) memory, not a block-linear "
                                 f"CUDA array: the {rows} rows one warp touches are {rows} separate runs "
                                 "of 32-byte sectors; the texture cache helps through reuse")
        a.filter_mode = b.filter_mode if a.space == "texture" else None
        if b.normalized:
            a.assumptions.append(f"`{a.array}` uses normalised coordinates ([0, 1) per dimension)")
