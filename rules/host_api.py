"""CL7xx: host-side use of the CUDA runtime (unchecked errors, unchecked launches, deprecated
calls, launch configurations over the target's limits).

Host functions of the analysed file are lowered to the same IR as kernels, with launches as
``ir.LaunchExpr``; CL702 walks their control-flow graph (``analyzer/cfg.py``).

What counts as checking an error:

- the ``cudaError_t`` a call returns is used: compared, passed to a function or macro
  (``CHECK(cudaMalloc(...))``, ``checkCudaErrors(...)``, ``gpuErrchk(...)``), returned, or
  stored in a variable that is read later (``cudaError_t e = cudaMalloc(...); if (e) ...``);
- a cast to ``void`` (``(void)cudaFree(p)``) is a deliberate, visible decision to ignore it;
- for a launch: a call of ``cudaGetLastError()``/``cudaPeekAtLastError()`` whose result is used,
  a wrapper defined in the file that makes such a call, or a helper whose name says it checks
  the last error (``getLastCudaError("...")``, ``cudaCheckError()``, ``CUDA_CHECK_LAST()``).
"""
from __future__ import annotations

import os
import re
from typing import Optional

from ..analyzer import ir
from ..analyzer.cfg import CFG, EXIT, RETURN
from ..analyzer.launch import _site_matches
from .context import RuleContext
from .diagnostic import Edit, Fix, Location, Related
from .registry import RULES, rule

ERROR_TYPES = {"cudaError_t", "cudaError", "enum cudaError"}
LAST_ERROR_CALLS = {"cudaGetLastError", "cudaPeekAtLastError"}
SYNC_CALLS = {"cudaDeviceSynchronize", "cudaThreadSynchronize", "cudaStreamSynchronize",
              "cudaEventSynchronize", "cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D",
              "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol", "cudaMemcpyPeer", "cudaMemcpy2DToArray",
              "cudaMemcpy2DFromArray", "cudaMemcpyToArray", "cudaMemcpyFromArray", "cudaDeviceReset",
              "cudaThreadExit", "cudaFree", "cudaFreeArray", "cudaFreeHost", "cudaStreamDestroy"}
# A helper whose name says it checks the last error (takes no CUDA call as argument).
LAST_ERROR_HELPER_RE = re.compile(
    r"(?i)(last_?(cuda_?)?err|check_?(cuda_?)?(last_?)?err|cuda_?check|errchk|check_?(kernel|launch)|"
    r"(kernel|launch)_?check|err(or)?_?check)")

