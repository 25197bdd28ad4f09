"""CL1xx: where variables live (local-memory arrays, constant and shared size limits, divergent
constant reads)."""
from __future__ import annotations

from .context import RuleContext
from .messages import assumed, confident, num
from .registry import RULES, rule


@rule(
    "CL101", "local-memory-array", "warning",
    "Automatic array placed in local memory because of a run-time index",
    what="Finds per-thread (automatic) arrays that the compiler must place in local memory because "
         "an access uses an index that is not a compile-time constant, and names that index. "
         "ptxas has the last word when `nvcc` is installed (no local memory reported: no finding). "
         "Without it, arrays of at most 32 words are not reported: nvcc 13 keeps such arrays in "
         "registers with select chains even when they are read and written at run-time indices "
         "(`cudalint explain` still shows the source-level verdict, with that caveat).",
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
                why = v.reason.split(': the index ')[-1]
                if _small_without_ptxas(k, v):
                    # Measured (nvcc 13, sm_90): arrays of up to 32 words indexed at run time,
                    # even written at run-time indices, stay in registers (select chains): no
                    # evidence without ptxas (explain keeps the source-level verdict, noted).
                    continue
                msg = (f"automatic array `{v.name}` ({_size(v)}) is placed in local memory: "
                       f"index `{idx}` is not a compile-time constant ({why})")
                yield ctx.diag(me, v.forcing_access.range, msg, kernel=k.name)
            elif ("pointer" in v.reason and not _small_without_ptxas(k, v)) or "too large" in v.reason:
                # a small array whose address is taken (reinterpret_cast to half2*) is usually
                # resolved to registers once the accesses are unrolled: no evidence without ptxas
                msg = (f"automatic array `{v.name}` ({_size(v)}) is likely placed in local "
                       f"memory: {v.reason}")
                yield ctx.diag(me, v.range, msg, kernel=k.name, severity="info")


#: Arrays up to this many 4-byte words that nvcc 13 (sm_90) was measured to keep in registers
#: when indexed at run time: read and written at an index loaded from memory, 8, 16 and 32
#: floats compile to a 0-byte stack frame; 64 floats written at such an index take 256 bytes.
_SELECT_WORDS = 32


def _size(v) -> str:
    """The array's size for a message: its bytes, or that they are not known (an extent that
    depends on a template parameter of a kernel not instantiated in the file, say)."""
    return f"{v.bytes} bytes" if v.bytes is not None else "size not known statically"


def _small_without_ptxas(k, v) -> bool:
    res = k.resources
    from_ptxas = getattr(res, "registers_source", None) == "ptxas"
    return not from_ptxas and v.bytes is not None and v.bytes <= 4 * _SELECT_WORDS


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


@rule(
    "CL104", "divergent-constant-read", "warning",
    "A warp reads `__constant__` memory at several addresses at once: the reads are serialised",
    what="Evaluates each read of a `__constant__` variable for the lanes of a warp (for the "
         "kernel's block shape) and reports reads whose warp asks for at least `min_addresses` "
         "distinct addresses, with how many and the serialisation that costs. Reads whose "
         "index comes from memory are not reported (the number of addresses depends on the "
         "data).",
    why="The constant cache serves one address at a time and broadcasts it to every lane that "
        "asks for it: constant memory is fast when all threads of a warp read the same location "
        "(Kirk & Hwu, section 5.2). A warp request for n distinct addresses is split into n "
        "requests served one after another, so `coef[threadIdx.x]` costs 32 times a uniform "
        "read; global memory would serve the same 32 consecutive floats in one request of 4 "
        "sectors.",
    example="""
__constant__ float coef[256];
__global__ void scale(const float* in, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] * coef[threadIdx.x];   // 32 distinct addresses per warp: 32 serialised reads
}""",
    how_to_fix="Keep in `__constant__` only data that all threads of a warp read at the same index "
               "(filter taps indexed by a loop counter, parameters). For per-thread indices, pass "
               "the table as a `const float* __restrict__` kernel parameter (or read it with "
               "`__ldg`): the read-only data cache serves a warp's consecutive elements in one "
               "request; or copy it to shared memory once per block.",
    options={"min_addresses": 2.0, "warning_addresses": 4.0},
)
def divergent_constant_read(ctx: RuleContext):
    me = RULES["CL104"]
    lo = float(ctx.option(me, "min_addresses"))
    warn = float(ctx.option(me, "warning_addresses"))
    seen = set()
    for k in ctx.kernels:
        for a in ctx.accesses(k):
            n = a.addresses_per_request
            if a.space != "constant" or a.kind != "load" or a.pattern != "divergent" or n is None \
                    or n < lo - 1e-9:
                continue
            site = ctx.access_site(a)
            key = (site.line, site.column)
            if key in seen:
                continue
            seen.add(key)
            lanes = a.cost.active_lanes if a.cost is not None else None
            who = f"its {lanes} active lanes" if lanes else "its lanes"
            msg = (f"`__constant__` read `{ctx.access_text(a)}` asks for {num(n)} distinct addresses "
                   f"per warp request ({who}): the constant cache serves them one after another, "
                   f"{num(n)}x the cost of a read all lanes share; pass `{a.array}` as a "
                   f"`const __restrict__` pointer (read-only cache, `__ldg`) or stage it in shared "
                   f"memory{assumed(a)}")
            sev = "warning" if (confident(a) and n >= warn - 1e-9) else "info"
            yield ctx.diag(me, site, msg, kernel=k.name, severity=sev)


def _same(a: str, b: str) -> bool:
    import os
    return os.path.abspath(a) == os.path.abspath(b)
