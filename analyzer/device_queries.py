"""What the CUDA runtime's device queries answer on the target GPU, for the host flow.

Real launch code sizes grids from the device it runs on::

    cudaDeviceGetAttribute(&numSMs, cudaDevAttrMultiProcessorCount, dev);
    saxpy<<<32 * numSMs, 256>>>(...);

    cudaGetDeviceProperties(&prop, 0);
    kernel<<<prop.multiProcessorCount * 2, THREADS>>>(...);

The host flow (:mod:`hostflow`) gives those queries the target's answers so that such a grid
is known. Two kinds of answer:

- the architecture's own limits (warp size, threads per block and per SM, shared memory and
  registers per block and per SM, blocks per SM, compute capability) come from the target
  (``--arch``), like every other figure of the analysis;
- the SM count is the one figure that depends on the GPU model, not the architecture: it comes
  from the device preset (``--device``, else the architecture's representative preset, the one
  the roofline uses), and every launch it reaches states it as an assumption.

``cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, smem)`` is answered by the
occupancy calculation (the one cudalint reports, the runtime's own rules) from ptxas' registers
for that kernel: the file's host code then waits for ptxas. Without ptxas the registers are an
estimate and the query stays unknown, with that reason.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from .target import Target

__all__ = ["DeviceAnswers", "device_answers", "ORIGIN_PREFIX", "is_device_origin"]

# The origin (constprop.Env.origin) of a value a device query gave: launch.py states these
# apart from the values that callers pass.
ORIGIN_PREFIX = "device query: "

# cudaDeviceAttr values (driver_types.h) -> cudaDeviceProp field of the same figure.
_ATTRIBUTES = {
    1: "maxThreadsPerBlock", 8: "sharedMemPerBlock", 10: "warpSize", 12: "regsPerBlock",
    16: "multiProcessorCount", 39: "maxThreadsPerMultiProcessor", 75: "major", 76: "minor",
    81: "sharedMemPerMultiprocessor", 82: "regsPerMultiprocessor",
    97: "sharedMemPerBlockOptin", 106: "maxBlocksPerMultiProcessor",
}


@dataclass(frozen=True)
class DeviceAnswers:
    """The cudaDeviceProp fields cudalint knows for the target; ``sm_source`` names the preset
    the SM count comes from (None: SM count not known)."""

    fields: tuple  # (name, value) pairs
    sm_source: Optional[str] = None
    why_unknown: dict = field(default_factory=dict, compare=False, hash=False)
    # (kernel name, template args, threads per block, dynamic smem) -> (resident blocks per
    # SM, what it rests on) or (None, why not known); None: not answered
    occupancy: Optional[Callable] = field(default=None, compare=False, hash=False)

    def get(self, name: str):
        for f, v in self.fields:
            if f == name:
                return v
        return None

    def attribute(self, attr) -> tuple[Optional[int], Optional[str]]:
        """``cudaDeviceGetAttribute``'s answer for ``attr`` (an int): (value, origin or None)."""
        name = _ATTRIBUTES.get(attr) if isinstance(attr, int) and not isinstance(attr, bool) else None
        if name is None:
            return None, None
        return self.get(name), self.origin(name)

    def origin(self, name: str) -> Optional[str]:
        if name == "multiProcessorCount" and self.sm_source:
            return ORIGIN_PREFIX + self.sm_source
        return None


def is_device_origin(origin: str) -> bool:
    return origin.startswith(ORIGIN_PREFIX)


def device_answers(target: Target, device=None, occupancy: Optional[Callable] = None) -> DeviceAnswers:
    """The answers on ``target`` (a :class:`target.Target`), with the SM count of ``device`` (a
    :class:`devices.Device` or None)."""
    major, minor = (int(x) for x in target.cc.split(".")[:2])
    fields = [
        ("warpSize", target.warp_size),
        ("maxThreadsPerBlock", target.max_threads_per_block),
        ("maxThreadsPerMultiProcessor", target.max_threads_per_sm),
        ("maxBlocksPerMultiProcessor", target.max_blocks_per_sm),
        ("regsPerBlock", target.max_registers_per_block),
        ("regsPerMultiprocessor", target.registers_per_sm),
        ("sharedMemPerBlock", target.max_shared_memory_per_block),
        ("sharedMemPerBlockOptin", target.max_shared_memory_per_block_optin),
        ("sharedMemPerMultiprocessor", target.shared_memory_per_sm),
        ("major", major), ("minor", minor),
    ]
    sms = getattr(device, "sm_count", None)
    source = None
    why = {}
    if isinstance(sms, int) and sms > 0:
        fields.append(("multiProcessorCount", sms))
        source = f"assumed {sms} SMs, as on the {device.name} (--device chooses the GPU)"
    else:
        why["multiProcessorCount"] = "the SM count of the GPU is not known (give --device)"
    return DeviceAnswers(tuple(fields), source, why, occupancy)
