"""Which launch configuration a kernel is analysed with, and where it came from.

Order (issue 2 / DESIGN.md): ``--block/--grid`` on the command line, else the kernel's launch
sites in the file, else ``__launch_bounds__``, else a stated default of 256 threads in 1-D.
The result always says its source and lists what had to be assumed.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from . import constprop, hostflow, ir
from .device_queries import ORIGIN_PREFIX as DEVICE_ORIGIN, is_device_origin

DEFAULT_BLOCK = (256, 1, 1)


@dataclass
class LaunchConfig:
    block: tuple[int, int, int]
    grid: Optional[tuple[int, int, int]]
    dynamic_smem: Optional[int]
    source: str  # command-line | launch-site | launch-bounds | default
    detail: str = ""
    assumptions: list[str] = field(default_factory=list)
    # Kernel parameter values known at the launch site (name -> number).
    param_values: dict = field(default_factory=dict)
    site: Optional[ir.LaunchSite] = None
    # Every launch site passes the grid as an integer: gridDim.y = gridDim.z = 1 even where
    # gridDim.x is not known.
    grid_1d: bool = False
    # Kernel parameters that every launch site passes the block's size in (name -> component
    # x/y/z): the same variable as that component of the block, whatever its value.
    block_params: dict = field(default_factory=dict)
    # Pointer parameters the analysed launch passes a constant offset past another pointer
    # in (name -> (bytes, that pointer's name, the launch's line)): their addresses are that
    # far from the 256-byte alignment assumed of buffers.
    param_offsets: dict = field(default_factory=dict)
    # Integer parameters the launches pass several values in (a host loop's counter, or
    # different values at different launches): name -> (the value analysed where a number is
    # needed, a stated default; the sentence saying how it was chosen).
    param_ranges: dict = field(default_factory=dict)
    # The block is the same at every launch site (or given on the command line), and the
    # integer parameters every launch site passes the same known value in (name -> value):
    # facts that must hold for every launch (a condition the same for each whole block) use
    # these, not the one analysed site's.
    block_agreed: bool = False
    agreed_params: dict = field(default_factory=dict)

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    def to_json(self) -> dict:
        return {
            "block": list(self.block),
            "grid": list(self.grid) if self.grid else None,
            "dynamic_smem": self.dynamic_smem,
            "source": self.source,
            "detail": self.detail,
            "assumptions": list(self.assumptions),
        }


def _dim3(v) -> Optional[tuple[int, int, int]]:
    if isinstance(v, tuple):
        return v if all(isinstance(x, int) and x > 0 for x in v) else None
    if isinstance(v, bool):
        return None
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, int) and v > 0:
        return (v, 1, 1)
    return None


def resolve_launch_sites(tu: ir.TranslationUnit, device=None) -> None:
    """Fill grid/block/dynamic_smem/arg_values of every launch site from the values the host
    code gives them (:mod:`hostflow`), and say in ``site.unknown`` why a part stays unknown.
    ``device``: what the runtime's device queries answer (device_queries.DeviceAnswers)."""
    kernels = {}
    for k in tu.kernels:
        kernels.setdefault(k.name, k)
    _pointer_candidates(tu, kernels)
    owner = {id(x.site): fn for fn in tu.functions if not fn.is_kernel
             for x in map(ir.launch_in, fn.expressions()) if x is not None}

    def on_launch(x: ir.LaunchExpr, env) -> None:
        site = x.site
        fn = owner.get(id(site))
        kernel = kernels.get(site.kernel)
        site.block_params = block_params(x, fn, kernel) if fn is not None and kernel is not None else {}
        cfg = list(x.config) + [None] * 4
        site.grid = _dim3(constprop.evaluate(cfg[0], env))
        site.grid_1d = cfg[0] is not None and getattr(cfg[0].type, "kind", "") == "scalar"
        bv = constprop.evaluate(cfg[1], env)
        site.block = _dim3(bv)
        site.block_partial = None
        if site.block is None and isinstance(bv, tuple) and len(bv) == 3:
            part = tuple(c if isinstance(c, int) and not isinstance(c, bool) and c > 0 else None
                         for c in bv)
            if any(c is not None and c > 1 for c in part):
                # (n, 1, 1) says no more than the stated 1-D default assumes: not kept
                site.block_partial = part
        sm = constprop.evaluate(cfg[2], env) if cfg[2] is not None else 0
        site.dynamic_smem = int(sm) if isinstance(sm, (int, float)) and not isinstance(sm, bool) else None
        site.unknown = []
        for what, e, v in (("grid", cfg[0], site.grid), ("block", cfg[1], site.block),
                           ("dynamic shared memory", cfg[2], site.dynamic_smem)):
            if v is None and e is not None:
                site.unknown.append(f"{what} `{site_text(site, what)}`: "
                                    f"{constprop.why_unknown(e, env)}")
        used = set()
        for e in list(cfg[:3]) + list(x.args):
            used |= env.origins(e) if hasattr(env, "origins") else set()
        site.from_callers = sorted(u for u in used if not is_device_origin(u))
        site.from_device = sorted(u[len(DEVICE_ORIGIN):] for u in used if is_device_origin(u))
        site.arg_values = []
        site.arg_ranges = []
        site.arg_offsets = [_pointer_offset(a, env) for a in x.args]
        kernel = kernels.get(site.kernel) or (kernels.get(site.candidates[0]) if site.candidates else None)
        for i, a in enumerate(x.args):
            v = constprop.evaluate(a, env)
            site.arg_values.append(v if isinstance(v, (int, float)) else None)
            p = kernel.params[i] if kernel is not None and i < len(kernel.params) else None
            r = _var_of(a)
            r = env.ranges.get(r) if r is not None and site.arg_values[-1] is None else None
            site.arg_ranges.append(r + (_var_of(a).name,) if r is not None else None)
            if r is not None and p is not None and p.type.kind == "scalar" and not p.type.is_float:
                continue  # values first..last, one per iteration: see argument_ranges
            if site.arg_values[-1] is None and p is not None and p.type.kind == "scalar":
                t = constprop.text(a)
                shown = f"`{p.name}`" + (f" = `{t}`" if t != p.name else "")
                site.unknown.append(f"argument {shown}: {constprop.why_unknown(a, env)}")

    # A launch of a host function's parameter (`kernel<<<p.grid, p.block>>>` in a wrapper the
    # kernel is handed to) is not a launch of a kernel by that name: each call handing the
    # wrapper a kernel is one (hostflow.forward), with the wrapper's values from that call.
    forwarded = {id(x.site) for fn in tu.functions if not fn.is_kernel
                 for _, x in hostflow.kernel_params(fn)}
    known = {id(s) for s in tu.launches}

    def on_any_launch(x: ir.LaunchExpr, env) -> None:
        on_launch(x, env)
        if x.site.via and id(x.site) not in known:
            known.add(id(x.site))
            tu.launches.append(x.site)

    if forwarded:
        tu.launches[:] = [s for s in tu.launches if id(s) not in forwarded]
    hostflow.propagate_program(tu.functions, on_any_launch, device=device)

    # The block a launch has when the program runs without command-line arguments, where the
    # arguments may replace it (``int blocksize = 512; if (argc > 1) blocksize = atoi(argv[1]);``):
    # the program's own choice, kept as an assumption for a block not known statically.
    if any(s.block is None for s in tu.launches) and \
            any(hostflow.argc_of(f) is not None for f in tu.functions if f.body is not None):
        def on_launch_noargs(x: ir.LaunchExpr, env) -> None:
            site = x.site
            if site.block is not None:
                return
            cfg = list(x.config) + [None] * 2
            b = _dim3(constprop.evaluate(cfg[1], env))
            site.noargs_block = b if b is not None and b[0] * b[1] * b[2] <= 4096 else None

        hostflow.propagate_program(tu.functions, on_launch_noargs, no_args=True, device=device)


