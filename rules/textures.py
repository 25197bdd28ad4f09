"""Texture memory (seed, "Texture Memory"): CL615 a texture read of memory the same kernel
writes (CL6xx, races); CL110 and CL111 textures over memory allocated for another use (CL1xx,
memory placement). The facts are in ``analyzer/texture_findings.py``.
"""
from __future__ import annotations

from .context import RuleContext
from .diagnostic import Location, Related
from .registry import RULES, rule
from ..analyzer.texture_findings import (hand_pitched_textures, pitched_linear_fetches,
                                         stale_texture_reads)


@rule(
    "CL615", "texture-read-of-written-memory", "error",
    "A kernel fetches through a texture memory that it also writes in the same launch",
    what="Finds kernels that fetch through a texture object or reference (`tex1Dfetch`, `tex2D`, ...) and, "
         "in the same kernel, write the memory behind it: through a surface bound to the same CUDA "
         "array (`surf2Dwrite`), or with a global store through a pointer that the launch passes to the "
         "same linear memory the texture is bound to. Which memory backs each object is read from the "
         "host code of the file (`cudaMallocArray`/`cudaMallocPitch`/`cudaMalloc`, the "
         "`cudaResourceDesc`, `cudaCreateTextureObject`/`cudaCreateSurfaceObject`, "
         "`cudaBindTexture*`/`cudaBindSurfaceToArray`, and the kernel's launch); where the host code "
         "does not show it, nothing is reported. A pointwise update in place is not reported: each "
         "thread fetches only the texel it writes itself, before writing it (checked lane by lane "
         "on representative warps), and no loop encloses both, so no fetch can see a write of the "
         "launch.",
    why="The texture cache is not kept coherent with global or surface writes during a kernel launch: "
        "a thread can safely read a texture or surface location only if it was updated by a previous "
        "kernel call or memory copy, not by the same thread or another thread of the same launch "
        "(Cook, *CUDA Programming*, \"Texture Memory\"; CUDA C++ Programming Guide, \"Read/Write "
        "Coherency\"). A fetch of a texel written earlier in the launch may return the old value from "
        "the cache: results then depend on timing and on the cache size of the GPU.",
    example="""
__global__ void smooth(cudaTextureObject_t in, cudaSurfaceObject_t out, int w) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    float v = 0.25f * (tex2D<float>(in, x - 1, y) + tex2D<float>(in, x + 1, y) +
                       tex2D<float>(in, x, y - 1) + tex2D<float>(in, x, y + 1));
    surf2Dwrite(v, out, x * 4, y);   // `out` is a surface over the same cudaArray as `in`
}""",
    how_to_fix="Write to a second array (ping-pong between two CUDA arrays or buffers across launches), or "
               "split the work into two kernel launches: the writes of one launch are visible to the "
               "texture fetches of the next.",
)
def texture_read_of_written_memory(ctx: RuleContext):
    me = RULES["CL615"]
    for s in stale_texture_reads(ctx.kernels, ctx.analysis.tu):
        r, w, b = s.read, s.write, s.binding
        how = (f"surface `{w.array}` over the same memory" if s.via == "surface"
               else f"a global store to `{w.array}`, which the launch binds to the same memory")
        msg = (f"`{ctx.access_text(r)}` fetches through texture `{r.array}` ({b.describe()}), and "
               f"this kernel writes that memory at line {w.line} through {how}: the texture cache is "
               f"not coherent within a launch, so the fetch may return stale data")
        rel = (Related(ctx.analysis.shown_path(w.range.file if w.range else None),
                       Location(w.line, w.column), "the write in the same launch"),)
        yield ctx.diag(me, ctx.access_site(r), msg, kernel=s.kernel.name, related=rel)


