"""PolyBench-ACC's kernels at their real sizes: the programs ``bench/polybench_measure.py``
measures on a GPU, and cudalint's per-source-line predictions against what it measured.

The programs: ``tests/realcode/pb_*.cu`` where those already run at PolyBench-ACC's
STANDARD_DATASET sizes and grids, ``tests/realcode/polybench/*.cu`` where they do not (resized
``*_std.cu``; ``pb_adi_std.cu`` with PolyBench-ACC's ``grid1.x``; one host-loop iteration of LU
and Gram-Schmidt at k = 1001). The launch grids are checked here by hand without a GPU; the
per-line comparison runs once the device's ``polybench-measured.json`` is stored as
``tests/data/polybench-measured.json`` (skipped until then).
"""
from __future__ import annotations

import json
import sys
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "polybench-measured.json"
sys.path.insert(0, str(ROOT / "bench"))

import polybench_measure as PM  # noqa: E402


@lru_cache(maxsize=None)
def _analysis(rel: str):
    from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file

    return analyze_file(str(ROOT / rel), AnalysisOptions(arch="sm_90"))


def _kernels(rel: str) -> dict:
    return {k.function.name: k for k in _analysis(rel).kernels}


def test_program_list():
    names = [p["name"] for p in PM.programs()]
    assert len(names) == 23 and len(set(names)) == 23
    # the 21 PolyBench-ACC CUDA programs once each, plus two host-loop iterations
    assert sum(n.endswith("_k1001") for n in names) == 2
    assert not PM.SUPERSEDED & set(names)
    assert names[-2:] == ["pb_correlation_std", "pb_covariance_std"]  # the slow ones last


# Grids by hand from PolyBench-ACC's host code at STANDARD_DATASET sizes.
GRIDS = {
    "tests/realcode/polybench/pb_3mm_std.cu": {"mm3_kernel1": (16, 64, 1), "mm3_kernel3": (16, 64, 1)},
    "tests/realcode/polybench/pb_gemm_std.cu": {"gemm_kernel": (16, 64, 1)},             # 512/32, 512/8
    "tests/realcode/polybench/pb_jacobi1d_std.cu": {"runJacobiCUDA_kernel1": (16, 1, 1)},  # 4096/256
    "tests/realcode/polybench/pb_jacobi2d_std.cu": {"runJacobiCUDA_kernel1": (32, 128, 1)},
    "tests/realcode/polybench/pb_adi_std.cu": {"adi_kernel1": (4, 1, 1), "adi_kernel6": (4, 1, 1)},
    # reduce_kernel's y extent divides N by the X block size (32), as PolyBench-ACC does: 64
    # blocks of 8 rows cover 512 of the 2048 rows
    "tests/realcode/polybench/pb_covariance_std.cu": {"mean_kernel": (8, 1, 1), "reduce_kernel": (64, 64, 1),
                                                      "covar_kernel": (8, 1, 1)},
    "tests/realcode/polybench/pb_correlation_std.cu": {"reduce_kernel": (64, 256, 1), "corr_kernel": (8, 1, 1)},
    # k = 1001: grid1.x = ceil((2048 - 1002) / 256) = 5; grid2 = (ceil(1046 / 32), ceil(1046 / 8))
    "tests/realcode/polybench/pb_lu_k1001.cu": {"lu_kernel1": (5, 1, 1), "lu_kernel2": (33, 131, 1)},
    "tests/realcode/polybench/pb_gramschmidt_k1001.cu": {"gramschmidt_kernel1": (1, 1, 1),
                                                         "gramschmidt_kernel3": (8, 1, 1)},
}


@pytest.mark.parametrize("rel", sorted(GRIDS))
def test_launch_grids_from_the_host_code(rel):
    ks = _kernels(rel)
    for name, grid in GRIDS[rel].items():
        assert tuple(ks[name].launch.grid) == grid, name


def test_lu_pivot_requests_by_hand():
    # lu_kernel1 at k = 1001: active j = 1002..1279 of 5 blocks of 256: warp 7 of block 3
    # (j = 992..1023, lanes 10..31 active: 3 sectors) and the 8 warps of block 4 (4 each):
    # 9 requests per access
    k = _kernels("tests/realcode/polybench/pb_lu_k1001.cu")["lu_kernel1"]
    got = {(a.array, a.kind, a.column): a.requests for a in k.accesses if a.space == "global"}
    assert set(got.values()) == {9}, got


@lru_cache(maxsize=1)
def _measured() -> dict:
    return json.loads(DATA.read_text())


def _line_cases():
    if not DATA.exists():
        return
    for e in _measured()["kernels"]:
        yield pytest.param(e, id=f"{Path(e['file']).stem}:{e['kernel']}")


@pytest.mark.skipif(not DATA.exists(), reason="no device measurement stored yet "
                    "(python3 bench/polybench_measure.py on the GPU; its polybench-measured.json)")
@pytest.mark.parametrize("entry", list(_line_cases()))
def test_sectors_per_request_per_line(entry):
    """Global sectors per request of each source line (the mean over cudalint's accesses on the
    line vs the sectors over the warp-level executions of the line's SASS instructions), with
    ``validate``'s tolerance; and the launch grid found statically is the one that ran."""
    from cudalint.commands.validate_sass import compare_lines, per_line

    kf = _kernels(entry["file"]).get(entry["function"])
    assert kf is not None, entry["kernel"]
    assert list(kf.launch.grid) == entry["launch"]["grid"]
    kj = kf.to_json()
    measured = entry["accesses"]
    r = kf.function.range
    lines = {a["line"] for a in measured if a["space"] == "global"}
    if lines and not any(r.line <= ln <= r.end_line for ln in lines):
        # nvcc emitted one body for kernels identical but for their names (3mm's mm3_kernel2
        # and mm3_kernel3): the SASS of this one is attributed to the other's source lines.
        # Its lines are then compared in order, shifted onto this kernel's own.
        ours = sorted({a["line"] for a in kj.get("accesses") or [] if a["space"] == "global"})
        shift = min(ours) - min(lines) if ours else 0
        measured = [dict(a, line=a["line"] + shift) for a in measured]
    rows = [r for r in compare_lines(kj.get("accesses") or [], per_line(measured))
            if r.get("space") == "global" and r.get("measured") is not None]
    bad = [r for r in rows if not r.get("agree")]
    assert rows and not bad, bad