def _pointer_offset(a: ir.Expr, env) -> Optional[tuple]:
    """(bytes, the variable's name) where the argument is a pointer a known constant number of
    elements past a pointer variable (``d_in + 3``, ``3 + d_in``, ``&d_in[3]``), else None."""
    e = a
    while isinstance(e, ir.Cast):
        e = e.operand
    base = count = None
    if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
        for p, n in ((e.lhs, e.rhs), (e.rhs, e.lhs) if e.op == "+" else (None, None)):
            if p is not None and _var_of(p) is not None and _var_of(p).type.is_pointer:
                base, count = p, constprop.evaluate(n, env)
                if e.op == "-" and isinstance(count, int):
                    count = -count
                break
    elif isinstance(e, ir.UnaryOp) and e.op == "&" and isinstance(e.operand, ir.Index) and \
            _var_of(e.operand.base) is not None and _var_of(e.operand.base).type.is_pointer:
        base, count = e.operand.base, constprop.evaluate(e.operand.index, env)
    if base is None or not isinstance(count, int) or isinstance(count, bool) or count == 0:
        return None
    # the elements counted are those of the pointer as written, casts included:
    # `(char*)d + 8` is 8 bytes past d whatever d points to
    el = base.type.element if base.type is not None and base.type.is_pointer else None
    if el is None or not el.size:
        return None
    return count * el.size, _var_of(base).name