# deprecated call -> (replacement, drop-in rename?, note)
DEPRECATED = {
    "cudaThreadSynchronize": ("cudaDeviceSynchronize", True, "deprecated since CUDA 4.0"),
    "cudaThreadExit": ("cudaDeviceReset", True, "deprecated since CUDA 4.0"),
    "cudaThreadSetLimit": ("cudaDeviceSetLimit", True, "deprecated since CUDA 4.0"),
    "cudaThreadGetLimit": ("cudaDeviceGetLimit", True, "deprecated since CUDA 4.0"),
    "cudaThreadSetCacheConfig": ("cudaDeviceSetCacheConfig", True, "deprecated since CUDA 4.0"),
    "cudaThreadGetCacheConfig": ("cudaDeviceGetCacheConfig", True, "deprecated since CUDA 4.0"),
    "cudaMemcpyToArray": ("cudaMemcpy2DToArray", False, "deprecated since CUDA 10.1"),
    "cudaMemcpyFromArray": ("cudaMemcpy2DFromArray", False, "deprecated since CUDA 10.1"),
    "cudaMemcpyToArrayAsync": ("cudaMemcpy2DToArrayAsync", False, "deprecated since CUDA 10.1"),
    "cudaMemcpyFromArrayAsync": ("cudaMemcpy2DFromArrayAsync", False, "deprecated since CUDA 10.1"),
    "cudaMemcpyArrayToArray": ("cudaMemcpy2DArrayToArray", False, "deprecated since CUDA 10.1"),
    "cudaBindTexture": ("texture objects (cudaCreateTextureObject)", False, "removed in CUDA 12.0"),
    "cudaBindTexture2D": ("texture objects (cudaCreateTextureObject)", False, "removed in CUDA 12.0"),
    "cudaBindTextureToArray": ("texture objects (cudaCreateTextureObject)", False, "removed in CUDA 12.0"),
    "cudaBindTextureToMipmappedArray": ("texture objects (cudaCreateTextureObject)", False, "removed in CUDA 12.0"),
    "cudaUnbindTexture": ("cudaDestroyTextureObject", False, "removed in CUDA 12.0"),
    "cudaGetTextureReference": ("texture objects", False, "removed in CUDA 12.0"),
    "cudaGetTextureAlignmentOffset": ("texture objects", False, "removed in CUDA 12.0"),
    "cudaBindSurfaceToArray": ("surface objects (cudaCreateSurfaceObject)", False, "removed in CUDA 12.0"),
    "cudaGetSurfaceReference": ("surface objects", False, "removed in CUDA 12.0"),
    "cudaSetDoubleForDevice": (None, False, "deprecated since CUDA 10.0; it has no effect"),
    "cudaSetDoubleForHost": (None, False, "deprecated since CUDA 10.0; it has no effect"),
    "cudaGLSetGLDevice": ("cudaSetDevice", False, "deprecated since CUDA 5.0; OpenGL interop needs no special device"),
    "cudaGLRegisterBufferObject": ("cudaGraphicsGLRegisterBuffer", False, "deprecated since CUDA 3.0"),
    "cudaGLUnregisterBufferObject": ("cudaGraphicsUnregisterResource", False, "deprecated since CUDA 3.0"),
    "cudaGLMapBufferObject": ("cudaGraphicsMapResources", False, "deprecated since CUDA 3.0"),
    "cudaGLMapBufferObjectAsync": ("cudaGraphicsMapResources", False, "deprecated since CUDA 3.0"),
    "cudaGLUnmapBufferObject": ("cudaGraphicsUnmapResources", False, "deprecated since CUDA 3.0"),
    "cudaGLUnmapBufferObjectAsync": ("cudaGraphicsUnmapResources", False, "deprecated since CUDA 3.0"),
    "cudaGLSetBufferObjectMapFlags": ("cudaGraphicsResourceSetMapFlags", False, "deprecated since CUDA 3.0"),
    "cudaD3D9SetDirect3DDevice": (None, False, "deprecated"),
    "cudaDeviceSetSharedMemConfig": (None, False, "deprecated since CUDA 12.4; shared-memory bank size is no longer configurable"),
    "cudaDeviceGetSharedMemConfig": (None, False, "deprecated since CUDA 12.4"),
    "cudaFuncSetSharedMemConfig": (None, False, "deprecated since CUDA 12.4; shared-memory bank size is no longer configurable"),
    "cudaProfilerInitialize": (None, False, "removed in CUDA 12.0"),
    "cudaConfigureCall": ("cudaLaunchKernel", False, "removed in CUDA 10.1"),
    "cudaSetupArgument": ("cudaLaunchKernel", False, "removed in CUDA 10.1"),
    "cudaLaunch": ("cudaLaunchKernel", False, "removed in CUDA 10.1"),
}


def _in_file(ctx: RuleContext, r: ir.SourceRange) -> bool:
    return bool(r.file) and os.path.abspath(r.file) == os.path.abspath(ctx.path)


def _host_functions(ctx: RuleContext) -> list[ir.Function]:
    tu = ctx.analysis.tu
    if tu is None:
        return []
    return [f for f in tu.functions if f.kind in ("host", "host_device") and f.body is not None
            and _in_file(ctx, f.range)]


def _returns_error(c: ir.Call) -> bool:
    sp = c.type.spelling.replace("const ", "").strip()
    return c.callee.startswith("cuda") and (sp in ERROR_TYPES or sp.endswith("::cudaError_t"))


def _strip(e: ir.Expr) -> ir.Expr:
    while isinstance(e, ir.Cast) and e.implicit:
        e = e.operand
    return e


