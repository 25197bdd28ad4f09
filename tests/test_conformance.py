"""Conformance: the libclang and pycparser frontends give the same IR, and the same facts, on
every plain-C fixture (fixtures/c/*.cu).

The IR is compared through ``ir_summary`` (structure, operators, names, types, start
positions; not end positions or uids). Differences that come from a known defect of one
frontend are listed in KNOWN with the reason; any other difference fails, and a KNOWN entry
that no longer matches anything fails too (remove it once the defect is fixed).
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from cudalint.analyzer.frontend.ir_dump import ir_diff, ir_summary
from cudalint.analyzer.frontend.lower_c import lower_c_file
from cudalint.analyzer.launch import resolve_launch_sites
from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file

ROOT = Path(__file__).resolve().parents[1]
C_FIXTURES = sorted((ROOT / "fixtures" / "c").glob("*.cu"))

# Known differences, all on the libclang side; each pattern is matched against one line of
# ir_diff (clang first, pycparser second).
KNOWN: dict[str, tuple[re.Pattern, str]] = {
}


def _clang_tu(path: Path):
    from cudalint.analyzer.frontend.lower_clang import lower_translation_unit
    from cudalint.analyzer.frontend.parse import FrontendOptions, parse_file

    pr = parse_file(str(path), FrontendOptions())
    assert pr.tu is not None and not pr.errors, [str(e) for e in pr.errors]
    tu = lower_translation_unit(pr.tu, str(path))
    resolve_launch_sites(tu)
    return tu


@functools.lru_cache(maxsize=None)
def ir_diffs(path: Path) -> tuple[str, ...]:
    clang = ir_summary(_clang_tu(path))
    pyc = ir_summary(lower_c_file(str(path)))
    return tuple(ir_diff(clang, pyc, limit=1000))


@functools.lru_cache(maxsize=None)
def fact_diffs(path: Path) -> tuple[str, ...]:
    facts = {}
    for fe in ("clang", "pycparser"):
        fa = analyze_file(str(path), AnalysisOptions(frontend=fe, use_ptxas=False))
        assert fa.error is None, (fe, fa.error)
        facts[fe] = [k.to_json() for k in fa.kernels]
    return tuple(ir_diff(facts["clang"], facts["pycparser"], limit=1000))


def _unexplained(diffs) -> list[str]:
    return [d for d in diffs if not any(p.search(d) for p, _ in KNOWN.values())]


@pytest.mark.parametrize("path", C_FIXTURES, ids=lambda p: p.name)
def test_same_ir(path: Path):
    bad = _unexplained(ir_diffs(path))
    assert not bad, f"{path.name}: the frontends disagree:\n" + "\n".join(bad[:40])


@pytest.mark.parametrize("path", C_FIXTURES, ids=lambda p: p.name)
def test_same_kernels_exactly(path: Path):
    """Kernels and the device functions they call must agree with no exception at all."""
    clang = ir_summary(_clang_tu(path))
    pyc = ir_summary(lower_c_file(str(path)))
    kc = [f for f in clang["functions"] if f["kind"] in ("global", "device")]
    kp = [f for f in pyc["functions"] if f["kind"] in ("global", "device")]
    assert kc, "a fixture without kernels proves nothing"
    assert kc == kp, "\n".join(ir_diff(kc, kp)[:40])
    assert clang["globals"] == pyc["globals"]


@pytest.mark.parametrize("path", C_FIXTURES, ids=lambda p: p.name)
def test_same_facts(path: Path):
    bad = _unexplained(fact_diffs(path))
    assert not bad, f"{path.name}: the facts differ:\n" + "\n".join(bad[:40])


def test_known_differences_still_occur():
    """A KNOWN entry that matches nothing is stale: the defect was fixed, delete the entry."""
    used = set()
    for path in C_FIXTURES:
        for d in ir_diffs(path) + fact_diffs(path):
            for key, (pat, _) in KNOWN.items():
                if pat.search(d):
                    used.add(key)
    assert used == set(KNOWN), f"stale KNOWN entries: {sorted(set(KNOWN) - used)}"


def test_comparison_can_fail():
    """ir_summary distinguishes different programs (the conformance test is not vacuous)."""
    a = ir_summary(lower_c_file(str(C_FIXTURES[0])))
    b = ir_summary(lower_c_file(str(C_FIXTURES[1])))
    assert ir_diff(a, b)