def _var_of(e: Optional[ir.Expr]):
    while isinstance(e, ir.Cast):
        e = e.operand
    return e.var if isinstance(e, ir.VarRef) else None


def block_params(x: ir.LaunchExpr, fn: ir.Function, kernel: ir.Function) -> dict:
    """Kernel parameters the launch ``x`` (in host function ``fn``) passes the same variable as
    a component of its block: ``const dim3 b(n, 1, 1); k<<<g, b>>>(..., n)`` or ``k<<<g, n>>>
    (..., n)`` gives {name of k's parameter: "x"}. The variable must not be written in ``fn``
    but where it is declared; a dim3 variable, declared with its components and never written."""
    if len(x.config) < 2 or fn is None or fn.body is None:
        return {}
    writes: set = set()
    decls: dict = {}
    for st in ir.walk_stmt(fn.body):
        if isinstance(st, ir.DeclStmt):
            decls.setdefault(st.var, []).append(st)
        for e in st.exprs():
            for y in e.walk():
                constprop.collect_writes(y, writes)

    def stable(v) -> bool:
        return v is not None and v not in writes and len(decls.get(v, ())) <= 1

    b = x.config[1]
    while isinstance(b, ir.Cast):
        b = b.operand
    parts = None
    if isinstance(b, ir.VarRef) and b.var.type.spelling.endswith("dim3"):
        d = decls.get(b.var, [])
        if stable(b.var) and len(d) == 1 and d[0].init is not None:
            b = d[0].init
            while isinstance(b, ir.Cast):
                b = b.operand
        else:
            return {}
    if isinstance(b, ir.Call) and constprop._base_name(b.callee) in constprop._DIM3_CTORS:
        parts = list(b.args)
    elif isinstance(b, ir.InitList):
        parts = list(b.items)
    elif isinstance(b, ir.VarRef) and b.type.kind == "scalar":
        parts = [b]
    if not parts:
        return {}
    out = {}
    for comp, pe in zip("xyz", parts):
        v = _var_of(pe)
        if not stable(v):
            continue
        for i, a in enumerate(x.args):
            if i < len(kernel.params) and _var_of(a) is v and kernel.params[i].type.kind == "scalar":
                out[kernel.params[i].name] = comp
    return out