def _discarded_calls(fn: ir.Function):
    """(call, how) for runtime calls whose cudaError_t is discarded: ``how`` is 'statement'
    for a call used as a statement."""
    for st in fn.statements():
        if isinstance(st, ir.ExprStmt):
            e = _strip(st.expr)
            if isinstance(e, ir.Call) and _returns_error(e):
                yield e
            elif isinstance(e, ir.BinOp) and e.op == ",":
                for side in (e.lhs, e.rhs):
                    s2 = _strip(side)
                    if isinstance(s2, ir.Call) and _returns_error(s2):
                        yield s2
        elif isinstance(st, ir.Loop):
            for x in ([st.step] if st.step is not None else []):
                s2 = _strip(x)
                if isinstance(s2, ir.Call) and _returns_error(s2):
                    yield s2


def _reads(fn: ir.Function) -> set:
    """Variables read anywhere in ``fn`` (a plain ``=`` target is not a read)."""
    out: set = set()
    targets: set = set()
    for e in fn.expressions():
        if isinstance(e, ir.Assign) and e.op == "=" and isinstance(e.target, ir.VarRef):
            targets.add(id(e.target))
    for e in fn.expressions():
        if isinstance(e, ir.VarRef) and id(e) not in targets:
            out.add(e.var)
    return out


# ---------------------------------------------------------------------- CL701

@rule(
    "CL701", "unchecked-cuda-error", "warning",
    "The cudaError_t returned by a CUDA runtime call is ignored",
    what="Finds calls of CUDA runtime functions that return `cudaError_t` whose result is thrown away "
         "(the call is a statement of its own), or stored in a variable that is never read. A result "
         "passed to an error-checking macro or function, compared, returned, or explicitly cast to "
         "`void` is fine, and so is a call followed on every path by a check of "
         "`cudaGetLastError()`/`cudaPeekAtLastError()` (`cudaMalloc(...); cudaCheckError();`: the "
         "error state keeps the failure until it is read). `cudaGetLastError()` on its own line is "
         "the idiom that clears the error state and is not reported here.",
    why="CUDA reports failures only through these return values: an allocation that failed, a copy "
        "with a bad pointer, or an error from an earlier asynchronous kernel goes unnoticed and the "
        "program continues with garbage, failing much later far from the cause.",
    example="""
cudaMalloc(&d_a, bytes);                 // failure ignored
cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice);""",
    how_to_fix="Check every call, e.g. with a macro: `#define CHECK(x) do { cudaError_t e = (x); if (e != "
               "cudaSuccess) { fprintf(stderr, \"%s\\n\", cudaGetErrorString(e)); exit(1); } } while (0)` "
               "and `CHECK(cudaMalloc(&d_a, bytes));`. Write `(void)cudaFree(p);` where ignoring is intended.",
)
def unchecked_error(ctx: RuleContext):
    me = RULES["CL701"]
    tu = ctx.analysis.tu
    memo: dict = {}
    for fn in _host_functions(ctx):
        cfg = None
        for c in _discarded_calls(fn):
            if c.callee == "cudaGetLastError" or not _in_file(ctx, c.range):
                continue
            # `cudaMalloc(...); cudaCheckError();`: the error state keeps the failure until it
            # is read, so a last-error check on every path afterwards checks this call too.
            cfg = cfg or CFG(fn)
            node = cfg.node_of_expr(c)
            if node is not None and _unchecked_path(cfg, node, tu, memo, stop_at_sync=False) is None:
                continue
            yield ctx.diag(me, _name_range(ctx, c),
                           f"the cudaError_t returned by `{c.callee}()` is ignored; check it (or cast "
                           f"to void to ignore it deliberately)")
        reads = _reads(fn)
        for st in fn.statements():
            pairs = []
            if isinstance(st, ir.DeclStmt) and st.init is not None:
                pairs.append((st.var, _strip(st.init)))
            for e in st.exprs() if not isinstance(st, ir.DeclStmt) else []:
                for x in e.walk():
                    if isinstance(x, ir.Assign) and x.op == "=" and isinstance(x.target, ir.VarRef):
                        pairs.append((x.target.var, _strip(x.value)))
            for var, val in pairs:
                if isinstance(val, ir.Call) and _returns_error(val) and var not in reads and \
                        not var.file_scope and _in_file(ctx, val.range):
                    yield ctx.diag(me, _name_range(ctx, val),
                                   f"the cudaError_t returned by `{val.callee}()` is stored in `{var.name}` "
                                   f"but never checked")


