"""GPU device presets for the CGMA / roofline analysis.

The presets live in ``analyzer/data/devices.json``; every figure there is a ``{"value", "source"}``
pair citing the NVIDIA datasheet or whitepaper (or, for the G80, the seed text) it comes from.

Conventions (the same for every preset):

* ``peak_fp32_gflops`` / ``peak_fp64_gflops``: non-tensor vector peak in GFLOPS (10^9 flop/s),
  a fused multiply-add counted as 2 flops, at the boost clock NVIDIA quotes. ``peak_fp64_gflops``
  is ``None`` for a device without double-precision hardware (compute capability 1.0).
* ``bandwidth_gbs``: peak DRAM bandwidth in GB/s (10^9 bytes/s).
* ``arch``: ``"sm_XY"`` for compute capability X.Y.

Names are matched case-insensitively, ignoring spaces, dashes, underscores and dots and a leading
``NVIDIA`` / ``GeForce`` / ``Tesla``: ``"H100"``, ``"h100-sxm"``, ``"NVIDIA H100 80GB HBM3"`` and
``"GeForce 8800 GTX"`` all resolve.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

__all__ = [
    "Device",
    "load_device",
    "known_devices",
    "all_devices",
    "custom_device",
    "default_device_for_arch",
    "resolve_device",
    "normalize_arch",
    "PRECISIONS",
]

DATA_FILE = Path(__file__).resolve().parent / "data" / "devices.json"

#: Accepted spellings of the two precisions, mapped to the canonical name.
PRECISIONS: Mapping[str, str] = {
    "fp32": "fp32", "f32": "fp32", "float": "fp32", "float32": "fp32", "single": "fp32",
    "fp64": "fp64", "f64": "fp64", "double": "fp64", "float64": "fp64",
}

_FIGURES = ("arch", "peak_fp32_gflops", "peak_fp64_gflops", "bandwidth_gbs", "sm_count", "memory_gb")
_VENDOR_PREFIXES = ("nvidia", "geforce", "tesla")


def canonical_precision(precision: str) -> str:
    try:
        return PRECISIONS[str(precision).strip().lower()]
    except KeyError:
        raise ValueError(f"unknown precision {precision!r}: use 'fp32' or 'fp64'") from None


@dataclass(frozen=True)
class Device:
    """One GPU: peak arithmetic rates, DRAM bandwidth and where each figure comes from."""

    name: str
    key: str
    arch: str | None
    peak_fp32_gflops: float
    peak_fp64_gflops: float | None
    bandwidth_gbs: float
    sm_count: int | None = None
    memory_gb: float | None = None
    aliases: tuple[str, ...] = ()
    #: ``(field, source)`` pairs, one per figure; see :meth:`source`.
    sources: tuple[tuple[str, str], ...] = ()
    notes: str = ""
    #: True for a device built from user-supplied figures (``--peak-gflops``/``--bandwidth-gbs``).
    custom: bool = False

    def peak_gflops(self, precision: str = "fp32") -> float:
        """Peak GFLOPS for ``"fp32"`` or ``"fp64"``; ValueError if the device has no FP64."""
        p = canonical_precision(precision)
        if p == "fp32":
            return self.peak_fp32_gflops
        if self.peak_fp64_gflops is None:
            raise ValueError(f"{self.name} has no double-precision hardware (arch {self.arch})")
        return self.peak_fp64_gflops

    def source(self, field: str) -> str | None:
        """The citation for one figure (``"peak_fp32_gflops"``, ``"bandwidth_gbs"``, ...)."""
        for f, s in self.sources:
            if f == field:
                return s
        return None

    @property
    def compute_capability(self) -> tuple[int, int] | None:
        """``(major, minor)`` from ``arch``, e.g. ``(9, 0)`` for ``sm_90``."""
        if self.arch is None:
            return None
        return _split_arch(self.arch)

    def to_json(self, with_sources: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "key": self.key,
            "name": self.name,
            "arch": self.arch,
            "peak_fp32_gflops": self.peak_fp32_gflops,
            "peak_fp64_gflops": self.peak_fp64_gflops,
            "bandwidth_gbs": self.bandwidth_gbs,
            "sm_count": self.sm_count,
            "memory_gb": self.memory_gb,
            "custom": self.custom,
        }
        if with_sources:
            out["sources"] = dict(self.sources)
            if self.notes:
                out["notes"] = self.notes
        return out


# ----------------------------------------------------------------------------------------------
# name and arch normalisation


def _normalize_name(name: str) -> str:
    s = re.sub(r"[\s\-_.]+", "", str(name).lower())
    changed = True
    while changed:
        changed = False
        for prefix in _VENDOR_PREFIXES:
            if s.startswith(prefix) and len(s) > len(prefix):
                s = s[len(prefix):]
                changed = True
    return s


_ARCH_RE = re.compile(r"^(?:sm|compute|cc)?_?(\d+)(?:\.(\d+))?([a-z]?)$")


def _split_arch(arch: str) -> tuple[int, int]:
    """``sm_90``, ``sm_90a``, ``compute_90``, ``90`` or ``9.0`` -> ``(9, 0)``; ValueError otherwise."""
    s = str(arch).strip().lower().replace(" ", "")
    m = _ARCH_RE.match(s)
    if not m:
        raise ValueError(f"not a compute capability: {arch!r} (expected e.g. 'sm_80' or '8.0')")
    digits, minor, _suffix = m.groups()
    if minor is not None:
        return int(digits), int(minor)
    if len(digits) < 2:
        return int(digits), 0
    return int(digits[:-1]), int(digits[-1])


def normalize_arch(arch: str) -> str:
    """Canonical ``"sm_XY"`` spelling of a compute capability (``9.0`` -> ``sm_90``)."""
    major, minor = _split_arch(arch)
    return f"sm_{major}{minor}"


# ----------------------------------------------------------------------------------------------
# loading the presets


class _Presets:
    def __init__(self, devices: dict[str, Device], index: dict[str, str], arch_defaults: dict[str, str]):
        self.devices = devices
        self.index = index
        self.arch_defaults = arch_defaults


def _figure(entry: Mapping[str, Any], field: str, key: str) -> tuple[Any, str]:
    fig = entry.get(field)
    if not isinstance(fig, Mapping) or "value" not in fig:
        raise ValueError(f"devices.json: {key}.{field} must be an object with 'value' and 'source'")
    source = fig.get("source")
    if not isinstance(source, str) or not source.strip():
        raise ValueError(f"devices.json: {key}.{field} has no source")
    return fig["value"], source


def _positive(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"devices.json: {what} must be a positive number, got {value!r}")
    return float(value)


def _build(doc: Mapping[str, Any]) -> _Presets:
    devices: dict[str, Device] = {}
    index: dict[str, str] = {}
    for key, entry in doc["devices"].items():
        vals: dict[str, Any] = {}
        sources: list[tuple[str, str]] = []
        for field in _FIGURES:
            value, src = _figure(entry, field, key)
            vals[field] = value
            sources.append((field, src))
        arch = normalize_arch(vals["arch"])
        fp64 = vals["peak_fp64_gflops"]
        dev = Device(
            name=str(entry["name"]),
            key=key,
            arch=arch,
            peak_fp32_gflops=_positive(vals["peak_fp32_gflops"], f"{key}.peak_fp32_gflops"),
            peak_fp64_gflops=None if fp64 is None else _positive(fp64, f"{key}.peak_fp64_gflops"),
            bandwidth_gbs=_positive(vals["bandwidth_gbs"], f"{key}.bandwidth_gbs"),
            sm_count=int(_positive(vals["sm_count"], f"{key}.sm_count")),
            memory_gb=_positive(vals["memory_gb"], f"{key}.memory_gb"),
            aliases=tuple(entry.get("aliases", ())),
            sources=tuple(sources),
            notes=str(entry.get("notes", "")),
        )
        devices[key] = dev
        for spelling in (key, dev.name, *dev.aliases):
            norm = _normalize_name(spelling)
            other = index.get(norm)
            if other is not None and other != key:
                raise ValueError(f"devices.json: name {spelling!r} is claimed by both {other!r} and {key!r}")
            index[norm] = key
    arch_defaults: dict[str, str] = {}
    for arch, key in doc.get("arch_defaults", {}).items():
        if key not in devices:
            raise ValueError(f"devices.json: arch_defaults[{arch!r}] names unknown device {key!r}")
        arch_defaults[normalize_arch(arch)] = key
    return _Presets(devices, index, arch_defaults)


@lru_cache(maxsize=1)
def _presets() -> _Presets:
    with open(DATA_FILE, encoding="utf-8") as f:
        return _build(json.load(f))


def known_devices() -> list[str]:
    """Canonical keys of all presets, in file order (oldest architecture first)."""
    return list(_presets().devices)


def all_devices() -> list[Device]:
    """Every preset, in file order."""
    return list(_presets().devices.values())


def load_device(name: str) -> Device:
    """The preset called ``name`` (key, full name or alias; see the module docstring).

    Raises ValueError listing the known names when nothing matches.
    """
    presets = _presets()
    key = presets.index.get(_normalize_name(name))
    if key is not None:
        return presets.devices[key]
    close = difflib.get_close_matches(_normalize_name(name), list(presets.index), n=3, cutoff=0.6)
    hint = ""
    if close:
        hint = " Did you mean " + " or ".join(sorted({repr(presets.index[c]) for c in close})) + "?"
    raise ValueError(
        f"unknown device {name!r}.{hint} Known devices: {', '.join(known_devices())}. "
        "For any other GPU give --peak-gflops and --bandwidth-gbs."
    )


def custom_device(
    peak_gflops: float,
    bandwidth_gbs: float,
    name: str = "custom",
    *,
    peak_fp64_gflops: float | None = None,
    arch: str | None = None,
) -> Device:
    """A device from user-supplied figures (``--peak-gflops X --bandwidth-gbs Y``).

    ``peak_gflops`` is the peak for the precision being analysed; unless ``peak_fp64_gflops`` is
    given it is used for FP64 too.
    """
    peak = _user_positive(peak_gflops, "peak_gflops")
    bw = _user_positive(bandwidth_gbs, "bandwidth_gbs")
    fp64 = peak if peak_fp64_gflops is None else _user_positive(peak_fp64_gflops, "peak_fp64_gflops")
    return Device(
        name=name,
        key=_normalize_name(name) or "custom",
        arch=normalize_arch(arch) if arch is not None else None,
        peak_fp32_gflops=peak,
        peak_fp64_gflops=fp64,
        bandwidth_gbs=bw,
        sources=(
            ("peak_fp32_gflops", "user-supplied (--peak-gflops)"),
            ("peak_fp64_gflops", "user-supplied" if peak_fp64_gflops is not None else "user-supplied (--peak-gflops)"),
            ("bandwidth_gbs", "user-supplied (--bandwidth-gbs)"),
        ),
        custom=True,
    )


def _user_positive(value: Any, what: str) -> float:
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a positive number, got {value!r}") from None
    if not math.isfinite(f) or f <= 0:
        raise ValueError(f"{what} must be a positive number, got {value!r}")
    return f


def default_device_for_arch(arch: str) -> Device | None:
    """A representative preset for a compute capability, or None.

    Exact match first (``sm_90`` -> H100 SXM, ``sm_80`` -> A100 80GB, ...); otherwise the preset of
    the same major version with the nearest lower minor (``sm_37`` -> K20X), else the nearest
    higher one (``sm_30`` -> K20X). None for an unparsable arch or a major version without presets.
    """
    try:
        major, minor = _split_arch(arch)
    except ValueError:
        return None
    presets = _presets()
    exact = presets.arch_defaults.get(f"sm_{major}{minor}")
    if exact is not None:
        return presets.devices[exact]
    same_major = sorted(
        (_split_arch(a)[1], key) for a, key in presets.arch_defaults.items() if _split_arch(a)[0] == major
    )
    if not same_major:
        return None
    lower = [k for m, k in same_major if m <= minor]
    return presets.devices[lower[-1] if lower else same_major[0][1]]


def resolve_device(
    name: str | None = None,
    *,
    peak_gflops: float | None = None,
    bandwidth_gbs: float | None = None,
    arch: str | None = None,
) -> Device | None:
    """What the command line asks for: ``--device NAME`` and/or ``--peak-gflops/--bandwidth-gbs``.

    * both figures and no name: a :func:`custom_device`;
    * a name: that preset, with either figure overriding the preset's (marked as user-supplied);
    * neither: :func:`default_device_for_arch` for ``arch`` (None when no arch or no preset).
    Only one of the two figures without a name is a ValueError.
    """
    if name is not None:
        dev = load_device(name)
        changes: dict[str, Any] = {}
        srcs = dict(dev.sources)
        if peak_gflops is not None:
            changes["peak_fp32_gflops"] = _user_positive(peak_gflops, "peak_gflops")
            srcs["peak_fp32_gflops"] = "user-supplied (--peak-gflops)"
        if bandwidth_gbs is not None:
            changes["bandwidth_gbs"] = _user_positive(bandwidth_gbs, "bandwidth_gbs")
            srcs["bandwidth_gbs"] = "user-supplied (--bandwidth-gbs)"
        if changes:
            changes["sources"] = tuple(srcs.items())
            changes["custom"] = True
            dev = dataclasses.replace(dev, **changes)
        return dev
    if peak_gflops is not None or bandwidth_gbs is not None:
        if peak_gflops is None or bandwidth_gbs is None:
            raise ValueError("--peak-gflops and --bandwidth-gbs go together (or name a preset with --device)")
        return custom_device(peak_gflops, bandwidth_gbs, arch=arch)
    if arch is not None:
        return default_device_for_arch(arch)
    return None

