"""Hardware targets: per-compute-capability limits that the occupancy model stands on.

The figures live in ``analyzer/data/targets.json`` (one entry per compute capability, each
field with its source). This module turns an entry into a frozen :class:`Target` and parses
the many ways an architecture is spelled on a command line::

    load_target("sm_80")      load_target("sm80")      load_target("80")
    load_target("8.0")        load_target("compute_80")
    load_target("sm_90a")     load_target("sm_100a")   load_target("sm_100f")

Architecture-specific suffixes (``a``, ``f``) keep the compute capability's limits but are
preserved in :attr:`Target.arch`, so that ``nvcc -arch`` can be given the exact spelling.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Mapping, Optional

__all__ = ["DEFAULT_ARCH", "Target", "load_target", "known_archs", "known_ccs", "parse_arch", "all_targets"]


# The architecture every command analyses for unless told otherwise (``--arch``, config).
DEFAULT_ARCH = "sm_90"


@dataclass(frozen=True)
class Target:
    """Limits of one compute capability (sizes in bytes unless the name says otherwise)."""

    cc: str  # "9.0"
    arch: str  # canonical sm_XY spelling (sm_90a when asked for that spelling)
    family: str
    warp_size: int
    max_threads_per_block: int
    max_threads_per_sm: int
    max_warps_per_sm: int
    max_blocks_per_sm: int
    registers_per_sm: int  # 32-bit registers in the SM's register file
    max_registers_per_block: int
    max_registers_per_thread: int
    register_allocation_unit: int  # registers, per warp ("warp") or per block ("block")
    register_allocation_granularity: str  # "warp" or "block"
    warp_allocation_granularity: int  # sm_1x: warps per block rounded up to this; later: sub-partitions
    shared_memory_per_sm: int  # largest shared-memory configuration (carveout)
    max_shared_memory_per_block: int  # default (static) per-block limit, 48 KB from 2.0
    max_shared_memory_per_block_optin: int  # with cudaFuncAttributeMaxDynamicSharedMemorySize
    shared_memory_allocation_unit: int
    reserved_shared_memory_per_block: int  # 1 KB on sm_80 and newer
    shared_memory_carveouts_kb: tuple[int, ...]
    shared_memory_banks: int
    bank_width_bytes: int
    constant_memory_bytes: int
    local_memory_per_thread_bytes: int
    barriers_per_block_slot: Optional[int]
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False, repr=False)

    # ----------------------------------------------------------------- derived
    @property
    def major(self) -> int:
        return int(self.cc.split(".")[0])

    @property
    def minor(self) -> int:
        return int(self.cc.split(".")[1])

    @property
    def cc_tuple(self) -> tuple[int, int]:
        return (self.major, self.minor)

    @property
    def sm(self) -> int:
        """Numeric SM version, e.g. 90 for 9.0, 103 for 10.3."""
        return self.major * 10 + self.minor

    @property
    def base_arch(self) -> str:
        """``sm_XX`` without an architecture-specific suffix."""
        return f"sm_{self.sm}"

    @property
    def shared_memory_carveouts(self) -> tuple[int, ...]:
        """Carveout options in bytes, ascending."""
        return tuple(kb * 1024 for kb in self.shared_memory_carveouts_kb)

    @property
    def register_sub_partitions(self) -> int:
        """Register-file sub-partitions (cuda_occupancy.h); equals the warp allocation
        granularity on warp-granular architectures."""
        return self.warp_allocation_granularity

    def to_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "sources"}
        d["shared_memory_carveouts_kb"] = list(self.shared_memory_carveouts_kb)
        d["sources"] = dict(self.sources)
        return d


# --------------------------------------------------------------------------- data loading
@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    # Read beside this module (the package data is installed there): importlib.resources'
    # readers (zipfile, tempfile) cost 8 to 17 ms of the analysing process of every run.
    with open(os.path.join(os.path.dirname(__file__), "data", "targets.json"), encoding="utf-8") as f:
        return json.load(f)


def _cc_key(cc: str) -> tuple[int, int]:
    a, b = cc.split(".")
    return int(a), int(b)


def known_ccs() -> list[str]:
    """Compute capabilities with a table entry, ascending ("1.0" ... "12.1")."""
    return sorted(_data()["targets"], key=_cc_key)


def known_archs() -> list[str]:
    """``sm_XX`` names of the known compute capabilities, ascending."""
    return [_data()["targets"][cc]["arch"] for cc in known_ccs()]


@lru_cache(maxsize=None)
def _target_for_cc(cc: str) -> Target:
    e = dict(_data()["targets"][cc])
    e["shared_memory_carveouts_kb"] = tuple(e["shared_memory_carveouts_kb"])
    e["sources"] = dict(e.get("sources", {}))
    names = Target.__dataclass_fields__
    return Target(**{k: v for k, v in e.items() if k in names})


def all_targets() -> list[Target]:
    return [_target_for_cc(cc) for cc in known_ccs()]


_ARCH_RE = re.compile(
    r"""^(?:(?:sm|compute|lto)_?)?          # optional prefix
        (?P<num>\d{2,3})                    # 90, 100, 121
        (?P<suffix>[af])?$""",
    re.X,
)
_CC_RE = re.compile(r"^(?P<major>\d{1,2})\.(?P<minor>\d)(?P<suffix>[af])?$")


def parse_arch(arch: str) -> tuple[str, str]:
    """Return ``(cc, suffix)`` for an architecture spelling; raise ``ValueError`` if the
    spelling is not understood (the compute capability may still be unknown)."""
    s = str(arch).strip().lower()
    m = _CC_RE.match(s)
    if m:
        return f"{int(m['major'])}.{m['minor']}", m["suffix"] or ""
    m = _ARCH_RE.match(s)
    if m:
        num = m["num"]
        return f"{int(num[:-1])}.{num[-1]}", m["suffix"] or ""
    raise ValueError(_unknown_message(arch))


def _unknown_message(arch: str) -> str:
    return (f"unknown GPU architecture {arch!r}; known: {', '.join(known_archs())} "
            "(also accepted: sm90, 90, 9.0, compute_90, sm_90a)")


def load_target(arch: str) -> Target:
    """The :class:`Target` for an architecture spelling such as ``sm_90``, ``sm90``, ``90``,
    ``9.0``, ``compute_90``, ``sm_90a`` or ``sm_100a``.

    Raises ``ValueError`` naming the known architectures when the compute capability is not
    in the table.
    """
    if isinstance(arch, Target):
        return arch
    cc, suffix = parse_arch(arch)
    if cc not in _data()["targets"]:
        raise ValueError(_unknown_message(arch))
    t = _target_for_cc(cc)
    if suffix:
        from dataclasses import replace

        t = replace(t, arch=t.arch + suffix)
    return t