def _name_range(ctx: RuleContext, c: ir.Call) -> ir.SourceRange:
    """The callee's identifier when the call is spelled at its range (else the whole call)."""
    r = c.range
    lines = ctx.analysis.source_lines
    if 1 <= r.line <= len(lines):
        text = lines[r.line - 1]
        col = r.column - 1
        if text[col:col + len(c.callee)] == c.callee:
            return ir.SourceRange(r.file, r.line, r.column, r.line, r.column + len(c.callee))
    return r


# ---------------------------------------------------------------------- CL702

def _checks_last_error(fn: ir.Function, tu, depth: int = 0, memo: Optional[dict] = None) -> bool:
    """Whether calling ``fn`` reads the last error (a wrapper around cudaGetLastError)."""
    memo = memo if memo is not None else {}
    if id(fn) in memo:
        return memo[id(fn)]
    memo[id(fn)] = False
    res = False
    if fn.body is not None and depth < 4:
        for st in fn.statements():
            if _stmt_checks(st, tu, depth + 1, memo):
                res = True
                break
    memo[id(fn)] = res
    return res


def _call_is_check(c: ir.Call, tu, depth: int, memo: dict, used: bool) -> bool:
    if c.callee in LAST_ERROR_CALLS:
        return used
    if c.function is not None and c.function.kind != "global" and _checks_last_error(c.function, tu, depth, memo):
        return True
    if tu is not None and c.function is None:
        f = tu.function(c.callee)
        if f is not None and f.kind in ("host", "host_device") and _checks_last_error(f, tu, depth, memo):
            return True
    if LAST_ERROR_HELPER_RE.search(c.callee) and not c.callee.startswith("cuda"):
        # a checking helper: it must not be checking some other runtime call passed to it
        inner = [x for a in c.args for x in a.walk() if isinstance(x, ir.Call) and x.callee.startswith("cuda")]
        if not inner or any(x.callee in LAST_ERROR_CALLS for x in inner):
            return True
    return False


def _stmt_checks(st: ir.Stmt, tu, depth: int = 0, memo: Optional[dict] = None) -> bool:
    memo = memo if memo is not None else {}
    discarded = set()
    if isinstance(st, ir.ExprStmt):
        e = _strip(st.expr)
        if isinstance(e, ir.Call):
            discarded.add(id(e))
        if isinstance(e, ir.Cast) and e.type.kind == "void" and isinstance(_strip(e.operand), ir.Call):
            discarded.add(id(_strip(e.operand)))
    for e in st.exprs():
        for x in e.walk():
            if isinstance(x, ir.Call) and _call_is_check(x, tu, depth, memo, id(x) not in discarded):
                return True
    return False


def _node_calls(n) -> list[ir.Call]:
    out = []
    for e in n.exprs():
        for x in e.walk():
            if isinstance(x, ir.Call):
                out.append(x)
    return out


def _node_has_launch(n) -> bool:
    return any(isinstance(x, ir.LaunchExpr) for e in n.exprs() for x in e.walk())


def _clears_last_error(n) -> bool:
    """``cudaGetLastError();`` as a statement: reads and discards (resets) the error state."""
    st = n.stmt
    return isinstance(st, ir.ExprStmt) and isinstance(_strip(st.expr), ir.Call) and \
        _strip(st.expr).callee == "cudaGetLastError"


def _unchecked_path(cfg: CFG, start, tu, memo: dict, stop_at_sync: bool = True):
    """Follow every path from ``start`` (exclusive); return the first node where a path reaches
    a synchronization (when ``stop_at_sync``), a return or the end of the function without a
    last-error check, or None."""
    seen = set()
    stack = list(cfg.graph.successors(start))
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if not stop_at_sync and n.kind == "stmt" and _clears_last_error(n):
            return n
        if n.stmt is not None and n.kind not in ("branch", "loop_cond", "switch", "loop_head") and \
                _stmt_checks(n.stmt, tu, 0, memo):
            continue
        if n.kind in ("branch", "loop_cond", "switch", "loop_step") and n.expr is not None:
            fake = ir.ExprStmt(n.expr.range, n.expr)
            if _stmt_checks(fake, tu, 0, memo):
                continue
        if n.kind == EXIT or n.kind == RETURN:
            return n
        if stop_at_sync and any(c.callee in SYNC_CALLS for c in _node_calls(n)):
            return n
        # The branch taken when another call has just reported an error (`CHECK(...)`'s
        # `if (e != cudaSuccess) return 1;`) is a failure being reported, not one going unnoticed.
        failing = _error_branch_label(n.expr) if n.kind == "branch" and n.expr is not None else None
        stack.extend(m for m in cfg.graph.successors(n)
                     if failing is None or cfg.graph.edges[n, m].get("label") != failing)
    return None


