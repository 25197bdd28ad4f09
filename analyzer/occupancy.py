"""Theoretical occupancy, computed the way NVIDIA computes it.

Two reference algorithms, chosen by compute capability:

* **cc 3.0 and newer** follow ``cuda_occupancy.h`` (CUDA 13.0 toolkit,
  ``cudaOccMaxActiveBlocksPerMultiprocessor``) step by step, with the function attributes that
  ``cudaOccFuncAttributes(cudaFuncAttributes)`` produces for a real kernel: partitioned global
  caching off, the opt-in shared-memory limit (``FUNC_SHMEM_LIMIT_OPTIN``) with
  ``maxDynamicSharedSizeBytes`` equal to the launch's dynamic shared memory, one block barrier,
  no virtual resources. ``cudaOccDeviceState`` is the default (no cache-config and no carveout
  preference) unless ``carveout_pct``/``cache_config`` say otherwise.

  - warps per block = ceil(threads / warp size); warp limit = max warps per SM // that
    (0 when the block exceeds the per-block thread limit);
  - registers: per warp = roundup(regs x warp size, allocation unit (256)); the register file is
    split into ``warp_allocation_granularity`` sub-partitions (4; 2 on GP100) and warps are
    placed per sub-partition: warps/SM = (regs per SM / sub-partitions) // regs per warp x
    sub-partitions; blocks = that // warps per block. A block whose registers, with its warp
    count rounded up to the sub-partition count, exceed the per-block register limit cannot
    launch (the hardware check), nor one over the per-thread limit;
  - shared memory: per block = roundup(static + dynamic + reserved (1 KB on sm_80+), allocation
    unit); a block above the per-block limit (48 KB, or the opt-in maximum when the kernel needs
    more; + the reservation on sm_80+) cannot launch; otherwise blocks = SM shared-memory
    configuration // per block, where the configuration is the preferred carveout when it holds
    one block, else (cc >= 7) the smallest carveout that does;
  - block slots per SM; on cc >= 9 the block-barrier pool (``barriers_per_block_slot`` x block
    slots, divided by the barriers a block uses).

* **cc 1.x and 2.x**, which ``cuda_occupancy.h`` refuses, follow the CUDA Occupancy Calculator
  spreadsheet: on 1.x registers are allocated per *block*, roundup(roundup(warps, 2) x regs x 32,
  256 or 512); on 2.x per *warp*, roundup(regs x 32, 64), with the warps the register file holds
  rounded down to a multiple of 2. Shared memory is rounded to 512 (1.x) or 128 (2.x) bytes.

The **carveout the driver picks** (cc 7.0+, no explicit preference): the driver sizes the L1 /
shared split per launch so that shared memory does not lower occupancy; cudalint reports the
smallest carveout option that holds ``active_blocks_per_sm`` blocks (``carveout_bytes``). The
block count itself is computed, as in ``cuda_occupancy.h``, against the largest configuration,
so the choice never changes the result; it tells how much L1 is left.

Limits that are not applicable (no registers, no shared memory) are ``None`` in
``block_limits`` (``cuda_occupancy.h`` reports INT_MAX).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Union

from .target import Target, load_target

__all__ = [
    "LIMITERS",
    "OccupancyResult",
    "compute_occupancy",
    "occupancy",
    "check_residency",
    "NextStep",
    "Step",
    "next_step",
    "sweep_threads",
    "sweep_registers",
    "sweep_shared_memory",
    "format_bytes",
]

LIMITERS = ("warps", "registers", "shared_memory", "blocks")
_BARRIERS = "barriers"

TargetLike = Union[Target, str]


def _ceil_div(x: int, y: int) -> int:
    return -(-x // y)


def _round_up(x: int, y: int) -> int:
    return y * _ceil_div(x, y)


def format_bytes(n: Optional[int]) -> str:
    if n is None:
        return "-"
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024} KB"
    if n >= 1024:
        return f"{n / 1024:.1f} KB ({n} B)"
    return f"{n} B"


@dataclass
class OccupancyResult:
    """Theoretical occupancy of one launch configuration on one target."""

    arch: str
    cc: str
    threads_per_block: int
    registers_per_thread: int
    static_smem: int
    dynamic_smem: int
    warps_per_block: int
    registers_per_block: int  # allocated (after rounding)
    smem_allocated_per_block: int  # rounded, with the driver's reservation
    smem_config_bytes: Optional[int]  # SM shared-memory size the shared-memory limit divides
    carveout_bytes: Optional[int]  # carveout the driver would pick for this launch
    max_warps_per_sm: int
    active_blocks_per_sm: int
    active_warps_per_sm: int
    active_threads_per_sm: int
    occupancy: float  # active warps / max warps, 0..1
    limiters: list[str]
    block_limits: dict[str, Optional[int]]
    barrier_limit: Optional[int] = None
    can_launch: bool = True
    launch_errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    algorithm: str = "cuda_occupancy.h"

    @property
    def smem_per_block(self) -> int:
        """Shared memory the kernel asks for per block (static + dynamic, no rounding)."""
        return self.static_smem + self.dynamic_smem

    @property
    def occupancy_pct(self) -> float:
        return round(self.occupancy * 100.0, 4)

    def to_json(self) -> dict[str, Any]:
        """DESIGN.md's ``occupancy --output-format json`` shape, plus a few extra keys."""
        return {
            "arch": self.arch,
            "threads_per_block": self.threads_per_block,
            "registers_per_thread": self.registers_per_thread,
            "smem_per_block": self.smem_per_block,
            "active_blocks_per_sm": self.active_blocks_per_sm,
            "active_warps_per_sm": self.active_warps_per_sm,
            "occupancy": round(self.occupancy, 6),
            "limiters": list(self.limiters),
            "block_limits": {k: self.block_limits.get(k) for k in LIMITERS},
            # extra keys
            "cc": self.cc,
            "static_smem": self.static_smem,
            "dynamic_smem": self.dynamic_smem,
            "active_threads_per_sm": self.active_threads_per_sm,
            "max_warps_per_sm": self.max_warps_per_sm,
            "occupancy_pct": self.occupancy_pct,
            "warps_per_block": self.warps_per_block,
            "registers_allocated_per_block": self.registers_per_block,
            "smem_allocated_per_block": self.smem_allocated_per_block,
            "smem_config_bytes": self.smem_config_bytes,
            "carveout_bytes": self.carveout_bytes,
            "barrier_limit": self.barrier_limit,
            "can_launch": self.can_launch,
            "launch_errors": list(self.launch_errors),
            "notes": list(self.notes),
            "algorithm": self.algorithm,
        }


