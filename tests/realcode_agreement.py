"""cudalint's static predictions vs the measurements of the real-code set (pure helpers).

``tests/data/realcode-measured.json`` holds, per kernel of ``tests/realcode/*.cu``, what an H100
measured (``bench/realcode_measure.py`` + ``bench/realcode_collect.py``). Here each kernel is
analysed as ``cudalint explain FILE`` does, with no ``--grid``/``--param``: the launch must come
from the file's own host code. The rows are those ``cudalint validate --ncu`` compares, with its
tolerances (``commands/validate_report.agree``):

- ``grid``: the launch grid found statically equals the one that ran;
- ``registers``: against ptxas' count of the nvcc build (what ``validate`` reads as the
  function's ``num_regs``; Nsight's launch figure rounds small counts up to 16);
- ``occupancy``: theoretical occupancy, ±2 points;
- ``global_ld`` / ``global_st``: sectors per request, ±0.5; ``shared_ld`` / ``shared_st``:
  wavefronts per request, ±10 %.

Per access, the SASS memory instructions are grouped by source line (``-lineinfo``), space and
direction and compared with the mean of cudalint's accesses on that line.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "realcode-measured.json"
# Later additions measured on another card (an H200: 11 programs distilled from the NVIDIA
# blog code, Parboil and Learn CUDA Programming): their kernels join the set, each with the
# device it ran on.
MORE = (ROOT / "tests" / "data" / "realcode-measured-round12.json",
        ROOT / "tests" / "data" / "realcode-measured-round13.json")

ROWS = ("grid", "registers", "occupancy", "global_ld", "global_st", "shared_ld", "shared_st")
_KEYS = {"global_ld": "global_ld_sectors_per_request", "global_st": "global_st_sectors_per_request",
         "shared_ld": "shared_ld_wavefronts_per_request", "shared_st": "shared_st_wavefronts_per_request"}


def load() -> dict:
    doc = json.loads(DATA.read_text())
    for k in doc["kernels"]:
        k.setdefault("device", doc.get("device"))
    for p in MORE:
        if p.exists():
            more = json.loads(p.read_text())
            for k in more["kernels"]:
                k.setdefault("device", more.get("device"))
            doc["kernels"] = doc["kernels"] + more["kernels"]
    return doc


def kernel_id(k: dict) -> str:
    return f"{Path(k['file']).stem}:{k['kernel']}"


def analyse(files: list[str]) -> dict:
    """{file: FileAnalysis} as ``cudalint explain`` computes it (sm_90, no launch overrides)."""
    from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file

    return {f: analyze_file(str(ROOT / f), AnalysisOptions(arch="sm_90")) for f in files}


def find_kernel(fa, entry: dict):
    for kf in fa.kernels:
        if kf.name.replace(" ", "") == entry["kernel"].replace(" ", ""):
            return kf
    for kf in fa.kernels:
        if kf.function.name == entry["function"]:
            return kf
    return None


def predicted(kf) -> tuple[dict, dict]:
    """(kernel-level predictions, the kernel's explain JSON). ``predicted_counters`` from the
    explain JSON when the analysis provides it, else ``validate``'s own ``predictions``."""
    from cudalint.commands.validate_report import predictions

    kj = kf.to_json()
    pc = kj.get("predicted_counters")
    return (dict(pc) if pc else predictions(kf, {})), kj


def kernel_rows(entry: dict, pred: dict, kj: dict) -> dict:
    """{row: (predicted, measured, agree, tolerance)}; rows where neither side has a value are
    left out (a kernel with no shared memory has no shared rows)."""
    from cudalint.commands.validate_report import agree

    m = entry["measured"]
    out: dict = {}
    grid = (kj.get("launch") or {}).get("grid")
    mg = entry["launch"]["grid"]
    out["grid"] = (grid, mg, grid is not None and list(grid) == list(mg), "equal")
    src = pred.get("registers_source") or "ptxas"
    ok, tol = agree("registers", pred.get("registers"), m.get("ptxas_registers"), src)
    out["registers"] = (pred.get("registers"), m.get("ptxas_registers"), bool(ok), tol + f" ({src})")
    ok, tol = agree("occupancy", pred.get("occupancy_pct"), m.get("theoretical_occupancy_pct"))
    out["occupancy"] = (pred.get("occupancy_pct"), m.get("theoretical_occupancy_pct"), bool(ok), tol)
    for row, key in _KEYS.items():
        p, v = pred.get(key), m.get(key)
        if p is None and v is None:
            continue
        ok, tol = agree(key, p, v)
        out[row] = (p, v, bool(ok), tol)
    return out


def access_rows(entry: dict, kj: dict) -> list[dict]:
    """Per source line, space and direction: cudalint's mean figure over its accesses on the line
    vs the hardware's over the SASS instructions on the line (``validate --ncu``'s comparison,
    ``commands/validate_sass.py``)."""
    from cudalint.commands.validate_sass import compare_lines, per_line

    return compare_lines(kj.get("accesses") or [], per_line(entry.get("accesses", [])))


def fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.2f}"
    if isinstance(v, list):
        return "x".join(str(x) for x in v)
    return str(v)
