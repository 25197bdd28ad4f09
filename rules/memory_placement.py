"""CL1xx: where variables live (local-memory arrays, constant and shared size limits)."""
from __future__ import annotations

from .context import RuleContext
from .registry import RULES, rule


@rule(
    "CL101", "local-memory-array", "warning",
    "Automatic array placed in local memory because of a run-time index",
    what="Finds per-thread (automatic) arrays that the compiler must place in local memory because "
         "an access uses an index that is not a compile-time constant, and names that index.",
    why="Registers cannot be indexed at run time, so such an array lives in local memory: "
        "off-chip, as slow as global memory (cached in L1/L2), and each access is a separate "
        "memory instruction instead of a register operand.",
    example="""
__global__ void k(const float* in, float* out) {
    float arr[32];
    for (int j = 0; j < 32; ++j) arr[j] = in[j];
    out[threadIdx.x] = arr[threadIdx.x % 32];   // run-time index -> local memory
}""",
    how_to_fix="Make every index a compile-time constant (fully unrolled loops with constant trip "
               "counts, `#pragma unroll`), select the element with a switch or shuffles, or move "
               "the array to shared memory when threads need run-time indexing.",
)
def local_memory_array(ctx: RuleContext):
    me = RULES["CL101"]
    reported = set()
    for k in ctx.kernels:
        for v in k.variables:
            if v.memory != "local" or v.variable is None or id(v.variable) in reported:
                continue
            reported.add(id(v.variable))
            if v.forcing_access is not None:
                idx = ctx.source_text(v.forcing_index.range) or "the index"
                msg = (f"automatic array `{v.name}` ({v.bytes} bytes) is placed in local memory: "
                       f"index `{idx}` is not a compile-time constant ({v.reason.split(': the index ')[-1]})")
                yield ctx.diag(me, v.forcing_access.range, msg, kernel=k.name)
            elif "pointer" in v.reason or "too large" in v.reason:
                msg = (f"automatic array `{v.name}` ({v.bytes} bytes) is likely placed in local "
                       f"memory: {v.reason}")
                yield ctx.diag(me, v.range, msg, kernel=k.name, severity="info")


@rule(
    "CL102", "constant-memory-over-limit", "error",
    "Total __constant__ data exceeds the 64 KB constant memory",
    what="Adds up the sizes of all `__constant__` variables declared in the file and reports when "
         "the total is over the target's constant memory (64 KB on every compute capability).",
    why="The program fails to link/load (ptxas: 'uses too much constant data'); constant memory "
        "is a 64 KB space shared by the whole application.",
    example="__constant__ float table[20000];  // 80 000 bytes > 65 536",
    how_to_fix="Keep small, read-only, uniformly read data in constant memory; move large tables to "
               "global memory (`const float* __restrict__`, read through the read-only cache).",
)
def constant_over_limit(ctx: RuleContext):
    me = RULES["CL102"]
    tu = ctx.analysis.tu
    if tu is None:
        return
    consts = [v for v in tu.globals if v.storage == "constant" and v.range.file and
              ctx.in_file(v.range)]
    total = sum(v.type.size or 0 for v in consts)
    limit = ctx.target.constant_memory_bytes
    if consts and total > limit:
        # Point at the declaration that takes the running total over the limit.
        running, culprit = 0, consts[-1]
        for v in consts:
            running += v.type.size or 0
            if running > limit:
                culprit = v
                break
        parts = ", ".join(f"`{v.name}` {v.type.size} B" for v in consts[:6])
        yield ctx.diag(me, culprit.range,
                       f"__constant__ data totals {total} bytes, over the {limit}-byte constant "
                       f"memory of {ctx.target.arch} ({parts})")


@rule(
    "CL103", "static-shared-memory-over-limit", "error",
    "Static shared memory per block exceeds the target's limit",
    what="Adds the sizes of all statically sized `__shared__` variables a kernel uses (including "
         "those of device functions it calls) and reports when the total exceeds the per-block "
         "limit for static shared memory (48 KB on sm_20 and newer, 16 KB on sm_1x).",
    why="ptxas rejects the kernel ('too much shared data'). Larger allocations are only possible as "
        "dynamic shared memory with the cudaFuncAttributeMaxDynamicSharedMemorySize opt-in.",
    example="__global__ void k() { __shared__ float tile[128][128]; /* 64 KB */ }",
    how_to_fix="Use smaller tiles, or declare the buffer `extern __shared__` and launch with the "
               "dynamic size after calling cudaFuncSetAttribute(kernel, "
               "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes).",
)
def static_shared_over_limit(ctx: RuleContext):
    me = RULES["CL103"]
    limit = ctx.target.max_shared_memory_per_block
    for k in ctx.kernels:
        shared = [v for v in k.variables if v.memory == "shared" and v.storage == "shared"]
        total = sum(v.bytes or 0 for v in shared)
        if shared and total > limit:
            parts = ", ".join(f"`{v.name}` {v.bytes} B" for v in shared[:6])
            yield ctx.diag(me, k.function.range if not shared else shared[-1].range,
                           f"kernel `{k.name}` declares {total} bytes of static shared memory, over "
                           f"the {limit}-byte per-block limit of {ctx.target.arch} ({parts})",
                           kernel=k.name)