def _pointer_candidates(tu: ir.TranslationUnit, kernels: dict) -> None:
    """For each launch through a function pointer (its callee names no kernel), the kernels
    that the launching function assigns to that pointer (``kernel = &copyRow;``, ``kernel =
    copyCol;``, or its initialiser), in source order: each of them may run with this launch's
    configuration."""
    fns = {f.name: f for f in tu.functions if f.body is not None and not f.is_kernel}
    for site in tu.launches:
        if site.kernel in kernels or site.template_args:
            continue
        fn = fns.get(site.caller)
        if fn is None:
            continue
        found: list = []

        def take(e):
            while isinstance(e, (ir.Cast, ir.UnaryOp)) and (not isinstance(e, ir.UnaryOp) or e.op == "&"):
                e = e.operand
            if isinstance(e, ir.FuncRef) and e.name in kernels and e.name not in found:
                found.append(e.name)

        for st in ir.walk_stmt(fn.body):
            if isinstance(st, ir.DeclStmt) and st.var.name == site.kernel and st.init is not None:
                take(st.init)
            for e in st.exprs():
                for x in e.walk():
                    if isinstance(x, ir.Assign) and x.op == "=" and isinstance(x.target, ir.VarRef) \
                            and x.target.var.name == site.kernel:
                        take(x.value)
        site.candidates = tuple(found)


def site_text(site: ir.LaunchSite, what: str) -> str:
    return {"grid": site.grid_text, "block": site.block_text}.get(what, site.smem_text)


def site_matches(site: ir.LaunchSite, kernel: ir.Function) -> bool:
    if site.kernel != kernel.name:
        # a launch through a function pointer that the caller sets to this kernel
        return kernel.name in site.candidates and not kernel.template_bindings
    if kernel.template_bindings:
        want = kernel.display_name[len(kernel.name):]
        return f"<{', '.join(site.template_args)}>" == want
    return True


def _where(site: ir.LaunchSite, kernel: ir.Function) -> str:
    cfg = ", ".join(t for t in (site.grid_text, site.block_text, site.smem_text) if t)
    # A header's kernel launched from another file (its includer, say): name that file.
    f = site.range.file
    at = f"{os.path.basename(f)}:" if f and kernel.range.file and not site.range.in_file(kernel.range.file) else "line "
    via = f" (launched by `{site.via}`)" if site.via else ""
    if site.api:
        return f"{at}{site.range.line}: {site.api}({site.kernel}, {cfg}){via}"
    return f"{at}{site.range.line}: {site.kernel}<<<{cfg}>>>{via}"


def launch_config(kernel: ir.Function, tu: ir.TranslationUnit,
                  block: Optional[tuple[int, int, int]] = None,
                  grid: Optional[tuple[int, int, int]] = None,
                  dynamic_smem: Optional[int] = None,
                  default_block: Optional[tuple[int, int, int]] = None) -> LaunchConfig:
    lc = _launch_config(kernel, tu, block, grid, dynamic_smem, default_block)
    sites = [s for s in tu.launches if site_matches(s, kernel)]
    if lc.site is not None:
        lc.param_ranges = argument_ranges(kernel, lc.site, sites)
        for name in lc.param_ranges:
            lc.param_values.pop(name, None)
    lc.grid_1d = bool(sites) and all(s.grid_1d for s in sites)
    if lc.site is not None:
        for p, off in zip(kernel.params, lc.site.arg_offsets):
            if off is not None and p.type.is_pointer and off[0] % 256:
                # (a multiple of 256 bytes keeps the alignment assumed: nothing to say)
                lc.param_offsets[p.name] = (off[0], off[1], lc.site.range.line)
    lc.block_agreed = lc.source == "command-line" or (
        lc.source == "launch-site" and bool(sites) and all(s.block == lc.block for s in sites))
    if sites:
        for i, p in enumerate(kernel.params):
            vals = {s.arg_values[i] if i < len(s.arg_values) else None for s in sites}
            if len(vals) == 1 and p.name not in lc.param_ranges:
                v = vals.pop()
                if isinstance(v, int) and not isinstance(v, bool):
                    lc.agreed_params[p.name] = v
    if sites:  # a relation every launch site has
        common = set(sites[0].block_params.items())
        for s in sites[1:]:
            common &= set(s.block_params.items())
        lc.block_params = dict(common)
    return lc