@rule(
    "CL110", "pitched-texture-fetched-linearly", "info",
    "A texture over cudaMallocPitch memory is read only with tex1Dfetch",
    what="Finds textures bound to pitch-linear memory from `cudaMallocPitch` whose every fetch in the "
         "file's kernels is `tex1Dfetch`, i.e. the texture is used only as a cache of linear memory, "
         "with integer addressing and no filtering or boundary handling.",
    why="`cudaMallocPitch` pads each row to the device's alignment so that 2-D texture hardware "
        "(filtering, wrapping, clamping) and 2-D copies work. A texture used only as a cache gains "
        "nothing from it: the texture cache is small and \"caching the padding added by "
        "cudaMallocPitch() would be wasteful\" (Cook, *CUDA Programming*, \"Texture Memory\"), and a "
        "`tex1Dfetch` index must step over the padding by hand.",
    example="""
float *d; size_t pitch;
cudaMallocPitch((void **)&d, &pitch, w * sizeof(float), h);
cudaResourceDesc res = {}; res.resType = cudaResourceTypeLinear;
res.res.linear.devPtr = d; res.res.linear.sizeInBytes = pitch * h;
cudaCreateTextureObject(&tex, &res, &td, NULL);   // kernels only call tex1Dfetch<float>(tex, i)""",
    how_to_fix="Allocate the data with `cudaMalloc` (no padding) when the texture is only a cache, or "
               "make it a 2-D texture (`cudaResourceTypePitch2D` with the pitch `cudaMallocPitch` "
               "returned) and fetch it with `tex2D` when its 2-D processing is wanted.",
)
def pitched_texture_fetched_linearly(ctx: RuleContext):
    me = RULES["CL110"]
    for b, uses in pitched_linear_fetches(ctx.kernels):
        if b.range is None or not ctx.in_file(b.range):
            continue
        k, a = uses[0]
        yield ctx.diag(me, b.range,
                       f"texture over pitch-linear memory `{b.backing_text}` ({b.allocation.call} at line "
                       f"{b.allocation.line}) is read only with tex1Dfetch (e.g. line {a.line} in "
                       f"`{k.name}`): the texture is used as a plain cache and caches the row padding for "
                       f"nothing; allocate with cudaMalloc, or fetch it as a 2-D texture")


@rule(
    "CL111", "texture-pitch-set-by-hand", "warning",
    "A 2-D texture is bound to cudaMalloc memory with a pitch computed by the program",
    what="Finds 2-D pitch-linear textures (`cudaResourceTypePitch2D` with `pitchInBytes`, or "
         "`cudaBindTexture2D`) over memory allocated with plain `cudaMalloc`, whose pitch is not the one "
         "`cudaMallocPitch` returned (e.g. `width * sizeof(float)`).",
    why="Pitch-linear textures need rows aligned to the device's texture pitch alignment "
        "(`cudaDeviceProp::texturePitchAlignment`, 32 bytes or more depending on the GPU). A hand-set "
        "pitch that meets it on one GPU can fail on another (`cudaErrorInvalidValue` at bind time) or "
        "silently misaddress rows: \"don't bind linear memory created with cudaMalloc() and attempt "
        "to manually set the pitch to a texture because unexpected things might happen, especially "
        "across device generations\" (Cook, *CUDA Programming*, \"Texture Memory\").",
    example="""
float *d; cudaMalloc(&d, w * h * sizeof(float));
cudaResourceDesc res = {}; res.resType = cudaResourceTypePitch2D;
res.res.pitch2D.devPtr = d; res.res.pitch2D.width = w; res.res.pitch2D.height = h;
res.res.pitch2D.pitchInBytes = w * sizeof(float);   // pitch set by hand""",
    how_to_fix="Allocate the image with `cudaMallocPitch(&d, &pitch, w * sizeof(float), h)`, copy it with "
               "`cudaMemcpy2D`, and pass that `pitch` as `pitchInBytes`; or use a CUDA array "
               "(`cudaMallocArray`).",
)
def texture_pitch_set_by_hand(ctx: RuleContext):
    me = RULES["CL111"]
    for b in hand_pitched_textures(ctx.analysis.tu):
        if b.range is None or not ctx.in_file(b.range):
            continue
        from ..analyzer.constprop import text
        yield ctx.diag(me, b.range,
                       f"2-D texture over `{b.backing_text}`, allocated with {b.allocation.call} at line "
                       f"{b.allocation.line}, with the pitch `{text(b.pitch)}` set by hand: the texture "
                       f"pitch alignment differs between GPUs; allocate with cudaMallocPitch and use the "
                       f"pitch it returns")