_ERROR_TYPES = ("cudaError_t", "cudaError", "CUresult", "cudaError_enum")


def _is_error_value(e: ir.Expr) -> bool:
    t = getattr(_strip(e), "type", None) or getattr(e, "type", None)
    return t is not None and t.spelling.replace("enum ", "").strip() in _ERROR_TYPES


def _error_branch_label(cond: ir.Expr):
    """The edge label (True/False) of a branch on a CUDA error code that is taken when the code
    reports a failure (`e != cudaSuccess`, `cudaSuccess == e` negated, `if (e)`); None for
    any other condition."""
    c = _strip(cond)
    if isinstance(c, ir.BinOp) and c.op in ("!=", "=="):
        for a, b in ((c.lhs, c.rhs), (c.rhs, c.lhs)):
            bb = _strip(b)
            if _is_error_value(a) and isinstance(bb, ir.Const) and bb.value == 0:
                return c.op == "!="
        return None
    if isinstance(c, ir.UnaryOp) and c.op == "!" and _is_error_value(c.operand):
        return False
    if _is_error_value(c):
        return True
    return None


@rule(
    "CL702", "unchecked-kernel-launch", "warning",
    "A kernel launch is not followed by cudaGetLastError()/cudaPeekAtLastError()",
    what="Follows the host code after each `kernel<<<...>>>(...)` and reports the launch when some path "
         "reaches a `return` or the end of the function, or discards the error state with a bare "
         "`cudaGetLastError();`, without calling `cudaGetLastError()` or `cudaPeekAtLastError()` "
         "(directly, through a macro, or through a wrapper defined in the file or named like "
         "`getLastCudaError`). A check after an intervening synchronisation counts: the launch error "
         "stays in the error state until it is read (`cudaDeviceSynchronize(); getLastCudaError(...)` "
         "still reports it). A launch in a helper that returns right away is fine when every call of "
         "the helper in the file is followed by such a check.",
    why="A launch returns nothing: an invalid configuration (too many threads, too much shared memory, "
        "no kernel image for the GPU) is only reported by `cudaGetLastError()`. Checking the result of a "
        "later `cudaDeviceSynchronize()` catches faults during the kernel's execution, not a launch "
        "that never happened.",
    example="""
kernel<<<grid, block>>>(d_a, n);
CHECK(cudaDeviceSynchronize());   // execution faults only
return 0;                          // the launch error was never read""",
    how_to_fix="Right after the launch: `CHECK(cudaGetLastError());` (or `cudaPeekAtLastError()`), then "
               "check the synchronization's result for execution errors.",
)
def unchecked_launch(ctx: RuleContext):
    me = RULES["CL702"]
    tu = ctx.analysis.tu
    memo: dict = {}
    cfgs: dict = {}

    def cfg_of(fn):
        if id(fn) not in cfgs:
            cfgs[id(fn)] = CFG(fn)
        return cfgs[id(fn)]

    fns = _host_functions(ctx)
    for fn in fns:
        cfg = cfg_of(fn)
        for n in cfg.nodes:
            if not _node_has_launch(n) or not _in_file(ctx, n.range):
                continue
            if n.stmt is not None and _launch_checked_inline(n, tu, memo):
                continue
            # A synchronisation does not end the search: the launch error stays in the
            # error state until read, so a check after `cudaDeviceSynchronize()` catches it.
            bad = _unchecked_path(cfg, n, tu, memo, stop_at_sync=False)
            if bad is None:
                continue
            if bad.kind in (EXIT, RETURN) and _callers_check(fn, fns, cfg_of, tu, memo, 0):
                continue
            launch = next(x for e in n.exprs() for x in e.walk() if isinstance(x, ir.LaunchExpr))
            if bad.kind == EXIT:
                where = f"the end of `{fn.display_name}`"
            elif bad.kind == RETURN:
                where = f"the return at line {bad.line}"
            else:
                where = f"the bare `cudaGetLastError();` at line {bad.line}, which discards the error"
            msg = (f"launch of `{launch.site.kernel}` is not followed by cudaGetLastError() or "
                   f"cudaPeekAtLastError() before {where}: a launch failure (e.g. an invalid "
                   f"configuration) would go unnoticed")
            rel = ()
            if bad.kind != EXIT and bad.line:
                rel = (Related(ctx.path, Location(bad.line, max(bad.range.column, 1)), "reached unchecked here"),)
            yield ctx.diag(me, launch.range, msg, related=rel)