# --------------------------------------------------------------------------- helpers
def _carveout_for(t: Target, size: int) -> Optional[int]:
    """Smallest carveout option (bytes) that holds ``size`` bytes (cudaOccAlignUpShmemSizeVoltaPlus)."""
    for c in t.shared_memory_carveouts:
        if size <= c:
            return c
    return None


def _smem_preference(t: Target, carveout_pct: Optional[int], cache_config: Optional[str]) -> int:
    """Shared memory per SM the user prefers (cudaOccSMemPerMultiprocessor)."""
    if t.major >= 7:
        pref = -1 if carveout_pct is None else int(carveout_pct)
        if pref == -1 and cache_config:
            pref = {"l1": 0, "shared": 100, "equal": 50}.get(cache_config.lower(), -1)
        if pref < -1 or pref > 100:
            raise ValueError("carveout_pct must be -1 (default) or 0..100")
        size = t.shared_memory_per_sm if pref == -1 else (pref * t.shared_memory_per_sm) // 100
        c = _carveout_for(t, size)
        return t.shared_memory_per_sm if c is None else c
    high = t.shared_memory_per_sm
    cfg = (cache_config or "none").lower()
    if t.major == 3:
        low = high + 16384 - 49152
        return {"l1": low, "equal": (high + low) // 2}.get(cfg, high)
    if t.major == 2:
        return 16384 if cfg == "l1" else high
    return high


def _regs_limit_header(t: Target, regs: int, warps_pb: int, sub: int) -> tuple[Optional[int], int, list[str]]:
    """cudaOccMaxBlocksPerSMRegsLimit with partitioned global caching off."""
    errors: list[str] = []
    rpw = _round_up(regs * t.warp_size, t.register_allocation_unit)
    alloc_block = rpw * warps_pb
    assumed_block = rpw * _round_up(warps_pb, sub)
    if regs > t.max_registers_per_thread:
        errors.append(f"{regs} registers per thread exceed the limit of {t.max_registers_per_thread} on {t.base_arch}")
    if t.max_registers_per_block < assumed_block or t.max_registers_per_block < alloc_block:
        errors.append(
            f"{regs} registers x {warps_pb} warps need {max(alloc_block, assumed_block)} registers per block "
            f"(allocated per warp in units of {t.register_allocation_unit}, warps rounded up to {sub} "
            f"sub-partitions); the limit is {t.max_registers_per_block}")
    if errors:
        return 0, alloc_block, errors
    if rpw == 0:
        return None, alloc_block, errors
    warps_per_sub = (t.registers_per_sm // sub) // rpw
    return (warps_per_sub * sub) // warps_pb, alloc_block, errors


def _regs_limit_legacy(t: Target, regs: int, warps_pb: int) -> tuple[Optional[int], int, list[str]]:
    """CUDA Occupancy Calculator spreadsheet, cc 1.x (per block) and 2.x (per warp)."""
    errors: list[str] = []
    if t.register_allocation_granularity == "block":
        alloc_block = _round_up(_round_up(warps_pb, t.warp_allocation_granularity) * regs * t.warp_size,
                                t.register_allocation_unit)
    else:
        rpw = _round_up(regs * t.warp_size, t.register_allocation_unit)
        alloc_block = rpw * warps_pb
    if regs > t.max_registers_per_thread:
        errors.append(f"{regs} registers per thread exceed the limit of {t.max_registers_per_thread} on {t.base_arch}")
    if alloc_block > t.max_registers_per_block:
        errors.append(f"{regs} registers x {warps_pb} warps need {alloc_block} registers per block; "
                      f"the limit is {t.max_registers_per_block}")
    if errors:
        return 0, alloc_block, errors
    if regs == 0:
        return None, alloc_block, errors
    if t.register_allocation_granularity == "block":
        return t.registers_per_sm // alloc_block, alloc_block, errors
    rpw = _round_up(regs * t.warp_size, t.register_allocation_unit)
    warps = (t.registers_per_sm // rpw) // t.warp_allocation_granularity * t.warp_allocation_granularity
    return warps // warps_pb, alloc_block, errors


# --------------------------------------------------------------------------- main entry
def compute_occupancy(
    target: TargetLike,
    threads: int,
    regs: int = 0,
    smem: int = 0,
    dynamic_smem: int = 0,
    *,
    carveout_pct: Optional[int] = None,
    cache_config: Optional[str] = None,
    block_barriers: int = 1,
) -> OccupancyResult:
    """Theoretical occupancy of ``threads`` threads per block using ``regs`` registers per
    thread, ``smem`` bytes of static and ``dynamic_smem`` bytes of dynamic shared memory.

    ``carveout_pct`` (cc >= 7): ``cudaFuncAttributePreferredSharedMemoryCarveout`` (-1/None =
    no preference, 0..100 = percent of the maximum shared memory). ``cache_config``
    (cc 2.x/3.x): ``"none"|"shared"|"l1"|"equal"`` as ``cudaFuncSetCacheConfig``.
    ``block_barriers``: barriers a block uses (cc >= 9 limit; the runtime assumes 1).
    """
    t = load_target(target) if not isinstance(target, Target) else target
    threads, regs, smem, dynamic_smem = int(threads), int(regs), int(smem), int(dynamic_smem)
    if regs < 0 or smem < 0 or dynamic_smem < 0:
        raise ValueError("registers and shared memory must be non-negative")
    notes: list[str] = []
    errors: list[str] = []
    header = t.major >= 3
    algorithm = "cuda_occupancy.h" if header else "occupancy calculator spreadsheet (sm_1x/sm_2x)"

    if threads < 1:
        errors.append(f"a block needs at least one thread (got {threads})")
        return OccupancyResult(
            arch=t.arch, cc=t.cc, threads_per_block=threads, registers_per_thread=regs,
            static_smem=smem, dynamic_smem=dynamic_smem, warps_per_block=0, registers_per_block=0,
            smem_allocated_per_block=0, smem_config_bytes=None, carveout_bytes=None,
            max_warps_per_sm=t.max_warps_per_sm, active_blocks_per_sm=0, active_warps_per_sm=0,
            active_threads_per_sm=0, occupancy=0.0, limiters=["warps"],
            block_limits={"warps": 0, "registers": None, "shared_memory": None, "blocks": t.max_blocks_per_sm},
            can_launch=False, launch_errors=errors, notes=notes, algorithm=algorithm)

    warps_pb = _ceil_div(threads, t.warp_size)

    # ---- warps / threads
    if threads > t.max_threads_per_block:
        warp_limit = 0
        errors.append(f"{threads} threads per block exceed the limit of {t.max_threads_per_block} on {t.base_arch}")
    else:
        warp_limit = t.max_warps_per_sm // warps_pb
    if threads % t.warp_size:
        notes.append(f"{threads} threads are not a multiple of the warp size ({t.warp_size}): "
                     f"the block occupies {warps_pb} warps, the last one partly idle")

    # ---- registers
    if header:
        reg_limit, regs_alloc, reg_errors = _regs_limit_header(t, regs, warps_pb, t.register_sub_partitions)
        if t.cc == "6.0" and reg_limit != 0:
            # cuda_occupancy.h: a kernel that cannot run on GP10x (4 sub-partitions) is not
            # allowed on GP100 either.
            gp10x, _, _ = _regs_limit_header(t, regs, warps_pb, 4)
            if gp10x == 0:
                reg_limit = 0
                reg_errors.append("the register allocation does not fit a GP10x SM (4 sub-partitions); "
                                  "cuda_occupancy.h refuses it on GP100 too")
    else:
        reg_limit, regs_alloc, reg_errors = _regs_limit_legacy(t, regs, warps_pb)
    errors.extend(reg_errors)
    if regs == 0:
        notes.append("registers per thread unknown (0): the register limit is not applied")

    # ---- shared memory
    reserved = t.reserved_shared_memory_per_block
    static_r = smem + reserved
    total = static_r + dynamic_smem
    smem_alloc = _round_up(total, t.shared_memory_allocation_unit)
    pref = _smem_preference(t, carveout_pct, cache_config)
    if t.major >= 7:
        needs_optin = static_r + dynamic_smem > t.max_shared_memory_per_block
        limit_pb = t.max_shared_memory_per_block_optin if needs_optin else t.max_shared_memory_per_block
    else:
        needs_optin = False
        limit_pb = t.max_shared_memory_per_block
    if t.major >= 8:
        limit_pb += reserved
    smem_config: Optional[int]
    if smem_alloc > limit_pb:
        smem_limit: Optional[int] = 0
        smem_config = None
        cap = (t.max_shared_memory_per_block_optin if t.major >= 7 else t.max_shared_memory_per_block)
        errors.append(
            f"{format_bytes(smem + dynamic_smem)} of shared memory per block "
            + (f"(+{format_bytes(reserved)} reserved, {format_bytes(smem_alloc)} allocated) " if reserved else
               (f"({format_bytes(smem_alloc)} allocated) " if smem_alloc != smem + dynamic_smem else ""))
            + f"exceed the per-block maximum of {format_bytes(cap)} on {t.base_arch}"
            + (" (opt-in)" if t.major >= 7 else ""))
    else:
        if pref >= smem_alloc:
            smem_config = pref
        elif t.major >= 7:
            smem_config = _carveout_for(t, smem_alloc) or t.shared_memory_per_sm
        else:
            smem_config = t.shared_memory_per_sm
        smem_limit = (smem_config // smem_alloc) if smem_alloc > 0 else None
    if t.major >= 7 and smem > t.max_shared_memory_per_block and smem_limit:
        # ptxas refuses more than 48 KB of static __shared__ data; only dynamic shared memory
        # can use the opt-in range (on older GPUs the per-block check above already failed)
        errors.append(f"{format_bytes(smem)} of static shared memory exceed the {format_bytes(t.max_shared_memory_per_block)} "
                      "static limit; larger allocations must be dynamic (extern __shared__)")
        smem_limit = 0
    # the runtime needs the opt-in attribute when static + dynamic exceed 48 KB (the driver's
    # reservation is not counted against the attribute)
    if t.major >= 7 and smem + dynamic_smem > t.max_shared_memory_per_block and smem_limit:
        notes.append(
            f"{format_bytes(smem + dynamic_smem)} of shared memory per block is above "
            f"{format_bytes(t.max_shared_memory_per_block)}: assumes the kernel opts in with "
            "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)")
    if reserved and smem_limit:
        notes.append(f"each block also holds {format_bytes(reserved)} of shared memory reserved by the CUDA driver")
    if t.major == 1 and smem_limit:
        notes.append("on sm_1x kernel parameters also live in shared memory: add ptxas' '+N bytes smem' to --smem")

    # ---- block slots and barriers
    block_limit = t.max_blocks_per_sm
    barrier_limit: Optional[int] = None
    if t.major >= 9 and block_barriers > 0 and t.barriers_per_block_slot:
        barrier_limit = (t.barriers_per_block_slot * block_limit) // block_barriers

    # ---- overall
    limits: dict[str, Optional[int]] = {
        "warps": warp_limit,
        "registers": reg_limit,
        "shared_memory": smem_limit,
        "blocks": block_limit,
    }
    finite = [v for v in limits.values() if v is not None]
    active = min(finite)
    limiters = [k for k in LIMITERS if limits[k] is not None and limits[k] == active]
    if barrier_limit is not None and barrier_limit <= active:
        if barrier_limit < active:
            limiters = []
        active = barrier_limit
        limiters.append(_BARRIERS)
        notes.append(f"block barriers limit the SM to {barrier_limit} blocks "
                     f"({t.barriers_per_block_slot} per block slot, {block_barriers} per block)")
    if errors:
        active = 0
        limiters = [k for k in LIMITERS if limits[k] == 0] or limiters
    active_warps = active * warps_pb

    carveout: Optional[int] = None
    if active > 0 and smem_config is not None:
        if t.major >= 7 and (carveout_pct is None or carveout_pct == -1) and not cache_config:
            carveout = _carveout_for(t, active * smem_alloc)
            if carveout is not None and carveout < t.shared_memory_per_sm:
                notes.append(f"the driver can pick the {format_bytes(carveout)} shared-memory carveout "
                             f"({active} x {format_bytes(smem_alloc)}); the rest of the "
                             f"{format_bytes(t.shared_memory_per_sm)} stays L1 cache")
        else:
            carveout = smem_config

    return OccupancyResult(
        arch=t.arch, cc=t.cc, threads_per_block=threads, registers_per_thread=regs,
        static_smem=smem, dynamic_smem=dynamic_smem, warps_per_block=warps_pb,
        registers_per_block=regs_alloc, smem_allocated_per_block=smem_alloc,
        smem_config_bytes=smem_config, carveout_bytes=carveout,
        max_warps_per_sm=t.max_warps_per_sm, active_blocks_per_sm=active,
        active_warps_per_sm=active_warps, active_threads_per_sm=active * threads,
        occupancy=active_warps / t.max_warps_per_sm, limiters=limiters, block_limits=limits,
        barrier_limit=barrier_limit, can_launch=not errors, launch_errors=errors, notes=notes,
        algorithm=algorithm)


occupancy = compute_occupancy


def check_residency(target: TargetLike, blocks: int, threads: int, regs: int = 0,
                    smem: int = 0) -> tuple[bool, list[str]]:
    """Can ``blocks`` blocks of ``threads`` threads (``regs`` registers per thread, ``smem``
    bytes of shared memory per block) be resident on one SM at once? Returns the verdict and
    the resources that forbid it (``warps`` here means the thread/warp slots)."""
    r = compute_occupancy(target, threads, regs, smem)
    if not r.can_launch:
        return False, [k for k in LIMITERS if r.block_limits[k] == 0]
    bad = [k for k in LIMITERS if r.block_limits[k] is not None and r.block_limits[k] < blocks]
    if r.barrier_limit is not None and r.barrier_limit < blocks:
        bad.append(_BARRIERS)
    return (not bad), bad


# --------------------------------------------------------------------------- next step
@dataclass
class Step:
    resource: str  # "registers" | "shared_memory" | "threads"
    value: int  # max registers per thread / max shared bytes per block / threads per block
    active_blocks_per_sm: int
    extra_blocks: int
    occupancy: float
    message: str


@dataclass
class NextStep:
    current: OccupancyResult
    steps: list[Step]

    def messages(self) -> list[str]:
        return [s.message for s in self.steps]

    def step(self, resource: str) -> Optional[Step]:
        for s in self.steps:
            if s.resource == resource:
                return s
        return None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def next_step(target: TargetLike, threads: int, regs: int, smem: int = 0) -> NextStep:
    """What change reaches the next block count: the most registers per thread, and the most
    shared memory per block (``smem`` = static + dynamic), that fit at least one more block,
    and the block size with the best occupancy when warps or block slots bind."""
    t = load_target(target) if not isinstance(target, Target) else target
    cur = compute_occupancy(t, threads, regs, 0, smem)
    steps: list[Step] = []
    if not cur.can_launch:
        return NextStep(cur, steps)
    base = cur.active_blocks_per_sm

    def blocks_for(r: int, s: int) -> OccupancyResult:
        return compute_occupancy(t, threads, r, 0, s)

    # registers: the largest count below the current one that fits more blocks
    if regs > 1:
        for r in range(regs - 1, 0, -1):
            res = blocks_for(r, smem)
            if res.active_blocks_per_sm > base:
                extra = res.active_blocks_per_sm - base
                steps.append(Step(
                    "registers", r, res.active_blocks_per_sm, extra, res.occupancy,
                    f"≤ {r} registers per thread (`__launch_bounds__` or `-maxrregcount`) fits "
                    f"{_plural(extra, 'more block')} ({res.active_blocks_per_sm} blocks, "
                    f"{res.occupancy * 100:.1f}% occupancy)"))
                break
    # shared memory: binary search on the largest size that fits more blocks
    if smem > 0 and blocks_for(regs, 0).active_blocks_per_sm > base:
        lo, hi = 0, smem - 1  # invariant: blocks(lo) > base
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if blocks_for(regs, mid).active_blocks_per_sm > base:
                lo = mid
            else:
                hi = mid - 1
        res = blocks_for(regs, lo)
        extra = res.active_blocks_per_sm - base
        steps.append(Step(
            "shared_memory", lo, res.active_blocks_per_sm, extra, res.occupancy,
            f"≤ {format_bytes(lo)} of shared memory per block fits {_plural(extra, 'more block')} "
            f"({res.active_blocks_per_sm} blocks, {res.occupancy * 100:.1f}% occupancy)"))
    # block size: when warps or block slots bind below full occupancy
    if cur.occupancy < 1.0 and {"warps", "blocks"} & set(cur.limiters):
        best: Optional[OccupancyResult] = None
        for n in range(t.warp_size, t.max_threads_per_block + 1, t.warp_size):
            res = compute_occupancy(t, n, regs, 0, smem)
            if best is None or res.occupancy > best.occupancy + 1e-12 or (
                    abs(res.occupancy - best.occupancy) <= 1e-12
                    and abs(n - threads) < abs(best.threads_per_block - threads)):
                best = res
        if best is not None and best.occupancy > cur.occupancy + 1e-12:
            steps.append(Step(
                "threads", best.threads_per_block, best.active_blocks_per_sm,
                best.active_blocks_per_sm - base, best.occupancy,
                f"{best.threads_per_block} threads per block reach {best.occupancy * 100:.1f}% occupancy "
                f"({best.active_blocks_per_sm} blocks)"))
    return NextStep(cur, steps)


# --------------------------------------------------------------------------- sweeps (charts)
def sweep_threads(target: TargetLike, regs: int, smem: int = 0, dynamic_smem: int = 0,
                  step: Optional[int] = None) -> list[tuple[int, int]]:
    """(threads per block, active warps per SM) for block sizes warp..max, as the calculator's
    'Impact of Varying Block Size' chart."""
    t = load_target(target) if not isinstance(target, Target) else target
    step = step or t.warp_size
    return [(n, compute_occupancy(t, n, regs, smem, dynamic_smem).active_warps_per_sm)
            for n in range(step, t.max_threads_per_block + 1, step)]


def sweep_registers(target: TargetLike, threads: int, smem: int = 0,
                    dynamic_smem: int = 0) -> list[tuple[int, int]]:
    """(registers per thread, active warps per SM) for 1..max registers per thread."""
    t = load_target(target) if not isinstance(target, Target) else target
    return [(r, compute_occupancy(t, threads, r, smem, dynamic_smem).active_warps_per_sm)
            for r in range(1, t.max_registers_per_thread + 1)]


def sweep_shared_memory(target: TargetLike, threads: int, regs: int,
                        step: Optional[int] = None) -> list[tuple[int, int]]:
    """(shared memory per block, active warps per SM) from 0 to the per-block maximum (opt-in
    included), as dynamic shared memory."""
    t = load_target(target) if not isinstance(target, Target) else target
    step = step or max(t.shared_memory_allocation_unit, 256)
    top = max(t.max_shared_memory_per_block_optin, t.max_shared_memory_per_block)
    return [(s, compute_occupancy(t, threads, regs, 0, s).active_warps_per_sm)
            for s in range(0, top + 1, step)]
