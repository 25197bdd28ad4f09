"""``cudalint occupancy``: NVIDIA's occupancy calculator on the command line.

Register it with ``app.command("occupancy")(occupancy_command)``. Exit status: 0 when the
occupancy was computed, 1 when the launch cannot run at all (a finding: too many threads,
registers or shared memory per block), 2 for a usage error (unknown architecture, bad output
format, ``--plot`` without matplotlib). Heavy imports (rich, matplotlib) happen only on the
paths that need them, so a JSON answer costs little more than the interpreter start.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import typer

from ..analyzer.target import DEFAULT_ARCH

__all__ = ["occupancy_command", "render_text", "write_plot"]

_FORMATS = ("text", "json")


def _v(x: Any) -> Any:
    """The value of a parameter when the function is called directly rather than by typer."""
    default = getattr(x, "default", x)
    if x is not default and type(x).__name__.endswith("Info"):
        return None if default is ... else default
    return x


def _fail(msg: str, code: int = 2) -> "typer.Exit":
    sys.stderr.write(f"cudalint occupancy: error: {msg}\n")
    return typer.Exit(code)


def occupancy_command(
    arch: str = typer.Option(DEFAULT_ARCH, "--arch", help="Target architecture: sm_XX, XX, X.Y or compute_XX (sm_10 ... sm_121)."),
    threads: int = typer.Option(..., "--threads", min=1, help="Threads per block (the product of the block's dimensions)."),
    regs: int = typer.Option(..., "--regs", min=0, help="Registers per thread, as ptxas reports them (0 = unknown, not limiting)."),
    smem: int = typer.Option(0, "--smem", min=0, help="Static shared memory per block in bytes (__shared__ arrays)."),
    dynamic_smem: int = typer.Option(0, "--dynamic-smem", min=0, help="Dynamic shared memory per block in bytes (third <<<>>> argument)."),
    output_format: str = typer.Option("text", "--output-format", help="Output format: text or json."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Also draw the calculator's three charts (occupancy against block size, registers per thread and shared memory per block) to this PNG file; needs matplotlib (pip install 'cudalint\\[plot]')."),
) -> int:
    """Theoretical occupancy of a launch: active blocks, warps and threads per SM, what limits
    them, and the change that reaches the next step."""
    arch, threads, regs = _v(arch), _v(threads), _v(regs)
    smem, dynamic_smem = _v(smem) or 0, _v(dynamic_smem) or 0
    output_format, plot = (_v(output_format) or "text"), _v(plot)
    arch = arch or DEFAULT_ARCH

    from ..analyzer.occupancy import compute_occupancy, next_step
    from ..analyzer.target import load_target

    if output_format not in _FORMATS:
        raise _fail(f"unknown output format {output_format!r} (choose from {', '.join(_FORMATS)})")
    if threads is None or regs is None:
        raise _fail("--threads and --regs are required")
    try:
        target = load_target(arch)
    except ValueError as e:
        raise _fail(str(e))
    try:
        result = compute_occupancy(target, int(threads), int(regs), int(smem), int(dynamic_smem))
    except ValueError as e:
        raise _fail(str(e))
    steps = next_step(target, int(threads), int(regs), int(smem) + int(dynamic_smem)) if result.can_launch else None

    if plot is not None:
        try:
            write_plot(Path(plot), target, int(threads), int(regs), int(smem), int(dynamic_smem))
        except ImportError:
            raise _fail("--plot needs matplotlib, which is not installed: pip install 'cudalint[plot]'")
        except OSError as e:
            raise _fail(f"cannot write {plot}: {e}")

    if output_format == "json":
        doc = result.to_json()
        doc["next_steps"] = [s.message for s in steps.steps] if steps else []
        if plot is not None:
            doc["plot"] = str(plot)
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        render_text(result, steps, target, plot)
    if not result.can_launch:
        raise typer.Exit(1)
    return 0


# --------------------------------------------------------------------------- text
def render_text(result: Any, steps: Any, target: Any, plot: Optional[Path] = None, console: Any = None) -> None:
    from rich.console import Console
    from rich.table import Table

    from ..analyzer.occupancy import LIMITERS, format_bytes

    con = console or Console(highlight=False)
    head = (f"[bold]{result.arch}[/bold] (cc {result.cc}, {target.family}): "
            f"{result.threads_per_block} threads/block, {result.registers_per_thread} registers/thread, "
            f"{format_bytes(result.smem_per_block)} shared/block")
    if result.dynamic_smem:
        head += f" ({format_bytes(result.static_smem)} static + {format_bytes(result.dynamic_smem)} dynamic)"
    con.print(head)

    table = Table(title=None, show_edge=False, pad_edge=False)
    table.add_column("limit")
    table.add_column("per block", justify="right")
    table.add_column("per SM", justify="right")
    table.add_column("blocks/SM", justify="right")
    table.add_column("")
    per_block = {
        "warps": (f"{result.warps_per_block} warps", f"{target.max_warps_per_sm} warps"),
        "registers": (f"{result.registers_per_block} regs", f"{target.registers_per_sm} regs"),
        "shared_memory": (format_bytes(result.smem_allocated_per_block),
                          format_bytes(result.smem_config_bytes or target.shared_memory_per_sm)),
        "blocks": ("1 slot", f"{target.max_blocks_per_sm} slots"),
    }
    for k in LIMITERS:
        lim = result.block_limits.get(k)
        mark = "[bold red]◀ limiter[/bold red]" if k in result.limiters else ""
        table.add_row(k.replace("_", " "), per_block[k][0], per_block[k][1],
                      "∞" if lim is None else str(lim), mark)
    if result.barrier_limit is not None:
        table.add_row("barriers", "", "", str(result.barrier_limit),
                      "[bold red]◀ limiter[/bold red]" if "barriers" in result.limiters else "")
    con.print(table)

    pct = result.occupancy * 100.0
    colour = "green" if pct >= 50 else "yellow" if pct > 25 else "red"
    con.print(f"active: {result.active_blocks_per_sm} blocks, {result.active_warps_per_sm} of "
              f"{result.max_warps_per_sm} warps, {result.active_threads_per_sm} threads per SM")
    con.print(f"occupancy: [bold {colour}]{pct:.1f}%[/bold {colour}]"
              + (f"   limited by: {', '.join(x.replace('_', ' ') for x in result.limiters)}" if result.limiters else ""))
    for e in result.launch_errors:
        con.print(f"[bold red]cannot launch:[/bold red] {e}")
    for n in result.notes:
        con.print(f"[dim]note: {n}[/dim]")
    if steps is not None:
        for s in steps.steps:
            con.print(f"next step: {s.message}")
    if plot is not None:
        con.print(f"charts written to {plot}")


# --------------------------------------------------------------------------- plot
def write_plot(path: Path, target: Any, threads: int, regs: int, smem: int = 0, dynamic_smem: int = 0) -> Path:
    """Draw the occupancy calculator's three charts with the current point marked.

    Raises ImportError when matplotlib is missing."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..analyzer.occupancy import (compute_occupancy, sweep_registers, sweep_shared_memory,
                                      sweep_threads)

    total_smem = smem + dynamic_smem
    cur = compute_occupancy(target, threads, regs, smem, dynamic_smem)
    max_w = target.max_warps_per_sm
    series = [
        ("Impact of varying block size", "threads per block",
         sweep_threads(target, regs, smem, dynamic_smem), threads),
        ("Impact of varying register count per thread", "registers per thread",
         sweep_registers(target, threads, smem, dynamic_smem), regs),
        ("Impact of varying shared memory usage per block", "shared memory per block (bytes)",
         sweep_shared_memory(target, threads, regs), total_smem),
    ]
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    for ax, (title, xlabel, data, x_now) in zip(axes, series):
        xs = [x for x, _ in data]
        ys = [y for _, y in data]
        ax.step(xs, ys, where="post", color="#1f4e99", linewidth=1.6)
        ax.plot([x_now], [cur.active_warps_per_sm], marker="o", markersize=9, color="#d62728",
                linestyle="none", label=f"current ({cur.active_warps_per_sm} warps, {cur.occupancy * 100:.1f}%)")
        ax.axhline(max_w, color="grey", linewidth=0.8, linestyle=":")
        ax.set_ylim(0, max_w * 1.08)
        ax.set_xlim(left=0)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("active warps per SM")
        sec = ax.secondary_yaxis("right", functions=(lambda w: w * 100.0 / max_w, lambda p: p * max_w / 100.0))
        sec.set_ylabel("occupancy (%)")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="lower left", fontsize=8)
    fig.suptitle(f"{target.arch} (cc {target.cc}): {threads} threads/block, {regs} registers/thread, "
                 f"{total_smem} B shared/block", fontsize=11)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