def _launch_checked_inline(n, tu, memo) -> bool:
    """``CHECK((k<<<g, b>>>(x), cudaGetLastError()))`` and the like: a check in the same statement
    after the launch."""
    return _stmt_checks(n.stmt, tu, 0, memo) if n.kind not in ("branch", "loop_cond") else False


def _callers_check(fn: ir.Function, fns: list, cfg_of, tu, memo: dict, depth: int) -> bool:
    if depth > 3:
        return False
    sites = []
    for g in fns:
        if g is fn:
            continue
        cfg = cfg_of(g)
        for n in cfg.nodes:
            if any(c.function is fn or (c.function is None and c.callee == fn.name) for c in _node_calls(n)):
                sites.append((g, cfg, n))
    if not sites:
        return False
    for g, cfg, n in sites:
        if _stmt_checks(n.stmt, tu, 0, memo) if n.stmt is not None and n.kind == "stmt" else False:
            continue
        bad = _unchecked_path(cfg, n, tu, memo, stop_at_sync=False)
        if bad is None:
            continue
        if bad.kind in (EXIT, RETURN) and _callers_check(g, fns, cfg_of, tu, memo, depth + 1):
            continue
        return False
    return True


# ---------------------------------------------------------------------- CL703

@rule(
    "CL703", "deprecated-cuda-api", "warning",
    "Call of a deprecated or removed CUDA runtime function",
    what="Finds calls of runtime functions that CUDA deprecated or removed (the `cudaThread*` family, "
         "`cudaMemcpyToArray`, texture and surface references, legacy OpenGL interop, ...). For a "
         "drop-in rename (`cudaThreadSynchronize` -> `cudaDeviceSynchronize`) the fix replaces the "
         "identifier.",
    why="Deprecated functions may disappear from the next toolkit (texture references and "
        "`cudaConfigureCall` already have), and some no longer do anything.",
    example="cudaThreadSynchronize();   // use cudaDeviceSynchronize()",
    how_to_fix="Use the replacement named in the message; apply the fix for a plain rename.",
)
def deprecated_api(ctx: RuleContext):
    me = RULES["CL703"]
    tu = ctx.analysis.tu
    if tu is None:
        return
    seen = set()
    for fn in tu.functions:
        if fn.body is None or not _in_file(ctx, fn.range):
            continue
        for e in fn.expressions():
            if not isinstance(e, ir.Call) or e.callee not in DEPRECATED:
                continue
            key = (e.range.line, e.range.column)
            if key in seen or not _in_file(ctx, e.range):
                continue
            seen.add(key)
            repl, rename, note = DEPRECATED[e.callee]
            r = _name_range(ctx, e)
            fix = None
            if repl and rename and (r.end_column - r.column) == len(e.callee):
                fix = Fix(f"replace `{e.callee}` with `{repl}`",
                          (Edit(Location(r.line, r.column), Location(r.end_line, r.end_column), repl),))
            msg = f"`{e.callee}` is {note}"
            if repl:
                msg += f"; use {'`' + repl + '`' if rename or repl.startswith('cuda') else repl}"
                if not rename and repl.startswith("cuda"):
                    msg += " (different parameters)"
            yield ctx.diag(me, r, msg, fix=fix)


# ---------------------------------------------------------------------- CL704

