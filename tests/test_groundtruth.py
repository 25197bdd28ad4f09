"""Predicted sectors and wavefronts per request against what an H200 measured.

For every kernel in ``../shared/groundtruth/measured-h200.json`` the file is analysed with the
measured block and grid and ``--arch sm_90``; the kernel-wide mean over the accesses of one
kind (global loads, global stores, shared loads, shared stores) is compared with the measured
value (Nsight Compute: sectors or wavefronts / requests).

- global: within 0.5 sectors (the model is exact on every kernel);
- shared: within 10 % (measured values sit ~4 % above the integer because of the counter's
  accounting), except mm_tiled16's shared loads: nvcc fuses As[ty][k..k+3] into one LDS.128,
  a 128-bit request served in quarter-warp passes, and the kernel-level figure becomes 1.2
  where the source-level model says 1; the issue's 25 % bound is allowed there explicitly.

Skips when ``../shared`` is absent (a user's clone).
"""
from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

import pytest

from cudalint.analyzer.accesses import kernel_mean
from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file

# ../shared/groundtruth next to the checkout; CUDALINT_GROUNDTRUTH points elsewhere (a worktree).
GT = Path(os.environ.get("CUDALINT_GROUNDTRUTH")
          or Path(__file__).resolve().parents[2] / "shared" / "groundtruth")
MEASURED = GT / "measured-h200.json"

FIELDS = [  # (measured key, space, kind, access field, tolerance kind)
    ("ld_sectors_per_req", "global", "load", "sectors_per_request", "abs"),
    ("st_sectors_per_req", "global", "store", "sectors_per_request", "abs"),
    ("shared_ld_wavefronts_per_req", "shared", "load", "wavefronts_per_request", "rel"),
    ("shared_st_wavefronts_per_req", "shared", "store", "wavefronts_per_request", "rel"),
]
# Known source-level model limits, with the tolerance allowed instead (see module docstring).
LDS128_FUSION = {("mm_tiled16", "shared_ld_wavefronts_per_req"): 0.25}


def _kernels():
    if not MEASURED.exists():
        return []
    return sorted(json.loads(MEASURED.read_text())["kernels"].items())


@lru_cache(maxsize=None)
def _table(name: str):
    m = dict(_kernels())[name]
    fa = analyze_file(str(GT / m["file"]), AnalysisOptions(arch="sm_90", block=tuple(m["block"]),
                                                           grid=tuple(m["grid"])))
    assert fa.error is None, fa.error
    k = next(k for k in fa.kernels if k.function.name == name)
    return k.accesses


def _predict(name: str, m: dict) -> dict:
    tab = _table(name)
    return {key: kernel_mean(tab, space, kind, field) for key, space, kind, field, _ in FIELDS}


@pytest.mark.slow  # a corpus run (every measured kernel): CI runs it, pytest -m slow
@pytest.mark.skipif(not MEASURED.exists(), reason="../shared/groundtruth not available")
@pytest.mark.parametrize("name,m", _kernels(), ids=[n for n, _ in _kernels()])
def test_matches_measurement(name, m):
    pred = _predict(name, m)
    for key, space, kind, field, tol in FIELDS:
        measured = m.get(key)
        got = pred[key]
        if measured is None:
            # nothing of this kind measured: the model must not invent accesses either
            # (measured 0 requests), except where the only such accesses are local/atomic
            assert got is None, f"{name}: {key} predicted {got}, nothing measured"
            continue
        assert got is not None, f"{name}: {key} measured {measured}, nothing predicted"
        if tol == "abs":
            assert abs(got - measured) <= 0.5, f"{name}: {key} predicted {got}, measured {measured}"
        else:
            rel = LDS128_FUSION.get((name, key), 0.10)
            assert abs(got - measured) <= rel * measured, \
                f"{name}: {key} predicted {got}, measured {measured:.3f}"


@pytest.mark.skipif(not MEASURED.exists(), reason="../shared/groundtruth not available")
@pytest.mark.parametrize("name,m", _kernels(), ids=[n for n, _ in _kernels()])
def test_efficiency_matches_measurement(name, m):
    """Bytes used / bytes fetched: the mean over the kernel's accesses of a kind equals the
    measured percentage (e.g. mm_naive loads: A 12.5 %, B 100 % -> 56.25 %)."""
    tab = _table(name)
    for key, kind in (("ld_efficiency_pct", "load"), ("st_efficiency_pct", "store")):
        measured = m.get(key)
        if not measured:  # 0: no such requests
            continue
        got = kernel_mean(tab, "global", kind, "efficiency")
        assert got is not None and abs(100 * got - measured) <= 1.0, \
            f"{name}: {key} predicted {got}, measured {measured}"


