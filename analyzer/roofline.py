"""Roofline arithmetic for the CGMA analysis (seed sections 5.1 and 5.4).

CGMA is flops per global memory access (a multiply-add counts 2). A device that moves
``bandwidth_gbs`` GB/s of DRAM traffic delivers ``bandwidth_gbs / word_bytes`` giga-words per
second, so a kernel with ratio ``cgma`` can sustain at most ``cgma * bandwidth_gbs / word_bytes``
GFLOPS, and never more than the device's peak:

    attainable = min(peak, cgma * bandwidth / word_bytes)
    balance    = peak / (bandwidth / word_bytes)      # the CGMA needed to reach peak (the ridge)

A kernel whose CGMA is below the balance point is memory-bound, otherwise compute-bound.
Everything here is plain float arithmetic; symbolic CGMAs must be evaluated first.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

from .devices import Device, canonical_precision

__all__ = [
    "RooflinePoint",
    "balance_cgma",
    "attainable_gflops",
    "roofline",
    "default_word_bytes",
]

_DEFAULT_WORD_BYTES = {"fp32": 4, "fp64": 8}


def default_word_bytes(precision: str = "fp32") -> int:
    """4 bytes for fp32, 8 for fp64."""
    return _DEFAULT_WORD_BYTES[canonical_precision(precision)]


def resolve_word_bytes(word_bytes: float | None, precision: str) -> float:
    if word_bytes is None:
        return float(default_word_bytes(precision))
    wb = _as_float(word_bytes, "word_bytes")
    if not math.isfinite(wb) or wb <= 0:
        raise ValueError(f"word_bytes must be a positive number, got {word_bytes!r}")
    return wb


def _as_float(value: Any, what: str) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{what} must be a number, got {value!r}")
    if isinstance(value, numbers.Real):
        return float(value)
    try:
        return float(value)  # sympy numbers, numpy scalars, Decimal strings...
    except (TypeError, ValueError):
        raise ValueError(
            f"{what} must be a number, got {value!r}"
            " (substitute the symbolic sizes, or take the limit, before asking for a roofline)"
        ) from None


def _cgma(value: Any) -> float:
    c = _as_float(value, "cgma")
    if math.isnan(c) or c < 0:
        raise ValueError(f"cgma must be >= 0, got {value!r}")
    return c


def balance_cgma(device: Device, word_bytes: float | None = None, precision: str = "fp32") -> float:
    """The CGMA needed to reach peak: peak GFLOPS / (bandwidth GB/s / bytes per word).

    ``word_bytes`` defaults to 4 for fp32 and 8 for fp64.
    """
    wb = resolve_word_bytes(word_bytes, precision)
    return device.peak_gflops(precision) / (device.bandwidth_gbs / wb)


def attainable_gflops(device: Device, cgma: float, word_bytes: float | None = None, precision: str = "fp32") -> float:
    """min(peak, cgma * bandwidth / word_bytes), in GFLOPS."""
    return roofline(device, cgma, word_bytes=word_bytes, precision=precision).attainable_gflops


@dataclass(frozen=True)
class RooflinePoint:
    """A kernel (or a loop) of ratio ``cgma`` placed on a device's roofline."""

    device: Device
    cgma: float
    balance_cgma: float
    bound: str  # "memory" | "compute"
    attainable_gflops: float
    peak_gflops: float
    fraction_of_peak: float
    word_bytes: float
    precision: str

    @property
    def bandwidth_gbs(self) -> float:
        return self.device.bandwidth_gbs

    @property
    def memory_roof_gflops(self) -> float:
        """cgma * bandwidth / word_bytes: what the memory system alone allows (inf for cgma = inf)."""
        return self.cgma * self.device.bandwidth_gbs / self.word_bytes

    @property
    def memory_bound(self) -> bool:
        return self.bound == "memory"

    def to_json(self) -> dict[str, Any]:
        """JSON-safe dict. An unbounded CGMA (no global accesses) is written as null."""
        return {
            "device": self.device.key,
            "device_name": self.device.name,
            "precision": self.precision,
            "word_bytes": plain_number(self.word_bytes),
            "peak_gflops": self.peak_gflops,
            "bandwidth_gbs": self.device.bandwidth_gbs,
            "cgma": _finite_or_none(self.cgma),
            "balance_cgma": self.balance_cgma,
            "bound": self.bound,
            "attainable_gflops": self.attainable_gflops,
            "fraction_of_peak": self.fraction_of_peak,
        }


def plain_number(x: float) -> float | int:
    return int(x) if float(x).is_integer() else x


def _finite_or_none(x: float) -> float | None:
    return x if math.isfinite(x) else None


def roofline(device: Device, cgma: float, word_bytes: float | None = None, precision: str = "fp32") -> RooflinePoint:
    """Place a CGMA on ``device``'s roofline.

    ``cgma`` is a plain number >= 0 (``math.inf`` for a kernel without global accesses);
    ``word_bytes`` is the size of one accessed word (4 for float, 8 for double; defaults from
    ``precision``). Memory-bound when ``cgma < balance_cgma``, compute-bound otherwise.
    """
    p = canonical_precision(precision)
    c = _cgma(cgma)
    wb = resolve_word_bytes(word_bytes, p)
    peak = device.peak_gflops(p)
    words_per_s = device.bandwidth_gbs / wb  # giga-words per second
    balance = peak / words_per_s
    mem_roof = c * words_per_s if c != math.inf else math.inf
    attainable = min(peak, mem_roof)
    return RooflinePoint(
        device=device,
        cgma=c,
        balance_cgma=balance,
        bound="memory" if c < balance else "compute",
        attainable_gflops=attainable,
        peak_gflops=peak,
        fraction_of_peak=attainable / peak,
        word_bytes=wb,
        precision=p,
    )