def argument_ranges(kernel: ir.Function, site: ir.LaunchSite, sites: list) -> dict:
    """Integer parameters that a launch of ``kernel`` with ``site``'s block passes a host loop's
    counter in (``for (int i = 1; i <= 32; i++) k<<<g, b>>>(a, i)``), with the values of the
    other launches (a warm-up ``k<<<g, b>>>(a, 1)`` before that loop). No one value is the
    parameter's: where a figure needs a number, the largest value passed is assumed and said
    (name -> (value, note)), instead of the first launch's value or the stated default of a
    value not known. A parameter some launch passes a value not known statically is left as it
    is (the analysed site's value, else unknown), and so are different constants at different
    launches without a loop (the analysed site's)."""
    same = [s for s in sites if s.block == site.block] or [site]
    out = {}
    for i, p in enumerate(kernel.params):
        if p.type.kind != "scalar" or p.type.is_float:
            continue
        spans, lines, loops, shown = [], [], [], []
        for s in same:
            v = s.arg_values[i] if i < len(s.arg_values) else None
            r = s.arg_ranges[i] if i < len(s.arg_ranges) else None
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            if isinstance(v, int) and not isinstance(v, bool):
                spans.append((v, v, ""))
            elif r is not None:
                spans.append((r[0], r[1], r[3]))
                loops.append(f"`{r[4]}` of the loop at line {r[2]}")
            else:
                break
            lines.append(s.range.line)
        else:
            if not loops:
                continue
            hi = max(b for _, b, _ in spans)
            parts: list = []
            for a, b, step in sorted(set(spans)):
                # a constant inside a loop's values (the warm-up's s = 1 of s = 1..32) adds none
                if a == b and any(x <= a <= y and (not st or a in (x, y)) for x, y, st in spans if x < y):
                    continue
                parts.append(str(a) if a == b else f"{a}..{b}{step}")
            at = sorted(set(lines))
            where = (f"the launch at line {at[0]}" if len(at) == 1 else
                     "the launches at lines " + ", ".join(map(str, at[:-1])) + f" and {at[-1]}")
            values = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
            out[p.name] = (hi, f"{p.name} assumed {hi}, the largest of the values {values} "
                               f"that {where} pass{'' if len(at) > 1 else 'es'}"
                               + f" ({', '.join(loops)})")
    return out


