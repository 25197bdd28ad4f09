"""CL7xx: host-side use of the CUDA runtime (unchecked errors, unchecked launches, deprecated
calls, launch configurations over the target's limits).

The facts (ignored errors, unchecked launches, the shared-memory opt-in) come from
``analyzer/host_api.py``, which also says what counts as checking an error.
"""
from __future__ import annotations

from ..analyzer import ir
from ..analyzer.cfg import EXIT, RETURN
from ..analyzer.host_api import ignored_errors, smem_optin, unchecked_launches
from ..analyzer.launch import site_matches
from .context import RuleContext
from .diagnostic import Edit, Fix, Location, Related
from .registry import RULES, rule

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
         "the idiom that clears the error state and is not reported here, nor are `cudaEventQuery()` "
         "and `cudaStreamQuery()` on their own lines: their usual answer, `cudaErrorNotReady`, is "
         "not a failure (they are called to flush the launch queue), and a sticky error is "
         "returned again by the next call.",
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
    for ig in ignored_errors(ctx.analysis.tu, ctx.analysis.reportable):
        c = ig.call
        if ig.variable is None:
            yield ctx.diag(me, _name_range(ctx, c),
                           f"the cudaError_t returned by `{c.callee}()` is ignored; check it (or cast "
                           f"to void to ignore it deliberately)")
        else:
            yield ctx.diag(me, _name_range(ctx, c),
                           f"the cudaError_t returned by `{c.callee}()` is stored in `{ig.variable.name}` "
                           f"but never checked")


def _name_range(ctx: RuleContext, c: ir.Call) -> ir.SourceRange:
    """The callee's identifier when the call is spelled at its range (else the whole call)."""
    r = c.range
    lines = ctx.analysis.lines_of(r.file)
    if 1 <= r.line <= len(lines):
        text = lines[r.line - 1]
        col = r.column - 1
        if text[col:col + len(c.callee)] == c.callee:
            return ir.SourceRange(r.file, r.line, r.column, r.line, r.column + len(c.callee))
    return r


# ---------------------------------------------------------------------- CL702

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
    # Launches written by one macro expansion share its place: one finding for them, counted.
    found: dict = {}
    for u in unchecked_launches(ctx.analysis.tu, ctx.analysis.reportable):
        bad = u.reached
        if bad.kind == EXIT:
            where = f"the end of `{u.function.display_name}`"
        elif bad.kind == RETURN:
            where = f"the return at line {bad.line}"
        else:
            where = f"the bare `cudaGetLastError();` at line {bad.line}, which discards the error"
        msg = (f"launch of `{u.launch.site.kernel}` is not followed by cudaGetLastError() or "
               f"cudaPeekAtLastError() before {where}: a launch failure (e.g. an invalid "
               f"configuration) would go unnoticed")
        rel = ()
        if bad.kind != EXIT and bad.line:
            rel = (Related(ctx.analysis.shown_path(bad.range.file), Location(bad.line, max(bad.range.column, 1)),
                           "reached unchecked here"),)
        r = u.launch.range
        # keyed without the function's name: the instantiations of a host template
        # (SHOC S3D's RunTest<float> and RunTest<double>) reach the same place from one launch
        key = (r.file, r.line, r.column, bad.kind, bad.line)
        if key in found:
            found[key][0] += 1
        else:
            found[key] = [1, r, msg, rel, u.launch.site.kernel]
    for n, r, msg, rel, kernel in found.values():
        if n > 1:
            lines = ctx.analysis.lines_of(r.file)
            written = 1 <= r.line <= len(lines) and lines[r.line - 1][r.column - 1:].startswith(kernel)
            how = "one per instantiation of the function" if written else \
                "written by the macro expanded here"
            msg += f" ({n} such launches, {how})"
        yield ctx.diag(me, r, msg, related=rel)


# ---------------------------------------------------------------------- CL703

@rule(
    "CL703", "deprecated-cuda-api", "warning",
    "Call of a deprecated or removed CUDA runtime function",
    what="Finds calls of runtime functions that CUDA deprecated or removed (the `cudaThread*` family, "
         "`cudaMemcpyToArray`, texture and surface references, legacy OpenGL interop, "
         "`cudaDeviceSynchronize()` in device code, ...). For a "
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
        if fn.body is None or not ctx.in_file(fn.range):
            continue
        for e in fn.expressions():
            if isinstance(e, ir.Call) and e.callee == "cudaDeviceSynchronize" and \
                    fn.kind in ("global", "device") and ctx.in_file(e.range):
                # a parent grid waiting for its child grids (dynamic parallelism, CDP1)
                key = (e.range.line, e.range.column)
                if key not in seen:
                    seen.add(key)
                    yield ctx.diag(me, _name_range(ctx, e), _device_sync_message(ctx.target))
                continue
            if not isinstance(e, ir.Call) or e.callee not in DEPRECATED:
                continue
            key = (e.range.line, e.range.column)
            if key in seen or not ctx.in_file(e.range):
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


def _device_sync_message(target) -> str:
    """CL703's message for cudaDeviceSynchronize() called in device code."""
    head = ("`cudaDeviceSynchronize()` in device code (a parent grid waiting for the child grids "
            "it launched) is deprecated since CUDA 11.6 and removed from CUDA 12's dynamic "
            "parallelism: ")
    if target.major >= 9:
        where = f"it does not compile for sm_{target.major}{target.minor}"
    else:
        where = (f"for sm_{target.major}{target.minor} CUDA 12 compiles it only with "
                 "-DCUDA_FORCE_CDP1_IF_SUPPORTED, and not at all for sm_90 and newer")
    return (head + where + "; launch the work that needs the children's results as a tail "
            "launch (stream `cudaStreamTailLaunch`) or from the host")


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
    optin_set = smem_optin(tu)
    for site in tu.launches:
        if not ctx.in_file(site.range):
            continue
        kernel = next((k for k in tu.kernels if site_matches(site, k)), None)
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