@rule(
    "CL704", "launch-over-limits", "error",
    "Launch configuration exceeds the target's limits",
    what="Checks every launch whose configuration is known at the call site against the target "
         "architecture: block dimensions (1024 x 1024 x 64; 512 x 512 x 64 on sm_1x), the kernel's "
         "`__launch_bounds__`, grid dimensions (2^31-1 x 65535 x 65535) and dynamic shared memory over "
         "the default 48 KB without `cudaFuncSetAttribute(..., "
         "cudaFuncAttributeMaxDynamicSharedMemorySize, ...)`. More threads per block than the target "
         "allows, and shared memory over the opt-in maximum, are reported by CL403 (one diagnostic "
         "per problem).",
    why="The launch fails with `cudaErrorInvalidConfiguration` (or 'too many resources requested') and "
        "the kernel never runs; without a `cudaGetLastError()` check nothing tells you.",
    example="kernel<<<blocks, dim3(32, 64)>>>(...);   // 2048 threads per block > 1024",
    how_to_fix="Use at most the limits of the target (e.g. 256 threads per block and more blocks); "
               "raise shared memory above 48 KB with the opt-in attribute; keep the block within "
               "`__launch_bounds__`.",
)
def launch_over_limits(ctx: RuleContext):
    me = RULES["CL704"]
    tu = ctx.analysis.tu
    if tu is None:
        return
    t = ctx.target
    max_threads = t.max_threads_per_block
    max_dims = (512, 512, 64) if t.major < 2 else (1024, 1024, 64)
    max_grid = (65535 if t.major < 3 else 2 ** 31 - 1, 65535, 65535 if t.major >= 2 else 1)
    optin_set = _smem_optin(tu)
    for site in tu.launches:
        if not _in_file(ctx, site.range):
            continue
        kernel = next((k for k in tu.kernels if _site_matches(site, k)), None)
        kname = site.kernel
        problems = []
        b = site.block
        if b is not None:
            n = b[0] * b[1] * b[2]
            # More threads per block than the target allows is CL403's (reported once, there).
            for i, (v, lim) in enumerate(zip(b, max_dims)):
                if v > lim and not (i == 0 and n > max_threads):
                    problems.append(f"block dimension {'xyz'[i]} = {v} exceeds {lim}")
            if kernel is not None and kernel.launch_bounds and kernel.launch_bounds[0] and \
                    n > kernel.launch_bounds[0] and n <= max_threads:
                problems.append(f"{n} threads per block exceed the kernel's __launch_bounds__("
                                f"{kernel.launch_bounds[0]})")
        g = site.grid
        if g is not None:
            for i, (v, lim) in enumerate(zip(g, max_grid)):
                if v > lim:
                    problems.append(f"grid dimension {'xyz'[i]} = {v} exceeds {lim}")
        dyn = site.dynamic_smem
        if dyn is not None:
            static = 0
            if kernel is not None:
                kf = next((k for k in ctx.analysis.kernels if k.function is kernel), None)
                if kf is not None:
                    static = sum(v.bytes or 0 for v in kf.variables if v.memory == "shared" and v.storage == "shared")
            total = static + dyn
            # Over the opt-in maximum is CL403's; over the default without the opt-in is ours.
            if total <= t.max_shared_memory_per_block_optin and \
                    dyn > t.max_shared_memory_per_block - static and kname not in optin_set and \
                    "*" not in optin_set:
                problems.append(f"{dyn} bytes of dynamic shared memory exceed the default "
                                f"{t.max_shared_memory_per_block - static} bytes available without "
                                f"cudaFuncSetAttribute({kname}, cudaFuncAttributeMaxDynamicSharedMemorySize, ...)")
        if problems:
            yield ctx.diag(me, site.range, f"launch of `{kname}` will fail: " + "; ".join(problems))


def _smem_optin(tu) -> set:
    """Kernels for which the file raises the dynamic shared memory limit ('*' when unclear)."""
    out = set()
    for fn in tu.functions:
        if fn.body is None:
            continue
        for e in fn.expressions():
            if isinstance(e, ir.Call) and e.callee in ("cudaFuncSetAttribute", "cuFuncSetAttribute"):
                target = None
                if e.args:
                    for x in e.args[0].walk():
                        if isinstance(x, ir.FuncRef):
                            target = x.name
                            break
                out.add(target or "*")
    return out