def _launch_config(kernel: ir.Function, tu: ir.TranslationUnit,
                   block: Optional[tuple[int, int, int]],
                   grid: Optional[tuple[int, int, int]],
                   dynamic_smem: Optional[int],
                   default_block: Optional[tuple[int, int, int]]) -> LaunchConfig:
    sites = [s for s in tu.launches if site_matches(s, kernel)]
    assumptions: list[str] = []
    site = None
    if sites:
        resolved = [s for s in sites if s.block is not None]
        site = resolved[0] if resolved else sites[0]
        distinct = {(s.block, s.grid, s.dynamic_smem) for s in sites}
        if len(distinct) > 1:
            assumptions.append(f"{kernel.display_name} is launched at {len(sites)} sites with "
                               f"different configurations; using the one at line {site.range.line}")

    if site is not None and site.from_callers:
        assumptions.append("values from the callers in this file (another caller elsewhere may "
                           "pass others): " + "; ".join(site.from_callers))
    if site is not None and site.from_device:
        assumptions.append(f"the launch at line {site.range.line} uses figures the GPU gives at run "
                           "time: " + "; ".join(site.from_device))
    if site is not None:
        args = [u.split(":", 1) for u in site.unknown if u.startswith("argument ")]
        if args:
            assumptions.append("kernel arguments not known statically at line "
                               f"{site.range.line}: " + "; ".join(
                                   f"{a[0][len('argument '):]} ({a[1].strip()})" for a in args))

    def params_from(s: Optional[ir.LaunchSite]) -> dict:
        out = {}
        if s is None:
            return out
        for p, v in zip(kernel.params, s.arg_values):
            if v is not None:
                out[p.name] = v
        return out

    def site_smem() -> int:
        """The launch site's dynamic shared memory (or --dynamic-smem); 0, said, when unknown."""
        smem = dynamic_smem if dynamic_smem is not None else site.dynamic_smem
        if smem is None:
            assumptions.append(f"dynamic shared memory `{site.smem_text}` at line {site.range.line} "
                               f"is not known statically{_reason(site, 'dynamic shared memory')}; "
                               "assumed 0 bytes")
            return 0
        return smem

    if block is not None:
        g = grid if grid is not None else (site.grid if site is not None else None)
        smem = dynamic_smem if dynamic_smem is not None else (site.dynamic_smem if site else 0)
        return LaunchConfig(block, g, smem, "command-line", "--block " + ",".join(map(str, block)),
                            assumptions, params_from(site), site)
    if site is not None and site.block is not None:
        smem = site_smem()
        if site.grid is None:
            assumptions.append(f"grid `{site.grid_text}` at line {site.range.line} is not known "
                               f"statically{_reason(site, 'grid')}")
        return LaunchConfig(site.block, grid or site.grid, smem, "launch-site", _where(site, kernel),
                            assumptions, params_from(site), site)
    smem = dynamic_smem if dynamic_smem is not None else 0
    if site is not None and site.block is None and site.noargs_block is not None:
        b = site.noargs_block
        assumptions.append(f"block size `{site.block_text}` at line {site.range.line} is not known "
                           f"statically{_reason(site, 'block')}")
        assumptions.append(f"block {'x'.join(map(str, b))} assumed: the launch's block when the "
                           "program runs without command-line arguments")
        smem = site_smem()
        return LaunchConfig(b, grid or site.grid, smem, "default",
                            _where(site, kernel) + " (without command-line arguments)",
                            assumptions, params_from(site), site)
    if site is not None and site.block_partial is not None:
        # some components known (`{4, 8, block_size/32}`): keep them, and give the unknown
        # ones the rest of the stated default (or __launch_bounds__) thread count
        part = site.block_partial
        if kernel.launch_bounds and kernel.launch_bounds[0]:
            total, whence = int(kernel.launch_bounds[0]), "__launch_bounds__"
        elif default_block is not None:
            total, whence = default_block[0] * default_block[1] * default_block[2], "the configured default-block"
        else:
            total, whence = DEFAULT_BLOCK[0], "the default"
        b = fill_block(part, total)
        unknown = [d for d, c in zip("xyz", part) if c is None]
        assumptions.append(f"block `{site.block_text}` at line {site.range.line}: "
                           + ", ".join(f"blockDim.{d} = {c}" for d, c in zip("xyz", part) if c is not None)
                           + "; " + " and ".join(f"blockDim.{d}" for d in unknown)
                           + f" not known statically{_reason(site, 'block')}")
        assumptions.append("assumed " + ", ".join(f"blockDim.{d} = {b['xyz'.index(d)]}" for d in unknown)
                           + f" ({b[0] * b[1] * b[2]} threads per block, from {whence} of {total})")
        smem = site_smem()
        return LaunchConfig(b, grid or site.grid, smem, "default", _where(site, kernel) + " (partly known)",
                            assumptions, params_from(site), site)
    if site is not None:
        assumptions.append(f"block size `{site.block_text}` at line {site.range.line} is not known "
                           f"statically{_reason(site, 'block')}")
    if kernel.launch_bounds and kernel.launch_bounds[0]:
        b = (int(kernel.launch_bounds[0]), 1, 1)
        assumptions.append(f"block of {b[0]} threads (1-D) taken from __launch_bounds__")
        return LaunchConfig(b, grid, smem, "launch-bounds", f"__launch_bounds__({b[0]})",
                            assumptions, params_from(site), site)
    why = "no launch configuration found" if site is None else "block size not known"
    if default_block is not None:  # configured default (`default-block`)
        shape = "x".join(map(str, default_block))
        assumptions.append(f"{why}; assumed the configured default block {shape}")
        return LaunchConfig(tuple(default_block), grid, smem, "default", f"configured default-block {shape}",
                            assumptions, params_from(site), site)
    assumptions.append(f"{why}; assumed the default block of 256 threads (1-D)")
    return LaunchConfig(DEFAULT_BLOCK, grid, smem, "default", "default 256 threads, 1-D",
                        assumptions, params_from(site), site)


