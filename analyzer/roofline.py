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
from pathlib import Path
from typing import Any, Sequence

from .devices import Device, _canonical_precision

__all__ = [
    "RooflinePoint",
    "balance_cgma",
    "attainable_gflops",
    "roofline",
    "plot_roofline",
    "default_word_bytes",
]

_DEFAULT_WORD_BYTES = {"fp32": 4, "fp64": 8}


def default_word_bytes(precision: str = "fp32") -> int:
    """4 bytes for fp32, 8 for fp64."""
    return _DEFAULT_WORD_BYTES[_canonical_precision(precision)]


def _word_bytes(word_bytes: float | None, precision: str) -> float:
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
    wb = _word_bytes(word_bytes, precision)
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
            "word_bytes": _num(self.word_bytes),
            "peak_gflops": self.peak_gflops,
            "bandwidth_gbs": self.device.bandwidth_gbs,
            "cgma": _finite_or_none(self.cgma),
            "balance_cgma": self.balance_cgma,
            "bound": self.bound,
            "attainable_gflops": self.attainable_gflops,
            "fraction_of_peak": self.fraction_of_peak,
        }


def _num(x: float) -> float | int:
    return int(x) if float(x).is_integer() else x


def _finite_or_none(x: float) -> float | None:
    return x if math.isfinite(x) else None


def roofline(device: Device, cgma: float, word_bytes: float | None = None, precision: str = "fp32") -> RooflinePoint:
    """Place a CGMA on ``device``'s roofline.

    ``cgma`` is a plain number >= 0 (``math.inf`` for a kernel without global accesses);
    ``word_bytes`` is the size of one accessed word (4 for float, 8 for double; defaults from
    ``precision``). Memory-bound when ``cgma < balance_cgma``, compute-bound otherwise.
    """
    p = _canonical_precision(precision)
    c = _cgma(cgma)
    wb = _word_bytes(word_bytes, p)
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


# ----------------------------------------------------------------------------------------------
# plotting


def _import_matplotlib():
    try:
        import matplotlib  # noqa: F401
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - exercised via monkeypatch in the tests
        raise ImportError(
            "plotting a roofline needs matplotlib, which is not installed: "
            "pip install 'cudalint[plot]' (or: pip install matplotlib)"
        ) from exc
    return Figure, FigureCanvasAgg


def _fmt(x: float) -> str:
    if x >= 1000:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.3g}"


def plot_roofline(
    device: Device,
    points: Sequence[tuple[str, float]] | Sequence[tuple[str, float, float]],
    path: str | Path,
    *,
    precision: str = "fp32",
    word_bytes: float | None = None,
    title: str | None = None,
    dpi: int = 120,
) -> Path:
    """Draw ``device``'s roofline (log-log) with the ridge point and each kernel as a labelled point.

    ``points`` are ``(label, cgma)`` pairs, or ``(label, cgma, word_bytes)`` for a kernel whose
    words differ from the roof's. Kernels with CGMA 0 or infinity cannot sit on a log axis; they are
    listed in a note instead. Writes the image (format from the suffix, e.g. ``.png``) and returns
    its path. Raises ImportError with an install hint when matplotlib is missing.
    """
    Figure, FigureCanvasAgg = _import_matplotlib()

    p = _canonical_precision(precision)
    wb = _word_bytes(word_bytes, p)
    peak = device.peak_gflops(p)
    balance = balance_cgma(device, wb, p)

    placed: list[tuple[str, RooflinePoint]] = []
    unplaced: list[str] = []
    for item in points:
        label, cgma = item[0], item[1]
        kwb = item[2] if len(item) > 2 else wb  # type: ignore[misc]
        pt = roofline(device, cgma, word_bytes=kwb, precision=p)
        if pt.cgma <= 0 or not math.isfinite(pt.cgma):
            unplaced.append(f"{label}: CGMA {'inf' if pt.cgma == math.inf else _fmt(pt.cgma)}")
        else:
            placed.append((str(label), pt))

    xs = [pt.cgma for _, pt in placed] + [balance]
    x_lo = min(min(xs) / 4.0, balance / 64.0)
    x_hi = max(max(xs) * 4.0, balance * 8.0)
    y_lo = x_lo * device.bandwidth_gbs / wb / 5.0
    y_hi = peak * 6.0

    fig = Figure(figsize=(8, 5.5))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    ax.set_xscale("log")
    ax.set_yscale("log")

    roof_x = [x_lo, balance, x_hi]
    roof_y = [x_lo * device.bandwidth_gbs / wb, peak, peak]
    ax.plot(roof_x, roof_y, color="black", linewidth=2, label="roofline")
    ax.axvline(balance, color="grey", linestyle=":", linewidth=1)
    ax.plot([balance], [peak], marker="o", color="black", markersize=7, zorder=5)
    ax.annotate(
        f"ridge: CGMA {_fmt(balance)}\n{_fmt(peak)} GFLOPS",
        (balance, peak), xytext=(-10, 10), textcoords="offset points", fontsize=9, ha="right",
    )
    ax.plot([x_lo, balance], [peak, peak], color="grey", linestyle="--", linewidth=1)
    ax.text(x_lo * 1.3, peak * 1.12, f"peak {p.upper()} {_fmt(peak)} GFLOPS", fontsize=9, va="bottom")
    ax.text(
        x_lo * 1.6, x_lo * 1.6 * device.bandwidth_gbs / wb / 2.2,
        f"DRAM {_fmt(device.bandwidth_gbs)} GB/s\n({_num(wb)}-byte words)", fontsize=9, va="top",
    )

    colors = {"memory": "tab:red", "compute": "tab:blue"}
    for i, (label, pt) in enumerate(placed):
        ax.plot([pt.cgma], [pt.attainable_gflops], marker="s", markersize=7, color=colors[pt.bound], zorder=6)
        ax.annotate(
            f"{label}\nCGMA {_fmt(pt.cgma)}: {_fmt(pt.attainable_gflops)} GFLOPS",
            (pt.cgma, pt.attainable_gflops),
            # below-right of the rising memory roof and above the flat compute roof is empty space
            xytext=(10, -30) if pt.bound == "memory" else (6, 10 + 24 * (i % 2)),
            textcoords="offset points", fontsize=8,
            color=colors[pt.bound],
        )
    if unplaced:
        ax.text(
            0.99, 0.02, "not on a log axis: " + "; ".join(unplaced), transform=ax.transAxes,
            ha="right", va="bottom", fontsize=8, color="dimgrey",
        )

    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)
    ax.set_xlabel("CGMA (floating-point operations per global memory access)")
    ax.set_ylabel("attainable GFLOPS")
    ax.set_title(title or f"Roofline: {device.name}")
    ax.grid(True, which="major", linestyle="-", alpha=0.3)
    ax.grid(True, which="minor", linestyle=":", alpha=0.15)
    fig.tight_layout()

    out = Path(path)
    fig.savefig(out, dpi=dpi)
    return out