@pytest.mark.skipif(not MEASURED.exists(), reason="../shared/groundtruth not available")
def test_local_memory_loads():
    """local_dynamic_index: arr[k] with a per-lane k: 32 sectors per LDL (measured 32). The
    stores (constant indices) are 4 sectors per scalar STL in the model; ptxas fused them into
    STL.128, measured 16 -- a compiler transformation the source-level model does not see."""
    m = dict(_kernels())["local_dynamic_index"]
    tab = _table("local_dynamic_index")
    assert kernel_mean(tab, "local", "load", "sectors_per_request") == m["local_ld_sectors_per_req"] == 32
    assert kernel_mean(tab, "local", "store", "sectors_per_request") == 4


@pytest.mark.skipif(not MEASURED.exists(), reason="../shared/groundtruth not available")
def test_every_measured_kernel_is_covered():
    names = [n for n, _ in _kernels()]
    assert len(names) >= 20
    files = {m["file"] for _, m in _kernels()}
    assert all((GT / f).exists() for f in files)


def agreement_table() -> str:
    """The predicted-vs-measured table (``python -m tests.test_groundtruth`` prints it)."""
    rows = [("kernel", "ld pred", "ld meas", "st pred", "st meas", "sh.ld pred", "sh.ld meas",
             "sh.st pred", "sh.st meas")]

    def f(v):
        return "-" if v is None else f"{v:.2f}".rstrip("0").rstrip(".")

    for name, m in _kernels():
        p = _predict(name, m)
        row = [name]
        for key, *_ in FIELDS:
            row += [f(p[key]), f(m.get(key))]
        rows.append(tuple(row))
    w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("| " + " | ".join(c.ljust(x) for c, x in zip(r, w)) + " |" for r in rows)


if __name__ == "__main__":
    print(agreement_table())


# --------------------------------------------------------------------------- predicted_counters

COUNTER_KEYS = [  # (measured key, predicted_counters key)
    ("ld_sectors_per_req", "global_ld_sectors_per_request"),
    ("st_sectors_per_req", "global_st_sectors_per_request"),
    ("shared_ld_wavefronts_per_req", "shared_ld_wavefronts_per_request"),
    ("shared_st_wavefronts_per_req", "shared_st_wavefronts_per_request"),
    ("local_ld_sectors_per_req", "local_ld_sectors_per_request"),
]
# ptxas fused local_dynamic_index's scalar stores into STL.128 (measured 16 per request, the
# source-level model gives 4 per scalar STL): the one row allowed to differ, see above.
KNOWN_LOCAL_ST = {"local_dynamic_index"}


@lru_cache(maxsize=None)
def _counters(name: str) -> dict:
    m = dict(_kernels())[name]
    fa = analyze_file(str(GT / m["file"]), AnalysisOptions(arch="sm_90", block=tuple(m["block"]),
                                                           grid=tuple(m["grid"])))
    k = next(k for k in fa.kernels if k.function.name == name)
    return k.to_json()["predicted_counters"]


@pytest.mark.skipif(not MEASURED.exists(), reason="../shared/groundtruth not available")
@pytest.mark.parametrize("name,m", _kernels(), ids=[n for n, _ in _kernels()])
def test_predicted_counters_match_measurement(name, m):
    """`explain --output-format json`'s predicted_counters (request-weighted, compiler-aware)
    reproduce the H200's kernel-level counters within validate's tolerances; registers are
    ptxas' count where nvcc is installed, and the occupancy matches ncu's theoretical one."""
    from cudalint.commands.validate_report import agree

    pc = _counters(name)
    assert set(pc) == {"global_ld_sectors_per_request", "global_st_sectors_per_request",
                       "shared_ld_wavefronts_per_request", "shared_st_wavefronts_per_request",
                       "local_ld_sectors_per_request", "local_st_sectors_per_request",
                       "registers", "registers_source", "occupancy_pct"}
    for mkey, pkey in COUNTER_KEYS:
        measured, got = m.get(mkey), pc[pkey]
        if measured is None:
            assert got is None, f"{name}: {pkey} predicted {got}, nothing measured"
            continue
        ok, tol = agree(pkey, got, measured)
        if (name, mkey) in LDS128_FUSION:
            ok = got is not None and abs(got - measured) <= LDS128_FUSION[(name, mkey)] * measured
        assert ok, f"{name}: {pkey} predicted {got}, measured {measured} ({tol})"
    if name not in KNOWN_LOCAL_ST:
        assert (pc["local_st_sectors_per_request"] is None) == (m.get("local_st_sectors_per_req") is None)
    ok, _ = agree("occupancy", pc["occupancy_pct"], m["theoretical_occupancy_pct"])
    assert ok, f"{name}: occupancy predicted {pc['occupancy_pct']}, measured {m['theoretical_occupancy_pct']}"
    if pc["registers_source"] == "ptxas":
        assert pc["registers"] == m["ptxas_registers"], f"{name}: registers {pc['registers']}"