def _reason(site: ir.LaunchSite, what: str) -> str:
    for u in site.unknown:
        if u.startswith(what + " "):
            return ": " + u.split("`: ", 1)[-1]
    return ""


# Smaller 1-D blocks tried, largest first, when no launch configuration fixes the block and the
# stated default makes the kernel index past the end of a shared array (it is written for
# smaller blocks).
FALLBACK_BLOCKS = ((128, 1, 1), (64, 1, 1), (32, 1, 1))


def fit_block(launch: LaunchConfig, trial: Callable[[tuple], tuple[Any, list[str]]]) -> tuple[tuple, Any, str]:
    """The block the per-thread facts (barriers, races) run with: ``(block, trial result, note)``.

    ``trial(block)`` runs those facts for ``block`` and returns its result with the names of
    the shared arrays it indexed past; ``trial(block, True)`` (a fallback block, whose result
    is kept only if it stays inside the arrays) may stop at the first access past one. ``launch.block`` is kept unless the block is the stated
    default (``launch.source == "default"``) and overruns; then the largest of
    ``FALLBACK_BLOCKS`` that stays inside the arrays is taken and ``note`` says so. Only a run of
    every thread can tell an overrun, so the other facts (accesses, occupancy, CGMA) keep
    ``launch.block``; ``explain`` states the switch once, with the race facts.
    """
    first, over = trial(tuple(launch.block))
    if launch.source != "default" or not over or partly_known(launch) is not None:
        return tuple(launch.block), first, ""
    names = ", ".join(f"`{n}`" for n in over)
    for b in FALLBACK_BLOCKS:
        res, o = trial(b, True)
        if not o:
            return b, res, (f"no launch found: assumed {b[0]} threads per block, since "
                            f"{launch.block[0]} would index past the end of shared {names}")
    return tuple(launch.block), first, ""


def fill_block(part: tuple, total: int) -> tuple[int, int, int]:
    """A block with the known components of ``part`` (None: unknown) and the first unknown one
    given what is left of ``total`` threads (at least 1; 1 where the known ones do not divide
    ``total``), the other unknown ones 1: ``(4, 8, None)`` with 256 -> (4, 8, 8)."""
    known = 1
    for c in part:
        known *= c if c is not None else 1
    rest = total // known if known < total and total % known == 0 else 1
    out = []
    for c in part:
        if c is None:
            out.append(rest)
            rest = 1
        else:
            out.append(c)
    return tuple(out)


def partly_known(lc: "LaunchConfig") -> Optional[tuple]:
    """The known components of a launch whose block is known only in part, else None."""
    site = lc.site
    if lc.source != "default" or site is None or site.block is not None:
        return None
    return getattr(site, "block_partial", None)


def default_reason(lc: "LaunchConfig") -> str:
    """Why a launch uses the default block: no launch of the kernel was found, or the one found
    has a block size that is not known statically (in whole, or in some components: then what
    was known and what was assumed)."""
    if lc.site is None:
        return "no launch configuration found"
    part = partly_known(lc)
    if part is not None:
        known = ", ".join(f"blockDim.{d} = {c}" for d, c in zip("xyz", part) if c is not None)
        guess = ", ".join(f"blockDim.{d} = {lc.block['xyz'.index(d)]}" for d, c in zip("xyz", part) if c is None)
        return (f"the launch at line {lc.site.range.line} gives {known}; the rest is not known: "
                f"assumed {guess}")
    if lc.site.block is None and lc.site.noargs_block is not None and tuple(lc.block) == lc.site.noargs_block:
        return (f"the block size of the launch at line {lc.site.range.line} is not known statically; "
                "its value when the program runs without command-line arguments")
    return f"the block size of the launch at line {lc.site.range.line} is not known"
