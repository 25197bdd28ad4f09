"""The device-side texture and surface intrinsics: which call is a fetch, a surface read or a
surface write, and which of its arguments are the object, the coordinates and the value.

Both APIs are recognised: texture/surface *objects* (``tex2D<float>(obj, x, y)``,
``tex2D(&v, obj, x, y)``, ``surf2Dread<float>(obj, xb, y)``, ``surf2Dwrite(v, obj, xb, y)``)
and the legacy *references* (``tex2D(texRef, x, y)``, ``tex1Dfetch(texRef, i)``,
``surf2Dwrite(v, surfRef, xb, y)``). Coordinates are texel coordinates for textures (floats,
integers for ``tex1Dfetch``) and, for surfaces, a *byte* x coordinate with texel y and z.

:func:`texture_call` classifies an ``ir.Call``; everything else about the access (its warp
pattern, its backing memory) is computed elsewhere (``texture_patterns``, ``texture_bindings``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from . import ir

TEXTURE_OBJECT_TYPES = ("cudaTextureObject_t", "CUtexObject")
SURFACE_OBJECT_TYPES = ("cudaSurfaceObject_t", "CUsurfObject")

# tex1Dfetch, tex1D, tex2D, tex3D, tex1DLayered, tex2DLayered, texCubemap, texCubemapLayered,
# tex2Dgather, and the Lod / Grad forms of each.
_TEX_RE = re.compile(r"^tex(1Dfetch|1D|2D|3D|Cubemap)(Layered)?(gather|Lod|Grad)?$")
_SURF_RE = re.compile(r"^surf(1D|2D|3D|Cubemap)(Layered)?(read|write)$")
_DIMS = {"1Dfetch": 1, "1D": 1, "2D": 2, "3D": 3, "Cubemap": 3}


@dataclass
class TexCall:
    """One texture fetch or surface access, as written."""

    name: str  # the intrinsic (tex2D, surf2Dwrite, ...)
    space: str  # texture | surface
    kind: str  # load | store
    dims: int  # coordinates besides the layer: 1, 2 or 3 (a cubemap's direction is 3)
    obj: ir.Expr  # the texture/surface object or reference
    coords: list = field(default_factory=list)  # ir.Expr per coordinate (x, y, z)
    layer: Optional[ir.Expr] = None
    others: list = field(default_factory=list)  # level, gradients, gather component, mode
    out: Optional[ir.Expr] = None  # `&v` of the pointer forms (tex2D(&v, ...), surf2Dread(&v, ...))
    value: Optional[ir.Expr] = None  # the value a surface write stores
    texel: ir.CType = ir.UNKNOWN_TYPE  # the type fetched or written
    legacy: bool = False  # a texture<>/surface<> reference rather than an object
    fetch: bool = False  # tex1Dfetch: integer addressing, no filtering (linear memory)
    gather: bool = False  # tex2Dgather: the four texels of a bilinear footprint, one component
    cubemap: bool = False
    mode: str = ""  # Lod | Grad | ""

    @property
    def texel_bytes(self) -> Optional[int]:
        return self.texel.size or None

    @property
    def object_name(self) -> str:
        return object_name(self.obj)

    @property
    def object_var(self) -> Optional[ir.Variable]:
        e = _strip(self.obj)
        return e.var if isinstance(e, ir.VarRef) else None


def _strip(e: ir.Expr) -> ir.Expr:
    while isinstance(e, ir.Cast):
        e = e.operand
    return e


def object_name(e: ir.Expr) -> str:
    """How the source names a texture/surface object (``tex``, ``p.tex``, ``texs[i]``)."""
    e = _strip(e)
    if isinstance(e, ir.VarRef):
        return e.var.name
    if isinstance(e, ir.Member):
        return f"{object_name(e.base)}{'->' if e.arrow else '.'}{e.member}"
    if isinstance(e, ir.Index):
        return f"{object_name(e.base)}[]"
    return "texture"


def _type_of(e: ir.Expr) -> str:
    t = _strip(e).type
    return (t.spelling if t is not None else "") or ""


def is_texture_object_type(spelling: str) -> bool:
    s = spelling.replace("const ", "").strip()
    return s in TEXTURE_OBJECT_TYPES or s.startswith("texture<")


def is_surface_object_type(spelling: str) -> bool:
    s = spelling.replace("const ", "").strip()
    return s in SURFACE_OBJECT_TYPES or s.startswith("surface<")


def _is_object(e: ir.Expr, space: str) -> bool:
    s = _type_of(e)
    if space == "texture":
        return is_texture_object_type(s)
    return is_surface_object_type(s)


def texture_call(e: ir.Call) -> Optional[TexCall]:
    """The call as a texture fetch or surface access, or None."""
    name = (e.callee or "").split("::")[-1]
    m = _TEX_RE.match(name)
    space = "texture"
    if m is None:
        m = _SURF_RE.match(name)
        space = "surface"
        if m is None:
            return None
    args = list(e.args)
    if not args:
        return None
    if e.function is not None and e.function.body is not None:
        return None  # the program's own function of that name (a CPU emulation, a wrapper)
    base, layered, suffix = m.group(1), bool(m.group(2)), m.group(3) or ""
    dims = _DIMS[base]
    kind = "store" if suffix == "write" else "load"
    out = value = None
    # Where the object is: the first argument, or the second in the pointer/value forms.
    if _is_object(args[0], space):
        k = 0
    elif len(args) > 1 and _is_object(args[1], space):
        k = 1
    elif space == "surface" and kind == "store" or (len(args) > 1 and args[0].type is not None
                                                       and args[0].type.kind == "pointer"):
        k = 1  # positional: an object of a type spelled otherwise (unsigned long long)
    else:
        k = 0
    if k == 1:
        if kind == "store":
            value = args[0]
        else:
            out = args[0]
    if len(args) < k + 1 + dims:
        return None
    obj = args[k]
    coords = args[k + 1:k + 1 + dims]
    rest = args[k + 1 + dims:]
    layer = None
    if layered and rest:
        layer, rest = rest[0], rest[1:]
    if value is not None:
        texel = _strip(value).type or ir.UNKNOWN_TYPE
    elif out is not None:
        t = out.type
        texel = (t.element if t is not None and t.kind == "pointer" and t.element is not None
                 else ir.UNKNOWN_TYPE)
    else:
        texel = e.type or ir.UNKNOWN_TYPE
    return TexCall(name=name, space=space, kind=kind, dims=dims, obj=obj, coords=list(coords),
                   layer=layer, others=list(rest), out=out, value=value, texel=texel,
                   legacy=_type_of(obj).replace("const ", "").startswith(("texture<", "surface<")),
                   fetch=base == "1Dfetch", gather=suffix == "gather", cubemap=base == "Cubemap",
                   mode=suffix if suffix in ("Lod", "Grad") else "")


def uses_textures(fn: ir.Function) -> list[TexCall]:
    """The texture/surface calls in ``fn`` and the device functions it calls."""
    out: list[TexCall] = []
    seen: set = set()
    stack = [fn]
    while stack:
        f = stack.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        for x in f.expressions():
            if isinstance(x, ir.Call):
                tc = texture_call(x)
                if tc is not None:
                    out.append(tc)
        stack.extend(f.callees)
    return out


def texture_space(spelling: str) -> str:
    """"texture" or "surface" for a texture/surface object or reference type, else ""."""
    if is_texture_object_type(spelling or ""):
        return "texture"
    if is_surface_object_type(spelling or ""):
        return "surface"
    return ""


def texture_refusal(fn: ir.Function) -> str:
    """Why ``validate`` cannot run ``fn`` (it takes texture/surface objects or uses texture
    references), or "" when it can."""
    objs = [p.name for p in fn.params if texture_space(p.type.spelling if p.type else "")]
    calls = uses_textures(fn)
    if not objs and not calls:
        return ""
    what = (f"takes texture/surface objects ({', '.join(f'`{n}`' for n in objs)})" if objs else
            f"reads texture/surface references (`{calls[0].object_name}` in `{calls[0].name}`)")
    return (f"`{fn.display_name}` {what}: validate fills buffers with random data and passes scalars by "
            "value, but a texture or surface needs a CUDA array or bound memory, a channel format and "
            "a filter/address mode that only the program's host code sets up; it is not run (compare "
            "`cudalint explain` with your own profile of the program instead)")
