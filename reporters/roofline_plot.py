"""Roofline figures (matplotlib, optional): a device's roofline with its ridge point and each
kernel placed by its CGMA; ``explain --plot`` draws the analysed kernels."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

from ..analyzer.cgma import resolve_roofline_device
from ..analyzer.devices import Device, canonical_precision
from ..analyzer.roofline import RooflinePoint, balance_cgma, plain_number, resolve_word_bytes, roofline


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

    p = canonical_precision(precision)
    wb = resolve_word_bytes(word_bytes, p)
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
        f"DRAM {_fmt(device.bandwidth_gbs)} GB/s\n({plain_number(wb)}-byte words)", fontsize=9, va="top",
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


def plot_kernels(analyses, path, opts=None):
    """Draw the roofline of the analysed kernels' device with each kernel as a point.

    ``analyses`` are :class:`~cudalint.analyzer.pipeline.FileAnalysis` objects. The device is
    the one the kernels were placed on (``--device`` etc.); kernels without a finite, positive
    CGMA are listed in a note on the figure. Returns the written path; raises ImportError
    (matplotlib missing) or ValueError (nothing to plot, or no device).
    """
    device = None
    precision = "fp32"
    points = []
    for fa in analyses:
        for k in fa.kernels:
            rf = k.roofline
            if rf is None or rf.point is None:
                continue
            device = device or rf.point.device
            precision = rf.point.precision
            points.append((k.name, rf.point.cgma, rf.point.word_bytes))
    if device is None:
        if opts is not None:
            device, _ = resolve_roofline_device(opts)
        if device is None:
            raise ValueError("no kernel with a roofline to plot")
    return plot_roofline(device, points, path, precision=precision)
